//! The float remainder `x % y` of Rust (C's `fmod`): `x - trunc(x / y) * y` computed
//! exactly, with the sign of `x`. PTX has no such instruction, and the obvious
//! `x - trunc(x / y) * y` in floating point is wrong whenever `x / y` is large or inexact.
//!
//! The remainder is exact integer arithmetic on the significands: with `|x| = mx·2^ex` and
//! `|y| = my·2^ey` (integers `mx`, `my` below 2^53), `|x| mod |y| = (mx·2^(ex−ey) mod my)·2^ey`,
//! and `mx·2^d mod my` is reduced a few bits at a time, `r ← (r << s) mod my`, with `s`
//! small enough that `r << s` fits 64 bits (`r < my`): 11 bits per `rem.u64` for f64, 40
//! for f32 (whose significands have 24 bits). The result `r·2^ey` is below `|y|` and a
//! multiple of its unit, so it is exactly representable: it is formed by one exact f64
//! multiply (and, for f32, one exact narrowing).
//!
//! Special values as in Rust: a NaN operand, an infinite `x` or a zero `y` give NaN; a
//! finite `x` with `|x| < |y|` (an infinite `y` included) gives `x` itself, `-0.0` included.
//! The loop runs at most 2046/11 = 187 (f64) or 7 (f32) times.

use crate::builder::{KernelBuilder, Val};
use crate::eval::{F32_CANONICAL_NAN, F64_CANONICAL_NAN};
use crate::ir::{Cmp, CvtRound};
use crate::softfloat::{canon32, canon64};
use crate::types::{Pred, F32, F64, S32, U32, U64};

/// The layout of a binary float format, as the remainder needs it.
struct Layout {
    /// Bits of the significand field.
    frac_bits: u32,
    /// The bits of +infinity.
    inf_bits: u64,
    /// Exponent bias plus `frac_bits`: an integer significand at biased exponent field `e`
    /// has unit 2^(e − unit_offset).
    unit_offset: i32,
    /// Bits of shift per `rem.u64`: 64 minus the significand's width.
    step: i32,
}

const F32_LAYOUT: Layout = Layout { frac_bits: 23, inf_bits: 0x7f80_0000, unit_offset: 127 + 23, step: 40 };
const F64_LAYOUT: Layout = Layout { frac_bits: 52, inf_bits: 0x7ff << 52, unit_offset: 1023 + 52, step: 11 };

/// `x % y` on f32 with Rust's meaning (exact, the sign of `x`).
pub fn rem_f32(b: &mut KernelBuilder, x: impl Into<Val<F32>>, y: impl Into<Val<F32>>) -> Val<F32> {
    let (x, y) = (x.into(), y.into());
    if let (Some(a), Some(c)) = (x.as_imm(), y.as_imm()) {
        return Val::Imm(f32::from_bits(canon32(a % c) as u32));
    }
    let xb = b.bitcast::<U32, F32>(x);
    let yb = b.bitcast::<U32, F32>(y);
    let ax = b.and(xb, !(1u32 << 31));
    let ay = b.and(yb, !(1u32 << 31));
    let ax64 = b.cast::<U64, U32>(ax);
    let ay64 = b.cast::<U64, U32>(ay);
    let (magnitude, nan, keep_x) = remainder_magnitude(b, ax64, ay64, &F32_LAYOUT);
    let magnitude = b.cast::<F32, F64>(magnitude);
    let magnitude = b.bitcast::<U32, F32>(magnitude);
    let sign = b.and(xb, 1u32 << 31);
    let signed = b.or(magnitude, sign);
    let signed = b.bitcast::<F32, U32>(signed);
    let kept = b.selp(keep_x, x, signed);
    b.selp(nan, f32::from_bits(F32_CANONICAL_NAN), kept)
}

