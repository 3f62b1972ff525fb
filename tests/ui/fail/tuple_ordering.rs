use ptx_dsl::prelude::*;

// Tuples of different shapes do not compare, as in Rust, and tuples of slices do not order.
#[ptx_kernel]
fn k(y: &mut [u32], x: &[u32], a: u32) {
    let shapes = (a, 1u32) == (a, 1u32, 2u32);
    let slices = (x, a) < (x, a);
    y[0] = shapes as u32 + slices as u32;
}

fn main() {}
