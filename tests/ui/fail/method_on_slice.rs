use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32]) {
    y[0] = x.sin();
    let s = x.iter();
}

fn main() {}
