// A range of a slice assigned whole, as `y[0..2] = x[0..2]` reads: rustc's E0277 (`[T]` has
// no size known at compile time), with the loop that copies the elements.
use ptx_dsl::prelude::*;

#[ptx_kernel]
fn copy_range(x: &[f32], y: &mut [f32]) {
    y[0..2] = x[0..2];
}

fn main() {}
