//! Accurate f32 math as instruction sequences: `sin`, `cos`, `sin_cos`, `exp`, `exp2`, `ln`,
//! `log2`, `powf`, `tanh`; [`tan`], [`atan`], [`atan2`], [`asin`], [`acos`], [`cbrt`],
//! [`exp_m1`], [`ln_1p`], [`sinh`], [`cosh`], [`hypot`] (evaluated in f64); the same in f64
//! (`*_f64`: [`sin_cos_f64`], [`powf_f64`], ...; double-double arithmetic inside where f64
//! alone would lose bits, each within 1 ulp of the exact value); and the exact float
//! remainder ([`rem_f32`], [`rem_f64`]).
//!
//! Each routine is written once against [`KernelBuilder`], using only operations whose
//! results PTX defines exactly (`fma.rn`, `mul.rn`, `div.rn`, `cvt` with rounding, integer and
//! bit operations, `setp`/`selp`). Because the builder folds constant operands with the same
//! semantics ([`crate::eval`]), calling a routine on an immediate computes, on the host, the
//! very bits the GPU computes: that is how the error bounds below are measured and tested.
//!
//! Every NaN result is the canonical NaN `0x7fffffff`, whatever the input's payload.
//!
//! The fast hardware forms (`sin.approx.f32` and friends) stay available under their own
//! names ([`sin_approx`], [`cos_approx`], [`ex2_approx`], [`lg2_approx`]); they are not the
//! default because their error grows quickly with |x| (`sin.approx` is specified only to
//! 2^-20.5 on [-π, π] and is best-effort beyond 100π).

mod dd;
mod double;
mod explog64;
mod hyper64;
mod inverse;
mod inverse64;
mod pow;
mod pow64;
mod reduce;
mod rem;
mod root64;
#[cfg(test)]
mod tests;
mod trig64;
mod wide;

pub use double::{exp2_f64, exp_f64, ln_f64, log10_f64, log2_f64, log_f64};
pub use hyper64::{cosh_f64, exp_m1_f64, ln_1p_f64, sinh_f64, tanh_f64};
pub use inverse::{acos, asin, atan, atan2, tan};
pub use inverse64::{acos_f64, asin_f64, atan2_f64, atan_f64};
pub use pow64::powf_f64;
pub use rem::{rem_f32, rem_f64};
pub use root64::{cbrt_f64, hypot_f64};
pub use trig64::{cos_f64, sin_cos_f64, sin_f64, tan_f64};
pub use wide::{cbrt, cosh, exp_m1, hypot, ln_1p, log, log10, sinh};

use crate::builder::SignedOrFloat;
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound, FloatMode, UnaryOp};
use crate::types::{FloatTy, F32, F64, S32, U32};

/// 2/π rounded to f32.
const TWO_OVER_PI: f32 = std::f64::consts::FRAC_2_PI as f32;
/// The low part of π/2 beyond f64 precision: π/2 = FRAC_PI_2 + PI_2_TAIL to ~107 bits.
const PI_2_TAIL: f64 = 6.123_233_995_736_766e-17;
/// π/2 split into three f32 parts for Cody–Waite reduction: C1 + C2 + C3 = π/2 to ~72 bits.
const PI_2_C1: f32 = std::f64::consts::FRAC_PI_2 as f32;
const PI_2_C2: f32 = ((std::f64::consts::FRAC_PI_2 - PI_2_C1 as f64) + PI_2_TAIL) as f32;
const PI_2_C3: f32 = (((std::f64::consts::FRAC_PI_2 - PI_2_C1 as f64) - PI_2_C2 as f64) + PI_2_TAIL) as f32;

