//! The seed port: the batched RoPE forward and backward kernels this project started from
//! (the project's seed, kept outside this repository), written with `#[ptx_kernel]`.
//!
//! For sequence `s` (grid y), head `h` (grid x) and pair `p` (thread x) of a
//! `[batch, num_heads, head_dim]` f32 tensor, with `pos = positions[s]`:
//!
//! ```text
//! freq  = 2^(p · (−2·log2 θ / head_dim))        angle = pos · freq   (both f32)
//! forward:  out[2p] = x0·cos − x1·sin            out[2p+1] = x0·sin + x1·cos
//! backward: out[2p] = x0·cos + x1·sin            out[2p+1] = x1·cos − x0·sin
//! ```
//!
//! Launch with grid `(num_heads, batch, 1)` and block `(head_dim / 2, 1, 1)`
//! ([`launch_config`]); threads with `p >= head_dim / 2` do nothing. Unlike the seed, `exp2`,
//! `sin` and `cos` are the accurate [`ptx_core::math`] routines, not the `.approx` hardware
//! forms, but the angle is still the seed's f32 product, whose error grows with the position
//! ([`ErrorBounds`]); [`super`]'s production kernels reduce the angle exactly.

use crate::gpu::{block_idx, thread_idx};
use crate::ptx_kernel;
use ptx_runtime::{Device, DeviceBuffer, Error, LaunchConfig, LaunchReport, Result};

/// Rotates each pair `(x[2p], x[2p+1])` of head `block_idx().x` of sequence `block_idx().y`
/// by `positions[seq] · 2^(p · (−2·log2 θ / head_dim))`, one thread per pair.
#[ptx_kernel(crate = crate)]
pub fn batched_rope(
    x: &[f32],
    out: &mut [f32],
    positions: &[u32],
    #[comptime] num_heads: u32,
    #[comptime] head_dim: u32,
    #[comptime] theta: f32,
) {
    let pair = thread_idx().x;
    let (head, seq) = (block_idx().x, block_idx().y);
    if pair >= head_dim / 2 {
        return;
    }
    // A `usize` index, as in host Rust: `x[base + 1]` is then `x[base]`'s neighbour in
    // memory (a `u32` sum could wrap to 0), so the two share one address.
    let base = ((seq * num_heads + head) * head_dim + 2 * pair) as usize;
    let freq = (pair as f32 * (-2.0 * theta.log2() / head_dim as f32)).exp2();
    let (sin, cos) = (positions[seq] as f32 * freq).sin_cos();
    let (x0, x1) = (x[base], x[base + 1]);
    out[base] = x0 * cos - x1 * sin;
    out[base + 1] = x0 * sin + x1 * cos;
}

/// The transpose of [`BatchedRope`]'s rotation: rotates each pair by minus the same angle, which is
/// the gradient of the forward rotation.
#[ptx_kernel(crate = crate)]
pub fn batched_rope_backward(
    x: &[f32],
    out: &mut [f32],
    positions: &[u32],
    #[comptime] num_heads: u32,
    #[comptime] head_dim: u32,
    #[comptime] theta: f32,
) {
    let pair = thread_idx().x;
    let (head, seq) = (block_idx().x, block_idx().y);
    if pair >= head_dim / 2 {
        return;
    }
    let base = ((seq * num_heads + head) * head_dim + 2 * pair) as usize;
    let freq = (pair as f32 * (-2.0 * theta.log2() / head_dim as f32)).exp2();
    let (sin, cos) = (positions[seq] as f32 * freq).sin_cos();
    let (x0, x1) = (x[base], x[base + 1]);
    out[base] = x0 * cos + x1 * sin;
    out[base + 1] = x1 * cos - x0 * sin;
}

/// The seed's launch geometry for `batch` sequences: grid `(num_heads, batch, 1)`, block
/// `(head_dim / 2, 1, 1)`.
pub fn launch_config(num_heads: u32, head_dim: u32, batch: u32) -> LaunchConfig {
    LaunchConfig::new((num_heads, batch, 1), (head_dim / 2, 1, 1))
}

/// The seed's grid y limit: one block row per sequence.
const MAX_SEQUENCES: usize = 65_535;

