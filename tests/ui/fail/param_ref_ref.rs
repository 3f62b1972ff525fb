use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &&[f32]) {}

fn main() {}
