use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    let x = x[0];
    y[0] = x[1];
}

fn main() {}
