//! The methods of `f32`, `f64` and the integer types a kernel may call, each with the
//! meaning Rust's standard library documents. The transcendental functions are ptx-core's
//! accurate routines ([`ptx_core::math`], for `f32` and `f64`); the `fast_*` forms are the
//! hardware `.approx` instructions (`f32` only), whose error the PTX ISA states.

use ptx_core::builder::Val;
use ptx_core::ir::{FloatMode, UnaryOp};
use ptx_core::{math, Cmp, CvtRound, PtxType, B32, B64, F32, F64, S32, S64, U16, U32, U64};

use super::half::HalfTest;
use super::ops::{dispatch, Site};
use super::{internal_error, KernelCtx, Scalar, Value};

/// The float routines of [`ptx_core::math`] and the `fast_*` instructions, by method name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFn {
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
    /// `tan`.
    Tan,
    /// `atan`.
    Atan,
    /// `asin`.
    Asin,
    /// `acos`.
    Acos,
    /// `exp`.
    Exp,
    /// `exp2`.
    Exp2,
    /// `ln`.
    Ln,
    /// `log2`.
    Log2,
    /// `log10`.
    Log10,
    /// `tanh`.
    Tanh,
    /// `cbrt`.
    Cbrt,
    /// `exp_m1`: `e^x − 1`, accurate near 0.
    ExpM1,
    /// `ln_1p`: `ln(1 + x)`, accurate near 0.
    Ln1p,
    /// `sinh`.
    Sinh,
    /// `cosh`.
    Cosh,
    /// `fast_sin`: `sin.approx.f32`.
    FastSin,
    /// `fast_cos`: `cos.approx.f32`.
    FastCos,
    /// `fast_exp2`: `ex2.approx.f32`.
    FastExp2,
    /// `fast_log2`: `lg2.approx.f32`.
    FastLog2,
    /// `fast_recip`: `rcp.approx.f32`.
    FastRecip,
    /// `fast_sqrt`: `sqrt.approx.f32`.
    FastSqrt,
}

impl KernelCtx {
    fn f32_of(v: Value) -> Val<F32> {
        if v.ty() != Scalar::F32 {
            internal_error("an f32 routine on another type");
        }
        v.typed::<F32>()
    }

    /// One of the float routines, on `f32` or `f64` (the `fast_*` ones on `f32` only: the
    /// type checker rejects them on `f64`).
    pub fn float_fn(&mut self, f: FloatFn, x: Value) -> Value {
        if x.ty() == Scalar::F64 {
            let x = x.typed::<F64>();
            let b = &mut self.b;
            let r = match f {
                FloatFn::Sin => math::sin_f64(b, x),
                FloatFn::Cos => math::cos_f64(b, x),
                FloatFn::Tan => math::tan_f64(b, x),
                FloatFn::Atan => math::atan_f64(b, x),
                FloatFn::Asin => math::asin_f64(b, x),
                FloatFn::Acos => math::acos_f64(b, x),
                FloatFn::Exp => math::exp_f64(b, x),
                FloatFn::Exp2 => math::exp2_f64(b, x),
                FloatFn::Ln => math::ln_f64(b, x),
                FloatFn::Log2 => math::log2_f64(b, x),
                FloatFn::Log10 => math::log10_f64(b, x),
                FloatFn::Tanh => math::tanh_f64(b, x),
                FloatFn::Cbrt => math::cbrt_f64(b, x),
                FloatFn::ExpM1 => math::exp_m1_f64(b, x),
                FloatFn::Ln1p => math::ln_1p_f64(b, x),
                FloatFn::Sinh => math::sinh_f64(b, x),
                FloatFn::Cosh => math::cosh_f64(b, x),
                _ => internal_error("an f32-only routine on f64"),
            };
            return Value::of(r, Scalar::F64);
        }
        let x = Self::f32_of(x);
        let b = &mut self.b;
        let r = match f {
            FloatFn::Sin => math::sin(b, x),
            FloatFn::Cos => math::cos(b, x),
            FloatFn::Tan => math::tan(b, x),
            FloatFn::Atan => math::atan(b, x),
            FloatFn::Asin => math::asin(b, x),
            FloatFn::Acos => math::acos(b, x),
            FloatFn::Exp => math::exp(b, x),
            FloatFn::Exp2 => math::exp2(b, x),
            FloatFn::Ln => math::ln(b, x),
            FloatFn::Log2 => math::log2(b, x),
            FloatFn::Log10 => math::log10(b, x),
            FloatFn::Tanh => math::tanh(b, x),
            FloatFn::Cbrt => math::cbrt(b, x),
            FloatFn::ExpM1 => math::exp_m1(b, x),
            FloatFn::Ln1p => math::ln_1p(b, x),
            FloatFn::Sinh => math::sinh(b, x),
            FloatFn::Cosh => math::cosh(b, x),
            FloatFn::FastSin => math::sin_approx(b, x),
            FloatFn::FastCos => math::cos_approx(b, x),
            FloatFn::FastExp2 => math::ex2_approx(b, x),
            FloatFn::FastLog2 => math::lg2_approx(b, x),
            FloatFn::FastRecip => b.float_unary(UnaryOp::Rcp, FloatMode::Approx, x),
            FloatFn::FastSqrt => b.float_unary(UnaryOp::Sqrt, FloatMode::Approx, x),
        };
        Value::of(r, Scalar::F32)
    }

