use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(flags: &[bool], out: &mut [usize], offsets: &[isize]) {}

fn main() {}
