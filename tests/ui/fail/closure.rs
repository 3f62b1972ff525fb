use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    let f = |v: f32| v * 2.0;
    x[0] = f(x[0]);
}

fn main() {}
