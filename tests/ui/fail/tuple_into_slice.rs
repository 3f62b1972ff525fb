use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let t = (1u32, 2u32);
    y[0] = t;
    y[1] = y;
}

fn main() {}
