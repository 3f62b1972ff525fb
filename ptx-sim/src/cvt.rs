//! PTX `cvt` on raw register bits, for every type pair and rounding mode the decoder accepts.
//!
//! Integer<->integer and float->integer reuse [`ptx_core::eval`] (the same code the builder
//! folds constants with); float formats and integer->float go through [`crate::float`], so
//! every rounding mode gives IEEE-correct bits.

use ptx_core::eval;
use ptx_core::ir::{CvtRound, Imm};
use ptx_core::PtxType;

use crate::float::{self, Fmt, Rnd};

/// The binary format of a float type.
pub(crate) fn fmt_of(ty: PtxType) -> Option<Fmt> {
    match ty {
        PtxType::F16 => Some(float::F16),
        PtxType::Bf16 => Some(float::BF16),
        PtxType::F32 => Some(float::F32),
        PtxType::F64 => Some(float::F64),
        _ => None,
    }
}

/// The float rounding direction of a `cvt` modifier (integer-rounding modes map to their
/// direction too; callers decide which applies).
pub(crate) fn rnd_of(r: CvtRound) -> Rnd {
    match r {
        CvtRound::Rn | CvtRound::Rni => Rnd::Rn,
        CvtRound::Rz | CvtRound::Rzi => Rnd::Rz,
        CvtRound::Rm | CvtRound::Rmi => Rnd::Rm,
        CvtRound::Rp | CvtRound::Rpi => Rnd::Rp,
    }
}

fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Checks that a `cvt` form is one the simulator implements; the error says why not.
pub(crate) fn check(dst: PtxType, src: PtxType, round: Option<CvtRound>) -> Result<(), String> {
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
            Some(r) if !r.is_integer_rounding() && dst.bits() < src.bits() => Ok(()),
            None if dst.bits() > src.bits() => Ok(()),
            _ => Err(format!(
                "cvt{dst}{src}: narrowing needs .rn/.rz/.rm/.rp, widening no modifier, \
                 equal types .rni/.rzi/.rmi/.rpi"
            )),
        },
    }
}

/// `.sat` on a float result: clamp to [0.0, 1.0], NaN becomes +0.0 (as ptx-core folds it).
fn saturate_float(f: Fmt, bits: u64) -> u64 {
    let x = f64::from_bits(float::convert(f, float::F64, bits, Rnd::Rn));
    let c = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    float::convert(float::F64, f, c.to_bits(), Rnd::Rn)
}

/// Executes `cvt{.round}{.sat}.dst.src` on the register bits `a` (a form [`check`] accepts).
pub(crate) fn cvt(dst: PtxType, src: PtxType, round: Option<CvtRound>, sat: bool, a: u64) -> u64 {
    let a = a & width_mask(src.bits());
    match (fmt_of(dst), fmt_of(src)) {
        (None, None) => eval::cvt(dst, src, None, sat, Imm::new(src, a)).map(|i| i.bits).unwrap_or(0),
        (None, Some(sf)) => {
            let x = f64::from_bits(float::convert(sf, float::F64, a, Rnd::Rn));
            eval::float_to_int(dst, x, round.unwrap_or(CvtRound::Rzi))
        }
        (Some(df), None) => {
            let mode = rnd_of(round.unwrap_or(CvtRound::Rn));
            let (neg, mag) = if src.is_signed() {
                let v = eval::sign_extend(a, src.bits());
                (v < 0, v.unsigned_abs())
            } else {
                (false, a)
            };
            let r = float::from_int(neg, mag, df, mode);
            if sat {
                saturate_float(df, r)
            } else {
                r
            }
        }
        (Some(df), Some(sf)) => {
            let r = match round {
                Some(r) if r.is_integer_rounding() => {
                    if float::is_nan(sf, a) {
                        df.nan()
                    } else {
                        let x = f64::from_bits(float::convert(sf, float::F64, a, Rnd::Rn));
                        let y = eval::round_integral(x, r);
                        float::convert(float::F64, df, y.to_bits(), Rnd::Rn)
                    }
                }
                _ => float::convert(sf, df, a, rnd_of(round.unwrap_or(CvtRound::Rn))),
            };
            if sat {
                saturate_float(df, r)
            } else {
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::float::Step;

    #[test]
    fn conversions() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(
            cvt(PtxType::S32, PtxType::F32, Some(CvtRound::Rni), false, f(-2.5)),
            (-2i32) as u32 as u64
        );
        assert_eq!(cvt(PtxType::U16, PtxType::F32, Some(CvtRound::Rzi), false, f(1e9)), 0xffff);
        assert_eq!(cvt(PtxType::S64, PtxType::S16, None, false, 0x8000), (-32768i64) as u64);
        assert_eq!(cvt(PtxType::U16, PtxType::S32, None, true, (-5i32) as u32 as u64), 0);
        assert_eq!(cvt(PtxType::F32, PtxType::U64, Some(CvtRound::Rz), false, u64::MAX), f(1.8446743e19));
        assert_eq!(cvt(PtxType::F32, PtxType::U64, Some(CvtRound::Rp), false, u64::MAX), f(1.8446744e19));
        assert_eq!(cvt(PtxType::F32, PtxType::S32, Some(CvtRound::Rn), true, 7), f(1.0));
        assert_eq!(cvt(PtxType::F32, PtxType::F32, Some(CvtRound::Rmi), false, f(-0.5)), f(-1.0));
        assert_eq!(cvt(PtxType::F32, PtxType::F32, Some(CvtRound::Rzi), false, f(-0.5)), f(-0.0));
        assert_eq!(cvt(PtxType::F64, PtxType::F32, None, false, f(0.1)), (0.1f32 as f64).to_bits());
        assert_eq!(
            cvt(PtxType::F32, PtxType::F64, Some(CvtRound::Rm), false, 0.1f64.to_bits()),
            f(0.1f32.step_down())
        );
        assert_eq!(cvt(PtxType::F32, PtxType::F64, Some(CvtRound::Rp), false, 0.1f64.to_bits()), f(0.1));
        assert_eq!(cvt(PtxType::F16, PtxType::F32, Some(CvtRound::Rn), false, f(0.5)), 0x3800);
        assert_eq!(cvt(PtxType::F32, PtxType::F16, None, false, 0x3800), f(0.5));
        assert!(check(PtxType::F32, PtxType::F32, None).is_err());
        assert!(check(PtxType::U32, PtxType::F32, Some(CvtRound::Rn)).is_err());
    }
}