/// `x % y` on f64 with Rust's meaning (exact, the sign of `x`).
pub fn rem_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>, y: impl Into<Val<F64>>) -> Val<F64> {
    let (x, y) = (x.into(), y.into());
    if let (Some(a), Some(c)) = (x.as_imm(), y.as_imm()) {
        return Val::Imm(f64::from_bits(canon64(a % c)));
    }
    let xb = b.bitcast::<U64, F64>(x);
    let yb = b.bitcast::<U64, F64>(y);
    let ax = b.and(xb, !(1u64 << 63));
    let ay = b.and(yb, !(1u64 << 63));
    let (magnitude, nan, keep_x) = remainder_magnitude(b, ax, ay, &F64_LAYOUT);
    let magnitude = b.bitcast::<U64, F64>(magnitude);
    let sign = b.and(xb, 1u64 << 63);
    let signed = b.or(magnitude, sign);
    let signed = b.bitcast::<F64, U64>(signed);
    let kept = b.selp(keep_x, x, signed);
    b.selp(nan, f64::from_bits(F64_CANONICAL_NAN), kept)
}

/// The biased exponent field (at least 1, so subnormals share the smallest normal's unit)
/// and the integer significand of a finite, nonnegative float given by its bits.
fn unpack(b: &mut KernelBuilder, bits: Val<U64>, layout: &Layout) -> (Val<S32>, Val<U64>) {
    let field = b.shr(bits, layout.frac_bits);
    let field = b.cast::<S32, U64>(field);
    let frac = b.and(bits, (1u64 << layout.frac_bits) - 1);
    let is_normal = b.setp(Cmp::Ne, field, 0i32);
    let hidden = b.selp(is_normal, 1u64 << layout.frac_bits, 0u64);
    let mant = b.or(frac, hidden);
    let exp = b.max(field, 1i32);
    (exp, mant)
}

/// `|x| mod |y|` as an f64 (exact) from the magnitudes' bits, with whether the result is NaN
/// (`x` not finite, `y` NaN or zero) and whether it is `x` itself (`|x| < |y|`).
fn remainder_magnitude(
    b: &mut KernelBuilder,
    ax: Val<U64>,
    ay: Val<U64>,
    layout: &Layout,
) -> (Val<F64>, Val<Pred>, Val<Pred>) {
    let x_not_finite = b.setp(Cmp::Ge, ax, layout.inf_bits);
    let y_nan = b.setp(Cmp::Gt, ay, layout.inf_bits);
    let y_zero = b.setp(Cmp::Eq, ay, 0u64);
    let nan = b.or(x_not_finite, y_nan);
    let nan = b.or(nan, y_zero);
    // For finite nonnegative floats the bits order like the values.
    let keep_x = b.setp(Cmp::Lt, ax, ay);
    let skip = b.or(nan, keep_x);

    let (ex, mx) = unpack(b, ax, layout);
    let (ey, my) = unpack(b, ay, layout);
    // When skipping, run no iteration and divide by 1, so nothing undefined executes.
    let my = b.selp(skip, 1u64, my);
    let d = b.sub(ex, ey);
    let d = b.selp(skip, 0i32, d);
    let r0 = b.rem(mx, my);
    let r = b.mov(r0);
    let left = b.mov(d);

    let head = b.label();
    let done = b.label();
    b.place(head);
    let finished = b.setp(Cmp::Le, left, 0i32);
    b.bra_if(finished, done);
    let s = b.min(left, layout.step);
    let s_u = b.cast::<U32, S32>(s);
    let shifted = b.shl(r, s_u);
    let next = b.rem(shifted, my);
    b.assign(r, next);
    let next_left = b.sub(left, s);
    b.assign(left, next_left);
    b.bra(head);
    b.place(done);

    // r · 2^k with k = ey − unit_offset: the f64 2^k is the bits (k + 1023) << 52 when
    // normal (k ≥ −1022), else the subnormal 1 << (k + 1074).
    let rf = b.cvt::<F64, U64>(r, Some(CvtRound::Rn), false);
    let k = b.sub(ey, layout.unit_offset);
    let k64 = b.cast::<U64, S32>(k);
    let normal_field = b.add(k64, 1023u64);
    let normal_scale = b.shl(normal_field, 52u32);
    let sub_shift = b.add(k, 1074i32);
    let sub_shift = b.cast::<U32, S32>(sub_shift);
    let sub_scale = b.shl(1u64, sub_shift);
    let is_normal_scale = b.setp(Cmp::Ge, k, -1022i32);
    let scale = b.selp(is_normal_scale, normal_scale, sub_scale);
    let scale = b.bitcast::<F64, U64>(scale);
    (b.mul(rf, scale), nan, keep_x)
}
