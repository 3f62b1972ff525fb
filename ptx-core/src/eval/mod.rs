//! Exact host evaluation of PTX operations on immediates, as PTX defines them: integers wrap,
//! shifts clamp, float operations round to nearest even. The builder folds with it, so a
//! computation on constants gives the same bits at build time as on the GPU.
//!
//! Float operations go through [`crate::softfloat`], the simulator's own float semantics, so
//! folding and simulation cannot disagree. Every function returns `None` for a case it does
//! not fold (integer division by zero, an `.approx` instruction, whose hardware result is
//! only specified to within an error bound): the builder then emits the instruction.

mod convert;

pub use convert::{cvt, cvt_bits, cvt_form, float_to_int, fmt_of, rnd_of, round_integral};

use crate::ir::{BinaryOp, Cmp, FloatMode, Imm, UnaryOp};
use crate::softfloat::{self, Fmt, Rnd};
use crate::types::PtxType;

/// The canonical NaN PTX produces for f32 results.
pub const F32_CANONICAL_NAN: u32 = 0x7fff_ffff;
/// The canonical NaN PTX produces for f64 results.
pub const F64_CANONICAL_NAN: u64 = 0x7fff_ffff_ffff_ffff;

/// Sign-extends the low `bits` bits of `v`.
pub fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

pub(crate) fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The soft-float format of an f32 or f64 type.
fn float_fmt(ty: PtxType) -> Option<Fmt> {
    match ty {
        PtxType::F32 => Some(softfloat::F32),
        PtxType::F64 => Some(softfloat::F64),
        _ => None,
    }
}

/// The rounding direction of a float instruction's mode; `None` for `.approx` and `.full`,
/// which are not folded.
fn rnd_of_mode(mode: Option<FloatMode>) -> Option<Rnd> {
    match mode? {
        FloatMode::Rn => Some(Rnd::Rn),
        FloatMode::Rz => Some(Rnd::Rz),
        FloatMode::Rm => Some(Rnd::Rm),
        FloatMode::Rp => Some(Rnd::Rp),
        FloatMode::Approx | FloatMode::Full => None,
    }
}

/// The value of an f32 or f64 immediate, widened to f64 (exact).
fn float_value(i: Imm) -> f64 {
    match i.ty {
        PtxType::F32 => f32::from_bits(i.bits as u32) as f64,
        _ => f64::from_bits(i.bits),
    }
}

/// PTX `min`/`max` on floats: a NaN operand yields the other operand, two NaNs the canonical
/// NaN, and -0.0 orders below +0.0.
pub fn float_min_max(is_max: bool, a: f64, b: f64) -> Option<f64> {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => None,
        (true, false) => Some(b),
        (false, true) => Some(a),
        (false, false) => {
            let a_first = if a == b { a.is_sign_negative() } else { a < b };
            Some(if a_first != is_max { a } else { b })
        }
    }
}

/// Evaluates a one-operand instruction on an immediate.
pub fn unary(op: UnaryOp, ty: PtxType, mode: Option<FloatMode>, a: Imm) -> Option<Imm> {
    let mask = width_mask(ty.bits());
    match (ty, op) {
        (PtxType::F32 | PtxType::F64, _) => {
            let f = float_fmt(ty)?;
            let bits = match (op, mode) {
                (UnaryOp::Neg, None) => softfloat::neg(f, a.bits),
                (UnaryOp::Abs, None) => softfloat::abs(f, a.bits),
                (UnaryOp::Sqrt, m) => softfloat::sqrt(f, a.bits, rnd_of_mode(m)?),
                (UnaryOp::Rcp, m) => softfloat::rcp(f, a.bits, rnd_of_mode(m)?),
                _ => return None,
            };
            Some(Imm::new(ty, bits))
        }
        (PtxType::Pred, UnaryOp::Not) => Some(Imm::new(ty, a.bits ^ 1)),
        (_, UnaryOp::Not) if !ty.is_float() => Some(Imm::new(ty, !a.bits & mask)),
        (_, UnaryOp::Neg) if ty.is_int() => Some(Imm::new(ty, a.bits.wrapping_neg() & mask)),
        (_, UnaryOp::Abs) if ty.is_signed() => {
            Some(Imm::new(ty, sign_extend(a.bits, ty.bits()).unsigned_abs() & mask))
        }
        _ => None,
    }
}