    /// `x.sin_cos()`, sharing the argument reduction.
    pub fn sin_cos(&mut self, x: Value) -> (Value, Value) {
        let ty = x.ty();
        if ty == Scalar::F64 {
            let (s, c) = math::sin_cos_f64(&mut self.b, x.typed::<F64>());
            return (Value::of(s, ty), Value::of(c, ty));
        }
        let (s, c) = math::sin_cos(&mut self.b, Self::f32_of(x));
        (Value::of(s, ty), Value::of(c, ty))
    }

    /// `x.log(base)`: `x.ln() / base.ln()`, as Rust defines it.
    pub fn log(&mut self, x: Value, base: Value) -> Value {
        self.binary_routine(x, base, math::log, math::log_f64)
    }

    /// `y.atan2(x)`: the angle of `(x, y)` in [−π, π].
    pub fn atan2(&mut self, y: Value, x: Value) -> Value {
        self.binary_routine(y, x, math::atan2, math::atan2_f64)
    }

    /// `x.hypot(y)`: `sqrt(x² + y²)` without intermediate overflow.
    pub fn hypot(&mut self, x: Value, y: Value) -> Value {
        self.binary_routine(x, y, math::hypot, math::hypot_f64)
    }

    /// `x.powf(y)`.
    pub fn powf(&mut self, x: Value, y: Value) -> Value {
        self.binary_routine(x, y, math::powf, math::powf_f64)
    }

    /// A two-operand routine in the operands' type.
    fn binary_routine(
        &mut self,
        a: Value,
        c: Value,
        single: fn(&mut ptx_core::KernelBuilder, Val<F32>, Val<F32>) -> Val<F32>,
        double: fn(&mut ptx_core::KernelBuilder, Val<F64>, Val<F64>) -> Val<F64>,
    ) -> Value {
        let ty = a.ty();
        if ty == Scalar::F64 {
            Value::of(double(&mut self.b, a.typed::<F64>(), c.typed::<F64>()), ty)
        } else {
            Value::of(single(&mut self.b, Self::f32_of(a), Self::f32_of(c)), ty)
        }
    }

    /// `x.sqrt()`: `sqrt.rn`, correctly rounded.
    pub fn sqrt(&mut self, x: Value) -> Value {
        let ty = x.ty();
        dispatch!(ty.reg_type(), T => Value::of(self.b.sqrt(x.typed::<T>()), ty), [F32, F64])
    }

