//! Tensor-core instructions: `ldmatrix` and `mma.sync`, executed by the block runner once
//! all 32 lanes of a warp have reached the instruction (both are `.aligned` warp
//! collectives).
//!
//! Fragments follow the PTX ISA's layouts. With `g = lane / 4` (the ISA's `groupID`) and
//! `t = lane % 4` (`threadID_in_group`), and `e` elements of the A/B type packed per 32-bit
//! register (2 for `.f16`/`.bf16`, 1 for `.tf32` and `.f64`, 4 for `.s8`/`.u8`), element `q`
//! of register `j` of a lane is
//!
//! - of A (`m × k`, row major): row `g + 8·(j mod 2)`, column `t·e + q + 4e·⌊j/2⌋`;
//! - of B (`k × n`, column major): row `t·e + q + 4e·j`, column `g`;
//! - of C and D (`m × n`), element `i` (register `i` for 32- and 64-bit accumulators,
//!   half `i mod 2` of register `⌊i/2⌋` for `.f16`): row `g + 8·⌊i/2⌋`, column `2t + i mod 2`.
//!
//! The `m8n8` shapes (`.f64` m8n8k4, `.s8`/`.u8` m8n8k16) have one A and one B register
//! and two of C, which the same formulas place. `ldmatrix` gives lane `L` of each 8×8
//! matrix the elements `(L/4, 2·(L%4))` and `(L/4, 2·(L%4)+1)` (the lower column in the
//! lower half), or with `.trans` those of the transposed matrix.
//!
//! Accumulation: every product is exact (an f16, bf16 or tf32 product fits an f64; an f64
//! product's 106 bits of mantissa are kept whole), the exact sum of the `k` products and
//! C's element is formed in a wide integer, and that sum is rounded once, to nearest even,
//! to D's type. The PTX ISA does not specify the order or the precision in which the
//! hardware adds (the measured A100 behaviour aligns the addends to the largest and
//! truncates), so this is the most accurate result an implementation may give; a test
//! must allow for a GPU's result differing from it by a few units in the last place of
//! the sum's magnitudes. A NaN anywhere, or `∞ · 0`, or `∞ - ∞`, gives the canonical NaN.
//! `.tf32` operands are read from their upper 19 bits (the low 13 bits of the `.b32`
//! register are ignored, as by the hardware); subnormal inputs and results are kept.
//! Integer `mma` wraps the exact 32-bit sum, or with `.satfinite` clamps it to the `.s32`
//! range.

use ptx_core::softfloat::{self as float, Fmt, Rnd};

/// (fraction bits, exponent bits) of the formats read here.
const HALF: (u32, u32) = (10, 5);
const BFLOAT: (u32, u32) = (7, 8);
const SINGLE: (u32, u32) = (23, 8);
const DOUBLE: (u32, u32) = (52, 11);

/// An element type of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    F16,
    Bf16,
    Tf32,
    F64,
    S8,
    U8,
}

impl Elem {
    /// Elements packed in one register.
    pub(crate) fn per_reg(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 2,
            Elem::Tf32 | Elem::F64 => 1,
            Elem::S8 | Elem::U8 => 4,
        }
    }

    fn bits(self) -> u32 {
        match self {
            Elem::F64 => 64,
            _ => 32 / self.per_reg(),
        }
    }
}

/// An accumulator (C or D) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Acc {
    F16,
    F32,
    F64,
    S32,
}

impl Acc {
    fn per_reg(self) -> u32 {
        if self == Acc::F16 {
            2
        } else {
            1
        }
    }

    fn bits(self) -> u32 {
        match self {
            Acc::F16 => 16,
            Acc::F64 => 64,
            _ => 32,
        }
    }

    fn fmt(self) -> Fmt {
        match self {
            Acc::F16 => float::F16,
            Acc::F64 => float::F64,
            _ => float::F32,
        }
    }
}

/// One `mma` form: the shape and the types of A, B, C and D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MmaForm {
    pub(crate) m: u8,
    pub(crate) n: u8,
    pub(crate) k: u8,
    pub(crate) a: Elem,
    pub(crate) b: Elem,
    pub(crate) c: Acc,
    pub(crate) d: Acc,
    /// `.satfinite` (integer forms): the sum clamped to the `.s32` range.
    pub(crate) satfinite: bool,
}

