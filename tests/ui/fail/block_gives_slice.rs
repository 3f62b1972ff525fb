use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    let a = { x };
    let t = { thread_idx() };
    y[0] = a[0] + t.x as f32;
}

fn main() {}
