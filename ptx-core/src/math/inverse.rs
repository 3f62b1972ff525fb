//! `tan` and the inverse trigonometric functions `atan`, `atan2`, `asin`, `acos`, for f32,
//! evaluated in f64 and rounded once (within 1 ulp on the scans: 0.500 ulp measured over
//! every 97th bit pattern). Special values are Rust's (C99's).

use super::wide::finish;
use super::{horner, reduce_quadrant_wide, NAN};
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{F32, F64, U32};

/// π/2 and π/4 in f64.
const FRAC_PI_2: f64 = std::f64::consts::FRAC_PI_2;
const FRAC_PI_4: f64 = std::f64::consts::FRAC_PI_4;
const PI: f64 = std::f64::consts::PI;
/// tan(π/8) = √2 − 1: above it `atan` reduces by π/4.
const TAN_PI_8: f64 = std::f64::consts::SQRT_2 - 1.0;

/// Taylor coefficients of `(sin r − r)/r³` and `(cos r − 1)/r²` in r², for |r| <= π/4
/// (truncation below 2^-55 through r^19 / r^20).
pub(super) const SIN_POLY: [f64; 9] = {
    let mut c = [0.0; 9];
    let mut fact = 6.0; // 3!
    let mut sign = -1.0;
    let mut k = 0;
    while k < 9 {
        c[k] = sign / fact;
        fact *= ((2 * k + 4) * (2 * k + 5)) as f64;
        sign = -sign;
        k += 1;
    }
    c
};
pub(super) const COS_POLY: [f64; 10] = {
    let mut c = [0.0; 10];
    let mut fact = 2.0; // 2!
    let mut sign = -1.0;
    let mut k = 0;
    while k < 10 {
        c[k] = sign / fact;
        fact *= ((2 * k + 3) * (2 * k + 4)) as f64;
        sign = -sign;
        k += 1;
    }
    c
};

/// `(atan u − u)/u³` in u²: `(−1)^(k+1)/(2k+3)`, for |u| <= tan(π/8) (u² <= 0.1716:
/// truncation below 2^-50 through u^43).
pub(super) const ATAN_POLY: [f64; 21] = {
    let mut c = [0.0; 21];
    let mut sign = -1.0;
    let mut k = 0;
    while k < 21 {
        c[k] = sign / (2 * k + 3) as f64;
        sign = -sign;
        k += 1;
    }
    c
};

/// `tan x`: the quadrant reduction of `sin`/`cos` with the reduced argument kept in f64
/// (Cody–Waite in f64 below 2^19, Payne–Hanek above), then `sin r / cos r` (or `−cos r /
/// sin r` in odd quadrants) from f64 polynomials, rounded once: within 1 ulp for every
/// f32, its poles included (0.500 ulp measured over every 97th bit pattern and next to
/// multiples of π/2). `tan(±0) = ±0`; ±∞ and NaN give NaN.
pub fn tan(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let ax = b.abs(x);
    let (r, q) = reduce_quadrant_wide(b, x, ax);
    let r2 = b.mul(r, r);
    let sp = horner(b, r2, &SIN_POLY);
    let r3 = b.mul(r2, r);
    let s = b.fma(r3, sp, r);
    let cp = horner(b, r2, &COS_POLY);
    let c = b.fma(r2, cp, 1.0f64);
    let odd_bit = b.and(q, 1u32);
    let odd = b.setp(Cmp::Ne, odd_bit, 0u32);
    let neg_c = b.neg(c);
    let num = b.selp(odd, neg_c, s);
    let den = b.selp(odd, s, c);
    let t = b.div(num, den);
    let t: Val<F32> = b.cvt(t, Some(CvtRound::Rn), false);
    let zero = b.setp(Cmp::Eq, x, 0.0f32);
    let t = b.selp(zero, x, t);
    let not_finite = b.setp(Cmp::Geu, ax, f32::INFINITY);
    b.selp(not_finite, NAN, t)
}

/// `atan` of a nonnegative f64 `t` (+∞ included): `π/2 − atan(1/t)` above 1, then
/// `π/4 + atan((t − 1)/(t + 1))` above tan(π/8), then the series.
fn atan_wide(b: &mut KernelBuilder, t: Val<F64>) -> Val<F64> {
    let above_one = b.setp(Cmp::Gt, t, 1.0f64);
    let inv = b.div(1.0f64, t);
    let t1 = b.selp(above_one, inv, t);
    let above_eighth = b.setp(Cmp::Gt, t1, TAN_PI_8);
    let num = b.sub(t1, 1.0f64);
    let den = b.add(t1, 1.0f64);
    let shifted = b.div(num, den);
    let u = b.selp(above_eighth, shifted, t1);
    let u2 = b.mul(u, u);
    let p = horner(b, u2, &ATAN_POLY);
    let u3 = b.mul(u2, u);
    let a = b.fma(u3, p, u);
    let a_shifted = b.add(a, FRAC_PI_4);
    let a = b.selp(above_eighth, a_shifted, a);
    let a_flipped = b.sub(FRAC_PI_2, a);
    b.selp(above_one, a_flipped, a)
}

