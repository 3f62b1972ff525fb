//! 16-bit float arithmetic: `add sub mul fma neg abs min max` and `setp` on `.f16`, `.bf16`
//! and their packed pairs `.f16x2`, `.bf16x2`, with the `.ftz`, `.sat`, `.relu` and `.NaN`
//! modifiers. Each result is the exact value rounded once to nearest even (the
//! `ptx_core::softfloat` routines at 16-bit precision); NaN results are the canonical
//! `0x7fff`, as the hardware gives.

use ptx_core::ir::Cmp;
use ptx_core::softfloat::{self as float, Fmt, Rnd, BF16, F16, F32};

use crate::program::{HalfForm, HalfOp};

/// The format of `form`.
fn fmt(form: HalfForm) -> Fmt {
    if form.bf16 {
        BF16
    } else {
        F16
    }
}

/// A subnormal `v` as a zero of its sign (for `.ftz`).
fn flush(f: Fmt, v: u64) -> u64 {
    let exp_mask = if f == BF16 { 0x7f80 } else { 0x7c00 };
    if v & exp_mask == 0 {
        v & 0x8000
    } else {
        v
    }
}

/// The 16-bit values as f32 (exact: f32 holds every f16 and bf16).
fn widen(f: Fmt, v: u64) -> f32 {
    f32::from_bits(float::convert(f, F32, v, Rnd::Rn) as u32)
}

/// `op` on one 16-bit value of each operand.
fn one(op: HalfOp, form: HalfForm, a: u64, b: u64, c: u64) -> u64 {
    let f = fmt(form);
    let input = |v: u64| if form.ftz { flush(f, v) } else { v };
    let (a, b, c) = (input(a), input(b), input(c));
    let r = match op {
        HalfOp::Add => float::add(f, a, b, Rnd::Rn),
        HalfOp::Sub => float::sub(f, a, b, Rnd::Rn),
        HalfOp::Mul => float::mul(f, a, b, Rnd::Rn),
        HalfOp::Fma => float::fma(f, a, b, c, Rnd::Rn),
        // `neg` and `abs` change the sign bit alone, NaNs included.
        HalfOp::Neg => a ^ 0x8000,
        HalfOp::Abs => a & 0x7fff,
        HalfOp::Min | HalfOp::Max => min_max(op == HalfOp::Max, form.nan, f, a, b),
    };
    let r = if form.ftz { flush(f, r) } else { r };
    let r = if form.sat { saturate(f, r) } else { r };
    if form.relu && r & 0x8000 != 0 && !float::is_nan(f, r) {
        0
    } else {
        r
    }
}

/// `min`/`max` as PTX defines them: a NaN input gives the other input (both NaN, or any
/// NaN with `.NaN`: the canonical NaN), and `-0 < +0`.
fn min_max(max: bool, nan: bool, f: Fmt, a: u64, b: u64) -> u64 {
    match (float::is_nan(f, a), float::is_nan(f, b)) {
        (true, true) => f.nan(),
        (true, false) | (false, true) if nan => f.nan(),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let (x, y) = (widen(f, a), widen(f, b));
            let a_first = if x == y { x.is_sign_negative() } else { x < y };
            if a_first != max {
                a
            } else {
                b
            }
        }
    }
}

/// `.sat`: clamps to [0, 1]; NaN gives +0.
fn saturate(f: Fmt, v: u64) -> u64 {
    let x = widen(f, v);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        float::convert(F32, f, 1f32.to_bits() as u64, Rnd::Rn)
    } else {
        v
    }
}

/// `op` on `form`'s values of `a`, `b`, `c` (each half of a pair on its own).
pub(crate) fn arith(op: HalfOp, form: HalfForm, a: u64, b: u64, c: u64) -> u64 {
    let lo = one(op, form, a & 0xffff, b & 0xffff, c & 0xffff);
    if !form.pair {
        return lo;
    }
    let hi = one(op, form, a >> 16 & 0xffff, b >> 16 & 0xffff, c >> 16 & 0xffff);
    hi << 16 | lo
}

