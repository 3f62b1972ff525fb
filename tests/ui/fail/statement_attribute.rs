use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    #[allow(unused)]
    let x = 1u32;
    y[0] = x;
}

fn main() {}
