//! IEEE-754 binary arithmetic with an explicit rounding direction, on raw bit patterns: the
//! one float semantics of the project. The builder folds constants with it
//! ([`crate::eval`]) and `ptx-sim` executes float instructions with it, so a folded
//! constant and the simulated instruction give the same bits, NaNs included.
//!
//! The host FPU only rounds to nearest, so `.rz`, `.rm` and `.rp` (and every format
//! conversion, including f16/bf16) are done here exactly: each operation builds the exact
//! result (or a result with a "sticky" bit standing for the discarded tail) as an integer
//! significand times a power of two, and [`round_pack`] rounds that once into the target
//! format, handling subnormals, overflow and ties. For f32 and f64 with round-to-nearest the
//! public functions use the host's correctly rounded operations, which are much faster; the
//! tests check the exact path against them bit for bit.
//!
//! NaN results are the canonical NaN of the format (all bits set except the sign), as on
//! NVIDIA GPUs. Subnormals are never flushed.

use std::cmp::Ordering;

/// A rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rnd {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
}

/// A binary floating-point format: fraction bits and exponent bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fmt {
    frac: u32,
    exp: u32,
}

/// IEEE binary16.
pub const F16: Fmt = Fmt { frac: 10, exp: 5 };
/// bfloat16.
pub const BF16: Fmt = Fmt { frac: 7, exp: 8 };
/// IEEE binary32.
pub const F32: Fmt = Fmt { frac: 23, exp: 8 };
/// IEEE binary64.
pub const F64: Fmt = Fmt { frac: 52, exp: 11 };

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn emin(self) -> i32 {
        1 - self.bias()
    }
    fn max_biased(self) -> u64 {
        (1 << self.exp) - 1
    }
    fn sign_bit(self) -> u64 {
        1 << (self.frac + self.exp)
    }
    fn frac_mask(self) -> u64 {
        (1 << self.frac) - 1
    }
    /// The canonical NaN of the format (`0x7fffffff` for f32, `0x7fff` for f16 and bf16).
    pub fn nan(self) -> u64 {
        self.sign_bit() - 1
    }
    fn inf(self, neg: bool) -> u64 {
        self.sign(neg) | self.max_biased() << self.frac
    }
    fn max_finite(self, neg: bool) -> u64 {
        self.inf(neg) - 1
    }
    fn zero(self, neg: bool) -> u64 {
        self.sign(neg)
    }
    fn sign(self, neg: bool) -> u64 {
        if neg {
            self.sign_bit()
        } else {
            0
        }
    }
    /// The bits of 1.0.
    fn one(self) -> u64 {
        (self.bias() as u64) << self.frac
    }
}

/// A decoded value: `Finite` is `(-1)^neg * mant * 2^exp` with `mant != 0`.
#[derive(Clone, Copy, Debug)]
enum Class {
    Nan,
    Inf(bool),
    Zero(bool),
    Finite { neg: bool, mant: u128, exp: i32 },
}

fn classify(bits: u64, f: Fmt) -> Class {
    let neg = bits & f.sign_bit() != 0;
    let e = (bits >> f.frac) & f.max_biased();
    let m = bits & f.frac_mask();
    if e == f.max_biased() {
        if m == 0 {
            Class::Inf(neg)
        } else {
            Class::Nan
        }
    } else if e == 0 {
        if m == 0 {
            Class::Zero(neg)
        } else {
            Class::Finite { neg, mant: m as u128, exp: f.emin() - f.frac as i32 }
        }
    } else {
        Class::Finite { neg, mant: (m | 1 << f.frac) as u128, exp: e as i32 - f.bias() - f.frac as i32 }
    }
}

fn overflow(neg: bool, mode: Rnd, f: Fmt) -> u64 {
    let to_inf = match mode {
        Rnd::Rn => true,
        Rnd::Rz => false,
        Rnd::Rm => neg,
        Rnd::Rp => !neg,
    };
    if to_inf {
        f.inf(neg)
    } else {
        f.max_finite(neg)
    }
}

