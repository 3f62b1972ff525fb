//! The twenty-sixth round of code the suite had not seen (docs/testing.md): kernels as users
//! write them, each body also run as plain Rust and the results compared.
#![allow(non_snake_case, clippy::needless_late_init)] // constants' names and late initialisation are tested

use ptx_dsl::prelude::*;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// A device function whose parameter is named like a constant (no constant `S` is in scope).
#[ptx_device]
fn scaled(mut S: u32, by: u32) -> u32 {
    S = S.wrapping_mul(by);
    S
}

// Bindings named like constants where no constant of the name is in scope: `let`, `let mut`,
// tuple patterns, loop variables (forward and reversed) and a device function's parameter
// are new names, as in Rust (with a constant of the name they are rustc's E0530, in
// tests/ui/fail/binding_shadows_constant.rs).
twin!(upper_case_names, upper_case_names_host, |t, x: &[u32], out: &mut [u32]| {
    let N = x[t];
    // A new binding reads the one it shadows.
    let N = N ^ 0x5a5a;
    let (mut M, A) = (N, 3u32);
    let (A, B) = (N & 7, A);
    let (A, B) = (B, A);
    M = M.wrapping_add(A);
    let mut S = 0u32;
    for I in 0..(N % 7) {
        S = S.wrapping_add(I.wrapping_mul(M));
    }
    // Lint levels on loops and `if`s, as rustc takes them.
    #[allow(clippy::reversed_empty_ranges)]
    for I in (0..(N % 5)).rev() {
        S ^= I << 3;
    }
    #[allow(clippy::collapsible_if)]
    if M > 7 {
        S ^= 1;
    }
    out[t] = scaled(S, A) ^ M ^ B;
});

#[test]
fn bindings_named_like_constants_are_new_names() {
    let mut rng = ptx_tools::rng::Rng::fresh("upper_case_names");
    let x: Vec<u32> = (0..100).map(|_| rng.next() as u32).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| UpperCaseNames::new().launch(d, c, a, o);
    check_twin("upper_case_names", &x, 1, &launch, upper_case_names_host);
}

/// A `let` without a value in a device function, assigned in both arms.
#[ptx_device]
fn pick(c: bool, a: f32) -> f32 {
    let v: f32;
    if c {
        v = a;
    } else {
        v = -a;
    }
    v
}

// `let` without a value (`let v: f32;`), as CUDA C ports write `float v; if (..) v = ..;`:
// assigned in the arms of `if` and `match`, before a `loop`'s `break`, in a labelled block,
// as a tuple, `mut` and assigned in a loop, in a device function.
twin!(deferred_lets, deferred_lets_host, |t, x: &[f32], out: &mut [f32]| {
    let v: f32;
    let w;
    if x[t] > 0.0 {
        v = x[t];
        w = 3u32;
    } else {
        v = -1.0;
        w = 4;
    }
    let pair: (f32, u32);
    match w {
        3 => pair = (v, 1),
        _ => {
            pair = (v * 2.0, 2);
        }
    }
    let mut acc;
    acc = 0.0;
    for k in 0..w {
        acc += k as f32;
    }
    let z;
    loop {
        if acc > x[t].abs().min(50.0) {
            z = acc;
            break;
        }
        acc += 1.0;
    }
    let r;
    'pick: {
        if z > 4.0 {
            r = pick(true, z);
            break 'pick;
        }
        r = pick(false, z);
    }
    // Assigned in a `while let`'s value, which runs at least once; `let _: T;` binds nothing.
    let mut last;
    let mut k = w;
    while let 0..=5 = {
        last = k;
        k
    } {
        k += 2;
    }
    let _: f32;
    // A name bound to a `mut` one keeps the value it had then.
    let mut m;
    m = v;
    let kept = m;
    m += 1.5;
    out[t] = v * w as f32 + pair.0 * pair.1 as f32 + acc + z + r + last as f32 + kept * 3.0 + m;
});

#[test]
fn lets_without_a_value_are_the_hosts() {
    let mut rng = ptx_tools::rng::Rng::fresh("deferred_lets");
    let mut x: Vec<f32> = (0..100).map(|_| rng.signed_f32() * 8.0).collect();
    x.extend([0.0, -0.0, f32::NAN, 1e30, -1e30]);
    let launch = |d: &_, c, a: &_, o: &mut _| DeferredLets::new().launch(d, c, a, o);
    check_twin("deferred_lets", &x, 1, &launch, deferred_lets_host);
}

// The float formats' integer constants, in index math and comparisons.
twin!(format_constants, format_constants_host, |t, x: &[u32], out: &mut [u32]| {
    let shift = x[t] % f32::MANTISSA_DIGITS;
    let exp = (x[t] % 300) as i32 - 150;
    let fits = exp >= f32::MIN_EXP && exp <= f32::MAX_EXP && exp > f64::MIN_10_EXP;
    let exps = f64::MAX_10_EXP + f64::MIN_EXP + f32::MIN_10_EXP - f32::MAX_10_EXP + f64::MAX_EXP;
    out[t] = (1u32 << shift) + f32::RADIX * f64::DIGITS + fits as u32 + f32::DIGITS
        - f64::MANTISSA_DIGITS / 53
        + exps as u32;
});

#[test]
fn float_format_constants_are_the_hosts() {
    let mut rng = ptx_tools::rng::Rng::fresh("format_constants");
    let x: Vec<u32> = (0..100).map(|_| rng.next() as u32).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| FormatConstants::new().launch(d, c, a, o);
    check_twin("format_constants", &x, 1, &launch, format_constants_host);
}

// Assignments in conditions, as rustc follows them: the right operand of `&&` counts where
// the whole is true, of `||` where it is false, `!` swaps them, and a `match` guard counts
// in its arm.
twin!(assigned_in_conditions, assigned_in_conditions_host, |t, x: &[i32], out: &mut [i32]| {
    let v: i32;
    if x[t] > 0 && {
        v = 1;
        true
    } {
        out[t] = v;
    }
    let w: i32;
    match x[t] % 4 {
        n if {
            w = n;
            n > 1
        } =>
        {
            out[t] += w
        }
        _ => {}
    }
    // A guard's `&&` counts in its arm too.
    let g: i32;
    match x[t] {
        n if n > 1 && {
            g = n % 7;
            true
        } =>
        {
            out[t] += g
        }
        _ => {}
    }
    let u: i32;
    if !(x[t] > 5 || {
        u = 3;
        false
    }) {
        out[t] += u;
    }
    let z: i32;
    if x[t] < 0 || {
        z = 7;
        x[t] > 2
    } {
        out[t] += 1;
    } else {
        out[t] += z;
    }
    // A `while` loop ends where its condition is false: `||`'s right operand ran.
    let mut q: i32;
    let mut k = 0;
    while k < 3 || {
        q = k + x[t] % 5;
        false
    } {
        k += 1;
    }
    out[t] += q;
});

#[test]
fn assignments_in_conditions_are_the_hosts() {
    let mut rng = ptx_tools::rng::Rng::fresh("assigned_in_conditions");
    let mut x: Vec<i32> = (0..100).map(|_| (rng.next() % 21) as i32 - 10).collect();
    x.extend([i32::MIN, i32::MAX, 0, 1, 6]);
    let launch = |d: &_, c, a: &_, o: &mut _| AssignedInConditions::new().launch(d, c, a, o);
    check_twin("assigned_in_conditions", &x, 1, &launch, assigned_in_conditions_host);
}
