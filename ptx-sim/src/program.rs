//! The decoded form the interpreter executes: a flat list of [`Op`]s whose operands are
//! indices into a per-thread register file of `u64` slots.
//!
//! Slot layout: the kernel's declared registers first, then the parameters' slots (filled
//! at launch: one per scalar, one per 8 bytes of a by-value byte array, little-endian), then constants (immediates, shared-array addresses). Every value is kept
//! zero-extended to its type's width (predicates are 0 or 1), so moves and bit operations
//! need no masking. Labels are resolved to op indices; guards on instructions other than
//! `bra` are lowered to a conditional branch around them.

use ptx_core::ir::{BinaryOp, Cmp, CvtRound, ShflMode, SpecialReg, UnaryOp};
use ptx_core::PtxType;

use crate::memory::AtomKind;
use ptx_core::softfloat::Rnd;

/// A register-file slot index.
pub(crate) type R = u32;

/// Float operations with an explicit rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FArith {
    Add,
    Sub,
    Mul,
    Div,
}

/// One-operand float operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FUn {
    Neg,
    Abs,
    Sqrt(Rnd),
    Rcp(Rnd),
    SqrtApprox,
    RcpApprox,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    /// `tanh.approx.f32`.
    Tanh,
    /// `rcp.approx.ftz.f64`.
    RcpApproxF64,
    /// `rsqrt.approx.f64`: subnormal inputs and results kept.
    RsqrtApproxF64,
    /// `rsqrt.approx.ftz.f64`: a subnormal input is a zero of its sign (so the result is
    /// an infinity of that sign).
    RsqrtApproxFtzF64,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Mov {
        d: R,
        a: R,
    },
    Special {
        d: R,
        which: SpecialReg,
    },
    Add {
        d: R,
        a: R,
        b: R,
        mask: u64,
    },
    Sub {
        d: R,
        a: R,
        b: R,
        mask: u64,
    },
    MulLo {
        d: R,
        a: R,
        b: R,
        mask: u64,
    },
    Mad {
        d: R,
        a: R,
        b: R,
        c: R,
        mask: u64,
    },
    And {
        d: R,
        a: R,
        b: R,
    },
    Or {
        d: R,
        a: R,
        b: R,
    },
    Xor {
        d: R,
        a: R,
        b: R,
    },
    /// Any other integer binary op (div rem min max shl shr mul.hi), via `ptx_core::eval`.
    IntBin {
        op: BinaryOp,
        ty: PtxType,
        d: R,
        a: R,
        b: R,
    },
    /// Integer `neg`, `abs`, `not`, via `ptx_core::eval`.
    IntUnary {
        op: UnaryOp,
        ty: PtxType,
        d: R,
        a: R,
    },
    MulWideU32 {
        d: R,
        a: R,
        b: R,
    },
    MulWide {
        ty: PtxType,
        d: R,
        a: R,
        b: R,
    },
    SetpU {
        cmp: Cmp,
        d: R,
        a: R,
        b: R,
    },
    SetpS {
        cmp: Cmp,
        bits: u8,
        d: R,
        a: R,
        b: R,
    },
    SetpF32 {
        cmp: Cmp,
        d: R,
        a: R,
        b: R,
    },
    SetpF64 {
        cmp: Cmp,
        d: R,
        a: R,
        b: R,
    },
    Selp {
        d: R,
        a: R,
        b: R,
        p: R,
    },
    AddF32 {
        d: R,
        a: R,
        b: R,
    },
    SubF32 {
        d: R,
        a: R,
        b: R,
    },
    MulF32 {
        d: R,
        a: R,
        b: R,
    },
    FmaF32 {
        d: R,
        a: R,
        b: R,
        c: R,
    },
    AddF64 {
        d: R,
        a: R,
        b: R,
    },
    SubF64 {
        d: R,
        a: R,
        b: R,
    },
    MulF64 {
        d: R,
        a: R,
        b: R,
    },
    FmaF64 {
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// Float add/sub/mul/div with any IEEE rounding mode (`f64`: double precision).
    FArith {
        op: FArith,
        f64: bool,
        mode: Rnd,
        d: R,
        a: R,
        b: R,
    },
    FFma {
        f64: bool,
        mode: Rnd,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    FUnary {
        op: FUn,
        f64: bool,
        d: R,
        a: R,
    },
    /// `min`/`max`; with `nan` (`.NaN`) a NaN input gives the canonical NaN.
    FMinMax {
        max: bool,
        nan: bool,
        f64: bool,
        d: R,
        a: R,
        b: R,
    },
    /// `div.approx.f32` (`full` false) / `div.full.f32`.
    DivApproxF32 {
        full: bool,
        d: R,
        a: R,
        b: R,
    },
    CvtIntInt {
        d: R,
        a: R,
        src_bits: u8,
        signed: bool,
        dst_mask: u64,
    },
    Cvt {
        d: R,
        a: R,
        dst: PtxType,
        src: PtxType,
        round: Option<CvtRound>,
        sat: bool,
    },
    Bra {
        t: u32,
    },
    BraIf {
        p: R,
        t: u32,
    },
    BraIfNot {
        p: R,
        t: u32,
    },
    Ret,
    /// `cp.async` ([`crate::async_copy`]): `size` bytes to shared `dst + doff`, the first
    /// `src_size` (a register's value) of them from global `src + soff`, zeros after.
    CpAsync {
        dst: R,
        doff: i32,
        src: R,
        soff: i32,
        size: u8,
        src_size: R,
    },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n`.
    CpAsyncWait {
        n: u32,
    },
    /// `cp.async.wait_all`: a commit, then a wait for every group.
    CpAsyncWaitAll,
    /// `trap`: the thread stops the launch with [`crate::SimError::Trap`] (also what a call
    /// beyond the recursion limit becomes).
    Trap,
    /// The end of a `brx.idx`'s branches, reached with an `index` outside its list of
    /// `targets` labels (undefined in the PTX ISA): a [`Op::Trap`] whose error names both.
    BrxOutside {
        index: R,
        targets: u32,
    },
    LdG32 {
        d: R,
        base: R,
        off: i32,
    },
    StG32 {
        s: R,
        base: R,
        off: i32,
    },
    /// `ld`: `strong` for `.volatile`, `.relaxed` and `.acquire` (the race checker's
    /// strong loads).
    Ld {
        space: MemSpace,
        size: u8,
        n: u8,
        strong: bool,
        d: [R; 4],
        base: R,
        off: i32,
    },
    /// `st`: `strong` for `.volatile`, `.relaxed` and `.release`.
    St {
        space: MemSpace,
        size: u8,
        n: u8,
        strong: bool,
        s: [R; 4],
        base: R,
        off: i32,
    },
    /// `bar.sync` / `barrier.sync{.aligned}`: every thread of the block waits at barrier
    /// `at.id`.
    Bar {
        at: BarSite,
    },
    /// `bar.red.{popc,and,or}`: a barrier that also reduces the predicate `a` (negated with
    /// `negate`) over the block's threads into `d` (a count, or a predicate).
    BarRed {
        at: BarSite,
        kind: BarReduce,
        d: R,
        a: R,
        negate: bool,
    },
    /// `atom`/`red` in global or shared memory, or at a generic address (its window decides).
    Atom {
        space: MemSpace,
        kind: AtomKind,
        d: R,
        base: R,
        off: i32,
        a: R,
        b: R,
    },
    Shfl {
        mode: ShflMode,
        d: R,
        /// The optional predicate destination (`d|p`): whether the source lane was valid.
        valid: Option<R>,
        src: R,
        lane: R,
        clamp: R,
        mask: R,
    },
    /// `testp.class.f32/f64 d, a`: whether `a` is in `class`.
    Testp {
        class: FloatClass,
        double: bool,
        d: R,
        a: R,
    },
    /// `bar.warp.sync`: the members of `mask` wait for each other (a warp collective with
    /// no result).
    WarpSync {
        mask: R,
    },
    /// `vote.sync`: a warp collective over the members of `mask`.
    Vote {
        kind: VoteKind,
        d: R,
        /// The predicate voted, and whether it is negated (`!%p`).
        a: R,
        negate: bool,
        mask: R,
    },
    /// `popc`, `clz`, `brev`, `bfind` on a 32- or 64-bit value.
    Bits {
        op: BitOp,
        wide: bool,
        d: R,
        a: R,
    },
    /// `bfe`: `len` bits of `a` from `pos`, zero- or sign-extended.
    Bfe {
        wide: bool,
        signed: bool,
        d: R,
        a: R,
        pos: R,
        len: R,
    },
    /// `bfi`: `b` with `len` bits from `pos` replaced by the low bits of `a`.
    Bfi {
        wide: bool,
        d: R,
        a: R,
        b: R,
        pos: R,
        len: R,
    },
    /// `vprintf(fmt, args)`: prints the format string at generic address `fmt` with the
    /// arguments packed at `args`; `ret` gets the number of arguments.
    Printf {
        fmt: R,
        args: R,
        ret: Option<R>,
    },
    /// `shf.{l,r}.{wrap,clamp}.b32`: the funnel shift of the 64 bits `b:a`.
    Shf {
        left: bool,
        clamp: bool,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `prmt.b32{.mode}`: bytes of `b:a` picked by the selector `c`.
    Prmt {
        mode: PrmtMode,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `add.cc`, `addc`, `sub.cc`, `subc` (and the addition of `mad.cc`/`madc`): `a + b`
    /// (plus the carry flag `cc` with `carry_in`) or `a - b` (as `a + !b` plus 1, or plus the
    /// flag with `carry_in`), writing the carry out to `cc` with `carry_out`
    /// ([`crate::bits::carry_step`]: a subtraction's flag is 1 when it did not borrow).
    Carry {
        sub: bool,
        wide: bool,
        carry_in: bool,
        carry_out: bool,
        d: R,
        a: R,
        b: R,
        cc: R,
    },
    /// `sad`: `c + |a - b|` (the difference of signed or unsigned values, wrapping sum).
    Sad {
        signed: bool,
        bits: u8,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `add.sat.s32` (`sub` false) / `sub.sat.s32`: the exact sum or difference clamped to
    /// the s32 range (also the addition of `mad.hi.sat.s32`).
    AddSatS32 {
        sub: bool,
        d: R,
        a: R,
        b: R,
    },
    /// `add`, `min`, `max` on lanes of a 32-bit value (sm_90): the two 16-bit halves of
    /// `.u16x2`/`.s16x2` (`lane_bits` 16) or the whole `.s32` (32); `relu` (`min.relu`,
    /// `max.relu`) clamps each lane's result below at 0.
    IntLanes {
        op: BinaryOp,
        lane_bits: u32,
        signed: bool,
        relu: bool,
        d: R,
        a: R,
        b: R,
    },
    /// A SIMD video instruction (`vabsdiff4`, `vadd2`, `vset4`, ...) of the given form.
    VideoSimd {
        form: crate::video::VideoSimd,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// A scalar video instruction (`vadd`, `vabsdiff`, `vset`, ...) of the given form.
    VideoScalar {
        form: crate::video::VideoScalar,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `lop3.b32`: each bit of `d` is bit `4a + 2b + c` of `lut` (of the corresponding bits
    /// of `a`, `b`, `c`).
    Lop3 {
        lut: u8,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `mul24.{lo,hi}.{u32,s32}` (and the product of `mad24`): the 48-bit product of the low
    /// 24 bits of `a` and `b`, its bits 0..32 or (`hi`) 16..48.
    Mul24 {
        hi: bool,
        signed: bool,
        d: R,
        a: R,
        b: R,
    },
    /// `bmsk.{clamp,wrap}.b32` and `szext.{clamp,wrap}.{s32,u32}` (`clamp`: `.clamp`).
    Mask {
        op: BitOp2,
        clamp: bool,
        d: R,
        a: R,
        b: R,
    },
    /// `fns.b32 d, mask, base, offset`.
    Fns {
        d: R,
        mask: R,
        base: R,
        offset: R,
    },
    /// `dp4a` (`pairs` 4) and `dp2a.lo/hi` (`pairs` 2, `high`): integer dot products.
    Dot {
        pairs: u8,
        high: bool,
        a_signed: bool,
        b_signed: bool,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `cvt.{rna,rn,rz}.tf32.f32`.
    Tf32 {
        mode: crate::bits::Tf32Round,
        d: R,
        a: R,
    },
    /// A special register the IR does not have: clocks, timers, warp and SM numbers, lane
    /// masks.
    Counter {
        which: Counter,
        d: R,
    },
    /// `activemask.b32`: the lanes of the warp that reached this instruction together (a
    /// warp collective with no member mask; lanes at another `activemask` are not with them).
    ActiveMask {
        d: R,
    },
    /// `match.sync.{any,all}.{b32,b64}`: a warp collective over the members of `mask`.
    Match {
        all: bool,
        d: R,
        /// `match.all`'s optional predicate destination: whether all values were equal.
        equal: Option<R>,
        a: R,
        mask: R,
    },
    /// `redux.sync.op.type d, a, mask`: `op` over the `a`s of the members of `mask` (32-bit
    /// integers; `signed` for `.s32` min and max).
    Redux {
        op: ReduxOp,
        signed: bool,
        d: R,
        a: R,
        mask: R,
    },
    /// `elect.sync d|p, mask`: the lowest member of `mask` is elected; `d` gets its lane,
    /// `p` whether this lane is it.
    Elect {
        d: Option<R>,
        p: R,
        mask: R,
    },
    /// `set.cmp.{f16,f16x2,bf16,bf16x2}` (and with an integer destination type): each half
    /// of `d` is 1.0 (`float`) or all ones where its comparison holds, else 0.
    SetHalf {
        cmp: Cmp,
        form: HalfForm,
        float: bool,
        d: R,
        a: R,
        b: R,
    },
    /// `f16`/`bf16` arithmetic on one value or a pair packed in 32 bits (`.f16x2`).
    Half {
        op: HalfOp,
        form: HalfForm,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `setp.cmp.{f16,bf16}{x2}`: compares each half; a pair writes `d` for the low half
    /// and `hi` for the high one.
    SetpHalf {
        cmp: Cmp,
        form: HalfForm,
        d: R,
        hi: Option<R>,
        a: R,
        b: R,
    },
    /// `cvt.sat.fN.fN`: clamps to [0, 1], NaN giving +0.
    SatFloat {
        f64: bool,
        d: R,
        a: R,
    },
    /// A subnormal `a` flushed to a zero of its sign (`.ftz` inputs and results).
    FlushF32 {
        d: R,
        a: R,
    },
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16 d, [base+off]`: a warp
    /// collective of all 32 lanes (`.aligned`): lanes `8i..8i+8` give the addresses of the
    /// rows of matrix `i` (`count` matrices), and each lane gets its fragment of each in
    /// `d[i]` ([`crate::tensor`]). `space` is `.shared` or generic.
    LdMatrix {
        count: u8,
        trans: bool,
        space: MemSpace,
        d: [R; 4],
        base: R,
        off: i32,
    },
    /// `mma.sync.aligned.shape.row.col...`: a warp collective of all 32 lanes
    /// (`.aligned`), `D = A·B + C` over fragments held across the warp
    /// ([`crate::tensor`]). Its registers, D's then A's, B's and C's (as many as `form`
    /// says), are `KernelCode::frags[frag..]`.
    Mma {
        form: crate::tensor::MmaForm,
        frag: u32,
    },
}

impl Op {
    /// The barrier a `bar.sync` or `bar.red` waits at; `None` for any other op.
    pub(crate) fn bar_site(&self) -> Option<BarSite> {
        match self {
            Op::Bar { at } | Op::BarRed { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// Whether threads waiting at barrier ops `self` and `other` may pass one barrier
    /// together: the same instruction, or two non-aligned ones of one form (`barrier.sync`
    /// with `barrier.sync`, `barrier.red` with `barrier.red` of the same reduction). The
    /// PTX ISA leaves the rest undefined: an aligned barrier that threads reach through
    /// different instructions, and `barrier.red` intermixed with `barrier.sync`.
    pub(crate) fn shares_barrier(&self, other: &Op) -> bool {
        match (self, other) {
            (Op::Bar { at: x }, Op::Bar { at: y }) => x.line == y.line || !x.aligned && !y.aligned,
            (Op::BarRed { at: x, kind: k, .. }, Op::BarRed { at: y, kind: l, .. }) => {
                x.line == y.line || !x.aligned && !y.aligned && k == l
            }
            _ => false,
        }
    }

    /// Whether the op is a warp collective: its lanes wait for each other there (the
    /// block runner performs it).
    pub(crate) fn is_warp_collective(&self) -> bool {
        matches!(
            self,
            Op::Shfl { .. }
                | Op::Vote { .. }
                | Op::WarpSync { .. }
                | Op::ActiveMask { .. }
                | Op::Match { .. }
                | Op::Redux { .. }
                | Op::Elect { .. }
                | Op::LdMatrix { .. }
                | Op::Mma { .. }
        )
    }

    /// Whether the op is a tensor-core collective (`ldmatrix`, `mma`): `.aligned`, so every
    /// lane of the warp must execute this very instruction together.
    pub(crate) fn is_tensor(&self) -> bool {
        matches!(self, Op::LdMatrix { .. } | Op::Mma { .. })
    }

    /// Whether lanes at `self` and at `other` meet in one warp collective: the same kind with
    /// the same qualifiers (sm_70 and later wait for the members to reach *a* `shfl.sync`,
    /// `vote.sync`, `bar.warp.sync`, .. of the same form, not the same instruction, so the
    /// two arms of a divergent branch can meet). Each lane brings its own operands.
    pub(crate) fn meets(&self, other: &Op) -> bool {
        match (*self, *other) {
            (Op::Shfl { mode: a, .. }, Op::Shfl { mode: b, .. }) => a == b,
            (Op::Vote { kind: a, .. }, Op::Vote { kind: b, .. }) => a == b,
            (Op::Match { all: a, .. }, Op::Match { all: b, .. }) => a == b,
            (Op::Redux { op: a, signed: x, .. }, Op::Redux { op: b, signed: y, .. }) => a == b && x == y,
            (Op::WarpSync { .. }, Op::WarpSync { .. }) | (Op::Elect { .. }, Op::Elect { .. }) => true,
            // `activemask` synchronises nothing: lanes at another `activemask` (the other arm
            // of a branch) run apart from these, so only lanes at the same instruction (the
            // caller compares program counters) share a mask.
            (Op::ActiveMask { .. }, _) => false,
            _ => false,
        }
    }

    /// The register a warp collective takes from each lane: a shuffle's source, the value
    /// of a vote, match or reduction.
    pub(crate) fn collective_source(&self) -> Option<R> {
        match *self {
            Op::Shfl { src, .. } => Some(src),
            Op::Vote { a, .. } | Op::Match { a, .. } | Op::Redux { a, .. } => Some(a),
            _ => None,
        }
    }

    /// The member-mask register of a warp collective (`None` for `activemask`, which waits
    /// for no one, and for every other op).
    pub(crate) fn collective_mask(&self) -> Option<R> {
        match *self {
            Op::Shfl { mask, .. }
            | Op::Vote { mask, .. }
            | Op::WarpSync { mask }
            | Op::Match { mask, .. }
            | Op::Redux { mask, .. }
            | Op::Elect { mask, .. } => Some(mask),
            _ => None,
        }
    }
}

/// The two-operand mask instructions of [`Op::Mask`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BitOp2 {
    /// `bmsk`: a mask of `b` ones from bit `a`.
    Bmsk,
    /// `szext`: the low `b` bits of `a`, sign-extended (`signed`, `.s32`) or zero-extended.
    Szext { signed: bool },
}

/// A kernel's declared block shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum BlockLimit {
    /// None declared.
    #[default]
    None,
    /// `.maxntid x, y, z`: at most `x·y·z` threads per block.
    Max([u32; 3]),
    /// `.reqntid x, y, z`: exactly this block.
    Exactly([u32; 3]),
}

/// One module-level `.global` or `.const` variable: its size, and its leading bytes as
/// initialised (the rest are zero).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DataDef {
    pub(crate) name: String,
    pub(crate) align: u32,
    pub(crate) bytes: usize,
    pub(crate) init: Vec<u8>,
}

/// A module's variables, placed in each [`crate::Memory`] the first time one of its kernels
/// runs there (so their values persist from launch to launch, as on a GPU).
#[derive(Debug, Default)]
pub(crate) struct ModuleData {
    pub(crate) defs: Vec<DataDef>,
    /// (memory id, each variable's address there).
    placed: std::sync::Mutex<Vec<(u64, Vec<u64>)>>,
}

impl ModuleData {
    /// The module's variables.
    pub(crate) fn new(defs: Vec<DataDef>) -> ModuleData {
        ModuleData { defs, placed: Default::default() }
    }

    /// The variables' addresses in `memory`, allocating and initialising them the first time.
    pub(crate) fn addresses(&self, memory: &crate::Memory) -> Result<Vec<u64>, crate::SimError> {
        let mut placed = self.placed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, addrs)) = placed.iter().find(|(id, _)| *id == memory.id()) {
            return Ok(addrs.clone());
        }
        let mut addrs = Vec::with_capacity(self.defs.len());
        for d in &self.defs {
            // Allocations are 256-byte aligned, more than any variable asks for.
            let addr = memory.try_alloc(d.bytes.max(1))?;
            memory.write(addr, &d.init)?;
            addrs.push(addr);
        }
        placed.push((memory.id(), addrs.clone()));
        Ok(addrs)
    }
}

