//! Double-double arithmetic for the f64 routines: a value carried as the unevaluated sum
//! `hi + lo` of two f64s, `|lo| <= ulp(hi)/2`, which holds about 106 significant bits. The
//! exact building blocks are Knuth's two-sum, Dekker's fast two-sum and the `fma`-based
//! exact product; each is a handful of `add`/`sub`/`fma.rn` instructions, so the f64
//! routines that use them still fold to the GPU's bits.

use crate::builder::{KernelBuilder, Val};
use crate::types::F64;

/// A double-double value `hi + lo`.
#[derive(Clone, Copy)]
pub(super) struct Dd {
    /// The leading part, the value rounded to f64.
    pub hi: Val<F64>,
    /// The rest.
    pub lo: Val<F64>,
}

/// `a + c` exactly, as `(rounded sum, its rounding error)`, for any `a` and `c` (Knuth).
pub(super) fn two_sum(b: &mut KernelBuilder, a: Val<F64>, c: Val<F64>) -> Dd {
    let s = b.add(a, c);
    let a_part = b.sub(s, c);
    let c_part = b.sub(s, a_part);
    let a_err = b.sub(a, a_part);
    let c_err = b.sub(c, c_part);
    let lo = b.add(a_err, c_err);
    Dd { hi: s, lo }
}

/// `a + c` exactly when `|a| >= |c|` or `a = 0` (Dekker): three instructions.
pub(super) fn fast_two_sum(b: &mut KernelBuilder, a: Val<F64>, c: Val<F64>) -> Dd {
    let s = b.add(a, c);
    let c_part = b.sub(s, a);
    let lo = b.sub(c, c_part);
    Dd { hi: s, lo }
}

/// `a · c` exactly (barring underflow), as `(rounded product, its error)` by an `fma`.
pub(super) fn two_prod(b: &mut KernelBuilder, a: Val<F64>, c: Val<F64>) -> Dd {
    let p = b.mul(a, c);
    let minus_p = b.neg(p);
    let lo = b.fma(a, c, minus_p);
    Dd { hi: p, lo }
}

/// `x · c` for a double-double `x` and an f64 `c`, to about 2^-104 relative.
pub(super) fn mul_f64(b: &mut KernelBuilder, x: Dd, c: Val<F64>) -> Dd {
    let p = two_prod(b, x.hi, c);
    let lo = b.fma(x.lo, c, p.lo);
    fast_two_sum(b, p.hi, lo)
}

/// `x · y` for double-doubles, to about 2^-104 relative (the `lo · lo` term is dropped).
pub(super) fn mul(b: &mut KernelBuilder, x: Dd, y: Dd) -> Dd {
    let p = two_prod(b, x.hi, y.hi);
    let lo = b.fma(x.hi, y.lo, p.lo);
    let lo = b.fma(x.lo, y.hi, lo);
    fast_two_sum(b, p.hi, lo)
}

/// `-x`.
pub(super) fn neg(b: &mut KernelBuilder, x: Dd) -> Dd {
    Dd { hi: b.neg(x.hi), lo: b.neg(x.lo) }
}

/// `p ? x : y`, part by part.
pub(super) fn select(b: &mut KernelBuilder, p: Val<crate::types::Pred>, x: Dd, y: Dd) -> Dd {
    Dd { hi: b.selp(p, x.hi, y.hi), lo: b.selp(p, x.lo, y.lo) }
}

/// `x + y` for double-doubles, to about 2^-104 of the larger.
pub(super) fn add(b: &mut KernelBuilder, x: Dd, y: Dd) -> Dd {
    let s = two_sum(b, x.hi, y.hi);
    let lo = b.add(x.lo, y.lo);
    let lo = b.add(s.lo, lo);
    fast_two_sum(b, s.hi, lo)
}

/// `x / y` as a double-double: the quotient of the leading parts and the exact remainder's
/// quotient below it. The caller keeps `y.hi` finite and nonzero (else the low part is NaN).
pub(super) fn div(b: &mut KernelBuilder, x: Dd, y: Dd) -> Dd {
    let q = b.div(x.hi, y.hi);
    let minus_q = b.neg(q);
    let rem = b.fma(minus_q, y.hi, x.hi);
    let rem = b.add(rem, x.lo);
    let rem = b.fma(minus_q, y.lo, rem);
    let lo = b.div(rem, y.hi);
    fast_two_sum(b, q, lo)
}

/// `√x` as a double-double for `x.hi > 0` finite: the rounded root and one Newton step on
/// the exact residual `x − r²`.
pub(super) fn sqrt(b: &mut KernelBuilder, x: Dd) -> Dd {
    let r = b.sqrt(x.hi);
    let square = two_prod(b, r, r);
    let rem = b.sub(x.hi, square.hi);
    let rem = b.sub(rem, square.lo);
    let rem = b.add(rem, x.lo);
    let twice = b.mul(r, 2.0f64);
    let lo = b.div(rem, twice);
    fast_two_sum(b, r, lo)
}

/// `x.hi + x.lo` rounded to f64.
pub(super) fn round(b: &mut KernelBuilder, x: Dd) -> Val<F64> {
    b.add(x.hi, x.lo)
}

/// `(c.0, c.1)` as an immediate double-double.
pub(super) fn constant(c: (f64, f64)) -> Dd {
    Dd { hi: Val::Imm(c.0), lo: Val::Imm(c.1) }
}
