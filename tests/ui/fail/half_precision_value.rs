use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], h: f16) {
    let v: bf16 = x[0];
    let (a, b): (f32, f16) = (x[0], x[1]);
}

fn main() {}
