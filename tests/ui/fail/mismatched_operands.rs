use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], n: u32) {
    let i = thread_idx().x;
    x[i] = n + x[i];
}

fn main() {}
