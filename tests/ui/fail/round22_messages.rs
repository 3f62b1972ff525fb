use ptx_dsl::prelude::*;

// An inline `const { .. }` block: the message says what to write instead.
#[ptx_kernel]
fn const_block(out: &mut [u32]) {
    out[0] = const { 7 * 6 };
}

// `checked_div` has `wrapping_div` beside it in kernels, but no `saturating_div`: the
// message names only the method that exists (`checked_shl`: `wrapping_shl`).
#[ptx_kernel]
fn checked_division(out: &mut [u32], x: u32) {
    out[0] = x.checked_div(3).unwrap_or(7);
    out[1] = x.checked_shl(3).unwrap_or(7);
}

// A local of a type kernels lack: the message lists arrays among the types they have.
#[ptx_kernel]
fn wide_local(out: &mut [u32]) {
    let v: i128 = 5;
    out[0] = v as u32;
}

// Half precision as a user new to it writes it: each mistake says what to write.
#[ptx_kernel]
fn half_mistakes(h: &mut [f16], x: &[f32]) {
    let i = thread_idx().x as usize;
    if i < h.len() && i < x.len() {
        h[i] = x[i] as f16;
        let n = -h[i];
        let mut v = f16::from_f32(0.5);
        let t: (f16, f32) = (h[i], 1.0);
    }
}

// A float where a half value goes, and the other way round.
#[ptx_kernel]
fn half_conversions(h: &mut [f16], x: &mut [f32], y: &mut [f64]) {
    let i = thread_idx().x as usize;
    if i < h.len() && i < x.len() && i < y.len() {
        h[i] = 1.0;
        x[i] = h[i];
        y[i] = h[i];
        h[i] = y[i];
    }
}

fn main() {}
