use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(n: &mut u32) {
    *n = 5;
}

fn main() {}
