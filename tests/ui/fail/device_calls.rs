#![allow(dead_code)]
use ptx_dsl::prelude::*;

#[ptx_device]
fn scale(x: f32, k: f32) -> f32 {
    x * k
}

#[ptx_device]
fn twice(x: f32) -> f32 {
    x * 2.0
}

/// Checked where a kernel calls it: it calls another device function.
#[ptx_device]
fn bad(x: f32) -> u32 {
    twice(x).frobnicate()
}

#[ptx_kernel]
fn k(x: &mut [f32], n: u32) {
    x[0] = scale(x[0]);
    x[1] = scale(x[1], n);
    let (a, b) = twice(x[2]);
}

#[ptx_kernel]
fn uses_bad(x: &mut [u32]) {
    x[0] = bad(1.0);
}

#[ptx_device]
fn total(x: &[f32]) -> f32 {
    x[0]
}

#[ptx_device]
fn clear(x: &mut [f32]) {
    x[0] = 0.0;
}

#[ptx_device]
fn copy_first(from: &[f32], to: &mut [f32]) {
    to[0] = from[0];
}

#[ptx_kernel]
fn slices(x: &[f32], y: &mut [u32], n: u32, z: &mut [f32]) {
    let a = total(n);
    clear(x);
    let b = total(y);
    copy_first(z, z);
}

fn main() {}
