use ptx_dsl::prelude::*;

// `(a..b).step_by(s).rev()` where Rust has no reverse of it: a `u64` range and a `u32`
// `..=` range are no `ExactSizeIterator`s (rustc's E0599); the message says what to write.
#[ptx_kernel]
fn steps_reversed_of_wide_ranges(out: &mut [u64], n: u64, m: u32) {
    for k in (0..n).step_by(3).rev() {
        out[0] += k;
    }
    for k in (0..=m).step_by(3).rev() {
        out[1] += k as u64;
    }
}

// Reversing twice.
#[ptx_kernel]
fn reversed_twice(out: &mut [u32]) {
    for k in (0..8u32).rev().rev() {
        out[0] += k;
    }
}

// A macro of the user's own: the kernel sees the call, not what it expands to.
macro_rules! twice {
    ($x:expr) => {
        2 * $x
    };
}

#[ptx_kernel]
fn own_macro(out: &mut [u32]) {
    out[0] = twice!(out[1]);
}

// Names PTX or the printer reserves.
#[ptx_kernel]
#[allow(non_snake_case)]
fn WARP_SZ(out: &mut [u32]) {
    out[0] = 32;
}

#[ptx_kernel]
fn vprintf(out: &mut [u32]) {
    out[0] = 1;
}

// A device function returning an array must give one (scalars and tuples need not).
#[ptx_device]
fn never_an_array() -> [f32; 2] {
    panic!("no array")
}

#[ptx_device]
fn never_a_pair_with_an_array() -> (u32, [u32; 2]) {
    panic!("no pair")
}

// Reversing a grid-stride loop, also in parentheses.
#[ptx_kernel]
fn reversed_grid_stride(y: &mut [u32]) {
    for i in (grid_stride(y.len())).rev() {
        y[i] = 1;
    }
}

// What a CUDA C programmer writes first: each says what a kernel writes instead.
#[ptx_kernel]
fn cuda_habits(x: &mut [f32], n: &mut [u32]) {
    x[0] = fminf(x[0], 1.0);
    x[1] = rsqrtf(x[1]);
    x[2] = __expf(x[2]);
    n[0] = __popc(n[1]);
    atomicSub(&mut n[2], 1);
    x[3] = std::f32::max(x[3], 0.0);
    x[4] = 2.5f;
    let big = 5u128;
    dbg!(big);
}

// `Option` and `Result`, which kernels do not have.
#[ptx_kernel]
fn optional(x: &mut [u32]) {
    let found = if x[0] > 0 { Some(x[0]) } else { None };
    let ok = Ok(3);
}

// An iterator chain out of a `for` loop.
#[ptx_kernel]
fn summed(x: &[f32], y: &mut [f32]) {
    y[0] = x.iter().sum();
}

fn main() {}
