//! f64 `atan`, `atan2`, `asin` and `acos`, on one double-double arctangent: for `t >= 0`,
//! `atan t = π/2 − atan(1/t)` above 1, then `atan u = atan(j/8) + atan(w)` with
//! `j = rint(8u)` and `w = (u − j/8)/(1 + u·j/8)` (|w| <= 1/16, where nine terms of the
//! series suffice), `atan(j/8)` held as double-double immediates (picked with `selp`; no
//! table in memory). The arguments of `asin` and `acos` (`x/√(1 − x²)` and
//! `√((1 − x)/(1 + x))`) and the ratio of `atan2` are formed as double-doubles too, so
//! each result is rounded once from about 2^-100 relative: within 1 ulp (the tests measure
//! it against correctly rounded references). Special values are Rust's (C99's).

use super::dd::{self, Dd};
use super::horner;
use super::inverse::ATAN_POLY;
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{Pred, F64, U64};

/// The NaN the routines return.
const NAN: f64 = f64::from_bits(crate::eval::F64_CANONICAL_NAN);

/// `atan(j/8)` for j = 0..=8 as double-doubles (computed to 300 bits with Euler's series
/// and rounded; the last is π/4).
const ATAN_EIGHTHS: [(f64, f64); 9] = [
    (0.0, 0.0),
    (0.124_354_994_546_761_44, -3.125_324_142_453_938_3e-18),
    (0.244_978_663_126_864_14, 1.069_875_561_873_445_1e-17),
    (0.358_770_670_270_572_25, -2.462_381_558_263_863_5e-17),
    (0.463_647_609_000_806_1, 2.269_877_745_296_168_7e-17),
    (0.558_599_315_343_562_4, -5.455_630_548_591_626_4e-18),
    (0.643_501_108_793_284_4, 1.583_478_505_144_428_6e-17),
    (0.718_829_999_621_624_5, -2.147_838_844_445_698_3e-17),
    (std::f64::consts::FRAC_PI_4, 3.061_616_997_868_383e-17),
];

/// π/2 and π as double-doubles.
const FRAC_PI_2: (f64, f64) = (std::f64::consts::FRAC_PI_2, 6.123_233_995_736_766e-17);
const PI: (f64, f64) = (std::f64::consts::PI, 1.224_646_799_147_353_2e-16);

/// `atan t` for a double-double `t >= 0` (+∞ included), as a double-double in [0, π/2].
fn atan_dd(b: &mut KernelBuilder, t: Dd) -> Dd {
    // u = 1/t above 1 (0 for +∞), else t.
    let above_one = b.setp(Cmp::Gt, t.hi, 1.0f64);
    let inf = b.setp(Cmp::Eq, t.hi, f64::INFINITY);
    let finite = b.selp(inf, 1.0f64, t.hi);
    let finite = Dd { hi: finite, lo: t.lo };
    let inverse = dd::div(b, dd::constant((1.0, 0.0)), finite);
    let inverse = dd::select(b, inf, dd::constant((0.0, 0.0)), inverse);
    let u = dd::select(b, above_one, inverse, t);
    // w = (u − a)/(1 + u·a), a = j/8.
    let eight_u = b.mul(u.hi, 8.0f64);
    let j: Val<F64> = b.cvt(eight_u, Some(CvtRound::Rni), false);
    let a = b.mul(j, 0.125f64);
    let minus_a = b.neg(a);
    let num = dd::two_sum(b, u.hi, minus_a);
    let num = dd::add(b, num, Dd { hi: u.lo, lo: Val::Imm(0.0) });
    let ua = dd::mul_f64(b, u, a);
    let den = dd::add(b, dd::constant((1.0, 0.0)), ua);
    let w = dd::div(b, num, den);
    // atan w = w + w³·P(w²).
    let w2 = b.mul(w.hi, w.hi);
    let w3 = b.mul(w2, w.hi);
    let p = horner(b, w2, &ATAN_POLY[..8]);
    let tail = b.fma(w3, p, w.lo);
    let atan_w = dd::fast_two_sum(b, w.hi, tail);
    // + atan(j/8), picked by j.
    let mut c = dd::constant(ATAN_EIGHTHS[0]);
    for (k, &entry) in ATAN_EIGHTHS.iter().enumerate().skip(1) {
        let is_k = b.setp(Cmp::Eq, j, k as f64);
        c = dd::select(b, is_k, dd::constant(entry), c);
    }
    let angle = dd::add(b, c, atan_w);
    let flipped = dd::neg(b, angle);
    let flipped = dd::add(b, dd::constant(FRAC_PI_2), flipped);
    dd::select(b, above_one, flipped, angle)
}