/// Rounds an f64 result with the sign of `x` to f32, NaN for a NaN `x`, and `x` itself for
/// ±0 (odd functions keep the sign of zero).
fn odd_finish(b: &mut KernelBuilder, x: Val<F32>, magnitude: Val<F64>) -> Val<F32> {
    let negative = b.setp(Cmp::Lt, x, 0.0f32);
    let neg = b.neg(magnitude);
    let r = b.selp(negative, neg, magnitude);
    let r = finish(b, x, r);
    let zero = b.setp(Cmp::Eq, x, 0.0f32);
    b.selp(zero, x, r)
}

/// `atan x` in (−π/2, π/2); `atan(±∞) = ±π/2` (rounded to f32).
pub fn atan(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let ax = b.abs(x);
    let t = b.cast::<F64, F32>(ax);
    let a = atan_wide(b, t);
    odd_finish(b, x, a)
}

/// `asin x = atan(x / √(1 − x²))` (the square of an f32 and `1 − x²` are exact in f64);
/// NaN outside [−1, 1].
pub fn asin(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let ax = b.abs(x);
    let t = b.cast::<F64, F32>(ax);
    let t2 = b.mul(t, t);
    let rest = b.sub(1.0f64, t2);
    let root = b.sqrt(rest);
    let ratio = b.div(t, root);
    let a = atan_wide(b, ratio);
    let r = odd_finish(b, x, a);
    let outside = b.setp(Cmp::Gt, ax, 1.0f32);
    b.selp(outside, NAN, r)
}

/// `acos x = 2·atan(√((1 − x)/(1 + x)))`, accurate near ±1; NaN outside [−1, 1].
pub fn acos(b: &mut KernelBuilder, x: impl Into<Val<F32>>) -> Val<F32> {
    let x = x.into();
    let xd = b.cast::<F64, F32>(x);
    let num = b.sub(1.0f64, xd);
    let den = b.add(1.0f64, xd);
    let q = b.div(num, den);
    let root = b.sqrt(q);
    let a = atan_wide(b, root);
    let r = b.mul(a, 2.0f64);
    let r: Val<F32> = b.cvt(r, Some(CvtRound::Rn), false);
    let ax = b.abs(x);
    let outside = b.setp(Cmp::Gtu, ax, 1.0f32);
    b.selp(outside, NAN, r)
}

/// `atan2(y, x)`, the angle of `(x, y)` in [−π, π], with C99's special cases: the sign of
/// a zero `y` kept, `atan2(±0, −0) = ±π`, `atan2(±0, +0) = ±0`, infinities at the
/// multiples of π/4, NaN for a NaN operand.
pub fn atan2(b: &mut KernelBuilder, y: impl Into<Val<F32>>, x: impl Into<Val<F32>>) -> Val<F32> {
    let (y, x) = (y.into(), x.into());
    let yd = b.cast::<F64, F32>(y);
    let xd = b.cast::<F64, F32>(x);
    let ay = b.abs(yd);
    let ax = b.abs(xd);
    // The angle of (|x|, |y|) in [0, π/2], from the smaller over the larger ratio; both
    // infinite gives π/4, as C99 says.
    let ratio = b.div(ay, ax);
    let both_inf = {
        let yi = b.setp(Cmp::Eq, ay, f64::INFINITY);
        let xi = b.setp(Cmp::Eq, ax, f64::INFINITY);
        b.and(yi, xi)
    };
    let ratio = b.selp(both_inf, 1.0f64, ratio);
    let x_zero = b.setp(Cmp::Eq, ax, 0.0f64);
    let y_zero = b.setp(Cmp::Eq, ay, 0.0f64);
    let both_zero = b.and(x_zero, y_zero);
    let ratio = b.selp(both_zero, 0.0f64, ratio);
    let first = atan_wide(b, ratio);
    // x < 0 (−0 included): π − angle.
    let x_bits = b.bitcast::<U32, F32>(x);
    let x_sign = b.shr(x_bits, 31u32);
    let x_negative = b.setp(Cmp::Ne, x_sign, 0u32);
    let mirrored = b.sub(PI, first);
    let angle = b.selp(x_negative, mirrored, first);
    // The sign of y (−0 included).
    let y_bits = b.bitcast::<U32, F32>(y);
    let y_sign = b.shr(y_bits, 31u32);
    let y_negative = b.setp(Cmp::Ne, y_sign, 0u32);
    let neg = b.neg(angle);
    let angle = b.selp(y_negative, neg, angle);
    let r: Val<F32> = b.cvt(angle, Some(CvtRound::Rn), false);
    let unordered = b.setp(Cmp::Nan, x, y);
    b.selp(unordered, NAN, r)
}
