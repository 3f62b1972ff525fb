//! The video instructions (see [`crate::video`]): the SIMD `vadd4`, `vabsdiff2`, `vset4`, ...
//! and the scalar `vadd`, `vabsdiff`, `vset`, ...: the opcode's types and modifiers, the
//! destination's mask or selector and the sources' selectors, checked as ptxas checks them.
//! (`vshl`, `vshr` and `vmad` are not here: refused as unknown opcodes.)

use ptx_core::ir::Cmp;
use ptx_core::PtxType;

use super::Decoder;
use crate::error::SimError;
use crate::parse::Stmt;
use crate::program::{Op, R};
use crate::video::{Part, Secondary, VideoOp, VideoScalar, VideoSimd};

/// The operation and lane width of a SIMD video opcode (`vabsdiff4` is `Absdiff` on 8-bit
/// lanes); `None` for any other opcode.
pub(super) fn video_simd_opcode(name: &str) -> Option<(VideoOp, u8)> {
    let (op, lane_bits) = match (name.strip_suffix('4'), name.strip_suffix('2')) {
        (Some(op), _) => (op, 8),
        (_, Some(op)) => (op, 16),
        _ => return None,
    };
    let op = match op {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vavrg" => VideoOp::Avrg,
        "vabsdiff" => VideoOp::Absdiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        // The comparison comes from the opcode's modifiers.
        "vset" => VideoOp::Set(Cmp::Eq),
        _ => return None,
    };
    Some((op, lane_bits))
}

/// The operation of a scalar video opcode (`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
/// `vset`); `None` for any other opcode.
pub(super) fn video_scalar_opcode(name: &str) -> Option<VideoOp> {
    Some(match name {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vabsdiff" => VideoOp::Absdiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        "vset" => VideoOp::Set(Cmp::Eq),
        _ => return None,
    })
}

/// A scalar video selector: `.b0`-`.b3` or `.h0`/`.h1`.
fn part_of(sel: &str) -> Option<Part> {
    let bits = match sel.as_bytes() {
        [b'b', b'0'..=b'3'] => 8,
        [b'h', b'0'..=b'1'] => 16,
        _ => return None,
    };
    Some(Part { shift: (sel.as_bytes()[1] - b'0') * bits, bits })
}

/// `vset`'s integer comparisons.
fn video_cmp(name: &str) -> Option<Cmp> {
    Some(match name {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" => Cmp::Lt,
        "le" => Cmp::Le,
        "gt" => Cmp::Gt,
        "ge" => Cmp::Ge,
        _ => return None,
    })
}

/// Whether a `.u32`/`.s32` type name is signed (`None` for any other name).
fn signed_type(t: &str) -> Option<bool> {
    match t {
        "u32" => Some(false),
        "s32" => Some(true),
        _ => None,
    }
}

/// The lanes a destination mask names: `.b3210`-style digits (strictly falling, each
/// below 4) for byte lanes, `.h0`, `.h1`, `.h10` for halves.
fn mask_of(sel: &str, lane_bits: u8) -> Option<u8> {
    let (letter, lanes) = if lane_bits == 8 { ('b', 4) } else { ('h', 2) };
    let digits = sel.strip_prefix(letter)?;
    let mut mask = 0u8;
    let mut last = u32::MAX;
    for ch in digits.chars() {
        let i = ch.to_digit(10).filter(|&i| i < lanes && i < last)?;
        mask |= 1 << i;
        last = i;
    }
    (mask != 0).then_some(mask)
}

/// A source's lane selector: one digit per lane, the highest lane first (`.b7654` puts
/// lanes 7, 6, 5, 4 of `b:a` into lanes 3, 2, 1, 0); bytes 0 to 7, halves 0 to 3.
fn selector_of(sel: &str, lane_bits: u8) -> Option<[u8; 4]> {
    let (letter, lanes) = if lane_bits == 8 { ('b', 4) } else { ('h', 2) };
    let digits: Vec<u32> =
        sel.strip_prefix(letter)?.chars().map(|c| c.to_digit(10)).collect::<Option<_>>()?;
    if digits.len() != lanes || digits.iter().any(|&d| d >= 2 * lanes as u32) {
        return None;
    }
    let mut out = [0u8; 4];
    for (i, d) in digits.iter().rev().enumerate() {
        out[i] = *d as u8;
    }
    Some(out)
}

