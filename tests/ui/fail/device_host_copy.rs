use ptx_dsl::prelude::*;

// Each mistake once: the host copy of a device function with errors is not reported again
// by rustc (no "cannot find attribute `comptime`", no second mismatched type).
#[ptx_device]
fn comptime_param(#[comptime] n: u32) -> u32 {
    n
}

#[ptx_device]
fn unroll_arguments(x: f32) -> f32 {
    let mut s = x;
    #[unroll(2)]
    for _ in 0..2 {
        s += 1.0;
    }
    s
}

#[ptx_device]
fn no_value(x: f32) -> f32 {
    x;
}

// A kernel that calls none of them compiles.
#[ptx_kernel]
fn k(y: &mut [f32]) {
    y[0] = 1.0;
}

fn main() {}
