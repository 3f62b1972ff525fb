use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let table = [1u32, 2, 3];
    y[0] = table[1];
}

fn main() {}