impl MmaForm {
    /// Registers per lane of A, B, C and D.
    pub(crate) fn a_regs(&self) -> usize {
        (self.m as u32 * self.k as u32 / 32 / self.a.per_reg()) as usize
    }
    pub(crate) fn b_regs(&self) -> usize {
        (self.k as u32 * self.n as u32 / 32 / self.b.per_reg()) as usize
    }
    pub(crate) fn c_regs(&self) -> usize {
        (self.m as u32 * self.n as u32 / 32 / self.c.per_reg()) as usize
    }
    pub(crate) fn d_regs(&self) -> usize {
        (self.m as u32 * self.n as u32 / 32 / self.d.per_reg()) as usize
    }
    /// All of a lane's fragment registers (D, A, B, C).
    pub(crate) fn regs(&self) -> usize {
        self.d_regs() + self.a_regs() + self.b_regs() + self.c_regs()
    }

    /// The forms the simulator runs, by shape and types as `mma` names them
    /// (`.dtype.atype.btype.ctype`); `None` for any other.
    pub(crate) fn new(shape: &str, d: &str, a: &str, b: &str, c: &str, satfinite: bool) -> Option<MmaForm> {
        let (m, n, k) = match shape {
            "m16n8k16" => (16, 8, 16),
            "m16n8k8" => (16, 8, 8),
            "m16n8k4" => (16, 8, 4),
            "m16n8k32" => (16, 8, 32),
            "m8n8k4" => (8, 8, 4),
            "m8n8k16" => (8, 8, 16),
            _ => return None,
        };
        let elem = |s: &str| match s {
            "f16" => Some(Elem::F16),
            "bf16" => Some(Elem::Bf16),
            "tf32" => Some(Elem::Tf32),
            "f64" => Some(Elem::F64),
            "s8" => Some(Elem::S8),
            "u8" => Some(Elem::U8),
            _ => None,
        };
        let acc = |s: &str| match s {
            "f16" => Some(Acc::F16),
            "f32" => Some(Acc::F32),
            "f64" => Some(Acc::F64),
            "s32" => Some(Acc::S32),
            _ => None,
        };
        let form = MmaForm { m, n, k, a: elem(a)?, b: elem(b)?, c: acc(c)?, d: acc(d)?, satfinite };
        let int = |e: Elem| matches!(e, Elem::S8 | Elem::U8);
        let ok = match (form.a, form.b) {
            // f16 inputs: f16 or f32 accumulators, D's type C's (ptxas refuses the mixed
            // forms of these shapes).
            (Elem::F16, Elem::F16) => {
                matches!(shape, "m16n8k16" | "m16n8k8") && form.c == form.d && form.c != Acc::F64
            }
            (Elem::Bf16, Elem::Bf16) => {
                matches!(shape, "m16n8k16" | "m16n8k8") && form.c == Acc::F32 && form.d == Acc::F32
            }
            (Elem::Tf32, Elem::Tf32) => {
                matches!(shape, "m16n8k8" | "m16n8k4") && form.c == Acc::F32 && form.d == Acc::F32
            }
            (Elem::F64, Elem::F64) => shape == "m8n8k4" && form.c == Acc::F64 && form.d == Acc::F64,
            (x, y) if int(x) && int(y) => {
                matches!(shape, "m16n8k32" | "m16n8k16" | "m8n8k16")
                    && form.c == Acc::S32
                    && form.d == Acc::S32
            }
            _ => false,
        };
        (ok && (!satfinite || form.d == Acc::S32)).then_some(form)
    }
}

/// Where element `q` of A register `j` of `lane` lies: (row, column).
pub(crate) fn a_place(e: u32, lane: u32, j: u32, q: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (j % 2), t * e + q + 4 * e * (j / 2))
}

/// Where element `q` of B register `j` of `lane` lies: (row, column).
pub(crate) fn b_place(e: u32, lane: u32, j: u32, q: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (t * e + q + 4 * e * j, g)
}

/// Where accumulator element `i` of `lane` lies: (row, column).
pub(crate) fn c_place(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (i / 2), 2 * t + i % 2)
}

/// `ldmatrix`: lane `lane`'s register of an 8×8 matrix of 16-bit `rows` (`trans`: of its
/// transpose).
pub(crate) fn ldmatrix_fragment(rows: &[[u16; 8]; 8], trans: bool, lane: usize) -> u64 {
    let (r, c) = (lane / 4, 2 * (lane % 4));
    let (lo, hi) = if trans { (rows[c][r], rows[c + 1][r]) } else { (rows[r][c], rows[r][c + 1]) };
    lo as u64 | (hi as u64) << 16
}

