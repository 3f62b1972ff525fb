// A `let` without a value, as rustc checks it: read where a path did not assign it (E0381),
// assigned twice without `mut` (E0384, in sequence or by a loop's next iteration), never
// given a type (E0282); and what kernels bind only with a value (tuple patterns, arrays,
// slices).
use ptx_dsl::prelude::*;

#[ptx_kernel]
fn one_arm(x: &[f32], out: &mut [f32]) {
    let i = global_idx().x as usize;
    let v: f32;
    if x[i] > 0.0 {
        v = 1.0;
    }
    out[i] = v;
}

#[ptx_kernel]
fn maybe_no_iteration(out: &mut [u32]) {
    let v: u32;
    let mut k = 0;
    while k < 4 {
        v = k;
        k += 1;
        break;
    }
    out[0] = v;
}

#[ptx_kernel]
fn twice(x: &[f32], out: &mut [f32]) {
    let i = global_idx().x as usize;
    let v: f32;
    v = 1.0;
    if x[i] > 0.0 {
        v = 2.0;
    }
    out[i] = v;
}

#[ptx_kernel]
fn each_iteration(out: &mut [u32]) {
    let v: u32;
    for k in 0..4u32 {
        v = k;
    }
    let w: u32;
    let mut k = 0u32;
    while k < 4 {
        if k == 2 {
            w = 1;
            continue;
        }
        k += 1;
    }
    // The condition runs again before each next iteration.
    let c: bool;
    while {
        c = k > 2;
        c
    } {
        k -= 1;
    }
    out[0] = 1;
}

#[ptx_kernel]
fn shapes(x: &[f32], out: &mut [f32]) {
    let untyped;
    let (a, b);
    let s: [f32; 4];
    let z;
    z = x;
    let q: f32;
    q += 1.0;
    let p: (f32, u32);
    p = (1.0, 2);
    p.0 = 3.0;
    let _;
    out[0] = z[0];
}

#[ptx_kernel]
fn in_conditions(x: &[f32], out: &mut [f32]) {
    // The right operand of `&&` may not run: not assigned after the loop, and assigned again
    // by each iteration's condition.
    let v: f32;
    let mut k = 0;
    while k < 3 && {
        v = 1.0;
        true
    } {
        k += 1;
    }
    out[0] = v;
    // A block ending in `&&` is a `bool` value to rustc, not a condition it follows.
    let u: f32;
    if {
        out[2] = 1.0;
        x[0] > 0.0 && {
            u = 1.0;
            true
        }
    } {
        out[2] = u;
    }
    // The `if`'s body runs where `x[0] > 0.0` alone is true.
    let w: f32;
    if x[0] > 0.0 || {
        w = 1.0;
        true
    } {
        out[1] = w;
    }
}

#[ptx_kernel]
fn debug_only(x: &[f32], out: &mut [f32]) {
    // Release builds leave the assertion out, and the assignment with it.
    let v: f32;
    debug_assert!({
        v = x[0];
        v >= 0.0
    });
    out[0] = v;
}

fn main() {}