/// The signedness of each operand type of a video opcode's parts `p` (`.dtype.atype.btype`;
/// `vset` has no `dtype`), `op` with `vset`'s comparison read from the part after them, and
/// the parts left; `None` when a type or the comparison is missing or unknown.
fn video_types_and_cmp<'p>(p: &'p [&'p str], op: VideoOp) -> Option<(Vec<bool>, VideoOp, &'p [&'p str])> {
    let ntypes = if matches!(op, VideoOp::Set(_)) { 2 } else { 3 };
    let types = p.get(1..=ntypes)?.iter().map(|t| signed_type(t)).collect::<Option<Vec<bool>>>()?;
    let rest = &p[1 + ntypes..];
    match op {
        VideoOp::Set(_) => {
            let (cmp, rest) = rest.split_first()?;
            Some((types, VideoOp::Set(video_cmp(cmp)?), rest))
        }
        op => Some((types, op, rest)),
    }
}

impl Decoder {
    /// `vop4.dtype.atype.btype{.sat|.add} d{.mask}, a{.asel}, b{.bsel}, c` and
    /// `vset4.atype.btype.cmp{.add} ...` (and the two-lane `vop2`, `vset2`). ptxas takes
    /// registers only, no `.sat` with `.add` and no `.sat` on `vset`. A `vset` merge that
    /// keeps lanes (a mask short of all of them) is refused: the PTX ISA's text says the kept
    /// lanes come from `b`, its semantics from `c`.
    pub(super) fn video_simd(
        &mut self,
        s: &Stmt,
        p: &[&str],
        op: VideoOp,
        lane_bits: u8,
    ) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let is_set = matches!(op, VideoOp::Set(_));
        let Some((types, op, rest)) = video_types_and_cmp(p, op) else { return Err(unsup(self)) };
        let (sat, accumulate) = match rest {
            [] => (false, false),
            ["add"] => (false, true),
            ["sat"] if !is_set => (true, false),
            _ => return Err(unsup(self)),
        };
        self.expect_ops(s, 4)?;
        let (d_tok, d_sel) = split_selector(&s.operands[0]);
        let (a_tok, a_sel) = split_selector(&s.operands[1]);
        let (b_tok, b_sel) = split_selector(&s.operands[2]);
        let c_tok = match split_selector(&s.operands[3]) {
            (c, None) => c,
            (_, Some(_)) => {
                return Err(self.unsupported(format!(
                    "selector on `{}` of `{}` (ptxas refuses it)",
                    s.operands[3], s.opcode
                )))
            }
        };
        let all = ((1u16 << (32 / lane_bits)) - 1) as u8;
        let bad = |d: &Decoder, what: &str, tok: &str| {
            d.unsupported(format!("{what} `{tok}` of `{}` (ptxas refuses it)", s.opcode))
        };
        let mask = match d_sel {
            Some(m) => mask_of(m, lane_bits).ok_or_else(|| bad(self, "destination mask", &s.operands[0]))?,
            None => all,
        };
        let high = if lane_bits == 8 { [4, 5, 6, 7] } else { [2, 3, 0, 0] };
        let asel = match a_sel {
            Some(m) => selector_of(m, lane_bits).ok_or_else(|| bad(self, "selector", &s.operands[1]))?,
            None => [0, 1, 2, 3],
        };
        let bsel = match b_sel {
            Some(m) => selector_of(m, lane_bits).ok_or_else(|| bad(self, "selector", &s.operands[2]))?,
            None => high,
        };
        for tok in [d_tok, a_tok, b_tok, c_tok] {
            if !tok.starts_with('%') && self.bare_reg(tok).is_none() {
                return Err(bad(self, "non-register operand", tok));
            }
        }
        if is_set && !accumulate && mask != all {
            return Err(self.unsupported(format!(
                "`{}` merging under mask `{}` (the PTX ISA disagrees with itself on which operand fills the other lanes)",
                s.opcode, s.operands[0]
            )));
        }
        let d = self.dst(d_tok, PtxType::B32)?;
        let a = self.src(a_tok, PtxType::B32)?;
        let b = self.src(b_tok, PtxType::B32)?;
        let c = self.src(c_tok, PtxType::B32)?;
        // `vset`'s types are `.atype.btype` (its lanes' results are unsigned), the others'
        // `.dtype.atype.btype`.
        let (d_signed, a_signed, b_signed) = match types[..] {
            [a, b] => (false, a, b),
            [d, a, b] => (d, a, b),
            _ => unreachable!("two or three types were read"),
        };
        let form =
            VideoSimd { op, lane_bits, a_signed, b_signed, d_signed, sat, accumulate, mask, asel, bsel };
        self.emit(Op::VideoSimd { form, d, a, b, c }, s);
        Ok(())
    }
}

