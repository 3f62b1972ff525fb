use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32], #[comptime] n: u32) {
    n = 4;
    x[0] = n;
}

fn main() {}
