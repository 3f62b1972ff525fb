use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], n: &[u32], out: &mut [f32]) {
    let i = thread_idx().x as usize;
    // A float is not `Ord`: rustc refuses `std::cmp::min` on it.
    out[i] = std::cmp::min(x[i], 1.0);
    // One type for both values.
    let m = std::cmp::max(n[i], 3u8);
    // Two arguments.
    let k = core::cmp::min(n[i]);
    out[i] = (m + k) as f32;
}

fn main() {}
