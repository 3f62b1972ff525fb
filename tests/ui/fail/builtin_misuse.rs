use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let w = thread_idx().w;
    let t = thread_idx();
    y[0] = block_dim(0).x;
}

fn main() {}
