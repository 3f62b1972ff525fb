#![allow(non_snake_case)]
use ptx_dsl::prelude::*;

#[ptx_device]
fn fill(a: &mut [u32], b: &mut [u32]) {
    a[0] = 1;
    b[0] = 2;
}

// An upper-case name in a pattern that is a variable or a parameter: Rust binds a new name
// there, matching every value, where a reader expects a comparison.
#[ptx_kernel]
fn pattern_names(x: &[u32], y: &mut [u32], #[comptime] M: u32) {
    let N = 5u32;
    y[0] = match x[0] {
        N => 1,
        _ => 2,
    };
    y[1] = match x[0] {
        M => 1,
        _ => 2,
    };
}

// `u32::BITS` is a constant to the overflow checks, as to rustc.
#[ptx_kernel]
fn bits_overflow(y: &mut [u32], n: u32) {
    y[0] = u32::MAX + u32::BITS;
    y[1] = n << u32::BITS;
    y[2] = n % (u8::BITS - 8);
}

// A `&mut` slice moved into another name cannot be used again (rustc's E0382), in order and
// not in another arm.
#[ptx_kernel]
fn moved_slices(y: &mut [u32], x: &mut [u32], c: bool) {
    if c {
        let z = y;
        z[0] = 1;
    } else {
        y[0] = 2;
    }
    y[1] = 3;
    let w = x;
    fill(w, x);
}

// A shared array is a `&mut` too.
#[ptx_kernel]
fn moved_shared(y: &mut [u32]) {
    let t = shared::<u32, 4>();
    let u = t;
    u[0] = 1;
    y[0] = t[0];
}

// A built-in function named without its call.
#[ptx_kernel]
fn uncalled_builtin(y: &mut [u32]) {
    sync_threads;
    y[0] = 1;
}

// An `if` without `else` giving a value: one error, not a second where the value goes.
#[ptx_kernel]
fn if_without_else(y: &mut [u32], n: u32) {
    y[0] = if n > 0 { 1 };
}

// A literal rustc rejects itself is not reported again; one it leaves to the macro is.
#[ptx_kernel]
fn literals(y: &mut [u32]) {
    y[0] = 0b102;
    y[1] = 7xyz;
}

// The attribute twice, or both kinds of function at once.
#[ptx_kernel]
#[ptx_kernel]
fn kernel_twice(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel]
#[ptx_device]
fn kernel_and_device(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_device]
#[ptx_kernel]
fn device_and_kernel(x: f32) -> f32 {
    x
}

#[ptx_device]
#[ptx_device]
fn device_twice(x: f32) -> f32 {
    x
}

#[ptx_device]
fn first(x: &[f32]) -> f32 {
    x[0]
}

// Messages that say what to write instead.
#[ptx_kernel]
fn instead(y: &mut [f32], x: &[f32], n: u32) {
    y[0] = (n ** 2) as f32;
    let t = shared::<f32, 256>;
    y[2] = first(&x);
}

// (The type checker's: in a kernel the parser takes.)
#[ptx_kernel]
fn instead_checked(y: &mut [f32]) {
    const K: f32 = 1.0;
    K = 5.0;
    y[1] = f32::sqrt();
    y.fill(0.0);
}

// A `let .. else` over an `Option` is one error (its pattern), not one for `Some` too.
#[ptx_kernel]
fn let_else(y: &mut [u32], n: u32) {
    let Some(v) = Some(n) else {
        return;
    };
    y[0] = 1;
}

// Round 18: moves repeated by a loop or taken by a `for` loop, a variable as a range's
// end, a constant of the body bound by a pattern, a slice read while an atomic borrows it,
// a half-precision constant kernels do not have.
#[ptx_kernel]
fn moves_in_loops(y: &mut [u32], x: &mut [u32], n: u32) {
    for i in 0..2usize {
        let z = y;
        z[i] = 1;
    }
    let mut s = 0u32;
    for v in x {
        s += v;
    }
    x[0] = s + n;
}

#[ptx_kernel]
fn pattern_ends(y: &mut [u32], n: u32) {
    let top = 5u32;
    y[0] = match n {
        0..=top => 1,
        _ => 2,
    };
}

#[ptx_kernel]
fn constant_bound_again(y: &mut [u32]) {
    const B: u32 = 4;
    let B = 9u32;
    y[0] = B;
}

#[ptx_kernel]
fn atomic_reads_its_slice(y: &mut [u32]) {
    atomic_add(&mut y[0], y[1]);
}

fn main() {}
