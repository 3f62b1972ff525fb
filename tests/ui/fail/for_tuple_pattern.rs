use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    for (j, k) in 0..4u32 {
        x[0] = j + k;
    }
}

fn main() {}
