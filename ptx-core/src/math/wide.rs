//! f32 routines evaluated in f64 and rounded once: `cbrt`, `exp_m1`, `ln_1p`, `log10`,
//! `log`, `sinh`, `cosh`, `hypot`. Every f32 is exact in f64, and the f64 building blocks of [`super::pow`]
//! err by less than 2^-45 relative, so the final rounding dominates: each result is within
//! 1 ulp (the tests scan the whole f32 range). Special values are Rust's (C99's): signs of
//! zero kept, infinities and NaN as `f32::cbrt` and friends give them, the canonical NaN
//! for a NaN result. The f64 arithmetic is fast on data-centre GPUs and slow (1/32 or 1/64
//! rate) on consumer ones.

use super::double::log_special_cases;
use super::pow::{exp2_wide, log2_wide};
use super::{horner, NAN};
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{F32, F64};

/// log2 e, for `e^x = 2^(x · log2 e)`.
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2.
const LN_2: f64 = std::f64::consts::LN_2;
/// log10 2.
const LOG10_2: f64 = std::f64::consts::LOG10_2;

/// Taylor coefficients of `(e^x − 1 − x)/x²`: `1/(k+2)!`, for |x| < 1/2 (truncation below
/// 2^-55 through x^17).
pub(super) const EXPM1_POLY: [f64; 16] = {
    let mut c = [0.0; 16];
    let mut fact = 2.0;
    let mut k = 0;
    while k < 16 {
        c[k] = 1.0 / fact;
        fact *= (k + 3) as f64;
        k += 1;
    }
    c
};

/// Taylor coefficients of `(sinh x − x)/x³` in x²: `1/(2k+3)!`, for |x| < 1 (truncation
/// below 2^-60 through x^21).
pub(super) const SINH_POLY: [f64; 10] = {
    let mut c = [0.0; 10];
    let mut fact = 6.0;
    let mut k = 0;
    while k < 10 {
        c[k] = 1.0 / fact;
        fact *= ((2 * k + 4) * (2 * k + 5)) as f64;
        k += 1;
    }
    c
};

/// Rounds an f64 result to f32, the canonical NaN where `x` is NaN.
pub(super) fn finish(b: &mut KernelBuilder, x: Val<F32>, r: Val<F64>) -> Val<F32> {
    let r: Val<F32> = b.cvt(r, Some(CvtRound::Rn), false);
    let nan = b.setp(Cmp::Nan, x, x);
    b.selp(nan, NAN, r)
}

/// `e^|x|` in f64.
fn exp_wide(b: &mut KernelBuilder, xd: Val<F64>) -> Val<F64> {
    let t = b.mul(xd, LOG2_E);
    exp2_wide(b, t)
}

/// `e^x − 1` in f64: the Taylor series below 1/2 in magnitude (where `e^x − 1` would
/// cancel), `e^x − 1` beyond.
fn exp_m1_wide(b: &mut KernelBuilder, xd: Val<F64>) -> Val<F64> {
    let p = horner(b, xd, &EXPM1_POLY);
    let x2 = b.mul(xd, xd);
    let small = b.fma(x2, p, xd);
    let e = exp_wide(b, xd);
    let large = b.sub(e, 1.0f64);
    let ax = b.abs(xd);
    let is_small = b.setp(Cmp::Lt, ax, 0.5f64);
    b.selp(is_small, small, large)
}

/// The real cube root: `cbrt(−x) = −cbrt(x)`, ±0 and ±∞ kept.
pub fn cbrt(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let ax = b.abs(x);
    let xd = b.cast::<F64, F32>(ax);
    let l = log2_wide(b, xd);
    let third = b.mul(l, 1.0f64 / 3.0);
    let r = exp2_wide(b, third);
    let neg = b.neg(r);
    let negative = b.setp(Cmp::Lt, x, 0.0f32);
    let r = b.selp(negative, neg, r);
    let r = finish(b, x, r);
    // ±0 and ±∞ are their own cube roots.
    let zero = b.setp(Cmp::Eq, ax, 0.0f32);
    let inf = b.setp(Cmp::Eq, ax, f32::INFINITY);
    let own = b.or(zero, inf);
    b.selp(own, x, r)
}

/// `e^x − 1`, accurate near 0 (where `x.exp() − 1.0` cancels); `exp_m1(−0) = −0`.
pub fn exp_m1(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xd = b.cast::<F64, F32>(x);
    let r = exp_m1_wide(b, xd);
    let r = finish(b, x, r);
    let zero = b.setp(Cmp::Eq, x, 0.0f32);
    b.selp(zero, x, r)
}

