use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], v: f32) {
    x[0] = *v;
}

fn main() {}
