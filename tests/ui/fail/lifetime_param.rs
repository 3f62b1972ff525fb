use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k<'a>(x: &'a [f32], y: &mut [f32]) {
    y[0] = x[0];
}

fn main() {}
