//! Checks, bit for bit, the values the simulator computes for the catalog kernel
//! `ptx_tools::coverage::every_form` (the kernel that uses every instruction form the
//! verifier accepts) against an independent reference.
//!
//! What it proves: for thread 0 of the catalog launch, every output the reference models
//! (moves, special registers, parameters, integer/bit/predicate arithmetic, float
//! arithmetic in all four IEEE rounding modes, `min`/`max`, `mul.wide`, `mad.lo`, `fma`,
//! the integer, float and `.sat` conversions, all `setp` comparisons, `selp` and the
//! guarded branches) is exactly what the simulator stored, over random and edge-case
//! inputs (three fresh seeds per run; set `CATALOG_REFERENCE_SEED` to replay one).
//! It also proves the reference models most of the catalog: the share of exact outputs it
//! checks, and at least one output of each computing instruction kind, are asserted.
//!
//! Why the reference is independent: it is a small interpreter over `cat.ir.body` written
//! here with plain Rust semantics (wrapping integer ops, `i128`/`u128` products for
//! `mul.hi`/`mul.wide`, Rust `as` casts, which for float->int are PTX's saturating,
//! NaN-to-zero `cvt.rzi`, IEEE round-to-nearest `f32`/`f64` arithmetic, `mul_add`, `sqrt`,
//! `round_ties_even`/`floor`/`ceil`/`trunc`, IEEE comparisons). Directed rounding
//! (`.rz/.rm/.rp`) is derived from the round-to-nearest result and the sign of its exact
//! error (TwoSum, an fma residual, or an exact comparison), then one step toward the
//! rounding direction. It calls neither `ptx_core::eval` nor any simulator internals; it
//! only uses the IR to know which instruction comes next. Forms it does not model
//! (`.approx`/`.full`, f16/bf16 conversions, directed `fma.f64`, atomics, shuffles, shared
//! memory, loads from scratch memory) make their destinations unknown, and unknown values
//! are never compared.
//!
//! Float results that PTX computes (not moves) compare NaNs by class: PTX allows any NaN
//! there. A `.sat` float conversion whose result is a zero accepts either sign of zero.

mod common;

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use common::{download, exact_zero_sum, two_sum_err, upload, Step};
use ptx_core::ir::{
    AddrBase, BinaryOp, Cmp, CvtRound, FloatMode, Instr, InstrKind, Operand, Space, UnaryOp, VReg,
};
use ptx_core::print::instr_text;
use ptx_core::types::TypeClass;
use ptx_core::{PtxType, SpecialReg};
use ptx_sim::{launch, Geometry, Memory, Module};
use ptx_tools::coverage::{every_form, FormCatalog, SCALAR_PARAMS, SCRATCH_PER_THREAD, THREADS};
use ptx_tools::rng::Rng;

/// The share of the catalog's exact outputs the reference must model. It models about 75%
/// (862 of 1155): everything but loads from scratch/shared memory, atomics (64 forms since
/// `atom` has min/max/and/or/xor), shuffles, votes,
/// f16/bf16 conversions and directed-rounding `fma.f64` (and, per input, undefined integer
/// division and f64 results too tiny for an exact fma residual).
const MIN_COVERAGE: f64 = 0.73;

// ----------------------------------------------------------------------------------------
// Values of the reference interpreter.
// ----------------------------------------------------------------------------------------

/// Which buffer a pointer parameter points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Input,
    Output,
    Scratch,
}

/// A register's value: bits zero-extended to the register width, or a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Bits(u64),
    Ptr(Region, i64),
}

/// How strictly a value compares with the simulator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Match {
    /// Every bit.
    Exact,
    /// A computed float: an expected NaN accepts any NaN (every other bit counts, the sign
    /// of a zero included).
    Float,
}

#[derive(Clone, Copy, Debug)]
struct Known {
    val: Val,
    how: Match,
}

