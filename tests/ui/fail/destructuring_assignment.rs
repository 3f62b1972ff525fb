use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let (mut a, mut b) = (1u32, 2u32);
    (a, b) = (b, a);
    y[0] = a + b;
}

fn main() {}
