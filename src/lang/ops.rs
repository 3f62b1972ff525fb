//! Operators and `as` casts with Rust's meaning: integer arithmetic wraps (release-mode
//! Rust), `/` and `%` truncate toward zero, shift amounts are masked to the width, float
//! `!=` is true for NaN, float-to-integer casts saturate with NaN giving 0, and narrow
//! integers are renormalised after every operation.

use ptx_core::builder::Val;
use ptx_core::fault::{FaultKind, FaultSite};
use ptx_core::ir::Operand;
use ptx_core::math;
use ptx_core::{Bf16, Cmp, Pred, PtxType, F16, F32, F64, S32, S64, U16, U32, U64};

use super::{internal_error, KernelCtx, Scalar, Value};

/// Runs `$body` with `$T` bound to the builder marker of register type `$rt`, for the
/// register types of one class of operations.
macro_rules! dispatch {
    ($rt:expr, $T:ident => $body:expr, [$($ptx:ident),*]) => {
        match $rt {
            $(PtxType::$ptx => {
                type $T = $ptx;
                $body
            })*
            other => $crate::lang::internal_error(&format!("no {} operation of this kind", other)),
        }
    };
}
pub(crate) use dispatch;

/// A position in the kernel's Rust source, as `file!()`, `line!()` and `column!()` give it
/// at the operation's span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    /// The source file.
    pub file: &'static str,
    /// The 1-based line.
    pub line: u32,
    /// The 1-based column.
    pub column: u32,
}

impl Site {
    /// The position `file:line:column`.
    pub const fn at(file: &'static str, line: u32, column: u32) -> Site {
        Site { file, line, column }
    }

    /// The fault site of this position.
    pub(crate) fn fault(self, kind: FaultKind, subject: &'static str) -> FaultSite {
        FaultSite { kind, subject, file: self.file, line: self.line, column: self.column }
    }
}

/// The arithmetic operators `+ - * /`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// The bitwise operators (`& | ^`), also on `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bitwise {
    And,
    Or,
    Xor,
}

impl KernelCtx {
    fn arith(&mut self, op: Arith, a: Value, b: Value) -> Value {
        let ty = a.ty;
        if ty.is_half() {
            return self.in_single(a, b, |ctx, x, y| ctx.arith(op, x, y));
        }
        let v = dispatch!(ty.reg_type(), T => {
            let (x, y) = (a.typed::<T>(), b.typed::<T>());
            let r = match op {
                Arith::Add => self.b.add(x, y),
                Arith::Sub => self.b.sub(x, y),
                Arith::Mul => self.b.mul(x, y),
                Arith::Div => self.b.div(x, y),
            };
            Value::of(r, ty)
        }, [U32, S32, U64, S64, F32, F64]);
        if matches!(op, Arith::Add | Arith::Sub) {
            self.note_sum(op == Arith::Sub, a, b, v);
        }
        self.normalize(v)
    }

    /// `f(a, b)` of two 16-bit floats as the `half` crate computes it: both widened to
    /// `f32` (exactly), `f` there, the result rounded back to nearest even. For `+ - * /`
    /// this is the correctly rounded 16-bit result (`f32` has more than twice the
    /// precision plus two bits, so the double rounding is harmless); `%` is exact.
    fn in_single(&mut self, a: Value, b: Value, f: impl FnOnce(&mut Self, Value, Value) -> Value) -> Value {
        let ty = a.ty;
        let (x, y) = (self.cast(a, Scalar::F32), self.cast(b, Scalar::F32));
        let r = f(self, x, y);
        self.cast(r, ty)
    }

    /// Records a 64-bit integer `r = a ± constant` (or `constant + a`) for slice accesses,
    /// which fold the constant into the address ([`super::known`]).
    fn note_sum(&mut self, subtract: bool, a: Value, b: Value, r: Value) {
        let (Operand::Reg(dst), true) = (r.op, matches!(r.ty.reg_type(), PtxType::U64 | PtxType::S64)) else {
            return;
        };
        let sum = match (a.op, b.op) {
            (base @ Operand::Reg(_), Operand::Imm(c)) => {
                let c = c.bits as i64;
                Some((base, if subtract { c.wrapping_neg() } else { c }))
            }
            (Operand::Imm(c), base @ Operand::Reg(_)) if !subtract => Some((base, c.bits as i64)),
            _ => None,
        };
        if let Some((base, delta)) = sum {
            self.known.record_sum(dst, base, delta);
        }
    }

