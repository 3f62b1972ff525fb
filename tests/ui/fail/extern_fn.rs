use ptx_dsl::prelude::*;

#[ptx_kernel]
extern "C" fn k(x: &mut [f32]) {}

fn main() {}