    /// `x.recip()`: `1 / x`, correctly rounded.
    pub fn recip(&mut self, x: Value) -> Value {
        let one = self.cast(Value::from(1.0f64), x.ty());
        dispatch!(x.ty().reg_type(), T => Value::of(self.b.div(one.typed::<T>(), x.typed::<T>()), x.ty()), [F32, F64])
    }

    /// `x.abs()`: clears the sign bit of a float, a NaN's too, keeping its payload as Rust's
    /// `abs` does (an `and`, since PTX leaves `abs.f32` of a NaN unspecified); wraps at `MIN`
    /// for integers.
    pub fn abs(&mut self, x: Value) -> Value {
        let ty = x.ty();
        if ty.is_float() {
            return dispatch!(ty.reg_type(), T => Value::of(self.b.clear_sign(x.typed::<T>()), ty), [F32, F64]);
        }
        let v = dispatch!(ty.reg_type(), T => Value::of(self.b.abs(x.typed::<T>()), ty), [S32, S64]);
        self.normalize(v)
    }

    /// `a.min(b)`: for floats, the other operand when one is NaN.
    pub fn min(&mut self, a: Value, b: Value) -> Value {
        let ty = a.ty();
        if ty.is_half() {
            return self.half_extreme(a, b, false);
        }
        if ty == Scalar::Bool {
            // `false < true`.
            return self.bitand(a, b);
        }
        dispatch!(ty.reg_type(), T => Value::of(self.b.min(a.typed::<T>(), b.typed::<T>()), ty),
            [U32, S32, U64, S64, F32, F64])
    }

    /// `a.max(b)`: for floats, the other operand when one is NaN.
    pub fn max(&mut self, a: Value, b: Value) -> Value {
        let ty = a.ty();
        if ty.is_half() {
            return self.half_extreme(a, b, true);
        }
        if ty == Scalar::Bool {
            return self.bitor(a, b);
        }
        dispatch!(ty.reg_type(), T => Value::of(self.b.max(a.typed::<T>(), b.typed::<T>()), ty),
            [U32, S32, U64, S64, F32, F64])
    }

    /// `x.mul_add(a, b)`: `x * a + b` with one rounding (`fma.rn`).
    pub fn mul_add(&mut self, x: Value, a: Value, b: Value) -> Value {
        let ty = x.ty();
        dispatch!(ty.reg_type(), T => Value::of(self.b.fma(x.typed::<T>(), a.typed::<T>(), b.typed::<T>()), ty),
            [F32, F64])
    }

    /// A float rounded to an integral value with `cvt.rXi` (`floor` `ceil` `trunc` `round_ties_even`).
    pub(crate) fn round_op(&mut self, x: Value, mode: CvtRound) -> Value {
        let ty = x.ty();
        dispatch!(ty.reg_type(), T => Value::of(self.b.cvt::<T, T>(x.typed::<T>(), Some(mode), false), ty), [F32, F64])
    }

    /// `x.floor()`.
    pub fn floor(&mut self, x: Value) -> Value {
        self.round_op(x, CvtRound::Rmi)
    }

    /// `x.ceil()`.
    pub fn ceil(&mut self, x: Value) -> Value {
        self.round_op(x, CvtRound::Rpi)
    }

    /// `x.trunc()`.
    pub fn trunc(&mut self, x: Value) -> Value {
        self.round_op(x, CvtRound::Rzi)
    }

    /// `x.round_ties_even()`: `cvt.rni`, half-way cases to even.
    pub fn round_ties_even(&mut self, x: Value) -> Value {
        self.round_op(x, CvtRound::Rni)
    }

    /// `x.round()`: half-way cases away from zero (PTX's `cvt.rni` rounds them to even).
    /// `t = trunc(x)`; `x - t` is exact, and when `|x - t| >= 0.5` the result is `t` moved
    /// one away from zero. Infinities and NaN come through `t`.
    pub fn round(&mut self, x: Value) -> Value {
        let ty = x.ty();
        let t = self.trunc(x);
        let diff = self.sub(x, t);
        let diff = self.abs(diff);
        let half = self.cast(Value::from(0.5f64), ty);
        let away = self.ge(diff, half);
        let one = self.cast(Value::from(1.0f64), ty);
        let step = self.copysign(one, x);
        let moved = self.add(t, step);
        self.select(away, moved, t)
    }

