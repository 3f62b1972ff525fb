use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    x[0] = x[0].asinh();
    let l = x.len(1, 2);
    let a = 5u32.abs();
}

fn main() {}
