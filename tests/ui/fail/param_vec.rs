use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: Vec<f32>) {}

fn main() {}
