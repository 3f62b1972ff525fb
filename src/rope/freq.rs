//! Host-side RoPE frequency tables.
//!
//! Everything here is computed in `f64` on the host and handed to the GPU kernel as a small table.
//! [`inverse_frequencies`] gives the per-pair rate in radians per position, including the HuggingFace
//! `rope_scaling` variants (linear, dynamic NTK, YaRN, Llama 3); [`turn_table`] turns those rates into the
//! split `f32` turns-per-position pairs ([`TurnRate`]) that the kernel actually reads.

use std::f64::consts::PI;

use ptx_runtime::{Error, Result};

/// How RoPE frequencies are scaled, as configured in HF `rope_scaling`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scaling {
    /// Plain RoPE: `inv_freq[i] = theta^(-2i/rotary_dim)`.
    None,
    /// HF "linear" (position interpolation): inv_freq / factor.
    Linear {
        /// Divisor applied to every frequency.
        factor: f64,
    },
    /// HF "dynamic" NTK-aware scaling: when seq_len > original_max_position, the base becomes
    /// theta * ((factor * seq_len / original_max_position) - (factor - 1))^(rotary_dim / (rotary_dim - 2));
    /// else plain.
    DynamicNtk {
        /// Scaling factor (>= 1).
        factor: f64,
        /// Context length the model was trained with.
        original_max_position: u32,
        /// The sequence length the base is scaled for: as HF computes it, the largest
        /// position of the batch plus one (not the number of tokens of a decoding step).
        /// Positions at or above it rotate with the same base, unchecked.
        seq_len: u32,
    },
    /// HF "yarn". attention_factor None means HF's default 0.1*ln(factor)+1 (1 when factor <= 1).
    Yarn {
        /// Context extension factor (>= 1).
        factor: f64,
        /// Context length the model was trained with.
        original_max_position: u32,
        /// Rotations over the original context above which a pair is left unscaled.
        beta_fast: f64,
        /// Rotations over the original context below which a pair is fully interpolated.
        beta_slow: f64,
        /// Explicit factor applied to cos and sin; None for HF's default.
        attention_factor: Option<f64>,
    },
    /// HF "llama3".
    Llama3 {
        /// Divisor for the low-frequency pairs.
        factor: f64,
        /// Wavelengths longer than original_max_position / low_freq_factor are fully scaled.
        low_freq_factor: f64,
        /// Wavelengths shorter than original_max_position / high_freq_factor are left alone.
        high_freq_factor: f64,
        /// Context length the model was trained with.
        original_max_position: u32,
    },
}

/// An [`Error::InvalidArgument`] naming `argument` (`theta`, `rotary_dim`, or a scaling
/// parameter as `scaling.<field>`).
fn invalid(argument: &str, reason: String) -> Error {
    Error::InvalidArgument { argument: argument.into(), reason }
}

/// Err naming `scaling.<field>` unless `value` is finite and > 0 (or >= 1 when
/// `at_least_one`); `kind` is the variant, for the message.
fn check_factor(kind: &str, field: &str, value: f64, at_least_one: bool) -> Result<()> {
    let ok = value.is_finite() && if at_least_one { value >= 1.0 } else { value > 0.0 };
    if ok {
        Ok(())
    } else {
        let bound = if at_least_one { ">= 1" } else { "> 0" };
        Err(invalid(&format!("scaling.{field}"), format!("{kind}: must be finite and {bound}, not {value}")))
    }
}

/// Err naming `scaling.original_max_position` unless it is positive.
fn check_original(kind: &str, original_max_position: u32) -> Result<()> {
    if original_max_position == 0 {
        Err(invalid("scaling.original_max_position", format!("{kind}: must be > 0, not 0")))
    } else {
        Ok(())
    }
}

/// Err naming `scaling.attention_factor` unless it is positive and a normal f32 (the kernels
/// multiply by it in f32: a subnormal one loses the relative accuracy the bound assumes, and
/// 0, ∞ or NaN would erase the output).
fn check_attention_factor(value: f64) -> Result<()> {
    if value > 0.0 && (value as f32).is_normal() {
        Ok(())
    } else {
        let reason = format!(
            "yarn: must be positive and a normal f32 ({:e} to {:e}), not {value:e}",
            f32::MIN_POSITIVE,
            f32::MAX
        );
        Err(invalid("scaling.attention_factor", reason))
    }
}

