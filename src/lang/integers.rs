//! The integer methods of Rust's standard library that compose from the language's own
//! operations: saturating arithmetic, rotations, `abs_diff`, `signum`, `is_power_of_two`,
//! counts of ones and Euclidean division, each with the meaning the standard library
//! documents for every width (a narrow type's value sits in a 32-bit register, extended as
//! its sign says).

use super::ops::Site;
use super::{KernelCtx, Scalar, Value};

impl KernelCtx {
    /// The constant `v` as a value of integer type `ty` (`v` within its range).
    fn int_constant(&mut self, v: i128, ty: Scalar) -> Value {
        if ty.is_signed() {
            self.cast(Value::from(v as i64), ty)
        } else {
            self.cast(Value::from(v as u64), ty)
        }
    }

    /// The smallest and largest values of integer type `ty`.
    fn int_limits(&mut self, ty: Scalar) -> (Value, Value) {
        let (lo, hi) = ty.int_range();
        (self.int_constant(lo, ty), self.int_constant(hi, ty))
    }

    /// `a.saturating_add(b)`: the sum, or the type's bound it passed.
    pub fn saturating_add(&mut self, a: Value, b: Value) -> Value {
        let sum = self.add(a, b);
        if a.ty().is_signed() {
            // Overflow exactly when both operands' signs differ from the wrapped sum's.
            let (from_a, from_b) = (self.bitxor(a, sum), self.bitxor(b, sum));
            let flags = self.bitand(from_a, from_b);
            self.saturate_signed(a, flags, sum)
        } else {
            let wrapped = self.lt(sum, a);
            let (_, max) = self.int_limits(a.ty());
            self.select(wrapped, max, sum)
        }
    }

    /// `a.saturating_sub(b)`: the difference, or the type's bound it passed.
    pub fn saturating_sub(&mut self, a: Value, b: Value) -> Value {
        let difference = self.sub(a, b);
        if a.ty().is_signed() {
            // Overflow exactly when the operands' signs differ and the result's differs from a's.
            let (operands, from_a) = (self.bitxor(a, b), self.bitxor(a, difference));
            let flags = self.bitand(operands, from_a);
            self.saturate_signed(a, flags, difference)
        } else {
            let below = self.lt(a, b);
            let (min, _) = self.int_limits(a.ty());
            self.select(below, min, difference)
        }
    }

    /// A signed saturating result: `wrapped` where `flags` is not negative (no overflow),
    /// else the bound on `a`'s side (the result overflowed past it).
    fn saturate_signed(&mut self, a: Value, flags: Value, wrapped: Value) -> Value {
        let ty = a.ty();
        let (min, max) = self.int_limits(ty);
        let zero = self.int_constant(0, ty);
        let overflowed = self.lt(flags, zero);
        let negative = self.lt(a, zero);
        let bound = self.select(negative, min, max);
        self.select(overflowed, bound, wrapped)
    }

    /// `x.rotate_left(n)`: the bits of `x` rotated by `n` modulo the width.
    pub fn rotate_left(&mut self, x: Value, n: Value) -> Value {
        self.rotate(x, n, true)
    }

    /// `x.rotate_right(n)`: the bits of `x` rotated by `n` modulo the width.
    pub fn rotate_right(&mut self, x: Value, n: Value) -> Value {
        self.rotate(x, n, false)
    }

    /// A rotation of `x`'s bits by `n` (a `u32`), left or right, in the type's own width.
    fn rotate(&mut self, x: Value, n: Value, left: bool) -> Value {
        let ty = x.ty();
        let width = ty.bits();
        let bits = self.cast(x, ty.unsigned());
        // In the register's unsigned type, so that the right shift brings in zeros and a
        // narrow type's high bits are masked off after the left one.
        let wide = if width == 64 { Scalar::U64 } else { Scalar::U32 };
        let v = self.cast(bits, wide);
        let mask = Value::from(width - 1);
        let by = self.bitand(n, mask);
        let width_less = self.sub(Value::from(width), by);
        let other = self.bitand(width_less, mask);
        let (l, r) = if left { (by, other) } else { (other, by) };
        let high = self.shl(v, l);
        let low = self.shr(v, r);
        let rotated = self.bitor(high, low);
        // Back to the type: the cast keeps the low `width` bits.
        let narrowed = self.cast(rotated, ty.unsigned());
        self.cast(narrowed, ty)
    }