    pub(super) fn int_rem(&mut self, a: Value, b: Value) -> Value {
        let ty = a.ty;
        let v = dispatch!(ty.reg_type(), T => Value::of(self.b.rem(a.typed::<T>(), b.typed::<T>()), ty),
            [U32, S32, U64, S64]);
        self.normalize(v)
    }

    fn bitwise(&mut self, op: Bitwise, a: Value, b: Value) -> Value {
        let ty = a.ty;
        dispatch!(ty.reg_type(), T => {
            let (x, y) = (a.typed::<T>(), b.typed::<T>());
            let r = match op {
                Bitwise::And => self.b.and(x, y),
                Bitwise::Or => self.b.or(x, y),
                Bitwise::Xor => self.b.xor(x, y),
            };
            Value::of(r, ty)
        }, [Pred, U32, S32, U64, S64])
    }

    /// Re-extends a narrow integer from its width after an operation that may have carried
    /// bits above it; other types are returned as they are.
    #[inline]
    pub(crate) fn normalize(&mut self, v: Value) -> Value {
        match v.ty {
            Scalar::U8 | Scalar::U16 | Scalar::I8 | Scalar::I16 => self.renormalize(v),
            _ => v,
        }
    }

    /// [`Self::normalize`] of a narrow integer.
    fn renormalize(&mut self, v: Value) -> Value {
        match v.ty {
            Scalar::U8 | Scalar::U16 => {
                let mask = if v.ty == Scalar::U8 { 0xffu32 } else { 0xffff };
                Value::of(self.b.and(v.typed::<U32>(), mask), v.ty)
            }
            Scalar::I8 | Scalar::I16 => {
                let shift = 32 - v.ty.bits();
                let up = self.b.shl(v.typed::<S32>(), shift);
                Value::of(self.b.shr(up, shift), v.ty)
            }
            _ => v,
        }
    }

