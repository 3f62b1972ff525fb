//! The PTX ISA's video instructions. The SIMD ones: `vadd4`, `vsub4`, `vavrg4`,
//! `vabsdiff4`, `vmin4`, `vmax4`, `vset4` on four byte lanes and their two-lane `vop2` forms
//! on 16-bit halves (NVRTC writes `vabsdiff4`/`vabsdiff2` for `__vabsdiffu4`, `__vsadu4`,
//! `__vsadu2`, ...). Each lane of `a` and `b` is picked by a selector from the lanes of `b:a`
//! and sign- or zero-extended by its own type; the operation is exact on those values,
//! clamped to a lane of the destination type with `.sat`. Then either the lanes the mask
//! names replace those of `c` (the SIMD merge), or with `.add` their exact values are added
//! to all of `c`.
//!
//! The scalar ones: `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vset` on one byte,
//! half-word or word of each source, exact, optionally clamped to the destination's range
//! (of the byte or half-word it is merged into, with a destination selector), then either
//! combined with `c` by a secondary `.add`/`.min`/`.max` or merged into `c`'s byte or half.

use ptx_core::ir::Cmp;

use crate::bits::lane_value;

/// What a SIMD video instruction does to each pair of lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VideoOp {
    /// `vadd`: `a + b`.
    Add,
    /// `vsub`: `a - b`.
    Sub,
    /// `vavrg`: `(a + b) / 2`, halves rounded away from zero.
    Avrg,
    /// `vabsdiff`: `|a - b|`.
    Absdiff,
    /// `vmin`.
    Min,
    /// `vmax`.
    Max,
    /// `vset`: 1 where the comparison (`eq ne lt le gt ge`) holds, else 0.
    Set(Cmp),
}

/// The form of a SIMD video instruction, as the decoder reads it from the opcode and the
/// operands' selectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VideoSimd {
    pub(crate) op: VideoOp,
    /// 8 for the four-lane `vop4`, 16 for the two-lane `vop2`.
    pub(crate) lane_bits: u8,
    /// Whether `a`'s, `b`'s and the destination's lanes are signed (`.s32`).
    pub(crate) a_signed: bool,
    pub(crate) b_signed: bool,
    pub(crate) d_signed: bool,
    /// `.sat`: each lane's result clamped to the destination lane's range.
    pub(crate) sat: bool,
    /// `.add`: the masked lanes' results summed into `c` instead of merged.
    pub(crate) accumulate: bool,
    /// Bit `i` set: lane `i` of the result is computed (the destination's `.mask`).
    pub(crate) mask: u8,
    /// Lane `i` of the first operand is lane `asel[i]` of `b:a` (`a` the low lanes); likewise
    /// `bsel` for the second.
    pub(crate) asel: [u8; 4],
    pub(crate) bsel: [u8; 4],
}

/// One SIMD video instruction on the 32-bit values `a`, `b`, `c`, as the PTX ISA's
/// semantics give it.
pub(crate) fn video_simd(f: &VideoSimd, a: u64, b: u64, c: u64) -> u64 {
    let bits = f.lane_bits as u32;
    let lanes = 32 / bits;
    let pair = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let lane_mask = (1u64 << bits) - 1;
    let c = c & 0xffff_ffff;
    let (lo, hi) =
        if f.d_signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    let mut d = if f.accumulate { c } else { 0 };
    for i in 0..lanes {
        let shift = i * bits;
        let x = lane_value(pair, f.asel[i as usize] as u32 * bits, bits, f.a_signed);
        let y = lane_value(pair, f.bsel[i as usize] as u32 * bits, bits, f.b_signed);
        let t = match f.op {
            VideoOp::Add => x + y,
            VideoOp::Sub => x - y,
            // `>>` floors, so a negative odd sum rounds down, away from zero.
            VideoOp::Avrg => (x + y + i64::from(x + y >= 0)) >> 1,
            VideoOp::Absdiff => (x - y).abs(),
            VideoOp::Min => x.min(y),
            VideoOp::Max => x.max(y),
            VideoOp::Set(cmp) => i64::from(compare(cmp, x, y)),
        };
        let t = if f.sat { t.clamp(lo, hi) } else { t };
        let on = f.mask >> i & 1 == 1;
        d = if f.accumulate {
            if on {
                d.wrapping_add(t as u64)
            } else {
                d
            }
        } else if on {
            d | (t as u64 & lane_mask) << shift
        } else {
            d | c & lane_mask << shift
        };
    }
    d & 0xffff_ffff
}

