//! The integer methods of Rust's standard library that compose from the language's own
//! operations: saturating and wrapping arithmetic, rounded-up division, rotations, byte and bit reversal,
//! `abs_diff`, `signum`, `is_power_of_two`, `next_power_of_two`, `ilog2`, counts of ones
//! and zeros and Euclidean division, each with the meaning the standard library documents
//! for every width (a narrow type's value sits in a 32-bit register, extended as its sign
//! says), overflow wrapping as in a release build.

use ptx_core::{PtxType, S64, U64};

use super::ops::{dispatch, Site};
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

    /// `x.unsigned_abs()` of a signed integer: `|x|` as the unsigned type of the same width
    /// (`MIN`'s magnitude included).
    pub fn unsigned_abs(&mut self, x: Value) -> Value {
        let magnitude = self.wrapping_abs(x);
        self.cast(magnitude, x.ty().unsigned())
    }

    /// `x.is_positive()` of a signed integer.
    pub fn is_positive(&mut self, x: Value) -> Value {
        let zero = self.int_constant(0, x.ty());
        self.gt(x, zero)
    }

    /// `x.is_negative()` of a signed integer.
    pub fn is_negative(&mut self, x: Value) -> Value {
        let zero = self.int_constant(0, x.ty());
        self.lt(x, zero)
    }

    /// `x.count_zeros()`, a `u32`: the type's width less its ones.
    pub fn count_zeros(&mut self, x: Value) -> Value {
        let ones = self.count_ones(x);
        self.sub(Value::from(x.ty().bits()), ones)
    }

    /// `a.wrapping_div(b)`: `a / b`, with `MIN / −1` wrapping to `MIN` (a zero divisor is
    /// the fault `/` has).
    pub fn wrapping_div(&mut self, a: Value, b: Value, site: Site) -> Value {
        let b = self.without_division_overflow(a, b);
        self.div(a, b, site)
    }

    /// `a.wrapping_rem(b)`: `a % b`, with `MIN % −1` wrapping to 0 (a zero divisor is the
    /// fault `%` has).
    pub fn wrapping_rem(&mut self, a: Value, b: Value, site: Site) -> Value {
        let b = self.without_division_overflow(a, b);
        self.rem(a, b, site)
    }

    /// The divisor `b` with `−1` under `MIN` (the signed division that overflows) replaced
    /// by 1, whose quotient `MIN` and remainder 0 are the wrapped ones.
    fn without_division_overflow(&mut self, a: Value, b: Value) -> Value {
        let Some(overflows) = self.division_overflows(a, b) else { return b };
        let one = self.int_constant(1, a.ty());
        self.select(overflows, one, b)
    }

    /// `a.saturating_mul(b)`: the product, or the type's bound it passed.
    pub fn saturating_mul(&mut self, a: Value, b: Value) -> Value {
        let ty = a.ty();
        let (min, max) = self.int_limits(ty);
        if ty.bits() < 64 {
            // The exact product fits 64 bits: clamp it to the type's range.
            let wide = if ty.is_signed() { Scalar::I64 } else { Scalar::U64 };
            let (wa, wb) = (self.cast(a, wide), self.cast(b, wide));
            let product = self.mul(wa, wb);
            let (lo, hi) = (self.cast(min, wide), self.cast(max, wide));
            let (below, above) = (self.lt(product, lo), self.gt(product, hi));
            let narrowed = self.cast(product, ty);
            let clamped = self.select(below, min, narrowed);
            return self.select(above, max, clamped);
        }
        let low = self.mul(a, b);
        let high = dispatch!(ty.reg_type(), T => Value::of(self.b.mul_hi(a.typed::<T>(), b.typed::<T>()), ty), [U64, S64]);
        if ty.is_signed() {
            // The product fits when its high half is the low half's sign extension; past
            // the range it saturates toward the sign the operands' signs give.
            let sign = self.shr(low, Value::from(63u32));
            let fits = self.eq(high, sign);
            let signs = self.bitxor(a, b);
            let zero = self.int_constant(0, ty);
            let negative = self.lt(signs, zero);
            let bound = self.select(negative, min, max);
            self.select(fits, low, bound)
        } else {
            let zero = self.int_constant(0, ty);
            let fits = self.eq(high, zero);
            self.select(fits, low, max)
        }
    }

    /// `x.swap_bytes()`: the bytes in reverse order.
    pub fn swap_bytes(&mut self, x: Value) -> Value {
        self.reverse_units(x, 8)
    }

    /// `x.reverse_bits()`: the bits in reverse order.
    pub fn reverse_bits(&mut self, x: Value) -> Value {
        self.reverse_units(x, 1)
    }

    /// `x` with its units of `unit` bits (1 or 8) in reverse order: neighbouring groups of
    /// `unit`, `2·unit`, ... bits swapped in the register's width, then a narrow type's
    /// result moved down from the register's top.
    fn reverse_units(&mut self, x: Value, unit: u32) -> Value {
        const MASKS: [(u32, u64); 6] = [
            (1, 0x5555_5555_5555_5555),
            (2, 0x3333_3333_3333_3333),
            (4, 0x0f0f_0f0f_0f0f_0f0f),
            (8, 0x00ff_00ff_00ff_00ff),
            (16, 0x0000_ffff_0000_ffff),
            (32, 0x0000_0000_ffff_ffff),
        ];
        let ty = x.ty();
        let (mut v, width) = self.bits_of(x);
        let constant = |c: u64| if width == 64 { Value::from(c) } else { Value::from(c as u32) };
        for (shift, mask) in MASKS.into_iter().filter(|&(s, _)| s >= unit && s < width) {
            let (by, m) = (Value::from(shift), constant(mask));
            let down = self.shr(v, by);
            let high_to_low = self.bitand(down, m);
            let low = self.bitand(v, m);
            let low_to_high = self.shl(low, by);
            v = self.bitor(high_to_low, low_to_high);
        }
        let v = self.shr(v, Value::from(width - ty.bits()));
        let bits = self.cast(v, ty.unsigned());
        self.cast(bits, ty)
    }

    /// `x.next_power_of_two()` of an unsigned integer: the smallest power of two at least
    /// `x` (1 for 0), or 0 where that does not fit the type (a release build's wrapping).
    pub fn next_power_of_two(&mut self, x: Value) -> Value {
        let ty = x.ty();
        let one = self.int_constant(1, ty);
        let below = self.sub(x, one);
        let used = self.leading_zeros(below);
        let exponent = self.sub(Value::from(ty.bits()), used);
        let fits = self.lt(exponent, Value::from(ty.bits()));
        let power = self.shl(one, exponent);
        let zero = self.int_constant(0, ty);
        let power = self.select(fits, power, zero);
        let small = self.le(x, one);
        self.select(small, one, power)
    }

    /// `x.ilog2()`, a `u32`: the position of the highest set bit. `x ≤ 0` is Rust's panic,
    /// a fault at `site` (in an unchecked kernel the value is then meaningless).
    pub fn ilog2(&mut self, x: Value, site: Site) -> Value {
        self.require_log_argument(x, site);
        let zeros = self.leading_zeros(x);
        let top = Value::from(x.ty().bits() - 1);
        self.sub(top, zeros)
    }

    /// Rust's panic at `site` for an integer logarithm of `x` not positive.
    fn require_log_argument(&mut self, x: Value, site: Site) {
        let zero = self.int_constant(0, x.ty());
        let not_positive = self.le(x, zero);
        self.panic_if(not_positive, site, "argument of integer logarithm must be positive");
    }

    /// `a.div_ceil(b)` of unsigned integers: the quotient rounded up (a zero divisor is the
    /// fault `/` has).
    pub fn div_ceil(&mut self, a: Value, b: Value, site: Site) -> Value {
        let (quotient, remainder) = (self.div(a, b, site), self.rem(a, b, site));
        let zero = self.int_constant(0, a.ty());
        let inexact = self.ne(remainder, zero);
        let up = self.cast(inexact, a.ty());
        self.add(quotient, up)
    }

    /// `x.cast_signed()` / `x.cast_unsigned()`: the same bits as the integer type of the
    /// other signedness.
    pub fn cast_signed(&mut self, x: Value) -> Value {
        self.cast(x, x.ty().signed())
    }

    /// See [`Self::cast_signed`].
    pub fn cast_unsigned(&mut self, x: Value) -> Value {
        self.cast(x, x.ty().unsigned())
    }

    /// `a.unbounded_shl(n)` (`n` a `u32`): `a << n`, and 0 once `n` reaches the width.
    pub fn unbounded_shl(&mut self, a: Value, n: Value) -> Value {
        let zero = self.int_constant(0, a.ty());
        self.unbounded_shift(a, n, zero, true)
    }

    /// `a.unbounded_shr(n)` (`n` a `u32`): `a >> n`, and once `n` reaches the width 0 (-1
    /// for a negative signed `a`, every bit its sign).
    pub fn unbounded_shr(&mut self, a: Value, n: Value) -> Value {
        let ty = a.ty();
        let zero = self.int_constant(0, ty);
        let fill = if ty.is_signed() {
            let negative = self.lt(a, zero);
            let minus_one = self.int_constant(-1, ty);
            self.select(negative, minus_one, zero)
        } else {
            zero
        };
        self.unbounded_shift(a, n, fill, false)
    }

    /// `a << n` or `a >> n` (`left`), `past` once `n` reaches the width.
    fn unbounded_shift(&mut self, a: Value, n: Value, past: Value, left: bool) -> Value {
        let shifted = if left { self.shl(a, n) } else { self.shr(a, n) };
        let width = Value::from(a.ty().bits());
        let beyond = self.ge(n, width);
        self.select(beyond, past, shifted)
    }

    /// `a.midpoint(b)`: for integers `(a + b) / 2` as if in a wider type, rounded down for
    /// unsigned ones and toward zero for signed ones; for floats std's too (f32 through f64,
    /// f64 halving first where the sum could overflow or a half underflow).
    pub fn midpoint(&mut self, a: Value, b: Value) -> Value {
        let ty = a.ty();
        if ty == Scalar::F32 {
            let (wa, wb) = (self.cast(a, Scalar::F64), self.cast(b, Scalar::F64));
            let sum = self.add(wa, wb);
            let two = Value::from(2.0f64);
            let half = self.float_div(sum, two);
            return self.cast(half, Scalar::F32);
        }
        if ty == Scalar::F64 {
            return self.f64_midpoint(a, b);
        }
        let (both, either) = (self.bitand(a, b), self.bitxor(a, b));
        let one = self.int_constant(1, ty);
        let half = self.shr(either, one);
        // `floor((a + b) / 2)`, without overflow.
        let floor = self.add(both, half);
        if !ty.is_signed() {
            return floor;
        }
        // Toward zero: one up where the sum is negative and odd.
        let zero = self.int_constant(0, ty);
        let odd_bit = self.bitand(either, one);
        let odd = self.ne(odd_bit, zero);
        let negative = self.lt(floor, zero);
        let up = self.bitand(odd, negative);
        let step = self.cast(up, ty);
        self.add(floor, step)
    }

    /// std's `f64::midpoint`: `(a + b) / 2` where neither is above `f64::MAX / 2`, else the
    /// halves' sum, halving only an operand that stays normal.
    fn f64_midpoint(&mut self, a: Value, b: Value) -> Value {
        let (low, high) = (Value::from(f64::MIN_POSITIVE * 2.0), Value::from(f64::MAX / 2.0));
        let two = Value::from(2.0f64);
        let (abs_a, abs_b) = (self.abs(a), self.abs(b));
        let (a_small, b_small) = (self.le(abs_a, high), self.le(abs_b, high));
        let no_overflow = self.bitand(a_small, b_small);
        let sum = self.add(a, b);
        let plain = self.float_div(sum, two);
        let (half_a, half_b) = (self.float_div(a, two), self.float_div(b, two));
        let keep_a = self.add(a, half_b);
        let keep_b = self.add(half_a, b);
        let both_halved = self.add(half_a, half_b);
        let (a_tiny, b_tiny) = (self.lt(abs_a, low), self.lt(abs_b, low));
        let otherwise = self.select(b_tiny, keep_b, both_halved);
        let otherwise = self.select(a_tiny, keep_a, otherwise);
        self.select(no_overflow, plain, otherwise)
    }

    /// `x.isqrt()`: the integer square root, rounded down; a negative signed `x` is Rust's
    /// panic at `site`. From the f64 square root, corrected by one where the f64 rounding
    /// of a 64-bit `x` made it one off.
    pub fn isqrt(&mut self, x: Value, site: Site) -> Value {
        let ty = x.ty();
        if ty.is_signed() {
            let zero = self.int_constant(0, ty);
            let negative = self.lt(x, zero);
            self.panic_if(negative, site, "argument of integer square root cannot be negative");
        }
        let unsigned = ty.unsigned();
        let u = self.cast(x, unsigned);
        let wide = self.cast(u, Scalar::F64);
        let root = self.sqrt(wide);
        // At most 2^(bits/2) − 1, whose square fits the type.
        let largest = self.int_constant((1i128 << (unsigned.bits() / 2)) - 1, unsigned);
        let guess = self.cast(root, unsigned);
        let guess = self.min(guess, largest);
        let square = self.mul(guess, guess);
        let over = self.gt(square, u);
        let one = self.int_constant(1, unsigned);
        let lowered = self.sub(guess, one);
        let guess = self.select(over, lowered, guess);
        // One more where (guess + 1)^2 still fits below x (guess below the largest root).
        let next = self.add(guess, one);
        let next_square = self.mul(next, next);
        let room = self.lt(guess, largest);
        let fits = self.le(next_square, u);
        let raise = self.bitand(room, fits);
        let root = self.select(raise, next, guess);
        self.cast(root, ty)
    }

    /// `x.ilog10()`: how many powers of ten from 10 up are at most `x` (a value that is not
    /// positive is Rust's panic at `site`).
    pub fn ilog10(&mut self, x: Value, site: Site) -> Value {
        let ty = x.ty();
        self.require_log_argument(x, site);
        let (_, max) = ty.int_range();
        let mut count = Value::from(0u32);
        let mut power: i128 = 10;
        while power <= max {
            let p = self.int_constant(power, ty);
            let reached = self.ge(x, p);
            let step = self.cast(reached, Scalar::U32);
            count = self.add(count, step);
            power *= 10;
        }
        count
    }

    /// `a.is_multiple_of(b)` of unsigned integers: whether `a % b` is 0, and for a zero `b`
    /// whether `a` is 0 (std's definition, which never panics).
    pub fn is_multiple_of(&mut self, a: Value, b: Value) -> Value {
        let ty = a.ty();
        let (zero, one) = (self.int_constant(0, ty), self.int_constant(1, ty));
        let by_zero = self.eq(b, zero);
        let divisor = self.select(by_zero, one, b);
        let remainder = self.int_rem(a, divisor);
        let exact = self.eq(remainder, zero);
        let a_zero = self.eq(a, zero);
        self.select(by_zero, a_zero, exact)
    }

    /// `a.next_multiple_of(b)` of unsigned integers: the smallest multiple of `b` at least
    /// `a`, wrapping past the type as in a release build (a zero `b` is the fault `%` has).
    pub fn next_multiple_of(&mut self, a: Value, b: Value, site: Site) -> Value {
        let remainder = self.rem(a, b, site);
        let zero = self.int_constant(0, a.ty());
        let exact = self.eq(remainder, zero);
        let missing = self.sub(b, remainder);
        let raised = self.add(a, missing);
        self.select(exact, a, raised)
    }

    /// `x.wrapping_abs()` of a signed integer (`MIN` stays `MIN`).
    pub fn wrapping_abs(&mut self, x: Value) -> Value {
        let zero = self.int_constant(0, x.ty());
        let negative = self.lt(x, zero);
        let negated = self.neg(x);
        self.select(negative, negated, x)
    }
}
