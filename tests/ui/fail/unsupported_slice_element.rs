use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(flags: &[u8], out: &mut [usize]) {}

fn main() {}
