use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [f32]) {
    y[0] = (y[1] > 1.0) as f32;
}

fn main() {}
