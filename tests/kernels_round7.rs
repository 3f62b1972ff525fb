//! The kernel library (`ptx_dsl::kernels`) probed as users of `torch.softmax`,
//! `F.rms_norm`, `F.layer_norm` and `torch.sum` would probe it: special values in one
//! element of a row, degenerate parameters, and the sign of zero sums. Each test here
//! failed before the fix it came with.

use ptx_dsl::kernels;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error};

fn softmax(dev: &Device, x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let xd = dev.upload(x).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(dev, rows * cols).unwrap();
    kernels::softmax_rows(dev, &xd, rows, cols, &mut out).unwrap();
    out.to_vec().unwrap()
}

/// One NaN anywhere in a row makes the whole row NaN, as in PyTorch (and as the doc says),
/// also when it is the only column a thread of the block reads (any NaN of a row of at most
/// 256 columns, or any whose thread reads nothing else but -inf): that thread's
/// running maximum stays -inf, and its NaN partial sum was dropped as "no columns".
#[test]
fn a_nan_anywhere_in_a_softmax_row_makes_the_row_nan() {
    let dev = Device::sim();
    for cols in [1usize, 2, 10, 255, 256, 257, 600, 1025] {
        for pos in [0, cols / 2, cols - 1] {
            // Values -1 .. 1 and NaN at `pos`; a second row without NaN stays finite.
            let mut x: Vec<f32> = (0..2 * cols).map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0).collect();
            x[pos] = f32::NAN;
            if pos + 256 < cols {
                x[pos + 256] = f32::NEG_INFINITY;
            }
            let out = softmax(&dev, &x, 2, cols);
            let nans = out[..cols].iter().filter(|v| v.is_nan()).count();
            assert_eq!(nans, cols, "NaN at {pos} of {cols}: {nans} NaN outputs");
            assert!(out[cols..].iter().all(|v| v.is_finite()), "row 1 of {cols} has no NaN");
        }
    }
    // A -inf column alone in its thread still contributes exp(-inf) = 0, not NaN, and a row
    // of -inf only is NaN (0/0), as torch gives.
    let mut x = vec![f32::NEG_INFINITY; 300];
    x[7] = 1.0;
    let out = softmax(&dev, &x, 1, 300);
    assert!(out.iter().enumerate().all(|(j, &v)| v == if j == 7 { 1.0 } else { 0.0 }), "{out:?}");
    assert!(softmax(&dev, &[f32::NEG_INFINITY; 5], 1, 5).iter().all(|v| v.is_nan()));
}

/// `eps` guards the norms' denominator: a negative one shrinks it (RMSNorm of 1, 2, 3, 4
/// with `eps = -1` was 0.39, 0.78, ..: the row divided by sqrt(7.5 - 1)) and NaN or infinity
/// make every output NaN or 0. torch computes them silently; here they are bad arguments.
#[test]
fn a_negative_or_non_finite_eps_is_an_error_naming_eps() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
    let w = dev.upload(&[1.0f32; 4])?;
    let b = dev.upload(&[0.5f32; 4])?;
    let empty = dev.upload::<f32>(&[])?;
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, 4)?;
    let mut empty_out = DeviceBuffer::<f32>::zeroed(&dev, 0)?;
    let is_eps = |r: ptx_dsl::runtime::Result<()>| matches!(r, Err(Error::InvalidArgument { argument, .. }) if argument == "eps");
    for eps in [-1.0f32, -1e-30, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert!(is_eps(kernels::rms_norm(&dev, &x, &w, eps, 1, 4, &mut out)), "rms_norm eps {eps}");
        assert!(is_eps(kernels::layer_norm(&dev, &x, &w, &b, eps, 1, 4, &mut out)), "layer_norm eps {eps}");
        // An empty matrix launches nothing, but the argument is as wrong.
        assert!(
            is_eps(kernels::rms_norm(&dev, &empty, &empty, eps, 0, 0, &mut empty_out)),
            "empty, eps {eps}"
        );
    }
    // 0 (and -0.0) are valid: a zero row then gives 0/0 = NaN, as in torch.
    for eps in [0.0f32, -0.0] {
        kernels::rms_norm(&dev, &x, &w, eps, 1, 4, &mut out)?;
        kernels::layer_norm(&dev, &x, &w, &b, eps, 1, 4, &mut out)?;
    }
    Ok(())
}

