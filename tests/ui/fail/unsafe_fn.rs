use ptx_dsl::prelude::*;

#[ptx_kernel]
unsafe fn k(x: &mut [f32]) {}

fn main() {}
