//! The bit instructions against second implementations written differently from the
//! simulator's (shifts and masks where it goes bit by bit, bit by bit where it uses
//! shifts, wide integers where it masks), on fresh random operands mixed with the edge
//! values where the definitions split (0, all ones, sign bits, widths and positions at and
//! past the top).

use super::*;
use ptx_tools::rng::Rng;

/// Random draws per test: each function is a few dozen operations, so this is quick.
const DRAWS: usize = 20_000;

/// A random 64-bit operand, one time in four an edge value.
fn operand(rng: &mut Rng) -> u64 {
    const EDGES: [u64; 10] = [
        0,
        1,
        u64::MAX,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        1 << 63,
        i64::MAX as u64,
        0xffff_ffff_8000_0000,
        0x1_0000_0000,
    ];
    let r = rng.next();
    if r.is_multiple_of(4) {
        EDGES[(r >> 8) as usize % EDGES.len()]
    } else {
        rng.next()
    }
}

/// A bit position or field length: mostly within 0..=70 (across both widths' ends), else
/// any value, whose bits above the low 8 the instructions ignore.
fn small(rng: &mut Rng) -> u64 {
    let r = rng.next();
    if r.is_multiple_of(8) {
        rng.next()
    } else {
        (r >> 8) % 71
    }
}

fn width(wide: bool) -> u32 {
    if wide {
        64
    } else {
        32
    }
}

fn low(v: u64, bits: u32) -> u64 {
    if bits == 64 {
        v
    } else {
        v & ((1 << bits) - 1)
    }
}

/// `v`'s low `bits` bits as a signed number.
fn signed(v: u64, bits: u32) -> i128 {
    let v = low(v, bits) as i128;
    if v >= 1 << (bits - 1) {
        v - (1 << bits)
    } else {
        v
    }
}

fn popc_ref(v: u64, bits: u32) -> u64 {
    (0..bits).filter(|&i| v >> i & 1 == 1).count() as u64
}

fn clz_ref(v: u64, bits: u32) -> u64 {
    (0..bits).rev().take_while(|&i| v >> i & 1 == 0).count() as u64
}

fn brev_ref(v: u64, bits: u32) -> u64 {
    (0..bits).fold(0, |d, i| d | (v >> i & 1) << (bits - 1 - i))
}

/// The highest bit of `v` (or of `!v` for a negative signed one), by halving the range.
fn bfind_ref(v: u64, bits: u32, is_signed: bool, shiftamt: bool) -> u64 {
    let mut x = low(v, bits);
    if is_signed && signed(v, bits) < 0 {
        x = low(!x, bits);
    }
    if x == 0 {
        return 0xffff_ffff;
    }
    let mut pos = 0;
    let mut step = 32;
    while step > 0 {
        if x >> (pos + step) != 0 {
            pos += step;
        }
        step /= 2;
    }
    if shiftamt {
        (bits - 1 - pos) as u64
    } else {
        pos as u64
    }
}

/// `bfe` as a shift and a sign extension: the field is `a >> pos` (arithmetic when signed)
/// cut to `len` bits, which are then extended from their top bit.
fn bfe_ref(bits: u32, is_signed: bool, a: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    if len == 0 {
        return 0;
    }
    let value: i128 = if is_signed { signed(a, bits) } else { low(a, bits) as i128 };
    let shifted = value >> pos.min(bits);
    let field = if len >= bits {
        shifted
    } else {
        let cut = shifted & ((1 << len) - 1);
        if is_signed && cut >> (len - 1) & 1 == 1 {
            cut - (1 << len)
        } else {
            cut
        }
    };
    low(field as u64, bits)
}

/// `bfi` with a mask: the field's bits are `len` ones at `pos`, cut at the width.
fn bfi_ref(bits: u32, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    if pos >= bits {
        return low(b, bits);
    }
    let ones: u128 = (1u128 << len.min(bits)) - 1;
    let mask = low((ones << pos) as u64, bits);
    low((b & !mask) | ((a << pos) & mask), bits)
}

/// `shf` on u32 halves, with the shift-by-0 and shift-by-32 ends written out.
fn shf_ref(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let n = if clamp { (c as u32).min(32) } else { c as u32 % 32 };
    let d = match (left, n) {
        (true, 0) => b,
        (false, 0) => a,
        (true, 32) => a,
        (false, 32) => b,
        (true, n) => b << n | a >> (32 - n),
        (false, n) => a >> n | b << (32 - n),
    };
    d as u64
}