/// One value the reference expects in thread 0's output record.
#[derive(Clone, Debug)]
struct Expect {
    ty: PtxType,
    bits: u64,
    how: Match,
    /// Body index of the instruction that computed the value.
    origin: usize,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The value of the low `bits` bits of `v` as a signed integer.
fn sext(v: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

fn is_nan_bits(ty: PtxType, bits: u64) -> bool {
    match ty {
        PtxType::F32 => f32::from_bits(bits as u32).is_nan(),
        PtxType::F64 => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// Evaluates `$body` with each `$x` bound to the `f32` or `f64` the bits `$v` stand for
/// (by `$ty`), and returns the result's bits.
macro_rules! float_fn {
    ($ty:expr, [$($x:ident = $v:expr),*], $body:expr) => {
        match $ty {
            PtxType::F32 => {
                $(let $x = f32::from_bits($v as u32);)*
                let r: f32 = $body;
                Some(r.to_bits() as u64)
            }
            PtxType::F64 => {
                $(let $x = f64::from_bits($v);)*
                let r: f64 = $body;
                Some(r.to_bits())
            }
            _ => None,
        }
    };
}

/// Like `float_fn`, for a boolean result.
macro_rules! float_pred {
    ($ty:expr, [$($x:ident = $v:expr),*], $body:expr) => {
        match $ty {
            PtxType::F32 => {
                $(let $x = f32::from_bits($v as u32);)*
                let r: bool = $body;
                Some(r)
            }
            PtxType::F64 => {
                $(let $x = f64::from_bits($v);)*
                let r: bool = $body;
                Some(r)
            }
            _ => None,
        }
    };
}

/// What PTX `min`/`max` and directed rounding need of a float type.
trait Flt: Copy + PartialOrd + Step + std::ops::Neg<Output = Self> {
    const MAX: Self;
    fn nan(self) -> bool;
    fn negative(self) -> bool;
    fn infinite(self) -> bool;
    fn zero(self) -> bool;
}

macro_rules! flt {
    ($t:ty) => {
        impl Flt for $t {
            const MAX: $t = <$t>::MAX;
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn negative(self) -> bool {
                self.is_sign_negative()
            }
            fn infinite(self) -> bool {
                self.is_infinite()
            }
            fn zero(self) -> bool {
                self == 0.0
            }
        }
    };
}
flt!(f32);
flt!(f64);

/// An IEEE rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

fn rnd_of_mode(m: Option<FloatMode>) -> Option<Rnd> {
    Some(match m? {
        FloatMode::Rn => Rnd::Rn,
        FloatMode::Rz => Rnd::Rz,
        FloatMode::Rm => Rnd::Rm,
        FloatMode::Rp => Rnd::Rp,
        FloatMode::Approx | FloatMode::Full => return None,
    })
}

fn rnd_of_cvt(r: Option<CvtRound>) -> Option<Rnd> {
    Some(match r? {
        CvtRound::Rn => Rnd::Rn,
        CvtRound::Rz => Rnd::Rz,
        CvtRound::Rm => Rnd::Rm,
        CvtRound::Rp => Rnd::Rp,
        _ => return None,
    })
}

/// Rounds an exact value `x` by `rnd`, given its round-to-nearest result `r0` and
/// `dir`, the sign of `x - r0`. An infinite `r0` stands for a finite `x` that overflowed.
fn directed<T: Flt>(r0: T, dir: Ordering, rnd: Rnd) -> T {
    if r0.infinite() {
        let pos = !r0.negative();
        return match rnd {
            Rnd::Rn => r0,
            Rnd::Rz => {
                if pos {
                    T::MAX
                } else {
                    -T::MAX
                }
            }
            Rnd::Rm => {
                if pos {
                    T::MAX
                } else {
                    r0
                }
            }
            Rnd::Rp => {
                if pos {
                    r0
                } else {
                    -T::MAX
                }
            }
        };
    }
    match (rnd, dir) {
        (Rnd::Rn, _) | (_, Ordering::Equal) => r0,
        (Rnd::Rz, _) if r0.zero() => r0,
        (Rnd::Rz, Ordering::Less) if !r0.negative() => r0.step_down(),
        (Rnd::Rz, Ordering::Greater) if r0.negative() => r0.step_up(),
        (Rnd::Rm, Ordering::Less) => r0.step_down(),
        (Rnd::Rp, Ordering::Greater) => r0.step_up(),
        _ => r0,
    }
}

fn sign(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// Knuth's TwoSum: `a + b == s + e` exactly (no overflow).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, two_sum_err(a, b, s))
}

/// The sign of an exact zero sum `x + y` under `rnd` (IEEE 754 6.3).
fn zero_sum(x: f64, y: f64, rnd: Rnd) -> f64 {
    exact_zero_sum(x, y, rnd == Rnd::Rm)
}

/// Rounds the exact value `s + t` to f32, where `t` is smaller than half an f64 unit of
/// `s` and has the sign `tail`.
fn round_f32(s: f64, tail: Ordering, rnd: Rnd) -> f32 {
    let r0 = s as f32;
    if r0.is_infinite() {
        return directed(r0, Ordering::Equal, rnd);
    }
    let d = s - r0 as f64; // exact: the bits `as f32` dropped
    let dir = if d == 0.0 { tail } else { sign(d) };
    directed(r0, dir, rnd)
}

/// `a op b` in f32 under `rnd`, computed exactly in f64 (f32 operands never underflow there).
fn arith_f32(op: BinaryOp, rnd: Rnd, a: f32, b: f32) -> Option<f32> {
    let rn = match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        _ => return None,
    };
    if rnd == Rnd::Rn || !a.is_finite() || !b.is_finite() {
        return Some(rn); // infinities and NaNs are exact
    }
    let (x, y) = (a as f64, b as f64);
    Some(match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let y = if op == BinaryOp::Sub { -y } else { y };
            let (s, e) = two_sum(x, y);
            if s == 0.0 && e == 0.0 {
                return Some(zero_sum(x, y, rnd) as f32);
            }
            round_f32(s, sign(e), rnd)
        }
        BinaryOp::Mul => round_f32(x * y, Ordering::Equal, rnd), // 48 bits: exact in f64
        _ => {
            if a == 0.0 || b == 0.0 {
                return Some(rn);
            }
            let q = x / y;
            let r = (-q).mul_add(y, x); // exact residual x - q*y
            let tail = if y < 0.0 { sign(r).reverse() } else { sign(r) };
            round_f32(q, tail, rnd)
        }
    })
}

/// Below this, f64 products and quotients may lose bits of their fma residual.
const TINY_F64: f64 = 1.0e-288;

/// `a op b` in f64 under `rnd`, from the nearest result and its exact error.
fn arith_f64(op: BinaryOp, rnd: Rnd, a: f64, b: f64) -> Option<f64> {
    let rn = match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        _ => return None,
    };
    if rnd == Rnd::Rn || !a.is_finite() || !b.is_finite() {
        return Some(rn);
    }
    if rn.is_infinite() && !(op == BinaryOp::Div && b == 0.0) {
        return Some(directed(rn, Ordering::Equal, rnd)); // overflow
    }
    Some(match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let b = if op == BinaryOp::Sub { -b } else { b };
            let (s, e) = two_sum(a, b);
            if s == 0.0 && e == 0.0 {
                return Some(zero_sum(a, b, rnd));
            }
            directed(s, sign(e), rnd)
        }
        BinaryOp::Mul => {
            if a == 0.0 || b == 0.0 {
                return Some(rn);
            }
            if rn.abs() < TINY_F64 {
                return None;
            }
            directed(rn, sign(a.mul_add(b, -rn)), rnd)
        }
        _ => {
            if a == 0.0 || b == 0.0 {
                return Some(rn);
            }
            if rn.abs() < TINY_F64 || a.abs() < TINY_F64 {
                return None;
            }
            let r = (-rn).mul_add(b, a);
            directed(rn, if b < 0.0 { sign(r).reverse() } else { sign(r) }, rnd)
        }
    })
}

