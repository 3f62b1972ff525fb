//! The kernel library (`ptx_dsl::kernels`) on the simulator against float64 references on
//! fresh random inputs, over edge shapes (empty, 1, 31, 33, not a multiple of the block,
//! more than one block of partials), with bad shapes rejected.

mod common;

use ptx_dsl::kernels;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error};
use ptx_tools::rng::Rng;

/// The unit roundoff of f32.
const U32: f64 = 1.0 / (1u64 << 24) as f64;

/// Lengths that meet the edges of warps, blocks and the partials' second pass.
const LENGTHS: [usize; 8] = [0, 1, 31, 33, 256, 257, 1000, 70_001];

fn random_f32(rng: &mut Rng, n: usize, scale: f64) -> Vec<f32> {
    (0..n).map(|_| ((rng.unit() * 2.0 - 1.0) * scale) as f32).collect()
}

#[test]
fn sum_and_max_of_every_length_match_float64() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("sum_and_max_of_every_length_match_float64");
    for n in LENGTHS {
        let x = random_f32(&mut rng, n, 10.0);
        let xd = dev.upload(&x)?;
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let magnitude: f64 = x.iter().map(|&v| (v as f64).abs()).sum();
        // Each of at most 262144 threads adds ceil(n / threads) values in sequence, then two
        // trees of depth 8 + 5 and the 4-partials-per-thread second pass: every rounding is
        // at most U32 of a partial sum bounded by Σ|x|.
        let depth = n.div_ceil(256 * 1024) as f64 + 4.0 + 2.0 * 13.0;
        let got = kernels::sum(&dev, &xd)? as f64;
        assert!((got - exact).abs() <= depth * U32 * magnitude, "n {n}: sum {got} vs {exact}");
        let want_max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(kernels::max(&dev, &xd)?, want_max, "n {n}: max is exact");
        // f64, the same shapes: the bound with f64's unit roundoff.
        let y: Vec<f64> = x.iter().map(|&v| v as f64 * (1.0 + rng.unit())).collect();
        let yd = dev.upload(&y)?;
        let exact: f64 = y.iter().sum();
        let magnitude: f64 = y.iter().map(|v| v.abs()).sum();
        let got = kernels::sum(&dev, &yd)?;
        assert!((got - exact).abs() <= depth * f64::EPSILON * magnitude, "n {n}: f64 sum {got} vs {exact}");
        assert_eq!(kernels::max(&dev, &yd)?, y.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    }
    Ok(())
}

#[test]
fn a_reduction_ignores_nan_in_max_and_repeats_bit_for_bit() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("a_reduction_ignores_nan_in_max_and_repeats_bit_for_bit");
    let mut x = random_f32(&mut rng, 5000, 1.0);
    x[77] = f32::NAN;
    x[4000] = 3.5;
    let xd = dev.upload(&x)?;
    assert_eq!(kernels::max(&dev, &xd)?, 3.5, "Rust's max ignores NaN");
    let first = kernels::sum(&dev, &xd)?;
    assert!(first.is_nan(), "a NaN summand gives NaN");
    x[77] = 0.25;
    let xd = dev.upload(&x)?;
    let a = kernels::sum(&dev, &xd)?;
    let b = kernels::sum(&dev, &xd)?;
    assert_eq!(a.to_bits(), b.to_bits(), "the order of the additions is fixed");
    Ok(())
}

/// Softmax of one row in float64.
fn softmax_reference(row: &[f32]) -> Vec<f64> {
    let max = row.iter().map(|&v| v as f64).fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

#[test]
fn softmax_rows_match_float64_and_survive_huge_logits() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("softmax_rows_match_float64_and_survive_huge_logits");
    for (rows, cols, scale) in
        [(3usize, 1usize, 5.0), (2, 31, 5.0), (4, 33, 8.0), (3, 1000, 10.0), (1, 4096, 3.0), (2, 300, 1e30)]
    {
        let x = random_f32(&mut rng, rows * cols, scale);
        let xd = dev.upload(&x)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, rows * cols)?;
        kernels::softmax_rows(&dev, &xd, rows, cols, &mut out)?;
        let got = out.to_vec()?;
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let want = softmax_reference(row);
            let lo = row.iter().copied().fold(f32::INFINITY, f32::min) as f64;
            let hi = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
            // `exp(x - max)` inherits the rounding of `x - max` (≤ U32·range, capped where the
            // exponential underflows to 0 anyway: 104), exp itself ≤ 1 ulp, the sum ≤ the
            // depth of its tree, the division 1 ulp; as relative error, plus an absolute
            // allowance for results below f32's normal range.
            let range = (hi - lo).min(104.0);
            let bound = (range + cols as f64 / 256.0 + 24.0) * U32;
            for (j, (&g, &w)) in got[r * cols..(r + 1) * cols].iter().zip(&want).enumerate() {
                let err = (g as f64 - w).abs();
                assert!(err <= bound * w + 1e-38, "rows {rows} cols {cols} [{r}][{j}]: {g} vs {w}");
            }
        }
    }
    Ok(())
}