/// Evaluates a two-operand instruction on immediates (`b` is the shift amount for shifts).
pub fn binary(op: BinaryOp, ty: PtxType, mode: Option<FloatMode>, a: Imm, b: Imm) -> Option<Imm> {
    match ty {
        PtxType::F32 | PtxType::F64 => {
            let f = float_fmt(ty)?;
            let bits = match op {
                BinaryOp::Min | BinaryOp::Max if mode.is_none() => {
                    let r = float_min_max(op == BinaryOp::Max, float_value(a), float_value(b))
                        .unwrap_or(f64::NAN);
                    softfloat::convert(softfloat::F64, f, r.to_bits(), Rnd::Rn)
                }
                BinaryOp::Add => softfloat::add(f, a.bits, b.bits, rnd_of_mode(mode)?),
                BinaryOp::Sub => softfloat::sub(f, a.bits, b.bits, rnd_of_mode(mode)?),
                BinaryOp::Mul => softfloat::mul(f, a.bits, b.bits, rnd_of_mode(mode)?),
                BinaryOp::Div => softfloat::div(f, a.bits, b.bits, rnd_of_mode(mode)?),
                _ => return None,
            };
            Some(Imm::new(ty, bits))
        }
        PtxType::Pred => {
            let r = match op {
                BinaryOp::And => a.bits & b.bits,
                BinaryOp::Or => a.bits | b.bits,
                BinaryOp::Xor => a.bits ^ b.bits,
                _ => return None,
            };
            Some(Imm::new(ty, r))
        }
        _ if mode.is_none() && !ty.is_float() => int_binary(op, ty, a.bits, b.bits).map(|r| Imm::new(ty, r)),
        _ => None,
    }
}

/// Integer and bit-type binary operations on raw bits of width `ty.bits()`.
pub fn int_binary(op: BinaryOp, ty: PtxType, a: u64, b: u64) -> Option<u64> {
    let bits = ty.bits();
    let mask = width_mask(bits);
    // A shift amount is a .u32 whatever the type: it is not cut to the type's width.
    let b = if op.is_shift() { b & 0xffff_ffff } else { b & mask };
    let a = a & mask;
    let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
    let signed = ty.is_signed();
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::MulHi => {
            let wide = if signed { ((sa as i128) * (sb as i128)) as u128 } else { (a as u128) * (b as u128) };
            (wide >> bits) as u64
        }
        BinaryOp::Div | BinaryOp::Rem if b == 0 => return None,
        BinaryOp::Div | BinaryOp::Rem if signed && sb == -1 && sa == sign_extend(1 << (bits - 1), bits) => {
            return None
        }
        BinaryOp::Div if signed => (sa / sb) as u64,
        BinaryOp::Div => a / b,
        BinaryOp::Rem if signed => (sa % sb) as u64,
        BinaryOp::Rem => a % b,
        BinaryOp::Min if signed => sa.min(sb) as u64,
        BinaryOp::Min => a.min(b),
        BinaryOp::Max if signed => sa.max(sb) as u64,
        BinaryOp::Max => a.max(b),
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl => {
            let amount = b & 0xffff_ffff;
            if amount >= bits as u64 {
                0
            } else {
                a << amount
            }
        }
        BinaryOp::Shr => {
            let amount = b & 0xffff_ffff;
            if signed {
                (sa >> amount.min(63)) as u64
            } else if amount >= bits as u64 {
                0
            } else {
                a >> amount
            }
        }
    };
    Some(r & mask)
}

/// `mul.wide`: the full product of two `ty` values (16 or 32 bits) as a value twice as wide.
pub fn mul_wide(ty: PtxType, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let r = if ty.is_signed() {
        (sign_extend(a, bits) * sign_extend(b, bits)) as u64
    } else {
        (a & width_mask(bits)) * (b & width_mask(bits))
    };
    r & width_mask(bits * 2)
}

/// `fma` on immediates (f32 or f64), with any IEEE rounding mode.
pub fn fma(ty: PtxType, mode: FloatMode, a: Imm, b: Imm, c: Imm) -> Option<Imm> {
    let bits = softfloat::fma(float_fmt(ty)?, a.bits, b.bits, c.bits, rnd_of_mode(Some(mode))?);
    Some(Imm::new(ty, bits))
}

/// `setp` on immediates.
pub fn compare(cmp: Cmp, ty: PtxType, a: Imm, b: Imm) -> Option<bool> {
    if ty.is_float() {
        float_fmt(ty)?;
        return Some(float_compare(cmp, float_value(a), float_value(b)));
    }
    let bits = ty.bits();
    let ord = if ty.is_signed() {
        sign_extend(a.bits, bits).cmp(&sign_extend(b.bits, bits))
    } else {
        (a.bits & width_mask(bits)).cmp(&(b.bits & width_mask(bits)))
    };
    ordering_satisfies(cmp, ord)
}

/// Whether `ord` (of `a` against `b`) satisfies the integer comparison `cmp`; `None` for
/// the float-only comparisons.
#[inline]
pub fn ordering_satisfies(cmp: Cmp, ord: std::cmp::Ordering) -> Option<bool> {
    use std::cmp::Ordering::*;
    Some(match cmp {
        Cmp::Eq => ord == Equal,
        Cmp::Ne => ord != Equal,
        Cmp::Lt => ord == Less,
        Cmp::Le => ord != Greater,
        Cmp::Gt => ord == Greater,
        Cmp::Ge => ord != Less,
        _ => return None,
    })
}

