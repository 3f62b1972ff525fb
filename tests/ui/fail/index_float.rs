use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], f: f32) {
    x[f] = 1.0;
}

fn main() {}