    /// `x.fract()`: `x - x.trunc()`.
    pub fn fract(&mut self, x: Value) -> Value {
        let t = self.trunc(x);
        self.sub(x, t)
    }

    /// `x.copysign(sign)`: `x`'s magnitude with `sign`'s sign bit.
    pub fn copysign(&mut self, x: Value, sign: Value) -> Value {
        let ty = x.ty();
        if ty.is_half() {
            return self.half_copysign(x, sign);
        }
        match ty.reg_type() {
            PtxType::F32 => {
                let (m, s) = (
                    self.b.bitcast::<B32, F32>(x.typed::<F32>()),
                    self.b.bitcast::<B32, F32>(sign.typed::<F32>()),
                );
                let m = self.b.and(m, Val::<B32>::Imm(0x7fff_ffff));
                let s = self.b.and(s, Val::<B32>::Imm(0x8000_0000));
                let bits = self.b.or(m, s);
                Value::of(self.b.bitcast::<F32, B32>(bits), ty)
            }
            PtxType::F64 => {
                let (m, s) = (
                    self.b.bitcast::<B64, F64>(x.typed::<F64>()),
                    self.b.bitcast::<B64, F64>(sign.typed::<F64>()),
                );
                let m = self.b.and(m, Val::<B64>::Imm(0x7fff_ffff_ffff_ffff));
                let s = self.b.and(s, Val::<B64>::Imm(0x8000_0000_0000_0000));
                let bits = self.b.or(m, s);
                Value::of(self.b.bitcast::<F64, B64>(bits), ty)
            }
            other => internal_error(&format!("copysign on {other}")),
        }
    }

    /// `x.signum()`: Rust's `NAN` constant (not `x`'s own NaN) for NaN, else 1.0 with `x`'s
    /// sign (so `-0.0` gives `-1.0`).
    pub fn signum(&mut self, x: Value) -> Value {
        if x.ty().is_half() {
            return self.half_signum(x);
        }
        let one = self.cast(Value::from(1.0f64), x.ty());
        let r = self.copysign(one, x);
        let nan = self.is_nan(x);
        let canonical = if x.ty() == Scalar::F32 { Value::from(f32::NAN) } else { Value::from(f64::NAN) };
        self.select(nan, canonical, r)
    }

    /// `x.is_nan()`.
    pub fn is_nan(&mut self, x: Value) -> Value {
        if x.ty().is_half() {
            return self.half_test(x, HalfTest::Nan);
        }
        let v = dispatch!(x.ty().reg_type(), T => self.b.setp::<T>(Cmp::Nan, x.typed::<T>(), x.typed::<T>()), [F32, F64]);
        Value::of(v, Scalar::Bool)
    }

    /// `x.is_finite()`: neither infinite nor NaN.
    pub fn is_finite(&mut self, x: Value) -> Value {
        if x.ty().is_half() {
            return self.half_test(x, HalfTest::Finite);
        }
        let a = self.abs(x);
        let inf = self.cast(Value::from(f64::INFINITY), x.ty());
        self.lt(a, inf)
    }

    /// `x.is_infinite()`.
    pub fn is_infinite(&mut self, x: Value) -> Value {
        if x.ty().is_half() {
            return self.half_test(x, HalfTest::Infinite);
        }
        let a = self.abs(x);
        let inf = self.cast(Value::from(f64::INFINITY), x.ty());
        self.eq(a, inf)
    }

