//! f64 `exp_m1`, `ln_1p`, `sinh`, `cosh` and `tanh`, built on the double-double `e^x`
//! and `ln x` of [`super::explog64`], so that the differences these functions are made of
//! (`e^x − 1`, `e^x ± e^−x`) do not cancel the precision away. Each result is rounded once
//! from about 2^-55 relative: within 1 ulp (the tests measure it against correctly rounded
//! references). Special values are Rust's: signs of zero kept, `exp_m1(−∞) = −1`,
//! `ln_1p(−1) = −∞`, NaN below −1, the canonical NaN for a NaN.

use super::dd::{self, Dd};
use super::double::scale_by_pow2;
use super::explog64::{exp_parts, ln_dd};
use super::horner;
use super::wide::SINH_POLY;
use crate::builder::{KernelBuilder, Val};
use crate::ir::Cmp;
use crate::types::F64;

/// The NaN the routines return.
const NAN: f64 = f64::from_bits(crate::eval::F64_CANONICAL_NAN);

/// `2^k · (1 + m)` as a double-double (each part scaled exactly, barring over- and
/// underflow).
fn scaled_one_plus(b: &mut KernelBuilder, m: Dd, k: Val<F64>) -> Dd {
    let one = dd::fast_two_sum(b, Val::Imm(1.0), m.hi);
    let lo = b.add(one.lo, m.lo);
    Dd { hi: scale_by_pow2(b, one.hi, k), lo: scale_by_pow2(b, lo, k) }
}

/// `e^x − 1` as a double-double, for any `x` (clamped to [−760, 720], where the result
/// is −1 or ∞ already); NaN gives some value.
fn exp_m1_dd(b: &mut KernelBuilder, x: Val<F64>) -> Dd {
    let x = b.max(x, -760.0f64);
    let x = b.min(x, 720.0f64);
    let (n, m) = exp_parts(b, x);
    // n >= 0: 2^n · ((1 − 2^-n) + m), the bracket summed exactly enough, then scaled.
    let minus_n = b.neg(n);
    let inverse = scale_by_pow2(b, Val::Imm(-1.0), minus_n);
    let bracket = dd::fast_two_sum(b, Val::Imm(1.0), inverse);
    let bracket = dd::add(b, bracket, m);
    let up = Dd { hi: scale_by_pow2(b, bracket.hi, n), lo: scale_by_pow2(b, bracket.lo, n) };
    // n < 0: 2^n · (1 + m) − 1.
    let part = scaled_one_plus(b, m, n);
    let down = dd::add(b, dd::constant((-1.0, 0.0)), part);
    let non_negative = b.setp(Cmp::Ge, n, 0.0f64);
    dd::select(b, non_negative, up, down)
}

/// `r`, with `x` itself where `x` is ±0 and NaN where `x` is NaN.
fn keep_zero_and_nan(b: &mut KernelBuilder, x: Val<F64>, r: Val<F64>) -> Val<F64> {
    let zero = b.setp(Cmp::Eq, x, 0.0f64);
    let r = b.selp(zero, x, r);
    let nan = b.setp(Cmp::Nan, x, x);
    b.selp(nan, NAN, r)
}

/// `r` with the sign of `x` (`r` >= 0).
fn with_sign_of(b: &mut KernelBuilder, x: Val<F64>, r: Val<F64>) -> Val<F64> {
    let negative = b.setp(Cmp::Lt, x, 0.0f64);
    let minus = b.neg(r);
    b.selp(negative, minus, r)
}

/// Accurate f64 `e^x − 1` (no cancellation near 0); `exp_m1(±0) = ±0`, `exp_m1(−∞) = −1`,
/// `exp_m1(+∞) = +∞`, ∞ from about 709.78.
pub fn exp_m1_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let e = exp_m1_dd(b, x);
    let r = dd::round(b, e);
    keep_zero_and_nan(b, x, r)
}

