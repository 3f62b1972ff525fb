use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], out: &mut [f32], n: u32) {
    let w = &mut x[1..];
    let a = [1.0f32, 2.0];
    let b = &a[..1];
    let r = &out[0..2];
    r[0] = 1.0;
    let q = &out[n..4];
    let y = x[1..];
    out[0] = w[0] + b[0] + q[0] + y;
}

fn main() {}
