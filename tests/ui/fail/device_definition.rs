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

#[ptx_device]
fn lane_id() -> u32 {
    thread_idx().x % 16
}

#[ptx_device]
fn ping(a: u32) -> u32 {
    if a == 0 { 0 } else { pong(a - 1) }
}

#[ptx_device]
fn pong(a: u32) -> u32 {
    ping(a)
}

#[ptx_kernel]
fn k(x: &mut [f32], n: u32) {
    x[0] = factorial(n) as f32;
}

#[ptx_kernel]
fn mutual(x: &mut [u32], n: u32) {
    x[0] = ping(n);
}

fn main() {}
