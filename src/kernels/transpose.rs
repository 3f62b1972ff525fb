//! Matrix transpose through shared memory: a block of 32×8 threads moves a 32×32 tile,
//! reading rows of `x` and writing rows of `out`, both coalesced. The tile's rows are 33
//! elements long, so a column of the tile falls in 32 different banks.

use ptx_runtime::{Device, DeviceBuffer, LaunchConfig, Result};

use super::{invalid, matrix_shapes};
use crate::prelude::*;

/// `out[c][r] = x[r][c]` for the 32×32 tile at block `(block_idx().x, block_idx().y)` of a
/// row-major `[rows, cols]` matrix `x`.
#[ptx_kernel(crate = crate, unchecked)]
pub fn transpose_f32(x: &[f32], out: &mut [f32], rows: u32, cols: u32) {
    let tile = shared::<f32, { 32 * 33 }>();
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (col0, row0) = (block_idx().x * 32, block_idx().y * 32);
    #[unroll]
    for k in 0..4 {
        let (r, c) = (row0 + ty + 8 * k, col0 + tx);
        if r < rows && c < cols {
            tile[((ty + 8 * k) * 33 + tx) as usize] = x[r as usize * cols as usize + c as usize];
        }
    }
    sync_threads();
    #[unroll]
    for k in 0..4 {
        // Row `r` of `out` is column `r` of `x`.
        let (r, c) = (col0 + ty + 8 * k, row0 + tx);
        if r < cols && c < rows {
            out[r as usize * rows as usize + c as usize] = tile[(tx * 33 + ty + 8 * k) as usize];
        }
    }
}

/// `out = xᵀ`: `x` is a row-major `[rows, cols]` matrix, `out` the row-major `[cols, rows]`
/// one. Exact (it only moves values).
pub fn transpose(
    device: &Device,
    x: &DeviceBuffer<f32>,
    rows: usize,
    cols: usize,
    out: &mut DeviceBuffer<f32>,
) -> Result<()> {
    if !matrix_shapes(x.len(), out.len(), rows, cols, "a [cols, rows] matrix")? {
        return Ok(());
    }
    let side = |name: &str, n: usize, limit: usize| {
        u32::try_from(n).ok().filter(|_| n.div_ceil(32) <= limit).ok_or_else(|| {
            invalid(name, format!("{n} needs more than the {limit} tiles of 32 a grid allows"))
        })
    };
    let (rows32, cols32) = (side("rows", rows, 65535)?, side("cols", cols, i32::MAX as usize)?);
    let config = LaunchConfig::new((cols32.div_ceil(32), rows32.div_ceil(32), 1), (32, 8, 1));
    // SAFETY: with blocks of (32, 8) threads, `tx < 32`, `ty < 8` and `k < 4`, so both tile
    // indices are at most 31 * 33 + 31 < 32 * 33; `r < rows, c < cols` bounds
    // `r * cols + c` below `rows * cols` (the length of `x`), and `r < cols, c < rows`
    // bounds `r * rows + c` below that of `out` (checked above).
    unsafe { TransposeF32::new().launch(device, config, x, out, rows32, cols32) }.map(drop)
}
