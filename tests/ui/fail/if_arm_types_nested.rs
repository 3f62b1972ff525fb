use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], f: f32) {
    y[0] = if f > 0.0 { 1u32 } else if f < 0.0 { 2.0 } else { 3 };
}

fn main() {}