/// A float comparison with PTX's ordered/unordered semantics.
pub fn float_compare(cmp: Cmp, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => !unordered && x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
        Cmp::Equ => unordered || x == y,
        Cmp::Neu => x != y,
        Cmp::Ltu => unordered || x < y,
        Cmp::Leu => unordered || x <= y,
        Cmp::Gtu => unordered || x > y,
        Cmp::Geu => unordered || x >= y,
        Cmp::Num => !unordered,
        Cmp::Nan => unordered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::CvtRound;

    #[test]
    fn folded_nans_are_the_canonical_nan_the_gpu_produces() {
        let zero = Imm::new(PtxType::F32, 0);
        let r = binary(BinaryOp::Div, PtxType::F32, Some(FloatMode::Rn), zero, zero).unwrap();
        assert_eq!(r.bits, u64::from(F32_CANONICAL_NAN));
        let inf = Imm::new(PtxType::F64, f64::INFINITY.to_bits());
        let r = binary(BinaryOp::Sub, PtxType::F64, Some(FloatMode::Rn), inf, inf).unwrap();
        assert_eq!(r.bits, F64_CANONICAL_NAN);
    }

    fn u32i(v: u32) -> Imm {
        Imm::new(PtxType::U32, v as u64)
    }
    fn s32i(v: i32) -> Imm {
        Imm::new(PtxType::S32, v as u32 as u64)
    }

    #[test]
    fn integer_ops_wrap_and_clamp_like_ptx() {
        assert_eq!(binary(BinaryOp::Add, PtxType::U32, None, u32i(u32::MAX), u32i(2)), Some(u32i(1)));
        assert_eq!(binary(BinaryOp::Shl, PtxType::U32, None, u32i(1), u32i(40)), Some(u32i(0)));
        assert_eq!(binary(BinaryOp::Shr, PtxType::S32, None, s32i(-8), u32i(40)), Some(s32i(-1)));
        assert_eq!(binary(BinaryOp::MulHi, PtxType::U32, None, u32i(0x8000_0000), u32i(4)), Some(u32i(2)));
        assert_eq!(binary(BinaryOp::Div, PtxType::U32, None, u32i(1), u32i(0)), None);
        assert_eq!(binary(BinaryOp::Rem, PtxType::S32, None, s32i(-7), s32i(2)), Some(s32i(-1)));
        assert_eq!(mul_wide(PtxType::S32, (-3i32) as u32 as u64, 5), (-15i64) as u64);
        let u16i = |v: u16| Imm::new(PtxType::U16, v as u64);
        // The amount is a u32: 65537 shifts a 16-bit value out entirely.
        assert_eq!(int_binary(BinaryOp::Shl, PtxType::B16, 1, 0x1_0001), Some(0));
        assert_eq!(int_binary(BinaryOp::Shr, PtxType::S16, 0x8000, 0x1_0001), Some(0xffff));
        assert_eq!(binary(BinaryOp::Shl, PtxType::U16, None, u16i(3), u32i(1)), Some(u16i(6)));
    }

    #[test]
    fn float_min_max_follow_ptx() {
        assert_eq!(float_min_max(false, f64::NAN, 2.0), Some(2.0));
        assert!(float_min_max(false, 0.0, -0.0).unwrap().is_sign_negative());
        assert!(float_min_max(true, -0.0, 0.0).unwrap().is_sign_positive());
        assert_eq!(float_min_max(true, 1.0, 3.0), Some(3.0));
    }

    #[test]
    fn conversions_round_and_saturate() {
        let f = |v: f32| Imm::new(PtxType::F32, v.to_bits() as u64);
        assert_eq!(cvt(PtxType::S32, PtxType::F32, Some(CvtRound::Rni), false, f(2.5)), Some(s32i(2)));
        assert_eq!(cvt(PtxType::S32, PtxType::F32, Some(CvtRound::Rmi), false, f(-2.5)), Some(s32i(-3)));
        assert_eq!(cvt(PtxType::U32, PtxType::F32, Some(CvtRound::Rzi), false, f(-5.0)), Some(u32i(0)));
        assert_eq!(
            cvt(PtxType::U32, PtxType::F32, Some(CvtRound::Rzi), false, f(1e20)),
            Some(u32i(u32::MAX))
        );
        assert_eq!(cvt(PtxType::U32, PtxType::F32, Some(CvtRound::Rzi), false, f(f32::NAN)), Some(u32i(0)));
        // Just below 2^64 still fits a u64; 2^64 saturates.
        let near = 18_446_744_073_709_549_568.0f64; // 2^64 - 2048, the largest f64 below 2^64
        assert_eq!(float_to_int(PtxType::U64, near, CvtRound::Rzi), near as u64);
        assert_eq!(float_to_int(PtxType::U64, 2f64.powi(64), CvtRound::Rzi), u64::MAX);
        assert_eq!(float_to_int(PtxType::S64, -1e30, CvtRound::Rzi), i64::MIN as u64);
        assert_eq!(cvt(PtxType::U32, PtxType::S32, None, true, s32i(-4)), Some(u32i(0)));
        assert_eq!(cvt(PtxType::U32, PtxType::U32, None, false, u32i(9)), Some(u32i(9)));
        let nine = Imm::new(PtxType::F32, 9f32.to_bits() as u64);
        assert_eq!(cvt(PtxType::F32, PtxType::U32, Some(CvtRound::Rz), false, u32i(9)), Some(nine));
        assert_eq!(cvt(PtxType::F32, PtxType::U32, None, false, u32i(9)), None, "not a PTX form");
    }
}
