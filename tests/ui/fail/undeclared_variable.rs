use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    x[0] = y;
    x[k] = 1.0;
    for i in 0..m {}
    x[1] = q * 2.0;
    let (nv, nw) = (!v, -w);
}

fn main() {}
