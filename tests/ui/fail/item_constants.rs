#![allow(dead_code)]
use ptx_dsl::prelude::*;

const N: usize = 4;
const GAIN: f32 = 0.5;

/// A device function cannot read its module's constants: kernels elsewhere inline it.
#[ptx_device]
fn gain(x: f32) -> f32 {
    x * GAIN
}

#[ptx_kernel]
fn k(x: &mut [u32], y: &mut [f32]) {
    // The kernel's type for the constant is checked against the item (rustc's error).
    x[0] = N;
    // Nothing here says which type `N` has, and `n` is a variable of the kernel's.
    let mut n = N * 2;
    n += 1;
    // A constant that does not exist is rustc's error at its name.
    x[1] = MISSING;
    y[0] = gain(y[1]);
    let _ = n;
}

fn main() {}
