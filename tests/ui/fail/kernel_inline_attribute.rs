use ptx_dsl::prelude::*;

#[ptx_kernel]
#[inline]
#[allow(clippy::all)]
fn k(y: &mut [u32]) {
    y[0] = 1;
}

fn main() {}
