use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    k(x);
}

fn main() {}
