//! The bit-level integer instructions, as the PTX ISA defines them: `popc`, `clz`, `brev`,
//! `bfind`, `bfe`, `bfi`, `shf`, `prmt` in every mode, `sad`, `fns`, `dp4a`/`dp2a`, the
//! TensorFloat-32 conversion, saturating s32 addition (`add.sat`, `sub.sat`), the lane-wise
//! `add`/`min`/`max` of `.u16x2`/`.s16x2` and their `.relu`, `lop3`,
//! `mul24`, `bmsk`, `szext`, and the carry chains of `add.cc`/`addc`/`sub.cc`/`subc`.

use crate::program::{BitOp, BitOp2, PrmtMode};
use ptx_core::ir::BinaryOp;

/// `popc`, `clz`, `brev` and `bfind` of a 32-bit (`wide` false) or 64-bit value, as the PTX
/// ISA defines them (results are 32-bit).
pub(crate) fn bit_op(op: BitOp, wide: bool, v: u64) -> u64 {
    let bits = if wide { 64 } else { 32 };
    let v = if wide { v } else { v & 0xffff_ffff };
    match op {
        BitOp::Popc => v.count_ones() as u64,
        BitOp::Clz => (v.leading_zeros() - (64 - bits)) as u64,
        BitOp::Brev => {
            if wide {
                v.reverse_bits()
            } else {
                (v as u32).reverse_bits() as u64
            }
        }
        BitOp::Bfind { signed, shiftamt } => {
            // The highest bit that differs from the sign bit (signed) or is set (unsigned).
            let negative = signed && v >> (bits - 1) & 1 == 1;
            let x = if negative { !v & if wide { u64::MAX } else { 0xffff_ffff } } else { v };
            if x == 0 {
                0xffff_ffff
            } else {
                let pos = 63 - x.leading_zeros();
                (if shiftamt { bits - 1 - pos } else { pos }) as u64
            }
        }
    }
}

/// `bfe` as the PTX ISA defines it: bit `i` of the result is bit `pos + i` of `a` for
/// `i < len` (and `pos + i` within the width), else the sign bit (the last extracted bit,
/// or the top bit of `a` beyond it; 0 for unsigned or `len` 0).
pub(crate) fn bfe(wide: bool, signed: bool, a: u64, pos: u64, len: u64) -> u64 {
    let msb = if wide { 63 } else { 31 };
    let (pos, len) = (pos & 0xff, len & 0xff);
    let bit = |i: u64| a >> i & 1;
    let sbit = if signed && len > 0 { bit((pos + len - 1).min(msb)) } else { 0 };
    (0..=msb).fold(0, |d, i| d | (if i < len && pos + i <= msb { bit(pos + i) } else { sbit }) << i)
}

/// `bfi` as the PTX ISA defines it: `b` with bits `pos .. pos + len` (within the width)
/// taken from the low bits of `a`.
pub(crate) fn bfi(wide: bool, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let msb = if wide { 63 } else { 31 };
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (a >> i & 1) << (pos + i);
        i += 1;
    }
    if wide {
        f
    } else {
        f & 0xffff_ffff
    }
}

/// `shf`: the 64-bit value `b:a` (`b` high) shifted by `c` (masked to 5 bits with `.wrap`,
/// at most 32 with `.clamp`), keeping the high word (left) or the low word (right).
pub(crate) fn funnel_shift(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let n = if clamp { (c as u32).min(32) } else { c as u32 & 31 };
    let wide = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    if left {
        ((wide << n) >> 32) & 0xffff_ffff
    } else {
        (wide >> n) & 0xffff_ffff
    }
}