impl Decoder {
    /// `vop.dtype.atype.btype{.sat} d, a{.asel}, b{.bsel}`, with `{.add|.min|.max} ... c` (in
    /// any order with `.sat`) or the merge `d.dsel, ..., c`; `vset.atype.btype.cmp` likewise
    /// without `.sat`. As ptxas: a secondary operation with a destination selector, a
    /// selector on `c` or on an immediate, are refused; so is a `c` with neither (ptxas takes
    /// it, the PTX ISA gives it no meaning).
    pub(super) fn video_scalar(&mut self, s: &Stmt, p: &[&str], op: VideoOp) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let is_set = matches!(op, VideoOp::Set(_));
        let Some((types, op, rest)) = video_types_and_cmp(p, op) else { return Err(unsup(self)) };
        let (mut sat, mut secondary) = (false, None);
        for m in rest {
            match *m {
                "sat" if !sat && !is_set => sat = true,
                "add" | "min" | "max" if secondary.is_none() => {
                    secondary = Some(match *m {
                        "add" => Secondary::Add,
                        "min" => Secondary::Min,
                        _ => Secondary::Max,
                    })
                }
                _ => return Err(unsup(self)),
            }
        }
        let (d_signed, a_signed, b_signed) = match types[..] {
            [a, b] => (false, a, b),
            [d, a, b] => (d, a, b),
            _ => unreachable!("two or three types were read"),
        };
        let o = &s.operands;
        if o.len() != 3 && o.len() != 4 {
            return Err(self.parse_err(format!("`{}` expects 3 or 4 operands, found {}", s.opcode, o.len())));
        }
        let bad =
            |d: &Decoder, what: &str| d.unsupported(format!("{what} in `{} {}`", s.opcode, o.join(", ")));
        let (d_tok, dsel) = split_selector(&o[0]);
        let dsel = dsel.map(|m| part_of(m).ok_or_else(|| bad(self, "destination selector"))).transpose()?;
        match (o.len(), secondary.is_some(), dsel.is_some()) {
            (3, false, false) | (4, true, false) | (4, false, true) => {}
            (4, true, true) => return Err(bad(self, "a destination selector with a secondary operation")),
            (4, false, false) => return Err(bad(self, "operand `c` without a secondary operation or merge")),
            _ => return Err(bad(self, "a secondary operation or merge without operand `c`")),
        }
        let source = |d: &mut Decoder, tok: &str, signed: bool| -> Result<(R, Part), SimError> {
            let ty = if signed { PtxType::S32 } else { PtxType::U32 };
            let (reg, sel) = split_selector(tok);
            if sel.is_some() && !reg.starts_with('%') && d.bare_reg(reg).is_none() {
                return Err(bad(d, "a selector on an immediate"));
            }
            let part = sel.map(|m| part_of(m).ok_or_else(|| bad(d, "source selector"))).transpose()?;
            Ok((d.src(reg, ty)?, part.unwrap_or(Part::WORD)))
        };
        let (a, asel) = source(self, &o[1], a_signed)?;
        let (b, bsel) = source(self, &o[2], b_signed)?;
        let c = match o.get(3) {
            Some(tok) if split_selector(tok).1.is_some() => return Err(bad(self, "a selector on `c`")),
            Some(tok) => self.src(tok, if d_signed { PtxType::S32 } else { PtxType::U32 })?,
            None => self.konst(0),
        };
        let d = self.dst(d_tok, PtxType::B32)?;
        let form = VideoScalar { op, d_signed, a_signed, b_signed, sat, secondary, dsel, asel, bsel };
        self.emit(Op::VideoScalar { form, d, a, b, c }, s);
        Ok(())
    }
}

/// A register operand and its video selector or mask (`%r1.b3210` is `%r1` and `b3210`).
fn split_selector(tok: &str) -> (&str, Option<&str>) {
    match tok.rsplit_once('.') {
        Some((reg, sel)) if sel.starts_with(['b', 'h']) => (reg, Some(sel)),
        _ => (tok, None),
    }
}
