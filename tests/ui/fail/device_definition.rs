#![allow(dead_code)]
use ptx_dsl::prelude::*;

#[ptx_device]
fn early(x: f32) -> f32 {
    if x > 0.0 {
        return x;
    }
    -x
}

#[ptx_device]
fn first(x: Vec<f32>) -> f32 {
    x[0]
}

#[ptx_device]
fn identity<T: Copy>(x: T) -> T {
    x
}

#[ptx_device]
fn half(x: u32) -> f32 {
    (x / 2) as f64
}

#[ptx_device]
fn factorial(n: u32) -> u32 {
    if n == 0 { 1 } else { n * factorial(n - 1) }
}

#[ptx_kernel]
fn k(x: &mut [f32], n: u32) {
    x[0] = factorial(n) as f32;
}

fn main() {}
