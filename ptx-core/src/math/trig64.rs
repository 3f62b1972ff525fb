//! Accurate f64 `sin`, `cos`, `sin_cos` and `tan`, for every f64.
//!
//! The argument is reduced to `x = q·π/2 + r` (`|r| ≲ π/4`) with `r` carried as a
//! double-double ([`super::dd`]), so that `r` keeps full precision even for the f64s that
//! come closest to a multiple of π/2 (about 2^-61 away, Kahan–McDonald's bound):
//! - below 2^26, Cody–Waite against π/2 in three f64 parts (about 160 bits), each
//!   product `k · part` exact by an `fma`, the sums exact by two-sum;
//! - from 2^26 on, Payne–Hanek: 2/π's bits as immediates (20 64-bit words, chosen by the
//!   exponent with `selp`; no memory), a 53 × 192-bit product in 64-bit integer limbs,
//!   and the remainder turned into a double-double — behind a branch taken only there.
//!
//! Then Taylor polynomials of `sin` and `cos` on `r`, with the leading terms and `r`'s low
//! part added exactly enough that only the last addition rounds noticeably (within 1 ulp;
//! the tests measure the error against the host's libm), and `tan` as the quotient of the
//! two double-doubles with one correction step.

use super::dd::{self, Dd};
use super::inverse::{COS_POLY, SIN_POLY};
use super::{horner, place_in_quadrant};
use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{F64, S64, U32, U64};

/// The NaN the routines return.
const NAN: f64 = f64::from_bits(crate::eval::F64_CANONICAL_NAN);

/// π/2 as the sum of three f64s (the first is `FRAC_PI_2`), about 160 bits in all.
const PI_2: [f64; 3] = [
    f64::from_bits(0x3FF9_21FB_5444_2D18),
    f64::from_bits(0x3C91_A626_3314_5C07),
    f64::from_bits(0xB91F_1976_B7ED_8FBC),
];

/// Below this |x| the Cody–Waite reduction is used: with `k < 2^26` its error, about
/// `k · 2^-158`, stays below 2^-70 of the smallest remainder an f64 can leave.
const LARGE: f64 = 67_108_864.0; // 2^26

/// 2/π in 64-bit words, most significant first, after one zero word (so that windows
/// that start above the binary point read zeros): 1216 bits, enough for the largest f64.
const TWO_OVER_PI: [u64; 20] = [
    0,
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
    0xB724_6E3A_424D_D2E0,
    0x0649_2EEA_09D1_921C,
    0xFE1D_EB1C_B129_A73E,
    0xE882_35F5_2EBB_4484,
    0xE99C_7026_B45F_7E41,
    0x3991_D639_8353_39F4,
    0x9C84_5F8B_BDF9_283B,
    0x1FF8_97FF_DE05_980F,
    0xEF2F_118B_5A0A_6D1F,
    0x6D36_7ECF_27CB_09B7,
    0x4F46_3F66_9E5F_EA2D,
    0x7527_BAC7_EBE5_F17B,
    0x3D07_39F7_8A52_92EA,
    0x6BFB_5FB1_1F8D_5D08,
    0x5603_3046_FC7B_6BAB,
];

/// `(r, q)` with `x = q·π/2 + r (mod 2π)`, `r` as a double-double: Cody–Waite below
/// [`LARGE`], Payne–Hanek from there (a constant takes its path at build time, so that it
/// folds; a register branches).
fn reduce(b: &mut KernelBuilder, x: Val<F64>, ax: Val<F64>) -> (Dd, Val<U32>) {
    match x.as_imm() {
        Some(v) if v.abs() >= LARGE => reduce_large(b, x, ax),
        Some(_) => reduce_small(b, x),
        None => {
            let (hi, lo, q) = (b.reg::<F64>(), b.reg::<F64>(), b.reg::<U32>());
            let (large_path, join) = (b.label(), b.label());
            let is_large = b.setp(Cmp::Ge, ax, LARGE);
            b.bra_if(is_large, large_path);
            let (r, qs) = reduce_small(b, x);
            b.assign(hi, r.hi);
            b.assign(lo, r.lo);
            b.assign(q, qs);
            b.bra(join);
            b.place(large_path);
            let (r, ql) = reduce_large(b, x, ax);
            b.assign(hi, r.hi);
            b.assign(lo, r.lo);
            b.assign(q, ql);
            b.place(join);
            (Dd { hi: Val::Reg(hi), lo: Val::Reg(lo) }, Val::Reg(q))
        }
    }
}

