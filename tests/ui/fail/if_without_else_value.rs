use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    let v = if x[0] > 0.0 { 1.0f32 };
}

fn main() {}
