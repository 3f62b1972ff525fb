use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    let part = x[1..3];
    y[0] = x[0][1];
}

fn main() {}
