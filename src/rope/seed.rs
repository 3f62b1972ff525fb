//! The batched RoPE kernel written with `#[ptx_kernel]`: the formulas of the module docs,
//! with the head shape, θ and the direction baked in as comptime values. The one body is
//! stamped out twice, bounds-checked ([`BatchedRope`], what [`super::BatchedRope`] runs)
//! and unchecked ([`BatchedRopeUnchecked`], for measuring what the checks cost).

use crate::gpu::{block_idx, thread_idx};
use crate::ptx_kernel;

macro_rules! rope_kernel {
    ($(#[$doc:meta])* $name:ident, $($options:tt)*) => {
        $(#[$doc])*
        #[ptx_kernel($($options)*)]
        pub fn $name(
            x: &[f32],
            out: &mut [f32],
            positions: &[u32],
            #[comptime] num_heads: u32,
            #[comptime] head_dim: u32,
            #[comptime] theta: f32,
            #[comptime] backward: bool,
        ) {
            let pair = thread_idx().x;
            let (head, seq) = (block_idx().x, block_idx().y);
            if pair >= head_dim / 2 {
                return;
            }
            let pos = positions[seq];
            // A `usize` index, as in host Rust: `x[base + 1]` is then `x[base]`'s neighbour
            // in memory (a `u32` sum could wrap to 0), so the two share one address.
            let base = ((seq * num_heads + head) * head_dim + 2 * pair) as usize;
            let freq = (pair as f32 * (-2.0 * theta.log2() / head_dim as f32)).exp2();
            let (sin, cos) = (pos as f32 * freq).sin_cos();
            let (x0, x1) = (x[base], x[base + 1]);
            if backward {
                out[base] = x0 * cos + x1 * sin;
                out[base + 1] = x1 * cos - x0 * sin;
            } else {
                out[base] = x0 * cos - x1 * sin;
                out[base + 1] = x0 * sin + x1 * cos;
            }
        }
    };
}

rope_kernel!(
    /// Rotates each pair `(x[2p], x[2p+1])` of head `block_idx().x` of sequence
    /// `block_idx().y` by `positions[seq] · 2^(p · (−2·log2 θ / head_dim))` (by minus that
    /// when `backward`), one thread per pair; every access bounds-checked.
    batched_rope, crate = crate
);

rope_kernel!(
    /// [`BatchedRope`] without bounds checks (its `launch` is `unsafe`).
    batched_rope_unchecked, crate = crate, unchecked
);
