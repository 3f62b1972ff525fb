use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let p = y[0] > 1;
    let q = p.max(y[1] > 2);
    y[2] = q as u32;
}

fn main() {}
