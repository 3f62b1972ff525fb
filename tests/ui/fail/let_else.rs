use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let (a, b) = (1u32, 2u32) else { return };
    y[0] = a + b;
}

fn main() {}