/// `prmt.b32{.mode}`: byte `i` of the result is one of the eight bytes of `b:a` (`a` the
/// low ones). Without a mode, `c[4i+2 .. 4i]` picks it and `c[4i+3]` replicates its top
/// bit instead; the modes pick by `c[1:0]` from the ISA's fixed patterns.
pub(crate) fn permute_bytes(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let bytes = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let n = c & 3;
    (0..4u64).fold(0, |d, i| {
        // The source byte for result byte `i`, and whether to replicate its sign.
        let (from, sign) = match mode {
            PrmtMode::Generic => {
                let sel = (c >> (4 * i)) & 0xf;
                (sel & 7, sel & 8 != 0)
            }
            PrmtMode::F4e => ((n + i) & 7, false),
            PrmtMode::B4e => ((n + 8 - i) & 7, false),
            PrmtMode::Rc8 => (n, false),
            PrmtMode::Ecl => (n.max(i), false),
            PrmtMode::Ecr => (n.min(i), false),
            PrmtMode::Rc16 => ((n & 1) * 2 + (i & 1), false),
        };
        let byte = (bytes >> (8 * from)) & 0xff;
        let byte = if sign && byte & 0x80 != 0 {
            0xff
        } else if sign {
            0
        } else {
            byte
        };
        d | byte << (8 * i)
    })
}

/// One step of a carry chain on 32-bit (`wide` false) or 64-bit values, as the hardware's
/// adder computes it: `a + b + carry_in`, or for a subtraction `a + !b + carry_in`, with the
/// carry out of the top bit. So a subtraction's flag is 1 when it did *not* borrow, and
/// `subc` subtracts `1 - CF`: a `sub.cc`/`subc` chain computes `a - b` as the PTX ISA's
/// borrow words say, and a chain that mixes them with `addc` (as NVRTC's `__int128`
/// division does) reads the flag as the GPU sets it. `carry_in` is the flag for `addc` and
/// `subc`, 0 for `add.cc` and 1 for `sub.cc`.
pub(crate) fn carry_step(sub: bool, wide: bool, a: u64, b: u64, carry_in: u64) -> (u64, u64) {
    let bits = if wide { 64 } else { 32 };
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let b = if sub { !b } else { b };
    let sum = (a & mask) as u128 + (b & mask) as u128 + (carry_in & 1) as u128;
    (sum as u64 & mask, (sum >> bits) as u64)
}

/// `sad`: `c + |a - b|` on `bits`-bit values (16, 32 or 64; signed or not), wrapping to the
/// width.
pub(crate) fn sad(signed: bool, bits: u32, a: u64, b: u64, c: u64) -> u64 {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let value = |v: u64| -> i128 {
        let v = v & mask;
        if signed && v >> (bits - 1) & 1 == 1 {
            v as i128 - (1i128 << bits)
        } else {
            v as i128
        }
    };
    let diff = (value(a) - value(b)).unsigned_abs() as u64;
    c.wrapping_add(diff) & mask
}

/// `add.sat.s32` (`sub` false) / `sub.sat.s32`: `a + b` or `a - b` of two s32 values,
/// clamped to the s32 range.
pub(crate) fn add_sat_s32(sub: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32 as i32, b as u32 as i32);
    let r = if sub { a.saturating_sub(b) } else { a.saturating_add(b) };
    r as u32 as u64
}

/// The `bits`-wide lane of `v` starting at bit `shift`, sign-extended when `signed` (else
/// zero-extended).
pub(crate) fn lane_value(v: u64, shift: u32, bits: u32, signed: bool) -> i64 {
    let x = v >> shift & ((1u64 << bits) - 1);
    if signed && x >> (bits - 1) == 1 {
        x as i64 - (1i64 << bits)
    } else {
        x as i64
    }
}

/// `add`, `min` or `max` (`op`) of each `lane_bits`-wide lane of the 32-bit values `a` and
/// `b` (16 for `.u16x2`/`.s16x2`, 32 for `.s32`), the lanes signed or not, each result
/// clamped below at 0 with `relu`; an addition wraps within its lane.
pub(crate) fn int_lanes(op: BinaryOp, lane_bits: u32, signed: bool, relu: bool, a: u64, b: u64) -> u64 {
    let mask = (1u64 << lane_bits) - 1;
    (0..32).step_by(lane_bits as usize).fold(0, |d, shift| {
        let (x, y) = (lane_value(a, shift, lane_bits, signed), lane_value(b, shift, lane_bits, signed));
        let r = match op {
            BinaryOp::Min => x.min(y),
            BinaryOp::Max => x.max(y),
            _ => x + y,
        };
        let r = if relu { r.max(0) } else { r };
        d | (r as u64 & mask) << shift
    })
}

