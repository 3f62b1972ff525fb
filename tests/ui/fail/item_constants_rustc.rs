#![allow(dead_code)]
use ptx_dsl::prelude::*;

const N: usize = 4;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    // The kernel's type for a constant is checked against the item, at its name.
    x[0] = N;
    // A constant that does not exist is rustc's error at its name.
    x[1] = MISSNG;
}

/// Close to the misspelt name above: rustc suggests it.
const MISSING: u32 = 1;

fn main() {}
