use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(a: &[f32], b: &[f32], hs: &[bf16], out: &mut [f32], c: u32) {
    let s = if c > 1 { a } else { b };
    let (p, q) = if c > 2 { (a, 1u32) } else { (b, 2) };
    let t = thread_idx();
    let d = if c > 3 { t } else { block_idx() };
    // Reported once, at the innermost `if`.
    let e = if c > 4 { a } else if c > 5 { b } else { a };
    let (h0, h1) = (hs[0], hs[1]);
    let (x, y) = if c > 6 { (h0, h1) } else { (h1, h0) };
    out[0] = 1.0;
}

fn main() {}
