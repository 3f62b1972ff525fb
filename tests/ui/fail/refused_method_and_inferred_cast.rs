// A method kernels do not have, given a literal that fits only the receiver's type: one
// error, at the method (its argument is not also defaulted to `i32` and reported out of
// range); and `as _`, which names no type.
use ptx_dsl::prelude::*;

#[ptx_kernel]
fn flagged(x: &[u32], out: &mut [u32]) {
    let i = global_idx().x as usize;
    let (s, c) = x[i].overflowing_add(0x8000_0000);
    out[i] = s + c as u32;
}

#[ptx_kernel]
fn checked(x: &[u64], out: &mut [u64]) {
    let i = global_idx().x as usize;
    out[i] = x[i].checked_mul(10_000_000_000).unwrap_or(0);
}

#[ptx_kernel]
fn inferred(x: &[f32], out: &mut [u32]) {
    let i = global_idx().x as usize;
    let n: u32 = x[i] as _;
    out[i] = n;
}

fn main() {}
