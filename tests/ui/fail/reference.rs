use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    let v = 1.0f32;
    let r = &v;
}

fn main() {}