#[test]
fn rms_norm_and_layer_norm_match_float64() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("rms_norm_and_layer_norm_match_float64");
    for (rows, cols) in [(1usize, 1usize), (3, 31), (2, 33), (5, 777), (2, 4096)] {
        // An offset mean makes LayerNorm's two-pass variance matter.
        let x: Vec<f32> = random_f32(&mut rng, rows * cols, 3.0).iter().map(|v| v + 40.0).collect();
        let weight = random_f32(&mut rng, cols, 2.0);
        let bias = random_f32(&mut rng, cols, 1.0);
        let (xd, wd, bd) = (dev.upload(&x)?, dev.upload(&weight)?, dev.upload(&bias)?);
        let mut rms = DeviceBuffer::<f32>::zeroed(&dev, rows * cols)?;
        let mut ln = DeviceBuffer::<f32>::zeroed(&dev, rows * cols)?;
        let eps = 1e-5f32;
        kernels::rms_norm(&dev, &xd, &wd, eps, rows, cols, &mut rms)?;
        kernels::layer_norm(&dev, &xd, &wd, &bd, eps, rows, cols, &mut ln)?;
        let (rms, ln) = (rms.to_vec()?, ln.to_vec()?);
        for r in 0..rows {
            let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|&v| v as f64).collect();
            let n = cols as f64;
            let mean_square = row.iter().map(|v| v * v).sum::<f64>() / n;
            let scale = 1.0 / (mean_square + eps as f64).sqrt();
            let mean = row.iter().sum::<f64>() / n;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            let rstd = 1.0 / (var + eps as f64).sqrt();
            for j in 0..cols {
                let (w, b) = (weight[j] as f64, bias[j] as f64);
                let want_rms = row[j] * scale * w;
                // Sum of squares: a tree of depth cols/256 + 16 (relative, all terms positive);
                // sqrt, division and two products: 4 more roundings.
                let rms_bound = (cols as f64 / 256.0 + 24.0) * U32 * (row[j] * scale * w).abs();
                let got = rms[r * cols + j] as f64;
                assert!((got - want_rms).abs() <= rms_bound + 1e-30, "rms [{r}][{j}]: {got} vs {want_rms}");
                // LayerNorm: the mean's rounding (≤ depth·U32·|mean|) enters `x - mean`, whose
                // scale is rstd; relative to the output's scale |w|·rstd·(|x - mean| + depth·U32·|mean|).
                let want_ln = (row[j] - mean) * rstd * w + b;
                let depth = cols as f64 / 256.0 + 24.0;
                let ln_bound =
                    depth * U32 * (w.abs() * rstd * ((row[j] - mean).abs() + 2.0 * mean.abs()) + b.abs());
                let got = ln[r * cols + j] as f64;
                assert!((got - want_ln).abs() <= ln_bound, "layer_norm [{r}][{j}]: {got} vs {want_ln}");
            }
        }
    }
    Ok(())
}