/// `prmt` without a mode: byte `i` is picked by nibble `i` of `c`, from the byte array of
/// `b:a`, or is its top bit replicated.
fn prmt_generic_ref(a: u64, b: u64, c: u64) -> u64 {
    let mut source = (a as u32).to_le_bytes().to_vec();
    source.extend((b as u32).to_le_bytes());
    let out: Vec<u8> = (0..4)
        .map(|i| {
            let nibble = (c as u32 >> (4 * i)) & 0xf;
            let byte = source[(nibble & 7) as usize];
            match (nibble & 8 != 0, byte >= 0x80) {
                (false, _) => byte,
                (true, true) => 0xff,
                (true, false) => 0,
            }
        })
        .collect();
    u32::from_le_bytes([out[0], out[1], out[2], out[3]]) as u64
}

fn sad_ref(is_signed: bool, bits: u32, a: u64, b: u64, c: u64) -> u64 {
    let (x, y) = if is_signed {
        (signed(a, bits), signed(b, bits))
    } else {
        (low(a, bits) as i128, low(b, bits) as i128)
    };
    low((c as u128).wrapping_add((x - y).unsigned_abs()) as u64, bits)
}

/// `fns` from the list of set bits: the `offset`-th at or above (below) `base`.
fn fns_ref(mask: u64, base: u64, offset: u64) -> u64 {
    let (mask, base, offset) = (mask as u32, base as u32, offset as u32 as i32);
    let set: Vec<u32> = (0..32).filter(|&i| mask >> i & 1 == 1).collect();
    let found = match offset {
        0 => set.iter().find(|&&i| i == base).copied(),
        o if o > 0 => set.iter().filter(|&&i| i >= base).nth(o as usize - 1).copied(),
        o => set.iter().rev().filter(|&&i| i <= base).nth(o.unsigned_abs() as usize - 1).copied(),
    };
    found.map_or(0xffff_ffff, u64::from)
}

/// `dp4a`/`dp2a` with Rust's integer casts doing the sign extension.
fn dot_ref(pairs: u32, high: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let byte = |v: u32, i: u32, s: bool| -> i64 {
        let x = (v >> (8 * i)) as u8;
        if s {
            x as i8 as i64
        } else {
            x as i64
        }
    };
    let half = |v: u32, i: u32, s: bool| -> i64 {
        let x = (v >> (16 * i)) as u16;
        if s {
            x as i16 as i64
        } else {
            x as i64
        }
    };
    let sum: i64 = if pairs == 4 {
        (0..4).map(|i| byte(a, i, a_signed) * byte(b, i, b_signed)).sum()
    } else {
        let first = if high { 2 } else { 0 };
        (0..2).map(|i| half(a, i, a_signed) * byte(b, first + i, b_signed)).sum()
    };
    (c as u32).wrapping_add(sum as u32) as u64
}

/// `cvt.tf32.f32` by comparing the dropped 13 bits with half a TF32 unit.
fn tf32_ref(x: u64, mode: Tf32Round) -> u64 {
    let bits = x as u32;
    if f32::from_bits(bits).is_nan() {
        return 0x7fff_ffff;
    }
    let (sign, magnitude) = (bits & 0x8000_0000, bits & 0x7fff_ffff);
    let dropped = magnitude & 0x1fff;
    let kept = magnitude - dropped;
    let up = match mode {
        Tf32Round::Zero => false,
        Tf32Round::NearestAway => dropped >= 0x1000,
        Tf32Round::NearestEven => dropped > 0x1000 || (dropped == 0x1000 && kept & 0x2000 != 0),
    };
    (sign | if up { kept + 0x2000 } else { kept }) as u64
}

#[test]
fn popc_clz_brev_and_bfind_match_their_references() {
    let mut rng = Rng::fresh("popc_clz_brev_and_bfind_match_their_references");
    for _ in 0..DRAWS {
        let v = operand(&mut rng);
        for wide in [false, true] {
            let bits = width(wide);
            assert_eq!(bit_op(BitOp::Popc, wide, v), popc_ref(v, bits), "popc.b{bits} {v:#x}");
            assert_eq!(bit_op(BitOp::Clz, wide, v), clz_ref(v, bits), "clz.b{bits} {v:#x}");
            assert_eq!(bit_op(BitOp::Brev, wide, v), brev_ref(v, bits), "brev.b{bits} {v:#x}");
            for (is_signed, shiftamt) in [(false, false), (false, true), (true, false), (true, true)] {
                let got = bit_op(BitOp::Bfind { signed: is_signed, shiftamt }, wide, v);
                let want = bfind_ref(v, bits, is_signed, shiftamt);
                assert_eq!(got, want, "bfind (signed {is_signed}, shiftamt {shiftamt}).b{bits} {v:#x}");
            }
        }
    }
}

