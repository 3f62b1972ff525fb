use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    let mut s = 0.0;
    for v in x {
        s += v;
    }
    y[0] = s;
}

fn main() {}
