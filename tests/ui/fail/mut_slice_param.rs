use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(mut y: &mut [u32], #[comptime] mut n: u32) {
    y[0] = n;
}

fn main() {}