fn sqrt_f32(rnd: Rnd, a: f32) -> f32 {
    if rnd == Rnd::Rn || a <= 0.0 || !a.is_finite() {
        return a.sqrt(); // exact or NaN
    }
    let x = a as f64;
    let s = x.sqrt();
    round_f32(s, sign((-s).mul_add(s, x)), rnd)
}

fn sqrt_f64(rnd: Rnd, a: f64) -> Option<f64> {
    if rnd == Rnd::Rn || a <= 0.0 || !a.is_finite() {
        return Some(a.sqrt());
    }
    if a < TINY_F64 {
        return None;
    }
    let s = a.sqrt();
    Some(directed(s, sign((-s).mul_add(s, a)), rnd))
}

/// `fma.f32` under `rnd`: the product is exact in f64, then an exact TwoSum.
fn fma_f32(rnd: Rnd, a: f32, b: f32, c: f32) -> f32 {
    if rnd == Rnd::Rn || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64;
    let (s, e) = two_sum(p, c as f64);
    if s == 0.0 && e == 0.0 {
        return zero_sum(p, c as f64, rnd) as f32;
    }
    round_f32(s, sign(e), rnd)
}

/// PTX `min.f`: a NaN operand yields the other one; -0.0 is below +0.0.
fn ptx_min<T: Flt>(a: T, b: T) -> T {
    if a.nan() {
        b
    } else if b.nan() || a < b || (a == b && a.negative()) {
        a
    } else {
        b
    }
}

/// PTX `max.f`: a NaN operand yields the other one; +0.0 is above -0.0.
fn ptx_max<T: Flt>(a: T, b: T) -> T {
    if a.nan() {
        b
    } else if b.nan() || a > b || (a == b && !a.negative()) {
        a
    } else {
        b
    }
}

// ----------------------------------------------------------------------------------------
// The reference semantics of each modeled form, on raw bits.
// ----------------------------------------------------------------------------------------

const COMPUTED_FLOAT: Match = Match::Float;

fn ref_unary(op: UnaryOp, ty: PtxType, mode: Option<FloatMode>, a: u64) -> Option<(u64, Match)> {
    let w = ty.bits();
    if ty.is_arith_float() {
        let r = match (op, mode) {
            (UnaryOp::Neg, None) => float_fn!(ty, [x = a], -x),
            (UnaryOp::Abs, None) => float_fn!(ty, [x = a], x.abs()),
            (UnaryOp::Sqrt | UnaryOp::Rcp, m) => {
                let rnd = rnd_of_mode(m)?;
                match (op, ty) {
                    (UnaryOp::Sqrt, PtxType::F32) => {
                        Some(sqrt_f32(rnd, f32::from_bits(a as u32)).to_bits() as u64)
                    }
                    (UnaryOp::Sqrt, _) => sqrt_f64(rnd, f64::from_bits(a)).map(f64::to_bits),
                    (_, PtxType::F32) => arith_f32(BinaryOp::Div, rnd, 1.0, f32::from_bits(a as u32))
                        .map(|r| r.to_bits() as u64),
                    _ => arith_f64(BinaryOp::Div, rnd, 1.0, f64::from_bits(a)).map(f64::to_bits),
                }
            }
            _ => None,
        };
        return r.map(|bits| (bits, COMPUTED_FLOAT));
    }
    let r = match op {
        UnaryOp::Neg if ty.is_signed() => sext(a, w).wrapping_neg() as u64,
        UnaryOp::Abs if ty.is_signed() => sext(a, w).wrapping_abs() as u64,
        UnaryOp::Not => !a,
        _ => return None,
    };
    Some((r & mask(w), Match::Exact))
}

fn ref_binary(op: BinaryOp, ty: PtxType, mode: Option<FloatMode>, a: u64, b: u64) -> Option<(u64, Match)> {
    if ty.is_arith_float() {
        let r = match (op, mode) {
            (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div, m) => {
                let rnd = rnd_of_mode(m)?;
                if ty == PtxType::F32 {
                    arith_f32(op, rnd, f32::from_bits(a as u32), f32::from_bits(b as u32))
                        .map(|r| r.to_bits() as u64)
                } else {
                    arith_f64(op, rnd, f64::from_bits(a), f64::from_bits(b)).map(f64::to_bits)
                }
            }
            (BinaryOp::Min, None) => float_fn!(ty, [x = a, y = b], ptx_min(x, y)),
            (BinaryOp::Max, None) => float_fn!(ty, [x = a, y = b], ptx_max(x, y)),
            _ => None,
        };
        return r.map(|bits| (bits, COMPUTED_FLOAT));
    }
    if mode.is_some() || ty.is_float() {
        return None;
    }
    let w = ty.bits();
    let signed = ty.is_signed();
    let (sa, sb) = (sext(a, w), sext(b, w));
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::MulHi if signed => ((sa as i128 * sb as i128) >> w) as u64,
        BinaryOp::MulHi => ((a as u128 * b as u128) >> w) as u64,
        // Division by zero and MIN / -1 have no defined result: not modeled.
        BinaryOp::Div | BinaryOp::Rem if b == 0 => return None,
        BinaryOp::Div | BinaryOp::Rem if signed && sb == -1 && sa == sext(1 << (w - 1), w) => return None,
        BinaryOp::Div if signed => (sa / sb) as u64,
        BinaryOp::Div => a / b,
        BinaryOp::Rem if signed => (sa % sb) as u64,
        BinaryOp::Rem => a % b,
        BinaryOp::Min if signed => sa.min(sb) as u64,
        BinaryOp::Min => a.min(b),
        BinaryOp::Max if signed => sa.max(sb) as u64,
        BinaryOp::Max => a.max(b),
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        // Shift amounts are u32 and clamp: shl/shr.u by >= width give 0, shr.s the sign.
        BinaryOp::Shl if b >= w as u64 => 0,
        BinaryOp::Shl => a << b,
        BinaryOp::Shr if signed => (sa >> b.min(63)) as u64,
        BinaryOp::Shr if b >= w as u64 => 0,
        BinaryOp::Shr => a >> b,
    };
    Some((r & mask(w), Match::Exact))
}

