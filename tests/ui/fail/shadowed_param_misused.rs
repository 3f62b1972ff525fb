use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], n: u32) {
    let n = n > 4;
    x[0] = n + 1;
}

fn main() {}