/// Where a load or store goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemSpace {
    /// `.global`: device memory.
    Global,
    /// `.shared`: the block's shared memory, by offset.
    Shared,
    /// `.local`: the thread's own local memory, by offset.
    Local,
    /// No state space: a generic address, resolved by its window ([`LOCAL_WINDOW`],
    /// [`SHARED_WINDOW`], or global memory).
    Generic,
}

/// Generic addresses of the thread's local memory: `cvta.local` adds this to an offset.
pub(crate) const LOCAL_WINDOW: u64 = 0xfffe_0000_0000_0000;
/// Generic addresses of the block's shared memory: `cvta.shared` adds this to an offset.
pub(crate) const SHARED_WINDOW: u64 = 0xfffd_0000_0000_0000;
/// The size of each window (far above any local or shared size).
pub(crate) const WINDOW_BYTES: u64 = 1 << 40;

/// The kinds of `vote.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteKind {
    /// `.ballot.b32`: the members' predicates as a bit mask.
    Ballot,
    /// `.any.pred`.
    Any,
    /// `.all.pred`.
    All,
    /// `.uni.pred`: all members agree.
    Uni,
}

/// `prmt`'s byte-selection modes (the PTX ISA's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrmtMode {
    /// No mode: four 4-bit selectors in `c`, each with a sign-replicate bit.
    Generic,
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate one byte.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate one 16-bit half.
    Rc16,
}

