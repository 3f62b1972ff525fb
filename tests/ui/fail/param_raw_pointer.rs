use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: *const f32) {}

fn main() {}
