use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(f: &mut [f32], y: &mut [u32]) {
    f[1] = f32::from_bits(y[0]);
    y[1] = u32::rotate_left(y[0], 3);
    y[2] = bool::then(true) as u32;
}

fn main() {}
