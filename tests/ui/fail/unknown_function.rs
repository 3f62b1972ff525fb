use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    x[0] = helper(x[0]);
}

fn main() {}