    /// `a.abs_diff(b)`: `|a − b|` as the unsigned type of the same width (never overflows).
    pub fn abs_diff(&mut self, a: Value, b: Value) -> Value {
        let greater = self.gt(a, b);
        let (up, down) = (self.sub(a, b), self.sub(b, a));
        let difference = self.select(greater, up, down);
        self.cast(difference, a.ty().unsigned())
    }

    /// `x.signum()` of a signed integer: −1, 0 or 1.
    pub fn int_signum(&mut self, x: Value) -> Value {
        let ty = x.ty();
        let zero = self.int_constant(0, ty);
        let positive = self.gt(x, zero);
        let negative = self.lt(x, zero);
        let (p, n) = (self.cast(positive, ty), self.cast(negative, ty));
        self.sub(p, n)
    }

    /// `x.is_power_of_two()` of an unsigned integer: exactly one bit set.
    pub fn is_power_of_two(&mut self, x: Value) -> Value {
        let ty = x.ty();
        let (zero, one) = (self.int_constant(0, ty), self.int_constant(1, ty));
        let below = self.sub(x, one);
        let shared = self.bitand(x, below);
        let single = self.eq(shared, zero);
        let nonzero = self.ne(x, zero);
        self.bitand(single, nonzero)
    }

    /// `x.leading_ones()`, a `u32`.
    pub fn leading_ones(&mut self, x: Value) -> Value {
        let flipped = self.not(x);
        self.leading_zeros(flipped)
    }

    /// `x.trailing_ones()`, a `u32`.
    pub fn trailing_ones(&mut self, x: Value) -> Value {
        let flipped = self.not(x);
        self.trailing_zeros(flipped)
    }

    /// `a.rem_euclid(b)`: the remainder in `0..|b|` (integers: a zero divisor, or `MIN` by
    /// −1, is a fault as for `%`), for floats `r + |b|` where `a % b` is negative.
    pub fn rem_euclid(&mut self, a: Value, b: Value, site: Site) -> Value {
        let ty = a.ty();
        let r = self.rem(a, b, site);
        let zero = self.zero_of(ty);
        if !ty.is_signed() && !ty.is_float() {
            return r;
        }
        let negative = self.lt(r, zero);
        let magnitude = if ty.is_float() { self.abs(b) } else { self.wrapping_abs(b) };
        let lifted = self.add(r, magnitude);
        self.select(negative, lifted, r)
    }

    /// `a.div_euclid(b)`: the quotient `q` with `a = b·q + a.rem_euclid(b)` (integers fault as
    /// `/` does), for floats `(a / b).trunc()` moved one step where `a % b` is negative.
    pub fn div_euclid(&mut self, a: Value, b: Value, site: Site) -> Value {
        let ty = a.ty();
        let q = if ty.is_float() {
            let quotient = self.div(a, b, site);
            self.trunc(quotient)
        } else {
            self.div(a, b, site)
        };
        if !ty.is_signed() && !ty.is_float() {
            return q;
        }
        let r = self.rem(a, b, site);
        let zero = self.zero_of(ty);
        let negative = self.lt(r, zero);
        let b_positive = self.gt(b, zero);
        let one = if ty.is_float() { self.cast(Value::from(1.0f64), ty) } else { self.int_constant(1, ty) };
        let (down, up) = (self.sub(q, one), self.add(q, one));
        let stepped = self.select(b_positive, down, up);
        self.select(negative, stepped, q)
    }

    /// `0` of a number type (`false` of `bool`).
    pub(super) fn zero_of(&mut self, ty: Scalar) -> Value {
        match ty {
            Scalar::Bool => Value::from(false),
            _ if ty.is_float() => self.cast(Value::from(0.0f64), ty),
            _ => self.int_constant(0, ty),
        }
    }

    /// `x.wrapping_abs()` of a signed integer (`MIN` stays `MIN`).
    fn wrapping_abs(&mut self, x: Value) -> Value {
        let zero = self.int_constant(0, x.ty());
        let negative = self.lt(x, zero);
        let negated = self.neg(x);
        self.select(negative, negated, x)
    }
}