/// Rounds `(-1)^neg * mant * 2^exp` into format `f` with `mode`. The lowest bit of `mant`
/// may be a sticky bit (set when nonzero bits were discarded below it), provided it lies at
/// least two bits below the format's rounding position.
pub fn round_pack(neg: bool, mant: u128, exp: i32, mode: Rnd, f: Fmt) -> u64 {
    if mant == 0 {
        return f.zero(neg);
    }
    let n = 128 - mant.leading_zeros() as i32;
    let e_top = exp + n - 1;
    let mut lsb = if e_top < f.emin() { f.emin() - f.frac as i32 } else { e_top - f.frac as i32 };
    let shift = lsb - exp;
    let mut q: u128 = if shift <= 0 {
        mant << (-shift) as u32
    } else {
        let (q0, inexact, vs_half) = if shift >= 129 {
            (0, true, Ordering::Less)
        } else if shift == 128 {
            (0, true, mant.cmp(&(1u128 << 127)))
        } else {
            let rem = mant & ((1u128 << shift) - 1);
            (mant >> shift, rem != 0, rem.cmp(&(1u128 << (shift - 1))))
        };
        let up = match mode {
            Rnd::Rn => vs_half == Ordering::Greater || (vs_half == Ordering::Equal && q0 & 1 == 1),
            Rnd::Rz => false,
            Rnd::Rm => neg && inexact,
            Rnd::Rp => !neg && inexact,
        };
        q0 + up as u128
    };
    if q >> (f.frac + 1) != 0 {
        q >>= 1;
        lsb += 1;
    }
    if q >> f.frac != 0 {
        let biased = lsb as i64 + f.frac as i64 + f.bias() as i64;
        if biased >= f.max_biased() as i64 {
            return overflow(neg, mode, f);
        }
        f.sign(neg) | (biased as u64) << f.frac | (q as u64 & f.frac_mask())
    } else {
        f.sign(neg) | q as u64
    }
}

/// Adds two nonzero finite exact values, jamming bits shifted out of the smaller one.
fn add_finite(a: (bool, u128, i32), b: (bool, u128, i32), mode: Rnd, f: Fmt) -> u64 {
    let norm = |(neg, m, e): (bool, u128, i32)| {
        let s = m.leading_zeros() as i32 - 2;
        (neg, m << s, e - s)
    };
    let (mut a, mut b) = (norm(a), norm(b));
    if b.2 > a.2 {
        std::mem::swap(&mut a, &mut b);
    }
    let d = (a.2 - b.2) as u32;
    let mb = if d >= 127 {
        1
    } else {
        let lost = b.1 & ((1u128 << d) - 1);
        (b.1 >> d) | (lost != 0) as u128
    };
    let (neg, m) = if a.0 == b.0 {
        (a.0, a.1 + mb)
    } else if a.1 >= mb {
        (a.0, a.1 - mb)
    } else {
        (b.0, mb - a.1)
    };
    if m == 0 {
        return f.zero(mode == Rnd::Rm);
    }
    round_pack(neg, m, a.2, mode, f)
}

/// `a + b` rounded with `mode`.
fn add_exact(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    match (classify(a, f), classify(b, f)) {
        (Class::Nan, _) | (_, Class::Nan) => f.nan(),
        (Class::Inf(x), Class::Inf(y)) => {
            if x == y {
                f.inf(x)
            } else {
                f.nan()
            }
        }
        (Class::Inf(x), _) | (_, Class::Inf(x)) => f.inf(x),
        (Class::Zero(x), Class::Zero(y)) => {
            if x == y {
                f.zero(x)
            } else {
                f.zero(mode == Rnd::Rm)
            }
        }
        (Class::Zero(_), _) => b,
        (_, Class::Zero(_)) => a,
        (Class::Finite { neg: na, mant: ma, exp: ea }, Class::Finite { neg: nb, mant: mb, exp: eb }) => {
            add_finite((na, ma, ea), (nb, mb, eb), mode, f)
        }
    }
}

/// `a - b` rounded with `mode`.
fn sub_exact(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    add_exact(f, a, b ^ f.sign_bit(), mode)
}

