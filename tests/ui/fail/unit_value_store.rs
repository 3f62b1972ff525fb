use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    y[0] = ();
    let u = {};
    y[1] = u;
}

fn main() {}
