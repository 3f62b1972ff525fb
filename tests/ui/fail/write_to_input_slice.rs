use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x;
    x[i] = y[i];
    x[i] += 1.0;
}

fn main() {}
