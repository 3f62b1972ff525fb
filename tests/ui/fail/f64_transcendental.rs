use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f64]) {
    x[0] = x[0].sin();
}

fn main() {}