/// The special registers the simulator reads beyond [`SpecialReg`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counter {
    /// `%clock`: the low word of `%clock64`.
    Clock,
    /// `%clock_hi`: the high word of `%clock64`.
    ClockHi,
    /// `%clock64`: the block's instructions executed so far (monotone for each thread).
    Clock64,
    /// `%globaltimer`: nanoseconds since the Unix epoch, from the host's clock.
    GlobalTimer,
    /// `%globaltimer_lo`: the low word of `%globaltimer`.
    GlobalTimerLo,
    /// `%globaltimer_hi`: the high word of `%globaltimer`.
    GlobalTimerHi,
    /// `%warpid`: the thread's warp in its block.
    WarpId,
    /// `%nwarpid`: the most warp identifiers a multiprocessor has.
    NWarpId,
    /// `%smid`: always 0 (one simulated multiprocessor).
    SmId,
    /// `%nsmid`: 1.
    NSmId,
    /// `%gridid`: 0 for every launch.
    GridId,
    /// `%lanemask_eq`: the thread's own lane bit.
    LaneMaskEq,
    /// `%lanemask_le`: its lane and those below.
    LaneMaskLe,
    /// `%lanemask_lt`: the lanes below it.
    LaneMaskLt,
    /// `%lanemask_ge`: its lane and those above.
    LaneMaskGe,
    /// `%lanemask_gt`: the lanes above it.
    LaneMaskGt,
    /// `%total_smem_size`: the block's shared memory, static and dynamic, in whole
    /// allocation units (128 bytes, as on sm_80 and sm_90).
    TotalSmemSize,
    /// `%aggr_smem_size`: `%total_smem_size` plus the reserved shared memory, of which the
    /// simulator has none.
    AggrSmemSize,
}

