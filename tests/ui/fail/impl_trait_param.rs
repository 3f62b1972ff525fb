use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(f: impl Fn(u32) -> u32, y: &mut [u32]) {
    y[0] = 1;
}

fn main() {}