/// Checks the shape, θ and the buffer sizes of a seed-kernel launch, returning its geometry.
fn checked_config(
    (num_heads, head_dim, theta): (u32, u32, f32),
    x: usize,
    out: usize,
    positions: usize,
) -> Result<LaunchConfig> {
    let expected = check_shape(num_heads, head_dim, theta, positions)?;
    for (argument, found) in [("x", x), ("out", out)] {
        if found as u64 != expected {
            return Err(invalid(
                argument,
                format!(
                    "holds {found} values, but {positions} sequences x {num_heads} heads x {head_dim} \
                     need {expected}"
                ),
            ));
        }
    }
    Ok(launch_config(num_heads, head_dim, positions as u32))
}

/// An [`Error::InvalidArgument`] naming `argument`.
fn invalid(argument: &str, reason: String) -> Error {
    Error::InvalidArgument { argument: argument.into(), reason }
}

/// Checks what a launch of the seed kernels over `positions` sequences needs of the shape
/// and θ, before any buffer exists ([`Error::InvalidArgument`] naming `head_dim`,
/// `num_heads`, `theta`, `positions` or `x`); returns the number of values `x` holds.
pub fn check_shape(num_heads: u32, head_dim: u32, theta: f32, positions: usize) -> Result<u64> {
    if head_dim == 0 || !head_dim.is_multiple_of(2) || head_dim > 2048 {
        return Err(invalid("head_dim", format!("must be even and in 2..=2048, not {head_dim}")));
    }
    if num_heads == 0 || num_heads > i32::MAX as u32 {
        return Err(invalid("num_heads", format!("must be in 1..=2^31 - 1 (the grid's x), not {num_heads}")));
    }
    // log2 θ must be finite and positive: θ = 0, 1, negative or NaN makes every angle NaN or 0.
    if !(theta.is_finite() && theta > 1.0) {
        return Err(invalid("theta", format!("must be finite and > 1, not {theta}")));
    }
    if positions == 0 || positions > MAX_SEQUENCES {
        let reason = format!(
            "holds {positions} positions, one per sequence: the seed launches one block row per sequence, \
             1 to {MAX_SEQUENCES} (the grid's y limit)"
        );
        return Err(invalid("positions", reason));
    }
    // At most 65535 · (2^31 − 1) · 2048 < 2^59: no overflow.
    let expected = positions as u64 * num_heads as u64 * head_dim as u64;
    // The kernel's index `(seq · num_heads + head) · head_dim + 2p` is a u32, as in the seed.
    if expected > 1 << 32 {
        let reason = format!(
            "{positions} sequences x {num_heads} heads x {head_dim} are {expected} values; the seed's u32 \
             element index covers at most 2^32"
        );
        return Err(invalid("x", reason));
    }
    Ok(expected)
}

/// The checked `apply` and the f64 `reference` of a seed kernel type (`backward` says which
/// rotation it applies).
macro_rules! seed_kernel_api {
    ($kernel:ident, $backward:literal) => {
        impl $kernel {
            /// Runs the kernel on `device`: `x` and `out` hold `[positions.len(), num_heads,
            /// head_dim]` f32 values, `positions` one position per sequence (1 to 65535, the
            /// grid's y limit). The shape, θ (finite and > 1) and the sizes are checked before
            /// launching ([`Error::InvalidArgument`] naming the argument).
            pub fn apply(
                &self,
                device: &Device,
                x: &DeviceBuffer<f32>,
                out: &mut DeviceBuffer<f32>,
                positions: &DeviceBuffer<u32>,
            ) -> Result<LaunchReport> {
                let shape = (self.num_heads, self.head_dim, self.theta);
                let cfg = checked_config(shape, x.len(), out.len(), positions.len())?;
                self.launch(device, cfg, x, out, positions)
            }

            /// The float64 reference of the same formulas ([`reference()`]).
            pub fn reference(&self, x: &[f32], positions: &[u32]) -> Vec<f64> {
                reference(self.num_heads, self.head_dim, self.theta, x, positions, $backward)
            }
        }
    };
}

seed_kernel_api!(BatchedRope, false);
seed_kernel_api!(BatchedRopeBackward, true);

/// The float64 evaluation of the seed's formulas (forward, or backward when `backward`) for
/// `x` of shape `[positions.len(), num_heads, head_dim]`.
pub fn reference(
    num_heads: u32,
    head_dim: u32,
    theta: f32,
    x: &[f32],
    positions: &[u32],
    backward: bool,
) -> Vec<f64> {
    let (h, d) = (num_heads as usize, head_dim as usize);
    let scale = -2.0 * (theta as f64).log2() / d as f64;
    let mut out = vec![0.0; x.len()];
    for (s, &pos) in positions.iter().enumerate() {
        for head in 0..h {
            for p in 0..d / 2 {
                let i = (s * h + head) * d + 2 * p;
                let (sin, cos) = (pos as f64 * (p as f64 * scale).exp2()).sin_cos();
                let (x0, x1) = (x[i] as f64, x[i + 1] as f64);
                let (o0, o1) = if backward {
                    (x0 * cos + x1 * sin, x1 * cos - x0 * sin)
                } else {
                    (x0 * cos - x1 * sin, x0 * sin + x1 * cos)
                };
                out[i] = o0;
                out[i + 1] = o1;
            }
        }
    }
    out
}

