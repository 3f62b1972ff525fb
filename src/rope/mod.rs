//! Rotary position embedding (RoPE), forward and backward, batched over sequences: the
//! kernels of the seed port (`shared/seed/`), written with `#[ptx_kernel]`
//! ([`kernel::BatchedRope`]); [`builder::BuilderRope`] is the same kernel written directly
//! against the builder, kept as the baseline the macro version is measured against.
//!
//! For sequence `s` (grid y), head `h` (grid x) and pair `p` (thread x) of a
//! `[batch, num_heads, head_dim]` f32 tensor, with `pos = positions[s]`:
//!
//! ```text
//! freq  = 2^(p · (−2·log2 θ / head_dim))        angle = pos · freq
//! forward:  out[2p] = x0·cos − x1·sin            out[2p+1] = x0·sin + x1·cos
//! backward: out[2p] = x0·cos + x1·sin            out[2p+1] = x1·cos − x0·sin
//! ```
//!
//! Threads with `p >= head_dim / 2` do nothing. Unlike the seed, `exp2`, `sin` and `cos`
//! are the accurate [`ptx_core::math`] routines, not the `.approx` hardware forms.

pub mod builder;
pub mod kernel;

use ptx_core::{Kernel, KernelIr};
use ptx_runtime::{Device, DeviceBuffer, Error, LaunchConfig, LaunchReport, Result};

/// Which rotation a [`BatchedRope`] kernel applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Rotate by +angle (the forward pass).
    Forward,
    /// Rotate by −angle, the transpose (the backward pass for gradients).
    Backward,
}

/// The batched RoPE kernel for one head shape; `num_heads`, `head_dim` and `theta` are
/// baked into the PTX. Parameters: `x`, `out` (f32 slices), `positions` (u32 slice), each
/// bounds-checked. Launch with grid `(num_heads, batch, 1)` and block `(head_dim / 2, 1, 1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchedRope {
    /// Heads per sequence.
    pub num_heads: u32,
    /// Elements per head (even).
    pub head_dim: u32,
    /// The RoPE base, typically 10000.
    pub theta: f32,
    /// Forward or backward rotation.
    pub direction: Direction,
}

impl BatchedRope {
    /// The forward kernel.
    pub fn forward(num_heads: u32, head_dim: u32, theta: f32) -> BatchedRope {
        BatchedRope { num_heads, head_dim, theta, direction: Direction::Forward }
    }

    /// The backward kernel.
    pub fn backward(num_heads: u32, head_dim: u32, theta: f32) -> BatchedRope {
        BatchedRope { num_heads, head_dim, theta, direction: Direction::Backward }
    }