/// Taylor coefficients of sin(r)/r - 1 in r², for |r| <= ~0.84: truncation error < 2^-40.
const SIN_POLY: [f32; 5] = [
    (-1.0 / 6.0) as f32,
    (1.0 / 120.0) as f32,
    (-1.0 / 5040.0) as f32,
    (1.0 / 362_880.0) as f32,
    (-1.0 / 39_916_800.0) as f32,
];
/// Taylor coefficients of (cos(r) - 1 + r²/2)/r⁴ in r².
const COS_POLY: [f32; 5] = [
    (1.0 / 24.0) as f32,
    (-1.0 / 720.0) as f32,
    (1.0 / 40_320.0) as f32,
    (-1.0 / 3_628_800.0) as f32,
    (1.0 / 479_001_600.0) as f32,
];

/// Evaluates `c[0] + t*(c[1] + t*(c[2] + ...))` with `fma.rn` (Horner's scheme), in f32 or
/// f64.
fn horner<T: FloatTy>(b: &mut KernelBuilder, t: Val<T>, c: &[T::Host]) -> Val<T> {
    let (last, rest) = c.split_last().expect("at least one coefficient");
    let mut acc: Val<T> = Val::Imm(*last);
    for &ci in rest.iter().rev() {
        acc = b.fma(acc, t, Val::Imm(ci));
    }
    acc
}

