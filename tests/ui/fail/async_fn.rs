use ptx_dsl::prelude::*;

#[ptx_kernel]
async fn k(x: &[f32]) {}

fn main() {}
