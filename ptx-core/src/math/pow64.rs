//! f64 `powf`: `|x|^y = e^(y · ln|x|)` with `ln|x|` and the product carried as
//! double-doubles ([`super::dd`]). Near overflow `|y · ln|x||` reaches about 745, so the
//! logarithm must be good to about 2^-63 of itself for the exponent to err by less than
//! a quarter ulp of the result; one f64 `ln` (2^-53) would leave errors of hundreds of ulp.

use super::dd::{self, Dd};
use super::double::{scale_by_pow2, split_exponent, EXP_POLY, LN2_HI, LN2_LO, LOG2_E};
use super::{horner, pow_special_cases};
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::F64;

/// 2/3 as a double-double.
const TWO_THIRDS: [f64; 2] = [2.0 / 3.0, 3.700_743_415_417_188e-17];

/// `2/(2k+1)` for k = 2..=13: `ln m = 2s + (2/3)s³ + s⁵·Σ c_k s^(2k−4)`, `s = (m−1)/(m+1)`,
/// |s| <= 0.1716; the first term left out is below 2^-67 of `ln m`.
const LN_TAIL_POLY: [f64; 12] = {
    let mut c = [0.0; 12];
    let mut k = 0;
    while k < 12 {
        c[k] = 2.0 / (2 * k + 5) as f64;
        k += 1;
    }
    c
};

/// `ln x` as a double-double for a positive finite `x` (relative error about 2^-66).
pub(super) fn ln_dd(b: &mut KernelBuilder, x: Val<F64>) -> Dd {
    let (e, m) = split_exponent(b, x);
    // s = (m − 1)/(m + 1), with m + 1 kept exact as a double-double.
    let num = b.sub(m, 1.0f64);
    let den = dd::two_sum(b, m, Val::Imm(1.0));
    let s_hi = b.div(num, den.hi);
    let minus_s = b.neg(s_hi);
    let residual = b.fma(minus_s, den.hi, num);
    let residual = b.fma(minus_s, den.lo, residual);
    let s_lo = b.div(residual, den.hi);
    let s = Dd { hi: s_hi, lo: s_lo };
    // 2s + (2/3)s³ exactly enough, the rest of the series in plain f64.
    let s2 = dd::mul(b, s, s);
    let s3 = dd::mul(b, s2, s);
    let cubic = dd::mul(b, s3, Dd { hi: Val::Imm(TWO_THIRDS[0]), lo: Val::Imm(TWO_THIRDS[1]) });
    let s5 = b.mul(s3.hi, s2.hi);
    let series = horner(b, s2.hi, &LN_TAIL_POLY);
    let rest = b.mul(s5, series);
    let two_s = b.mul(s_hi, 2.0f64);
    let head = dd::fast_two_sum(b, two_s, cubic.hi);
    let lo = b.fma(s_lo, 2.0f64, head.lo);
    let lo = b.add(lo, cubic.lo);
    let lo = b.add(lo, rest);
    // + e·ln 2: e·LN2_HI is exact, e·LN2_LO joins the low part.
    let big = b.mul(e, LN2_HI);
    let sum = dd::two_sum(b, big, head.hi);
    let lo = b.add(sum.lo, lo);
    let lo = b.fma(e, LN2_LO, lo);
    dd::fast_two_sum(b, sum.hi, lo)
}

/// `e^(t.hi + t.lo)` as exp_f64 computes `e^t.hi` (Cody–Waite, degree-13 polynomial, exact
/// scaling), times `1 + t.lo`; `t.hi` is clamped to [−760, 720], beyond which the result
/// is ∞ or 0.
fn exp_dd(b: &mut KernelBuilder, t: Dd) -> Val<F64> {
    let h = b.max(t.hi, -760.0f64);
    let h = b.min(h, 720.0f64);
    let scaled = b.mul(h, LOG2_E);
    let n: Val<F64> = b.cvt(scaled, Some(CvtRound::Rni), false);
    let r = b.fma(n, -LN2_HI, h);
    let r = b.fma(n, -LN2_LO, r);
    let p = horner(b, r, &EXP_POLY);
    // Where t.hi was clamped (the result is 0 or ∞ anyway), its low part must not count.
    let unclamped = b.setp(Cmp::Eq, h, t.hi);
    let lo = b.selp(unclamped, t.lo, 0.0f64);
    let p = b.fma(p, lo, p);
    scale_by_pow2(b, p, n)
}

/// Accurate f64 `x.powf(y)`: `e^(y·ln|x|)` with the logarithm and the product as
/// double-doubles, so that the result stays within 1 ulp up to overflow and through the
/// subnormals (the tests measure it against the host's libm over random pairs spanning
/// the whole range). Special operands, signs and domain as Rust's `powf` (C99 `pow`): see
/// [`super::powf`].
pub fn powf_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>, y: impl Into<Val<F64>>) -> Val<F64> {
    let (x, y) = (x.into(), y.into());
    let ax = b.abs(x);
    let ln = ln_dd(b, ax);
    let t = dd::mul_f64(b, ln, y);
    let mag = exp_dd(b, t);
    pow_special_cases(b, x, y, mag)
}
