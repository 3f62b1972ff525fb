//! The builder folds integer and predicate operations on immediates to the value host Rust
//! computes (wrapping arithmetic, Rust's shifts with PTX's out-of-range rule, signed and
//! unsigned min/max/division), for every integer type, on edge operands (0, 1, −1, the
//! minimum and maximum, small shift amounts) and fresh random ones. Division by zero and
//! `MIN / -1`, where PTX and Rust part ways, are left to the instruction (not folded).
//! The reference is written here; it never calls `ptx_core::eval`.

use ptx_core::{Cmp, KernelBuilder, Val, S16, S32, S64, U16, U32, U64};
use ptx_tools::rng::Rng;

/// Operand pairs for a `bits`-wide type: every pair of edge values, then random pairs.
fn pairs(rng: &mut Rng, bits: u32) -> Vec<(u64, u64)> {
    let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let min = 1 << (bits - 1);
    let edges =
        [0, 1, 2, 3, mask, mask - 1, min, min - 1, min + 1, 7, bits as u64 - 1, bits as u64, 0x55 & mask];
    let mut out: Vec<(u64, u64)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
    out.extend((0..2000).map(|_| (rng.next() & mask, rng.next() & mask)));
    out
}

/// Checks one binary operation folds to `want` (`None`: must not fold).
fn expect<H: std::fmt::Debug + PartialEq>(
    name: &str,
    a: impl std::fmt::Debug,
    b: impl std::fmt::Debug,
    got: Option<H>,
    want: Option<H>,
) {
    assert_eq!(got, want, "{name}({a:?}, {b:?})");
}

macro_rules! int_type {
    ($rng:expr, $T:ty, $h:ty, signed = $signed:expr) => {{
        const BITS: u32 = <$h>::BITS;
        for (x, y) in pairs($rng, BITS) {
            let (a, b) = (x as $h, y as $h);
            let amount = y as u32 % (BITS + 8);
            let mut k = KernelBuilder::new("fold");
            let fold = |v: Val<$T>| v.as_imm();
            expect("add", a, b, fold(k.add::<$T>(a, b)), Some(a.wrapping_add(b)));
            expect("sub", a, b, fold(k.sub::<$T>(a, b)), Some(a.wrapping_sub(b)));
            expect("mul", a, b, fold(k.mul::<$T>(a, b)), Some(a.wrapping_mul(b)));
            // The low 128 bits of the product are exact for every type (an unsigned 64-bit one
            // may wrap the sign of the i128), and bits BITS.. of them are the high half.
            let high = ((a as i128).wrapping_mul(b as i128) >> BITS) as $h;
            expect("mul_hi", a, b, fold(k.mul_hi::<$T>(a, b)), Some(high));
            let defined = b != 0 && a.checked_div(b).is_some();
            if defined {
                expect("div", a, b, fold(k.div::<$T>(a, b)), Some(a.wrapping_div(b)));
                expect("rem", a, b, fold(k.rem::<$T>(a, b)), Some(a.wrapping_rem(b)));
            }
            expect("min", a, b, fold(k.min::<$T>(a, b)), Some(a.min(b)));
            expect("max", a, b, fold(k.max::<$T>(a, b)), Some(a.max(b)));
            expect("and", a, b, fold(k.and::<$T>(a, b)), Some(a & b));
            expect("or", a, b, fold(k.or::<$T>(a, b)), Some(a | b));
            expect("xor", a, b, fold(k.xor::<$T>(a, b)), Some(a ^ b));
            // PTX: a left shift by the width or more gives 0, an arithmetic right shift the
            // sign, a logical one 0.
            let shl = a.checked_shl(amount).unwrap_or(0);
            expect("shl", a, amount, fold(k.shl::<$T>(a, amount)), Some(shl));
            let shr = a.checked_shr(amount).unwrap_or(if $signed { a >> (BITS - 1) } else { 0 });
            expect("shr", a, amount, fold(k.shr::<$T>(a, amount)), Some(shr));
            expect("not", a, (), fold(k.not::<$T>(a)), Some(!a));
            expect("mad_lo", a, b, fold(k.mad_lo::<$T>(a, b, b)), Some(a.wrapping_mul(b).wrapping_add(b)));
            for (cmp, want) in [
                (Cmp::Eq, a == b),
                (Cmp::Ne, a != b),
                (Cmp::Lt, a < b),
                (Cmp::Le, a <= b),
                (Cmp::Gt, a > b),
                (Cmp::Ge, a >= b),
            ] {
                expect(cmp.name(), a, b, k.setp::<$T>(cmp, a, b).as_imm(), Some(want));
            }
            assert!(k.body().is_empty(), "everything folded for {a:?}, {b:?}");
        }
    }};
}