    /// `x.is_normal()`: neither zero, subnormal, infinite nor NaN.
    pub fn is_normal(&mut self, x: Value) -> Value {
        if x.ty().is_half() {
            return self.half_test(x, HalfTest::Normal);
        }
        let a = self.abs(x);
        let smallest = self.smallest_normal(x.ty());
        let inf = self.cast(Value::from(f64::INFINITY), x.ty());
        let (large_enough, finite) = (self.ge(a, smallest), self.lt(a, inf));
        self.bitand(large_enough, finite)
    }

    /// `x.is_subnormal()`: not zero, and smaller in magnitude than the smallest normal value.
    pub fn is_subnormal(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let smallest = self.smallest_normal(x.ty());
        let zero = self.cast(Value::from(0.0f64), x.ty());
        let (small, nonzero) = (self.lt(a, smallest), self.gt(a, zero));
        self.bitand(small, nonzero)
    }

    /// `MIN_POSITIVE` of float type `ty`: its smallest normal magnitude.
    fn smallest_normal(&mut self, ty: Scalar) -> Value {
        let smallest = if ty == Scalar::F32 { f64::from(f32::MIN_POSITIVE) } else { f64::MIN_POSITIVE };
        self.cast(Value::from(smallest), ty)
    }

    /// `x.is_sign_negative()`: the sign bit, also of `-0.0` and NaN.
    pub fn is_sign_negative(&mut self, x: Value) -> Value {
        if x.ty().is_half() {
            return self.half_test(x, HalfTest::SignNegative);
        }
        let one = self.cast(Value::from(1.0f64), x.ty());
        let signed_one = self.copysign(one, x);
        let zero = self.cast(Value::from(0.0f64), x.ty());
        self.lt(signed_one, zero)
    }

    /// `x.is_sign_positive()`.
    pub fn is_sign_positive(&mut self, x: Value) -> Value {
        let negative = self.is_sign_negative(x);
        self.not(negative)
    }

    /// `x.clamp(lo, hi)` as the standard library computes it: `lo` when `x < lo`, then `hi`
    /// when `x > hi`, else `x` (so a NaN `x` stays NaN). Where std panics, `lo > hi` or a NaN
    /// bound, a checked kernel records a panic at `site` and the thread stops there.
    pub fn clamp(&mut self, x: Value, lo: Value, hi: Value, site: Site) -> Value {
        let ordered = self.le(lo, hi);
        let unordered = self.not(ordered);
        // The start of std's messages (which go on with the values), or the `half` crate's
        // assertion (its `lo <= hi` fails for a NaN bound too).
        let message = if x.ty().is_half() {
            "assertion failed: min <= max"
        } else if x.ty().is_float() {
            "min > max, or either was NaN"
        } else {
            "min > max"
        };
        self.panic_and_stop_if(unordered, site, message);
        let below = self.lt(x, lo);
        let t = self.select(below, lo, x);
        let above = self.gt(t, hi);
        self.select(above, hi, t)
    }

    /// `x.to_radians()`: `x * (π / 180)`, the constant rounded to `x`'s type as std does.
    pub fn to_radians(&mut self, x: Value) -> Value {
        let k = if x.ty() == Scalar::F32 {
            Value::from(std::f32::consts::PI / 180.0f32)
        } else {
            Value::from(std::f64::consts::PI / 180.0f64)
        };
        self.mul(x, k)
    }

    /// `x.to_degrees()`: `x * (180 / π)`, with std's constant.
    pub fn to_degrees(&mut self, x: Value) -> Value {
        let k = if x.ty() == Scalar::F32 {
            Value::from(57.295_78_f32)
        } else {
            Value::from(180.0f64 / std::f64::consts::PI)
        };
        self.mul(x, k)
    }

    /// `x.powi(n)` by square-and-multiply over the bits of `n`, in the order compiler-rt's
    /// `__powisf2` uses (what Rust's `powi` calls on the host), `1 / r` for negative `n`.
    /// A constant `n` is unrolled while the kernel is built.
    pub fn powi(&mut self, x: Value, n: Value) -> Value {
        let one = self.cast(Value::from(1.0f64), x.ty());
        let Some(bits) = n.as_bits() else {
            return self.powi_loop(x, n, one);
        };
        let n = bits as u32 as i32;
        let (mut r, mut a, mut e) = (one, x, n);
        loop {
            if e & 1 != 0 {
                r = self.mul(r, a);
            }
            e /= 2;
            if e == 0 {
                break;
            }
            a = self.mul(a, a);
        }
        if n < 0 {
            self.recip(r)
        } else {
            r
        }
    }

