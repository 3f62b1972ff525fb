use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let n = 1u32;
    n = 2;
    x[0] = n;
    x = x;
}

fn main() {}
