use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let mut j = 0u32;
    j++;
    x[0] = j;
}

fn main() {}
