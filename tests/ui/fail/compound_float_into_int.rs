use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let mut i = 0u32;
    i += 1.5;
    y[0] = i;
}

fn main() {}