fn ref_mul_wide(ty: PtxType, a: u64, b: u64) -> Option<u64> {
    let w = ty.bits();
    let r = if ty.is_signed() { (sext(a, w) * sext(b, w)) as u64 } else { a * b };
    Some(r & mask(2 * w))
}

fn ref_mad(ty: PtxType, a: u64, b: u64, c: u64) -> Option<u64> {
    ty.is_int().then(|| a.wrapping_mul(b).wrapping_add(c) & mask(ty.bits()))
}

fn ref_fma(ty: PtxType, mode: FloatMode, a: u64, b: u64, c: u64) -> Option<u64> {
    let rnd = rnd_of_mode(Some(mode))?;
    match ty {
        PtxType::F32 => {
            let [x, y, z] = [a, b, c].map(|v| f32::from_bits(v as u32));
            Some(fma_f32(rnd, x, y, z).to_bits() as u64)
        }
        // Directed f64 fma would need a triple-length sum: not modeled.
        PtxType::F64 if rnd == Rnd::Rn => {
            Some(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits())
        }
        _ => None,
    }
}

/// The integer `cvt` rounding of `x` (exact in f64 for f32 sources too).
fn round_integral(x: f64, r: CvtRound) -> Option<f64> {
    Some(match r {
        CvtRound::Rni => x.round_ties_even(),
        CvtRound::Rzi => x.trunc(),
        CvtRound::Rmi => x.floor(),
        CvtRound::Rpi => x.ceil(),
        _ => return None,
    })
}

fn ref_cvt(dst: PtxType, src: PtxType, round: Option<CvtRound>, sat: bool, a: u64) -> Option<(u64, Match)> {
    let simple = |t: PtxType| t.is_int() || t.is_arith_float();
    if !simple(dst) || !simple(src) {
        return None; // f16/bf16
    }
    let a = a & mask(src.bits());
    let r = match (dst.is_float(), src.is_float()) {
        (false, false) => {
            let v: i128 = if src.is_signed() { sext(a, src.bits()) as i128 } else { a as i128 };
            let v = if sat {
                let (lo, hi) = if dst.is_signed() {
                    (-(1i128 << (dst.bits() - 1)), (1i128 << (dst.bits() - 1)) - 1)
                } else {
                    (0, (1i128 << dst.bits()) - 1)
                };
                v.clamp(lo, hi)
            } else {
                v
            };
            return Some((v as u64 & mask(dst.bits()), Match::Exact));
        }
        (false, true) => {
            // `as` saturates and sends NaN to 0, exactly like PTX; `.sat` changes nothing.
            let x = if src == PtxType::F32 { f32::from_bits(a as u32) as f64 } else { f64::from_bits(a) };
            let y = round_integral(x, round?)?;
            let bits = match dst {
                PtxType::U16 => y as u16 as u64,
                PtxType::S16 => y as i16 as u16 as u64,
                PtxType::U32 => y as u32 as u64,
                PtxType::S32 => y as i32 as u32 as u64,
                PtxType::U64 => y as u64,
                PtxType::S64 => y as i64 as u64,
                _ => return None,
            };
            return Some((bits, Match::Exact));
        }
        (true, false) => {
            let rnd = rnd_of_cvt(round)?;
            let v: i128 = if src.is_signed() { sext(a, src.bits()) as i128 } else { a as i128 };
            // `as` rounds to nearest; the exact integer comparison gives the direction.
            match dst {
                PtxType::F32 => {
                    let r0 = v as f32;
                    directed(r0, v.cmp(&(r0 as i128)), rnd).to_bits() as u64
                }
                PtxType::F64 => {
                    let r0 = v as f64;
                    directed(r0, v.cmp(&(r0 as i128)), rnd).to_bits()
                }
                _ => return None,
            }
        }
        (true, true) => match (dst, src, round) {
            (PtxType::F64, PtxType::F32, None) => (f32::from_bits(a as u32) as f64).to_bits(),
            (PtxType::F32, PtxType::F64, Some(r)) if !r.is_integer_rounding() => {
                let x = f64::from_bits(a);
                let y =
                    if x.is_finite() { round_f32(x, Ordering::Equal, rnd_of_cvt(round)?) } else { x as f32 };
                y.to_bits() as u64
            }
            (PtxType::F32, PtxType::F32, Some(r)) if r.is_integer_rounding() => {
                let x = f32::from_bits(a as u32);
                let y = match r {
                    CvtRound::Rni => x.round_ties_even(),
                    CvtRound::Rzi => x.trunc(),
                    CvtRound::Rmi => x.floor(),
                    _ => x.ceil(),
                };
                y.to_bits() as u64
            }
            (PtxType::F64, PtxType::F64, Some(r)) if r.is_integer_rounding() => {
                round_integral(f64::from_bits(a), r)?.to_bits()
            }
            _ => return None,
        },
    };
    if !sat {
        return Some((r, COMPUTED_FLOAT));
    }
    // `.sat` on a float result: clamp to [+0.0, 1.0]; NaN and −0.0 become +0.0 (what an
    // H200 gives: the GPU catalog run found −0.0 from the simulator where it gave +0.0).
    let clamped = float_fn!(
        dst,
        [x = r],
        if x.is_nan() || x <= 0.0 {
            0.0
        } else if x > 1.0 {
            1.0
        } else {
            x
        }
    )?;
    Some((clamped, COMPUTED_FLOAT))
}

