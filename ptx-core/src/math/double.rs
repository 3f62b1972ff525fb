//! Accurate f64 `exp`, `exp2`, `ln` and `log2`: an exact argument reduction (a power of two
//! split off, Cody–Waite with a two-part `ln 2`), a polynomial evaluated with `fma.rn`
//! (for the logarithms, the double-double series of [`super::explog64`]), and an exact
//! rescaling; only IEEE-exact operations, so folding a constant computes the GPU's bits.
//! Errors against correctly rounded references are measured in
//! `ptx-core/tests/math_f64.rs` and stated on each routine.

use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{F64, S64};

use super::dd;
use super::explog64::ln_dd;
use super::horner;

/// The NaN every routine returns for a NaN result (as the f32 routines do).
const NAN: f64 = f64::from_bits(crate::eval::F64_CANONICAL_NAN);

/// ln 2 with its low 32 significand bits cleared: `n · LN2_HI` is exact for |n| < 2^21.
pub(super) const LN2_HI: f64 = f64::from_bits(std::f64::consts::LN_2.to_bits() & 0xffff_ffff_0000_0000);
/// The rest of ln 2 to about 2^-85: the f64 constant's remainder plus its own rounding error.
pub(super) const LN2_LO: f64 = (std::f64::consts::LN_2 - LN2_HI) + 2.319_046_813_846_299_6e-17;
pub(super) const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// log2 e − LOG2_E, to about 2^-107.
const LOG2_E_LO: f64 = 2.035_527_374_093_103_3e-17;
/// log10 e − LOG10_E, to about 2^-107.
const LOG10_E_LO: f64 = 1.098_319_650_216_765e-17;

/// Taylor coefficients of e^r for |r| <= ln2/2 + ε, degree 13 (truncation < 2^-57).
pub(super) const EXP_POLY: [f64; 14] = {
    let mut c = [1.0f64; 14];
    let mut k = 1;
    while k < 14 {
        c[k] = c[k - 1] / k as f64;
        k += 1;
    }
    c
};

/// Taylor coefficients of 2^f = e^(f ln2) for |f| <= 1/2, degree 13 (truncation < 2^-57).
const EXP2_POLY: [f64; 14] = {
    let mut c = [1.0f64; 14];
    let mut k = 1;
    while k < 14 {
        c[k] = c[k - 1] * std::f64::consts::LN_2 / k as f64;
        k += 1;
    }
    c
};

/// NaN stays NaN (canonically).
fn keep_nan(b: &mut KernelBuilder, x: Val<F64>, r: Val<F64>) -> Val<F64> {
    let is_nan = b.setp(Cmp::Nan, x, x);
    b.selp(is_nan, NAN, r)
}

/// `p · 2^n` for an integral `n` in [-1100, 1100], rounding once: two exact scalings by
/// `2^(n/2)`-ish powers (each a normal f64), so a subnormal result rounds only at the last.
pub(super) fn scale_by_pow2(b: &mut KernelBuilder, p: Val<F64>, n: Val<F64>) -> Val<F64> {
    let ni: Val<S64> = b.cvt(n, Some(CvtRound::Rzi), false);
    let n1 = b.shr(ni, 1u32);
    let n2 = b.sub(ni, n1);
    let power = |b: &mut KernelBuilder, e: Val<S64>| -> Val<F64> {
        let biased = b.add(e, 1023i64);
        let bits = b.shl(biased, 52u32);
        b.bitcast(bits)
    };
    let s1 = power(b, n1);
    let s2 = power(b, n2);
    let p = b.mul(p, s1);
    b.mul(p, s2)
}

/// `2^t` for an f64 `t` within [-1100, 1100] (the callers clamp it): `t = n + f` with
/// `n = rint(t)` and `f` exact, the degree-13 polynomial for `2^f`, exact scaling.
pub(super) fn exp2_unclamped(b: &mut KernelBuilder, t: Val<F64>) -> Val<F64> {
    let n: Val<F64> = b.cvt(t, Some(CvtRound::Rni), false);
    let f = b.sub(t, n);
    let p = horner(b, f, &EXP2_POLY);
    scale_by_pow2(b, p, n)
}

/// Accurate e^x for f64: n = rint(x·log2 e), r = x − n·ln2 by two `fma`s (exact first
/// step), a degree-13 polynomial, exact scaling. Within 1 ulp of the host's libm over the
/// whole range (the tests scan it); +∞ above 709.78, 0 below −745.13 through the
/// subnormals; NaN gives NaN.
pub fn exp_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let xc = b.max(x, -760.0f64);
    let xc = b.min(xc, 720.0f64);
    let t = b.mul(xc, LOG2_E);
    let n: Val<F64> = b.cvt(t, Some(CvtRound::Rni), false);
    let r = b.fma(n, -LN2_HI, xc);
    let r = b.fma(n, -LN2_LO, r);
    let p = horner(b, r, &EXP_POLY);
    let result = scale_by_pow2(b, p, n);
    keep_nan(b, x, result)
}

