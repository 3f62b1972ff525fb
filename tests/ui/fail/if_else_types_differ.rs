use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let v = if x[0] > 1 { 1u32 } else { 2.0f32 };
    let w: u32 = if x[0] > 2 { x[1] = 1; } else { 5 };
}

fn main() {}
