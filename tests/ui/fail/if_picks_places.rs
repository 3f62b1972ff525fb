use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(a: &[f32], b: &[f32], out: &mut [f32], c: u32) {
    let s = if c > 1 { a } else { b };
    let (p, q) = if c > 2 { (a, 1u32) } else { (b, 2) };
    let t = thread_idx();
    let d = if c > 3 { t } else { block_idx() };
    out[0] = 1.0;
}

fn main() {}
