use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32], n: u32) {
    // A range loop's variable is immutable: the hint is `for mut j`.
    for j in 0..4usize {
        j += 1;
        x[j] = 0;
    }
    // `grid_stride` takes a `usize` length.
    for i in grid_stride(n) {
        x[i] = 1;
    }
}

fn main() {}
