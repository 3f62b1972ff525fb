//! PTX `cvt` on raw bits, for every type pair and rounding mode: the one conversion semantics
//! that the builder folds constants with and that `ptx-sim` executes. Integer<->integer
//! conversions truncate, extend or saturate; float->integer rounds, saturates and sends NaN
//! to 0; integer->float and float->float round through [`crate::softfloat`], so every
//! rounding mode gives IEEE-correct bits, f16 and bf16 included.

use crate::ir::{CvtRound, Imm};
use crate::softfloat::{self, Fmt, Rnd};
use crate::types::PtxType;

use super::{sign_extend, width_mask};

/// The binary format of a float type; `None` for the other types.
pub fn fmt_of(ty: PtxType) -> Option<Fmt> {
    match ty {
        PtxType::F16 => Some(softfloat::F16),
        PtxType::Bf16 => Some(softfloat::BF16),
        PtxType::F32 => Some(softfloat::F32),
        PtxType::F64 => Some(softfloat::F64),
        _ => None,
    }
}

/// The float rounding direction of a `cvt` modifier (an integer-rounding mode maps to its
/// direction too; the form decides which applies).
pub fn rnd_of(r: CvtRound) -> Rnd {
    match r {
        CvtRound::Rn | CvtRound::Rni => Rnd::Rn,
        CvtRound::Rz | CvtRound::Rzi => Rnd::Rz,
        CvtRound::Rm | CvtRound::Rmi => Rnd::Rm,
        CvtRound::Rp | CvtRound::Rpi => Rnd::Rp,
    }
}

/// Checks that `cvt{round}.dst.src` is a form PTX defines (and [`cvt_bits`] evaluates); the
/// error says why not.
pub fn cvt_form(dst: PtxType, src: PtxType, round: Option<CvtRound>) -> Result<(), String> {
    let ok_type = |t: PtxType| t.is_int() || fmt_of(t).is_some();
    if !ok_type(dst) || !ok_type(src) {
        return Err(format!("cvt{dst}{src}: cvt needs typed integer or float operands"));
    }
    match (dst.is_float(), src.is_float()) {
        (false, false) => match round {
            None => Ok(()),
            Some(_) => Err(format!("cvt{dst}{src} takes no rounding modifier")),
        },
        (false, true) => match round {
            Some(r) if r.is_integer_rounding() => Ok(()),
            _ => Err(format!("cvt{dst}{src} needs .rni/.rzi/.rmi/.rpi")),
        },
        (true, false) => match round {
            Some(r) if !r.is_integer_rounding() => Ok(()),
            _ => Err(format!("cvt{dst}{src} needs .rn/.rz/.rm/.rp")),
        },
        (true, true) => match round {
            Some(r) if r.is_integer_rounding() && dst == src => Ok(()),
            // f16 and bf16 trade precision for range: each to the other rounds.
            Some(r)
                if !r.is_integer_rounding()
                    && (dst.bits() < src.bits() || dst != src && dst.bits() == src.bits()) =>
            {
                Ok(())
            }
            None if dst.bits() > src.bits() => Ok(()),
            _ => Err(format!(
                "cvt{dst}{src}: narrowing (and between .f16 and .bf16) needs .rn/.rz/.rm/.rp, widening no \
                 modifier, equal types .rni/.rzi/.rmi/.rpi"
            )),
        },
    }
}

/// Rounds `x` to an integral value with an integer-rounding mode.
pub fn round_integral(x: f64, round: CvtRound) -> f64 {
    match round {
        CvtRound::Rni => x.round_ties_even(),
        CvtRound::Rzi => x.trunc(),
        CvtRound::Rmi => x.floor(),
        CvtRound::Rpi => x.ceil(),
        CvtRound::Rn | CvtRound::Rz | CvtRound::Rm | CvtRound::Rp => x,
    }
}

/// Reads integer bits of type `ty` as an `i128` (exact for every integer type).
fn int_value(ty: PtxType, bits: u64) -> i128 {
    if ty.is_signed() {
        sign_extend(bits, ty.bits()) as i128
    } else {
        (bits & width_mask(ty.bits())) as i128
    }
}

/// Clamps an integer to the range of integer type `ty` and returns its bits.
fn saturate_int(ty: PtxType, v: i128) -> u64 {
    let bits = ty.bits();
    let (lo, hi) = if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    (v.clamp(lo, hi) as u64) & width_mask(bits)
}

/// Float-to-integer `cvt`: round with `round`, saturate to the destination range, NaN gives 0.
pub fn float_to_int(dst: PtxType, x: f64, round: CvtRound) -> u64 {
    if x.is_nan() {
        return 0;
    }
    // `as i128` is exact below 2^127 and saturates beyond, infinities included.
    saturate_int(dst, round_integral(x, round) as i128)
}

/// `.sat` on a float result: clamp to [+0.0, 1.0]; NaN and −0.0 become +0.0 (as an H200
/// gives it: `cvt.rni.sat.f64.f64` of −0.3 is +0.0).
fn saturate_float(f: Fmt, bits: u64) -> u64 {
    let x = f64::from_bits(softfloat::convert(f, softfloat::F64, bits, Rnd::Rn));
    let c = if x.is_nan() || x <= 0.0 { 0.0 } else { x.min(1.0) };
    softfloat::convert(softfloat::F64, f, c.to_bits(), Rnd::Rn)
}

