use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [f32]) {
    y[0] = !y[0];
    let b = !5.0f32;
}

fn main() {}
