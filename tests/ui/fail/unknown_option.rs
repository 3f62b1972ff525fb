use ptx_dsl::prelude::*;

#[ptx_kernel(fast_math)]
fn k(x: &mut [f32]) {}

fn main() {}