/// Executes `cvt{.round}{.sat}.dst.src` on the bits `a` of a `src` value (a form
/// [`cvt_form`] accepts) and returns the bits of the `dst` value.
pub fn cvt_bits(dst: PtxType, src: PtxType, round: Option<CvtRound>, sat: bool, a: u64) -> u64 {
    let a = a & width_mask(src.bits());
    let sat_float = |f: Fmt, r: u64| if sat { saturate_float(f, r) } else { r };
    match (fmt_of(dst), fmt_of(src)) {
        (None, None) => {
            let v = int_value(src, a);
            if sat {
                saturate_int(dst, v)
            } else {
                (v as u64) & width_mask(dst.bits())
            }
        }
        (None, Some(sf)) => {
            let x = f64::from_bits(softfloat::convert(sf, softfloat::F64, a, Rnd::Rn));
            float_to_int(dst, x, round.unwrap_or(CvtRound::Rzi))
        }
        (Some(df), None) => {
            let mode = rnd_of(round.unwrap_or(CvtRound::Rn));
            let v = int_value(src, a);
            sat_float(df, softfloat::from_int(v < 0, v.unsigned_abs() as u64, df, mode))
        }
        (Some(df), Some(sf)) => {
            let r = match round {
                Some(r) if r.is_integer_rounding() => {
                    if softfloat::is_nan(sf, a) {
                        df.nan()
                    } else {
                        let x = f64::from_bits(softfloat::convert(sf, softfloat::F64, a, Rnd::Rn));
                        softfloat::convert(softfloat::F64, df, round_integral(x, r).to_bits(), Rnd::Rn)
                    }
                }
                _ => softfloat::convert(sf, df, a, rnd_of(round.unwrap_or(CvtRound::Rn))),
            };
            sat_float(df, r)
        }
    }
}

/// `cvt` on an immediate, folded with [`cvt_bits`]; `None` for a form PTX does not define
/// and for a half-precision result (PTX has no f16/bf16 immediates to hold it). A half
/// source folds: its value, widened as `cvt` widens it, is an immediate of the wider type.
pub fn cvt(dst: PtxType, src: PtxType, round: Option<CvtRound>, sat: bool, a: Imm) -> Option<Imm> {
    if matches!(dst, PtxType::F16 | PtxType::Bf16) || cvt_form(dst, src, round).is_err() {
        return None;
    }
    Some(Imm::new(dst, cvt_bits(dst, src, round, sat, a.bits)))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::softfloat::Step;

    #[test]
    fn conversions() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(
            cvt_bits(PtxType::S32, PtxType::F32, Some(CvtRound::Rni), false, f(-2.5)),
            (-2i32) as u32 as u64
        );
        assert_eq!(cvt_bits(PtxType::U16, PtxType::F32, Some(CvtRound::Rzi), false, f(1e9)), 0xffff);
        assert_eq!(cvt_bits(PtxType::S64, PtxType::S16, None, false, 0x8000), (-32768i64) as u64);
        assert_eq!(cvt_bits(PtxType::U16, PtxType::S32, None, true, (-5i32) as u32 as u64), 0);
        assert_eq!(
            cvt_bits(PtxType::F32, PtxType::U64, Some(CvtRound::Rz), false, u64::MAX),
            f(1.8446743e19)
        );
        assert_eq!(
            cvt_bits(PtxType::F32, PtxType::U64, Some(CvtRound::Rp), false, u64::MAX),
            f(1.8446744e19)
        );
        assert_eq!(cvt_bits(PtxType::F32, PtxType::S32, Some(CvtRound::Rn), true, 7), f(1.0));
        assert_eq!(cvt_bits(PtxType::F32, PtxType::F32, Some(CvtRound::Rmi), false, f(-0.5)), f(-1.0));
        assert_eq!(cvt_bits(PtxType::F32, PtxType::F32, Some(CvtRound::Rzi), false, f(-0.5)), f(-0.0));
        assert_eq!(cvt_bits(PtxType::F64, PtxType::F32, None, false, f(0.1)), (0.1f32 as f64).to_bits());
        assert_eq!(
            cvt_bits(PtxType::F32, PtxType::F64, Some(CvtRound::Rm), false, 0.1f64.to_bits()),
            f(0.1f32.step_down())
        );
        assert_eq!(cvt_bits(PtxType::F32, PtxType::F64, Some(CvtRound::Rp), false, 0.1f64.to_bits()), f(0.1));
        assert_eq!(cvt_bits(PtxType::F16, PtxType::F32, Some(CvtRound::Rn), false, f(0.5)), 0x3800);
        assert_eq!(cvt_bits(PtxType::F32, PtxType::F16, None, false, 0x3800), f(0.5));
        assert!(cvt_form(PtxType::F32, PtxType::F32, None).is_err());
        assert!(cvt_form(PtxType::Bf16, PtxType::F16, Some(CvtRound::Rz)).is_ok());
        assert!(cvt_form(PtxType::F16, PtxType::Bf16, None).is_err());
        // bf16 1 + 2^-7 (0x3f81) is f16 0x3c08 exactly; f16 1 + 2^-10 (0x3c01) rounds to
        // bf16 1.0 (0x3f80) to nearest and up to 1 + 2^-7 (0x3f81) toward +inf.
        assert_eq!(cvt_bits(PtxType::F16, PtxType::Bf16, Some(CvtRound::Rn), false, 0x3f81), 0x3c08);
        assert_eq!(cvt_bits(PtxType::Bf16, PtxType::F16, Some(CvtRound::Rn), false, 0x3c01), 0x3f80);
        assert_eq!(cvt_bits(PtxType::Bf16, PtxType::F16, Some(CvtRound::Rp), false, 0x3c01), 0x3f81);
        assert!(cvt_form(PtxType::U32, PtxType::F32, Some(CvtRound::Rn)).is_err());
    }
}
