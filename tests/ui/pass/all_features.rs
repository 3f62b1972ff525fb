//! Every construct of the language in one kernel, with `crate = path` on a second one.

use ptx_dsl::prelude::*;

extern crate ptx_dsl as gpu_crate;

/// Touches each feature once.
#[ptx_kernel]
pub fn everything(
    x: &[f32],
    y: &mut [f32],
    idx: &[i64],
    words: &mut [u16],
    scale: f32,
    flip: bool,
    n: u32,
    #[comptime] taps: u32,
    #[comptime] theta: f32,
) {
    let t = thread_idx();
    let i = block_idx().x * block_dim().x + t.x;
    let total = grid_dim().x * block_dim().x;
    if i >= n || i >= total {
        return;
    }
    let inv = -2.0 * theta.log2() / taps as f32;
    let (s, c) = (x[i] * inv).sin_cos();
    let mut acc: f32 = 0.0;
    #[unroll]
    for k in 0..taps {
        acc += x[(i + k) % n] * (k as f32).exp2();
    }
    #[unroll]
    for k in taps..taps + taps.min(8) {
        acc -= (k as f32).recip();
    }
    acc %= 2.5;
    let mut j = 0usize;
    while j < 3 {
        j += 1;
    }
    'outer: loop {
        for q in (0..10u32).step_by(2) {
            if q > 4 {
                break 'outer;
            }
            if q == 2 {
                continue;
            }
        }
    }
    let s = if flip { -s } else { s };
    let pick = if s > c { s } else { c.abs().sqrt().max(0.5).min(std::f32::consts::PI) };
    let ok = i < n && x[i] == x[i];
    let w = words[i] as u32;
    let _ = (w << 3) ^ (w >> 1) | !w & 0xff;
    words[i] = (w.wrapping_mul(3) % 65_535) as u16;
    let back = idx[i];
    let (v0, v1, v2, v3) = load4(x, 0);
    store2(y, 2, (v0 + v1, v2 * v3));
    y[i] = acc * scale + pick + (ok as u32) as f32 + back as f32 + y.len() as f32 + j as f32;
    y[i] -= x[i].mul_add(2.0, 1.0).clamp(-1.0, 1.0).fast_sin() + x[i].powi(2) + x[i].powf(0.5).floor();
}

#[ptx_kernel(crate = gpu_crate)]
fn renamed(out: &mut [u32]) {
    out[thread_idx().x] = 1;
}

fn main() {
    let _ = Everything::new(4, 10_000.0).ptx();
    let _ = Renamed::new().ptx();
}
