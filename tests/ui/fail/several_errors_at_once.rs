use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], n: u32) {
    x[0] = 1.0;
    let m = n + 1.5f32;
    let z = missing;
}

fn main() {}
