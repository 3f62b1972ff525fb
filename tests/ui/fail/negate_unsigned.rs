use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let v = x[0];
    x[0] = -v;
}

fn main() {}