/// `a * b` rounded with `mode`.
fn mul_exact(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    let (ca, cb) = (classify(a, f), classify(b, f));
    let neg = (a ^ b) & f.sign_bit() != 0;
    match (ca, cb) {
        (Class::Nan, _) | (_, Class::Nan) => f.nan(),
        (Class::Inf(_), Class::Zero(_)) | (Class::Zero(_), Class::Inf(_)) => f.nan(),
        (Class::Inf(_), _) | (_, Class::Inf(_)) => f.inf(neg),
        (Class::Zero(_), _) | (_, Class::Zero(_)) => f.zero(neg),
        (Class::Finite { mant: ma, exp: ea, .. }, Class::Finite { mant: mb, exp: eb, .. }) => {
            round_pack(neg, ma * mb, ea + eb, mode, f)
        }
    }
}

/// `a * b + c` with a single rounding.
fn fma_exact(f: Fmt, a: u64, b: u64, c: u64, mode: Rnd) -> u64 {
    let (ca, cb, cc) = (classify(a, f), classify(b, f), classify(c, f));
    if matches!(ca, Class::Nan) || matches!(cb, Class::Nan) || matches!(cc, Class::Nan) {
        return f.nan();
    }
    let pneg = (a ^ b) & f.sign_bit() != 0;
    let p_inf = matches!(ca, Class::Inf(_)) || matches!(cb, Class::Inf(_));
    let p_zero = matches!(ca, Class::Zero(_)) || matches!(cb, Class::Zero(_));
    if p_inf && p_zero {
        return f.nan();
    }
    if p_inf {
        return match cc {
            Class::Inf(cn) if cn != pneg => f.nan(),
            _ => f.inf(pneg),
        };
    }
    if let Class::Inf(_) = cc {
        return c;
    }
    if p_zero {
        return match cc {
            Class::Zero(cn) => {
                if cn == pneg {
                    f.zero(pneg)
                } else {
                    f.zero(mode == Rnd::Rm)
                }
            }
            _ => c,
        };
    }
    let (pm, pe) = match (ca, cb) {
        (Class::Finite { mant: ma, exp: ea, .. }, Class::Finite { mant: mb, exp: eb, .. }) => {
            (ma * mb, ea + eb)
        }
        _ => return f.nan(),
    };
    match cc {
        Class::Finite { neg, mant, exp } => add_finite((pneg, pm, pe), (neg, mant, exp), mode, f),
        _ => round_pack(pneg, pm, pe, mode, f),
    }
}

/// Shifts a nonzero significand of at most 53 bits (as [`classify`] gives them) so its top
/// bit is bit 52, adjusting the exponent.
fn normalize53(m: u128, e: i32) -> (u128, i32) {
    let s = m.leading_zeros() - 75;
    (m << s, e - s as i32)
}

/// `a / b` rounded with `mode`.
fn div_exact(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    let neg = (a ^ b) & f.sign_bit() != 0;
    match (classify(a, f), classify(b, f)) {
        (Class::Nan, _) | (_, Class::Nan) => f.nan(),
        (Class::Inf(_), Class::Inf(_)) | (Class::Zero(_), Class::Zero(_)) => f.nan(),
        (Class::Inf(_), _) | (_, Class::Zero(_)) => f.inf(neg),
        (_, Class::Inf(_)) | (Class::Zero(_), _) => f.zero(neg),
        (Class::Finite { mant: ma, exp: ea, .. }, Class::Finite { mant: mb, exp: eb, .. }) => {
            // Significands have at most 53 bits, so normalizing never drops bits.
            let (ma, ea) = normalize53(ma, ea);
            let (mb, eb) = normalize53(mb, eb);
            let num = ma << 72;
            let (q, r) = (num / mb, num % mb);
            round_pack(neg, q << 1 | (r != 0) as u128, ea - eb - 73, mode, f)
        }
    }
}

/// `1 / a` rounded with `mode`.
pub fn rcp(f: Fmt, a: u64, mode: Rnd) -> u64 {
    div(f, f.one(), a, mode)
}

