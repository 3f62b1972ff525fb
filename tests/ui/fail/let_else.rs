use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let 0..=5 = y[0] else {
        y[1] = 2;
    };
    let (a, b): (u32, u32) = (y[2], y[3]) else { return };
    y[0] = a + b;
}

fn main() {}
