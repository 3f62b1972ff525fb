use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [u32]) {
    let i = thread_idx().x as usize;
    // One error: the unknown method. The literals after it take no type from a guess.
    let b = x[i].frobnicate();
    y[i] = if b & 0x8000_0000 != 0 { !b } else { b | 0x8000_0000 };
}

fn main() {}
