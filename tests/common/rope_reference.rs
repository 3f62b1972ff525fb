//! Float64 reference for the RoPE (rotary position embedding) kernels.
//!
//! The frequency tables here are derived directly from the HF transformers `rope_scaling` definitions
//! (none, linear, dynamic NTK, YaRN, Llama 3), independently of the library's own frequency code, so that
//! a bug in the library's tables shows up as a mismatch against this reference.
#![allow(dead_code)]

use std::f64::consts::PI;

/// Which elements of a head row form rotation pair `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefLayout {
    /// Pair `i` is `(2i, 2i + 1)`.
    Interleaved,
    /// Pair `i` is `(i, i + rotary_dim / 2)`.
    HalfSplit,
}

/// Frequency scaling, mirroring HF transformers `rope_scaling`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RefScaling {
    None,
    Linear(f64),
    DynamicNtk {
        factor: f64,
        original_max_position: f64,
        seq_len: f64,
    },
    Yarn {
        factor: f64,
        original_max_position: f64,
        beta_fast: f64,
        beta_slow: f64,
        attention_factor: Option<f64>,
    },
    Llama3 {
        factor: f64,
        low_freq_factor: f64,
        high_freq_factor: f64,
        original_max_position: f64,
    },
}

/// Unscaled frequencies: `base^(-2i/d)` for `i in 0..d/2`.
fn plain_frequencies(base: f64, d: usize) -> Vec<f64> {
    (0..d / 2).map(|i| base.powf(-2.0 * i as f64 / d as f64)).collect()
}

/// The rotation's angle per position for each pair i in 0..rotary_dim/2 (radians per position), and the factor
/// on cos/sin.
pub fn reference_frequencies(theta: f64, rotary_dim: usize, scaling: RefScaling) -> (Vec<f64>, f64) {
    assert!(rotary_dim >= 2 && rotary_dim.is_multiple_of(2), "rotary_dim must be even and positive");
    let d = rotary_dim;
    let df = d as f64;
    match scaling {
        RefScaling::None => (plain_frequencies(theta, d), 1.0),
        RefScaling::Linear(factor) => {
            (plain_frequencies(theta, d).into_iter().map(|f| f / factor).collect(), 1.0)
        }
        RefScaling::DynamicNtk { factor, original_max_position, seq_len } => {
            let base = if seq_len > original_max_position {
                let ratio = factor * seq_len / original_max_position - (factor - 1.0);
                theta * ratio.powf(df / (df - 2.0))
            } else {
                theta
            };
            (plain_frequencies(base, d), 1.0)
        }
        RefScaling::Yarn { factor, original_max_position, beta_fast, beta_slow, attention_factor } => {
            let corr = |n: f64| df * (original_max_position / (n * 2.0 * PI)).ln() / (2.0 * theta.ln());
            let low = corr(beta_fast).floor().max(0.0);
            let mut high = corr(beta_slow).ceil().min(df - 1.0);
            if low == high {
                high += 0.001;
            }
            let freqs = (0..d / 2)
                .map(|j| {
                    let ramp = ((j as f64 - low) / (high - low)).clamp(0.0, 1.0);
                    let extra = theta.powf(-2.0 * j as f64 / df);
                    let inter = extra / factor;
                    inter * ramp + extra * (1.0 - ramp)
                })
                .collect();
            let m = attention_factor.unwrap_or(if factor > 1.0 { 0.1 * factor.ln() + 1.0 } else { 1.0 });
            (freqs, m)
        }
        RefScaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position } => {
            let low_wl = original_max_position / low_freq_factor;
            let high_wl = original_max_position / high_freq_factor;
            let freqs = plain_frequencies(theta, d)
                .into_iter()
                .map(|f| {
                    let wavelen = 2.0 * PI / f;
                    if wavelen < high_wl {
                        f
                    } else if wavelen > low_wl {
                        f / factor
                    } else {
                        let s = (original_max_position / wavelen - low_freq_factor)
                            / (high_freq_factor - low_freq_factor);
                        (1.0 - s) * f / factor + s * f
                    }
                })
                .collect();
            (freqs, 1.0)
        }
    }
}