/// Accurate 2^x for f64: x = n + f (n = rint(x), f exact), a degree-13 polynomial for 2^f,
/// exact scaling. Within 1 ulp of the host's libm over the whole range; +∞ from 1024, 0
/// below −1075; NaN gives NaN.
pub fn exp2_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let xc = b.max(x, -1100.0f64);
    let xc = b.min(xc, 1100.0f64);
    let result = exp2_unclamped(b, xc);
    keep_nan(b, x, result)
}

/// Splits a positive finite x into (e, m), x = m·2^e, m in [√½, √2), e as f64 (subnormal
/// inputs prescaled by 2^54).
pub(super) fn split_exponent(b: &mut KernelBuilder, x: Val<F64>) -> (Val<F64>, Val<F64>) {
    let tiny = b.setp(Cmp::Lt, x, f64::MIN_POSITIVE);
    let scaled = b.mul(x, 18_014_398_509_481_984.0f64);
    let xs = b.selp(tiny, scaled, x);
    let bias = b.selp(tiny, 1077i64, 1023i64);
    let bits: Val<S64> = b.bitcast(xs);
    let biased = b.shr(bits, 52u32);
    let mant_bits = b.and(bits, 0x000f_ffff_ffff_ffffi64);
    let mant_bits = b.or(mant_bits, 0x3ff0_0000_0000_0000i64);
    let m: Val<F64> = b.bitcast(mant_bits);
    let big = b.setp(Cmp::Gt, m, std::f64::consts::SQRT_2);
    let half_m = b.mul(m, 0.5f64);
    let m = b.selp(big, half_m, m);
    let biased_up = b.add(biased, 1i64);
    let biased = b.selp(big, biased_up, biased);
    let e = b.sub(biased, bias);
    let e: Val<F64> = b.cast(e);
    (e, m)
}

/// ln's special cases: ln(0) = −∞, ln(x<0) = NaN, ln(+∞) = +∞, NaN stays NaN.
pub(super) fn log_special_cases(b: &mut KernelBuilder, x: Val<F64>, r: Val<F64>) -> Val<F64> {
    let is_zero = b.setp(Cmp::Eq, x, 0.0f64);
    let r = b.selp(is_zero, f64::NEG_INFINITY, r);
    let is_inf = b.setp(Cmp::Eq, x, f64::INFINITY);
    let r = b.selp(is_inf, f64::INFINITY, r);
    let negative_or_nan = b.setp(Cmp::Ltu, x, 0.0f64);
    b.selp(negative_or_nan, NAN, r)
}

/// Accurate natural logarithm for f64: the double-double `ln x` of `math/explog64.rs`
/// (x = m·2^e, ln x = e·ln 2 + 2·atanh((m − 1)/(m + 1)), about 2^-66 relative) rounded
/// once: within 1 ulp of the exact value over every positive f64, subnormals included.
pub fn ln_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ln = ln_dd(b, x);
    let r = dd::round(b, ln);
    log_special_cases(b, x, r)
}

/// Accurate log2 for f64: the double-double `ln x` times log2 e (a double-double too),
/// rounded once: within 1 ulp of the exact value over every positive f64, and exact at
/// powers of two.
pub fn log2_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    scaled_ln_f64(b, x.into(), (LOG2_E, LOG2_E_LO))
}

/// Accurate log10 for f64: the double-double `ln x` times log10 e (a double-double too),
/// rounded once: within 1 ulp of the exact value over every positive f64, and exact at
/// the powers of ten that f64 holds.
pub fn log10_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    scaled_ln_f64(b, x.into(), (std::f64::consts::LOG10_E, LOG10_E_LO))
}

/// `ln x · c` for a double-double constant `c`, rounded once, with ln's special cases.
fn scaled_ln_f64(b: &mut KernelBuilder, x: Val<F64>, c: (f64, f64)) -> Val<F64> {
    let ln = ln_dd(b, x);
    let scaled = dd::mul(b, ln, dd::constant(c));
    let r = dd::round(b, scaled);
    log_special_cases(b, x, r)
}

/// `x.log(base)` for f64 as Rust defines it, `x.ln() / base.ln()`: each logarithm within 1
/// ulp, the quotient rounded once.
pub fn log_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>, base: impl Into<Val<F64>>) -> Val<F64> {
    let ln_x = ln_f64(b, x);
    let ln_base = ln_f64(b, base);
    b.div(ln_x, ln_base)
}
