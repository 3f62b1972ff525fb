//! Whole-buffer reductions: [`sum`] and [`max`]. A first launch of up to 1024 blocks has
//! each thread accumulate a grid-stride share, reduces it over the block ([`block_sum`]),
//! and writes one partial per block; a second launch of one block reduces the partials.
//! The order of every operation is fixed by the buffer's length, so results are
//! reproducible bit for bit.
//!
//! [`block_sum`]: crate::gpu::block_sum

use ptx_runtime::{Device, DeviceBuffer, DeviceScalar, LaunchConfig, Result};

use super::BLOCK;
use crate::prelude::*;

/// The most blocks the first pass launches (each thread then sums `len / 2^18` elements).
const MAX_PARTIALS: usize = 1024;

macro_rules! reduction_kernels {
    ($t:ident, $sum:ident, $max:ident) => {
        /// Per-block partial sums of `x` (a grid-stride share per thread, then the block).
        #[ptx_kernel(crate = crate, unchecked)]
        pub fn $sum(x: &[$t], partials: &mut [$t]) {
            // -0.0 is the identity of IEEE addition (+0.0 would turn a sum of -0.0s into +0.0).
            let mut acc: $t = -0.0;
            for i in grid_stride(x.len()) {
                acc += x[i];
            }
            let total = block_sum(acc);
            if thread_idx().x == 0 {
                partials[block_idx().x] = total;
            }
        }

        /// Per-block maxima of `x` (Rust's `max`: NaN is ignored; `-inf` for no elements).
        #[ptx_kernel(crate = crate, unchecked)]
        pub fn $max(x: &[$t], partials: &mut [$t]) {
            let mut acc = $t::NEG_INFINITY;
            for i in grid_stride(x.len()) {
                acc = acc.max(x[i]);
            }
            let total = block_max(acc);
            if thread_idx().x == 0 {
                partials[block_idx().x] = total;
            }
        }
    };
}

reduction_kernels!(f32, sum_f32, max_f32);
reduction_kernels!(f64, sum_f64, max_f64);

/// The element types [`sum`] and [`max`] reduce: `f32` and `f64`.
pub trait Reduction: DeviceScalar + Copy {
    /// Launches the partial-sum kernel.
    ///
    /// # Safety
    /// `out` holds at least one element per block of `config` (a 1-D grid of 1-D blocks).
    #[doc(hidden)]
    unsafe fn sum_pass(
        device: &Device,
        config: LaunchConfig,
        x: &DeviceBuffer<Self>,
        out: &mut DeviceBuffer<Self>,
    ) -> Result<()>;
    /// Launches the partial-maximum kernel.
    ///
    /// # Safety
    /// As [`Reduction::sum_pass`].
    #[doc(hidden)]
    unsafe fn max_pass(
        device: &Device,
        config: LaunchConfig,
        x: &DeviceBuffer<Self>,
        out: &mut DeviceBuffer<Self>,
    ) -> Result<()>;
}

macro_rules! reduction_impl {
    ($t:ty, $sum:ident, $max:ident) => {
        impl Reduction for $t {
            unsafe fn sum_pass(
                device: &Device,
                config: LaunchConfig,
                x: &DeviceBuffer<$t>,
                out: &mut DeviceBuffer<$t>,
            ) -> Result<()> {
                // SAFETY: `x[i]` is proven by `grid_stride(x.len())`; `out[block_idx().x]` by
                // the caller.
                unsafe { $sum::new().launch(device, config, x, out) }.map(drop)
            }

            unsafe fn max_pass(
                device: &Device,
                config: LaunchConfig,
                x: &DeviceBuffer<$t>,
                out: &mut DeviceBuffer<$t>,
            ) -> Result<()> {
                // SAFETY: as for the sum.
                unsafe { $max::new().launch(device, config, x, out) }.map(drop)
            }
        }
    };
}

reduction_impl!(f32, SumF32, MaxF32);
reduction_impl!(f64, SumF64, MaxF64);

type Pass<T> = unsafe fn(&Device, LaunchConfig, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()>;

/// Both passes of a reduction, and the result read back.
fn reduce<T: Reduction>(device: &Device, x: &DeviceBuffer<T>, pass: Pass<T>) -> Result<T> {
    let blocks = x.len().div_ceil(BLOCK as usize).clamp(1, MAX_PARTIALS);
    let mut partials = DeviceBuffer::<T>::zeroed(device, blocks)?;
    // SAFETY: `blocks` blocks, `blocks` partials; then one block and one total.
    unsafe { pass(device, LaunchConfig::linear(blocks as u32, BLOCK), x, &mut partials) }?;
    let mut total = DeviceBuffer::<T>::zeroed(device, 1)?;
    unsafe { pass(device, LaunchConfig::linear(1, BLOCK), &partials, &mut total) }?;
    let value = total.to_vec()?;
    Ok(value[0])
}

/// The sum of every element of `x` (+0.0 for an empty buffer, as `torch.sum`; -0.0 when
/// every element is -0.0, as IEEE addition gives), in a fixed order: each of up to 262144
/// threads adds a strided share in sequence, then a tree over blocks. The error is at most
/// about `(x.len() / 262144 + 30) · ε · Σ|x|` (ε the type's unit roundoff) while the
/// partial sums stay finite: values near the type's largest that cancel (`[2e38, -2e38,
/// 2e38, -2e38]` in f32) may meet as `inf - inf` in the tree and give NaN, as any parallel
/// order may (a sequential sum in f64 would give 0).
pub fn sum<T: Reduction>(device: &Device, x: &DeviceBuffer<T>) -> Result<T> {
    super::on_device(device, &[("x", x.device())])?;
    if x.is_empty() {
        return Ok(T::default());
    }
    reduce(device, x, T::sum_pass)
}

/// The largest element of `x`, as `x.iter().fold(-inf, max)` gives it: NaN is ignored,
/// `-inf` for an empty buffer, `+0.0` of zeros of both signs (where Rust's `max` may give
/// either).
pub fn max<T: Reduction>(device: &Device, x: &DeviceBuffer<T>) -> Result<T> {
    super::on_device(device, &[("x", x.device())])?;
    reduce(device, x, T::max_pass)
}
