use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(p: (f32, f32)) {}

fn main() {}