/// `ln(1 + x)`, accurate near 0: with `u = 1 + x` rounded in f64, `ln u · x / (u − 1)`
/// cancels the rounding of `u` (and is `x` where `u` rounds to 1). −1 gives −∞, below −1
/// NaN, `ln_1p(−0) = −0`.
pub fn ln_1p(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xd = b.cast::<F64, F32>(x);
    let u = b.add(xd, 1.0f64);
    let l = log2_wide(b, u);
    let ln_u = b.mul(l, LN_2);
    let d = b.sub(u, 1.0f64);
    let q = b.div(xd, d);
    let r = b.mul(ln_u, q);
    let exact_one = b.setp(Cmp::Eq, u, 1.0f64);
    let r = b.selp(exact_one, xd, r);
    let r = finish(b, x, r);
    let r = b.selp(exact_one, x, r);
    let minus_one = b.setp(Cmp::Eq, x, -1.0f32);
    let r = b.selp(minus_one, f32::NEG_INFINITY, r);
    let below = b.setp(Cmp::Lt, x, -1.0f32);
    let r = b.selp(below, NAN, r);
    let inf = b.setp(Cmp::Eq, x, f32::INFINITY);
    b.selp(inf, f32::INFINITY, r)
}

/// `log2 x` in f64 for any f32 `x`, with ln's special cases: −∞ at ±0, +∞ at +∞, NaN below
/// 0 and for NaN.
fn log2_wide_of(b: &mut KernelBuilder, x: Val<F32>) -> Val<F64> {
    let xd = b.cast::<F64, F32>(x);
    let l = log2_wide(b, xd);
    log_special_cases(b, xd, l)
}

/// Base-10 logarithm: `log2 x · log10 2` in f64, rounded once (within 1 ulp; exact at the
/// powers of ten f32 holds, 1 to 1e10); −∞ at ±0, NaN below 0.
pub fn log10(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let l = log2_wide_of(b, x);
    let r = b.mul(l, LOG10_2);
    finish(b, x, r)
}

/// `x.log(base)` as Rust defines it, `x.ln() / base.ln()`, as the quotient of the two
/// logarithms in f64 rounded once (within 1 ulp of the exact quotient); the special values
/// of that quotient (base 1 gives ±∞ or NaN), the canonical NaN for a NaN result.
pub fn log(b: &mut KernelBuilder, x: impl Into<Val<F32>>, base: impl Into<Val<F32>>) -> Val<F32> {
    let (x, base) = (x.into(), base.into());
    let lx = log2_wide_of(b, x);
    let lb = log2_wide_of(b, base);
    let q = b.div(lx, lb);
    let r: Val<F32> = b.cvt(q, Some(CvtRound::Rn), false);
    let nan = b.setp(Cmp::Nan, q, q);
    b.selp(nan, NAN, r)
}

/// Hyperbolic sine: the Taylor series below 1 in magnitude, `(e^|x| − e^−|x|)/2` with the
/// sign of `x` beyond; ±0 and ±∞ kept.
pub fn sinh(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xd = b.cast::<F64, F32>(x);
    let x2 = b.mul(xd, xd);
    let p = horner(b, x2, &SINH_POLY);
    let x3 = b.mul(x2, xd);
    let small = b.fma(x3, p, xd);
    let ax = b.abs(xd);
    let e = exp_wide(b, ax);
    let inv = b.div(1.0f64, e);
    let diff = b.sub(e, inv);
    let half = b.mul(diff, 0.5f64);
    let neg = b.neg(half);
    let negative = b.setp(Cmp::Lt, xd, 0.0f64);
    let large = b.selp(negative, neg, half);
    let is_small = b.setp(Cmp::Lt, ax, 1.0f64);
    let r = b.selp(is_small, small, large);
    finish(b, x, r)
}

/// Hyperbolic cosine, `(e^|x| + e^−|x|)/2`; `cosh(±∞) = +∞`.
pub fn cosh(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xd = b.cast::<F64, F32>(x);
    let ax = b.abs(xd);
    let e = exp_wide(b, ax);
    let inv = b.div(1.0f64, e);
    let sum = b.add(e, inv);
    let r = b.mul(sum, 0.5f64);
    finish(b, x, r)
}

/// `sqrt(x² + y²)` without overflow or underflow in between (the squares of f32 values
/// are exact in f64); an infinite operand gives +∞ even when the other is NaN.
pub fn hypot(b: &mut KernelBuilder, x: impl Into<Val<F32>>, y: impl Into<Val<F32>>) -> Val<F32> {
    let (x, y) = (x.into(), y.into());
    let xd = b.cast::<F64, F32>(x);
    let yd = b.cast::<F64, F32>(y);
    let y2 = b.mul(yd, yd);
    let sum = b.fma(xd, xd, y2);
    let r = b.sqrt(sum);
    let r: Val<F32> = b.cvt(r, Some(CvtRound::Rn), false);
    let unordered = b.setp(Cmp::Nan, x, y);
    let r = b.selp(unordered, NAN, r);
    let ax = b.abs(x);
    let ay = b.abs(y);
    let x_inf = b.setp(Cmp::Eq, ax, f32::INFINITY);
    let y_inf = b.setp(Cmp::Eq, ay, f32::INFINITY);
    let inf = b.or(x_inf, y_inf);
    b.selp(inf, f32::INFINITY, r)
}