/// A value of an A or B element, or of an accumulator.
#[derive(Clone, Copy)]
enum Value {
    /// `(-1)^neg · mant · 2^exp`.
    Finite {
        neg: bool,
        mant: u128,
        exp: i32,
    },
    Inf(bool),
    Nan,
    Int(i64),
}

/// The value of `bits` in a binary format of `frac` fraction and `ebits` exponent bits.
fn float_value((frac, ebits): (u32, u32), bits: u64) -> Value {
    let neg = bits >> (frac + ebits) & 1 == 1;
    let max_e = (1u64 << ebits) - 1;
    let e = (bits >> frac) & max_e;
    let m = bits & ((1u64 << frac) - 1);
    let bias = (1i32 << (ebits - 1)) - 1;
    if e == max_e {
        return if m == 0 { Value::Inf(neg) } else { Value::Nan };
    }
    let (mant, exp) = if e == 0 {
        (m as u128, 1 - bias - frac as i32)
    } else {
        ((m | 1 << frac) as u128, e as i32 - bias - frac as i32)
    };
    Value::Finite { neg, mant, exp }
}

fn elem_value(e: Elem, bits: u64) -> Value {
    match e {
        Elem::F16 => float_value(HALF, bits & 0xffff),
        Elem::Bf16 => float_value(BFLOAT, bits & 0xffff),
        // The upper 19 bits: sign, exponent and 10 bits of fraction.
        Elem::Tf32 => float_value(SINGLE, bits & 0xffff_e000),
        Elem::F64 => float_value(DOUBLE, bits),
        Elem::S8 => Value::Int(bits as u8 as i8 as i64),
        Elem::U8 => Value::Int(bits as u8 as i64),
    }
}

fn acc_value(a: Acc, bits: u64) -> Value {
    match a {
        Acc::F16 => float_value(HALF, bits & 0xffff),
        Acc::F32 => float_value(SINGLE, bits & 0xffff_ffff),
        Acc::F64 => float_value(DOUBLE, bits),
        Acc::S32 => Value::Int(bits as u32 as i32 as i64),
    }
}

fn product(x: Value, y: Value) -> Value {
    match (x, y) {
        (Value::Int(a), Value::Int(b)) => Value::Int(a * b),
        (Value::Nan, _) | (_, Value::Nan) => Value::Nan,
        (Value::Inf(_), Value::Finite { mant: 0, .. }) | (Value::Finite { mant: 0, .. }, Value::Inf(_)) => {
            Value::Nan
        }
        (Value::Inf(a), Value::Inf(b))
        | (Value::Inf(a), Value::Finite { neg: b, .. })
        | (Value::Finite { neg: a, .. }, Value::Inf(b)) => Value::Inf(a != b),
        (Value::Finite { neg: a, mant: m, exp: e }, Value::Finite { neg: b, mant: n, exp: f }) => {
            Value::Finite { neg: a != b, mant: m * n, exp: e + f }
        }
        _ => Value::Nan,
    }
}

