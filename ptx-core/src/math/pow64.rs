//! f64 `powf`: `|x|^y = e^(y · ln|x|)` with `ln|x|` and the product carried as
//! double-doubles ([`super::dd`]). Near overflow `|y · ln|x||` reaches about 745, so the
//! logarithm must be good to about 2^-63 of itself for the exponent to err by less than
//! a quarter ulp of the result; one f64 `ln` (2^-53) would leave errors of hundreds of ulp.

use super::dd::{self, Dd};
use super::double::scale_by_pow2;
use super::explog64::{exp_parts, ln_dd};
use super::pow_special_cases;
use crate::builder::{KernelBuilder, Val};
use crate::ir::Cmp;
use crate::types::F64;

/// `e^(t.hi + t.lo)`, `t.hi` clamped to [−760, 720] (beyond, the result is ∞ or 0):
/// `2^n · (1 + m)` from [`exp_parts`], times `1 + t.lo`, rounded once.
fn exp_dd(b: &mut KernelBuilder, t: Dd) -> Val<F64> {
    let h = b.max(t.hi, -760.0f64);
    let h = b.min(h, 720.0f64);
    // Where t.hi was clamped, its low part must not count.
    let unclamped = b.setp(Cmp::Eq, h, t.hi);
    let t_lo = b.selp(unclamped, t.lo, 0.0f64);
    let (n, m) = exp_parts(b, h);
    let one = dd::fast_two_sum(b, Val::Imm(1.0), m.hi);
    let lo = b.add(one.lo, m.lo);
    let lo = b.fma(t_lo, one.hi, lo);
    let p = b.add(one.hi, lo);
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
    // Where y·ln|x| overflows, the double-double's parts are NaN (∞ − ∞) and `max` would
    // drop them; the plain product's infinity carries the sign (e^+∞ = ∞, e^−∞ = 0).
    let plain = b.mul(ln.hi, y);
    let finite = b.setp(Cmp::Eq, t.hi, t.hi);
    let t = Dd { hi: b.selp(finite, t.hi, plain), lo: b.selp(finite, t.lo, 0.0f64) };
    let mag = exp_dd(b, t);
    pow_special_cases(b, x, y, mag)
}