fn ref_setp(cmp: Cmp, ty: PtxType, a: u64, b: u64) -> Option<bool> {
    let w = ty.bits();
    if ty.is_arith_float() {
        return float_pred!(ty, [x = a, y = b], {
            let un = x.is_nan() || y.is_nan();
            match cmp {
                Cmp::Eq => !un && x == y,
                Cmp::Ne => !un && x != y,
                Cmp::Lt => !un && x < y,
                Cmp::Le => !un && x <= y,
                Cmp::Gt => !un && x > y,
                Cmp::Ge => !un && x >= y,
                Cmp::Equ => un || x == y,
                Cmp::Neu => un || x != y,
                Cmp::Ltu => un || x < y,
                Cmp::Leu => un || x <= y,
                Cmp::Gtu => un || x > y,
                Cmp::Geu => un || x >= y,
                Cmp::Num => !un,
                Cmp::Nan => un,
            }
        });
    }
    let ord = match ty.class() {
        TypeClass::Signed => sext(a, w).cmp(&sext(b, w)),
        TypeClass::Unsigned | TypeClass::Bits => a.cmp(&b),
        _ => return None,
    };
    if ty.class() == TypeClass::Bits && !matches!(cmp, Cmp::Eq | Cmp::Ne) {
        return None;
    }
    Some(match cmp {
        Cmp::Eq => ord.is_eq(),
        Cmp::Ne => ord.is_ne(),
        Cmp::Lt => ord.is_lt(),
        Cmp::Le => ord.is_le(),
        Cmp::Gt => ord.is_gt(),
        Cmp::Ge => ord.is_ge(),
        _ => return None,
    })
}

/// Special registers of thread 0 in a (1,1,1) x (32,1,1) launch.
fn ref_special(reg: SpecialReg) -> u64 {
    match reg {
        SpecialReg::NtidX => THREADS as u64,
        SpecialReg::NtidY | SpecialReg::NtidZ => 1,
        SpecialReg::NctaidX | SpecialReg::NctaidY | SpecialReg::NctaidZ => 1,
        SpecialReg::TidX | SpecialReg::TidY | SpecialReg::TidZ => 0,
        SpecialReg::CtaidX | SpecialReg::CtaidY | SpecialReg::CtaidZ => 0,
        SpecialReg::LaneId => 0,
        SpecialReg::DynamicSmemSize => 0,
    }
}

// ----------------------------------------------------------------------------------------
// The reference interpreter (thread 0).
// ----------------------------------------------------------------------------------------

struct Model<'a> {
    cat: &'a FormCatalog,
    /// Scalar parameter bits by parameter index (pointers are modeled as regions).
    params: &'a [u64],
    input: &'a [u8],
    regs: HashMap<VReg, Known>,
    /// Body index of the instruction whose result a register holds.
    origin: HashMap<VReg, usize>,
    /// Expected output bytes of thread 0, by offset in its record.
    expects: BTreeMap<u32, Expect>,
    /// Why the walk stopped early, if it did.
    stopped: Option<String>,
}