    fn powi_loop(&mut self, x: Value, n: Value, one: Value) -> Value {
        let r = self.var(one);
        let a = self.var(x);
        let e = self.var(n);
        let (head, done) = (self.label(), self.label());
        self.place(head);
        let odd = self.bitand(e, Value::from(1i32));
        let is_odd = self.ne(odd, Value::from(0i32));
        let skip = self.label();
        self.jump_unless(is_odd, skip);
        let product = self.mul(r, a);
        self.assign(r, product);
        self.place(skip);
        let half = self.int_halve(e);
        self.assign(e, half);
        let finished = self.eq(e, Value::from(0i32));
        self.jump_if(finished, done);
        let square = self.mul(a, a);
        self.assign(a, square);
        self.jump(head);
        self.place(done);
        let negative = self.lt(n, Value::from(0i32));
        let inverse = self.recip(r);
        self.select(negative, inverse, r)
    }

    /// `e / 2` for an `i32` (truncating), without the divisor checks of `/`.
    fn int_halve(&mut self, e: Value) -> Value {
        Value::of(self.b.div(e.typed::<S32>(), 2i32), Scalar::I32)
    }

    /// The bits of integer `x` as an unsigned value of its register width (a narrow type's
    /// sign extension masked off), and that width.
    pub(super) fn bits_of(&mut self, x: Value) -> (Value, u32) {
        let v = self.cast(x, x.ty().unsigned());
        let (width, wide) = if v.ty().bits() == 64 { (64, Scalar::U64) } else { (32, Scalar::U32) };
        // The register already holds the value zero-extended: only the tag changes.
        (Value::new(v.operand(), wide), width)
    }

    /// Population count of a 32- or 64-bit unsigned value, by the classic SWAR sums (PTX's
    /// `popc` is not in the builder yet; ptxas gives this a handful of instructions).
    fn popcount(&mut self, v: Value, width: u32) -> Value {
        let k = |c: u64| if width == 64 { Value::from(c) } else { Value::from(c as u32) };
        let half = self.shr(v, Value::from(1u32));
        let m1 = self.bitand(half, k(0x5555_5555_5555_5555));
        let v = self.sub(v, m1);
        let lo = self.bitand(v, k(0x3333_3333_3333_3333));
        let shifted = self.shr(v, Value::from(2u32));
        let hi = self.bitand(shifted, k(0x3333_3333_3333_3333));
        let v = self.add(lo, hi);
        let shifted = self.shr(v, Value::from(4u32));
        let sum = self.add(v, shifted);
        let v = self.bitand(sum, k(0x0f0f_0f0f_0f0f_0f0f));
        let bytes = self.mul(v, k(0x0101_0101_0101_0101));
        let total = self.shr(bytes, Value::from(width - 8));
        self.cast(total, Scalar::U32)
    }

    /// `x.to_bits()`: the bits of an `f32` as a `u32`, of an `f64` as a `u64` (the register's
    /// bits, unchanged: NaN payloads included).
    pub fn to_bits(&mut self, x: Value) -> Value {
        match x.ty() {
            Scalar::F32 => Value::of(self.b.bitcast::<U32, F32>(x.typed::<F32>()), Scalar::U32),
            Scalar::F64 => Value::of(self.b.bitcast::<U64, F64>(x.typed::<F64>()), Scalar::U64),
            // A `u16` lives in a 32-bit register: the 16 bits, widened.
            Scalar::F16 | Scalar::Bf16 => {
                let bits = self.half_raw_bits(x);
                Value::of(self.b.cvt::<U32, U16>(bits, None, false), Scalar::U16)
            }
            other => internal_error(&format!("to_bits of a {}", other.name())),
        }
    }

