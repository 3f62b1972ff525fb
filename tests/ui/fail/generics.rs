use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k<T>(x: &[f32]) {}

fn main() {}