/// `lop3.b32`: bit `i` of the result is bit `4·a_i + 2·b_i + c_i` of `lut`, the table the
/// PTX ISA defines as the function applied to `a = 0xF0`, `b = 0xCC`, `c = 0xAA` (so
/// `0xF0` is `a`, `0x80` is `a & b & c`): the OR of the minterms `lut` lists.
pub(crate) fn lop3(lut: u8, a: u64, b: u64, c: u64) -> u64 {
    let minterm = |k: u32| {
        let pick = |v: u64, bit: u32| if k >> bit & 1 == 1 { v } else { !v };
        pick(a, 2) & pick(b, 1) & pick(c, 0)
    };
    (0..8).filter(|k| lut >> k & 1 == 1).fold(0, |d, k| d | minterm(k)) & 0xffff_ffff
}

/// `mul24.{lo,hi}`: the 48-bit product of the low 24 bits of `a` and `b` (sign-extended
/// when `signed`), its bits 0..32 (`hi` false) or 16..48.
pub(crate) fn mul24(hi: bool, signed: bool, a: u64, b: u64) -> u64 {
    let operand = |v: u64| {
        let v = (v & 0xff_ffff) as i64;
        if signed {
            v << 40 >> 40
        } else {
            v
        }
    };
    let product = operand(a) * operand(b);
    (product >> if hi { 16 } else { 0 }) as u64 & 0xffff_ffff
}

/// `bmsk` and `szext` on 32-bit values, as the PTX ISA's pseudo-code defines them: with
/// `.wrap` a position or width counts modulo 32; with `.clamp` a position of 32 or more
/// gives no mask bits (`bmsk`) and a width of 32 or more keeps every bit (`bmsk` from
/// `a` up; `szext` all of `a`). A width of 0 gives 0.
pub(crate) fn mask_op(op: BitOp2, clamp: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let b1 = b & 0x1f;
    let wide = clamp && b >= 32;
    let r = match op {
        BitOp2::Bmsk => {
            let a1 = a & 0x1f;
            let low = if clamp && a >= 32 { 0 } else { u32::MAX << a1 };
            let sum = a1 + b1;
            let high = if sum >= 32 || wide || (clamp && a >= 32) {
                0
            } else if b1 == 0 {
                u32::MAX
            } else {
                u32::MAX << sum
            };
            low & !high
        }
        BitOp2::Szext { signed } => {
            let mask = if wide { 0 } else { u32::MAX << b1 };
            let sign = signed && b1 != 0 && !wide && (a >> (b1 - 1)) & 1 == 1;
            (a & !mask) | if sign { mask } else { 0 }
        }
    };
    r as u64
}

/// `fns.b32`: the position of the `offset`-th set bit of `mask` counting from bit `base`
/// (upward for a positive `offset`, downward for a negative one; `offset` 0: `base` itself
/// if set), or `0xffffffff` when there is none.
pub(crate) fn find_nth_set(mask: u64, base: u64, offset: u64) -> u64 {
    let (mask, base, offset) = (mask as u32, base as u32, offset as u32 as i32);
    if offset == 0 {
        return if base < 32 && mask >> base & 1 == 1 { base as u64 } else { 0xffff_ffff };
    }
    let step = offset.signum() as i64;
    let mut remaining = offset.unsigned_abs();
    let mut pos = base as i64;
    while (0..32).contains(&pos) {
        if mask >> pos & 1 == 1 {
            remaining -= 1;
            if remaining == 0 {
                return pos as u64;
            }
        }
        pos += step;
    }
    0xffff_ffff
}

/// `dp4a`: `c` plus the four products of the bytes of `a` and `b` (each signed or not),
/// wrapping to 32 bits; `dp2a.lo/hi`: the two 16-bit halves of `a` times bytes 0..2 (`lo`)
/// or 2..4 (`hi`) of `b`.
pub(crate) fn dot_product(
    pairs: u32,
    high: bool,
    a_signed: bool,
    b_signed: bool,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let part = |v: u64, i: u32, bits: u32, signed: bool| -> i64 {
        let raw = (v >> (i * bits)) & ((1 << bits) - 1);
        if signed && raw >> (bits - 1) & 1 == 1 {
            raw as i64 - (1 << bits)
        } else {
            raw as i64
        }
    };
    let sum: i64 = (0..pairs)
        .map(|i| {
            let (x, y) = if pairs == 4 {
                (part(a, i, 8, a_signed), part(b, i, 8, b_signed))
            } else {
                (part(a, i, 16, a_signed), part(b, i + 2 * high as u32, 8, b_signed))
            };
            x * y
        })
        .sum();
    (c as u32).wrapping_add(sum as u32) as u64
}

