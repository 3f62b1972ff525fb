use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(#[comptime] x: &[f32]) {}

fn main() {}