impl Counter {
    /// Every counter with its PTX name and its width in bits.
    pub(crate) const ALL: [(Counter, &'static str, u32); 18] = [
        (Counter::Clock, "%clock", 32),
        (Counter::ClockHi, "%clock_hi", 32),
        (Counter::Clock64, "%clock64", 64),
        (Counter::GlobalTimer, "%globaltimer", 64),
        (Counter::GlobalTimerLo, "%globaltimer_lo", 32),
        (Counter::GlobalTimerHi, "%globaltimer_hi", 32),
        (Counter::WarpId, "%warpid", 32),
        (Counter::NWarpId, "%nwarpid", 32),
        (Counter::SmId, "%smid", 32),
        (Counter::NSmId, "%nsmid", 32),
        (Counter::GridId, "%gridid", 64),
        (Counter::LaneMaskEq, "%lanemask_eq", 32),
        (Counter::LaneMaskLe, "%lanemask_le", 32),
        (Counter::LaneMaskLt, "%lanemask_lt", 32),
        (Counter::LaneMaskGe, "%lanemask_ge", 32),
        (Counter::LaneMaskGt, "%lanemask_gt", 32),
        (Counter::TotalSmemSize, "%total_smem_size", 32),
        (Counter::AggrSmemSize, "%aggr_smem_size", 32),
    ];
}

/// A CTA barrier instruction (`bar.sync`, `bar.red` and their `barrier` spellings): the
/// barrier it waits at, whether it is aligned, and the PTX line that identifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BarSite {
    /// The barrier, 0..15.
    pub id: u32,
    /// `.aligned` (`bar.sync` and `bar.red` always are): the PTX ISA requires every thread
    /// of the block to execute this very instruction, not another one at the same barrier.
    pub aligned: bool,
    /// The instruction's 1-based PTX line: one instruction however many times it is
    /// inlined, since the body of a device function is one instruction on a GPU too.
    pub line: u32,
}

