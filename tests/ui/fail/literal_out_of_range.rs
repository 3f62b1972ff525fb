use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let v: u8 = 256;
    let w: u64 = 340282366920938463463374607431768211455;
    x[0] = v as u32;
}

fn main() {}