/// The result of a one- or two-operand host operation on f32 or f64 bits, for
/// round-to-nearest (the host's rounding); `None` for another format or mode.
#[inline(always)]
fn host_rn(f: Fmt, mode: Rnd, op32: impl FnOnce() -> f32, op64: impl FnOnce() -> f64) -> Option<u64> {
    match mode {
        Rnd::Rn if f == F32 => Some(canon32(op32())),
        Rnd::Rn if f == F64 => Some(canon64(op64())),
        _ => None,
    }
}

fn h32(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

fn h64(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// `a + b` rounded with `mode`.
#[inline(always)]
pub fn add(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    host_rn(f, mode, || h32(a) + h32(b), || h64(a) + h64(b)).unwrap_or_else(|| add_exact(f, a, b, mode))
}

/// `a - b` rounded with `mode`.
#[inline(always)]
pub fn sub(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    host_rn(f, mode, || h32(a) - h32(b), || h64(a) - h64(b)).unwrap_or_else(|| sub_exact(f, a, b, mode))
}

/// `a * b` rounded with `mode`.
#[inline(always)]
pub fn mul(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    host_rn(f, mode, || h32(a) * h32(b), || h64(a) * h64(b)).unwrap_or_else(|| mul_exact(f, a, b, mode))
}

/// `a / b` rounded with `mode`.
#[inline(always)]
pub fn div(f: Fmt, a: u64, b: u64, mode: Rnd) -> u64 {
    host_rn(f, mode, || h32(a) / h32(b), || h64(a) / h64(b)).unwrap_or_else(|| div_exact(f, a, b, mode))
}

/// `a * b + c` with a single rounding.
#[inline(always)]
pub fn fma(f: Fmt, a: u64, b: u64, c: u64, mode: Rnd) -> u64 {
    host_rn(f, mode, || h32(a).mul_add(h32(b), h32(c)), || h64(a).mul_add(h64(b), h64(c)))
        .unwrap_or_else(|| fma_exact(f, a, b, c, mode))
}

/// `sqrt(a)` rounded with `mode`; negative nonzero inputs give NaN, `sqrt(-0) = -0`.
#[inline(always)]
pub fn sqrt(f: Fmt, a: u64, mode: Rnd) -> u64 {
    host_rn(f, mode, || h32(a).sqrt(), || h64(a).sqrt()).unwrap_or_else(|| sqrt_exact(f, a, mode))
}

/// `-a`: the sign flipped, except that a NaN gives the canonical NaN (as the GPU's `neg`
/// does; the PTX ISA leaves the NaN unspecified).
#[inline(always)]
pub fn neg(f: Fmt, a: u64) -> u64 {
    if is_nan(f, a) {
        f.nan()
    } else {
        a ^ f.sign_bit()
    }
}

/// `|a|`: the sign cleared, a NaN gives the canonical NaN (as [`neg`]).
#[inline(always)]
pub fn abs(f: Fmt, a: u64) -> u64 {
    if is_nan(f, a) {
        f.nan()
    } else {
        a & !f.sign_bit()
    }
}

fn isqrt(x: u128) -> u128 {
    // Digit by digit, one root bit per step from the top (root bit 63, whose square is bit
    // 126): a fixed 64 steps, exact for every input.
    let mut rest = x;
    let mut root = 0u128;
    let mut square_bit = 1u128 << 126;
    while square_bit != 0 {
        if rest >= root + square_bit {
            rest -= root + square_bit;
            root = (root >> 1) + square_bit;
        } else {
            root >>= 1;
        }
        square_bit >>= 2;
    }
    root
}

/// `sqrt(a)` rounded with `mode`; negative nonzero inputs give NaN, `sqrt(-0) = -0`.
fn sqrt_exact(f: Fmt, a: u64, mode: Rnd) -> u64 {
    match classify(a, f) {
        Class::Nan | Class::Inf(true) | Class::Finite { neg: true, .. } => f.nan(),
        Class::Inf(false) | Class::Zero(_) => a,
        Class::Finite { mant, exp, .. } => {
            let (m, e) = normalize53(mant, exp);
            let k = if (e - 68).rem_euclid(2) == 0 { 68 } else { 69 };
            let big = m << k;
            let s = isqrt(big);
            let sticky = (s * s != big) as u128;
            round_pack(false, s << 1 | sticky, (e - k) / 2 - 1, mode, f)
        }
    }
}

/// Converts between formats, rounding with `mode` when narrowing (widening is exact).
pub fn convert(from: Fmt, to: Fmt, a: u64, mode: Rnd) -> u64 {
    // f32 <-> f64 to nearest: the host's conversions (the simulator's `cvt`, min/max).
    match (from, to, mode) {
        (F64, F32, Rnd::Rn) => canon32(h64(a) as f32),
        (F32, F64, _) => canon64(h32(a) as f64),
        _ => convert_exact(from, to, a, mode),
    }
}

fn convert_exact(from: Fmt, to: Fmt, a: u64, mode: Rnd) -> u64 {
    match classify(a, from) {
        Class::Nan => to.nan(),
        Class::Inf(n) => to.inf(n),
        Class::Zero(n) => to.zero(n),
        Class::Finite { neg, mant, exp } => round_pack(neg, mant, exp, mode, to),
    }
}

/// The integer `(-1)^neg * magnitude` in format `to`, rounded with `mode` (zero is `+0`).
pub fn from_int(neg: bool, magnitude: u64, to: Fmt, mode: Rnd) -> u64 {
    if magnitude == 0 {
        return 0;
    }
    round_pack(neg, magnitude as u128, 0, mode, to)
}

/// True when `a` is a NaN in format `f`.
pub fn is_nan(f: Fmt, a: u64) -> bool {
    matches!(classify(a, f), Class::Nan)
}

/// The canonical f32 NaN when `x` is a NaN, else `x`'s bits.
#[inline(always)]
pub fn canon32(x: f32) -> u64 {
    if x.is_nan() {
        F32.nan()
    } else {
        x.to_bits() as u64
    }
}

/// The canonical f64 NaN when `x` is a NaN, else `x`'s bits.
#[inline(always)]
pub fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        F64.nan()
    } else {
        x.to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::softfloat::Step;

    /// The tests' xorshift ([`ptx_tools::rng::Rng`]) with this module's own draws: float bits
    /// biased towards the edges (zeros, infinities, subnormals, the largest finite values)
    /// that rounding gets wrong, unlike the shared generator's moderate floats.
    struct Rng(ptx_tools::rng::Rng);
    impl Rng {
        /// Seeded by the project's rule (fresh each run, printed, `PTX_DSL_TEST_SEED`).
        fn fresh(test: &str) -> Rng {
            Rng(ptx_tools::rng::Rng::fresh(test))
        }
        fn next(&mut self) -> u64 {
            self.0.next()
        }
        /// Random f32 bits biased towards interesting values.
        fn f32(&mut self) -> u32 {
            let r = self.next();
            match r % 16 {
                0 => [0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 1, 0x8000_0001, 0x007f_ffff, 0x7f7f_ffff]
                    [(r >> 8) as usize % 8],
                1 => (r >> 16) as u32 & 0x80ff_ffff, // subnormal range or tiny
                2 => ((r >> 16) as u32 & 0x807f_ffff) | 0x7e80_0000, // huge
                _ => {
                    let e = 100 + (r >> 20) % 56;
                    ((r >> 32) as u32 & 0x807f_ffff) | (e as u32) << 23
                }
            }
        }
        fn f64(&mut self) -> u64 {
            let r = self.next();
            match r % 16 {
                0 => [
                    0,
                    1 << 63,
                    0x7ff0 << 48,
                    0xfff0 << 48,
                    1,
                    0x000f_ffff_ffff_ffff,
                    0x7fef_ffff_ffff_ffff,
                    3,
                ][(r >> 8) as usize % 8],
                1 => self.next() & 0x800f_ffff_ffff_ffff,
                2 => (self.next() & 0x800f_ffff_ffff_ffff) | 0x7fe0 << 48,
                _ => {
                    let e = 900 + (r >> 20) % 250;
                    (self.next() & 0x800f_ffff_ffff_ffff) | e << 52
                }
            }
        }
    }

    fn c32(x: f32) -> u64 {
        canon32(x)
    }
    fn c64(x: f64) -> u64 {
        canon64(x)
    }

    #[test]
    fn round_to_nearest_matches_host_f32() {
        let mut r = Rng::fresh("softfloat_rn_f32");
        for _ in 0..200_000 {
            let (a, b, c) = (r.f32(), r.f32(), r.f32());
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let (a, b, c) = (a as u64, b as u64, c as u64);
            assert_eq!(add_exact(F32, a, b, Rnd::Rn), c32(x + y), "{x:e} + {y:e}");
            assert_eq!(sub_exact(F32, a, b, Rnd::Rn), c32(x - y), "{x:e} - {y:e}");
            assert_eq!(mul_exact(F32, a, b, Rnd::Rn), c32(x * y), "{x:e} * {y:e}");
            assert_eq!(div_exact(F32, a, b, Rnd::Rn), c32(x / y), "{x:e} / {y:e}");
            assert_eq!(sqrt_exact(F32, a, Rnd::Rn), c32(x.sqrt()), "sqrt {x:e}");
            assert_eq!(fma_exact(F32, a, b, c, Rnd::Rn), c32(x.mul_add(y, z)), "fma {x:e} {y:e} {z:e}");
            let w = f64::from_bits(r.f64());
            assert_eq!(convert_exact(F64, F32, w.to_bits(), Rnd::Rn), c32(w as f32), "{w:e} as f32");
            let v = f32::from_bits(a as u32);
            assert_eq!(convert_exact(F32, F64, a, Rnd::Rn), c64(v as f64), "{v:e} as f64");
        }
    }

    #[test]
    fn round_to_nearest_matches_host_f64() {
        let mut r = Rng::fresh("softfloat_rn_f64");
        for _ in 0..200_000 {
            let (a, b, c) = (r.f64(), r.f64(), r.f64());
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            assert_eq!(add_exact(F64, a, b, Rnd::Rn), c64(x + y), "{x:e} + {y:e}");
            assert_eq!(mul_exact(F64, a, b, Rnd::Rn), c64(x * y), "{x:e} * {y:e}");
            assert_eq!(div_exact(F64, a, b, Rnd::Rn), c64(x / y), "{x:e} / {y:e}");
            assert_eq!(sqrt_exact(F64, a, Rnd::Rn), c64(x.sqrt()), "sqrt {x:e}");
            assert_eq!(fma_exact(F64, a, b, c, Rnd::Rn), c64(x.mul_add(y, z)), "fma {x:e} {y:e} {z:e}");
            let i = r.next() as i64;
            let bits = from_int(i < 0, i.unsigned_abs(), F64, Rnd::Rn);
            assert_eq!(bits, (i as f64).to_bits());
            assert_eq!(from_int(i < 0, i.unsigned_abs(), F32, Rnd::Rn), (i as f32).to_bits() as u64);
        }
    }

    /// Directed rounding of f64 ops, checked against the round-to-nearest result plus the
    /// sign of an exact error term (TwoSum / fma residuals), an independent method.
    #[test]
    fn directed_rounding_f64_matches_error_term_method() {
        fn directed(rn: f64, err_sign: Ordering, mode: Rnd) -> f64 {
            match (mode, err_sign) {
                (_, Ordering::Equal) | (Rnd::Rn, _) => rn,
                (Rnd::Rm, Ordering::Less) => rn.step_down(),
                (Rnd::Rp, Ordering::Greater) => rn.step_up(),
                (Rnd::Rz, Ordering::Less) if rn > 0.0 => rn.step_down(),
                (Rnd::Rz, Ordering::Greater) if rn < 0.0 => rn.step_up(),
                _ => rn,
            }
        }
        let mut r = Rng::fresh("softfloat_directed");
        let sign = |e: f64| e.partial_cmp(&0.0).unwrap();
        for _ in 0..100_000 {
            // Moderate exponents keep the residuals exact.
            let x = f64::from_bits((r.next() & 0x800f_ffff_ffff_ffff) | (1000 + r.next() % 40) << 52);
            let y = f64::from_bits((r.next() & 0x800f_ffff_ffff_ffff) | (1000 + r.next() % 40) << 52);
            if x == 0.0 {
                continue;
            }
            for mode in [Rnd::Rz, Rnd::Rm, Rnd::Rp] {
                let s = x + y;
                let bb = s - x;
                let e = (x - (s - bb)) + (y - bb);
                assert_eq!(
                    f64::from_bits(add(F64, x.to_bits(), y.to_bits(), mode)),
                    directed(s, sign(e), mode),
                    "{x:e}+{y:e} {mode:?}"
                );
                let p = x * y;
                let e = x.mul_add(y, -p);
                assert_eq!(
                    f64::from_bits(mul(F64, x.to_bits(), y.to_bits(), mode)),
                    directed(p, sign(e), mode),
                    "{x:e}*{y:e} {mode:?}"
                );
                let q = x / y;
                // x - q*y has the sign of (exact - q) * sign(y).
                let e = -q.mul_add(y, -x) * y.signum();
                assert_eq!(
                    f64::from_bits(div(F64, x.to_bits(), y.to_bits(), mode)),
                    directed(q, sign(e), mode),
                    "{x:e}/{y:e} {mode:?}"
                );
                let ax = x.abs();
                let sq = ax.sqrt();
                let e = -sq.mul_add(sq, -ax);
                assert_eq!(
                    f64::from_bits(sqrt(F64, ax.to_bits(), mode)),
                    directed(sq, sign(e), mode),
                    "sqrt {ax:e} {mode:?}"
                );
            }
        }
    }

    /// `isqrt` is the floor of the square root: checked by its defining inequality on every
    /// small input, on perfect squares and their neighbours up to the largest root a
    /// significand can give, and on random wide inputs.
    #[test]
    fn isqrt_is_the_floor_of_the_square_root() {
        let check = |x: u128| {
            let r = isqrt(x);
            assert!(r * r <= x && (r + 1) * (r + 1) > x, "isqrt({x}) = {r}");
        };
        (0..70_000).for_each(check);
        for root in [1u128, 2, 3, (1 << 32) - 1, 1 << 40, (1 << 61) - 1, 1 << 61] {
            let square = root * root;
            assert_eq!(isqrt(square), root, "isqrt of {root} squared");
            check(square - 1);
            check(square + 1);
        }
        let mut r = Rng::fresh("softfloat_isqrt");
        for _ in 0..20_000 {
            check(((r.next() as u128) << 64 | r.next() as u128) >> (r.next() % 70 + 6));
        }
    }

    #[test]
    fn directed_rounding_edge_cases() {
        let b = |x: f32| x.to_bits() as u64;
        // Exact square roots stay exact in every mode (no sticky bit below them).
        for mode in [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp] {
            for (x, r) in [(4.0f32, 2.0f32), (2.25, 1.5), (1.0, 1.0)] {
                assert_eq!(sqrt(F32, b(x), mode), b(r), "sqrt {x:e} in {mode:?}");
            }
            let x = 6.25f64;
            assert_eq!(sqrt(F64, x.to_bits(), mode), 2.5f64.to_bits(), "sqrt 6.25 in {mode:?}");
        }
        // Overflow: rz/rm of a positive overflow gives MAX, rp gives inf.
        let max = b(f32::MAX);
        assert_eq!(add(F32, max, max, Rnd::Rz), max);
        assert_eq!(add(F32, max, max, Rnd::Rm), max);
        assert_eq!(add(F32, max, max, Rnd::Rp), b(f32::INFINITY));
        assert_eq!(mul(F32, b(-3e38), b(10.0), Rnd::Rp), b(-f32::MAX));
        assert_eq!(mul(F32, b(-3e38), b(10.0), Rnd::Rm), b(f32::NEG_INFINITY));
        // Just above MAX by less than half an ulp: rn keeps MAX, rp overflows.
        assert_eq!(add(F32, max, b(1.0), Rnd::Rn), max);
        assert_eq!(add(F32, max, b(1.0), Rnd::Rp), b(f32::INFINITY));
        // Underflow to the smallest subnormal.
        let tiny = b(f32::from_bits(1));
        assert_eq!(mul(F32, tiny, b(0.5), Rnd::Rn), 0);
        assert_eq!(mul(F32, tiny, b(0.5), Rnd::Rp), tiny);
        assert_eq!(mul(F32, tiny, b(-0.5), Rnd::Rm), tiny | 1 << 31);
        assert_eq!(mul(F32, tiny, b(-0.5), Rnd::Rz), 1 << 31);
        assert_eq!(mul(F32, tiny, b(0.75), Rnd::Rn), tiny);
        // Signed zeros.
        assert_eq!(add(F32, b(1.0), b(-1.0), Rnd::Rn), 0);
        assert_eq!(add(F32, b(1.0), b(-1.0), Rnd::Rm), 1 << 31);
        assert_eq!(add(F32, b(0.0), b(-0.0), Rnd::Rm), 1 << 31);
        assert_eq!(add(F32, b(-0.0), b(-0.0), Rnd::Rp), 1 << 31);
        assert_eq!(fma(F32, b(2.0), b(3.0), b(-6.0), Rnd::Rm), 1 << 31);
        assert_eq!(fma(F32, b(2.0), b(3.0), b(-6.0), Rnd::Rz), 0);
        assert_eq!(sqrt(F32, b(-0.0), Rnd::Rp), 1 << 31);
        assert_eq!(sqrt(F32, b(-1.0), Rnd::Rn), F32.nan());
        assert_eq!(div(F32, b(1.0), b(-0.0), Rnd::Rz), b(f32::NEG_INFINITY));
        // 1/3 rounded to nearest lies above 1/3.
        assert_eq!(rcp(F32, b(3.0), Rnd::Rp), b(1.0 / 3.0));
        assert_eq!(rcp(F32, b(3.0), Rnd::Rz), b((1.0f32 / 3.0).step_down()));
        // f32 -> f16 / bf16.
        assert_eq!(convert(F32, F16, b(1.0), Rnd::Rn), 0x3c00);
        assert_eq!(convert(F32, F16, b(65520.0), Rnd::Rn), 0x7c00);
        assert_eq!(convert(F32, F16, b(65520.0), Rnd::Rz), 0x7bff);
        assert_eq!(convert(F32, F16, b(f32::NAN), Rnd::Rn), 0x7fff);
        assert_eq!(convert(F32, BF16, b(1.0 + 1.0 / 256.0), Rnd::Rn), 0x3f80);
        assert_eq!(convert(F32, BF16, b(1.0 + 3.0 / 256.0), Rnd::Rn), 0x3f82);
        assert_eq!(convert(F16, F32, 0x0001, Rnd::Rn), b(2f32.powi(-24)));
        assert_eq!(convert(BF16, F32, 0xbf80, Rnd::Rn), b(-1.0));
    }
}

/// `next_up`/`next_down` (the std methods need Rust 1.86; MSRV is 1.85).
#[cfg(test)]
pub(crate) trait Step: Copy {
    fn step_up(self) -> Self;
    fn step_down(self) -> Self;
}

#[cfg(test)]
macro_rules! step {
    ($t:ty) => {
        impl Step for $t {
            fn step_up(self) -> Self {
                if self.is_nan() || self == <$t>::INFINITY {
                    return self;
                }
                if self == 0.0 {
                    return <$t>::from_bits(1);
                }
                let b = self.to_bits();
                <$t>::from_bits(if self > 0.0 { b + 1 } else { b - 1 })
            }
            fn step_down(self) -> Self {
                -(-self).step_up()
            }
        }
    };
}
#[cfg(test)]
step!(f32);
#[cfg(test)]
step!(f64);