/// The reductions of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarReduce {
    /// `.popc.u32`: how many threads' predicates hold.
    Popc,
    /// `.and.pred`: whether all do.
    And,
    /// `.or.pred`: whether any does.
    Or,
}

/// The reductions of `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduxOp {
    /// Wrapping sum.
    Add,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
}

/// A 16-bit float operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HalfOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a * b + c` with one rounding.
    Fma,
    /// `-a` (the sign flipped, NaN too).
    Neg,
    /// `|a|` (the sign cleared).
    Abs,
    /// The smaller of `a` and `b` (`-0 < +0`).
    Min,
    /// The larger of `a` and `b`.
    Max,
}

/// How a 16-bit float operation treats its values: format, one value or a pair, and the
/// modifiers that change the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HalfForm {
    /// bfloat16 rather than IEEE binary16.
    pub(crate) bf16: bool,
    /// Two values packed in 32 bits (`.f16x2`, `.bf16x2`), the first in the low half.
    pub(crate) pair: bool,
    /// `.ftz`: subnormal inputs and results become zeros of their sign.
    pub(crate) ftz: bool,
    /// `.sat`: the result clamped to [0, 1], NaN giving +0.
    pub(crate) sat: bool,
    /// `.relu`: a negative result becomes +0 (NaN stays NaN).
    pub(crate) relu: bool,
    /// `.NaN` on min/max: a NaN input gives NaN (otherwise the other input).
    pub(crate) nan: bool,
}

