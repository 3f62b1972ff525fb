use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    // `.rev()` is fine; after `step_by` it would start from the forward steps' last value.
    for i in (0..10u32).rev().step_by(3) {
        y[0] += i;
    }
    for i in (0..10u32).step_by(3).rev() {
        y[0] += i;
    }
    for i in grid_stride(y.len()).rev() {
        y[i] = 1;
    }
}

fn main() {}
