use ptx_dsl::prelude::*;

const HALF: f32 = 0.5;

// A shift by a constant of the surrounding code takes any integer type, as in Rust, and
// rustc refuses a float where the constant is named.
#[ptx_kernel]
fn float_shift(y: &mut [u32]) {
    y[0] = y[0] << HALF;
}

fn main() {}