/// Bit-manipulation instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BitOp {
    /// Population count.
    Popc,
    /// Leading zeros.
    Clz,
    /// Bit reversal.
    Brev,
    /// Position of the most significant non-sign bit (0xffffffff for none); `shiftamt`
    /// gives the left shift that brings it to the top instead; `signed` for `.s32/.s64`.
    Bfind { signed: bool, shiftamt: bool },
}

/// A kernel parameter as declared in the PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    /// The parameter's source name: the PTX name with the printer's `<kernel>_param_`
    /// prefix removed (the full PTX name when it has no such prefix).
    pub name: String,
    /// Its `.param` type (the element type of an array; `.b8` reads as `.u8`).
    pub ty: PtxType,
    /// `Some(n)` for a by-value array `.b8 name[n]` (a struct, a `__half`); `None` for a
    /// scalar.
    pub array: Option<u32>,
}

impl ParamInfo {
    /// The parameter's size in bytes: what a launch passes for it
    /// ([`crate::launch_with_param_bytes`]).
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()) * u64::from(self.array.unwrap_or(1))
    }
}

/// One decoded kernel (`.entry`), ready to [`crate::launch`].
#[derive(Clone, Debug)]
pub struct KernelCode {
    pub(crate) name: String,
    pub(crate) params: Vec<ParamInfo>,
    pub(crate) static_shared: u32,
    /// Bytes of `.local` memory each thread has.
    pub(crate) local_bytes: u32,
    /// The module's `.global`/`.const` variables, and the register holding each one's
    /// address (filled in at launch).
    pub(crate) data: std::sync::Arc<ModuleData>,
    /// Each variable by index, an offset into it, and the register its address fills.
    pub(crate) data_slots: Vec<(usize, u64, R)>,
    /// The block shape the kernel declares it needs (`.maxntid`, `.reqntid`).
    pub(crate) block_limit: BlockLimit,
    /// `.reqnctapercluster x, y, z` (sm_90): the blocks of a cluster; the grid must be made
    /// of whole clusters. (A kernel that reads no cluster register and uses no cluster
    /// memory runs block by block as on a GPU.)
    pub(crate) cluster: Option<[u32; 3]>,
    pub(crate) code: Vec<Op>,
    /// The PTX text of each op (for fault messages).
    pub(crate) text: Vec<String>,
    /// The source position (`.loc`) of each op, where the PTX gives one.
    pub(crate) sources: Vec<Option<String>>,
    /// Initial register file: zeros for registers and parameters, constants after them.
    pub(crate) init: Vec<u64>,
    /// The first slot of each parameter (a by-value array has one slot per 8 bytes).
    pub(crate) param_slots: Vec<R>,
    /// The fragment registers of the kernel's `mma` instructions ([`Op::Mma`]).
    pub(crate) frags: Vec<R>,
}