/// Cody–Waite for |x| < 2^26: `k = rint(x·2/π)`, `x − k·h1` exact (Sterbenz), then the
/// exact products' remaining parts summed as a double-double.
fn reduce_small(b: &mut KernelBuilder, x: Val<F64>) -> (Dd, Val<U32>) {
    let t = b.mul(x, std::f64::consts::FRAC_2_PI);
    let k: Val<F64> = b.cvt(t, Some(CvtRound::Rni), false);
    let p1 = dd::two_prod(b, k, Val::Imm(PI_2[0]));
    let head = b.sub(x, p1.hi);
    let p2 = dd::two_prod(b, k, Val::Imm(PI_2[1]));
    let tail = dd::two_sum(b, p1.lo, p2.hi);
    let tail_lo = b.add(tail.lo, p2.lo);
    let tail_lo = b.fma(k, PI_2[2], tail_lo);
    let minus_tail = b.neg(tail.hi);
    let r = dd::two_sum(b, head, minus_tail);
    let lo = b.sub(r.lo, tail_lo);
    let r = dd::fast_two_sum(b, r.hi, lo);
    // q = k mod 4: |k| < 2^26, and two's complement keeps k's residue in its low bits.
    let k: Val<S64> = b.cvt(k, Some(CvtRound::Rzi), false);
    let k = b.cast::<U32, S64>(k);
    let q = b.and(k, 3u32);
    (r, q)
}