    /// `batched_rope_forward` or `batched_rope_backward`, for reports (both directions are
    /// one PTX entry, `batched_rope`, built with a different comptime value).
    pub fn label(&self) -> &'static str {
        match self.direction {
            Direction::Forward => "batched_rope_forward",
            Direction::Backward => "batched_rope_backward",
        }
    }

    /// The `#[ptx_kernel]` kernel this configuration builds.
    pub fn kernel(&self) -> kernel::BatchedRope {
        kernel::BatchedRope::new(
            self.num_heads,
            self.head_dim,
            self.theta,
            self.direction == Direction::Backward,
        )
    }

    /// Checks the shape and the buffer sizes, returning the launch configuration.
    pub(crate) fn checked_config(&self, x: usize, out: usize, positions: usize) -> Result<LaunchConfig> {
        if self.head_dim == 0 || self.head_dim % 2 != 0 || self.head_dim > 2048 {
            return Err(Error::BadLaunchConfig {
                reason: format!("RoPE head_dim must be even and in 2..=2048, not {}", self.head_dim),
            });
        }
        let expected = positions * self.num_heads as usize * self.head_dim as usize;
        for found in [x, out] {
            if found != expected {
                return Err(Error::SizeMismatch { expected, found });
            }
        }
        let batch = u32::try_from(positions).map_err(|_| Error::BadLaunchConfig {
            reason: format!("{positions} sequences exceed the grid's y limit"),
        })?;
        Ok(self.launch_config(batch))
    }

    /// Grid dimensions for `batch` sequences.
    pub fn grid(&self, batch: u32) -> (u32, u32, u32) {
        (self.num_heads, batch, 1)
    }

    /// Block dimensions: one thread per rotated pair.
    pub fn block(&self) -> (u32, u32, u32) {
        (self.head_dim / 2, 1, 1)
    }

    /// The launch configuration for `batch` sequences.
    pub fn launch_config(&self, batch: u32) -> LaunchConfig {
        LaunchConfig::new(self.grid(batch), self.block())
    }

    /// Runs the kernel on `device`: `x` and `out` hold `[positions.len(), num_heads,
    /// head_dim]` f32 values, `positions` one position per sequence. Sizes are checked
    /// before launching ([`Error::SizeMismatch`]); `head_dim` must be even and at most
    /// 2048 ([`Error::BadLaunchConfig`]).
    pub fn launch(
        &self,
        device: &Device,
        x: &DeviceBuffer<f32>,
        out: &mut DeviceBuffer<f32>,
        positions: &DeviceBuffer<u32>,
    ) -> Result<LaunchReport> {
        let cfg = self.checked_config(x.len(), out.len(), positions.len())?;
        self.kernel().launch(device, cfg, x, out, positions)
    }

    /// The float64 reference of the same formulas, for `x` of shape
    /// `[positions.len(), num_heads, head_dim]`.
    pub fn reference(&self, x: &[f32], positions: &[u32]) -> Vec<f64> {
        let (h, d) = (self.num_heads as usize, self.head_dim as usize);
        let scale = -2.0 * (self.theta as f64).log2() / d as f64;
        let mut out = vec![0.0; x.len()];
        for (s, &pos) in positions.iter().enumerate() {
            for head in 0..h {
                for p in 0..d / 2 {
                    let i = (s * h + head) * d + 2 * p;
                    let angle = pos as f64 * (p as f64 * scale).exp2();
                    let (sin, cos) = angle.sin_cos();
                    let (x0, x1) = (x[i] as f64, x[i + 1] as f64);
                    let (o0, o1) = match self.direction {
                        Direction::Forward => (x0 * cos - x1 * sin, x0 * sin + x1 * cos),
                        Direction::Backward => (x0 * cos + x1 * sin, x1 * cos - x0 * sin),
                    };
                    out[i] = o0;
                    out[i + 1] = o1;
                }
            }
        }
        out
    }
}

/// Max abs error bounds of the RoPE kernels for inputs in [-1, 1), positions below a limit
/// and any theta, against the float64 reference ([`BatchedRope::reference`]).
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
        let angle = max_position as f64 * 2f64.powi(-22) + 2f64.powi(-22);
        // Backward applies the transpose of the *same* f32 rotation, so the angle error
        // cancels; what stays is (c² + s² − 1) <= 2·2^-22 and six roundings below 2.
        ErrorBounds {
            forward: 2.0 * angle + 3.0 * 2f64.powi(-23),
            round_trip: 2.0 * 2f64.powi(-21) + 6.0 * 2f64.powi(-23),
        }
    }
}

impl Kernel for BatchedRope {
    fn name(&self) -> &str {
        "batched_rope"
    }

    fn cache_key(&self) -> String {
        self.kernel().cache_key()
    }

    fn build(&self) -> KernelIr {
        self.kernel().build()
    }

    fn bounds_checks(&self) -> usize {
        self.kernel().bounds_checks()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_verify_and_differ_only_in_the_rotation() {
        let f = BatchedRope::forward(8, 64, 10_000.0);
        let bwd = BatchedRope::backward(8, 64, 10_000.0);
        let (fi, bi) = (f.build(), bwd.build());
        ptx_core::verify::verify(&fi).expect("forward verifies");
        ptx_core::verify::verify(&bi).expect("backward verifies");
        assert_eq!(fi.instruction_count(), bi.instruction_count());
        assert_ne!(f.ptx(), bwd.ptx());
        // The wrapper reports its kernel's checks: `positions[seq]` and the four pair
        // accesses (`base` is not provably below `x.len()`).
        assert_eq!(f.bounds_checks(), 5);
        assert_ne!(f.cache_key(), BatchedRope::forward(8, 128, 10_000.0).cache_key());
    }

    #[test]
    fn reference_backward_inverts_forward() {
        let rope = BatchedRope::forward(2, 8, 10_000.0);
        let x: Vec<f32> = (0..32).map(|i| (i as f32 * 0.37).sin()).collect();
        let positions = [3u32, 1000];
        let y: Vec<f32> = rope.reference(&x, &positions).iter().map(|v| *v as f32).collect();
        let back = BatchedRope { direction: Direction::Backward, ..rope }.reference(&y, &positions);
        for (a, b) in x.iter().zip(back) {
            // Two f32 roundings of values of magnitude <= 1.5.
            assert!((*a as f64 - b).abs() < 1e-6, "{a} vs {b}");
        }
    }
}
