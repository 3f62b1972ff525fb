//! Inclusive prefix sums of any length: each block of 256 threads scans its 256 elements
//! (a warp scan by `shfl_up`, then the totals of the warps before it from shared memory)
//! and writes its total; the block totals are scanned the same way (recursively), and a
//! last pass adds to each block the total of the blocks before it.

use ptx_runtime::{Device, DeviceBuffer, DeviceScalar, LaunchConfig, Result};

use super::{expect_len, BLOCK};
use crate::prelude::*;

macro_rules! scan_kernels {
    ($t:ident, $zero:expr, $scan:ident, $add:ident) => {
        /// Inclusive scan of each 256-element block of `x`; the block's total to `totals`.
        #[ptx_kernel(crate = crate, unchecked)]
        pub fn $scan(x: &[$t], out: &mut [$t], totals: &mut [$t]) {
            let warp_totals = shared::<$t, 8>();
            let t = thread_idx().x;
            let i = block_idx().x as usize * 256 + t as usize;
            let mut v = if i < x.len() { x[i] } else { $zero };
            let lane = lane_id();
            #[unroll]
            for s in 0..5 {
                let up = shfl_up(v, 1 << s);
                if lane >= 1 << s {
                    v += up;
                }
            }
            if lane == 31 {
                warp_totals[(t / 32) as usize] = v;
            }
            sync_threads();
            let mut before = $zero;
            for w in 0..t / 32 {
                before += warp_totals[w as usize];
            }
            v += before;
            if i < out.len() {
                out[i] = v;
            }
            if t == 255 {
                totals[block_idx().x as usize] = v;
            }
        }

        /// Adds the scanned total of the blocks before each block to its elements.
        #[ptx_kernel(crate = crate, unchecked)]
        pub fn $add(out: &mut [$t], block_offsets: &[$t]) {
            let b = block_idx().x as usize;
            let i = b * 256 + thread_idx().x as usize;
            if b > 0 && i < out.len() {
                out[i] += block_offsets[b - 1];
            }
        }
    };
}

scan_kernels!(u32, 0u32, scan_blocks_u32, add_offsets_u32);
// -0.0 is the identity of IEEE addition: with +0.0 as the padding and the start of the
// warps' offsets, a prefix of -0.0s came out +0.0.
scan_kernels!(f32, -0.0f32, scan_blocks_f32, add_offsets_f32);

/// The element types [`prefix_sum`] scans: `u32` (wrapping) and `f32`.
pub trait Scan: DeviceScalar + Copy {
    /// Launches the per-block scan over `blocks` blocks of 256 threads.
    ///
    /// # Safety
    /// `totals` holds at least `blocks` elements.
    #[doc(hidden)]
    unsafe fn scan_pass(
        device: &Device,
        blocks: u32,
        x: &DeviceBuffer<Self>,
        out: &mut DeviceBuffer<Self>,
        totals: &mut DeviceBuffer<Self>,
    ) -> Result<()>;
    /// Launches the pass that adds the blocks' offsets.
    ///
    /// # Safety
    /// `offsets` holds at least `blocks - 1` elements.
    #[doc(hidden)]
    unsafe fn offset_pass(
        device: &Device,
        blocks: u32,
        out: &mut DeviceBuffer<Self>,
        offsets: &DeviceBuffer<Self>,
    ) -> Result<()>;
}

macro_rules! scan_impl {
    ($t:ty, $scan:ident, $add:ident) => {
        impl Scan for $t {
            unsafe fn scan_pass(
                device: &Device,
                blocks: u32,
                x: &DeviceBuffer<$t>,
                out: &mut DeviceBuffer<$t>,
                totals: &mut DeviceBuffer<$t>,
            ) -> Result<()> {
                // SAFETY: `x[i]` and `out[i]` are under `i < len` guards; with 256 threads
                // `t / 32 < 8`, the shared array's length; `totals[block]` by the caller.
                unsafe { $scan::new().launch(device, LaunchConfig::linear(blocks, BLOCK), x, out, totals) }
                    .map(drop)
            }

            unsafe fn offset_pass(
                device: &Device,
                blocks: u32,
                out: &mut DeviceBuffer<$t>,
                offsets: &DeviceBuffer<$t>,
            ) -> Result<()> {
                // SAFETY: `out[i]` is under `i < out.len()`; `block_offsets[b - 1]` for
                // `1 <= b < blocks` by the caller.
                unsafe { $add::new().launch(device, LaunchConfig::linear(blocks, BLOCK), out, offsets) }
                    .map(drop)
            }
        }
    };
}

scan_impl!(u32, ScanBlocksU32, AddOffsetsU32);
scan_impl!(f32, ScanBlocksF32, AddOffsetsF32);

/// `out[i] = x[0] + .. + x[i]` (inclusive; `u32` wraps; an `f32` prefix of -0.0s is -0.0,
/// as `torch.cumsum` on a GPU and NumPy give). `out` has `x`'s length. An `f32`
/// prefix is formed by a tree of at most 14 additions per 256-fold level, so its error is
/// at most about `14 · levels · 2^-24 · Σ_{j≤i} |x[j]|`, `levels = ⌈log_256 len⌉`, while
/// the partial sums of the tree stay finite (values near `f32::MAX` that cancel may meet
/// as `inf - inf` and give NaN, as in [`super::sum`]).
pub fn prefix_sum<T: Scan>(device: &Device, x: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
    super::on_device(device, &[("x", x.device()), ("out", out.device())])?;
    expect_len("out", out.len(), Some(x.len()), "the scan of `x`")?;
    if x.is_empty() {
        return Ok(());
    }
    let blocks = x.len().div_ceil(BLOCK as usize);
    let grid = super::grid_dim("x", blocks, i32::MAX as u32)?;
    let mut totals = DeviceBuffer::<T>::zeroed(device, blocks)?;
    // SAFETY: `grid` blocks and as many totals.
    unsafe { T::scan_pass(device, grid, x, out, &mut totals) }?;
    if blocks > 1 {
        let mut offsets = DeviceBuffer::<T>::zeroed(device, blocks)?;
        prefix_sum(device, &totals, &mut offsets)?;
        // SAFETY: `grid` blocks, `grid` offsets.
        unsafe { T::offset_pass(device, grid, out, &offsets) }?;
    }
    Ok(())
}
