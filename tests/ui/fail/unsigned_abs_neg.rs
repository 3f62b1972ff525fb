use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], z: &mut [f32]) {
    let m = -y[0];
    z[0] = -z[0] as u32;
}

fn main() {}