impl<'a> Model<'a> {
    fn new(cat: &'a FormCatalog, params: &'a [u64], input: &'a [u8]) -> Model<'a> {
        Model {
            cat,
            params,
            input,
            regs: HashMap::new(),
            origin: HashMap::new(),
            expects: BTreeMap::new(),
            stopped: None,
        }
    }

    /// Exactly known bits of a source operand, masked to the instruction type `ty`.
    fn bits(&self, o: Operand, ty: PtxType) -> Option<u64> {
        match o {
            Operand::Imm(i) => Some(i.bits & mask(ty.bits())),
            Operand::Reg(r) => match self.regs.get(&r) {
                Some(Known { val: Val::Bits(b), how: Match::Exact }) => Some(b & mask(ty.bits())),
                _ => None,
            },
        }
    }

    fn ptr(&self, r: VReg) -> Option<(Region, i64)> {
        match self.regs.get(&r) {
            Some(Known { val: Val::Ptr(region, off), .. }) => Some((*region, *off)),
            _ => None,
        }
    }

    fn set(&mut self, dst: VReg, index: usize, v: Option<Known>) {
        self.origin.insert(dst, index);
        match v {
            Some(k) => {
                let k = match k.val {
                    Val::Bits(b) => Known { val: Val::Bits(b & mask(dst.ty.bits())), how: k.how },
                    Val::Ptr(..) => k,
                };
                self.regs.insert(dst, k);
            }
            None => {
                self.regs.remove(&dst);
            }
        }
    }

    fn set_bits(&mut self, dst: VReg, index: usize, v: Option<(u64, Match)>) {
        self.set(dst, index, v.map(|(b, how)| Known { val: Val::Bits(b), how }));
    }

    fn exact(bits: Option<u64>) -> Option<(u64, Match)> {
        bits.map(|b| (b, Match::Exact))
    }

    fn run(&mut self) {
        let body = &self.cat.ir.body;
        let mut labels = HashMap::new();
        for (i, instr) in body.iter().enumerate() {
            if let Instr::Label(l) = instr {
                labels.insert(*l, i);
            }
        }
        let mut pc = 0;
        let mut steps = 0;
        while pc < body.len() {
            steps += 1;
            if steps > 10 * body.len() {
                self.stopped = Some("too many steps".into());
                return;
            }
            let i = pc;
            pc += 1;
            match &body[i] {
                Instr::Bra { guard, target } => {
                    let taken = match guard {
                        None => true,
                        Some(g) => match self.bits(Operand::Reg(g.pred), PtxType::Pred) {
                            Some(p) => (p != 0) != g.negated,
                            None => {
                                self.stopped = Some(format!("unknown guard at {i}"));
                                return;
                            }
                        },
                    };
                    if taken {
                        pc = labels[target];
                    }
                }
                Instr::Ret => return,
                instr => self.step(i, instr),
            }
        }
    }

    fn step(&mut self, i: usize, instr: &Instr) {
        match *instr {
            Instr::Mov { ty, dst, src } => {
                let v = match src {
                    Operand::Imm(imm) => {
                        Some(Known { val: Val::Bits(imm.bits & mask(ty.bits())), how: Match::Exact })
                    }
                    Operand::Reg(r) => match self.regs.get(&r) {
                        Some(Known { val: Val::Bits(b), how }) => {
                            Some(Known { val: Val::Bits(b & mask(ty.bits())), how: *how })
                        }
                        other => other.copied(),
                    },
                };
                self.set(dst, i, v);
            }
            Instr::Special { dst, reg } => self.set_bits(dst, i, Self::exact(Some(ref_special(reg)))),
            Instr::LdParam { ty, dst, param } => {
                let p = &self.cat.ir.params[param as usize];
                let v = if p.is_pointer {
                    let region = match p.name.as_str() {
                        "input" => Region::Input,
                        "output" => Region::Output,
                        _ => Region::Scratch,
                    };
                    Some(Known { val: Val::Ptr(region, 0), how: Match::Exact })
                } else {
                    let bits = self.params[param as usize] & mask(ty.bits());
                    Some(Known { val: Val::Bits(bits), how: Match::Exact })
                };
                self.set(dst, i, v);
            }
            Instr::CvtaGlobal { dst, src } => {
                let v = self.ptr(src).map(|(r, o)| Known { val: Val::Ptr(r, o), how: Match::Exact });
                self.set(dst, i, v);
            }
            Instr::Unary { op, ty, mode, dst, src } => {
                let v = self.bits(src, ty).and_then(|a| ref_unary(op, ty, mode, a));
                self.set_bits(dst, i, v);
            }
            Instr::Binary { op, ty, mode, dst, a, b } => {
                // Pointer arithmetic: base + known offset.
                if let (BinaryOp::Add, Some((region, off))) = (op, a.reg().and_then(|r| self.ptr(r))) {
                    let v = self.bits(b, ty).map(|k| Known {
                        val: Val::Ptr(region, off.wrapping_add(k as i64)),
                        how: Match::Exact,
                    });
                    self.set(dst, i, v);
                    return;
                }
                let b_ty = if op.is_shift() { PtxType::U32 } else { ty };
                let v = match (self.bits(a, ty), self.bits(b, b_ty)) {
                    (Some(x), Some(y)) => ref_binary(op, ty, mode, x, y),
                    _ => None,
                };
                self.set_bits(dst, i, v);
            }
            Instr::MulWide { ty, dst, a, b } => {
                let v = match (self.bits(a, ty), self.bits(b, ty)) {
                    (Some(x), Some(y)) => ref_mul_wide(ty, x, y),
                    _ => None,
                };
                self.set_bits(dst, i, Self::exact(v));
            }
            Instr::Mad { ty, dst, a, b, c } => {
                let v = match (self.bits(a, ty), self.bits(b, ty), self.bits(c, ty)) {
                    (Some(x), Some(y), Some(z)) => ref_mad(ty, x, y, z),
                    _ => None,
                };
                self.set_bits(dst, i, Self::exact(v));
            }
            Instr::Fma { ty, mode, dst, a, b, c } => {
                let v = match (self.bits(a, ty), self.bits(b, ty), self.bits(c, ty)) {
                    (Some(x), Some(y), Some(z)) => ref_fma(ty, mode, x, y, z),
                    _ => None,
                };
                self.set_bits(dst, i, v.map(|b| (b, COMPUTED_FLOAT)));
            }
            Instr::Cvt { dst_ty, src_ty, round, sat, dst, src } => {
                let v = self.bits(src, src_ty).and_then(|a| ref_cvt(dst_ty, src_ty, round, sat, a));
                self.set_bits(dst, i, v);
            }
            Instr::Setp { cmp, ty, dst, a, b } => {
                let v = match (self.bits(a, ty), self.bits(b, ty)) {
                    (Some(x), Some(y)) => ref_setp(cmp, ty, x, y),
                    _ => None,
                };
                self.set_bits(dst, i, Self::exact(v.map(u64::from)));
            }
            Instr::Selp { ty, dst, a, b, pred } => {
                let v = match self.bits(Operand::Reg(pred), PtxType::Pred) {
                    Some(p) => self.bits(if p != 0 { a } else { b }, ty),
                    None => None,
                };
                self.set_bits(dst, i, Self::exact(v));
                // The catalog stores a predicate as `selp.u32 r, 1, 0, p`: credit its producer.
                if let (Operand::Imm(_), Operand::Imm(_)) = (a, b) {
                    if let Some(&o) = self.origin.get(&pred) {
                        self.origin.insert(dst, o);
                    }
                }
            }
            Instr::Ld { space, ty, dsts, addr, .. } => {
                let base = match addr.base {
                    AddrBase::Reg(r) if space == Space::Global => self.ptr(r),
                    _ => None,
                };
                let size = ty.bytes() as i64;
                for (k, &d) in dsts.as_slice().iter().enumerate() {
                    let v = match base {
                        Some((Region::Input, off)) => {
                            let at = off + addr.offset as i64 + k as i64 * size;
                            // A byte extends into its 16- or 32-bit register.
                            self.read_input(at, size as usize).map(|v| match ty {
                                PtxType::S8 => sext(v, 8) as u64 & mask(d.ty.bits()),
                                _ => v,
                            })
                        }
                        _ => None, // scratch, shared: not modeled
                    };
                    self.set_bits(d, i, Self::exact(v));
                }
            }
            Instr::St { space, ty, srcs, addr, .. } => {
                let base = match addr.base {
                    AddrBase::Reg(r) if space == Space::Global => self.ptr(r),
                    _ => None,
                };
                let Some((Region::Output, off)) = base else { return };
                for (k, &s) in srcs.as_slice().iter().enumerate() {
                    let at = (off + addr.offset as i64 + k as i64 * ty.bytes() as i64) as u32;
                    match (self.regs.get(&s), self.origin.get(&s)) {
                        (Some(Known { val: Val::Bits(b), how }), Some(&origin)) => {
                            let e = Expect { ty, bits: b & mask(ty.bits()), how: *how, origin };
                            self.expects.insert(at, e);
                        }
                        _ => {
                            self.expects.remove(&at);
                        }
                    }
                }
            }
            // Not modeled: the destination is unknown.
            Instr::SharedAddr { dst, .. }
            | Instr::Atom { dst, .. }
            | Instr::Shfl { dst, .. }
            | Instr::Vote { dst, .. } => self.set(dst, i, None),
            Instr::BarSync { .. }
            | Instr::BarWarpSync { .. }
            | Instr::Fence { .. }
            | Instr::Label(_)
            | Instr::Bra { .. }
            | Instr::Ret
            | Instr::Printf { .. } => {}
        }
    }

    fn read_input(&self, at: i64, size: usize) -> Option<u64> {
        let at = usize::try_from(at).ok()?;
        let bytes = self.input.get(at..at + size)?;
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(bytes);
        Some(u64::from_le_bytes(b))
    }

    /// The register operands of instruction `index` with their modeled values, for reports.
    fn operands(&self, index: usize) -> String {
        let instr = &self.cat.ir.body[index];
        let mut parts = Vec::new();
        for r in instr.uses() {
            let name = format!("%{}{}", r.ty.reg_prefix(), r.index);
            let v = match self.regs.get(&r) {
                Some(Known { val: Val::Bits(b), .. }) => describe(r.ty, *b),
                Some(Known { val: Val::Ptr(region, off), .. }) => format!("{region:?}+{off}"),
                None => "?".into(),
            };
            parts.push(format!("{name}={v}"));
        }
        parts.join(", ")
    }
}

/// Bits with their float reading where the type is a float.
fn describe(ty: PtxType, bits: u64) -> String {
    match ty {
        PtxType::F32 => format!("{bits:#010x} ({:e})", f32::from_bits(bits as u32)),
        PtxType::F64 => format!("{bits:#018x} ({:e})", f64::from_bits(bits)),
        _ => format!("{bits:#x}"),
    }
}

// ----------------------------------------------------------------------------------------
// Inputs.
// ----------------------------------------------------------------------------------------

/// The catalog's value types, in the order its input holds three values of each.
fn value_types() -> Vec<PtxType> {
    PtxType::ALL[1..].to_vec()
}

const F32_EDGES: [f32; 34] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    3.5,
    0.99999994,
    1.0000001,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-40,
    -1e-45,
    2147483648.0,
    -2147483648.0,
    2147483520.0,
    4294967296.0,
    65535.5,
    65536.0,
    -32768.5,
    32767.5,
    -32769.0,
    9.223372e18,
    -9.223373e18,
    1.8446744e19,
    1e10,
    -7.25,
];

