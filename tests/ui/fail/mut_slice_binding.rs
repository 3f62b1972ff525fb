use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let mut y = thread_idx();
}

fn main() {}