/// Payne–Hanek for finite |x| >= 2^26 (other inputs give some `(r, q)`; the callers
/// settle them), with the sign of `x` applied at the end.
///
/// With `|x| = m · 2^(e−52)` (`m` the 53-bit significand) and 2/π = Σ b_i 2^-i, the bits
/// with `i < e − 53` only add multiples of 4 quadrants. The 192-bit window `W` of 2/π from
/// `i = e − 53` on gives `|x|·2/π ≡ m·W·2^-190 (mod 4)`: the quadrant is bits 190–191 of
/// the product, the fraction the bits below (the window's truncation errs by less than
/// 2^-137 of a quadrant).
fn reduce_large(b: &mut KernelBuilder, x: Val<F64>, ax: Val<F64>) -> (Dd, Val<U32>) {
    let bits = b.bitcast::<U64, F64>(ax);
    let biased = b.shr(bits, 52u32);
    let biased = b.cast::<U32, U64>(biased);
    let fraction = b.and(bits, (1u64 << 52) - 1);
    let m = b.or(fraction, 1u64 << 52);
    // Bit i of 2/π is bit t = i + 63 of the table (word t / 64, from its top): the window
    // starts at t = e + 10 = biased − 1013.
    let start = b.sub(biased, 1013u32);
    let word = b.shr(start, 6u32);
    let shift = b.and(start, 63u32);
    let at_least: Vec<Val<crate::types::Pred>> = (1..=16u32).map(|w| b.setp(Cmp::Ge, word, w)).collect();
    let mut words = [Val::Imm(0u64); 4];
    for (slot, out) in words.iter_mut().enumerate() {
        let mut v: Val<U64> = Val::Imm(TWO_OVER_PI[slot]);
        for (n, p) in at_least.iter().enumerate() {
            v = b.selp(*p, TWO_OVER_PI[n + 1 + slot], v);
        }
        *out = v;
    }
    // The window: the four words shifted left by `shift`, their top 192 bits (a shift by
    // 64, for `shift` = 0, gives 0 in PTX).
    let back = b.sub(64u32, shift);
    let mut window = [Val::Imm(0u64); 3];
    for (i, w) in window.iter_mut().enumerate() {
        let high = b.shl(words[i], shift);
        let carried = b.shr(words[i + 1], back);
        *w = b.or(high, carried);
    }
    // m · W in 64-bit limbs; only limbs 1 and 2 (bits 64–191) matter: higher bits are
    // whole turns, and limb 0 is below 2^-126 of a quadrant.
    let hi2 = b.mul_hi(m, window[2]);
    let lo1 = b.mul(m, window[1]);
    let hi1 = b.mul_hi(m, window[1]);
    let lo0 = b.mul(m, window[0]);
    let limb1 = b.add(lo1, hi2);
    let carry = b.setp(Cmp::Lt, limb1, lo1);
    let carry = b.selp(carry, 1u64, 0u64);
    let limb2 = b.add(lo0, hi1);
    let limb2 = b.add(limb2, carry);
    // Round to the nearest quadrant: a fraction of one half or more counts from the next
    // quadrant, negative (the fraction read as a signed 62-bit number).
    let quadrant = b.shr(limb2, 61u32);
    let quadrant = b.cast::<U32, U64>(quadrant);
    let quadrant = b.add(quadrant, 1u32);
    let quadrant = b.shr(quadrant, 1u32);
    let q = b.and(quadrant, 3u32);
    let top = b.shl(limb2, 2u32);
    let top = b.bitcast::<S64, U64>(top);
    let top = b.shr(top, 2u32);
    // The fraction V = top·2^64 + limb1 (units of 2^-126 quadrant) in three chunks that
    // convert exactly: V = c1·2^84 + c2·2^42 + c3.
    let c1 = b.shr(top, 20u32);
    let top_low = b.and(top, 0xf_ffffi64);
    let top_low = b.bitcast::<U64, S64>(top_low);
    let c2_high = b.shl(top_low, 22u32);
    let c2_low = b.shr(limb1, 42u32);
    let c2 = b.or(c2_high, c2_low);
    let c3 = b.and(limb1, (1u64 << 42) - 1);
    let f1: Val<F64> = b.cvt(c1, Some(CvtRound::Rn), false);
    let f1 = b.mul(f1, 2f64.powi(-42));
    let f2: Val<F64> = b.cvt(c2, Some(CvtRound::Rn), false);
    let f2 = b.mul(f2, 2f64.powi(-84));
    let f3: Val<F64> = b.cvt(c3, Some(CvtRound::Rn), false);
    let f3 = b.mul(f3, 2f64.powi(-126));
    let f = dd::two_sum(b, f1, f2);
    let lo = b.add(f.lo, f3);
    let f = dd::two_sum(b, f.hi, lo);
    // r = f · π/2.
    let r = dd::mul(b, f, Dd { hi: Val::Imm(PI_2[0]), lo: Val::Imm(PI_2[1]) });
    // sin(−x) = −sin x, cos(−x) = cos x: r negated, q to −q mod 4.
    let negative = b.setp(Cmp::Lt, x, 0.0f64);
    let minus_r = dd::neg(b, r);
    let r = dd::select(b, negative, minus_r, r);
    let minus_q = b.sub(4u32, q);
    let minus_q = b.and(minus_q, 3u32);
    let q = b.selp(negative, minus_q, q);
    (r, q)
}

