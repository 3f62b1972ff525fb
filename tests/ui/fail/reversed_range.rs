use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    // `.rev()` of a range is fine, before or after `step_by`; a grid-stride loop's is not.
    for i in (0..10u32).rev().step_by(3) {
        y[0] += i;
    }
    for i in grid_stride(y.len()).rev() {
        y[i] = 1;
    }
}

fn main() {}
