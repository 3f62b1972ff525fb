#![deny(unused_variables, unused_imports)]
use ptx_dsl::prelude::*;
// Used by the kernel's `cmp::min` alone: not reported unused.
use std::cmp;

// rustc's lint for unused variables sees a kernel's names as it sees a function's: once
// each, at the user's code, and not for a name that is used, allowed or a guard's.
#[ptx_device]
fn helper(a: f32, b: f32) -> f32 {
    for k in 0..2u32 {}
    a
}

#[ptx_kernel]
fn k(x: &[f32], out: &mut [f32], unused_param: u32) {
    let i = thread_idx().x as usize;
    let never = 5u32;
    #[allow(unused_variables)]
    let allowed = 6u32;
    let m = match (i, 1u32) {
        (lo, 1) if lo > 1 => 2.0,
        (_, n) => 3.0,
    };
    out[i] = x[i] * m + helper(1.0, 2.0) + helper(3.0, 4.0) + cmp::min(i, 2) as f32;
}

#[ptx_kernel]
fn again(out: &mut [f32]) {
    out[0] = helper(5.0, 6.0);
}

fn main() {}