/// Accurate f64 `ln(1 + x)`: `1 + x` as an exact double-double `u`, then
/// `ln(u.hi) + u.lo/u.hi` with the double-double logarithm. `ln_1p(±0) = ±0`,
/// `ln_1p(−1) = −∞`, NaN below −1, `ln_1p(+∞) = +∞`.
pub fn ln_1p_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let u = dd::two_sum(b, Val::Imm(1.0), x);
    let ln = ln_dd(b, u.hi);
    let correction = b.div(u.lo, u.hi);
    let lo = b.add(ln.lo, correction);
    let r = b.add(ln.hi, lo);
    let minus_one = b.setp(Cmp::Eq, x, -1.0f64);
    let r = b.selp(minus_one, f64::NEG_INFINITY, r);
    let below = b.setp(Cmp::Lt, x, -1.0f64);
    let r = b.selp(below, NAN, r);
    let inf = b.setp(Cmp::Eq, x, f64::INFINITY);
    let r = b.selp(inf, f64::INFINITY, r);
    keep_zero_and_nan(b, x, r)
}

/// `(e^|x|/2, e^−|x|/2)` as double-doubles, `|x|` clamped to 760.
fn half_exps(b: &mut KernelBuilder, ax: Val<F64>) -> (Dd, Dd) {
    let ax = b.min(ax, 760.0f64);
    let (n, m) = exp_parts(b, ax);
    let n = b.sub(n, 1.0f64);
    let up = scaled_one_plus(b, m, n);
    let minus_ax = b.neg(ax);
    let (n, m) = exp_parts(b, minus_ax);
    let n = b.sub(n, 1.0f64);
    let down = scaled_one_plus(b, m, n);
    (up, down)
}

/// `up + down` rounded, +∞ where `up` overflowed (the double-double sum would be NaN).
fn rounded_sum(b: &mut KernelBuilder, up: Dd, down: Dd) -> Val<F64> {
    let sum = dd::add(b, up, down);
    let r = dd::round(b, sum);
    let overflow = b.setp(Cmp::Eq, up.hi, f64::INFINITY);
    b.selp(overflow, f64::INFINITY, r)
}

/// Accurate f64 hyperbolic sine: the Taylor series below 1/2 in magnitude,
/// `e^|x|/2 − e^−|x|/2` as double-doubles beyond, with the sign of `x`; ±0 and ±∞ kept.
pub fn sinh_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let x2 = b.mul(x, x);
    let p = horner(b, x2, &SINH_POLY);
    let x3 = b.mul(x2, x);
    let small = b.fma(x3, p, x);
    let ax = b.abs(x);
    let (up, down) = half_exps(b, ax);
    let down = dd::neg(b, down);
    let large = rounded_sum(b, up, down);
    let large = with_sign_of(b, x, large);
    let is_small = b.setp(Cmp::Lt, ax, 0.5f64);
    let r = b.selp(is_small, small, large);
    keep_zero_and_nan(b, x, r)
}

/// Accurate f64 hyperbolic cosine, `e^|x|/2 + e^−|x|/2` as double-doubles (finite up to
/// about 710.48); `cosh(±∞) = +∞`.
pub fn cosh_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ax = b.abs(x);
    let (up, down) = half_exps(b, ax);
    let r = rounded_sum(b, up, down);
    let nan = b.setp(Cmp::Nan, x, x);
    b.selp(nan, NAN, r)
}

/// Accurate f64 hyperbolic tangent: `t/(t + 2)` with `t = e^(2|x|) − 1` as a
/// double-double, the sign of `x`; `tanh(±0) = ±0`, `tanh(±∞) = ±1`.
pub fn tanh_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ax = b.abs(x);
    let ax = b.min(ax, 40.0f64);
    let twice = b.mul(ax, 2.0f64);
    let t = exp_m1_dd(b, twice);
    let den = dd::add(b, t, dd::constant((2.0, 0.0)));
    let q = dd::div(b, t, den);
    let r = with_sign_of(b, x, q.hi);
    keep_zero_and_nan(b, x, r)
}
