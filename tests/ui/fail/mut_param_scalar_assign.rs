use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], n: u32) {
    n += 1;
    y[0] = n;
}

fn main() {}
