//! f64 `cbrt` and `hypot`, each finished by one correction computed from an exact
//! residual (double-double products, [`super::dd`]), so the one final rounding dominates:
//! within 1 ulp (the tests measure it against correctly rounded references).

use super::dd::{self, Dd};
use super::double::{exp2_unclamped, scale_by_pow2};
use super::pow::log2_wide;
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{F64, S64};

/// The NaN the routines return.
const NAN: f64 = f64::from_bits(crate::eval::F64_CANONICAL_NAN);

/// Accurate f64 cube root: `|x| = m · 2^(3k)` with `m` in [1, 8) (subnormals prescaled),
/// `y = 2^(log2(m)/3)` good to about 2^-45, then one Newton step on the exact residual
/// `y³ − m`, and the exact scaling by `2^k`. `cbrt(−x) = −cbrt(x)`; ±0 and ±∞ are their
/// own cube roots.
pub fn cbrt_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ax = b.abs(x);
    let tiny = b.setp(Cmp::Lt, ax, f64::MIN_POSITIVE);
    let prescaled = b.mul(ax, 2f64.powi(54));
    let xs = b.selp(tiny, prescaled, ax);
    let bits = b.bitcast::<S64, F64>(xs);
    let biased = b.shr(bits, 52u32);
    let e = b.sub(biased, 1023i64);
    let e: Val<F64> = b.cvt(e, Some(CvtRound::Rn), false);
    let third = b.div(e, 3.0f64);
    let k: Val<F64> = b.cvt(third, Some(CvtRound::Rmi), false);
    let minus_3k = b.mul(k, -3.0f64);
    let m = scale_by_pow2(b, xs, minus_3k);
    // y ≈ m^(1/3), then y − (y³ − m)/(3y²) with y³ − m exact enough (y³ ≈ m: Sterbenz).
    let l = log2_wide(b, m);
    let l = b.mul(l, 1.0f64 / 3.0);
    let y = exp2_unclamped(b, l);
    let square = dd::two_prod(b, y, y);
    let cube = dd::mul_f64(b, square, y);
    let residual = b.sub(cube.hi, m);
    let residual = b.add(residual, cube.lo);
    let slope = b.mul(square.hi, 3.0f64);
    let step = b.div(residual, slope);
    let y = b.sub(y, step);
    let unscale = b.selp(tiny, -18.0f64, 0.0f64);
    let k = b.add(k, unscale);
    let r = scale_by_pow2(b, y, k);
    let negative = b.setp(Cmp::Lt, x, 0.0f64);
    let minus = b.neg(r);
    let r = b.selp(negative, minus, r);
    // ±0 and ±∞ are their own cube roots; NaN stays NaN.
    let zero = b.setp(Cmp::Eq, ax, 0.0f64);
    let inf = b.setp(Cmp::Eq, ax, f64::INFINITY);
    let own = b.or(zero, inf);
    let r = b.selp(own, x, r);
    let nan = b.setp(Cmp::Nan, x, x);
    b.selp(nan, NAN, r)
}

/// Accurate f64 `hypot(x, y) = √(x² + y²)` without intermediate overflow or underflow:
/// both operands scaled by a power of two chosen by the larger, the sum of squares as an
/// exact double-double, its root with one Newton step, then the scale undone. An
/// infinite operand gives +∞ even when the other is NaN.
pub fn hypot_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>, y: impl Into<Val<F64>>) -> Val<F64> {
    let (x, y) = (x.into(), y.into());
    let ax = b.abs(x);
    let ay = b.abs(y);
    let big = b.max(ax, ay);
    let small = b.min(ax, ay);
    let huge = b.setp(Cmp::Gt, big, 2f64.powi(500));
    let minute = b.setp(Cmp::Lt, big, 2f64.powi(-500));
    let scale = b.selp(huge, 2f64.powi(-600), 1.0f64);
    let scale = b.selp(minute, 2f64.powi(600), scale);
    let unscale = b.selp(huge, 2f64.powi(600), 1.0f64);
    let unscale = b.selp(minute, 2f64.powi(-600), unscale);
    let bs = b.mul(big, scale);
    let ss = b.mul(small, scale);
    let big_square = dd::two_prod(b, bs, bs);
    let small_square = dd::two_prod(b, ss, ss);
    let sum = dd::add(b, big_square, small_square);
    // √0 = 0 (the Newton step would divide by 0).
    let zero = b.setp(Cmp::Eq, bs, 0.0f64);
    let safe = b.selp(zero, 1.0f64, sum.hi);
    let root = dd::sqrt(b, Dd { hi: safe, lo: sum.lo });
    let r = dd::round(b, root);
    let r = b.selp(zero, 0.0f64, r);
    let r = b.mul(r, unscale);
    let unordered = b.setp(Cmp::Nan, x, y);
    let r = b.selp(unordered, NAN, r);
    let x_inf = b.setp(Cmp::Eq, ax, f64::INFINITY);
    let y_inf = b.setp(Cmp::Eq, ay, f64::INFINITY);
    let inf = b.or(x_inf, y_inf);
    b.selp(inf, f64::INFINITY, r)
}
