#![allow(dead_code)]
use ptx_dsl::prelude::*;

/// A dot product unrolled over `n`: each kernel that calls it with a comptime `n` unrolls it.
#[ptx_device]
fn dot_n(a: &[f32], b: &[f32], base: usize, n: usize) -> f32 {
    let mut s = 0.0f32;
    #[unroll]
    for e in 0..n {
        s = a[base + e].mul_add(b[e], s);
    }
    s
}

/// Fine: `dim` is comptime.
#[ptx_kernel]
fn rows_comptime(x: &[f32], w: &[f32], out: &mut [f32], #[comptime] dim: u32) {
    let i = global_idx().x as usize;
    out[i] = dot_n(x, w, i * dim as usize, dim as usize);
}

/// An error: `dim` is a runtime value, so `dot_n`'s loop cannot be unrolled.
#[ptx_kernel]
fn rows_runtime(x: &[f32], w: &[f32], out: &mut [f32], dim: u32) {
    let i = global_idx().x as usize;
    out[i] = dot_n(x, w, i * dim as usize, dim as usize);
}

/// A parameter the function assigns is never comptime: an error at the definition.
#[ptx_device]
fn dot_mut(a: &[f32], mut n: usize) -> f32 {
    n += 1;
    let mut s = 0.0f32;
    #[unroll]
    for e in 0..n {
        s += a[e];
    }
    s
}

/// A device function's immutable parameter is still a runtime value where it is assigned.
#[ptx_device]
fn assign_param(n: usize) -> usize {
    n = 2;
    n
}

/// An error in `outer`, which passes `sum_first` a runtime length.
#[ptx_device]
fn sum_first(a: &[f32], k: usize) -> f32 {
    let mut s = 0.0f32;
    #[unroll]
    for e in 0..k {
        s += a[e];
    }
    s
}

#[ptx_device]
fn outer(a: &[f32]) -> f32 {
    let k = a.len();
    sum_first(a, k)
}

#[ptx_kernel]
fn calls_outer(x: &[f32], out: &mut [f32]) {
    out[0] = outer(x);
}

fn main() {}
