//! A small library of the kernels every model needs beside its elementwise ones, each
//! written with `#[ptx_kernel]` in a screen or so, with a launch helper that checks shapes
//! (an [`Error::InvalidArgument`] naming the argument) and picks the grid:
//!
//! - [`sum`] and [`max`] of a whole `f32` or `f64` buffer (block and warp reductions, any
//!   length, deterministic: the same bits on every run),
//! - [`softmax_rows`]: numerically stable softmax of each row, one block per row, the row's
//!   maximum and sum found in one online pass,
//! - [`rms_norm`] and [`layer_norm`] of each row, with weight (and bias) and `eps`,
//! - [`transpose`] through a padded shared tile (no bank conflicts),
//! - [`prefix_sum`]: inclusive scan of `u32` or `f32` values of any length.
//!
//! The helpers validate every shape before they launch (and that every buffer lives on the
//! call's device: an [`Error::WrongDevice`] naming the argument), and with the indices so proven the
//! kernels are `#[ptx_kernel(unchecked)]`: no per-access checks, the SASS of hand-written
//! CUDA (docs/performance.md). Each helper's `SAFETY` comment gives the proof; the kernel
//! types are public for callers who launch them themselves (`unsafe`, on the same terms).
//! The row kernels take the row length as a runtime argument, so one built kernel serves
//! every shape.

mod norm;
mod reduce;
mod scan;
mod softmax;
mod transpose;

pub use norm::{layer_norm, rms_norm, LayerNormF32, RmsNormF32};
pub use reduce::{max, sum, MaxF32, MaxF64, Reduction, SumF32, SumF64};
pub use scan::{prefix_sum, AddOffsetsF32, AddOffsetsU32, Scan, ScanBlocksF32, ScanBlocksU32};
pub use softmax::{softmax_rows, SoftmaxRowsF32};
pub use transpose::{transpose, TransposeF32};

use ptx_runtime::{Error, Result};

/// Checks that `buffers` (argument name, buffer's device) live on `device`.
fn on_device(device: &ptx_runtime::Device, buffers: &[(&str, &ptx_runtime::Device)]) -> Result<()> {
    crate::placement::check_devices(device, buffers, "the call runs on")
}

/// Threads per block of the library's kernels: 8 warps.
pub const BLOCK: u32 = 256;

/// An [`Error::InvalidArgument`] for `argument`.
fn invalid(argument: &str, reason: String) -> Error {
    Error::InvalidArgument { argument: argument.to_string(), reason }
}

/// Checks that a buffer called `argument` holds `want` elements (`what` describes them).
fn expect_len(argument: &str, len: usize, want: Option<usize>, what: &str) -> Result<()> {
    match want {
        Some(w) if w == len => Ok(()),
        Some(w) => Err(invalid(argument, format!("holds {len} elements, but {what} needs {w}"))),
        None => Err(invalid(
            argument,
            format!("{what} does not fit in memory (the element count overflows usize)"),
        )),
    }
}

/// Checks that `x` and `out` hold a `[rows, cols]` matrix (`out_shape` names what `out`
/// holds); `Ok(false)` when the matrix is empty and there is nothing to launch.
fn matrix_shapes(x: usize, out: usize, rows: usize, cols: usize, out_shape: &str) -> Result<bool> {
    let elements = rows.checked_mul(cols);
    expect_len("x", x, elements, "a [rows, cols] matrix")?;
    expect_len("out", out, elements, out_shape)?;
    Ok(rows > 0 && cols > 0)
}

/// `rows` as a grid dimension: at most `limit` blocks.
fn grid_dim(argument: &str, rows: usize, limit: u32) -> Result<u32> {
    u32::try_from(rows).ok().filter(|&r| r <= limit).ok_or_else(|| {
        invalid(argument, format!("{rows} is more than the {limit} blocks a grid dimension can have"))
    })
}