/// IEEE addition of -0.0s is -0.0 (and Rust's `iter().sum()` gives it), but the partial
/// sums started from +0.0, so `sum` of -0.0s was +0.0, for `f32` and `f64`. An empty
/// buffer still sums to +0.0, as `torch.sum` of an empty tensor.
#[test]
fn a_sum_of_negative_zeros_is_negative_zero() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    // One element, one block, and more than one block of partials.
    for n in [1usize, 300, 70_001] {
        let x = dev.upload(&vec![-0.0f32; n])?;
        assert_eq!(kernels::sum(&dev, &x)?.to_bits(), (-0.0f32).to_bits(), "f32, {n} elements");
        let y = dev.upload(&vec![-0.0f64; n])?;
        assert_eq!(kernels::sum(&dev, &y)?.to_bits(), (-0.0f64).to_bits(), "f64, {n} elements");
    }
    let mixed = dev.upload(&[-0.0f32, 0.0, -0.0])?;
    assert_eq!(kernels::sum(&dev, &mixed)?.to_bits(), 0, "-0 + +0 is +0");
    assert_eq!(kernels::sum(&dev, &dev.upload::<f32>(&[])?)?.to_bits(), 0, "empty: +0.0");
    assert_eq!(kernels::sum(&dev, &dev.upload::<f64>(&[])?)?.to_bits(), 0, "empty: +0.0");
    Ok(())
}

/// A grid has at most 65535 blocks in `y`, one per 32 rows of tiles, and `transpose`
/// refused a matrix of more than 2,097,120 rows (`[2_100_000, 1]`, 8 MB: "rows needs more
/// than the 65535 tiles"); `x.T` of a tall matrix is an ordinary request. The blocks now
/// stride over the rows of tiles.
#[test]
fn transpose_of_a_matrix_taller_than_a_grid() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let (rows, cols) = (65535 * 32 + 33, 2);
    let x: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, rows * cols)?;
    kernels::transpose(&dev, &xd, rows, cols, &mut out)?;
    let got = out.to_vec()?;
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(got[c * rows + r], x[r * cols + c], "[{r}][{c}]");
        }
    }
    Ok(())
}

/// The kernel itself with a grid of fewer rows of blocks than rows of tiles (what the helper
/// launches past 65535 of them, here small): every tile is moved once, none overwritten
/// before all of its threads read it (the simulator's race check would stop the launch).
#[test]
fn transpose_blocks_stride_over_the_rows_of_tiles() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::LaunchConfig;
    let dev = Device::sim();
    let (rows, cols) = (5 * 32 + 7, 33u32);
    let n = (rows * cols) as usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, n)?;
    let config = LaunchConfig::new((2, 2, 1), (32, 8, 1));
    // SAFETY: the shapes are those `transpose` checks: `x` and `out` hold rows · cols.
    unsafe {
        kernels::TransposeF32::new().launch(&dev, config, &xd, &mut out, rows, cols, rows.div_ceil(32))
    }?;
    let got = out.to_vec()?;
    let (rows, cols) = (rows as usize, cols as usize);
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(got[c * rows + r], x[r * cols + c], "[{r}][{c}]");
        }
    }
    Ok(())
}

/// The unit roundoff of f32.
const U32: f64 = 1.0 / (1u64 << 24) as f64;

/// The documented softmax bound, relative `(R + cols/256 + 24)·2^-24` plus `2^-149`
/// absolute, on rows spanning more than f32's normal range (exp(-110) is subnormal): the
/// relative bound alone failed by 10^5 on the subnormal results, which the docs did not say.
#[test]
fn softmax_meets_its_documented_bound_into_the_subnormals() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = ptx_tools::rng::Rng::fresh("softmax_meets_its_documented_bound_into_the_subnormals");
    for (rows, cols, range) in
        [(4usize, 700usize, 110.0f64), (8, 33, 104.0), (2, 300, 200.0), (1, 1025, 60.0)]
    {
        let x: Vec<f32> = (0..rows * cols).map(|_| (-rng.unit() * range) as f32).collect();
        let got = softmax(&dev, &x, rows, cols);
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let hi = row.iter().map(|&v| v as f64).fold(f64::NEG_INFINITY, f64::max);
            let lo = row.iter().map(|&v| v as f64).fold(f64::INFINITY, f64::min);
            let exps: Vec<f64> = row.iter().map(|&v| (v as f64 - hi).exp()).collect();
            let total: f64 = exps.iter().sum();
            let bound = ((hi - lo) + cols as f64 / 256.0 + 24.0) * U32;
            for j in 0..cols {
                let want = exps[j] / total;
                let err = (got[r * cols + j] as f64 - want).abs();
                assert!(
                    err <= bound * want + 2f64.powi(-149),
                    "{rows}x{cols} [{r}][{j}]: {} vs {want}",
                    got[r * cols + j]
                );
            }
        }
    }
    Ok(())
}