const F32_NANS: [u32; 3] = [0x7fc0_0000, 0xffc0_0001, 0x7f80_0001];

const F64_EDGES: [f64; 30] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.5,
    -3.5,
    0.1,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    1e300,
    3.4028234663852886e38,
    3.4028235677973366e38,
    3.402823669209385e38,
    1.401298464324817e-45,
    7.006492321624085e-46,
    2.1019476964872256e-45,
    1.0000000596046448,
    1.0000001788139343,
    2147483647.5,
    -2147483648.5,
    4294967295.5,
    9.223372036854776e18,
    1.8446744073709552e19,
    -32768.49,
    65535.999,
];

const F64_NANS: [u64; 3] = [0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0001, 0x7ff0_0000_0000_0001];

/// One input value of type `ty`: raw random bits, a moderate value, or an edge case.
fn input_value(r: &mut Rng, ty: PtxType) -> u64 {
    let pick = r.next() % 10;
    let k = r.next() as usize;
    match ty {
        PtxType::F32 => match pick {
            0..=2 => r.next(),
            3..=5 => r.moderate_f32().to_bits() as u64,
            6 => ((k % 41) as f32 * 0.25 - 5.0).to_bits() as u64,
            7 => F32_NANS[k % F32_NANS.len()] as u64,
            _ => F32_EDGES[k % F32_EDGES.len()].to_bits() as u64,
        },
        PtxType::F64 => match pick {
            0..=2 => r.next(),
            3..=5 => r.moderate_f64().to_bits(),
            6 => ((k % 41) as f64 * 0.25 - 5.0).to_bits(),
            7 => F64_NANS[k % F64_NANS.len()],
            _ => F64_EDGES[k % F64_EDGES.len()].to_bits(),
        },
        _ => {
            let w = ty.bits();
            match pick {
                0..=3 => r.next(),
                4..=6 => ((k % 17) as u64).wrapping_sub(8),
                _ => {
                    let top = 1u64 << (w - 1);
                    [0, 1, top, top - 1, top + 1, mask(w), mask(w) - 1, 2, top >> 1][k % 9]
                }
            }
        }
    }
}

