use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], y: u32) {
    y[0] = 1;
}

fn main() {}