    /// `a + b` (integers wrap).
    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.arith(Arith::Add, a, b)
    }

    /// `a - b` (integers wrap).
    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.arith(Arith::Sub, a, b)
    }

    /// `a * b` (integers wrap, keeping the low half).
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.arith(Arith::Mul, a, b)
    }

    /// `a * b + c` on integers, wrapping like the two operations: one `mad.lo`.
    pub fn mad(&mut self, a: Value, b: Value, c: Value) -> Value {
        let ty = a.ty;
        let v = dispatch!(ty.reg_type(), T => {
            Value::of(self.b.mad_lo(a.typed::<T>(), b.typed::<T>(), c.typed::<T>()), ty)
        }, [U32, S32, U64, S64]);
        self.normalize(v)
    }

    /// `a / b`: IEEE `div.rn` for floats; for integers truncation toward zero, and a
    /// division by zero or `MIN / -1` is a fault at `site` in a checked kernel (Rust panics
    /// there whatever the profile), an unspecified value in an unchecked one.
    pub fn div(&mut self, a: Value, b: Value, site: Site) -> Value {
        if a.ty.is_float() || a.ty.is_half() {
            return self.arith(Arith::Div, a, b);
        }
        let b =
            self.guard_divisor(a, b, site, "attempt to divide by zero", "attempt to divide with overflow");
        self.arith(Arith::Div, a, b)
    }

    /// `a / b` of floats (`div.rn`).
    pub(super) fn float_div(&mut self, a: Value, b: Value) -> Value {
        self.arith(Arith::Div, a, b)
    }

    /// `a / b` of integers the caller knows to be defined (`b` not zero, not `MIN / -1`):
    /// no check.
    pub(super) fn div_defined(&mut self, a: Value, b: Value) -> Value {
        self.arith(Arith::Div, a, b)
    }

    /// `a % b`: the remainder of truncating division, with the sign of `a`. On integers with
    /// the faults of [`Self::div`]; on floats exact, as Rust's (`fmod`:
    /// [`ptx_core::math::rem_f32`]), NaN for a zero divisor or an infinite dividend.
    pub fn rem(&mut self, a: Value, b: Value, site: Site) -> Value {
        match a.ty {
            Scalar::F16 | Scalar::Bf16 => return self.in_single(a, b, |ctx, x, y| ctx.rem(x, y, site)),
            Scalar::F32 => {
                return Value::of(math::rem_f32(&mut self.b, a.typed::<F32>(), b.typed::<F32>()), a.ty)
            }
            Scalar::F64 => {
                return Value::of(math::rem_f64(&mut self.b, a.typed::<F64>(), b.typed::<F64>()), a.ty)
            }
            _ => {}
        }
        let b = self.guard_divisor(
            a,
            b,
            site,
            "attempt to calculate the remainder with a divisor of zero",
            "attempt to calculate the remainder with overflow",
        );
        self.int_rem(a, b)
    }

    /// Checks an integer divisor the way Rust does: zero, or `-1` under `MIN`, record a
    /// fault (checked kernels); the divisor returned is then 1, so the PTX division itself
    /// never sees an undefined case.
    fn guard_divisor(
        &mut self,
        a: Value,
        b: Value,
        site: Site,
        zero: &'static str,
        overflow: &'static str,
    ) -> Value {
        let ty = b.ty;
        let zero_value = self.cast(Value::from(0u32), ty);
        let is_zero = self.compare_raw(Cmp::Eq, b, zero_value);
        self.panic_if(is_zero, site, zero);
        let mut bad = is_zero;
        if let Some(overflow_pred) = self.division_overflows(a, b) {
            self.panic_if(overflow_pred, site, overflow);
            bad = self.bitwise(Bitwise::Or, bad, overflow_pred);
        }
        let one = self.cast(Value::from(1u32), ty);
        self.select(bad, one, b)
    }

    /// Whether `a / b` overflows, `MIN / −1` (`None` for an unsigned type, where it cannot).
    pub(super) fn division_overflows(&mut self, a: Value, b: Value) -> Option<Value> {
        let ty = b.ty;
        if !ty.is_signed() {
            return None;
        }
        let min = self.cast(Value::from(ty.int_range().0 as i64), ty);
        let minus_one = self.cast(Value::from(-1i32), ty);
        let a_min = self.compare_raw(Cmp::Eq, a, min);
        let b_minus_one = self.compare_raw(Cmp::Eq, b, minus_one);
        Some(self.bitwise(Bitwise::And, a_min, b_minus_one))
    }

    /// `a & b` (also on `bool`, without short-circuit).
    pub fn bitand(&mut self, a: Value, b: Value) -> Value {
        self.bitwise(Bitwise::And, a, b)
    }

    /// `a | b`.
    pub fn bitor(&mut self, a: Value, b: Value) -> Value {
        self.bitwise(Bitwise::Or, a, b)
    }

    /// `a ^ b`.
    pub fn bitxor(&mut self, a: Value, b: Value) -> Value {
        self.bitwise(Bitwise::Xor, a, b)
    }

    /// The shift amount Rust uses in release builds: `b` masked to `a`'s width, as `u32`.
    fn shift_amount(&mut self, width: u32, b: Value) -> Val<U32> {
        let amount = self.cast(b, Scalar::U32).typed::<U32>();
        self.b.and(amount, width - 1)
    }

    /// `a << b`, the amount masked to the width (`wrapping_shl`).
    pub fn shl(&mut self, a: Value, b: Value) -> Value {
        let amount = self.shift_amount(a.ty.bits(), b);
        let ty = a.ty;
        let v = dispatch!(ty.reg_type(), T => Value::of(self.b.shl(a.typed::<T>(), amount), ty), [U32, S32, U64, S64]);
        self.normalize(v)
    }

    /// `a >> b`: arithmetic for signed types, logical for unsigned, the amount masked.
    pub fn shr(&mut self, a: Value, b: Value) -> Value {
        let amount = self.shift_amount(a.ty.bits(), b);
        let ty = a.ty;
        dispatch!(ty.reg_type(), T => Value::of(self.b.shr(a.typed::<T>(), amount), ty), [U32, S32, U64, S64])
    }

    /// A comparison straight to `setp` (floats ordered, except `Cmp::Neu`).
    fn compare_raw(&mut self, cmp: Cmp, a: Value, b: Value) -> Value {
        let v = dispatch!(a.ty.reg_type(), T => self.b.setp::<T>(cmp, a.typed::<T>(), b.typed::<T>()),
            [U32, S32, U64, S64, F32, F64]);
        Value::of(v, Scalar::Bool)
    }

    fn compare(&mut self, cmp: Cmp, a: Value, b: Value) -> Value {
        if a.ty == Scalar::Bool {
            return self.compare_bools(cmp, a, b);
        }
        if a.ty.is_half() {
            // Widening is exact: the order, equal zeros and unordered NaNs are the `half`
            // crate's.
            let (x, y) = (self.cast(a, Scalar::F32), self.cast(b, Scalar::F32));
            return self.compare(cmp, x, y);
        }
        let cmp = if cmp == Cmp::Ne && a.ty.is_float() { Cmp::Neu } else { cmp };
        self.compare_raw(cmp, a, b)
    }

    /// `bool` comparisons, `false < true`, as predicate logic.
    fn compare_bools(&mut self, cmp: Cmp, a: Value, b: Value) -> Value {
        match cmp {
            Cmp::Eq => {
                let ne = self.bitxor(a, b);
                self.not(ne)
            }
            Cmp::Ne => self.bitxor(a, b),
            Cmp::Lt => {
                let not_a = self.not(a);
                self.bitand(not_a, b)
            }
            Cmp::Le => {
                let not_a = self.not(a);
                self.bitor(not_a, b)
            }
            Cmp::Gt => {
                let not_b = self.not(b);
                self.bitand(a, not_b)
            }
            _ => {
                let not_b = self.not(b);
                self.bitor(a, not_b)
            }
        }
    }

    /// `a == b` (floats: false when either is NaN).
    pub fn eq(&mut self, a: Value, b: Value) -> Value {
        self.compare(Cmp::Eq, a, b)
    }

    /// `a != b` (floats: true when either is NaN).
    pub fn ne(&mut self, a: Value, b: Value) -> Value {
        self.compare(Cmp::Ne, a, b)
    }

    /// `a < b`.
    pub fn lt(&mut self, a: Value, b: Value) -> Value {
        self.compare(Cmp::Lt, a, b)
    }

    /// `a <= b`.
    pub fn le(&mut self, a: Value, b: Value) -> Value {
        self.compare(Cmp::Le, a, b)
    }

    /// `a > b`.
    pub fn gt(&mut self, a: Value, b: Value) -> Value {
        self.compare(Cmp::Gt, a, b)
    }

    /// `a >= b`.
    pub fn ge(&mut self, a: Value, b: Value) -> Value {
        self.compare(Cmp::Ge, a, b)
    }

    /// `-a` (integers wrap: `-i32::MIN` is `i32::MIN`; floats flip the sign bit, a NaN's
    /// too, as Rust's `-` does: an `xor`, since PTX leaves `neg.f32` of a NaN unspecified).
    pub fn neg(&mut self, a: Value) -> Value {
        let ty = a.ty;
        if ty.is_float() {
            return dispatch!(ty.reg_type(), T => Value::of(self.b.flip_sign(a.typed::<T>()), ty), [F32, F64]);
        }
        if ty.is_half() {
            // The `half` crate's `-` flips the sign bit, a NaN's too.
            let bits = self.half_raw_bits(a);
            let flipped = self.b.xor::<U16>(bits, 0x8000u16);
            return self.half_of_raw_bits(flipped, ty);
        }
        let zero = self.cast(Value::from(0u32), ty);
        self.sub(zero, a)
    }

    /// `!a`: bitwise complement for integers, logical not for `bool`.
    pub fn not(&mut self, a: Value) -> Value {
        let ty = a.ty;
        let v = dispatch!(ty.reg_type(), T => Value::of(self.b.not(a.typed::<T>()), ty), [Pred, U32, S32, U64, S64]);
        self.normalize(v)
    }

    /// `if cond { a } else { b }` without branching (both are already computed).
    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = a.ty;
        let pred = cond.typed::<Pred>();
        if ty == Scalar::Bool {
            // (cond & a) | (!cond & b): PTX has no `selp.pred`.
            let keep_a = self.bitand(cond, a);
            let not_cond = self.not(cond);
            let keep_b = self.bitand(not_cond, b);
            return self.bitor(keep_a, keep_b);
        }
        if ty.is_half() {
            // `selp.b16` moves the bits (PTX has no `selp.f16`).
            let (x, y) = (self.half_raw_bits(a), self.half_raw_bits(b));
            let picked = self.b.selp::<U16>(pred, x, y);
            return self.half_of_raw_bits(picked, ty);
        }
        dispatch!(ty.reg_type(), T => Value::of(self.b.selp(pred, a.typed::<T>(), b.typed::<T>()), ty),
            [U32, S32, U64, S64, F32, F64])
    }

    /// `a as to`, with Rust's meaning for every pair of types the language has; for the
    /// 16-bit float storage types, the conversions to `f32`/`f64` (exact) and from `f32`
    /// (rounded to nearest even).
    pub fn cast(&mut self, a: Value, to: Scalar) -> Value {
        let from = a.ty;
        if from == to {
            return a;
        }
        if matches!(from, Scalar::F16 | Scalar::Bf16) {
            let wide = if from == Scalar::F16 {
                self.b.cast::<F32, F16>(a.typed::<F16>())
            } else {
                self.b.cast::<F32, Bf16>(a.typed::<Bf16>())
            };
            return self.cast(Value::of(wide, Scalar::F32), to);
        }
        if matches!(to, Scalar::F16 | Scalar::Bf16) {
            let single = self.cast(a, Scalar::F32).typed::<F32>();
            return if to == Scalar::F16 {
                Value::of(self.b.cast::<F16, F32>(single), to)
            } else {
                Value::of(self.b.cast::<Bf16, F32>(single), to)
            };
        }
        if from == Scalar::Bool {
            let (one, zero) = (Value::from(1u32), Value::from(0u32));
            let v = self.select(a, one, zero);
            return self.cast(v, to);
        }
        if from.is_float() && to.is_int() && to.bits() < 32 {
            // Saturate to i32 first (NaN gives 0), then clamp to the narrow range.
            let wide = self.cast(a, Scalar::I32);
            let (lo, hi) = to.int_range();
            let lo = self.b.max(wide.typed::<S32>(), lo as i32);
            let clamped = self.b.min(lo, hi as i32);
            let v = Value::of(clamped, Scalar::I32);
            return self.retag(v, to);
        }
        let v = self.reg_cast(a, to.reg_type());
        let v = Value::new(v, to);
        if from.is_float() {
            v
        } else {
            self.normalize(v)
        }
    }

    /// Reinterprets a 32-bit integer value that already fits `to` as `to`.
    fn retag(&mut self, v: Value, to: Scalar) -> Value {
        Value::new(self.reg_cast(v, to.reg_type()), to)
    }

    /// `cvt` between register types with Rust's `as` rounding (see `KernelBuilder::cast`).
    fn reg_cast(&mut self, a: Value, to: PtxType) -> ptx_core::ir::Operand {
        macro_rules! from {
            ($D:ident) => {
                dispatch!(a.ty.reg_type(), S => self.b.cast::<$D, S>(a.typed::<S>()).operand(),
                    [U32, S32, U64, S64, F32, F64])
            };
        }
        match to {
            PtxType::U32 => from!(U32),
            PtxType::S32 => from!(S32),
            PtxType::U64 => from!(U64),
            PtxType::S64 => from!(S64),
            PtxType::F32 => from!(F32),
            PtxType::F64 => from!(F64),
            other => internal_error(&format!("a cast to {other}")),
        }
    }
}