impl Scaling {
    /// YaRN with HF's defaults beta_fast 32, beta_slow 1, default attention factor.
    pub fn yarn(factor: f64, original_max_position: u32) -> Scaling {
        Scaling::Yarn {
            factor,
            original_max_position,
            beta_fast: 32.0,
            beta_slow: 1.0,
            attention_factor: None,
        }
    }

    /// Llama 3.1's published configuration: factor 8, low_freq_factor 1, high_freq_factor 4,
    /// original_max_position 8192.
    pub fn llama3() -> Scaling {
        Scaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position: 8192,
        }
    }

    /// The factor applied to cos and sin (YaRN's attention factor; 1 for the others).
    pub fn attention_factor(&self) -> f64 {
        match *self {
            Scaling::Yarn { attention_factor: Some(a), .. } => a,
            Scaling::Yarn { factor, attention_factor: None, .. } if factor > 1.0 => 0.1 * factor.ln() + 1.0,
            _ => 1.0,
        }
    }

    /// Checks the parameters: factors finite and > 0 (>= 1 for dynamic NTK and YaRN),
    /// original_max_position > 0, beta_fast > beta_slow > 0 for YaRN, high_freq_factor >
    /// low_freq_factor > 0 for Llama3, attention_factor, if given, positive and a normal f32.
    /// Err is an [`Error::InvalidArgument`] naming the field as `scaling.<field>` (e.g.
    /// `scaling.beta_fast`), with a one-line reason.
    pub fn validate(&self) -> Result<()> {
        match *self {
            Scaling::None => Ok(()),
            Scaling::Linear { factor } => check_factor("linear", "factor", factor, false),
            Scaling::DynamicNtk { factor, original_max_position, .. } => {
                check_factor("dynamic", "factor", factor, true)?;
                check_original("dynamic", original_max_position)
            }
            Scaling::Yarn { factor, original_max_position, beta_fast, beta_slow, attention_factor } => {
                check_factor("yarn", "factor", factor, true)?;
                check_original("yarn", original_max_position)?;
                check_factor("yarn", "beta_slow", beta_slow, false)?;
                check_factor("yarn", "beta_fast", beta_fast, false)?;
                if beta_fast <= beta_slow {
                    let reason = format!("yarn: must be > beta_slow, not {beta_fast} <= {beta_slow}");
                    return Err(invalid("scaling.beta_fast", reason));
                }
                attention_factor.map_or(Ok(()), check_attention_factor)
            }
            Scaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position } => {
                check_factor("llama3", "factor", factor, false)?;
                check_original("llama3", original_max_position)?;
                check_factor("llama3", "low_freq_factor", low_freq_factor, false)?;
                check_factor("llama3", "high_freq_factor", high_freq_factor, false)?;
                if high_freq_factor <= low_freq_factor {
                    let reason = format!(
                        "llama3: must be > low_freq_factor, not {high_freq_factor} <= {low_freq_factor}"
                    );
                    return Err(invalid("scaling.high_freq_factor", reason));
                }
                Ok(())
            }
        }
    }
}

/// Unscaled table: 1 / base^(2i/d) for i in 0..d/2.
fn plain(base: f64, d: u32) -> Vec<f64> {
    (0..d / 2).map(|i| 1.0 / base.powf(f64::from(2 * i) / f64::from(d))).collect()
}

