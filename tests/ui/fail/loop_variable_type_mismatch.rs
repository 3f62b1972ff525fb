use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], n: u32) {
    for j in 0u64..n {
        y[0] += 1;
    }
}

fn main() {}
