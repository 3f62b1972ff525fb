//! Threads working together: the block barrier (`sync_threads()`), and the warp's
//! shuffles, votes and lane index. Every warp function works on the full warp (member mask
//! `0xffffffff`), as CUDA's `__shfl_*_sync(0xffffffff, ..)` do: all 32 lanes of the warp
//! must reach it together, as every thread of the block must reach a `sync_threads()` (the
//! simulator stops with a barrier error where they do not; a GPU would hang or give
//! undefined values).

use ptx_core::builder::{Reg, Val};
use ptx_core::ir::{Instr, Operand, ShflMode, VoteMode};
use ptx_core::{Cmp, PtxType, SpecialReg, F64, S64, U32, U64};

use super::{internal_error, KernelCtx, Scalar, Value};

/// The number of threads in a warp on every CUDA GPU: `warp_size()`.
pub const WARP_SIZE: u32 = 32;

/// How a shuffle picks the lane each lane reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// `shfl_xor(v, mask)`: lane `lane ^ mask`.
    Xor,
    /// `shfl_down(v, delta)`: lane `lane + delta`, or its own value past lane 31.
    Down,
    /// `shfl_up(v, delta)`: lane `lane - delta`, or its own value below lane 0.
    Up,
    /// `shfl_idx(v, source)`: lane `source % 32`.
    Idx,
}

/// Which vote a warp takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    /// `ballot(p)`: a `u32` whose bit n is lane n's `p`.
    Ballot,
    /// `any(p)`: whether `p` holds in some lane.
    Any,
    /// `all(p)`: whether `p` holds in every lane.
    All,
}

impl KernelCtx {
    /// `sync_threads()`: `bar.sync 0`, every thread of the block waits for the others,
    /// and their shared and global writes before it are visible to all after it.
    pub fn sync_threads(&mut self) {
        self.b.bar_sync();
    }

    /// `lane_id()`: the thread's lane in its warp, `%laneid` (0..32).
    pub fn lane_id(&mut self) -> Value {
        Value::of(Val::Reg(self.b.special(SpecialReg::LaneId)), Scalar::U32)
    }

    /// A shuffle of `value` (any integer or float type; 64-bit values move as two 32-bit
    /// halves) from the lane `lane` selects by `how`.
    pub fn shuffle(&mut self, how: Shuffle, value: Value, lane: Value) -> Value {
        let lane = lane.op;
        match value.ty.reg_type().bits() {
            64 => {
                let bits = match value.ty {
                    Scalar::F64 => self.b.bitcast::<U64, F64>(value.typed::<F64>()),
                    Scalar::I64 | Scalar::Isize => self.b.bitcast::<U64, S64>(value.typed::<S64>()),
                    _ => value.typed::<U64>(),
                };
                let low = self.b.cast::<U32, U64>(bits);
                let high = self.b.shr::<U64>(bits, 32u32);
                let high = self.b.cast::<U32, U64>(high);
                let low = self.shuffle_word(how, low.operand(), lane);
                let high = self.shuffle_word(how, high.operand(), lane);
                let low = self.b.cast::<U64, U32>(typed_u32(low));
                let high = self.b.cast::<U64, U32>(typed_u32(high));
                let high = self.b.shl::<U64>(high, 32u32);
                let joined = self.b.or::<U64>(high, low);
                let op = match value.ty {
                    Scalar::F64 => self.b.bitcast::<F64, U64>(joined).operand(),
                    Scalar::I64 | Scalar::Isize => self.b.bitcast::<S64, U64>(joined).operand(),
                    _ => joined.operand(),
                };
                Value::new(op, value.ty)
            }
            // Narrow integers are held normalised in 32-bit registers: so is what they read.
            32 => Value::new(Operand::Reg(self.shuffle_word(how, value.op, lane)), value.ty),
            _ => internal_error("a shuffle of a type the checker rejects"),
        }
    }

    /// `shfl.sync` of one 32-bit operand over the full warp.
    fn shuffle_word(&mut self, how: Shuffle, src: Operand, lane: Operand) -> ptx_core::ir::VReg {
        let src = match src {
            Operand::Reg(r) => r,
            Operand::Imm(imm) => {
                let r = self.b.raw_reg(imm.ty);
                self.b.push(Instr::Mov { ty: imm.ty, dst: r, src });
                r
            }
        };
        let (mode, clamp) = match how {
            Shuffle::Xor => (ShflMode::Bfly, 0x1f),
            Shuffle::Down => (ShflMode::Down, 0x1f),
            Shuffle::Up => (ShflMode::Up, 0),
            Shuffle::Idx => (ShflMode::Idx, 0x1f),
        };
        let dst = self.b.raw_reg(src.ty);
        self.b.push(Instr::Shfl { mode, dst, src, lane, clamp, mask: u32::MAX });
        dst
    }

    /// `ballot(p)`, `any(p)`, `all(p)` over the full warp.
    pub fn vote(&mut self, which: Vote, pred: Value) -> Value {
        let pred = match pred.op {
            Operand::Reg(r) => r,
            // A constant vote still meets the warp: put the constant in a predicate.
            Operand::Imm(imm) => {
                let word = self.b.mov::<U32>(u32::from(imm.bits != 0));
                let p = self.b.setp::<U32>(Cmp::Ne, word, 0u32);
                match p {
                    Val::Reg(r) => r.raw(),
                    Val::Imm(_) => internal_error("a comparison of a register folded"),
                }
            }
        };
        let (mode, ty, result) = match which {
            Vote::Ballot => (VoteMode::Ballot, PtxType::U32, Scalar::U32),
            Vote::Any => (VoteMode::Any, PtxType::Pred, Scalar::Bool),
            Vote::All => (VoteMode::All, PtxType::Pred, Scalar::Bool),
        };
        let dst = self.b.raw_reg(ty);
        self.b.push(Instr::Vote { mode, dst, pred, mask: u32::MAX });
        Value::new(Operand::Reg(dst), result)
    }
}

/// A 32-bit register as a typed `u32` value.
fn typed_u32(r: ptx_core::ir::VReg) -> Val<U32> {
    match Reg::<U32>::from_raw(r) {
        Some(r) => Val::Reg(r),
        None => internal_error("a shuffled half is a u32 register"),
    }
}
