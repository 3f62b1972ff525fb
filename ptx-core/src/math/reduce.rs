//! Argument reduction for `sin`/`cos` of large f32 arguments (Payne–Hanek): `|x| · 2/π` is
//! computed modulo 4 exactly enough that the remainder keeps its precision for every f32,
//! with the bits of 2/π held as immediates (no table in memory, no local memory, no stack).
//!
//! With `|x| = m · 2^E` (`m` the 24-bit significand), only the bits of 2/π of weight
//! `2^-(E-1)` and below matter modulo 4: higher ones make `m · 2^E · bit` a multiple of 4.
//! A 96-bit window of 2/π starting there is selected by the exponent (the 128 bits from
//! one of five word positions, two 64-bit halves picked among constants with `selp`, then
//! shifted), and `m · window` (120 bits, three
//! `mul.wide.u32`) holds the quadrant in bits 94–95 and the fraction in the 94 bits below.
//! The window's truncation errs by less than `m · 2^-94 < 2^-70` of a quadrant, while the
//! fraction of an f32 never comes closer than about 2^-30 to an integer, so the reduced
//! argument keeps more than 34 significant bits before it is rounded to f32.

use crate::builder::{KernelBuilder, Val};
use crate::ir::{Cmp, CvtRound};
use crate::types::{F64, S64, U32, U64};

/// 2/π in 32-bit words, most significant first, after one zero word (so that windows
/// starting above the binary point read zeros): `0.A2F9836E 4E441529 ...` (hex).
const TWO_OVER_PI_WORDS: [u32; 8] =
    [0, 0xA2F9_836E, 0x4E44_1529, 0xFC27_57D1, 0xF534_DDC0, 0xDB62_9599, 0x3C43_9041, 0xFE51_63AB];

/// π/2 · 2^-64, the value of one unit of the 64-bit fraction, in f64.
const HALF_PI_PER_UNIT: f64 = std::f64::consts::FRAC_PI_2 / 18_446_744_073_709_551_616.0;

/// The smallest |x| the large-argument reduction is used for (2^19): its window then
/// starts at or after the zero word, and below it the three-constant Cody–Waite
/// reduction is exact enough.
pub(super) const LARGE: f32 = 524_288.0;

/// `(r, q)` with `|x| ≈ (q + r/(π/2)) · π/2 (mod 2π)`, `q` in `0..4`, `|r| ≤ π/4`, for a
/// finite `|x| ≥ LARGE` given by its magnitude's bits `ax` (other inputs give some `(r, q)`;
/// the caller handles them). `r` comes in f64, with more than 34 correct significant bits:
/// `sin`/`cos` round it to f32, `tan` keeps it.
pub(super) fn reduce_large(b: &mut KernelBuilder, ax: Val<U32>) -> (Val<F64>, Val<U32>) {
    let biased = b.shr(ax, 23u32);
    let frac = b.and(ax, 0x007f_ffffu32);
    let m = b.or(frac, 0x0080_0000u32);
    // The window starts at bit j = biased − 120 of the word table (bit 0 is the MSB of
    // the zero word): word j / 32, shifted left by j % 32.
    let start = b.sub(biased, 120u32);
    let word = b.shr(start, 5u32);
    let shift = b.and(start, 31u32);
    // The 128 bits from word `word` on, as two u64 halves picked among five constants.
    let at_least: Vec<Val<crate::types::Pred>> = (1..=4u32).map(|w| b.setp(Cmp::Ge, word, w)).collect();
    let pick = |b: &mut KernelBuilder, half: usize| -> Val<U64> {
        let pair = |w: usize| {
            let k = w + 2 * half;
            (u64::from(TWO_OVER_PI_WORDS[k]) << 32) | u64::from(TWO_OVER_PI_WORDS[k + 1])
        };
        let mut v: Val<U64> = Val::Imm(pair(0));
        for (w, p) in at_least.iter().enumerate() {
            v = b.selp(*p, pair(w + 1), v);
        }
        v
    };
    let high = pick(b, 0);
    let low = pick(b, 1);
    // The 128 bits shifted left by `shift` (< 32); PTX clamps a shift by 64 to give 0.
    let high = b.shl(high, shift);
    let back = b.sub(64u32, shift);
    let carried = b.shr(low, back);
    let high = b.or(high, carried);
    let low = b.shl(low, shift);
    // The 96-bit window: high (64 bits) and the top 32 bits of low.
    let w_hi = b.shr(high, 32u32);
    let w_hi = b.cast::<U32, U64>(w_hi);
    let w_mid = b.cast::<U32, U64>(high);
    let w_lo = b.shr(low, 32u32);
    let w_lo = b.cast::<U32, U64>(w_lo);
    // P = m · window = hi·2^64 + mid·2^32 + lo, folded into B·2^64 + A'·2^32 + lo'.
    let lo = b.mul_wide(m, w_lo);
    let mid = b.mul_wide(m, w_mid);
    let hi = b.mul_wide(m, w_hi);
    let lo_carry = b.shr(lo, 32u32);
    let a = b.add(mid, lo_carry);
    let a_carry = b.shr(a, 32u32);
    let big = b.add(hi, a_carry);
    // Quadrant: bits 94-95 of P, bits 30-31 of B. Fraction: P's bits 30..93 as a u64.
    let quadrant = b.shr(big, 30u32);
    let quadrant = b.cast::<U32, U64>(quadrant);
    let top = b.shl(big, 34u32);
    let a_low = b.and(a, 0xffff_ffffu64);
    let a_low = b.shl(a_low, 2u32);
    let lo_low = b.and(lo, 0xffff_ffffu64);
    let lo_low = b.shr(lo_low, 30u32);
    let fraction = b.or(top, a_low);
    let fraction = b.or(fraction, lo_low);
    // A fraction of half a quadrant or more rounds up to the next quadrant, leaving a
    // negative remainder: read the fraction as a signed 64-bit number.
    let round_up = b.shr(fraction, 63u32);
    let round_up = b.cast::<U32, U64>(round_up);
    let q = b.add(quadrant, round_up);
    let q = b.and(q, 3u32);
    let signed = b.bitcast::<S64, U64>(fraction);
    let f: Val<F64> = b.cvt(signed, Some(CvtRound::Rn), false);
    let r = b.mul(f, HALF_PI_PER_UNIT);
    (r, q)
}
