use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let p = y[0] > 1;
    let q = p.clamp(false, y[1] > 2);
    let r = p.abs_diff(q);
    y[2] = (q as u32) + (r as u32);
}

fn main() {}