#[test]
fn bfe_and_bfi_match_shift_and_mask_references() {
    let mut rng = Rng::fresh("bfe_and_bfi_match_shift_and_mask_references");
    for _ in 0..DRAWS {
        let (a, b, pos, len) = (operand(&mut rng), operand(&mut rng), small(&mut rng), small(&mut rng));
        for wide in [false, true] {
            let bits = width(wide);
            for is_signed in [false, true] {
                let (got, want) = (bfe(wide, is_signed, a, pos, len), bfe_ref(bits, is_signed, a, pos, len));
                assert_eq!(got, want, "bfe (signed {is_signed}).b{bits} {a:#x}, pos {pos}, len {len}");
            }
            let (got, want) = (bfi(wide, a, b, pos, len), bfi_ref(bits, a, b, pos, len));
            assert_eq!(got, want, "bfi.b{bits} {a:#x} into {b:#x}, pos {pos}, len {len}");
        }
    }
}

#[test]
fn shf_and_prmt_match_their_references() {
    let mut rng = Rng::fresh("shf_and_prmt_match_their_references");
    for _ in 0..DRAWS {
        let (a, b, c) = (operand(&mut rng), operand(&mut rng), small(&mut rng));
        for (left, clamp) in [(false, false), (false, true), (true, false), (true, true)] {
            let (got, want) = (funnel_shift(left, clamp, a, b, c), shf_ref(left, clamp, a, b, c));
            assert_eq!(got, want, "shf (left {left}, clamp {clamp}) {a:#x}, {b:#x} by {c}");
        }
        let selector = rng.next();
        let (got, want) =
            (permute_bytes(PrmtMode::Generic, a, b, selector), prmt_generic_ref(a, b, selector));
        assert_eq!(got, want, "prmt {a:#x}, {b:#x}, {selector:#x}");
    }
}

#[test]
fn sad_fns_dot_products_and_tf32_match_their_references() {
    let mut rng = Rng::fresh("sad_fns_dot_products_and_tf32_match_their_references");
    for _ in 0..DRAWS {
        let (a, b, c) = (operand(&mut rng), operand(&mut rng), operand(&mut rng));
        for bits in [16, 32, 64] {
            for is_signed in [false, true] {
                let (got, want) = (sad(is_signed, bits, a, b, c), sad_ref(is_signed, bits, a, b, c));
                assert_eq!(got, want, "sad (signed {is_signed}).{bits} {a:#x}, {b:#x}, {c:#x}");
            }
        }
        // fns offsets across ±33 (beyond any count of set bits); the base is defined up to 31.
        let (base, offset) = (rng.next() % 32, (rng.next() % 67) as i32 - 33);
        let offset = offset as u32 as u64;
        assert_eq!(
            find_nth_set(a, base, offset),
            fns_ref(a, base, offset),
            "fns {a:#x}, {base}, {offset:#x}"
        );
        for (a_signed, b_signed) in [(false, false), (false, true), (true, false), (true, true)] {
            for (pairs, high) in [(4, false), (2, false), (2, true)] {
                let got = dot_product(pairs, high, a_signed, b_signed, a, b, c);
                let want = dot_ref(pairs, high, a_signed, b_signed, a, b, c);
                assert_eq!(
                    got, want,
                    "dp{pairs}a (high {high}, {a_signed}, {b_signed}) {a:#x}, {b:#x}, {c:#x}"
                );
            }
        }
        for mode in [Tf32Round::NearestAway, Tf32Round::NearestEven, Tf32Round::Zero] {
            // Ties and near-ties need the dropped bits near 0x1000: set them one time in two.
            let x = if rng.next().is_multiple_of(2) { (a & !0x1fff) | 0x1000 | (rng.next() % 2) } else { a };
            assert_eq!(to_tf32(x, mode), tf32_ref(x, mode), "cvt.tf32 ({mode:?}) {x:#x}");
        }
    }
}