/// Max abs error bounds of the seed kernels for inputs in [-1, 1), positions below a limit
/// and any theta, against the float64 [`reference()`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorBounds {
    /// Forward (or backward) output against the reference.
    pub forward: f64,
    /// backward(forward(x)) against x.
    pub round_trip: f64,
}

impl ErrorBounds {
    /// The bounds for positions below `max_position`; the derivation is in the body.
    pub fn for_positions_below(max_position: u32) -> ErrorBounds {
        // The angle pos·2^u (u = p·s <= 0) is computed in f32. The exponent u carries the
        // rounding of the host's f32 scale s and of p·s (relative <= 4·2^-24, so absolute
        // <= 4·2^-24·|u|), which moves the angle by a factor ln2·4·2^-24·|u|; since
        // |u|·2^u <= 0.53, that is at most pos·1.5·2^-24. exp2 (2 ulp) and the product
        // (0.5 ulp) add pos·2.5·2^-24: |angle error| <= pos·2^-22. sin/cos add 2^-22. Each
        // output sums two products of |x| < 1, so twice that, plus 3 roundings below 2.
        // (`pos as f32` is exact below 2^24; above, its rounding adds pos·2^-24 more, which
        // the pos·2^-22 term already covers.)
        let angle = max_position as f64 * 2f64.powi(-22) + 2f64.powi(-22);
        // Backward applies the transpose of the *same* f32 rotation, so the angle error
        // cancels; what stays is (c² + s² − 1) <= 2·2^-22 and six roundings below 2.
        ErrorBounds {
            forward: 2.0 * angle + 3.0 * 2f64.powi(-23),
            round_trip: 2.0 * 2f64.powi(-21) + 6.0 * 2f64.powi(-23),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_core::Kernel;

    #[test]
    fn forward_and_backward_differ_only_in_the_rotation() {
        let (f, b) = (BatchedRope::new(8, 64, 10_000.0), BatchedRopeBackward::new(8, 64, 10_000.0));
        let (fi, bi) = (f.build(), b.build());
        ptx_core::verify::verify(&fi).expect("forward verifies");
        ptx_core::verify::verify(&bi).expect("backward verifies");
        assert_eq!(fi.instruction_count(), bi.instruction_count());
        // Same loads, angle and math: the two PTX texts differ only in the entry name and
        // in the few lines that combine the products into the rotated pair.
        // (`.loc` lines differ too: the bodies sit at different source lines.)
        let code = |ptx: String| -> Vec<String> {
            ptx.lines().filter(|l| !l.trim_start().starts_with(".loc")).map(str::to_string).collect()
        };
        let (fp, bp) = (code(f.ptx()), code(b.ptx().replace("batched_rope_backward", "batched_rope")));
        assert_eq!(fp.len(), bp.len());
        let differing = fp.iter().zip(&bp).filter(|(a, b)| a != b).count();
        assert!((1..=6).contains(&differing), "{differing} lines differ");
        // `positions[seq]` and the four pair accesses (`base` is not provably below `x.len()`).
        assert_eq!(f.bounds_checks(), 5);
        assert_ne!(f.cache_key(), BatchedRope::new(8, 128, 10_000.0).cache_key());
    }

    #[test]
    fn reference_backward_inverts_forward() {
        let x: Vec<f32> = (0..32).map(|i| (i as f32 * 0.37).sin()).collect();
        let positions = [3u32, 1000];
        let y: Vec<f32> =
            reference(2, 8, 10_000.0, &x, &positions, false).iter().map(|v| *v as f32).collect();
        let back = reference(2, 8, 10_000.0, &y, &positions, true);
        for (a, b) in x.iter().zip(back) {
            // Two f32 roundings of values of magnitude <= 1.5: at most 2·2^-24·1.5 ≈ 1.8e-7.
            assert!((*a as f64 - b).abs() < 2e-7, "{a} vs {b}");
        }
    }
}
