use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    if x[0] > 0.0 {
        return x[0];
    }
    y[0] = 1.0;
}

fn main() {}
