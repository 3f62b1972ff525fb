//! Magnitude facts the builder proves about f32 registers from the instructions that define
//! them, so that a math routine can leave out a path no input can take.
//!
//! The one source of a bound is the fractional part `x − rint(x)` (`sub.rn` of a register
//! and its own `cvt.rni`), which is exact and at most ½ for finite `x` (NaN otherwise); a
//! product with a finite constant or another bounded value, and a sum of bounded values,
//! keep a bound (widened by one rounding). The sine's reduction asks for `|x| < 2^19` to
//! skip its Payne–Hanek branch when `x` is such a fraction of a turn times 2π.
//!
//! A fraction is recognised only when nothing writes `x` or its rounding between the two
//! instructions and no label lies between them (so no other path joins in); it then holds
//! for the difference's register whatever happens to `x` later. A bound derived from other
//! bounded registers holds while those keep their values: a write forgets the facts that
//! mention the register, and every bounded register a consulted bound rests on is recorded
//! in [`crate::KernelIr::assumptions`], which the verifier requires to be written exactly
//! once in the whole body (so a loop that writes one again after the use is an error
//! instead of a wrong result).

use crate::ir::{BinaryOp, FloatMode, Operand, VReg};
use crate::types::PtxType;

/// One more rounding's worth: a bound times this still bounds the rounded result.
const ROUNDING: f32 = 1.0 + f32::EPSILON;

/// A proven bound `|r| <= bound` (or `r` is NaN), and the registers it rests on.
#[derive(Clone, Debug, PartialEq)]
struct Bound {
    reg: VReg,
    bound: f32,
    basis: Vec<VReg>,
}

/// The facts known so far, in definition order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RangeFacts {
    /// `(y, x)`: `y = cvt.rni.f32.f32 x`, since the last label.
    rounded: Vec<(VReg, VReg)>,
    bounded: Vec<Bound>,
    /// Bit `index % 64` set for every f32 register some fact mentions: most writes touch
    /// none, and skip the search.
    mentioned: u64,
}

/// `reg`'s bit in [`RangeFacts::mentioned`].
fn bit(reg: VReg) -> u64 {
    1 << (reg.index % 64)
}

impl RangeFacts {
    /// Whether no fact is known (then writes need no bookkeeping).
    pub(crate) fn is_empty(&self) -> bool {
        self.rounded.is_empty() && self.bounded.is_empty()
    }

    /// Records `dst = cvt.rni.f32.f32 src`.
    pub(crate) fn note_round(&mut self, dst: VReg, src: VReg) {
        if dst.ty == PtxType::F32 && src.ty == PtxType::F32 {
            self.rounded.push((dst, src));
            self.mentioned |= bit(dst) | bit(src);
        }
    }

    /// Records what an f32 `add`/`sub`/`mul` (round to nearest) into `dst` bounds.
    pub(crate) fn note_binary(
        &mut self,
        op: BinaryOp,
        mode: Option<FloatMode>,
        dst: VReg,
        a: Operand,
        b: Operand,
    ) {
        if dst.ty != PtxType::F32 || !matches!(mode, None | Some(FloatMode::Rn)) {
            return;
        }
        let fraction = match (op, a, b) {
            (BinaryOp::Sub, Operand::Reg(x), Operand::Reg(y)) => {
                self.rounded.iter().any(|&(r, s)| r == y && s == x).then(|| (0.5, Vec::new()))
            }
            _ => None,
        };
        let derived = fraction.or_else(|| {
            let (ba, mut basis) = self.operand_bound(a)?;
            let (bb, more) = self.operand_bound(b)?;
            basis.extend(more);
            let bound = match op {
                BinaryOp::Mul => ba * bb * ROUNDING,
                BinaryOp::Add | BinaryOp::Sub => (ba + bb) * ROUNDING,
                _ => return None,
            };
            bound.is_finite().then_some((bound, basis))
        });
        if let Some((bound, basis)) = derived {
            self.mentioned |= basis.iter().fold(bit(dst), |m, &r| m | bit(r));
            self.bounded.push(Bound { reg: dst, bound, basis });
        }
    }

    /// An operand's bound: a finite immediate's magnitude, or a register's proven bound.
    fn operand_bound(&self, op: Operand) -> Option<(f32, Vec<VReg>)> {
        match op {
            Operand::Imm(i) => {
                let v = f32::from_bits(i.bits as u32).abs();
                v.is_finite().then(|| (v, Vec::new()))
            }
            Operand::Reg(r) => self.lookup(r),
        }
    }

    /// The bound on `reg` and the registers it rests on (itself included).
    pub(crate) fn lookup(&self, reg: VReg) -> Option<(f32, Vec<VReg>)> {
        let b = self.bounded.iter().rev().find(|b| b.reg == reg)?;
        let mut basis = b.basis.clone();
        basis.push(reg);
        Some((b.bound, basis))
    }

    /// A label: other paths join here, so no rounding seen before it is known to belong to
    /// the values its source holds after it.
    pub(crate) fn at_label(&mut self) {
        self.rounded.clear();
    }

    /// Forgets every fact that mentions `reg`, which is being written again.
    pub(crate) fn forget(&mut self, reg: VReg) {
        if reg.ty != PtxType::F32 || self.mentioned & bit(reg) == 0 {
            return;
        }
        self.rounded.retain(|&(y, x)| y != reg && x != reg);
        self.bounded.retain(|b| b.reg != reg && !b.basis.contains(&reg));
    }
}