/// `sin r` and `cos r` for the reduced `r`, as double-doubles.
fn kernels(b: &mut KernelBuilder, r: Dd) -> (Dd, Dd) {
    let z = b.mul(r.hi, r.hi);
    let minus_z = b.neg(z);
    let z_err = b.fma(r.hi, r.hi, minus_z);
    // sin r = r.hi + r.hi·z·S(z) + r.lo·(1 − z/2).
    let rz = b.mul(r.hi, z);
    let sp = horner(b, z, &SIN_POLY);
    let half_lo = b.mul(r.lo, -0.5f64);
    let lo_term = b.fma(half_lo, z, r.lo);
    let sin_tail = b.fma(rz, sp, lo_term);
    let sin = dd::fast_two_sum(b, r.hi, sin_tail);
    // cos r = w + [(1 − w) − z/2] − z_err/2 − r.hi·r.lo + z²·C(z), w = 1 − z/2 rounded
    // (1 − w and the bracket are exact).
    let half_z = b.mul(z, 0.5f64);
    let w = b.sub(1.0f64, half_z);
    let one_less_w = b.sub(1.0f64, w);
    let w_err = b.sub(one_less_w, half_z);
    let t = b.fma(z_err, -0.5f64, w_err);
    let minus_hi = b.neg(r.hi);
    let t = b.fma(minus_hi, r.lo, t);
    // (cos r − 1 + r²/2)/r⁴ in r²: the cosine's series past its −1/2 term.
    let cp = horner(b, z, &COS_POLY[1..]);
    let z2 = b.mul(z, z);
    let cos_tail = b.fma(z2, cp, t);
    let cos = dd::fast_two_sum(b, w, cos_tail);
    (sin, cos)
}

/// `sin(x)` and `cos(x)` for f64, sharing the reduction; within 1 ulp for every f64
/// (measured against the host's libm, huge arguments and the nearest approaches to
/// multiples of π/2 included). `sin(±0) = ±0`, `cos(±0) = 1`; ±∞ and NaN give NaN.
pub fn sin_cos_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> (Val<F64>, Val<F64>) {
    let x = x.into();
    let ax = b.abs(x);
    let (r, q) = reduce(b, x, ax);
    let (s, c) = kernels(b, r);
    let (sin, cos) = place_in_quadrant(b, q, s.hi, c.hi);
    let zero = b.setp(Cmp::Eq, x, 0.0f64);
    let sin = b.selp(zero, x, sin);
    let not_finite = b.setp(Cmp::Geu, ax, f64::INFINITY);
    let sin = b.selp(not_finite, NAN, sin);
    let cos = b.selp(not_finite, NAN, cos);
    (sin, cos)
}

/// Accurate f64 `sin(x)`; see [`sin_cos_f64`].
pub fn sin_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    sin_cos_f64(b, x).0
}

/// Accurate f64 `cos(x)`; see [`sin_cos_f64`].
pub fn cos_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    sin_cos_f64(b, x).1
}

/// Accurate f64 `tan(x)`: the reduction of [`sin_cos_f64`], then `sin r / cos r` (or
/// `−cos r / sin r` in odd quadrants) divided as double-doubles, rounded once: within 1 ulp
/// for every f64, next to its poles included. `tan(±0) = ±0`; ±∞ and NaN give NaN.
pub fn tan_f64(b: &mut KernelBuilder, x: impl Into<Val<F64>>) -> Val<F64> {
    let x = x.into();
    let ax = b.abs(x);
    let (r, q) = reduce(b, x, ax);
    let (s, c) = kernels(b, r);
    let odd_bit = b.and(q, 1u32);
    let odd = b.setp(Cmp::Ne, odd_bit, 0u32);
    let minus_c = dd::neg(b, c);
    let num = dd::select(b, odd, minus_c, s);
    let den = dd::select(b, odd, s, c);
    let t = dd::div(b, num, den).hi;
    let zero = b.setp(Cmp::Eq, x, 0.0f64);
    let t = b.selp(zero, x, t);
    let not_finite = b.setp(Cmp::Geu, ax, f64::INFINITY);
    b.selp(not_finite, NAN, t)
}