/// Per-pair inverse frequencies (radians per position), length rotary_dim / 2, in f64, for base `theta` and
/// the scaling. Pair i uses exponent 2i / rotary_dim (HF's convention: dim = rotary_dim, i.e. for partial
/// rotary the rotary dimension, not head_dim). Requires rotary_dim even and >= 2 and theta finite and > 1
/// ([`Error::InvalidArgument`] naming `rotary_dim` or `theta` otherwise), and the checks of
/// [`Scaling::validate`].
pub fn inverse_frequencies(theta: f64, rotary_dim: u32, scaling: &Scaling) -> Result<Vec<f64>> {
    if rotary_dim < 2 || !rotary_dim.is_multiple_of(2) {
        return Err(invalid("rotary_dim", format!("must be even and >= 2, not {rotary_dim}")));
    }
    if !(theta.is_finite() && theta > 1.0) {
        return Err(invalid("theta", format!("must be finite and > 1, not {theta}")));
    }
    scaling.validate()?;
    let d = f64::from(rotary_dim);
    let table = match *scaling {
        Scaling::None => plain(theta, rotary_dim),
        Scaling::Linear { factor } => plain(theta, rotary_dim).into_iter().map(|f| f / factor).collect(),
        Scaling::DynamicNtk { factor, original_max_position, seq_len } => {
            // With rotary_dim 2 the only pair has exponent 0, so the base does not matter.
            if seq_len > original_max_position && rotary_dim > 2 {
                let ratio = f64::from(seq_len) / f64::from(original_max_position);
                let base = theta * (factor * ratio - (factor - 1.0)).powf(d / (d - 2.0));
                plain(base, rotary_dim)
            } else {
                plain(theta, rotary_dim)
            }
        }
        Scaling::Yarn { factor, original_max_position, beta_fast, beta_slow, .. } => {
            let orig = f64::from(original_max_position);
            // Pair index whose wavelength fits `rotations` times into the original context.
            let correction = |rotations: f64| d * (orig / (rotations * 2.0 * PI)).ln() / (2.0 * theta.ln());
            let low = correction(beta_fast).floor().max(0.0);
            let mut high = correction(beta_slow).ceil().min(d - 1.0);
            if low == high {
                high += 0.001;
            }
            let extrapolated = plain(theta, rotary_dim);
            extrapolated
                .iter()
                .enumerate()
                .map(|(j, &extrapolation)| {
                    let ramp = ((j as f64 - low) / (high - low)).clamp(0.0, 1.0);
                    let keep = 1.0 - ramp;
                    extrapolation / factor * (1.0 - keep) + extrapolation * keep
                })
                .collect()
        }
        Scaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position } => {
            let orig = f64::from(original_max_position);
            let low_wavelen = orig / low_freq_factor;
            let high_wavelen = orig / high_freq_factor;
            let scale = |f: f64| {
                let wavelen = 2.0 * PI / f;
                if wavelen < high_wavelen {
                    f
                } else if wavelen > low_wavelen {
                    f / factor
                } else {
                    let smooth = (orig / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
                    (1.0 - smooth) * f / factor + smooth * f
                }
            };
            plain(theta, rotary_dim).into_iter().map(scale).collect()
        }
    };
    Ok(table)
}

/// One pair's rate in turns per position, g = inv_freq / (2π), split into two f32 values with hi = g as f32
/// and lo = (g - hi as f64) as f32, so that hi + lo carries about 48 bits of g.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnRate {
    /// g rounded to f32.
    pub hi: f32,
    /// The remainder g - hi, rounded to f32.
    pub lo: f32,
}

impl TurnRate {
    /// Splits inv_freq / (2π) (computed in f64).
    pub fn from_inverse_frequency(inv_freq: f64) -> TurnRate {
        let g = inv_freq / (2.0 * PI);
        let hi = g as f32;
        TurnRate { hi, lo: (g - f64::from(hi)) as f32 }
    }
}

