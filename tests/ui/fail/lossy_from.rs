use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [f32], z: &mut [u32]) {
    y[0] = f32::from(z[0]);
    z[1] = u32::from(-1i32);
}

fn main() {}
