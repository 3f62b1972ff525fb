use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u64], f: &mut [f32]) {
    let x: u32 = 5;
    let w: u64 = x.into();
    y[0] = w;
    y[1] = f[0].to_bits() as u64;
    f[1] = f32::from_bits(7);
}

fn main() {}