/// Whether the sign bit of `x` is set (−0 included).
fn sign_bit(b: &mut KernelBuilder, x: Val<F64>) -> Val<Pred> {
    let bits = b.bitcast::<U64, F64>(x);
    let sign = b.shr(bits, 63u32);
    b.setp(Cmp::Ne, sign, 0u64)
}

/// A magnitude rounded, with the sign of `x`; `x` itself for ±0, NaN for NaN.
fn odd_finish(b: &mut KernelBuilder, x: Val<F64>, magnitude: Dd) -> Val<F64> {
    let r = dd::round(b, magnitude);
    let negative = sign_bit(b, x);
    let minus = b.neg(r);
    let r = b.selp(negative, minus, r);
    let zero = b.setp(Cmp::Eq, x, 0.0f64);
    let r = b.selp(zero, x, r);
    let nan = b.setp(Cmp::Nan, x, x);
    b.selp(nan, NAN, r)
}

/// Accurate f64 `atan x` in [−π/2, π/2]; `atan(±0) = ±0`, `atan(±∞) = ±π/2`.
pub fn atan_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ax = b.abs(x);
    let a = atan_dd(b, Dd { hi: ax, lo: Val::Imm(0.0) });
    odd_finish(b, x, a)
}

/// `√d` for a double-double `d >= 0`: 0 for 0 and +∞ for +∞ (where the Newton step would
/// give NaN).
fn sqrt_or_edge(b: &mut KernelBuilder, d: Dd) -> Dd {
    let zero = b.setp(Cmp::Le, d.hi, 0.0f64);
    let inf = b.setp(Cmp::Eq, d.hi, f64::INFINITY);
    let edge = b.or(zero, inf);
    let safe = b.selp(edge, 1.0f64, d.hi);
    let root = dd::sqrt(b, Dd { hi: safe, lo: d.lo });
    let edge_value = Dd { hi: d.hi, lo: Val::Imm(0.0) };
    dd::select(b, edge, edge_value, root)
}

/// `n / d` for double-doubles with `n >= 0` finite and `d >= 0`: +∞ where `d` is 0 or the
/// quotient overflows.
fn ratio_or_inf(b: &mut KernelBuilder, n: Dd, d: Dd) -> Dd {
    let zero = b.setp(Cmp::Eq, d.hi, 0.0f64);
    let safe = b.selp(zero, 1.0f64, d.hi);
    let q = dd::div(b, n, Dd { hi: safe, lo: d.lo });
    // An overflowed quotient leaves ∞ − ∞ = NaN in the double-double.
    let overflow = b.setp(Cmp::Geu, q.hi, f64::INFINITY);
    let inf = b.or(zero, overflow);
    dd::select(b, inf, dd::constant((f64::INFINITY, 0.0)), q)
}

/// Accurate f64 `asin x = atan(x/√(1 − x²))`, `1 − x²` exact as a double-double; NaN
/// outside [−1, 1], `asin(±0) = ±0`.
pub fn asin_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ax = b.abs(x);
    let square = dd::two_prod(b, ax, ax);
    let square = dd::neg(b, square);
    let rest = dd::add(b, dd::constant((1.0, 0.0)), square);
    let root = sqrt_or_edge(b, rest);
    let t = ratio_or_inf(b, Dd { hi: ax, lo: Val::Imm(0.0) }, root);
    let a = atan_dd(b, t);
    let r = odd_finish(b, x, a);
    let outside = b.setp(Cmp::Gt, ax, 1.0f64);
    b.selp(outside, NAN, r)
}

