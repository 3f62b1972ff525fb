use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [f32], n: u32) {
    if y[0] > n {
        y[1] = 1.0;
    }
    let m = y[0] * 2;
}

fn main() {}
