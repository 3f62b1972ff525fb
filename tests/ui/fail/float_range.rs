use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [f32], n: f32) {
    for t in 0.0..n {
        y[0] += t;
    }
}

fn main() {}