/// The secondary operation of a scalar video instruction (`.add`, `.min`, `.max`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Secondary {
    Add,
    Min,
    Max,
}

/// A part of a 32-bit register a scalar video instruction reads or merges into: bits
/// `shift .. shift + bits` (a byte `.b0`-`.b3`, a half `.h0`/`.h1`, or the word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) shift: u8,
    pub(crate) bits: u8,
}

impl Part {
    /// The whole word (no selector).
    pub(crate) const WORD: Part = Part { shift: 0, bits: 32 };
}

/// The form of a scalar video instruction (`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
/// `vset`; never `Avrg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VideoScalar {
    pub(crate) op: VideoOp,
    /// Whether the destination (and `c`), `a` and `b` are signed; `vset`'s destination is not.
    pub(crate) d_signed: bool,
    pub(crate) a_signed: bool,
    pub(crate) b_signed: bool,
    /// `.sat`: the result clamped to the range of the destination type, or of the byte or
    /// half-word `dsel` names.
    pub(crate) sat: bool,
    pub(crate) secondary: Option<Secondary>,
    /// The part of `c` the result replaces (the data merge), if any.
    pub(crate) dsel: Option<Part>,
    pub(crate) asel: Part,
    pub(crate) bsel: Part,
}

/// One scalar video instruction on the 32-bit values `a`, `b`, `c`, as the PTX ISA's
/// semantics give it: the parts, extended to 33 bits, combined exactly, optionally
/// saturated, then the secondary operation with `c` (extended by the destination type) or
/// the merge into `c`; the low 32 bits are the result.
pub(crate) fn video_scalar(f: &VideoScalar, a: u64, b: u64, c: u64) -> u64 {
    let ta = lane_value(a, f.asel.shift as u32, f.asel.bits as u32, f.a_signed);
    let tb = lane_value(b, f.bsel.shift as u32, f.bsel.bits as u32, f.b_signed);
    let tmp = match f.op {
        VideoOp::Add | VideoOp::Avrg => ta + tb,
        VideoOp::Sub => ta - tb,
        VideoOp::Absdiff => (ta - tb).abs(),
        VideoOp::Min => ta.min(tb),
        VideoOp::Max => ta.max(tb),
        VideoOp::Set(cmp) => i64::from(compare(cmp, ta, tb)),
    };
    let tmp = if f.sat {
        let bits = f.dsel.map_or(32, |p| p.bits as u32);
        if f.d_signed {
            tmp.clamp(-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            tmp.clamp(0, (1i64 << bits) - 1)
        }
    } else {
        tmp
    };
    let tc = lane_value(c, 0, 32, f.d_signed);
    let d = match (f.secondary, f.dsel) {
        (Some(Secondary::Add), _) => tmp + tc,
        (Some(Secondary::Min), _) => tmp.min(tc),
        (Some(Secondary::Max), _) => tmp.max(tc),
        (None, Some(p)) => {
            let field = ((1u64 << p.bits) - 1) << p.shift;
            ((tmp as u64) << p.shift & field | c & !field) as i64
        }
        (None, None) => tmp,
    };
    d as u64 & 0xffff_ffff
}

/// An integer comparison of `vset` (only `eq ne lt le gt ge` reach it).
fn compare(cmp: Cmp, x: i64, y: i64) -> bool {
    match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        _ => x >= y,
    }
}