/// `setp.cmp` of the low halves (and of the high halves, for a pair).
pub(crate) fn compare(cmp: Cmp, form: HalfForm, a: u64, b: u64) -> (bool, bool) {
    let f = fmt(form);
    let input = |v: u64| widen(f, if form.ftz { flush(f, v) } else { v }) as f64;
    let at = |shift: u32| {
        ptx_core::eval::float_compare(cmp, input(a >> shift & 0xffff), input(b >> shift & 0xffff))
    };
    (at(0), form.pair && at(16))
}

/// `set.cmp`: per half, 1.0 (`float`) or all ones where the comparison holds, else 0.
pub(crate) fn set(cmp: Cmp, form: HalfForm, float: bool, a: u64, b: u64) -> u64 {
    let (lo, hi) = compare(cmp, form, a, b);
    let one = match (float, form.bf16) {
        (false, _) => 0xffff,
        (true, false) => 0x3c00,
        (true, true) => 0x3f80,
    };
    let bit = |holds: bool| if holds { one } else { 0 };
    bit(lo) | bit(hi) << 16
}

#[cfg(test)]
mod tests {
    use super::*;

    const F16X2: HalfForm =
        HalfForm { bf16: false, pair: true, ftz: false, sat: false, relu: false, nan: false };

    fn h(x: f32) -> u64 {
        float::convert(F32, F16, x.to_bits() as u64, Rnd::Rn)
    }

    #[test]
    fn pairs_compute_each_half_rounded_once() {
        // 1 + 2^-11 is a tie in f16: to even gives 1; 3 · 0.1 rounds once.
        let a = h(1.0) | h(3.0) << 16;
        let b = h(2f32.powi(-11)) | h(0.1) << 16;
        let sum = arith(HalfOp::Add, F16X2, a, b, 0);
        assert_eq!(sum & 0xffff, h(1.0));
        let product = arith(HalfOp::Mul, F16X2, a, b, 0) >> 16;
        assert_eq!(product, h(3.0 * widen(F16, h(0.1))));
    }

    #[test]
    fn modifiers_shape_the_result() {
        let form = |sat, relu, ftz| HalfForm { sat, relu, ftz, ..F16X2 };
        // 65504 + 65504 overflows to inf; .sat clamps it to 1.
        let max = h(65504.0);
        assert_eq!(arith(HalfOp::Add, form(false, false, false), max, max, 0) & 0xffff, 0x7c00);
        assert_eq!(arith(HalfOp::Add, form(true, false, false), max, max, 0) & 0xffff, h(1.0));
        // .relu turns -3 into +0 but keeps NaN a NaN.
        assert_eq!(arith(HalfOp::Sub, form(false, true, false), h(1.0), h(4.0), 0) & 0xffff, 0);
        let nan = arith(HalfOp::Mul, form(false, true, false), 0x7c00, 0, 0) & 0xffff;
        assert_eq!(nan, 0x7fff);
        // .ftz: the smallest subnormal is flushed before and after.
        assert_eq!(arith(HalfOp::Add, form(false, false, true), 1, 1, 0) & 0xffff, 0);
        assert_eq!(arith(HalfOp::Add, form(false, false, false), 1, 1, 0) & 0xffff, 2);
    }

    #[test]
    fn min_max_and_compare_follow_ptx() {
        let nan = 0x7e00;
        assert_eq!(arith(HalfOp::Min, F16X2, nan, h(2.0), 0) & 0xffff, h(2.0));
        let with_nan = HalfForm { nan: true, ..F16X2 };
        assert_eq!(arith(HalfOp::Min, with_nan, nan, h(2.0), 0) & 0xffff, 0x7fff);
        assert_eq!(arith(HalfOp::Max, F16X2, 0x8000, 0, 0) & 0xffff, 0);
        assert_eq!(arith(HalfOp::Min, F16X2, 0, 0x8000, 0) & 0xffff, 0x8000);
        let (lo, hi) = compare(Cmp::Lt, F16X2, h(1.0) | h(5.0) << 16, h(2.0) | h(4.0) << 16);
        assert!(lo && !hi);
        assert_eq!(compare(Cmp::Neu, F16X2, nan, nan), (true, false));
    }
}
