use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32]) {
    x[0] = 1.0;
}

fn main() {}