    /// `f32::from_bits(x)` for a `u32`, `f64::from_bits(x)` for a `u64`: the float with those
    /// bits.
    pub fn from_bits(&mut self, x: Value) -> Value {
        match x.ty() {
            Scalar::U32 => Value::of(self.b.bitcast::<F32, U32>(x.typed::<U32>()), Scalar::F32),
            Scalar::U64 => Value::of(self.b.bitcast::<F64, U64>(x.typed::<U64>()), Scalar::F64),
            other => internal_error(&format!("from_bits of a {}", other.name())),
        }
    }

    /// `f16::from_bits(x)` or `bf16::from_bits(x)` (`ty`) for a `u16`: the half with those bits.
    pub fn half_from_bits(&mut self, x: Value, ty: Scalar) -> Value {
        // The `u16`'s 32-bit register, narrowed to its 16 bits.
        let bits = self.b.cvt::<U16, U32>(x.typed::<U32>(), None, false);
        self.half_of_raw_bits(bits, ty)
    }

    /// `x.count_ones()`, a `u32`.
    pub fn count_ones(&mut self, x: Value) -> Value {
        let (v, width) = self.bits_of(x);
        self.popcount(v, width)
    }

    /// `x.leading_zeros()`, a `u32`: the width minus the population of `x` with every bit
    /// below its highest set bit set.
    pub fn leading_zeros(&mut self, x: Value) -> Value {
        let type_bits = x.ty().bits();
        let (mut v, width) = self.bits_of(x);
        let mut shift = 1;
        while shift < width {
            let s = self.shr(v, Value::from(shift));
            v = self.bitor(v, s);
            shift *= 2;
        }
        let ones = self.popcount(v, width);
        let zeros = self.sub(Value::from(width), ones);
        // A narrow type sits in the low bits of a 32-bit register.
        self.sub(zeros, Value::from(width - type_bits.max(8).min(width)))
    }

    /// `x.trailing_zeros()`, a `u32` (the width for 0).
    pub fn trailing_zeros(&mut self, x: Value) -> Value {
        let type_bits = x.ty().bits();
        let (v, width) = self.bits_of(x);
        let zero = self.cast(Value::from(0u32), v.ty());
        let negated = self.sub(zero, v);
        let lowest = self.bitand(v, negated);
        let one = self.cast(Value::from(1u32), v.ty());
        let below = self.sub(lowest, one);
        let count = self.popcount(below, width);
        self.min(count, Value::from(type_bits))
    }

    /// `x.pow(n)` for integers (`n: u32`), wrapping like release-mode Rust.
    pub fn int_pow(&mut self, x: Value, n: Value) -> Value {
        let one = self.cast(Value::from(1u32), x.ty());
        if let Some(bits) = n.as_bits() {
            let (mut acc, mut base, mut e) = (one, x, bits as u32);
            while e > 0 {
                if e & 1 == 1 {
                    acc = self.mul(acc, base);
                }
                e >>= 1;
                if e > 0 {
                    base = self.mul(base, base);
                }
            }
            return acc;
        }
        let acc = self.var(one);
        let base = self.var(x);
        let e = self.var(n);
        let (head, done, skip) = (self.label(), self.label(), self.label());
        self.place(head);
        let finished = self.eq(e, Value::from(0u32));
        self.jump_if(finished, done);
        let odd = self.bitand(e, Value::from(1u32));
        let is_odd = self.ne(odd, Value::from(0u32));
        self.jump_unless(is_odd, skip);
        let product = self.mul(acc, base);
        self.assign(acc, product);
        self.place(skip);
        let half = Value::of(self.b.shr(e.typed::<U32>(), 1u32), Scalar::U32);
        self.assign(e, half);
        let square = self.mul(base, base);
        self.assign(base, square);
        self.jump(head);
        self.place(done);
        acc
    }
}
