use ptx_dsl::prelude::*;

// One error per pattern: the names it binds are still known in the body.
#[ptx_kernel]
fn k(y: &mut [f32]) {
    let (a, ..) = y[0].sin_cos();
    let ref b = y[1];
    let ref mut c = y[2];
    let (g, ..): (f32, f32) = y[0].sin_cos();
    c = 2.0;
    y[5] = a + b + c + g;
}

#[ptx_kernel]
fn param((a, b): (u32, u32), y: &mut [u32]) {
    y[0] = a + b;
}

#[ptx_kernel]
fn loop_pattern(y: &mut [u32]) {
    for [i, j] in 0..4 {
        y[i] = j;
    }
}

fn main() {}
