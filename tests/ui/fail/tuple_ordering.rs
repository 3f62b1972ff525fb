use ptx_dsl::prelude::*;

// Tuples compare with `==` and `!=`; their ordering (`<`), which Rust has, is not supported,
// and tuples of different shapes do not compare, as in Rust.
#[ptx_kernel]
fn k(y: &mut [u32], a: u32) {
    let before = (a, 1u32) < (2, a);
    let shapes = (a, 1u32) == (a, 1u32, 2u32);
    y[0] = before as u32 + shapes as u32;
}

fn main() {}