/// The exact sum of `terms` rounded once to nearest even into `f` (bits).
fn exact_sum(f: Fmt, terms: &[Value]) -> u64 {
    let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
    let mut all_neg_zero = true;
    let mut emin = i32::MAX;
    let mut top = i32::MIN;
    for t in terms {
        match *t {
            Value::Nan | Value::Int(_) => nan = true,
            Value::Inf(neg) => {
                if neg {
                    neg_inf = true
                } else {
                    pos_inf = true
                }
            }
            Value::Finite { neg, mant, exp } => {
                if mant == 0 {
                    all_neg_zero &= neg;
                    continue;
                }
                all_neg_zero = false;
                emin = emin.min(exp);
                top = top.max(exp + 128 - mant.leading_zeros() as i32);
            }
        }
    }
    if nan || (pos_inf && neg_inf) {
        return f.nan();
    }
    if pos_inf || neg_inf {
        // Infinity of its sign (an overflow rounded to nearest).
        return float::round_pack(neg_inf, 1, 1 << 20, Rnd::Rn, f);
    }
    if emin == i32::MAX {
        return float::round_pack(all_neg_zero, 0, 0, Rnd::Rn, f);
    }
    // A two's complement integer in units of 2^emin, with room for the carries of every
    // term and a sign bit.
    let bits = (top - emin) as usize + 8 + terms.len().ilog2() as usize;
    let mut acc = vec![0u64; bits / 64 + 2];
    for t in terms {
        if let Value::Finite { neg, mant, exp } = *t {
            if mant != 0 {
                add_shifted(&mut acc, mant, (exp - emin) as usize, neg);
            }
        }
    }
    let neg = acc.last().is_some_and(|w| w >> 63 == 1);
    if neg {
        let mut carry = 1u64;
        for w in acc.iter_mut() {
            let (v, c) = (!*w).overflowing_add(carry);
            *w = v;
            carry = c as u64;
        }
    }
    let Some(hw) = acc.iter().rposition(|&w| w != 0) else {
        // Cancelled exactly: +0 under round to nearest.
        return float::round_pack(false, 0, 0, Rnd::Rn, f);
    };
    let high = hw * 64 + 63 - acc[hw].leading_zeros() as usize;
    // The top 126 bits, and a sticky bit for any below them.
    let low = high.saturating_sub(125);
    let mut mant: u128 = 0;
    for bit in (low..=high).rev() {
        mant = mant << 1 | (acc[bit / 64] >> (bit % 64) & 1) as u128;
    }
    let sticky = (0..low).any(|bit| acc[bit / 64] >> (bit % 64) & 1 == 1);
    mant = mant << 1 | sticky as u128;
    float::round_pack(neg, mant, emin + low as i32 - 1, Rnd::Rn, f)
}

/// Adds (or subtracts, `neg`) `mant · 2^shift` to the two's complement integer `acc`.
fn add_shifted(acc: &mut [u64], mant: u128, shift: usize, neg: bool) {
    let (word, bit) = (shift / 64, shift % 64);
    let mut parts = [0u64; 3];
    parts[0] = (mant << bit) as u64;
    parts[1] = ((mant << bit) >> 64) as u64;
    parts[2] = if bit == 0 { 0 } else { (mant >> (128 - bit)) as u64 };
    let mut carry = false;
    for (i, w) in acc.iter_mut().enumerate().skip(word) {
        let p = parts.get(i - word).copied().unwrap_or(0);
        if i - word >= 3 && !carry {
            break;
        }
        if neg {
            let (v, b1) = w.overflowing_sub(p);
            let (v, b2) = v.overflowing_sub(carry as u64);
            *w = v;
            carry = b1 || b2;
        } else {
            let (v, c1) = w.overflowing_add(p);
            let (v, c2) = v.overflowing_add(carry as u64);
            *w = v;
            carry = c1 || c2;
        }
    }
}

/// One lane's fragment registers: A's, B's, C's (at most 4 of each).
#[derive(Clone, Copy, Default)]
pub(crate) struct Fragments {
    pub(crate) a: [u64; 4],
    pub(crate) b: [u64; 4],
    pub(crate) c: [u64; 4],
}

