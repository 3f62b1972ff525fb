//! Double-double `e^x` and `ln x` for the f64 routines that need more than f64 precision
//! inside: `powf` (whose exponent `y · ln x` reaches 745), and the hyperbolic functions and
//! `e^x − 1` / `ln(1 + x)` (whose differences would cancel an f64 `e^x` away).

use super::dd::{self, Dd};
use super::double::{split_exponent, LN2_HI, LN2_LO, LOG2_E};
use super::horner;
use super::wide::EXPM1_POLY;
use crate::builder::{KernelBuilder, Val};
use crate::ir::CvtRound;
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

/// `(n, m)` with `e^x = 2^n · (1 + m)`, `m` a double-double, for `x` in [−760, 720]:
/// `n = rint(x·log2 e)`, `r = x − n·ln 2` as a double-double (the product with ln 2's low
/// part exact by an `fma`), `m = r + r²·P(r) + r.lo·(1 + r)`.
pub(super) fn exp_parts(b: &mut KernelBuilder, x: Val<F64>) -> (Val<F64>, Dd) {
    let t = b.mul(x, LOG2_E);
    let n: Val<F64> = b.cvt(t, Some(CvtRound::Rni), false);
    let r = b.fma(n, -LN2_HI, x);
    let low = dd::two_prod(b, n, Val::Imm(LN2_LO));
    let minus_low = b.neg(low.hi);
    let r = dd::two_sum(b, r, minus_low);
    let r_lo = b.sub(r.lo, low.lo);
    let r = dd::fast_two_sum(b, r.hi, r_lo);
    let r2 = b.mul(r.hi, r.hi);
    let p = horner(b, r.hi, &EXPM1_POLY);
    let lo_term = b.fma(r.lo, r.hi, r.lo);
    let tail = b.fma(r2, p, lo_term);
    (n, dd::fast_two_sum(b, r.hi, tail))
}
