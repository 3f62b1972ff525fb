use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    const SCALE: u32 = 3;
    y[0] = SCALE;
}

fn main() {}
