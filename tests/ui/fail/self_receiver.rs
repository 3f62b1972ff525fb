use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(self, n: u32) {}

fn main() {}
