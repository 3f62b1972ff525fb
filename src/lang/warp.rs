//! Threads working together: the block barrier (`sync_threads()`), and the warp's
//! shuffles, votes and lane index. Every warp function works on the full warp (member mask
//! `0xffffffff`), as CUDA's `__shfl_*_sync(0xffffffff, ..)` do: all 32 lanes of the warp
//! must reach it together, as every thread of the block must reach a `sync_threads()` (the
//! simulator stops with a barrier error where they do not; a GPU would hang or give
//! undefined values). Lanes that have returned do not hold a warp operation up; a checked
//! kernel counts the lanes first ([`KernelCtx::whole_warp`]) and reports a missing one.

use ptx_core::builder::{Reg, Val};
use ptx_core::ir::{Instr, Operand, ShflMode, VoteMode};
use ptx_core::{PtxType, SpecialReg, F64, S64, U16, U32, U64};

use super::ops::Site;
use super::{internal_error, KernelCtx, Scalar, Value};
use ptx_core::fault::FaultKind;

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

/// What a warp or block reduction combines values with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// `warp_sum` / `block_sum`: `+` (wrapping for integers).
    Sum,
    /// `warp_min` / `block_min`: Rust's `min` (a float NaN is ignored).
    Min,
    /// `warp_max` / `block_max`: Rust's `max`.
    Max,
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

    /// `sync_warp()`: `bar.warp.sync 0xffffffff`, the lanes of the warp wait for each other,
    /// and their shared and global accesses before it are ordered before those after it.
    pub fn sync_warp(&mut self) {
        self.b.push(ptx_core::ir::Instr::BarWarpSync { mask: u32::MAX });
    }

    /// `thread_fence_block()`, `thread_fence()`, `thread_fence_system()`: `membar` at
    /// `scope`.
    pub fn fence(&mut self, scope: ptx_core::ir::FenceScope) {
        self.b.push(ptx_core::ir::Instr::Fence { scope });
    }

    /// `lane_id()`: the thread's lane in its warp, `%laneid` (0..32).
    pub fn lane_id(&mut self) -> Value {
        Value::of(Val::Reg(self.b.special(SpecialReg::LaneId)), Scalar::U32)
    }

    /// The first index of `for i in grid_stride(n)`: `global_idx().x as usize`.
    pub fn grid_stride_start(&mut self) -> Value {
        let x = self.index(super::Builtin::GlobalIdx, 0);
        self.cast(x, Scalar::Usize)
    }

    /// The step of `for i in grid_stride(n)`: `grid_dim().x * block_dim().x` as a `usize`
    /// (computed in 64 bits: the product can pass `u32::MAX`).
    pub fn grid_stride_step(&mut self) -> Value {
        let blocks = self.index(super::Builtin::GridDim, 0);
        let threads = self.index(super::Builtin::BlockDim, 0);
        let blocks = self.cast(blocks, Scalar::Usize);
        let threads = self.cast(threads, Scalar::Usize);
        self.mul(blocks, threads)
    }

    /// A shuffle of `value` (any integer or float type, `f16` and `bf16` included; 64-bit
    /// values move as two 32-bit halves, 16-bit floats in the low half of one) from the lane
    /// `lane` selects by `how`.
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
            // `f16`/`bf16` travel as the low half of a 32-bit word (their bits unchanged).
            16 => {
                let bits = self.half_raw_bits(value);
                let word = self.b.cast::<U32, U16>(bits);
                let moved = self.shuffle_word(how, word.operand(), lane);
                let back = self.b.cast::<U16, U32>(typed_u32(moved));
                self.half_of_raw_bits(back, value.ty)
            }
            _ => internal_error("a shuffle of a type the checker rejects"),
        }
    }

    /// `shfl.sync` of one 32-bit operand over the full warp.
    fn shuffle_word(&mut self, how: Shuffle, src: Operand, lane: Operand) -> ptx_core::ir::VReg {
        let src = self.operand_register(src);
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

    /// `warp_sum(v)` and its siblings: every lane gets the combination of the 32 lanes'
    /// values, formed by the xor butterfly (offsets 16, 8, 4, 2, 1), the same tree in every
    /// lane, so every lane holds the very same bits.
    pub fn warp_reduce(&mut self, how: Reduce, value: Value) -> Value {
        let mut acc = value;
        for offset in [16u32, 8, 4, 2, 1] {
            let other = self.shuffle(Shuffle::Xor, acc, Value::from(offset));
            acc = self.combine(how, acc, other);
        }
        acc
    }

    /// `block_sum(v)` and its siblings: every thread of the block gets the combination of
    /// all the block's values. Each warp reduces its own, lane 0 of each writes the result to
    /// a 32-element shared scratch array, and after a barrier every warp reduces the
    /// written part of the scratch (so every thread has the total without a broadcast); a
    /// second barrier lets the next reduction reuse its scratch safely. Warps are the
    /// block's threads in linear order, 32 at a time.
    pub fn block_reduce(&mut self, how: Reduce, value: Value) -> Value {
        let scratch = self.shared_array("block reduction scratch", value.ty, 32);
        let warp_total = self.warp_reduce(how, value);
        let (linear, threads) = self.linear_thread();
        let lane = self.bitand(linear, Value::from(31u32));
        let warp = self.shr(linear, Value::from(5u32));
        let first_lane = self.eq(lane, Value::from(0u32));
        self.store_if(&scratch, warp, warp_total, first_lane);
        self.sync_threads();
        let warps = self.add(threads, Value::from(31u32));
        let warps = self.shr(warps, Value::from(5u32));
        let written = self.lt(lane, warps);
        // Lanes past the last warp's slot read that slot instead, and take the identity: the
        // scratch beyond it was never written, and reading it is undefined on a GPU.
        let last = self.sub(warps, Value::from(1u32));
        let slot = self.min(lane, last);
        let partial = self.load_in_bounds(&scratch, slot);
        let identity = identity(how, value.ty);
        let partial = self.select(written, partial, identity);
        let total = self.warp_reduce(how, partial);
        self.sync_threads();
        total
    }

    /// The thread's index in its block in linear order (x fastest) and the block's size.
    fn linear_thread(&mut self) -> (Value, Value) {
        let tid = self.dim3(super::Builtin::ThreadIdx);
        let ntid = self.dim3(super::Builtin::BlockDim);
        let zy = self.mad(tid.z, ntid.y, tid.y);
        let linear = self.mad(zy, ntid.x, tid.x);
        let plane = self.mul(ntid.x, ntid.y);
        (linear, self.mul(plane, ntid.z))
    }

    fn combine(&mut self, how: Reduce, a: Value, b: Value) -> Value {
        match how {
            Reduce::Sum => self.add(a, b),
            Reduce::Min => self.min(a, b),
            Reduce::Max => self.max(a, b),
        }
    }

    /// In a checked kernel, before a full-warp operation (`what`, Rust's words for the
    /// mistake): a `vote.sync.ballot` of every lane over the full mask, which lanes that
    /// have returned do not join (the PTX ISA waits only for non-exited members), and a
    /// fault at `site` when some lane is missing, naming the operation and the line. A warp
    /// operation a lane skipped would otherwise read that lane's stale value.
    pub fn whole_warp(&mut self, site: Site, what: &'static str) {
        if !self.checked {
            return;
        }
        let present = self.vote(Vote::Ballot, Value::from(true));
        let missing = self.ne(present, Value::from(u32::MAX));
        self.fault_if(missing, site.fault(FaultKind::Panic, what), present, Value::from(0u32));
    }

    /// `ballot(p)`, `any(p)`, `all(p)` over the full warp.
    pub fn vote(&mut self, which: Vote, pred: Value) -> Value {
        // A constant vote still meets the warp: the constant goes in a predicate.
        let pred = self.operand_register(pred.op);
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

/// The value that leaves any other unchanged under `how`.
fn identity(how: Reduce, ty: Scalar) -> Value {
    macro_rules! per_type {
        ($($scalar:ident => $host:ty),*) => {
            match ty {
                $(Scalar::$scalar => Value::from(match how {
                    Reduce::Sum => 0 as $host,
                    Reduce::Min => <$host>::MAX,
                    Reduce::Max => <$host>::MIN,
                }),)*
                // -0.0: the sum of -0.0 values is -0.0 whatever the block size. NaN for
                // `min`/`max`: Rust's (and PTX's) ignore a NaN operand, so NaN leaves every
                // value unchanged, and a block of NaNs gives NaN as the host's fold does (an
                // infinity would give a value no thread had).
                Scalar::F32 => Value::from(match how {
                    Reduce::Sum => -0.0f32,
                    Reduce::Min | Reduce::Max => f32::NAN,
                }),
                Scalar::F64 => Value::from(match how {
                    Reduce::Sum => -0.0f64,
                    Reduce::Min | Reduce::Max => f64::NAN,
                }),
                _ => internal_error("a reduction of a type the checker rejects"),
            }
        };
    }
    per_type!(U8 => u8, I8 => i8, U16 => u16, I16 => i16, U32 => u32, I32 => i32, U64 => u64, I64 => i64,
        Usize => usize, Isize => isize)
}

/// A 32-bit register as a typed `u32` value.
fn typed_u32(r: ptx_core::ir::VReg) -> Val<U32> {
    match Reg::<U32>::from_raw(r) {
        Some(r) => Val::Reg(r),
        None => internal_error("a shuffled half is a u32 register"),
    }
}
