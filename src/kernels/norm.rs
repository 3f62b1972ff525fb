//! Row normalisations, one block per row: RMSNorm (`x / sqrt(mean(x²) + eps) · w`) and
//! LayerNorm (`(x - mean) / sqrt(var + eps) · w + b`, the variance from a second pass over
//! `x - mean`, which keeps it accurate when the mean is large).

use ptx_runtime::{Device, DeviceBuffer, LaunchConfig, Result};

use super::{expect_len, grid_dim, invalid, matrix_shapes, BLOCK};
use crate::prelude::*;

/// RMSNorm of row `block_idx().x` of a row-major `[rows, cols]` matrix.
#[ptx_kernel(crate = crate, unchecked)]
pub fn rms_norm_f32(x: &[f32], weight: &[f32], out: &mut [f32], cols: usize, eps: f32) {
    let row = block_idx().x as usize * cols;
    let t = thread_idx().x as usize;
    let step = block_dim().x as usize;
    let mut squares = 0.0f32;
    for j in (t..cols).step_by(step) {
        let v = x[row + j];
        squares = v.mul_add(v, squares);
    }
    let mean_square = block_sum(squares) / cols as f32;
    let scale = 1.0 / (mean_square + eps).sqrt();
    for j in (t..cols).step_by(step) {
        out[row + j] = x[row + j] * scale * weight[j];
    }
}

/// LayerNorm of row `block_idx().x` of a row-major `[rows, cols]` matrix.
#[ptx_kernel(crate = crate, unchecked)]
pub fn layer_norm_f32(x: &[f32], weight: &[f32], bias: &[f32], out: &mut [f32], cols: usize, eps: f32) {
    let row = block_idx().x as usize * cols;
    let t = thread_idx().x as usize;
    let step = block_dim().x as usize;
    let mut sum = 0.0f32;
    for j in (t..cols).step_by(step) {
        sum += x[row + j];
    }
    let mean = block_sum(sum) / cols as f32;
    let mut squares = 0.0f32;
    for j in (t..cols).step_by(step) {
        let d = x[row + j] - mean;
        squares = d.mul_add(d, squares);
    }
    let variance = block_sum(squares) / cols as f32;
    let scale = 1.0 / (variance + eps).sqrt();
    for j in (t..cols).step_by(step) {
        out[row + j] = ((x[row + j] - mean) * scale).mul_add(weight[j], bias[j]);
    }
}

/// Checks that `eps` is finite and not negative: a negative one shrinks (or, below
/// `-var`, NaNs) the denominator instead of guarding it, and NaN or infinity make every
/// output NaN or 0, none of which a caller means.
fn check_eps(eps: f32) -> Result<()> {
    if eps >= 0.0 && eps.is_finite() {
        Ok(())
    } else {
        Err(invalid("eps", format!("{eps} is not a finite value >= 0 (the norms add it to the mean square)")))
    }
}

/// Checks a `[rows, cols]` input and output and a `[cols]` parameter vector; the grid.
fn row_shapes(
    x: usize,
    out: usize,
    params: &[(&str, usize)],
    rows: usize,
    cols: usize,
) -> Result<Option<LaunchConfig>> {
    let nonempty = matrix_shapes(x, out, rows, cols, "a [rows, cols] matrix")?;
    for &(name, len) in params {
        expect_len(name, len, Some(cols), "one value per column")?;
    }
    if !nonempty {
        return Ok(None);
    }
    Ok(Some(LaunchConfig::linear(grid_dim("rows", rows, i32::MAX as u32)?, BLOCK)))
}

/// RMSNorm of each row of the row-major `[rows, cols]` matrix `x` into `out`:
/// `out[r][j] = x[r][j] / sqrt(mean_j(x[r][j]²) + eps) · weight[j]` (Llama's, T5's).
/// Relative error against float64 within about `(cols/256 + 24) · 2^-24` while the row's
/// sum of squares is finite in f32 (`|x|` below about `1.8e19 / √cols`) and
/// `mean(x²) + eps` is at least `2^-126`; past the first the scale overflows to 0 (outputs
/// 0, NaN for an infinite `x`), past the second the squares lose bits to underflow (with
/// `eps = 0` and every `x²` below `2^-149`, the scale is infinite: outputs ±inf, NaN where
/// `x` is 0), as the f32 arithmetic gives.
/// `eps` must be finite and `>= 0` ([`Error::InvalidArgument`] naming it otherwise).
///
/// [`Error::InvalidArgument`]: ptx_runtime::Error::InvalidArgument
pub fn rms_norm(
    device: &Device,
    x: &DeviceBuffer<f32>,
    weight: &DeviceBuffer<f32>,
    eps: f32,
    rows: usize,
    cols: usize,
    out: &mut DeviceBuffer<f32>,
) -> Result<()> {
    super::on_device(device, &[("x", x.device()), ("weight", weight.device()), ("out", out.device())])?;
    check_eps(eps)?;
    let Some(config) = row_shapes(x.len(), out.len(), &[("weight", weight.len())], rows, cols)? else {
        return Ok(());
    };
    // SAFETY: block `b < rows` touches `b * cols + j` of `x` and `out` (`rows * cols`
    // elements each) and `j` of `weight` (`cols`), for `j < cols` (checked by `row_shapes`).
    unsafe { RmsNormF32::new().launch(device, config, x, weight, out, cols, eps) }.map(drop)
}

/// LayerNorm of each row of the row-major `[rows, cols]` matrix `x` into `out`:
/// `out[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) · weight[j] + bias[j]`, the biased
/// variance as `torch.nn.LayerNorm` takes it. Error against float64 within about
/// `(cols/256 + 24) · 2^-24 · (|w|·(|x - mean| + 2|mean|) / sqrt(var + eps) + |b|)`: the
/// mean's f32 rounding counts against the row's spread, so a row whose mean is `2^k` times
/// its standard deviation loses about `k` bits (as any f32 mean does). As for [`rms_norm`],
/// the bound holds while the row's sums (of `x`, and of `(x - mean)²`) are finite in f32
/// (`|x - mean|` below about `1.8e19 / √cols`: past it the variance overflows and the
/// outputs are `bias`, or NaN where the sum of `x` overflows) and `var + eps` is at least
/// `2^-126` (below it the squares lose bits to underflow; with `eps = 0` and every
/// `(x - mean)²` below `2^-149`, outputs ±inf and NaN). `eps` must be finite and `>= 0`
/// ([`Error::InvalidArgument`] naming it otherwise).
///
/// [`Error::InvalidArgument`]: ptx_runtime::Error::InvalidArgument
#[allow(clippy::too_many_arguments)]
pub fn layer_norm(
    device: &Device,
    x: &DeviceBuffer<f32>,
    weight: &DeviceBuffer<f32>,
    bias: &DeviceBuffer<f32>,
    eps: f32,
    rows: usize,
    cols: usize,
    out: &mut DeviceBuffer<f32>,
) -> Result<()> {
    let buffers =
        [("x", x.device()), ("weight", weight.device()), ("bias", bias.device()), ("out", out.device())];
    super::on_device(device, &buffers)?;
    check_eps(eps)?;
    let params = [("weight", weight.len()), ("bias", bias.len())];
    let Some(config) = row_shapes(x.len(), out.len(), &params, rows, cols)? else {
        return Ok(());
    };
    // SAFETY: as `rms_norm`, with `bias` of `cols` elements too.
    unsafe { LayerNormF32::new().launch(device, config, x, weight, bias, out, cols, eps) }.map(drop)
}