macro_rules! signed_unary {
    ($rng:expr, $T:ty, $h:ty) => {{
        for (x, _) in pairs($rng, <$h>::BITS) {
            let a = x as $h;
            let mut k = KernelBuilder::new("fold");
            expect("neg", a, (), k.neg::<$T>(a).as_imm(), Some(a.wrapping_neg()));
            expect("abs", a, (), k.abs::<$T>(a).as_imm(), Some(a.wrapping_abs()));
        }
    }};
}

#[test]
fn integer_operations_fold_to_host_rust_values() {
    let mut rng = Rng::fresh("integer_folding");
    int_type!(&mut rng, U16, u16, signed = false);
    int_type!(&mut rng, S16, i16, signed = true);
    int_type!(&mut rng, U32, u32, signed = false);
    int_type!(&mut rng, S32, i32, signed = true);
    int_type!(&mut rng, U64, u64, signed = false);
    int_type!(&mut rng, S64, i64, signed = true);
    signed_unary!(&mut rng, S16, i16);
    signed_unary!(&mut rng, S32, i32);
    signed_unary!(&mut rng, S64, i64);
}

macro_rules! widening {
    ($rng:expr, $T:ty, $h:ty, $wide:ty) => {{
        for (x, y) in pairs($rng, <$h>::BITS) {
            let (a, b) = (x as $h, y as $h);
            let mut k = KernelBuilder::new("fold");
            expect("mul_wide", a, b, k.mul_wide::<$T>(a, b).as_imm(), Some(a as $wide * b as $wide));
        }
    }};
}

#[test]
fn widening_multiplications_fold_to_the_exact_product() {
    let mut rng = Rng::fresh("widening_folding");
    widening!(&mut rng, U16, u16, u32);
    widening!(&mut rng, S16, i16, i32);
    widening!(&mut rng, U32, u32, u64);
    widening!(&mut rng, S32, i32, i64);
}

#[test]
fn undefined_divisions_are_left_to_the_instruction() {
    let mut k = KernelBuilder::new("fold");
    assert!(k.div::<S64>(i64::MIN, -1).as_imm().is_none());
    assert!(k.rem::<S32>(i32::MIN, -1).as_imm().is_none());
    assert!(k.div::<U32>(5u32, 0u32).as_imm().is_none());
    assert_eq!(k.body().len(), 3, "each one became an instruction");
}

#[test]
fn predicate_logic_folds_to_host_bools() {
    use ptx_core::Pred;
    for a in [false, true] {
        assert_eq!(KernelBuilder::new("f").not::<Pred>(a).as_imm(), Some(!a));
        for b in [false, true] {
            let mut k = KernelBuilder::new("f");
            expect("and", a, b, k.and::<Pred>(a, b).as_imm(), Some(a & b));
            expect("or", a, b, k.or::<Pred>(a, b).as_imm(), Some(a | b));
            expect("xor", a, b, k.xor::<Pred>(a, b).as_imm(), Some(a ^ b));
            assert!(k.body().is_empty());
        }
    }
}

#[test]
fn conversions_without_an_immediate_form_are_left_to_the_instruction() {
    use ptx_core::{CvtRound, F16, F32};
    let mut k = KernelBuilder::new("fold");
    // PTX has no f16 immediates: to f16, the cvt is emitted; from an f16 constant, the
    // widened value is an f32 immediate (a `cvt` of an f16 immediate is refused by ptxas).
    assert!(k.cvt::<F16, F32>(1.5f32, Some(CvtRound::Rn), false).as_imm().is_none());
    assert_eq!(k.cvt::<F32, F16>(Val::Imm(0x3c00), None, false).as_imm(), Some(1.0f32));
    assert_eq!(k.cvt::<F32, F16>(Val::Imm(0x8001), None, false).as_imm(), Some(-(2f32.powi(-24))));
    // A form PTX does not define (float to integer needs an integer rounding) is not
    // folded either: the verifier rejects the instruction instead.
    assert!(k.cvt::<U32, F32>(2.5f32, None, false).as_imm().is_none());
    assert_eq!(k.body().len(), 2);
    // The defined neighbours fold.
    assert_eq!(k.cvt::<U32, F32>(2.5f32, Some(CvtRound::Rzi), false).as_imm(), Some(2));
    assert_eq!(k.cvt::<F32, S32>(-3i32, Some(CvtRound::Rn), false).as_imm(), Some(-3.0));
    assert_eq!(k.body().len(), 2);
}
