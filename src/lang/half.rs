//! The `half` crate's methods on `f16`/`bf16` values, computed as that crate computes them
//! on the host: the classification tests, `copysign` and `signum` on the 16 bits (so a
//! NaN's sign counts, and `signum` of a NaN is that NaN), `min`/`max` by its comparisons.
//! Their arithmetic and comparisons are in [`super::ops`]; `clamp` is the other types'
//! (`super::methods`), which computes the crate's steps.

use ptx_core::builder::Val;
use ptx_core::{Bf16, F16, U16};

use super::{internal_error, KernelCtx, Scalar, Value};

/// A test of a half's bits, as the `half` crate writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HalfTest {
    /// `is_nan`: the magnitude's bits above the infinity's.
    Nan,
    /// `is_infinite`: the magnitude's bits those of infinity.
    Infinite,
    /// `is_finite`: an exponent field not all ones.
    Finite,
    /// `is_normal`: an exponent field neither zero nor all ones.
    Normal,
    /// `is_sign_negative`: the sign bit set (`-0.0` and NaNs too).
    SignNegative,
}

/// The exponent field's mask of a 16-bit float type (also the bits of its infinity).
fn exponent_mask(ty: Scalar) -> u32 {
    if ty == Scalar::F16 {
        0x7c00
    } else {
        0x7f80
    }
}

/// The bits of `1.0` of a 16-bit float type.
fn one_bits(ty: Scalar) -> u32 {
    if ty == Scalar::F16 {
        0x3c00
    } else {
        0x3f80
    }
}

impl KernelCtx {
    /// The 16 bits of half `x` in a `.b16`-typed value (a `mov`, no conversion).
    pub(crate) fn half_raw_bits(&mut self, x: Value) -> Val<U16> {
        match x.ty() {
            Scalar::F16 => self.b.bitcast::<U16, F16>(x.typed::<F16>()),
            Scalar::Bf16 => self.b.bitcast::<U16, Bf16>(x.typed::<Bf16>()),
            other => internal_error(&format!("the half bits of a {}", other.name())),
        }
    }

    /// The half of type `ty` with the 16 bits `bits` (a `mov`, no conversion).
    pub(crate) fn half_of_raw_bits(&mut self, bits: Val<U16>, ty: Scalar) -> Value {
        match ty {
            Scalar::F16 => Value::of(self.b.bitcast::<F16, U16>(bits), ty),
            Scalar::Bf16 => Value::of(self.b.bitcast::<Bf16, U16>(bits), ty),
            other => internal_error(&format!("a {} from half bits", other.name())),
        }
    }

    /// The 16 bits of half `x`, zero-extended to a `u32`.
    fn half_word(&mut self, x: Value) -> Value {
        let bits = self.to_bits(x);
        self.cast(bits, Scalar::U32)
    }

    /// The half of type `ty` whose bits are the low 16 of `word` (a `u32`).
    fn half_of_word(&mut self, word: Value, ty: Scalar) -> Value {
        let bits = self.cast(word, Scalar::U16);
        self.half_from_bits(bits, ty)
    }

    /// `x.is_nan()`, `x.is_infinite()`, ... of a half: `test` on its bits.
    pub(crate) fn half_test(&mut self, x: Value, test: HalfTest) -> Value {
        let exponent = Value::from(exponent_mask(x.ty()));
        let word = self.half_word(x);
        match test {
            HalfTest::Nan | HalfTest::Infinite => {
                let magnitude = self.bitand(word, Value::from(0x7fffu32));
                if test == HalfTest::Nan {
                    self.gt(magnitude, exponent)
                } else {
                    self.eq(magnitude, exponent)
                }
            }
            HalfTest::Finite => {
                let field = self.bitand(word, exponent);
                self.ne(field, exponent)
            }
            HalfTest::Normal => {
                let field = self.bitand(word, exponent);
                let not_all_ones = self.ne(field, exponent);
                let not_zero = self.ne(field, Value::from(0u32));
                self.bitand(not_all_ones, not_zero)
            }
            HalfTest::SignNegative => {
                let sign = self.bitand(word, Value::from(0x8000u32));
                self.ne(sign, Value::from(0u32))
            }
        }
    }

    /// `x.copysign(sign)` of halves: `x`'s magnitude bits with `sign`'s sign bit.
    pub(crate) fn half_copysign(&mut self, x: Value, sign: Value) -> Value {
        let (magnitude, sign) = (self.half_word(x), self.half_word(sign));
        let magnitude = self.bitand(magnitude, Value::from(0x7fffu32));
        let sign = self.bitand(sign, Value::from(0x8000u32));
        let word = self.bitor(magnitude, sign);
        self.half_of_word(word, x.ty())
    }

    /// `x.signum()` of a half: `x` itself when it is a NaN, else `1.0` with its sign bit.
    pub(crate) fn half_signum(&mut self, x: Value) -> Value {
        let one = self.half_of_word(Value::from(one_bits(x.ty())), x.ty());
        let signed_one = self.half_copysign(one, x);
        let nan = self.half_test(x, HalfTest::Nan);
        self.select(nan, x, signed_one)
    }

    /// `a.max(b)` (`larger`) or `a.min(b)` of halves, as the `half` crate picks: `b` when `a`
    /// is a NaN or `b` compares beyond `a`, else `a` (so `(+0).max(-0)` is `+0`, and
    /// `(-0).max(+0)` is `-0`).
    pub(crate) fn half_extreme(&mut self, a: Value, b: Value, larger: bool) -> Value {
        let nan = self.half_test(a, HalfTest::Nan);
        let beyond = if larger { self.gt(b, a) } else { self.lt(b, a) };
        let take_b = self.bitor(nan, beyond);
        self.select(take_b, b, a)
    }
}
