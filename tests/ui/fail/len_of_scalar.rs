use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], n: u32) {
    y[0] = n.len() as u32;
}

fn main() {}
