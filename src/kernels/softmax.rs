//! Row-wise softmax, one block per row: each thread finds its columns' maximum and the
//! sum of `exp(x - max)` in one online pass (rescaling the sum whenever the maximum
//! grows), the block combines them, and a second pass writes `exp(x - max) / sum`.

use ptx_runtime::{Device, DeviceBuffer, LaunchConfig, Result};

use super::{grid_dim, matrix_shapes, BLOCK};
use crate::prelude::*;

/// `out[r][j] = exp(x[r][j] - max_r) / Σ_j exp(x[r][j] - max_r)` for row `r = block_idx().x`
/// of a row-major `[rows, cols]` matrix.
#[ptx_kernel(crate = crate, unchecked)]
pub fn softmax_rows_f32(x: &[f32], out: &mut [f32], cols: usize) {
    let row = block_idx().x as usize * cols;
    let t = thread_idx().x as usize;
    let step = block_dim().x as usize;
    let mut m = f32::NEG_INFINITY;
    let mut s = 0.0f32;
    for j in (t..cols).step_by(step) {
        let v = x[row + j];
        if v > m {
            s = s * (m - v).exp() + 1.0;
            m = v;
        } else if v != f32::NEG_INFINITY {
            // A -inf adds exp(-inf) = 0, skipped so that it is not exp(-inf - -inf) = NaN
            // while `m` is still -inf; a NaN makes `s` NaN.
            s += (v - m).exp();
        }
    }
    let row_max = block_max(m);
    // This thread's sum relative to the row's maximum. With `m` still -inf the thread read
    // no columns, only -inf (`s` is 0) or NaN too (`s` is NaN, which must reach the total).
    let scaled = if m == f32::NEG_INFINITY { s } else { s * (m - row_max).exp() };
    let total = block_sum(scaled);
    for j in (t..cols).step_by(step) {
        out[row + j] = (x[row + j] - row_max).exp() / total;
    }
}

/// The softmax of each row of the row-major `[rows, cols]` matrix `x` into `out` (same
/// shape), as `torch.softmax(x, dim=-1)`: stable for any magnitude. A row with NaN, or
/// with `+inf`, gives NaN, as in PyTorch; so does a row of `-inf` only (0/0). Error against
/// float64 within about `(R + cols/256 + 24) · 2^-24` relative, `R` the row's range
/// `max - min` (the error `exp` inherits from `x - max`), plus `2^-149` absolute: results
/// below f32's normal range (`2^-126`) are subnormal, with fewer bits.
pub fn softmax_rows(
    device: &Device,
    x: &DeviceBuffer<f32>,
    rows: usize,
    cols: usize,
    out: &mut DeviceBuffer<f32>,
) -> Result<()> {
    super::on_device(device, &[("x", x.device()), ("out", out.device())])?;
    if !matrix_shapes(x.len(), out.len(), rows, cols, "a [rows, cols] matrix")? {
        return Ok(());
    }
    let grid = grid_dim("rows", rows, i32::MAX as u32)?;
    // SAFETY: block `b < rows` touches `b * cols + j` for `j < cols`, below `rows * cols`,
    // the length of `x` and of `out` (checked above, without overflow).
    unsafe { SoftmaxRowsF32::new().launch(device, LaunchConfig::linear(grid, BLOCK), x, out, cols) }.map(drop)
}