/// Applies RoPE to `x` of logical shape `[tokens, heads, head_dim]`; token `t`'s row starts at `t * row_stride`
/// and head `h` at `t * row_stride + h * head_dim`. Elements outside rotated head rows, and the tail
/// `rotary_dim..head_dim` of each head row, are copied unchanged. `backward` applies the transpose.
#[allow(clippy::too_many_arguments)]
pub fn reference_rope(
    x: &[f64],
    positions: &[u32],
    tokens: usize,
    heads: usize,
    head_dim: usize,
    row_stride: usize,
    rotary_dim: usize,
    layout: RefLayout,
    theta: f64,
    scaling: RefScaling,
    backward: bool,
) -> Vec<f64> {
    assert!(rotary_dim <= head_dim, "rotary_dim must not exceed head_dim");
    assert!(row_stride >= heads * head_dim, "row_stride too small for heads * head_dim");
    assert!(positions.len() >= tokens, "need one position per token");
    if tokens > 0 {
        assert!(x.len() >= (tokens - 1) * row_stride + heads * head_dim, "x too short");
    }
    let (freqs, m) = reference_frequencies(theta, rotary_dim, scaling);
    let half = rotary_dim / 2;
    let mut out = x.to_vec();
    for (t, &pos) in positions.iter().enumerate().take(tokens) {
        let pos = pos as f64;
        for h in 0..heads {
            let row = t * row_stride + h * head_dim;
            for (i, &f) in freqs.iter().enumerate() {
                let (ia, ib) = match layout {
                    RefLayout::Interleaved => (row + 2 * i, row + 2 * i + 1),
                    RefLayout::HalfSplit => (row + i, row + i + half),
                };
                let (sin, cos) = (pos * f).sin_cos();
                let (a, b) = (x[ia], x[ib]);
                let (ra, rb) = if backward {
                    (a * cos + b * sin, b * cos - a * sin)
                } else {
                    (a * cos - b * sin, a * sin + b * cos)
                };
                out[ia] = m * ra;
                out[ib] = m * rb;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random values in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn assert_close(a: &[f64], b: &[f64], rel: f64) {
        assert_eq!(a.len(), b.len());
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            let tol = rel * x.abs().max(y.abs()).max(1.0);
            assert!((x - y).abs() <= tol, "element {k}: {x} vs {y}");
        }
    }

    const POSITIONS: [u32; 4] = [0, 1, 77, 4095];

    #[test]
    fn forward_then_backward_is_identity() {
        let (tokens, heads, head_dim, stride) = (4, 3, 16, 48);
        let x = values(tokens * stride, 1);
        for layout in [RefLayout::Interleaved, RefLayout::HalfSplit] {
            for scaling in [RefScaling::None, RefScaling::Linear(4.0)] {
                let y = reference_rope(
                    &x, &POSITIONS, tokens, heads, head_dim, stride, 16, layout, 1e4, scaling, false,
                );
                assert!(y.iter().zip(&x).any(|(a, b)| (a - b).abs() > 1e-3), "rotation did nothing");
                let z = reference_rope(
                    &y, &POSITIONS, tokens, heads, head_dim, stride, 16, layout, 1e4, scaling, true,
                );
                assert_close(&z, &x, 1e-12);
            }
        }
    }

    #[test]
    fn partial_rotary_tail_is_copied() {
        let (tokens, heads, head_dim, rot) = (4, 2, 16, 8);
        let stride = heads * head_dim;
        let x = values(tokens * stride, 2);
        for layout in [RefLayout::Interleaved, RefLayout::HalfSplit] {
            let y = reference_rope(
                &x,
                &POSITIONS,
                tokens,
                heads,
                head_dim,
                stride,
                rot,
                layout,
                1e4,
                RefScaling::None,
                false,
            );
            for t in 0..tokens {
                for h in 0..heads {
                    let row = t * stride + h * head_dim;
                    assert_eq!(&y[row + rot..row + head_dim], &x[row + rot..row + head_dim]);
                }
            }
            assert_ne!(y[stride + 1], x[stride + 1]);
        }
    }

    #[test]
    fn elements_outside_head_rows_are_copied() {
        let (tokens, heads, head_dim, stride) = (4, 2, 8, 21);
        let x = values((tokens - 1) * stride + heads * head_dim + 3, 3);
        let y = reference_rope(
            &x,
            &POSITIONS,
            tokens,
            heads,
            head_dim,
            stride,
            8,
            RefLayout::HalfSplit,
            1e4,
            RefScaling::None,
            false,
        );
        assert_eq!(y.len(), x.len());
        for k in 0..x.len() {
            let in_row = k / stride < tokens && k % stride < heads * head_dim;
            if !in_row {
                assert_eq!(y[k], x[k], "element {k} outside head rows changed");
            }
        }
        assert_ne!(y[stride], x[stride]);
    }

    #[test]
    fn position_zero_is_identity() {
        let x = values(2 * 32, 4);
        let scaling = RefScaling::Yarn {
            factor: 1.0,
            original_max_position: 4096.0,
            beta_fast: 32.0,
            beta_slow: 1.0,
            attention_factor: None,
        };
        for layout in [RefLayout::Interleaved, RefLayout::HalfSplit] {
            let y = reference_rope(&x, &[0, 0], 2, 2, 16, 32, 16, layout, 1e4, scaling, false);
            assert_eq!(y, x);
        }
    }

    #[test]
    fn interleaved_and_half_split_agree_after_permutation() {
        let (tokens, heads, head_dim, rot) = (4, 2, 12, 8);
        let stride = heads * head_dim;
        let xi = values(tokens * stride, 5);
        // perm[k] = index in the interleaved row that feeds half-split index k.
        let half = rot / 2;
        let perm: Vec<usize> = (0..head_dim)
            .map(|k| {
                if k < half {
                    2 * k
                } else if k < rot {
                    2 * (k - half) + 1
                } else {
                    k
                }
            })
            .collect();
        let permute = |v: &[f64]| -> Vec<f64> {
            let mut p = v.to_vec();
            for r in 0..tokens * heads {
                let base = (r / heads) * stride + (r % heads) * head_dim;
                for k in 0..head_dim {
                    p[base + k] = v[base + perm[k]];
                }
            }
            p
        };
        let xh = permute(&xi);
        let s = RefScaling::Linear(2.0);
        let yi = reference_rope(
            &xi,
            &POSITIONS,
            tokens,
            heads,
            head_dim,
            stride,
            rot,
            RefLayout::Interleaved,
            1e4,
            s,
            false,
        );
        let yh = reference_rope(
            &xh,
            &POSITIONS,
            tokens,
            heads,
            head_dim,
            stride,
            rot,
            RefLayout::HalfSplit,
            1e4,
            s,
            false,
        );
        assert_close(&permute(&yi), &yh, 1e-15);
    }

    #[test]
    fn hand_computed_case() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = reference_rope(&x, &[1], 1, 1, 4, 4, 4, RefLayout::Interleaved, 1e4, RefScaling::None, false);
        let (s0, c0) = (1.0f64.sin(), 1.0f64.cos());
        let (s1, c1) = (0.01f64.sin(), 0.01f64.cos());
        let want = [1.0 * c0 - 2.0 * s0, 1.0 * s0 + 2.0 * c0, 3.0 * c1 - 4.0 * s1, 3.0 * s1 + 4.0 * c1];
        assert_close(&y, &want, 1e-14);
    }

    #[test]
    fn yarn_attention_factor_scales_rotated_elements() {
        let yarn = |m: Option<f64>| RefScaling::Yarn {
            factor: 4.0,
            original_max_position: 4096.0,
            beta_fast: 32.0,
            beta_slow: 1.0,
            attention_factor: m,
        };
        let (f1, m1) = reference_frequencies(1e4, 64, yarn(Some(1.0)));
        let (fd, md) = reference_frequencies(1e4, 64, yarn(None));
        assert_eq!(m1, 1.0);
        assert_eq!(f1, fd);
        assert!((md - (0.1 * 4.0f64.ln() + 1.0)).abs() < 1e-15);
        let (tokens, heads, head_dim, rot) = (4, 2, 80, 64);
        let stride = heads * head_dim;
        let x = values(tokens * stride, 6);
        let a = reference_rope(
            &x,
            &POSITIONS,
            tokens,
            heads,
            head_dim,
            stride,
            rot,
            RefLayout::HalfSplit,
            1e4,
            yarn(Some(1.0)),
            false,
        );
        let b = reference_rope(
            &x,
            &POSITIONS,
            tokens,
            heads,
            head_dim,
            stride,
            rot,
            RefLayout::HalfSplit,
            1e4,
            yarn(None),
            false,
        );
        for k in 0..x.len() {
            if k % head_dim < rot {
                assert!((b[k] - md * a[k]).abs() <= 1e-14, "element {k}");
            } else {
                assert_eq!(b[k], x[k]);
            }
        }
    }

    #[test]
    fn llama3_frequencies() {
        let s = RefScaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position: 8192.0,
        };
        let (none, _) = reference_frequencies(5e5, 128, RefScaling::None);
        let (f, m) = reference_frequencies(5e5, 128, s);
        assert_eq!(m, 1.0);
        assert_eq!(f.len(), 64);
        assert_eq!(f[0], none[0]);
        assert!((f[63] - none[63] / 8.0).abs() <= 1e-15 * none[63]);
        for i in 0..64 {
            assert!(f[i] <= none[i] && f[i] >= none[i] / 8.0 * (1.0 - 1e-15), "pair {i}");
        }
        assert!(f.iter().zip(&none).any(|(a, b)| *a < *b && *a > *b / 8.0), "no blended pair");
    }

    #[test]
    fn dynamic_ntk_within_original_length_equals_none() {
        let (none, _) = reference_frequencies(1e4, 64, RefScaling::None);
        let within = RefScaling::DynamicNtk { factor: 2.0, original_max_position: 2048.0, seq_len: 2048.0 };
        assert_eq!(reference_frequencies(1e4, 64, within), (none.clone(), 1.0));
        let beyond = RefScaling::DynamicNtk { factor: 2.0, original_max_position: 2048.0, seq_len: 4096.0 };
        let (f, _) = reference_frequencies(1e4, 64, beyond);
        let base = 1e4 * 3.0f64.powf(64.0 / 62.0);
        assert!((f[1] - base.powf(-2.0 / 64.0)).abs() < 1e-15);
        assert!(f[1] < none[1]);
    }
}
