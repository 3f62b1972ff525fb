use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let b = x[0] > 1;
    x[0] = b + 1;
    let f = 1.5 | 2.5;
}

fn main() {}
