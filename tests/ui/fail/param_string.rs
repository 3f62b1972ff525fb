use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(s: String) {}

fn main() {}
