use ptx_dsl::prelude::*;

#[ptx_kernel]
const fn k(n: u32) {}

fn main() {}
