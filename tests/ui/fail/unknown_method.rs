use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    x[0] = x[0].asinh();
}

fn main() {}