/// The table the kernel reads: for each pair i, [hi_i, lo_i] flattened (length 2 * pairs), from
/// inverse_frequencies.
pub fn turn_table(inverse_frequencies: &[f64]) -> Vec<f32> {
    inverse_frequencies
        .iter()
        .flat_map(|&f| {
            let t = TurnRate::from_inverse_frequency(f);
            [t.hi, t.lo]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-13 * b.abs().max(a.abs())
    }

    fn all_close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| close(x, y))
    }

    #[test]
    fn plain_and_linear() {
        let f = inverse_frequencies(10000.0, 8, &Scaling::None).unwrap();
        assert!(all_close(&f, &[1.0, 0.1, 0.01, 0.001]), "{f:?}");
        let l = inverse_frequencies(10000.0, 8, &Scaling::Linear { factor: 2.0 }).unwrap();
        assert!(all_close(&l, &[0.5, 0.05, 0.005, 0.0005]), "{l:?}");
    }

    #[test]
    fn dynamic_ntk() {
        let plain = inverse_frequencies(10000.0, 64, &Scaling::None).unwrap();
        let short = Scaling::DynamicNtk { factor: 2.0, original_max_position: 2048, seq_len: 2048 };
        assert_eq!(inverse_frequencies(10000.0, 64, &short).unwrap(), plain);
        let long = Scaling::DynamicNtk { factor: 2.0, original_max_position: 2048, seq_len: 8192 };
        // (2 * 8192 / 2048 - 1)^(64 / 62) = 7^(32/31)
        let base = 10000.0 * (7.0f64.ln() * 32.0 / 31.0).exp();
        let want: Vec<f64> = (0..32).map(|i| base.powf(-(i as f64) / 32.0)).collect();
        let got = inverse_frequencies(10000.0, 64, &long).unwrap();
        assert!(all_close(&got, &want));
        assert!(got[31] < plain[31] && got[0] == 1.0);
        let two = inverse_frequencies(10000.0, 2, &long).unwrap();
        assert_eq!(two, vec![1.0]);
    }

    #[test]
    fn yarn() {
        let plain = inverse_frequencies(10000.0, 128, &Scaling::None).unwrap();
        let got = inverse_frequencies(10000.0, 128, &Scaling::yarn(4.0, 4096)).unwrap();
        // correction dims: beta_fast 32 -> ~20.9 (low 20), beta_slow 1 -> ~45.0 (high 46)
        for j in 0..=20 {
            assert!(close(got[j], plain[j]), "pair {j}");
        }
        for j in 47..64 {
            assert!(close(got[j], plain[j] / 4.0), "pair {j}");
        }
        assert!(got[33] < plain[33] && got[33] > plain[33] / 4.0);
        assert!(close(Scaling::yarn(4.0, 4096).attention_factor(), 0.1 * 4.0f64.ln() + 1.0));
        assert_eq!(Scaling::yarn(1.0, 4096).attention_factor(), 1.0);
        let explicit = Scaling::Yarn {
            factor: 4.0,
            original_max_position: 4096,
            beta_fast: 32.0,
            beta_slow: 1.0,
            attention_factor: Some(1.5),
        };
        assert_eq!(explicit.attention_factor(), 1.5);
        assert_eq!(Scaling::llama3().attention_factor(), 1.0);
    }

    #[test]
    fn llama3() {
        let plain = inverse_frequencies(500000.0, 128, &Scaling::None).unwrap();
        let got = inverse_frequencies(500000.0, 128, &Scaling::llama3()).unwrap();
        let (mut high, mut low, mut medium) = (0, 0, 0);
        for (i, (&p, &g)) in plain.iter().zip(&got).enumerate() {
            let wavelen = 2.0 * PI / p;
            if wavelen < 2048.0 {
                assert_eq!(g, p, "pair {i}");
                high += 1;
            } else if wavelen > 8192.0 {
                assert!(close(g, p / 8.0), "pair {i}");
                low += 1;
            } else {
                assert!(g > p / 8.0 && g < p, "pair {i}");
                medium += 1;
            }
        }
        assert!(high > 0 && low > 0 && medium > 0, "{high} {low} {medium}");
    }

    #[test]
    fn turn_rates() {
        let tolerance = 2f64.powi(-48);
        let mut x = 1e-9f64;
        while x < 10.0 {
            let t = TurnRate::from_inverse_frequency(x);
            let g = x / (2.0 * PI);
            assert_eq!(t.hi, g as f32);
            let err = (f64::from(t.hi) + f64::from(t.lo) - g).abs();
            assert!(err <= tolerance * g, "{x}: {err:e}");
            x *= 1.0137;
        }
        let f = [1.0, 0.1, 0.01];
        let table = turn_table(&f);
        assert_eq!(table.len(), 6);
        for (i, &v) in f.iter().enumerate() {
            let t = TurnRate::from_inverse_frequency(v);
            assert_eq!([table[2 * i], table[2 * i + 1]], [t.hi, t.lo]);
        }
    }

    #[test]
    fn validation_errors_name_the_field() {
        let yarn = |beta_fast, beta_slow, attention_factor| Scaling::Yarn {
            factor: 2.0,
            original_max_position: 4096,
            beta_fast,
            beta_slow,
            attention_factor,
        };
        let llama = |factor, low_freq_factor, high_freq_factor| Scaling::Llama3 {
            factor,
            low_freq_factor,
            high_freq_factor,
            original_max_position: 8192,
        };
        let dynamic =
            |factor, original_max_position| Scaling::DynamicNtk { factor, original_max_position, seq_len: 1 };
        // (theta, rotary_dim, scaling, the argument named, a piece of the reason)
        let cases: Vec<(f64, u32, Scaling, &str, &str)> = vec![
            (1e4, 8, Scaling::Linear { factor: 0.0 }, "scaling.factor", "linear"),
            (1e4, 8, Scaling::Linear { factor: -1.0 }, "scaling.factor", "must be finite and > 0, not -1"),
            (1e4, 8, Scaling::Linear { factor: f64::NAN }, "scaling.factor", "NaN"),
            (1e4, 7, Scaling::None, "rotary_dim", "7"),
            (1e4, 0, Scaling::None, "rotary_dim", "0"),
            (1.0, 8, Scaling::None, "theta", "> 1, not 1"),
            (f64::INFINITY, 8, Scaling::None, "theta", "inf"),
            (1e4, 8, dynamic(0.5, 2048), "scaling.factor", "dynamic"),
            (1e4, 8, dynamic(2.0, 0), "scaling.original_max_position", "dynamic"),
            (1e4, 8, Scaling::yarn(0.5, 4096), "scaling.factor", ">= 1"),
            (1e4, 8, Scaling::yarn(2.0, 0), "scaling.original_max_position", "yarn"),
            (1e4, 8, yarn(1.0, 32.0, None), "scaling.beta_fast", "must be > beta_slow, not 1 <= 32"),
            (1e4, 8, yarn(32.0, 0.0, None), "scaling.beta_slow", "> 0"),
            (1e4, 8, yarn(32.0, 1.0, Some(0.0)), "scaling.attention_factor", "normal f32"),
            (1e4, 8, yarn(32.0, 1.0, Some(-1.0)), "scaling.attention_factor", "not -1"),
            (1e4, 8, yarn(32.0, 1.0, Some(f64::NAN)), "scaling.attention_factor", "NaN"),
            // Positive in f64, but subnormal, 0 or ∞ as the f32 the kernels multiply by.
            (1e4, 8, yarn(32.0, 1.0, Some(1e-40)), "scaling.attention_factor", "1e-40"),
            (1e4, 8, yarn(32.0, 1.0, Some(1e-300)), "scaling.attention_factor", "normal f32"),
            (1e4, 8, yarn(32.0, 1.0, Some(1e39)), "scaling.attention_factor", "normal f32"),
            (1e4, 8, llama(8.0, 4.0, 1.0), "scaling.high_freq_factor", "must be > low_freq_factor"),
            (1e4, 8, llama(8.0, 0.0, 4.0), "scaling.low_freq_factor", "llama3"),
            (1e4, 8, llama(f64::NAN, 1.0, 4.0), "scaling.factor", "llama3"),
        ];
        for (theta, dim, scaling, field, reason_part) in cases {
            match inverse_frequencies(theta, dim, &scaling).unwrap_err() {
                Error::InvalidArgument { argument, reason } => {
                    assert_eq!(argument, field, "{scaling:?}: {reason}");
                    assert!(reason.contains(reason_part) && !reason.contains('\n'), "{scaling:?}: {reason}");
                }
                other => panic!("{scaling:?}: {other}"),
            }
        }
        // The smallest and largest normal f32 are accepted.
        for a in [f32::MIN_POSITIVE as f64, f32::MAX as f64] {
            assert!(yarn(32.0, 1.0, Some(a)).validate().is_ok(), "{a:e}");
        }
        assert!(Scaling::llama3().validate().is_ok() && Scaling::yarn(4.0, 4096).validate().is_ok());
    }
}
