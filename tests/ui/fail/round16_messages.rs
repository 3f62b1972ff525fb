use ptx_dsl::prelude::*;

const TAPS: [f32; 5] = [0.1, 0.2, 0.3, 0.4, 0.5];
const NINE: usize = 9;

#[ptx_device]
fn sum3(t: [f32; 3]) -> f32 {
    t[0] + t[1] + t[2]
}

// A constant table copied into an array of another length (rustc's E0308).
#[ptx_kernel]
fn table_lengths(out: &mut [f32]) {
    let t: [f32; 3] = TAPS;
    out[0] = t[0] + sum3(TAPS);
}

// Indices past a table's end written as constant expressions (rustc's
// `unconditional_panic`, in a function of its own: rustc looks for it only where the types
// hold).
#[ptx_kernel]
fn table_indices(out: &mut [f32]) {
    out[0] = TAPS[2 + 3] + TAPS[NINE];
}

// A whole array assigned one of another length, both written out; `mut` on one side of a
// `|` pattern only (rustc's E0409).
#[ptx_kernel]
fn shapes(out: &mut [u32], a: u32, b: u32) {
    let mut w = [0u32; 3];
    w = [1, 2];
    out[0] = w[0];
    out[1] = match (a, b) {
        (mut n, 0) | (0, n) => n,
        _ => 9,
    };
}

// CUDA C's atomics and `warpSize`; a named field; a device function's tuple parameter
// assigned without `mut`.
#[ptx_device]
fn second(p: (f32, u32)) -> u32 {
    p.1 = 3;
    p.1
}

#[ptx_kernel]
fn cuda_and_fields(out: &mut [u32], a: u32) {
    atomicAdd(&mut out[0], 1);
    out[1] = warpSize;
    let mut t = (a, a);
    t.x = 4;
    out[2] = second((1.0, a)) + t.0;
}

// References used as values (rustc's E0308, E0606), `*` of a value (E0614) and a `&`
// pattern over an array by value (E0308).
#[ptx_kernel]
fn references(y: &mut [f32], x: &[f32]) {
    for (i, v) in x.iter().enumerate() {
        y[i] = v;
        let f: f32 = v;
        let d = v as f64;
        if v == 0.0 {
            y[0] = f + d as f32;
        }
    }
    let w = [1.0f32, 2.0];
    for v in w {
        y[0] = *v;
    }
    for &v in w {
        y[1] = v;
    }
}

// Writes to what a loop borrows, inside the loop (rustc's E0506); a loop over an array by
// value runs over a copy, which its body may change.
#[ptx_kernel]
fn borrowed_while_written(y: &mut [u32], x: &mut [u32]) {
    let mut w = [1u32, 2, 3];
    for v in &w {
        w[0] = *v;
    }
    for v in x.iter() {
        x[0] = *v;
    }
    for (k, &v) in w.iter().enumerate() {
        w.swap(0, k);
        y[k] = v;
    }
    for v in w {
        w[2] = v;
    }
    y[0] = w[0];
}

fn main() {}