impl KernelCode {
    /// The entry's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters, in declaration order.
    pub fn params(&self) -> &[ParamInfo] {
        &self.params
    }

    /// Bytes of `.shared` memory the kernel declares (each array at its alignment).
    pub fn static_shared_bytes(&self) -> u32 {
        self.static_shared
    }

    /// Number of decoded operations (PTX instructions, plus one branch per guarded
    /// non-branch instruction and a final implicit `ret`).
    pub fn op_count(&self) -> usize {
        self.code.len()
    }
}

/// A parsed and decoded PTX module.
#[derive(Clone, Debug)]
pub struct Module {
    pub(crate) kernels: Vec<KernelCode>,
    /// The kernels the simulator cannot run, with the construct each uses.
    pub(crate) unsupported: Vec<(String, crate::SimError)>,
}

impl Module {
    /// Parses PTX text and decodes every kernel. A kernel using a construct the simulator
    /// does not support is left out ([`Module::unsupported`] says which construct) while the
    /// others load; a module none of whose kernels load, or malformed text, is an error.
    pub fn parse(ptx: &str) -> Result<Module, crate::SimError> {
        crate::parse::parse_module(ptx).map(|p| Module { kernels: p.kernels, unsupported: p.unsupported })
    }

    /// Why kernel `name` could not be loaded, if it is one the simulator does not support.
    pub fn unsupported(&self, name: &str) -> Option<&crate::SimError> {
        self.unsupported.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelCode> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The names of the module's kernels, in order.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.kernels.iter().map(|k| k.name.as_str())
    }
}

/// The classes `testp` tests for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatClass {
    /// `.finite`: not infinite, not NaN.
    Finite,
    /// `.infinite`.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    NotANumber,
    /// `.normal`: finite, nonzero, not subnormal.
    Normal,
    /// `.subnormal`.
    Subnormal,
}

impl FloatClass {
    /// Whether a value with this `fpclassify` class is in it.
    pub(crate) fn holds(self, class: std::num::FpCategory) -> bool {
        use std::num::FpCategory::*;
        match self {
            FloatClass::Finite => !matches!(class, Infinite | Nan),
            FloatClass::Infinite => class == Infinite,
            FloatClass::Number => class != Nan,
            FloatClass::NotANumber => class == Nan,
            FloatClass::Normal => class == Normal,
            FloatClass::Subnormal => class == Subnormal,
        }
    }
}