#[test]
fn transpose_moves_every_element_of_any_shape() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("transpose_moves_every_element_of_any_shape");
    for (rows, cols) in [(1usize, 1usize), (1, 33), (31, 1), (33, 31), (64, 96), (70, 45)] {
        let x = random_f32(&mut rng, rows * cols, 100.0);
        let xd = dev.upload(&x)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, rows * cols)?;
        kernels::transpose(&dev, &xd, rows, cols, &mut out)?;
        let got = out.to_vec()?;
        for r in 0..rows {
            for c in 0..cols {
                assert_eq!(
                    got[c * rows + r].to_bits(),
                    x[r * cols + c].to_bits(),
                    "{rows}x{cols} [{r}][{c}]"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn prefix_sums_of_any_length_match_the_sequential_scan() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("prefix_sums_of_any_length_match_the_sequential_scan");
    for n in LENGTHS {
        let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let xd = dev.upload(&x)?;
        let mut out = DeviceBuffer::<u32>::zeroed(&dev, n)?;
        kernels::prefix_sum(&dev, &xd, &mut out)?;
        let want: Vec<u32> = x
            .iter()
            .scan(0u32, |acc, &v| {
                *acc = acc.wrapping_add(v);
                Some(*acc)
            })
            .collect();
        assert_eq!(out.to_vec()?, want, "u32 scan of {n} (wrapping, so exact)");
        let f = random_f32(&mut rng, n, 1.0);
        let fd = dev.upload(&f)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, n)?;
        kernels::prefix_sum(&dev, &fd, &mut out)?;
        let got = out.to_vec()?;
        let levels = (n.max(2) as f64).log(256.0).ceil();
        let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
        for i in 0..n {
            exact += f[i] as f64;
            magnitude += (f[i] as f64).abs();
            // At most 14 roundings per 256-fold level, each of a partial sum ≤ Σ|x|.
            let bound = 14.0 * levels * U32 * magnitude;
            assert!((got[i] as f64 - exact).abs() <= bound, "f32 scan of {n} at {i}: {} vs {exact}", got[i]);
        }
    }
    Ok(())
}

#[test]
fn bad_shapes_are_errors_naming_the_argument() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32; 12])?;
    let w = dev.upload(&[1.0f32; 4])?;
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, 12)?;
    let mut short = DeviceBuffer::<f32>::zeroed(&dev, 10)?;
    let name = |e: Error| match e {
        Error::InvalidArgument { argument, reason } => format!("{argument}: {reason}"),
        other => panic!("expected InvalidArgument, got {other}"),
    };
    let e = name(kernels::softmax_rows(&dev, &x, 3, 5, &mut out).unwrap_err());
    assert!(e.starts_with("x: holds 12 elements") && e.contains("15"), "{e}");
    let e = name(kernels::softmax_rows(&dev, &x, 3, 4, &mut short).unwrap_err());
    assert!(e.starts_with("out: holds 10"), "{e}");
    let e = name(kernels::rms_norm(&dev, &x, &w, 1e-5, 4, 3, &mut out).unwrap_err());
    assert!(e.starts_with("weight: holds 4 elements") && e.contains("needs 3"), "{e}");
    let e = name(kernels::layer_norm(&dev, &x, &w, &x, 1e-5, 3, 4, &mut out).unwrap_err());
    assert!(e.starts_with("bias: holds 12"), "{e}");
    let e = name(kernels::transpose(&dev, &x, 2, 5, &mut out).unwrap_err());
    assert!(e.starts_with("x: holds 12"), "{e}");
    let e = name(kernels::softmax_rows(&dev, &x, usize::MAX, 2, &mut out).unwrap_err());
    assert!(e.contains("overflows"), "{e}");
    let e = name(kernels::prefix_sum(&dev, &x, &mut short).unwrap_err());
    assert!(e.starts_with("out: holds 10"), "{e}");
    // Empty shapes are fine and launch nothing.
    let empty = DeviceBuffer::<f32>::zeroed(&dev, 0)?;
    let mut empty_out = DeviceBuffer::<f32>::zeroed(&dev, 0)?;
    kernels::softmax_rows(&dev, &empty, 0, 7, &mut empty_out)?;
    kernels::transpose(&dev, &empty, 5, 0, &mut empty_out)?;
    Ok(())
}

#[test]
fn every_library_kernel_assembles_for_sm_80_and_sm_90() {
    common::assert_assembles("softmax_rows", &kernels::SoftmaxRowsF32::new());
    common::assert_assembles("rms_norm", &kernels::RmsNormF32::new());
    common::assert_assembles("layer_norm", &kernels::LayerNormF32::new());
    common::assert_assembles("transpose", &kernels::TransposeF32::new());
    common::assert_assembles("sum_f32", &kernels::SumF32::new());
    common::assert_assembles("max_f64", &kernels::MaxF64::new());
    common::assert_assembles("scan_blocks_f32", &kernels::ScanBlocksF32::new());
    common::assert_assembles("add_offsets_u32", &kernels::AddOffsetsU32::new());
}

/// A buffer of another device is an `Error::WrongDevice` naming the argument, whatever the
/// shape: also where an empty one launches nothing.
#[test]
fn buffers_of_another_device_are_refused_even_when_nothing_runs() {
    let (here, there) = (Device::sim(), Device::sim());
    let names = |r: ptx_dsl::runtime::Result<()>| match r {
        Err(Error::WrongDevice { what }) => what,
        other => panic!("expected WrongDevice, got {other:?}"),
    };
    let empty = there.zeroed::<f32>(0).unwrap();
    let mut out = here.zeroed::<f32>(0).unwrap();
    let what = names(kernels::sum(&here, &empty).map(drop));
    assert!(what.contains("`x`"), "{what}");
    let what = names(kernels::softmax_rows(&here, &empty, 0, 4, &mut out));
    assert!(what.contains("`x`"), "{what}");
    let (weight, bias) = (here.zeroed::<f32>(4).unwrap(), there.zeroed::<f32>(4).unwrap());
    let x = here.zeroed::<f32>(0).unwrap();
    let what = names(kernels::layer_norm(&here, &x, &weight, &bias, 1e-5, 0, 4, &mut out));
    assert!(what.contains("`bias`"), "{what}");
    let mut elsewhere = there.zeroed::<f32>(0).unwrap();
    let what = names(kernels::prefix_sum(&here, &x, &mut elsewhere));
    assert!(what.contains("`out`"), "{what}");
    let what = names(kernels::transpose(&here, &x, 0, 0, &mut elsewhere));
    assert!(what.contains("`out`"), "{what}");
}