/// LayerNorm's documented bound, `(cols/256 + 24)·2^-24·(|w|·(|x - mean| + 2|mean|)·rstd +
/// |b|)`, on rows whose mean is 10^4 to 10^7 times their spread (the docs pointed to the
/// tests for it), and RMSNorm's documented edges: rows whose squares overflow give 0, rows
/// whose squares all underflow with `eps = 0` give ±inf.
#[test]
fn the_norms_meet_their_documented_bounds_and_edges() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = ptx_tools::rng::Rng::fresh("the_norms_meet_their_documented_bounds_and_edges");
    for (rows, cols, mean, spread) in
        [(2usize, 1024usize, 1e6f64, 1.0f64), (1, 4097, 1e4, 1.0), (3, 33, 3e4, 1e-2), (2, 256, 1e7, 1.0)]
    {
        let x: Vec<f32> =
            (0..rows * cols).map(|_| (mean + (rng.unit() * 2.0 - 1.0) * spread) as f32).collect();
        let w: Vec<f32> = (0..cols).map(|_| (rng.unit() * 4.0 - 2.0) as f32).collect();
        let b: Vec<f32> = (0..cols).map(|_| (rng.unit() * 2.0 - 1.0) as f32).collect();
        let (xd, wd, bd) = (dev.upload(&x)?, dev.upload(&w)?, dev.upload(&b)?);
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, rows * cols)?;
        let eps = 1e-5f32;
        kernels::layer_norm(&dev, &xd, &wd, &bd, eps, rows, cols, &mut out)?;
        let got = out.to_vec()?;
        for r in 0..rows {
            let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|&v| v as f64).collect();
            let m = row.iter().sum::<f64>() / cols as f64;
            let var = row.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / cols as f64;
            let rstd = 1.0 / (var + eps as f64).sqrt();
            for j in 0..cols {
                let (wj, bj) = (w[j] as f64, b[j] as f64);
                let want = (row[j] - m) * rstd * wj + bj;
                let bound = (cols as f64 / 256.0 + 24.0)
                    * U32
                    * (wj.abs() * ((row[j] - m).abs() + 2.0 * m.abs()) * rstd + bj.abs());
                let g = got[r * cols + j] as f64;
                assert!((g - want).abs() <= bound, "mean {mean} [{r}][{j}]: {g} vs {want}");
            }
        }
    }
    let rms = |x: &[f32], eps: f32| -> ptx_dsl::runtime::Result<Vec<f32>> {
        let (xd, wd) = (dev.upload(x)?, dev.upload(&vec![1.0f32; x.len()])?);
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, x.len())?;
        kernels::rms_norm(&dev, &xd, &wd, eps, 1, x.len(), &mut out)?;
        out.to_vec()
    };
    assert_eq!(rms(&[1e20, 2e20, -3e20], 1e-5)?, [0.0, 0.0, -0.0], "Σx² overflows: the scale is 0");
    assert_eq!(rms(&[1e-25, -2e-25], 0.0)?, [f32::INFINITY, f32::NEG_INFINITY], "x² underflows to 0");
    Ok(())
}

/// A prefix of -0.0s is -0.0 (IEEE addition, NumPy's and CUDA torch's `cumsum`), but the
/// block scan padded with +0.0 and started each warp's offset at +0.0, so `prefix_sum` of
/// `[-0.0, -0.0]` was `[+0.0, +0.0]`; across blocks too.
#[test]
fn a_prefix_of_negative_zeros_is_negative_zero() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    for n in [1usize, 2, 33, 256, 300, 70_001] {
        let mut x = vec![-0.0f32; n];
        x[n - 1] = if n > 1 { 1.0 } else { -0.0 };
        let xd = dev.upload(&x)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, n)?;
        kernels::prefix_sum(&dev, &xd, &mut out)?;
        let got = out.to_vec()?;
        for (i, v) in got.iter().enumerate().take(n - 1) {
            assert_eq!(v.to_bits(), (-0.0f32).to_bits(), "{n} elements: out[{i}] = {v:?}");
        }
        assert_eq!(got[n - 1], if n > 1 { 1.0 } else { -0.0 });
    }
    Ok(())
}
