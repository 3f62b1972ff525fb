use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(#[comptime] name: String) {}

fn main() {}