// ----------------------------------------------------------------------------------------
// The test.
// ----------------------------------------------------------------------------------------

/// Result of one round: mismatches, modeled exact outputs, exact outputs, kinds modeled.
struct Round {
    mismatches: Vec<String>,
    modeled: usize,
    exact: usize,
    kinds: Vec<InstrKind>,
    unmodeled: BTreeMap<String, usize>,
}

fn round(cat: &FormCatalog, k: &ptx_sim::KernelCode, seed: u64) -> Round {
    let mut r = Rng(seed);
    let types = value_types();
    assert_eq!(types.len() as u32 * 3 * 8, cat.input_bytes, "input layout");
    let input: Vec<u64> = (0..cat.input_bytes as usize / 8)
        .map(|slot| {
            let ty = types[slot / 3];
            let m = mask(ty.bits());
            // Junk above the value's width must not matter.
            (r.next() & !m) | (input_value(&mut r, ty) & m)
        })
        .collect();
    let input_bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();

    let mem = Memory::new();
    let ib = upload(&mem, &input, 8);
    let out_bytes = (cat.record_bytes * THREADS) as usize;
    let ob = mem.alloc(out_bytes);
    let sb = mem.alloc((SCRATCH_PER_THREAD * THREADS) as usize);
    let mut params = vec![ib, ob, sb];
    for ty in SCALAR_PARAMS {
        params.push(input_value(&mut r, ty) & mask(ty.bits()));
    }
    let g = Geometry { grid: [1, 1, 1], block: [THREADS, 1, 1], dynamic_shared_bytes: 0 };
    launch(k, &g, &params, &mem, 1).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
    let got: Vec<u8> = download(&mem, ob, cat.record_bytes as usize / 8, 8)
        .into_iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();

    let mut model = Model::new(cat, &params, &input_bytes);
    model.run();
    assert_eq!(model.stopped, None, "the reference walked the whole kernel");

    let mut mismatches = Vec::new();
    for (&offset, e) in &model.expects {
        let size = e.ty.bytes() as usize;
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(&got[offset as usize..offset as usize + size]);
        let sim = u64::from_le_bytes(b);
        let ok = match e.how {
            Match::Exact => sim == e.bits,
            Match::Float => sim == e.bits || (is_nan_bits(e.ty, e.bits) && is_nan_bits(e.ty, sim)),
        };
        if !ok {
            let instr = &cat.ir.body[e.origin];
            mismatches.push(format!(
                "`{}` (output +{offset}, {}): inputs [{}]: expected {}, simulator {}",
                instr_text(&cat.ir, instr),
                e.ty,
                model.operands(e.origin),
                describe(e.ty, e.bits),
                describe(e.ty, sim),
            ));
        }
    }

    let mut kinds = Vec::new();
    let mut unmodeled = BTreeMap::new();
    let mut modeled = 0;
    let exact: Vec<_> = cat.outputs.iter().filter(|o| o.exact).collect();
    for o in &exact {
        match model.expects.get(&o.offset) {
            Some(e) => {
                assert_eq!(e.ty, o.ty, "output +{} of `{}` has the catalog's type", o.offset, o.form);
                modeled += 1;
                kinds.push(cat.ir.body[e.origin].kind());
            }
            None => {
                // Group by mnemonic and modifiers, without the operands.
                let key = o.form.split_whitespace().next().unwrap_or("").to_string();
                *unmodeled.entry(key).or_insert(0) += 1;
            }
        }
    }
    kinds.sort();
    kinds.dedup();
    Round { mismatches, modeled, exact: exact.len(), kinds, unmodeled }
}

#[test]
fn simulator_matches_an_independent_reference_on_every_modeled_catalog_output() {
    let cat = every_form();
    ptx_core::verify::verify(&cat.ir).expect("catalog verifies");
    let ptx = ptx_core::print::kernel_ptx(&cat.ir, ptx_core::Target::SM_80);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("every_form").expect("kernel");

    let mut failures = Vec::new();
    let mut min_ratio = f64::INFINITY;
    for seed in ptx_tools::seed::fresh_seeds("CATALOG_REFERENCE_SEED", 3) {
        let res = round(&cat, k, seed);
        let ratio = res.modeled as f64 / res.exact as f64;
        min_ratio = min_ratio.min(ratio);
        println!(
            "seed {seed:#x}: the reference models {}/{} exact outputs ({:.1}%), {} mismatch(es)",
            res.modeled,
            res.exact,
            100.0 * ratio,
            res.mismatches.len()
        );
        println!("  not modeled: {:?}", res.unmodeled);
        for kind in [
            InstrKind::Mov,
            InstrKind::Unary,
            InstrKind::Binary,
            InstrKind::MulWide,
            InstrKind::Mad,
            InstrKind::Fma,
            InstrKind::Cvt,
            InstrKind::Setp,
            InstrKind::Selp,
            InstrKind::LdParam,
            InstrKind::Special,
        ] {
            assert!(res.kinds.contains(&kind), "seed {seed:#x}: no modeled output of {kind:?}");
        }
        if !res.mismatches.is_empty() {
            failures.push(format!(
                "seed {seed:#x} (replay with CATALOG_REFERENCE_SEED={seed:#x}):\n  {}",
                res.mismatches.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "the simulator differs from the reference:\n{}", failures.join("\n"));
    assert!(
        min_ratio >= MIN_COVERAGE,
        "the reference models only {:.1}% of the exact outputs (want {:.0}%)",
        100.0 * min_ratio,
        100.0 * MIN_COVERAGE
    );
}
