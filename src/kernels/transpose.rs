//! Matrix transpose through shared memory: a block of 32×8 threads moves a 32×32 tile,
//! reading rows of `x` and writing rows of `out`, both coalesced. The tile's rows are 33
//! elements long, so a column of the tile falls in 32 different banks.

use ptx_runtime::{Device, DeviceBuffer, LaunchConfig, Result};

use super::{invalid, matrix_shapes};
use crate::prelude::*;

/// `out[c][r] = x[r][c]` for the 32×32 tiles at block `(block_idx().x, block_idx().y)` of a
/// row-major `[rows, cols]` matrix `x`, and every `grid_dim().y`-th tile below it (a grid
/// has at most 65535 blocks in `y`; `tiles_y` is `⌈rows / 32⌉`).
#[ptx_kernel(crate = crate, unchecked)]
pub fn transpose_f32(x: &[f32], out: &mut [f32], rows: u32, cols: u32, tiles_y: u32) {
    let tile = shared::<f32, { 32 * 33 }>();
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let col0 = block_idx().x * 32;
    let mut tile_y = block_idx().y;
    while tile_y < tiles_y {
        let row0 = tile_y * 32;
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
        // The next tile overwrites this one only once every thread has read it.
        sync_threads();
        tile_y += grid_dim().y;
    }
}

/// `out = xᵀ`: `x` is a row-major `[rows, cols]` matrix, `out` the row-major `[cols, rows]`
/// one, of any shape whose sides fit in `u32`. Exact (it only moves values).
pub fn transpose(
    device: &Device,
    x: &DeviceBuffer<f32>,
    rows: usize,
    cols: usize,
    out: &mut DeviceBuffer<f32>,
) -> Result<()> {
    super::on_device(device, &[("x", x.device()), ("out", out.device())])?;
    if !matrix_shapes(x.len(), out.len(), rows, cols, "a [cols, rows] matrix")? {
        return Ok(());
    }
    // Every dimension must fit the kernel's `u32` indices; a tile's last row or column,
    // `32 · ⌈n / 32⌉ - 1`, then does too. Columns of tiles are the grid's `x` (2^31 - 1
    // blocks), rows of tiles its `y`, at most 65535 blocks each striding over the rest.
    let side = |name: &str, n: usize| {
        u32::try_from(n)
            .map_err(|_| invalid(name, format!("{n} is more than the u32 indices of the kernel reach")))
    };
    let (rows32, cols32) = (side("rows", rows)?, side("cols", cols)?);
    let tiles_y = rows32.div_ceil(32);
    let config = LaunchConfig::new((cols32.div_ceil(32), tiles_y.min(MAX_GRID_Y), 1), (32, 8, 1));
    // SAFETY: with blocks of (32, 8) threads, `tx < 32`, `ty < 8` and `k < 4`, so both tile
    // indices are at most 31 * 33 + 31 < 32 * 33; `r < rows, c < cols` bounds
    // `r * cols + c` below `rows * cols` (the length of `x`), and `r < cols, c < rows`
    // bounds `r * rows + c` below that of `out` (checked above). `row0 + 31` and
    // `col0 + 31` are below `32 · ⌈n / 32⌉ <= 2^32`, so no index wraps, nor `tile_y`
    // (below `2^27 + 65535`).
    unsafe { TransposeF32::new().launch(device, config, x, out, rows32, cols32, tiles_y) }.map(drop)
}

/// The most blocks a grid has in `y`.
const MAX_GRID_Y: u32 = 65535;