/// `sin(x)` and `cos(x)` together, sharing the argument reduction, for every f32.
///
/// Reduction to `r` in [-π/4, π/4] and a quadrant: for |x| < 2^19, k = rint(x·2/π) and
/// r = x − k·π/2 by three `fma`s against a 72-bit π/2 (the first is exact); for larger |x|
/// the Payne–Hanek reduction (2/π's bits as immediates, 64-bit integer
/// products; no memory), behind a branch taken only for such arguments. Then Taylor
/// polynomials of degree 11/12 on r and a quadrant swap/negate. Measured error against the
/// exact sine/cosine of the f32 input: at most 2 ulp over the whole f32 range (the tests
/// scan it); sin(±0) = ±0, cos(±0) = 1, and ±∞ and NaN give NaN.
pub fn sin_cos(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> (Val<F32>, Val<F32>) {
    let x = x.into();
    let ax = b.abs(x);
    let (r, q) = reduce_quadrant(b, x, ax);

    let r2 = b.mul(r, r);
    let r3 = b.mul(r2, r);
    let sp = horner(b, r2, &SIN_POLY);
    let s = b.fma(r3, sp, r);
    let cp = horner(b, r2, &COS_POLY);
    let cq = b.fma(cp, r2, -0.5f32);
    let c = b.fma(cq, r2, 1.0f32);

    let (sin, cos) = place_in_quadrant(b, q, s, c);
    // sin(±0) is ±0 (the reduction loses the sign of a zero).
    let zero = b.setp(Cmp::Eq, x, 0.0f32);
    let sin = b.selp(zero, x, sin);
    // ±∞ gives NaN. An argument with a finite proven bound is finite, and a NaN one gives
    // NaN without help (it reaches `r`, and from there both polynomials).
    if b.magnitude_bound(x).is_some_and(f32::is_finite) {
        return (sin, cos);
    }
    let not_finite = b.setp(Cmp::Geu, ax, f32::INFINITY);
    let sin = b.selp(not_finite, NAN, sin);
    let cos = b.selp(not_finite, NAN, cos);
    (sin, cos)
}

/// `(sin x, cos x)` from `s = sin r`, `c = cos r` for `x = q·π/2 + r`: odd quadrants swap
/// the two, and the signs follow the quadrant (f32 and f64 alike).
fn place_in_quadrant<T: FloatTy + SignedOrFloat>(
    b: &mut KernelBuilder,
    q: Val<U32>,
    s: Val<T>,
    c: Val<T>,
) -> (Val<T>, Val<T>) {
    let odd_bit = b.and(q, 1u32);
    let odd = b.setp(Cmp::Ne, odd_bit, 0u32);
    let sin_base = b.selp(odd, c, s);
    let cos_base = b.selp(odd, s, c);
    let sin_sign_bit = b.and(q, 2u32);
    let sin_negative = b.setp(Cmp::Ne, sin_sign_bit, 0u32);
    let q1 = b.add(q, 1u32);
    let cos_sign_bit = b.and(q1, 2u32);
    let cos_negative = b.setp(Cmp::Ne, cos_sign_bit, 0u32);
    let neg_sin = b.neg(sin_base);
    let neg_cos = b.neg(cos_base);
    let sin = b.selp(sin_negative, neg_sin, sin_base);
    let cos = b.selp(cos_negative, neg_cos, cos_base);
    (sin, cos)
}

/// `(r, q)` with `x ≈ q·π/2 + r (mod 2π)`, `|r| <= π/4`, `r` in f32: Cody–Waite below 2^19,
/// Payne–Hanek from there (behind a branch; a constant takes its path at build time, so
/// that it folds, and so does an argument the builder proves small, such as a fraction of a
/// turn times 2π: [`KernelBuilder::magnitude_bound`]).
fn reduce_quadrant(b: &mut KernelBuilder, x: Val<F32>, ax: Val<F32>) -> (Val<F32>, Val<U32>) {
    reduce_quadrant_with(b, x, ax, small_reduction, |b, x, ax| {
        let (r, q) = large_reduction(b, x, ax);
        (b.cvt(r, Some(CvtRound::Rn), false), q)
    })
}

/// [`reduce_quadrant`] with `r` in f64, accurate to far more than f32's precision: what
/// `tan` needs, whose error near its poles is the reduced argument's relative error.
fn reduce_quadrant_wide(b: &mut KernelBuilder, x: Val<F32>, ax: Val<F32>) -> (Val<F64>, Val<U32>) {
    reduce_quadrant_with(b, x, ax, small_reduction_wide, large_reduction)
}

/// A reduction for small |x|: `x` to `(r, q)`.
type SmallReduction<T> = fn(&mut KernelBuilder, Val<F32>) -> (Val<T>, Val<U32>);
/// A reduction for large |x|: `x` and `|x|` to `(r, q)`.
type LargeReduction<T> = fn(&mut KernelBuilder, Val<F32>, Val<F32>) -> (Val<T>, Val<U32>);

/// One of the two reductions for `x`, chosen by `|x|` (at build time when `x` is known or
/// proved small, else by a branch), with `r` in the precision `T` the reductions give.
fn reduce_quadrant_with<T: FloatTy>(
    b: &mut KernelBuilder,
    x: Val<F32>,
    ax: Val<F32>,
    small: SmallReduction<T>,
    large: LargeReduction<T>,
) -> (Val<T>, Val<U32>) {
    match x.as_imm() {
        Some(v) if v.abs() >= reduce::LARGE => large(b, x, ax),
        Some(_) => small(b, x),
        None if b.magnitude_bound(x).is_some_and(|m| m < reduce::LARGE) => small(b, x),
        None => {
            let r = b.reg::<T>();
            let q = b.reg::<U32>();
            let (is_large_path, join) = (b.label(), b.label());
            let is_large = b.setp(Cmp::Ge, ax, reduce::LARGE);
            b.bra_if(is_large, is_large_path);
            let (rs, qs) = small(b, x);
            b.assign(r, rs);
            b.assign(q, qs);
            b.bra(join);
            b.place(is_large_path);
            let (rl, ql) = large(b, x, ax);
            b.assign(r, rl);
            b.assign(q, ql);
            b.place(join);
            (Val::Reg(r), Val::Reg(q))
        }
    }
}

/// The reduction for |x| < 2^19: `(r, q)` by Cody–Waite against a 72-bit π/2.
fn small_reduction(b: &mut KernelBuilder, x: Val<F32>) -> (Val<F32>, Val<U32>) {
    let t = b.mul(x, TWO_OVER_PI);
    let k: Val<F32> = b.cvt(t, Some(CvtRound::Rni), false);
    let r = b.fma(k, -PI_2_C1, x);
    let r = b.fma(k, -PI_2_C2, r);
    let r = b.fma(k, -PI_2_C3, r);
    (r, quadrant(b, k))
}

/// `k mod 4` for a whole number `k` below 2^19 in magnitude (a NaN gives 0): two's
/// complement keeps `k`'s residue in its low bits.
fn quadrant<T: FloatTy>(b: &mut KernelBuilder, k: Val<T>) -> Val<U32> {
    let k: Val<S32> = b.cvt(k, Some(CvtRound::Rzi), false);
    let k = b.bitcast::<U32, S32>(k);
    b.and(k, 3u32)
}

/// π/2 split into two f64 parts for Cody–Waite reduction in f64: the first has 33
/// significant bits, so that `k·part` and `x − k·part` are exact for every |k| < 2^20; the
/// second is the rest, rounded to f64, so the two sum to π/2 within 2^-87.
const PI_2_D1: f64 = f64::from_bits(std::f64::consts::FRAC_PI_2.to_bits() & !0xf_ffff);
const PI_2_D2: f64 = (std::f64::consts::FRAC_PI_2 - PI_2_D1) + PI_2_TAIL;

/// The reduction for |x| < 2^19 in f64: `k = rint(x·2/π)`, then `r = x − k·π/2` by two
/// `fma`s against [`PI_2_D1`] (exact) and [`PI_2_D2`] (one rounding). `r` errs by at most
/// k·2^-87 plus half an f64 ulp: below 2^-44 of `r` for every f32 `x` (the f32 below 2^19
/// closest to a multiple of π/2 relative to its k, 267058.94 with k = 170 015, is
/// 3.4e-8 = 2.0e-13·k away from it).
fn small_reduction_wide(b: &mut KernelBuilder, x: Val<F32>) -> (Val<F64>, Val<U32>) {
    let xd = b.cast::<F64, F32>(x);
    let t = b.mul(xd, std::f64::consts::FRAC_2_PI);
    let k: Val<F64> = b.cvt(t, Some(CvtRound::Rni), false);
    let r = b.fma(k, -PI_2_D1, xd);
    let r = b.fma(k, -PI_2_D2, r);
    (r, quadrant(b, k))
}

/// The reduction for |x| ≥ 2^19 (Payne–Hanek on |x|), with the sign of `x` applied:
/// sin(−x) = −sin(x) and cos(−x) = cos(x), i.e. `r` negated and `q` to `−q mod 4`.
fn large_reduction(b: &mut KernelBuilder, x: Val<F32>, ax: Val<F32>) -> (Val<F64>, Val<U32>) {
    let bits = b.bitcast::<U32, F32>(ax);
    let (r, q) = reduce::reduce_large(b, bits);
    let negative = b.setp(Cmp::Lt, x, 0.0f32);
    let neg_r = b.neg(r);
    let r = b.selp(negative, neg_r, r);
    let neg_q = b.sub(4u32, q);
    let neg_q = b.and(neg_q, 3u32);
    let q = b.selp(negative, neg_q, q);
    (r, q)
}

/// Accurate `sin(x)`; see [`sin_cos`] for the algorithm and error bound.
pub fn sin(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    sin_cos(b, x).0
}

/// Accurate `cos(x)`; see [`sin_cos`] for the algorithm and error bound.
pub fn cos(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    sin_cos(b, x).1
}

/// Multiplies `p` by 2^n for an integer n in [-160, 130] (given as f32), in two exact steps
/// so that results in the subnormal range round once and large n overflow to infinity.
fn scale_by_pow2(b: &mut KernelBuilder, p: Val<F32>, n: Val<F32>) -> Val<F32> {
    let ni: Val<S32> = b.cvt(n, Some(CvtRound::Rzi), false);
    let n1 = b.shr(ni, 1u32);
    let n2 = b.sub(ni, n1);
    let e1 = b.add(n1, 127i32);
    let e1 = b.shl(e1, 23u32);
    let e2 = b.add(n2, 127i32);
    let e2 = b.shl(e2, 23u32);
    let s1: Val<F32> = b.bitcast(e1);
    let s2: Val<F32> = b.bitcast(e2);
    let p = b.mul(p, s1);
    b.mul(p, s2)
}

/// The NaN every routine returns for a NaN result: the canonical NaN (`0x7fffffff`), as
/// the GPU's own arithmetic produces (Rust leaves NaN payloads unspecified).
const NAN: f32 = f32::from_bits(crate::eval::F32_CANONICAL_NAN);

/// NaN stays NaN: `keep_nan(x, r)` is the canonical NaN when `x` is NaN, else `r`.
fn keep_nan(b: &mut KernelBuilder, x: Val<F32>, r: Val<F32>) -> Val<F32> {
    let is_nan = b.setp(Cmp::Nan, x, x);
    b.selp(is_nan, NAN, r)
}

/// Taylor coefficients of 2^f = e^(f·ln2) for |f| <= 1/2 (degree 7, truncation < 2^-27).
const EXP2_POLY: [f32; 8] = {
    const L: f64 = std::f64::consts::LN_2;
    [
        1.0,
        L as f32,
        (L * L / 2.0) as f32,
        (L * L * L / 6.0) as f32,
        (L * L * L * L / 24.0) as f32,
        (L * L * L * L * L / 120.0) as f32,
        (L * L * L * L * L * L / 720.0) as f32,
        (L * L * L * L * L * L * L / 5040.0) as f32,
    ]
};
/// Taylor coefficients of e^r for |r| <= ln2/2 (degree 7).
const EXP_POLY: [f32; 8] = [
    1.0,
    1.0,
    0.5,
    (1.0 / 6.0) as f32,
    (1.0 / 24.0) as f32,
    (1.0 / 120.0) as f32,
    (1.0 / 720.0) as f32,
    (1.0 / 5040.0) as f32,
];

/// Accurate 2^x: x = n + f with n = rint(x), a degree-7 polynomial for 2^f, exact scaling.
/// Max relative error <= 2 ulp (2^-22) over the whole range (tested); overflows to +∞
/// above 128, underflows through the subnormals to 0 below -149; NaN gives NaN.
pub fn exp2(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xc = b.max(x, -160.0f32);
    let xc = b.min(xc, 130.0f32);
    let n: Val<F32> = b.cvt(xc, Some(CvtRound::Rni), false);
    let f = b.sub(xc, n);
    let p = horner(b, f, &EXP2_POLY);
    let r = scale_by_pow2(b, p, n);
    keep_nan(b, x, r)
}

/// ln 2 split for Cody–Waite: LN2_HI has 16 significant bits so n·LN2_HI is exact.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
const LN2_LO: f32 = (std::f64::consts::LN_2 - LN2_HI as f64) as f32;
const LOG2_E: f32 = std::f64::consts::LOG2_E as f32;
const LOG2_E_LO: f32 = (std::f64::consts::LOG2_E - LOG2_E as f64) as f32;

/// Accurate e^x: n = rint(x·log2 e), r = x − n·ln2 by two `fma`s, degree-7 polynomial, exact
/// scaling. Max relative error <= 2 ulp (tested over the whole range); NaN gives NaN.
pub fn exp(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xc = b.max(x, -110.0f32);
    let xc = b.min(xc, 90.0f32);
    let t = b.mul(xc, LOG2_E);
    let n: Val<F32> = b.cvt(t, Some(CvtRound::Rni), false);
    let r = b.fma(n, -LN2_HI, xc);
    let r = b.fma(n, -LN2_LO, r);
    let p = horner(b, r, &EXP_POLY);
    let result = scale_by_pow2(b, p, n);
    keep_nan(b, x, result)
}

/// Splits a positive finite x into (e, m) with x = m·2^e, m in [√½, √2), e as f32; handles
/// subnormal inputs by prescaling with 2^23.
fn split_exponent(b: &mut KernelBuilder, x: Val<F32>) -> (Val<F32>, Val<F32>) {
    let tiny = b.setp(Cmp::Lt, x, f32::MIN_POSITIVE);
    let scaled = b.mul(x, 8_388_608.0f32);
    let xs = b.selp(tiny, scaled, x);
    let bias = b.selp(tiny, 150i32, 127i32);
    let bits: Val<S32> = b.bitcast(xs);
    let biased = b.shr(bits, 23u32);
    let mant_bits = b.and(bits, 0x007f_ffffi32);
    let mant_bits = b.or(mant_bits, 0x3f80_0000i32);
    let m: Val<F32> = b.bitcast(mant_bits);
    let big = b.setp(Cmp::Gt, m, std::f32::consts::SQRT_2);
    let half_m = b.mul(m, 0.5f32);
    let m = b.selp(big, half_m, m);
    let biased_up = b.add(biased, 1i32);
    let biased = b.selp(big, biased_up, biased);
    let e = b.sub(biased, bias);
    let e: Val<F32> = b.cast(e);
    (e, m)
}

/// Coefficients of atanh-series: ln(m) = 2s(1 + s²/3 + s⁴/5 + ...), s = (m−1)/(m+1), |s| <= 0.1716.
const LN_POLY: [f32; 5] =
    [(2.0 / 3.0) as f32, (2.0 / 5.0) as f32, (2.0 / 7.0) as f32, (2.0 / 9.0) as f32, (2.0 / 11.0) as f32];

/// ln(m) for m in [√½, √2).
fn ln_mantissa(b: &mut KernelBuilder, m: Val<F32>) -> Val<F32> {
    let num = b.sub(m, 1.0f32);
    let den = b.add(m, 1.0f32);
    let s = b.div(num, den);
    let s2 = b.mul(s, s);
    let p = horner(b, s2, &LN_POLY);
    let s3 = b.mul(s2, s);
    let two_s = b.mul(s, 2.0f32);
    b.fma(s3, p, two_s)
}

/// Applies log's special cases: ln(0) = −∞, ln(x<0) = NaN, ln(+∞) = +∞, NaN stays NaN.
fn log_special_cases(b: &mut KernelBuilder, x: Val<F32>, r: Val<F32>) -> Val<F32> {
    let is_zero = b.setp(Cmp::Eq, x, 0.0f32);
    let r = b.selp(is_zero, f32::NEG_INFINITY, r);
    let is_inf = b.setp(Cmp::Eq, x, f32::INFINITY);
    let r = b.selp(is_inf, f32::INFINITY, r);
    let negative_or_nan = b.setp(Cmp::Ltu, x, 0.0f32);
    b.selp(negative_or_nan, NAN, r)
}

/// Accurate natural logarithm: x = m·2^e, ln x = e·ln2 + ln m with the atanh series.
/// Max error <= 2.5 ulp: 1.97 ulp found by an exhaustive scan of [0.5, 2), where the error
/// peaks; the tests sample all positive floats including subnormals.
pub fn ln(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let (e, m) = split_exponent(b, x);
    let lm = ln_mantissa(b, m);
    let lo = b.fma(e, LN2_LO, lm);
    let r = b.fma(e, LN2_HI, lo);
    log_special_cases(b, x, r)
}

/// Accurate log2: e + ln(m)·log2 e. Max error <= 3 ulp: 2.86 ulp found by an exhaustive
/// scan of [0.5, 2), where the error peaks; the tests sample like [`ln`]'s.
pub fn log2(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let (e, m) = split_exponent(b, x);
    let lm = ln_mantissa(b, m);
    // log2 e in two parts, so the product with ln(m) rounds once, in the outer fma.
    let lo = b.fma(lm, LOG2_E_LO, e);
    let r = b.fma(lm, LOG2_E, lo);
    log_special_cases(b, x, r)
}

/// x^y as 2^(y·log2|x|), with Rust's `powf` (C99 `pow`) special cases: y = ±0 gives 1
/// and x = 1 gives 1 whatever the other operand (NaN included); otherwise a NaN operand
/// gives NaN; a negative finite base with an integer exponent keeps the sign of (−1)^y
/// and with a non-integer one gives NaN; ±0 and ±∞ bases give 0 or ∞ by the sign of y,
/// negative when the base is negative and y an odd integer; y = ±∞ gives 1 for x = −1,
/// else 0 or ∞ by whether |x| > 1. The other results are within 1 ulp: `y·log2|x|` and
/// its power of two are evaluated in f64 and rounded once (measured max 0.50
/// ulp over random pairs spanning the whole range, overflow and underflow included).
pub fn powf(b: &mut KernelBuilder, x: impl Into<Val<F32>>, y: impl Into<Val<F32>>) -> Val<F32> {
    let (x, y) = (x.into(), y.into());
    let ax = b.abs(x);
    let mag = pow::magnitude(b, ax, y);
    pow_special_cases(b, x, y, mag)
}

/// The float types whose routines share special-value code, with their constants.
trait MathFloat: FloatTy + SignedOrFloat {
    /// `v` as an immediate of this type (`v` exact in it).
    fn imm(v: f64) -> Val<Self>;
    /// The canonical NaN of this type.
    fn nan() -> Val<Self>;
}

impl MathFloat for F32 {
    fn imm(v: f64) -> Val<F32> {
        Val::Imm(v as f32)
    }
    fn nan() -> Val<F32> {
        Val::Imm(NAN)
    }
}

impl MathFloat for F64 {
    fn imm(v: f64) -> Val<F64> {
        Val::Imm(v)
    }
    fn nan() -> Val<F64> {
        Val::Imm(f64::from_bits(crate::eval::F64_CANONICAL_NAN))
    }
}

/// `x^y` from `mag`, the value of `|x|^y` for finite nonzero `x` and finite `y`: the sign
/// and domain of negative bases and the special operands, as Rust's `powf` (C99 `pow`)
/// gives them (see [`powf`]).
fn pow_special_cases<T: MathFloat>(b: &mut KernelBuilder, x: Val<T>, y: Val<T>, mag: Val<T>) -> Val<T> {
    let (zero, half, one, inf) = (T::imm(0.0), T::imm(0.5), T::imm(1.0), T::imm(f64::INFINITY));
    let ax = b.abs(x);
    // Sign and domain for negative bases. An infinite y counts as an even integer here;
    // its cases are settled below.
    let y_int: Val<T> = b.cvt(y, Some(CvtRound::Rzi), false);
    let y_is_int = b.setp(Cmp::Eq, y_int, y);
    let half_y = b.mul(y, half);
    let half_int: Val<T> = b.cvt(half_y, Some(CvtRound::Rzi), false);
    let y_is_even = b.setp(Cmp::Eq, half_int, half_y);
    let y_not_even = b.not(y_is_even);
    let y_is_odd = b.and(y_is_int, y_not_even);
    let negative = b.setp(Cmp::Lt, x, zero);
    let neg_mag = b.neg(mag);
    let flip = b.and(negative, y_is_odd);
    let r = b.selp(flip, neg_mag, mag);
    let not_int = b.not(y_is_int);
    let domain_error = b.and(negative, not_int);
    let r = b.selp(domain_error, T::nan(), r);
    let y_negative = b.setp(Cmp::Lt, y, zero);
    // x = ±0 or ±∞: x^y is x for an odd y > 0 and 1/x for an odd y < 0 (signs of zero
    // and infinity included); for any other y, the magnitude of that.
    let x_zero = b.setp(Cmp::Eq, ax, zero);
    let x_inf = b.setp(Cmp::Eq, ax, inf);
    let edge = b.or(x_zero, x_inf);
    let inverse = b.div(one, x);
    let edge_odd = b.selp(y_negative, inverse, x);
    let edge_even = b.abs(edge_odd);
    let edge_value = b.selp(y_is_odd, edge_odd, edge_even);
    let r = b.selp(edge, edge_value, r);
    // y = ±∞ (x finite, nonzero): 1 for |x| = 1, else ∞ when |x| > 1 and y = +∞ or
    // |x| < 1 and y = −∞, 0 otherwise.
    let ay = b.abs(y);
    let y_inf = b.setp(Cmp::Eq, ay, inf);
    let above_one = b.setp(Cmp::Gt, ax, one);
    let grows = b.xor(above_one, y_negative);
    let limit = b.selp(grows, inf, zero);
    let unit = b.setp(Cmp::Eq, ax, one);
    let limit = b.selp(unit, one, limit);
    let not_edge = b.not(edge);
    let y_inf_case = b.and(y_inf, not_edge);
    let r = b.selp(y_inf_case, limit, r);
    // NaN operands, then the two cases that give 1 even for NaN.
    let unordered = b.setp(Cmp::Nan, x, y);
    let r = b.selp(unordered, T::nan(), r);
    let x_one = b.setp(Cmp::Eq, x, one);
    let r = b.selp(x_one, one, r);
    let y_zero = b.setp(Cmp::Eq, y, zero);
    b.selp(y_zero, one, r)
}

/// Odd Taylor coefficients of tanh(x)/x − 1 in x², for |x| < 0.55 (through x^19:
/// truncation below 2^-28 relative).
const TANH_POLY: [f32; 9] = [
    (-1.0 / 3.0) as f32,
    (2.0 / 15.0) as f32,
    (-17.0 / 315.0) as f32,
    (62.0 / 2835.0) as f32,
    (-1382.0 / 155_925.0) as f32,
    (21_844.0 / 6_081_075.0) as f32,
    (-929_569.0 / 638_512_875.0) as f32,
    (6_404_582.0 / 10_854_718_875.0) as f32,
    (-443_861_162.0 / 1_856_156_927_625.0) as f32,
];

/// Accurate tanh: a polynomial for |x| < 0.55, else sign(x)·(1 − 2/(e^{2|x|} + 1)).
/// Max error <= 4 ulp (tested on random inputs over [-10, 10]).
pub fn tanh(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let ax = b.abs(x);
    let x2 = b.mul(x, x);
    let p = horner(b, x2, &TANH_POLY);
    let x3 = b.mul(x2, x);
    let small = b.fma(x3, p, x);
    let two_ax = b.mul(ax, 2.0f32);
    let e = exp(b, two_ax);
    let den = b.add(e, 1.0f32);
    let frac = b.div(2.0f32, den);
    let big = b.sub(1.0f32, frac);
    let neg_big = b.neg(big);
    let negative = b.setp(Cmp::Lt, x, 0.0f32);
    let big = b.selp(negative, neg_big, big);
    let is_small = b.setp(Cmp::Lt, ax, 0.55f32);
    let r = b.selp(is_small, small, big);
    // tanh(±0) = ±0 (the polynomial path adds +0 to a −0 product).
    let zero = b.setp(Cmp::Eq, x, 0.0f32);
    let r = b.selp(zero, x, r);
    keep_nan(b, x, r)
}

/// `sin.approx.f32`: fast, max abs error 2^-20.5 on [-π, π], best effort far outside.
pub fn sin_approx(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    b.float_unary(UnaryOp::Sin, FloatMode::Approx, x)
}

/// `cos.approx.f32`: fast, max abs error 2^-20.5 on [-π, π], best effort far outside.
pub fn cos_approx(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    b.float_unary(UnaryOp::Cos, FloatMode::Approx, x)
}

/// `ex2.approx.f32`: the fast hardware 2^x (error as specified by the PTX ISA; not the default).
pub fn ex2_approx(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    b.float_unary(UnaryOp::Ex2, FloatMode::Approx, x)
}

/// `lg2.approx.f32`: the fast hardware log2 (error as specified by the PTX ISA; not the default).
pub fn lg2_approx(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    b.float_unary(UnaryOp::Lg2, FloatMode::Approx, x)
}
