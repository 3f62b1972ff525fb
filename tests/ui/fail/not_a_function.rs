use ptx_dsl::prelude::*;

#[ptx_kernel]
struct NotAKernel;

fn main() {}