/// Accurate f64 `acos x = 2·atan(√((1 − x)/(1 + x)))`, both sums exact as
/// double-doubles; NaN outside [−1, 1].
pub fn acos_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let minus_x = b.neg(x);
    let num = dd::two_sum(b, Val::Imm(1.0), minus_x);
    let den = dd::two_sum(b, Val::Imm(1.0), x);
    let q = ratio_or_inf(b, num, den);
    let root = sqrt_or_edge(b, q);
    let a = atan_dd(b, root);
    let r = dd::round(b, a);
    let r = b.mul(r, 2.0f64);
    let ax = b.abs(x);
    let outside = b.setp(Cmp::Gtu, ax, 1.0f64);
    b.selp(outside, NAN, r)
}

/// Accurate f64 `atan2(y, x)`, the angle of `(x, y)` in [−π, π], with C99's special
/// cases: the sign of a zero `y` kept, `atan2(±0, −0) = ±π`, `atan2(±0, +0) = ±0`,
/// infinities at the multiples of π/4, NaN for a NaN operand.
pub fn atan2_f64(b: &mut KernelBuilder, y: impl Into<Val<F64>>, x: impl Into<Val<F64>>) -> Val<F64> {
    let (y, x) = (y.into(), x.into());
    let ay = b.abs(y);
    let ax = b.abs(x);
    // |y|/|x| as a double-double: 1 for two infinities, 0 for two zeros or a finite y
    // over an infinite x, +∞ for a nonzero y over 0 or an infinite y over a finite x.
    let y_inf = b.setp(Cmp::Eq, ay, f64::INFINITY);
    let x_inf = b.setp(Cmp::Eq, ax, f64::INFINITY);
    let both_inf = b.and(y_inf, x_inf);
    let safe_y = b.selp(y_inf, 1.0f64, ay);
    let safe_x = b.selp(x_inf, 1.0f64, ax);
    let ratio = ratio_or_inf(b, Dd { hi: safe_y, lo: Val::Imm(0.0) }, Dd { hi: safe_x, lo: Val::Imm(0.0) });
    let y_zero = b.setp(Cmp::Eq, ay, 0.0f64);
    let zero_ratio = b.or(y_zero, x_inf);
    let ratio = dd::select(b, zero_ratio, dd::constant((0.0, 0.0)), ratio);
    let y_inf_only = b.xor(y_inf, both_inf);
    let ratio = dd::select(b, y_inf_only, dd::constant((f64::INFINITY, 0.0)), ratio);
    let ratio = dd::select(b, both_inf, dd::constant((1.0, 0.0)), ratio);
    let first = atan_dd(b, ratio);
    // x < 0 (−0 included): π − angle.
    let x_negative = sign_bit(b, x);
    let minus_first = dd::neg(b, first);
    let mirrored = dd::add(b, dd::constant(PI), minus_first);
    let angle = dd::select(b, x_negative, mirrored, first);
    let r = dd::round(b, angle);
    // A ratio far below 1 with x > 0 is the angle itself; where it falls among the
    // subnormals, divide 2^110·|y| instead and scale back, so that it rounds once.
    let tiny = b.setp(Cmp::Lt, ratio.hi, 2f64.powi(-900));
    let nonzero = b.setp(Cmp::Gt, ratio.hi, 0.0f64);
    let tiny = b.and(tiny, nonzero);
    let x_positive = b.not(x_negative);
    let tiny = b.and(tiny, x_positive);
    let scaled_y = b.mul(ay, 2f64.powi(110));
    let scaled = b.div(scaled_y, ax);
    let scaled = b.mul(scaled, 2f64.powi(-110));
    let r = b.selp(tiny, scaled, r);
    let y_negative = sign_bit(b, y);
    let minus = b.neg(r);
    let r = b.selp(y_negative, minus, r);
    let unordered = b.setp(Cmp::Nan, x, y);
    b.selp(unordered, NAN, r)
}