/// `mma` of `form` over the 32 lanes' fragments: each lane's D registers.
pub(crate) fn mma(form: &MmaForm, lanes: &[Fragments; 32]) -> [[u64; 4]; 32] {
    let (m, n, k) = (form.m as usize, form.n as usize, form.k as usize);
    let mut a = vec![Value::Int(0); m * k];
    let mut b = vec![Value::Int(0); k * n];
    let mut c = vec![Value::Int(0); m * n];
    let field = |v: u64, bits: u32, q: u32| if bits == 64 { v } else { v >> (bits * q) & ((1 << bits) - 1) };
    for (lane, f) in lanes.iter().enumerate() {
        let lane = lane as u32;
        let (ea, eb) = (form.a.per_reg(), form.b.per_reg());
        for j in 0..form.a_regs() as u32 {
            for q in 0..ea {
                let (r, col) = a_place(ea, lane, j, q);
                a[r as usize * k + col as usize] =
                    elem_value(form.a, field(f.a[j as usize], form.a.bits(), q));
            }
        }
        for j in 0..form.b_regs() as u32 {
            for q in 0..eb {
                let (r, col) = b_place(eb, lane, j, q);
                b[r as usize * n + col as usize] =
                    elem_value(form.b, field(f.b[j as usize], form.b.bits(), q));
            }
        }
        let ec = form.c.per_reg();
        for i in 0..(m * n / 32) as u32 {
            let (r, col) = c_place(lane, i);
            let bits = field(f.c[(i / ec) as usize], form.c.bits(), i % ec);
            c[r as usize * n + col as usize] = acc_value(form.c, bits);
        }
    }
    let mut out = [[0u64; 4]; 32];
    let mut terms = Vec::with_capacity(k + 1);
    for lane in 0..32u32 {
        let ed = form.d.per_reg();
        for i in 0..(m * n / 32) as u32 {
            let (r, col) = c_place(lane, i);
            let (r, col) = (r as usize, col as usize);
            let value = if form.d == Acc::S32 {
                let mut sum = match c[r * n + col] {
                    Value::Int(v) => v,
                    _ => 0,
                };
                for x in 0..k {
                    if let Value::Int(p) = product(a[r * k + x], b[x * n + col]) {
                        sum += p;
                    }
                }
                if form.satfinite {
                    sum.clamp(i32::MIN as i64, i32::MAX as i64) as u32 as u64
                } else {
                    sum as u32 as u64
                }
            } else {
                terms.clear();
                // (An f64 product's 106 bits of mantissa fit the 128 of a term.)
                terms.extend((0..k).map(|x| product(a[r * k + x], b[x * n + col])));
                terms.push(c[r * n + col]);
                exact_sum(form.d.fmt(), &terms)
            };
            let slot = &mut out[lane as usize][(i / ed) as usize];
            if ed == 2 {
                *slot |= value << (16 * (i % 2));
            } else {
                *slot = value;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_terms(xs: &[f64]) -> Vec<Value> {
        xs.iter().map(|&x| float_value(DOUBLE, x.to_bits())).collect()
    }

    #[test]
    fn exact_sums_round_once() {
        let r = |xs: &[f64]| f32::from_bits(exact_sum(float::F32, &f32_terms(xs)) as u32);
        assert_eq!(r(&[1.0, 2.0, -0.5]), 2.5);
        // 1 + 2^-24 + 2^-60 is above the midpoint of 1 and 1 + 2^-23: rounds up, though
        // summing in f32 (or f64 first) would not.
        assert_eq!(r(&[1.0, 2f64.powi(-24), 2f64.powi(-60)]), 1.0 + 2f32.powi(-23));
        assert_eq!(r(&[1.0, 2f64.powi(-24)]), 1.0);
        assert_eq!(r(&[1e30, 1.0, -1e30]), 1.0);
        assert_eq!(r(&[-0.0, -0.0]).to_bits(), (-0.0f32).to_bits());
        assert_eq!(r(&[0.0, -0.0]).to_bits(), 0);
        assert_eq!(r(&[1.0, -1.0]).to_bits(), 0);
        assert_eq!(r(&[-3.0, 1.0]), -2.0);
        assert!(r(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert_eq!(r(&[f64::INFINITY, 1.0]), f32::INFINITY);
        assert_eq!(r(&[3e38, 3e38]), f32::INFINITY);
        assert_eq!(r(&[1e-45, 1e-46]), f32::from_bits(1));
    }

    /// The layouts place each element of A, B and C exactly once.
    #[test]
    fn fragment_layouts_cover_each_element_once() {
        for (m, k, e) in
            [(16u32, 16u32, 2u32), (16, 8, 2), (16, 8, 1), (16, 4, 1), (16, 32, 4), (8, 4, 1), (8, 16, 4)]
        {
            let a_regs = m * k / 32 / e;
            let b_regs = k * 8 / 32 / e;
            let mut seen_a = vec![0; (m * k) as usize];
            let mut seen_b = vec![0; (k * 8) as usize];
            for lane in 0..32 {
                for j in 0..a_regs {
                    for q in 0..e {
                        let (r, c) = a_place(e, lane, j, q);
                        seen_a[(r * k + c) as usize] += 1;
                    }
                }
                for j in 0..b_regs {
                    for q in 0..e {
                        let (r, c) = b_place(e, lane, j, q);
                        seen_b[(r * 8 + c) as usize] += 1;
                    }
                }
            }
            assert!(seen_a.iter().all(|&s| s == 1), "A m{m} k{k} e{e}");
            assert!(seen_b.iter().all(|&s| s == 1), "B k{k} e{e}");
        }
    }
}