/// `cvt.{rna,rn,rz}.tf32.f32`: `x` rounded to TensorFloat-32 (10 fraction bits), as f32 bits
/// with the 13 low bits clear; NaN gives the canonical NaN.
pub(crate) fn to_tf32(x: u64, mode: Tf32Round) -> u64 {
    let bits = x as u32;
    if f32::from_bits(bits).is_nan() {
        return 0x7fff_ffff;
    }
    let add = match mode {
        Tf32Round::NearestAway => 0x1000,
        Tf32Round::NearestEven => 0xfff + (bits >> 13 & 1),
        Tf32Round::Zero => 0,
    };
    // Rounding the magnitude carries into the exponent as it should (up to infinity).
    let sign = bits & 0x8000_0000;
    (sign | ((bits & 0x7fff_ffff) + add) & 0x7fff_e000) as u64
}

/// The rounding modes of `cvt.tf32.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tf32Round {
    /// `.rna`: to nearest, ties away from zero.
    NearestAway,
    /// `.rn`: to nearest, ties to even.
    NearestEven,
    /// `.rz`: toward zero.
    Zero,
}

#[cfg(test)]
mod reference_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_modes_follow_the_isa_tables() {
        // Result bytes (3, 2, 1, 0) for c[1:0] = 0..3, from the PTX ISA's tables.
        let table = [
            (PrmtMode::F4e, [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]]),
            (PrmtMode::B4e, [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]]),
            (PrmtMode::Rc8, [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]),
            (PrmtMode::Ecl, [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]]),
            (PrmtMode::Ecr, [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]]),
            (PrmtMode::Rc16, [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]]),
        ];
        // Byte k of b:a holds 0x10 + k, so each result byte names its source.
        let (a, b) = (0x1312_1110, 0x1716_1514);
        for (mode, rows) in table {
            for (n, row) in rows.iter().enumerate() {
                let want = row.iter().fold(0u64, |d, &k| d << 8 | (0x10 + k));
                // Bits of c above the two low ones are ignored by the modes.
                let c = n as u64 | 0xabcd_ef00;
                assert_eq!(permute_bytes(mode, a, b, c), want, "{mode:?} with c[1:0] = {n}");
            }
        }
        // The generic form: selectors 7, 5, 3, 1 and a sign-replicated 0x80 byte.
        assert_eq!(permute_bytes(PrmtMode::Generic, 0x0302_0100, 0x0706_0504, 0x7531), 0x0705_0301);
        assert_eq!(permute_bytes(PrmtMode::Generic, 0x80, 0, 0x8888), 0xffff_ffff);
    }

    #[test]
    fn fns_dp4a_and_tf32_follow_the_isa() {
        let mask = 0b1011_0100;
        assert_eq!(find_nth_set(mask, 0, 1), 2);
        assert_eq!(find_nth_set(mask, 0, 3), 5);
        // Downward from bit 7, which counts itself: 7, then 5.
        assert_eq!(find_nth_set(mask, 7, -2i32 as u32 as u64), 5);
        assert_eq!(find_nth_set(mask, 3, 0), 0xffff_ffff);
        assert_eq!(find_nth_set(mask, 4, 0), 4);
        assert_eq!(find_nth_set(mask, 0, 5), 0xffff_ffff);
        // A base past bit 31 is undefined in the ISA; the simulator finds nothing (and must
        // not fail on the shift), whichever the direction.
        for offset in [0, 1, -1i32 as u32 as u64] {
            assert_eq!(find_nth_set(u32::MAX as u64, 32, offset), 0xffff_ffff, "base 32, offset {offset:#x}");
        }
        // Bytes (1, -2, 3, -4) · (5, 6, 7, 8) + 10, signed: 5 - 12 + 21 - 32 + 10 = -8.
        let (a, b) = (u32::from_le_bytes([1, 0xfe, 3, 0xfc]) as u64, u32::from_le_bytes([5, 6, 7, 8]) as u64);
        assert_eq!(dot_product(4, false, true, true, a, b, 10) as u32 as i32, -8);
        assert_eq!(dot_product(4, false, false, false, a, b, 0), (5 + 254 * 6 + 21 + 252 * 8) as u64);
        // Halves (3, -1) · bytes 2, 3 of b (7, 8): 21 - 8.
        let h = (3u64) | (0xffff << 16);
        assert_eq!(dot_product(2, true, true, false, h, b, 0), 13);
        // 1 + 2^-11 ties in tf32: away gives 1 + 2^-10, even gives 1; 1.5 + 2^-12 rounds down.
        let tie = (1.0f32 + 2f32.powi(-11)).to_bits() as u64;
        assert_eq!(to_tf32(tie, Tf32Round::NearestAway), (1.0f32 + 2f32.powi(-10)).to_bits() as u64);
        assert_eq!(to_tf32(tie, Tf32Round::NearestEven), 1f32.to_bits() as u64);
        assert_eq!(to_tf32(f32::MAX.to_bits() as u64, Tf32Round::NearestAway), 0x7f80_0000);
        assert_eq!(to_tf32(f32::MAX.to_bits() as u64, Tf32Round::Zero), 0x7f7f_e000);
        assert_eq!(to_tf32((-1.5f32).to_bits() as u64, Tf32Round::Zero), (-1.5f32).to_bits() as u64);
    }

    #[test]
    fn sad_adds_the_absolute_difference() {
        assert_eq!(sad(false, 32, 3, 10, 100), 107);
        assert_eq!(sad(true, 32, (-5i32) as u32 as u64, 4, 1), 10);
        // Unsigned: 0 − 0xffffffff is 0xffffffff apart, not 1.
        assert_eq!(sad(false, 32, 0, 0xffff_ffff, 1), 0);
        assert_eq!(sad(true, 32, 0, 0xffff_ffff, 1), 2);
        assert_eq!(sad(true, 64, i64::MIN as u64, i64::MAX as u64, 0), u64::MAX);
    }

    #[test]
    fn carry_chains_add_and_subtract_multiword_numbers() {
        // 96-bit sums and differences in three 32-bit words against u128 arithmetic.
        let cases: [(u128, u128); 5] = [
            (0xffff_ffff_ffff_ffff_ffff_ffff, 1),
            (0x1_0000_0000_0000_0000, 0xffff_ffff),
            (0, 0),
            (0x1234_5678_9abc_def0_1357_9bdf, 0xfedc_ba98_7654_3210_0246_8ace),
            (5, 7),
        ];
        let word = |v: u128, i: u32| (v >> (32 * i)) as u64 & 0xffff_ffff;
        for (x, y) in cases {
            for sub in [false, true] {
                // `add.cc` carries in 0, `sub.cc` 1 (`a + !b + 1`).
                let mut flag = u64::from(sub);
                let mut got = 0u128;
                for i in 0..3 {
                    let (w, f) = carry_step(sub, false, word(x, i), word(y, i), flag);
                    got |= (w as u128) << (32 * i);
                    flag = f;
                }
                let mask = (1u128 << 96) - 1;
                let want = if sub { x.wrapping_sub(y) & mask } else { (x + y) & mask };
                assert_eq!(got, want, "{x:#x} {} {y:#x}", if sub { '-' } else { '+' });
                // A subtraction's flag is the adder's carry: 1 when it did not borrow.
                let out = if sub { x >= y } else { x + y > mask };
                assert_eq!(flag == 1, out, "carry out of {x:#x} and {y:#x}");
            }
        }
        // 64-bit words: `subc` with the flag clear subtracts one more (a borrow in).
        assert_eq!(carry_step(false, true, u64::MAX, 1, 0), (0, 1));
        assert_eq!(carry_step(true, true, 0, 0, 0), (u64::MAX, 0));
        assert_eq!(carry_step(true, true, 5, 3, 1), (2, 1));
        assert_eq!(carry_step(true, true, 5, 3, 0), (1, 1));
    }
}
