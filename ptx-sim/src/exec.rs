//! The interpreter and the grid launcher.
//!
//! Each thread is a resumable state: a program counter and a slice of the block's register
//! file. A block runs its threads one after another, each until it exits or reaches a sync
//! point: `bar.sync` (block-wide) or `shfl.sync` (warp-wide: lane = linear thread index %
//! 32). When every live lane of a shuffle's `membermask` waits at that same `shfl.sync` the
//! exchange happens; when every thread of the block that has not exited waits at `bar.sync`
//! they all continue (at one instruction, when the barrier is aligned:
//! [`Op::shares_barrier`]), as the PTX ISA's `exit` releases a barrier only exited threads
//! hold up. A state where neither can ever happen (threads wait at different ones) is
//! [`SimError::Barrier`], not a hang. Kernels without sync points run each thread to
//! completion in one reused register file.
//!
//! Blocks are independent and run in parallel on `worker_threads` host threads, taking
//! block indices from a shared counter; the results of race-free kernels do not depend on
//! the number of workers.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use ptx_core::eval;
use ptx_core::ir::{BinaryOp, Cmp, Imm, ShflMode, SpecialReg};

use crate::approx::{self, Approx, ApproxOp};
use crate::async_copy::{AsyncCopies, Copy};
use crate::options::SimOptions;
use crate::race::{rewrites, Conflict, Hazard, Kind, RaceTracker};
use ptx_core::softfloat::{self as float, Rnd, F32, F64};
use ptx_core::PtxType;

use crate::bits::{
    add_sat_s32, bfe, bfi, bit_op, carry_step, dot_product, find_nth_set, funnel_shift, int_lanes, lop3,
    mask_op, mul24, permute_bytes, sad, to_tf32,
};
use crate::error::SimError;
use crate::memory::{GlobalView, Memory};
use crate::program::{
    BarReduce, BlockLimit, Counter, FArith, FUn, KernelCode, MemSpace, Op, ReduxOp, VoteKind, LOCAL_WINDOW,
    R, SHARED_WINDOW, WINDOW_BYTES,
};

/// Launch geometry: grid and block dimensions and dynamic shared memory bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// Blocks in x, y, z (`%nctaid`); each at least 1.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z (`%ntid`); each at least 1, at most 1024 in all.
    pub block: [u32; 3],
    /// Shared memory added after the kernel's static `.shared` arrays, per block (static
    /// plus dynamic at most 227 KiB, the most any current GPU allows).
    pub dynamic_shared_bytes: u32,
}

/// What a launch did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchStats {
    /// Threads run (grid size times block size, at most `u64::MAX`).
    pub threads: u64,
    /// Instructions executed, summed over all threads.
    pub instructions: u64,
    /// What the kernel's `printf`s printed, block by block in grid order, in the order
    /// each block's threads ran (thread order between barriers).
    pub printed: String,
}

/// Why a thread stopped running.
enum Stop {
    Exit,
    Barrier,
    Shfl,
}

/// Why a thread stopped the launch at op `pc`.
struct Trap {
    pc: usize,
    cause: Cause,
}

/// What stopped a thread.
enum Cause {
    /// A memory access out of bounds or misaligned at this address.
    Fault(u64),
    /// The step budget ran out.
    Budget,
    /// The block's threads together ran out of the budget they share
    /// ([`SimOptions::block_step_budget`]).
    BlockBudget,
    /// A data race.
    Race(Conflict),
    /// A load or atomic of a never-written shared byte at this offset.
    Unwritten(u64),
    /// A `trap` instruction.
    Trapped,
    /// A `brx.idx` with this index, outside its list of `targets` labels.
    BranchIndex { index: u64, targets: u32 },
}

impl From<Conflict> for Cause {
    fn from(conflict: Conflict) -> Cause {
        Cause::Race(conflict)
    }
}

impl From<Hazard> for Cause {
    fn from(hazard: Hazard) -> Cause {
        match hazard {
            Hazard::Race(conflict) => Cause::Race(conflict),
            Hazard::Unwritten(offset) => Cause::Unwritten(offset),
        }
    }
}

struct Env {
    tid: [u32; 3],
    ntid: [u32; 3],
    ctaid: [u32; 3],
    nctaid: [u32; 3],
    lane: u32,
    dynamic_smem: u32,
    /// Bytes of `.shared` memory the kernel declares.
    static_smem: u32,
    /// The thread's linear index in its block (for the race checker).
    linear: u32,
    /// How `.approx` instructions compute.
    approx: Approx,
}

#[inline(always)]
fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline(always)]
fn f64_of(v: u64) -> f64 {
    f64::from_bits(v)
}

#[inline(always)]
fn cmp_ord(cmp: Cmp, ord: std::cmp::Ordering) -> bool {
    eval::ordering_satisfies(cmp, ord).unwrap_or(false)
}

/// Integer division and remainder cases `ptx_core::eval` does not fold. Division by zero
/// gives all ones for unsigned types; for signed types -1 when the dividend is
/// non-negative and 1 when it is negative (what the GPU's unsigned-divide-then-fix-sign
/// sequence produces); remainder by zero gives the dividend. `MIN / -1` wraps to `MIN`
/// and `MIN % -1` is 0.
fn int_div_special(op: BinaryOp, ty: PtxType, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (a, b) = (a & mask, b & mask);
    match (op, b) {
        (BinaryOp::Div, 0) if ty.is_signed() && eval::sign_extend(a, bits) < 0 => 1,
        (BinaryOp::Div, 0) => mask,
        (BinaryOp::Rem, 0) => a,
        (BinaryOp::Div, _) => a,
        _ => 0,
    }
}

/// `div.approx.f32` (`full` false) and `div.full.f32`. The PTX ISA defines `div.approx` as
/// `a * (1/b)`: for 2^126 < |b| < 2^128 the reciprocal underflows, and the result is a zero
/// (signed as the quotient) for finite `a` and NaN for infinite `a`. `div.full` scales its
/// operands and is within 2 ulp over the whole range.
fn div_approx_f32(full: bool, a: u64, b: u64, mode: Approx) -> u64 {
    let (x, y) = (f32_of(a), f32_of(b));
    if !full && y.is_finite() && y.abs() > 2f32.powi(126) {
        return float::canon32(x * 0f32.copysign(y));
    }
    approx::result(mode, ApproxOp::Div, a, x as f64, x as f64 / y as f64)
}

/// `neg`/`abs`/`sqrt`/`rcp` (through [`ptx_core::softfloat`], as the builder folds them)
/// and the approximate functions. The `.approx` instructions are modelled by the host's f64
/// function (error below 1 ulp of f64), rounded once to f32, or with
/// [`Approx::WorstCase`] moved by the hardware's largest error first. The hardware is
/// specified only approximately (PTX ISA): `sqrt.approx.f32` and `rsqrt.approx.f32` to a
/// relative error of about 2^-23 / 2^-22.9, `rcp.approx.f32` to 1 ulp, `ex2.approx.f32` to
/// 2 ulp, `lg2.approx.f32` to an absolute error of 2^-22.6 near 1, `sin`/`cos.approx.f32`
/// to an absolute error of 2^-20.5 on [-π, π] (worse far outside it), `tanh.approx.f32` to
/// a relative error of about 2^-11 (sm_75+), so GPU results differ
/// from the simulator's in the last bits.
fn float_unary(op: FUn, wide: bool, x: u64, mode: Approx) -> u64 {
    if wide {
        // The f64 approximations, exact here (then flushed: `.ftz`), seed the CUDA math
        // library's refinements.
        let flush64 = |v: f64| if v.is_subnormal() { 0.0f64.copysign(v) } else { v };
        return match op {
            FUn::Neg => float::neg(F64, x),
            FUn::Abs => float::abs(F64, x),
            FUn::Sqrt(m) => float::sqrt(F64, x, m),
            FUn::Rcp(m) => float::rcp(F64, x, m),
            FUn::RcpApproxF64 => float::canon64(flush64(1.0 / flush64(f64_of(x)))),
            FUn::RsqrtApproxF64 => float::canon64(approx::rsqrt_f64(f64_of(x))),
            FUn::RsqrtApproxFtzF64 => float::canon64(flush64(approx::rsqrt_f64(flush64(f64_of(x))))),
            _ => F64.nan(),
        };
    }
    let w = f32_of(x) as f64;
    let (op, exact) = match op {
        FUn::Neg => return float::neg(F32, x),
        FUn::Abs => return float::abs(F32, x),
        FUn::Sqrt(m) => return float::sqrt(F32, x, m),
        FUn::Rcp(m) => return float::rcp(F32, x, m),
        FUn::SqrtApprox => (ApproxOp::Sqrt, w.sqrt()),
        FUn::RcpApprox => (ApproxOp::Rcp, 1.0 / w),
        FUn::Rsqrt => (ApproxOp::Rsqrt, approx::rsqrt_f64(w)),
        FUn::Ex2 => (ApproxOp::Ex2, w.exp2()),
        FUn::Lg2 => (ApproxOp::Lg2, w.log2()),
        FUn::Sin => (ApproxOp::Sin, w.sin()),
        FUn::Cos => (ApproxOp::Cos, w.cos()),
        FUn::Tanh => (ApproxOp::Tanh, w.tanh()),
        FUn::RcpApproxF64 | FUn::RsqrtApproxF64 | FUn::RsqrtApproxFtzF64 => return F64.nan(),
    };
    approx::result(mode, op, x, w, exact)
}

fn float_arith(op: FArith, wide: bool, mode: Rnd, a: u64, b: u64) -> u64 {
    let f = if wide { F64 } else { F32 };
    match op {
        FArith::Add => float::add(f, a, b, mode),
        FArith::Sub => float::sub(f, a, b, mode),
        FArith::Mul => float::mul(f, a, b, mode),
        FArith::Div => float::div(f, a, b, mode),
    }
}

#[inline(always)]
fn shared_at(len: usize, addr: u64, size: u64, align: u64) -> Option<usize> {
    if addr & (align - 1) != 0 || addr > len as u64 || len as u64 - addr < size {
        None
    } else {
        Some(addr as usize)
    }
}

#[inline(always)]
fn sh_load(sh: &[u8], at: usize, size: u64) -> u64 {
    match size {
        1 => sh[at] as u64,
        2 => u16::from_le_bytes([sh[at], sh[at + 1]]) as u64,
        4 => u32::from_le_bytes([sh[at], sh[at + 1], sh[at + 2], sh[at + 3]]) as u64,
        _ => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&sh[at..at + 8]);
            u64::from_le_bytes(b)
        }
    }
}

#[inline(always)]
fn sh_store(sh: &mut [u8], at: usize, size: u64, v: u64) {
    let b = v.to_le_bytes();
    sh[at..at + size as usize].copy_from_slice(&b[..size as usize]);
}

/// Where an address of a state space lies.
enum Place {
    Global(u64),
    Shared(u64),
    Local(u64),
}

/// The memory an address of `space` refers to; a generic address by its window.
fn resolve(space: MemSpace, addr: u64) -> Place {
    match space {
        MemSpace::Global => Place::Global(addr),
        MemSpace::Shared => Place::Shared(addr),
        MemSpace::Local => Place::Local(addr),
        MemSpace::Generic if addr.wrapping_sub(LOCAL_WINDOW) < WINDOW_BYTES => {
            Place::Local(addr - LOCAL_WINDOW)
        }
        MemSpace::Generic if addr.wrapping_sub(SHARED_WINDOW) < WINDOW_BYTES => {
            Place::Shared(addr - SHARED_WINDOW)
        }
        MemSpace::Generic => Place::Global(addr),
    }
}

/// A `.local` or generic load of `cnt` values of `size` bytes at `addr` into `d` by thread
/// `thread`: `Err(None)` when the address is out of bounds, `Err(Some(_))` for a race
/// (shared memory, and global memory when checked) or a never-written shared byte.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn load_elsewhere(
    space: MemSpace,
    addr: u64,
    size: u64,
    cnt: u8,
    d: &[R; 4],
    regs: &mut [u64],
    g: &mut GlobalView<'_>,
    shared: &[u8],
    local: &[u8],
    race: &mut RaceTracker,
    (thread, pc, strong): (u32, u32, bool),
) -> Result<(), Option<Hazard>> {
    let total = size * cnt as u64;
    let n = cnt as usize;
    let kind = if strong { Kind::StrongLoad } else { Kind::Load };
    match resolve(space, addr) {
        Place::Global(a) => {
            let (m, o) = g.resolve(a, total, total).ok_or(None)?;
            race.touch_global(kind, thread, pc, a, total).map_err(|c| Some(c.into()))?;
            d[..n].iter().enumerate().for_each(|(i, r)| regs[*r as usize] = m.load(o + i as u64 * size, size))
        }
        Place::Shared(a) => {
            let at = shared_at(shared.len(), a, total, total).ok_or(None)?;
            race.touch(kind, thread, pc, at, total as usize)?;
            d[..n]
                .iter()
                .enumerate()
                .for_each(|(i, r)| regs[*r as usize] = sh_load(shared, at + i * size as usize, size))
        }
        Place::Local(a) => {
            let at = shared_at(local.len(), a, total, total).ok_or(None)?;
            d[..n]
                .iter()
                .enumerate()
                .for_each(|(i, r)| regs[*r as usize] = sh_load(local, at + i * size as usize, size))
        }
    }
    Ok(())
}

/// A `.local` or generic store of `cnt` values of `size` bytes from `s` at `addr` by
/// thread `thread`: errors as [`load_elsewhere`]'s.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn store_elsewhere(
    space: MemSpace,
    addr: u64,
    size: u64,
    cnt: u8,
    s: &[R; 4],
    regs: &[u64],
    g: &mut GlobalView<'_>,
    shared: &mut [u8],
    local: &mut [u8],
    race: &mut RaceTracker,
    (thread, pc, strong): (u32, u32, bool),
) -> Result<(), Option<Hazard>> {
    let total = size * cnt as u64;
    let values = s.iter().take(cnt as usize).map(|r| regs[*r as usize]);
    match resolve(space, addr) {
        Place::Global(a) => {
            let (m, o) = g.resolve(a, total, total).ok_or(None)?;
            if race.checks_global() {
                let held = values.clone().enumerate().map(|(i, v)| (m.load(o + i as u64 * size, size), v));
                race.touch_global(store_kind(strong, size, held), thread, pc, a, total)
                    .map_err(|c| Some(c.into()))?;
            }
            values.enumerate().for_each(|(i, v)| m.store(o + i as u64 * size, size, v))
        }
        Place::Shared(a) => {
            let at = shared_at(shared.len(), a, total, total).ok_or(None)?;
            let held =
                values.clone().enumerate().map(|(i, v)| (sh_load(shared, at + i * size as usize, size), v));
            race.touch(store_kind(strong, size, held), thread, pc, at, total as usize)?;
            values.enumerate().for_each(|(i, v)| sh_store(shared, at + i * size as usize, size, v))
        }
        Place::Local(a) => {
            let at = shared_at(local.len(), a, total, total).ok_or(None)?;
            values.enumerate().for_each(|(i, v)| sh_store(local, at + i * size as usize, size, v))
        }
    }
    Ok(())
}

/// What a store of `size`-byte values is to the race checker: a strong one, or a plain one
/// whose `held` pairs (the byte values memory holds, and those stored) say which of its
/// bytes rewrite the value they hold ([`rewrites`]).
fn store_kind(strong: bool, size: u64, held: impl Iterator<Item = (u64, u64)>) -> Kind {
    if strong {
        Kind::StrongStore
    } else {
        Kind::Store(rewrites(size, held))
    }
}

/// Lands copy `c` of thread `thread` ([`crate::async_copy`]): reads its source (a global
/// load to the race checker) and stores to shared memory (a store by the thread).
fn land(
    c: Copy,
    shared: &mut [u8],
    race: &mut RaceTracker,
    g: &mut GlobalView<'_>,
    thread: u32,
    pc: u32,
) -> Result<(), Cause> {
    let (size, read) = (c.size as usize, c.src_size as u64);
    let mut bytes = [0u8; 16];
    if read > 0 {
        let (a, o) = g.resolve(c.src, read, 1).ok_or(Cause::Fault(c.src))?;
        race.touch_global(Kind::Load, thread, pc, c.src, read).map_err(Cause::Race)?;
        for (i, b) in bytes[..read as usize].iter_mut().enumerate() {
            *b = a.load(o + i as u64, 1) as u8;
        }
    }
    let held = (0..size).map(|i| (shared[c.dst + i] as u64, bytes[i] as u64));
    race.set_store_step(None);
    race.store(thread, pc, c.dst, size, rewrites(1, held)).map_err(Cause::from)?;
    shared[c.dst..c.dst + size].copy_from_slice(&bytes[..size]);
    Ok(())
}

/// Runs one thread from `*pc` until it exits or reaches a sync point. On `Shfl` the pc
/// stays at the `shfl` (the block performs it); on `Barrier` it is past the `bar.sync`.
#[allow(clippy::too_many_arguments)]
fn run_thread(
    code: &[Op],
    regs: &mut [u64],
    pc_io: &mut u32,
    env: &Env,
    shared: &mut [u8],
    race: &mut RaceTracker,
    local: &mut [u8],
    g: &mut GlobalView<'_>,
    copies: &mut AsyncCopies,
    count: &mut u64,
    printed: &mut String,
    limit: u64,
) -> Result<Stop, Trap> {
    let mut pc = *pc_io as usize;
    let mut n: u64 = 0;
    macro_rules! r {
        ($x:expr) => {
            regs[$x as usize]
        };
    }
    // Only a backward branch can loop: the step budget is checked there.
    macro_rules! budget {
        ($t:expr) => {
            if ($t as usize) < pc && n > limit {
                *pc_io = (pc - 1) as u32;
                *count += n - 1;
                return Err(Trap { pc: pc - 1, cause: Cause::Budget });
            }
        };
    }
    macro_rules! race {
        ($check:expr) => {
            if let Err(hazard) = $check {
                *pc_io = (pc - 1) as u32;
                *count += n - 1;
                return Err(Trap { pc: pc - 1, cause: Cause::from(hazard) });
            }
        };
    }
    // Global memory's race check, when the launch asks for it (one predictable branch
    // otherwise).
    macro_rules! global_race {
        ($kind:expr, $addr:expr, $len:expr) => {
            if race.checks_global() {
                race!(race.touch_global($kind, env.linear, (pc - 1) as u32, $addr, $len));
            }
        };
    }
    macro_rules! trap {
        ($addr:expr) => {{
            *pc_io = (pc - 1) as u32;
            *count += n - 1;
            return Err(Trap { pc: pc - 1, cause: Cause::Fault($addr) });
        }};
    }
    // Lands the copies `cp.async.wait_group` waits for, or stops the thread.
    macro_rules! wait_copies {
        ($groups:expr) => {
            if let Err(cause) =
                copies.wait($groups, |c| land(c, shared, race, g, env.linear, (pc - 1) as u32))
            {
                *pc_io = (pc - 1) as u32;
                *count += n - 1;
                return Err(Trap { pc: pc - 1, cause });
            }
        };
    }
    loop {
        let op = &code[pc];
        pc += 1;
        n += 1;
        match *op {
            Op::Mov { d, a } => r!(d) = r!(a),
            Op::Special { d, which } => {
                r!(d) = match which {
                    SpecialReg::TidX => env.tid[0],
                    SpecialReg::TidY => env.tid[1],
                    SpecialReg::TidZ => env.tid[2],
                    SpecialReg::NtidX => env.ntid[0],
                    SpecialReg::NtidY => env.ntid[1],
                    SpecialReg::NtidZ => env.ntid[2],
                    SpecialReg::CtaidX => env.ctaid[0],
                    SpecialReg::CtaidY => env.ctaid[1],
                    SpecialReg::CtaidZ => env.ctaid[2],
                    SpecialReg::NctaidX => env.nctaid[0],
                    SpecialReg::NctaidY => env.nctaid[1],
                    SpecialReg::NctaidZ => env.nctaid[2],
                    SpecialReg::LaneId => env.lane,
                    SpecialReg::DynamicSmemSize => env.dynamic_smem,
                } as u64
            }
            Op::Add { d, a, b, mask } => r!(d) = r!(a).wrapping_add(r!(b)) & mask,
            Op::Sub { d, a, b, mask } => r!(d) = r!(a).wrapping_sub(r!(b)) & mask,
            Op::MulLo { d, a, b, mask } => r!(d) = r!(a).wrapping_mul(r!(b)) & mask,
            Op::Mad { d, a, b, c, mask } => r!(d) = r!(a).wrapping_mul(r!(b)).wrapping_add(r!(c)) & mask,
            Op::And { d, a, b } => r!(d) = r!(a) & r!(b),
            Op::Or { d, a, b } => r!(d) = r!(a) | r!(b),
            Op::Xor { d, a, b } => r!(d) = r!(a) ^ r!(b),
            Op::IntBin { op, ty, d, a, b } => {
                let (x, y) = (r!(a), r!(b));
                r!(d) = eval::int_binary(op, ty, x, y).unwrap_or_else(|| int_div_special(op, ty, x, y))
            }
            Op::IntUnary { op, ty, d, a } => {
                r!(d) = eval::unary(op, ty, None, Imm::new(ty, r!(a))).map(|i| i.bits).unwrap_or(0)
            }
            Op::MulWideU32 { d, a, b } => r!(d) = (r!(a) & 0xffff_ffff) * (r!(b) & 0xffff_ffff),
            Op::MulWide { ty, d, a, b } => r!(d) = eval::mul_wide(ty, r!(a), r!(b)),
            Op::SetpU { cmp, d, a, b } => r!(d) = cmp_ord(cmp, r!(a).cmp(&r!(b))) as u64,
            Op::SetpS { cmp, bits, d, a, b } => {
                let x = eval::sign_extend(r!(a), bits as u32);
                let y = eval::sign_extend(r!(b), bits as u32);
                r!(d) = cmp_ord(cmp, x.cmp(&y)) as u64
            }
            Op::SetpF32 { cmp, d, a, b } => {
                r!(d) = eval::float_compare(cmp, f32_of(r!(a)) as f64, f32_of(r!(b)) as f64) as u64
            }
            Op::SetpF64 { cmp, d, a, b } => {
                r!(d) = eval::float_compare(cmp, f64_of(r!(a)), f64_of(r!(b))) as u64
            }
            Op::Selp { d, a, b, p } => r!(d) = if r!(p) != 0 { r!(a) } else { r!(b) },
            Op::Testp { class, double, d, a } => {
                let category = if double { f64_of(r!(a)).classify() } else { f32_of(r!(a)).classify() };
                r!(d) = class.holds(category) as u64
            }
            Op::AddF32 { d, a, b } => r!(d) = float::add(F32, r!(a), r!(b), Rnd::Rn),
            Op::SubF32 { d, a, b } => r!(d) = float::sub(F32, r!(a), r!(b), Rnd::Rn),
            Op::MulF32 { d, a, b } => r!(d) = float::mul(F32, r!(a), r!(b), Rnd::Rn),
            Op::FmaF32 { d, a, b, c } => r!(d) = float::fma(F32, r!(a), r!(b), r!(c), Rnd::Rn),
            Op::AddF64 { d, a, b } => r!(d) = float::add(F64, r!(a), r!(b), Rnd::Rn),
            Op::SubF64 { d, a, b } => r!(d) = float::sub(F64, r!(a), r!(b), Rnd::Rn),
            Op::MulF64 { d, a, b } => r!(d) = float::mul(F64, r!(a), r!(b), Rnd::Rn),
            Op::FmaF64 { d, a, b, c } => r!(d) = float::fma(F64, r!(a), r!(b), r!(c), Rnd::Rn),
            Op::FArith { op, f64, mode, d, a, b } => r!(d) = float_arith(op, f64, mode, r!(a), r!(b)),
            Op::FFma { f64, mode, d, a, b, c } => {
                let f = if f64 { F64 } else { F32 };
                r!(d) = float::fma(f, r!(a), r!(b), r!(c), mode)
            }
            Op::FUnary { op, f64, d, a } => r!(d) = float_unary(op, f64, r!(a), env.approx),
            Op::FMinMax { max, nan, f64, d, a, b } => {
                let (ty, f) = if f64 { (PtxType::F64, F64) } else { (PtxType::F32, F32) };
                let op = if max { BinaryOp::Max } else { BinaryOp::Min };
                let (x, y) = (r!(a), r!(b));
                r!(d) = if nan && (float::is_nan(f, x) || float::is_nan(f, y)) {
                    f.nan()
                } else {
                    eval::binary(op, ty, None, Imm::new(ty, x), Imm::new(ty, y)).map_or(0, |i| i.bits)
                }
            }
            Op::DivApproxF32 { full, d, a, b } => r!(d) = div_approx_f32(full, r!(a), r!(b), env.approx),
            Op::CvtIntInt { d, a, src_bits, signed, dst_mask } => {
                let v = r!(a);
                r!(d) = if signed {
                    eval::sign_extend(v, src_bits as u32) as u64
                } else if src_bits >= 64 {
                    v
                } else {
                    v & ((1u64 << src_bits) - 1)
                } & dst_mask
            }
            Op::Cvt { d, a, dst, src, round, sat } => r!(d) = eval::cvt_bits(dst, src, round, sat, r!(a)),
            Op::Bra { t } => {
                budget!(t);
                pc = t as usize
            }
            Op::BraIf { p, t } => {
                if r!(p) != 0 {
                    budget!(t);
                    pc = t as usize
                }
            }
            Op::BraIfNot { p, t } => {
                if r!(p) == 0 {
                    budget!(t);
                    pc = t as usize
                }
            }
            Op::Ret => {
                *pc_io = pc as u32;
                *count += n;
                return Ok(Stop::Exit);
            }
            Op::Trap | Op::BrxOutside { .. } => {
                *pc_io = (pc - 1) as u32;
                *count += n;
                let cause = match *op {
                    Op::BrxOutside { index, targets } => Cause::BranchIndex { index: r!(index), targets },
                    _ => Cause::Trapped,
                };
                return Err(Trap { pc: pc - 1, cause });
            }
            Op::CpAsync { dst, doff, src, soff, size, src_size } => {
                let d = r!(dst).wrapping_add(doff as i64 as u64);
                let s = r!(src).wrapping_add(soff as i64 as u64);
                let read = r!(src_size);
                let Some(at) = shared_at(shared.len(), d, size as u64, size as u64) else { trap!(d) };
                // Both addresses aligned to the copy's size; the source readable for the
                // bytes read (none: any address), which may not exceed the copy.
                if read > size as u64
                    || (read > 0 && (!s.is_multiple_of(size as u64) || g.resolve(s, read, 1).is_none()))
                {
                    trap!(s)
                }
                copies.issue(at, s, size, read as u8);
            }
            Op::CpAsyncCommit => copies.commit(),
            Op::CpAsyncWait { n: groups } => wait_copies!(groups),
            Op::CpAsyncWaitAll => {
                copies.commit();
                wait_copies!(0)
            }
            Op::LdG32 { d, base, off } => {
                let addr = r!(base).wrapping_add(off as i64 as u64);
                match g.resolve(addr, 4, 4) {
                    Some((a, o)) => {
                        global_race!(Kind::Load, addr, 4);
                        r!(d) = a.load(o, 4)
                    }
                    None => trap!(addr),
                }
            }
            Op::StG32 { s, base, off } => {
                let addr = r!(base).wrapping_add(off as i64 as u64);
                race.set_store_step(Some(n));
                match g.resolve(addr, 4, 4) {
                    Some((a, o)) => {
                        global_race!(
                            Kind::Store(rewrites(4, std::iter::once((a.load(o, 4), r!(s))))),
                            addr,
                            4
                        );
                        a.store(o, 4, r!(s))
                    }
                    None => trap!(addr),
                }
            }
            Op::Ld { space, size, n: cnt, strong, d, base, off } => {
                let addr = r!(base).wrapping_add(off as i64 as u64);
                let size = size as u64;
                let total = size * cnt as u64;
                // Strong loads, rarer, take the general path.
                match if strong { MemSpace::Generic } else { space } {
                    MemSpace::Global => match g.resolve(addr, total, total) {
                        Some((a, o)) => {
                            global_race!(Kind::Load, addr, total);
                            for (i, dr) in d.iter().take(cnt as usize).enumerate() {
                                r!(*dr) = a.load(o + i as u64 * size, size);
                            }
                        }
                        None => trap!(addr),
                    },
                    MemSpace::Shared => match shared_at(shared.len(), addr, total, total) {
                        Some(at) => {
                            race!(race.load(env.linear, (pc - 1) as u32, at, total as usize));
                            for (i, dr) in d.iter().take(cnt as usize).enumerate() {
                                r!(*dr) = sh_load(shared, at + i * size as usize, size);
                            }
                        }
                        None => trap!(addr),
                    },
                    // Local and generic accesses are rarer: kept out of the hot loop.
                    _ => match load_elsewhere(
                        space,
                        addr,
                        size,
                        cnt,
                        &d,
                        regs,
                        g,
                        shared,
                        local,
                        race,
                        (env.linear, (pc - 1) as u32, strong),
                    ) {
                        Ok(()) => {}
                        Err(None) => trap!(addr),
                        Err(Some(hazard)) => race!(Err::<(), _>(hazard)),
                    },
                }
            }
            Op::St { space, size, n: cnt, strong, s, base, off } => {
                let addr = r!(base).wrapping_add(off as i64 as u64);
                race.set_store_step(Some(n));
                let size = size as u64;
                let total = size * cnt as u64;
                // Strong stores, rarer, take the general path.
                match if strong { MemSpace::Generic } else { space } {
                    MemSpace::Global => match g.resolve(addr, total, total) {
                        Some((a, o)) => {
                            global_race!(
                                Kind::Store(rewrites(
                                    size,
                                    s.iter()
                                        .take(cnt as usize)
                                        .enumerate()
                                        .map(|(i, sr)| (a.load(o + i as u64 * size, size), r!(*sr)))
                                )),
                                addr,
                                total
                            );
                            for (i, sr) in s.iter().take(cnt as usize).enumerate() {
                                a.store(o + i as u64 * size, size, r!(*sr));
                            }
                        }
                        None => trap!(addr),
                    },
                    MemSpace::Shared => match shared_at(shared.len(), addr, total, total) {
                        Some(at) => {
                            let held = s
                                .iter()
                                .take(cnt as usize)
                                .enumerate()
                                .map(|(i, sr)| (sh_load(shared, at + i * size as usize, size), r!(*sr)));
                            race!(race.store(
                                env.linear,
                                (pc - 1) as u32,
                                at,
                                total as usize,
                                rewrites(size, held)
                            ));
                            for (i, sr) in s.iter().take(cnt as usize).enumerate() {
                                sh_store(shared, at + i * size as usize, size, r!(*sr));
                            }
                        }
                        None => trap!(addr),
                    },
                    _ => match store_elsewhere(
                        space,
                        addr,
                        size,
                        cnt,
                        &s,
                        regs,
                        g,
                        shared,
                        local,
                        race,
                        (env.linear, (pc - 1) as u32, strong),
                    ) {
                        Ok(()) => {}
                        Err(None) => trap!(addr),
                        Err(Some(hazard)) => race!(Err::<(), _>(hazard)),
                    },
                }
            }
            Op::Bar { .. } | Op::BarRed { .. } => {
                *pc_io = pc as u32;
                *count += n;
                return Ok(Stop::Barrier);
            }
            Op::Atom { space, kind, d, base, off, a, b } => {
                let addr = r!(base).wrapping_add(off as i64 as u64);
                let size = kind.bytes();
                let (x, y) = (r!(a), r!(b));
                match resolve(space, addr) {
                    Place::Global(at) => match g.resolve(at, size, size) {
                        Some((m, o)) => {
                            global_race!(Kind::Atomic, at, size);
                            r!(d) = m.atomic(o, kind, x, y, g.locks())
                        }
                        None => trap!(addr),
                    },
                    Place::Shared(at) => match shared_at(shared.len(), at, size, size) {
                        Some(at) => {
                            race!(race.atomic(
                                env.linear,
                                (pc - 1) as u32,
                                at,
                                size as usize,
                                kind.reads_old()
                            ));
                            let old = sh_load(shared, at, size);
                            sh_store(shared, at, size, kind.apply(old, x, y));
                            r!(d) = old;
                        }
                        None => trap!(addr),
                    },
                    // PTX has no atomics on local memory.
                    Place::Local(_) => trap!(addr),
                }
            }
            Op::Printf { fmt, args, ret } => {
                let mut reader = GenericReader { g, shared, local, at: r!(args), start: r!(args) };
                let text = crate::printf::Args::string(&mut reader, r!(fmt)).unwrap_or_default();
                let (out, used) = crate::printf::format(&text, &mut reader);
                printed.push_str(&out);
                if let Some(ret) = ret {
                    r!(ret) = used as u64;
                }
            }
            Op::Bits { op, wide, d, a } => r!(d) = bit_op(op, wide, r!(a)),
            Op::Shf { left, clamp, d, a, b, c } => r!(d) = funnel_shift(left, clamp, r!(a), r!(b), r!(c)),
            Op::Prmt { mode, d, a, b, c } => r!(d) = permute_bytes(mode, r!(a), r!(b), r!(c)),
            Op::Carry { sub, wide, carry_in, carry_out, d, a, b, cc } => {
                // Without a carry in, an addition adds 0 and a subtraction 1 (`a + !b + 1`).
                let first = if sub { 1 } else { 0 };
                let (v, flag) = carry_step(sub, wide, r!(a), r!(b), if carry_in { r!(cc) } else { first });
                r!(d) = v;
                if carry_out {
                    r!(cc) = flag;
                }
            }
            Op::AddSatS32 { sub, d, a, b } => r!(d) = add_sat_s32(sub, r!(a), r!(b)),
            Op::IntLanes { op, lane_bits, signed, relu, d, a, b } => {
                r!(d) = int_lanes(op, lane_bits, signed, relu, r!(a), r!(b))
            }
            Op::VideoSimd { form, d, a, b, c } => {
                r!(d) = crate::video::video_simd(&form, r!(a), r!(b), r!(c))
            }
            Op::VideoScalar { form, d, a, b, c } => {
                r!(d) = crate::video::video_scalar(&form, r!(a), r!(b), r!(c))
            }
            Op::Lop3 { lut, d, a, b, c } => r!(d) = lop3(lut, r!(a), r!(b), r!(c)),
            Op::Mul24 { hi, signed, d, a, b } => r!(d) = mul24(hi, signed, r!(a), r!(b)),
            Op::Mask { op, clamp, d, a, b } => r!(d) = mask_op(op, clamp, r!(a), r!(b)),
            Op::Fns { d, mask, base, offset } => r!(d) = find_nth_set(r!(mask), r!(base), r!(offset)),
            Op::Dot { pairs, high, a_signed, b_signed, d, a, b, c } => {
                r!(d) = dot_product(pairs as u32, high, a_signed, b_signed, r!(a), r!(b), r!(c))
            }
            Op::Tf32 { mode, d, a } => r!(d) = to_tf32(r!(a), mode),
            Op::Sad { signed, bits, d, a, b, c } => r!(d) = sad(signed, bits as u32, r!(a), r!(b), r!(c)),
            Op::Counter { which, d } => r!(d) = counter(which, env, *count + n),
            Op::Half { op, form, d, a, b, c } => r!(d) = crate::half::arith(op, form, r!(a), r!(b), r!(c)),
            Op::SetHalf { cmp, form, float, d, a, b } => {
                r!(d) = crate::half::set(cmp, form, float, r!(a), r!(b))
            }
            Op::SetpHalf { cmp, form, d, hi, a, b } => {
                let (lo_true, hi_true) = crate::half::compare(cmp, form, r!(a), r!(b));
                r!(d) = lo_true as u64;
                if let Some(hi) = hi {
                    r!(hi) = hi_true as u64;
                }
            }
            Op::Bfe { wide, signed, d, a, pos, len } => r!(d) = bfe(wide, signed, r!(a), r!(pos), r!(len)),
            Op::Bfi { wide, d, a, b, pos, len } => r!(d) = bfi(wide, r!(a), r!(b), r!(pos), r!(len)),
            Op::SatFloat { f64, d, a } => {
                let v = r!(a);
                // An f32 is exact in f64, and so is its saturation back in f32.
                r!(d) = if f64 {
                    saturate(f64_of(v)).to_bits()
                } else {
                    (saturate(f32_of(v) as f64) as f32).to_bits() as u64
                };
            }
            Op::FlushF32 { d, a } => {
                let v = r!(a);
                r!(d) = if v & 0x7f80_0000 == 0 { v & 0x8000_0000 } else { v }
            }
            Op::Shfl { .. }
            | Op::Vote { .. }
            | Op::WarpSync { .. }
            | Op::ActiveMask { .. }
            | Op::Match { .. }
            | Op::Redux { .. }
            | Op::Elect { .. }
            | Op::LdMatrix { .. }
            | Op::Mma { .. } => {
                *pc_io = (pc - 1) as u32;
                *count += n - 1;
                return Ok(Stop::Shfl);
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Ready,
    Bar(u32),
    Shfl,
    Done,
}

/// Instructions a thread runs before the other threads of its block get their turn: long
/// enough that a thread that merely loops runs in one piece, short enough that a thread
/// spinning until a later thread stores a flag lets that thread run soon (on a GPU, the
/// warps of a block, and since Volta the threads of a warp, make progress independently).
const SLICE: u64 = 1 << 14;

/// A worker's reusable per-block state.
struct BlockRunner<'k> {
    k: &'k KernelCode,
    template: &'k [u64],
    geo: Geometry,
    shared_bytes: usize,
    has_sync: bool,
    regs: Vec<u64>,
    pcs: Vec<u32>,
    status: Vec<Status>,
    shared: Vec<u8>,
    /// Who touched which shared byte since the last barrier.
    race: RaceTracker,
    /// Every thread's `.local` memory, `k.local_bytes` each.
    local: Vec<u8>,
    /// The current block's `printf` output.
    printed: String,
    /// Each thread's `cp.async` copies in flight (one, reused, when threads run one at a
    /// time).
    copies: Vec<AsyncCopies>,
    /// The launch's options (the step budget per thread among them), and what each thread
    /// of the block has run so far.
    options: SimOptions,
    spent: Vec<u64>,
}

fn split3(i: u64, dims: [u32; 3]) -> [u32; 3] {
    let (x, y) = (dims[0] as u64, dims[1] as u64);
    [(i % x) as u32, ((i / x) % y) as u32, (i / (x * y)) as u32]
}

impl<'k> BlockRunner<'k> {
    fn env(&self, t: usize, ctaid: [u32; 3]) -> Env {
        Env {
            tid: split3(t as u64, self.geo.block),
            ntid: self.geo.block,
            ctaid,
            nctaid: self.geo.grid,
            lane: (t % 32) as u32,
            dynamic_smem: self.geo.dynamic_shared_bytes,
            static_smem: self.k.static_shared,
            linear: t as u32,
            approx: self.options.approx,
        }
    }

    fn fault(&self, ctaid: [u32; 3], t: usize, trap: Trap) -> SimError {
        let kernel = self.k.name.clone();
        let thread = split3(t as u64, self.geo.block);
        let instruction = self.k.text.get(trap.pc).cloned().unwrap_or_default();
        let source = self.k.sources.get(trap.pc).cloned().flatten();
        match trap.cause {
            Cause::Race(conflict) => SimError::Race(Box::new(crate::error::DataRace {
                kernel,
                block: ctaid,
                thread,
                other: conflict.other.map(|o| split3(u64::from(o), self.geo.block)),
                offset: conflict.offset,
                stored: conflict.stored,
                global: conflict.global,
                instruction,
                source,
                other_access: conflict.earlier.kind,
                other_instruction: self.k.text.get(conflict.earlier.pc as usize).cloned().unwrap_or_default(),
                other_source: self.k.sources.get(conflict.earlier.pc as usize).cloned().flatten(),
            })),
            Cause::Budget | Cause::BlockBudget => SimError::StepBudget {
                kernel,
                block: ctaid,
                thread,
                budget: self.options.step_budget,
                block_budget: matches!(trap.cause, Cause::BlockBudget).then(|| self.block_budget()),
                instruction: match (instruction.is_empty(), source) {
                    (true, _) => "a branch".to_string(),
                    (false, Some(source)) => format!("`{instruction}` ({source})"),
                    (false, None) => format!("`{instruction}`"),
                },
            },
            Cause::Fault(address) => {
                SimError::Fault { kernel, block: ctaid, thread, address, instruction, source }
            }
            Cause::Unwritten(offset) => {
                SimError::UninitializedShared { kernel, block: ctaid, thread, offset, instruction, source }
            }
            Cause::Trapped => SimError::Trap { kernel, block: ctaid, thread, instruction, source },
            Cause::BranchIndex { index, targets } => {
                let instruction = format!(
                    "{instruction} (index {index}, outside its list of {targets} targets: undefined in the PTX ISA)"
                );
                SimError::Trap { kernel, block: ctaid, thread, instruction, source }
            }
        }
    }

    fn barrier_error(&self, ctaid: [u32; 3], message: String) -> SimError {
        SimError::Barrier {
            kernel: self.k.name.clone(),
            message: format!("block ({}, {}, {}): {message}", ctaid[0], ctaid[1], ctaid[2]),
        }
    }

    /// Runs block `ctaid`; returns the instructions executed.
    ///
    /// A kernel without barriers or warp collectives runs its threads one at a time, each to
    /// its end, in one register file. A thread that runs longer than [`SLICE`] may be waiting
    /// for a later thread (a spin-wait on a flag or a counter, which a GPU's independent
    /// thread scheduling lets pass), so the block then goes on as a kernel with barriers
    /// does: every thread that has not finished gets its own registers and they take turns.
    fn run_block(&mut self, ctaid: [u32; 3], g: &mut GlobalView<'_>) -> Result<u64, SimError> {
        let nt = self.geo.block.iter().map(|&d| d as usize).product::<usize>();
        let mut count = 0u64;
        self.shared.clear();
        self.shared.resize(self.shared_bytes, 0);
        self.race.reset(self.shared_bytes, nt, &self.options);
        self.copies.resize(if self.has_sync { nt } else { 1 }, AsyncCopies::default());
        self.copies.iter_mut().for_each(AsyncCopies::clear);
        let part_way = if self.has_sync {
            None
        } else {
            match self.run_one_at_a_time(ctaid, g, nt, &mut count)? {
                Some(t) => Some(t),
                None => return Ok(count),
            }
        };
        self.take_turns(ctaid, g, nt, part_way, &mut count)?;
        Ok(count)
    }

    /// Runs the threads one after another in one register file (and one `.local` buffer),
    /// each to its end. Returns `Some(t)` when thread `t` outran its [`SLICE`]: its state is
    /// still in the shared register file, local buffer and first copy list, and threads
    /// `t + 1..` have not started.
    fn run_one_at_a_time(
        &mut self,
        ctaid: [u32; 3],
        g: &mut GlobalView<'_>,
        nt: usize,
        count: &mut u64,
    ) -> Result<Option<usize>, SimError> {
        let k: &'k KernelCode = self.k;
        let template: &'k [u64] = self.template;
        let lb = k.local_bytes as usize;
        self.local.clear();
        self.local.resize(lb, 0);
        self.regs.resize(template.len(), 0);
        let limit = self.options.step_budget.min(SLICE);
        for t in 0..nt {
            self.regs.copy_from_slice(template);
            self.copies[0].clear();
            let env = self.env(t, ctaid);
            let mut pc = 0u32;
            // One thread at a time: they share one local buffer, cleared for each (a
            // call into memset even for none, which costs as much as a short thread).
            if lb > 0 {
                self.local.fill(0);
            }
            self.race.resume(0);
            let before = *count;
            let result = run_thread(
                &k.code,
                &mut self.regs,
                &mut pc,
                &env,
                &mut self.shared,
                &mut self.race,
                &mut self.local,
                g,
                &mut self.copies[0],
                count,
                &mut self.printed,
                limit,
            );
            match result {
                Ok(_) => {}
                Err(trap) if matches!(trap.cause, Cause::Budget) && limit < self.options.step_budget => {
                    self.pcs.clear();
                    self.pcs.resize(nt, 0);
                    self.pcs[t] = pc;
                    self.spent.clear();
                    self.spent.resize(nt, 0);
                    self.spent[t] = *count - before;
                    return Ok(Some(t));
                }
                Err(trap) => return Err(self.fault(ctaid, t, trap)),
            }
        }
        Ok(None)
    }

    /// Runs the threads of the block in turns until they all finish: each runs until it
    /// reaches a barrier or a warp collective, finishes, or has run [`SLICE`] instructions,
    /// and they meet at barriers and collectives. With `part_way` `Some(t)`, the threads
    /// before `t` have finished and thread `t` is part way: [`Self::run_one_at_a_time`] left
    /// its state in the first register file, local buffer and copy list.
    fn take_turns(
        &mut self,
        ctaid: [u32; 3],
        g: &mut GlobalView<'_>,
        nt: usize,
        part_way: Option<usize>,
        count: &mut u64,
    ) -> Result<(), SimError> {
        let ns = self.template.len();
        let k: &'k KernelCode = self.k;
        let code = &k.code[..];
        let lb = k.local_bytes as usize;
        let first = part_way.unwrap_or(0);
        if part_way.is_none() {
            self.local.clear();
            self.local.resize(lb * nt, 0);
            self.regs.resize(ns * nt, 0);
            self.pcs.clear();
            self.pcs.resize(nt, 0);
            self.spent.clear();
            self.spent.resize(nt, 0);
        } else {
            // Thread `first`'s state moves to its own slots; the threads after it start.
            self.local.resize(lb * nt, 0);
            self.local.copy_within(0..lb, first * lb);
            self.local[first * lb + lb..].fill(0);
            self.regs.resize(ns * nt, 0);
            self.regs.copy_within(0..ns, first * ns);
            let copies = std::mem::take(&mut self.copies[0]);
            self.copies.resize(nt, AsyncCopies::default());
            self.copies[first] = copies;
        }
        // (A kernel may have no registers at all.)
        let fresh = part_way.map_or(0, |t| t + 1);
        for chunk in self.regs.chunks_exact_mut(ns.max(1)).take(if ns == 0 { 0 } else { nt }).skip(fresh) {
            chunk.copy_from_slice(self.template);
        }
        self.status.clear();
        self.status.resize(nt, Status::Ready);
        self.status[..first].fill(Status::Done);
        loop {
            for t in 0..nt {
                if self.status[t] != Status::Ready {
                    continue;
                }
                let env = self.env(t, ctaid);
                let regs = &mut self.regs[t * ns..(t + 1) * ns];
                let local = &mut self.local[t * lb..(t + 1) * lb];
                // What this thread may still run: the budget less what it ran before, and
                // at most a slice before the others get their turn.
                let before = *count;
                let left = self.options.step_budget.saturating_sub(self.spent[t]);
                let limit = left.min(SLICE);
                self.race.resume(self.spent[t]);
                let result = run_thread(
                    code,
                    regs,
                    &mut self.pcs[t],
                    &env,
                    &mut self.shared,
                    &mut self.race,
                    local,
                    g,
                    &mut self.copies[t],
                    count,
                    &mut self.printed,
                    limit,
                );
                self.spent[t] += *count - before;
                // Many threads each within its budget, spinning on a flag none of them sets
                // or looping over a barrier, would take the block's thread count times as
                // long: the block's threads share a budget too (checked for a thread that goes
                // on running).
                let goes_on = match &result {
                    Ok(stop) => !matches!(stop, Stop::Exit),
                    Err(trap) => matches!(trap.cause, Cause::Budget),
                };
                let over = if self.spent[t] > self.options.step_budget && result.is_ok() {
                    Some(Cause::Budget)
                } else if *count > self.block_budget() && goes_on {
                    Some(Cause::BlockBudget)
                } else {
                    None
                };
                if let Some(cause) = over {
                    let pc = self.pcs[t] as usize;
                    return Err(self.fault(ctaid, t, Trap { pc: pc.saturating_sub(1), cause }));
                }
                match result {
                    Ok(Stop::Exit) => self.status[t] = Status::Done,
                    Ok(Stop::Shfl) => self.status[t] = Status::Shfl,
                    Ok(Stop::Barrier) => {
                        let id = code[self.pcs[t] as usize - 1].bar_site().map_or(0, |at| at.id);
                        self.status[t] = Status::Bar(id)
                    }
                    // Its slice is over: the others run, and it goes on at the branch.
                    Err(trap) if matches!(trap.cause, Cause::Budget) && limit < left => {}
                    Err(trap) => return Err(self.fault(ctaid, t, trap)),
                }
            }
            let mut progressed = self.status.contains(&Status::Ready);
            for w in 0..nt.div_ceil(32) {
                if self.shuffle_warp(w, nt, ns, ctaid, count)? {
                    progressed = true;
                }
            }
            if progressed {
                continue;
            }
            let done = self.status.iter().filter(|s| **s == Status::Done).count();
            if done == nt {
                return Ok(());
            }
            let first_bar = self.status.iter().find_map(|s| match s {
                Status::Bar(id) => Some(*id),
                _ => None,
            });
            // The barrier completes when every thread that has not exited waits at it: as
            // the PTX ISA's `exit` has it, exited threads that are all it waits for release it.
            let waiting: Vec<usize> = (0..nt).filter(|&t| self.status[t] != Status::Done).collect();
            if waiting.iter().all(|&t| Some(self.status[t]) == first_bar.map(Status::Bar)) {
                self.check_same_barrier(ctaid, &waiting)?;
                self.reduce_at_barrier(&waiting, ns);
                for &t in &waiting {
                    self.status[t] = Status::Ready;
                }
                self.race.barrier();
                continue;
            }
            return Err(self.deadlock(ctaid, nt, done));
        }
    }

    /// The instructions a block's threads may run together: the options' block budget, or
    /// one thread's where that is larger (a single thread may always run its own).
    fn block_budget(&self) -> u64 {
        self.options.block_step_budget.max(self.options.step_budget)
    }

    /// The barrier op thread `t` waits at (its pc is past it).
    fn waiting_at(&self, t: usize) -> Op {
        self.k.code[self.pcs[t] as usize - 1]
    }

    /// Where every thread of the block that has not exited (`waiting`, at least one) waits
    /// at one barrier: an error unless they may pass it together ([`Op::shares_barrier`]),
    /// naming each instruction they wait at (its PTX line and source position), how many
    /// threads wait there, and the first of them.
    fn check_same_barrier(&self, ctaid: [u32; 3], waiting: &[usize]) -> Result<(), SimError> {
        let first = self.waiting_at(waiting[0]);
        if waiting.iter().all(|&t| first.shares_barrier(&self.waiting_at(t))) {
            return Ok(());
        }
        let mut lines: Vec<u32> = Vec::new();
        let mut parts = Vec::new();
        for &t in waiting {
            let at = self.pcs[t] as usize - 1;
            let Some(site) = self.k.code[at].bar_site() else { continue };
            if lines.contains(&site.line) {
                continue;
            }
            lines.push(site.line);
            let count = waiting
                .iter()
                .filter(|&&u| self.waiting_at(u).bar_site().is_some_and(|s| s.line == site.line))
                .count();
            let tid = split3(t as u64, self.geo.block);
            let source = self.k.sources[at].as_ref().map_or(String::new(), |s| format!(", {s}"));
            parts.push(format!(
                "{count} thread(s) (first: thread ({}, {}, {})) at `{}` (PTX line {}{source})",
                tid[0], tid[1], tid[2], self.k.text[at], site.line
            ));
        }
        let id = first.bar_site().map_or(0, |s| s.id);
        let why = if waiting.iter().any(|&t| self.waiting_at(t).bar_site().is_some_and(|s| s.aligned)) {
            "`bar.sync` (`sync_threads()`, `__syncthreads()`), `bar.red` and `barrier.sync.aligned` are \
             aligned barriers: the PTX ISA requires every thread of the block to execute the same one \
             and leaves it undefined otherwise; call the barrier once, where every thread reaches \
             it (after the `if`, not in both of its arms)"
        } else {
            "the PTX ISA calls `barrier.red` intermixed with `barrier.sync` (or with another \
             reduction) on one barrier unpredictable; use one form for every thread"
        };
        Err(self.barrier_error(
            ctaid,
            format!(
                "the threads reach barrier {id} through different instructions: {}. {why}",
                parts.join(" and ")
            ),
        ))
    }

    /// Where every thread of the block that has not exited (`waiting`) waits at a `bar.red`,
    /// the reduction of their predicates (each negated as its own instruction says) into
    /// each one's destination.
    fn reduce_at_barrier(&mut self, waiting: &[usize], ns: usize) {
        let Op::BarRed { kind, .. } = self.waiting_at(waiting[0]) else {
            return;
        };
        let mut count = 0u64;
        for &t in waiting {
            if let Op::BarRed { a, negate, .. } = self.waiting_at(t) {
                count += ((self.regs[t * ns + a as usize] != 0) != negate) as u64;
            }
        }
        let value = match kind {
            BarReduce::Popc => count,
            BarReduce::And => (count == waiting.len() as u64) as u64,
            BarReduce::Or => (count > 0) as u64,
        };
        for &t in waiting {
            if let Op::BarRed { d, .. } = self.waiting_at(t) {
                self.regs[t * ns + d as usize] = value;
            }
        }
    }

    fn deadlock(&self, ctaid: [u32; 3], nt: usize, done: usize) -> SimError {
        let mut parts = Vec::new();
        let mut seen: Vec<usize> = Vec::new();
        for t in 0..nt {
            let at = match self.status[t] {
                Status::Bar(_) => self.pcs[t] as usize - 1,
                Status::Shfl => self.pcs[t] as usize,
                _ => continue,
            };
            if seen.contains(&at) {
                continue;
            }
            seen.push(at);
            let waiting = (0..nt)
                .filter(|&u| match self.status[u] {
                    Status::Bar(_) => self.pcs[u] as usize - 1 == at,
                    Status::Shfl => self.pcs[u] as usize == at,
                    _ => false,
                })
                .count();
            let tid = split3(t as u64, self.geo.block);
            // The Rust (or CUDA C) line of the barrier or collective, where `.loc` gives one.
            let source = self.k.sources[at].as_ref().map_or(String::new(), |s| format!(" ({s})"));
            parts.push(format!(
                "{waiting} thread(s) wait at `{}`{source} (first: thread ({}, {}, {}))",
                self.k.text[at], tid[0], tid[1], tid[2]
            ));
        }
        let mut msg = parts.join("; ");
        if (0..nt).any(|t| self.status[t] == Status::Shfl && self.k.code[self.pcs[t] as usize].is_tensor()) {
            msg.push_str(
                "; `ldmatrix` and `mma` are `.aligned`: all 32 lanes of a warp must execute the same \
                 instruction together",
            );
        }
        msg.push_str(
            "; the threads wait at different sync points and can never all meet: every thread of the \
             block that has not exited must reach each bar.sync (and every lane of a warp each \
             shfl.sync) the same number of times, so keep barriers out of loops whose trip count \
             differs between threads",
        );
        if done > 0 {
            msg.push_str(&format!(" ({done} thread(s) have exited, which hold up no barrier)"));
        }
        self.barrier_error(ctaid, msg)
    }

    /// Performs the `shfl.sync`s of warp `w` that can happen, with the PTX ISA's lane
    /// arithmetic (`b[4:0]`, clamp and segment mask from `c`). A lane waiting at a shuffle
    /// goes ahead once every lane of its `membermask` has exited or waits at the same
    /// instruction (so disjoint masks in divergent code shuffle independently). A source
    /// lane that is out of range, outside `membermask`, beyond the block or already exited
    /// yields the thread's own value.
    fn shuffle_warp(
        &mut self,
        w: usize,
        nt: usize,
        ns: usize,
        ctaid: [u32; 3],
        count: &mut u64,
    ) -> Result<bool, SimError> {
        let (lo, hi) = (w * 32, (w * 32 + 32).min(nt));
        // Lanes that exited or do not exist never hold a shuffle up.
        let mut gone: u32 = if hi - lo == 32 { 0 } else { u32::MAX << (hi - lo) };
        let mut waiting: u32 = 0;
        for t in lo..hi {
            match self.status[t] {
                Status::Done => gone |= 1 << (t - lo),
                Status::Shfl => waiting |= 1 << (t - lo),
                _ => {}
            }
        }
        if waiting == 0 {
            return Ok(false);
        }
        // `ldmatrix` and `mma` wait for the whole warp at one instruction; the lanes there
        // take no part in the other collectives below.
        let tensor = (lo..hi)
            .filter(|&t| waiting >> (t - lo) & 1 == 1 && self.k.code[self.pcs[t] as usize].is_tensor())
            .fold(0u32, |m, t| m | 1 << (t - lo));
        if tensor != 0 {
            if self.tensor_warp(lo, hi, tensor, gone, ns, ctaid, count)? {
                return Ok(true);
            }
            waiting &= !tensor;
            if waiting == 0 {
                return Ok(false);
            }
        }
        // Lanes waiting at a collective that meets each lane's, then the lanes that may go
        // ahead.
        let mut ready: u32 = 0;
        let mut same = [0u32; 32];
        for t in lo..hi {
            if waiting >> (t - lo) & 1 == 0 {
                continue;
            }
            let pc = self.pcs[t];
            let mut at_pc = 0u32;
            for u in lo..hi {
                if waiting >> (u - lo) & 1 == 1
                    && (self.pcs[u] == pc
                        || self.k.code[self.pcs[u] as usize].meets(&self.k.code[pc as usize]))
                {
                    at_pc |= 1 << (u - lo);
                }
            }
            same[t - lo] = at_pc;
            // `activemask` waits for nobody: it takes the lanes that are there.
            let members = match self.k.code[pc as usize].collective_mask() {
                Some(mask) => self.regs[t * ns + mask as usize] as u32,
                None => 0,
            };
            if self.k.code[pc as usize].collective_mask().is_some() && members >> (t - lo) & 1 == 0 {
                let (thread, text) = (split3(t as u64, self.geo.block), &self.k.text[pc as usize]);
                return Err(self.barrier_error(
                    ctaid,
                    format!(
                        "thread {thread:?} runs `{text}` with member mask {members:#010x}, which leaves out its own \
                         lane {}: undefined in the PTX ISA (every lane that runs it must be a member)",
                        t - lo
                    ),
                ));
            }
            if members & !gone & !at_pc == 0 {
                ready |= 1 << (t - lo);
            }
        }
        // `activemask` goes last: while another collective of the warp can complete, its lanes
        // go on and may reach this `activemask` too (on a GPU the warp reconverges after a
        // branch before it reads the mask), so it reports only the lanes that reached it by
        // the time nothing else in the warp can move.
        let at_mask = (lo..hi)
            .filter(|&t| matches!(self.k.code[self.pcs[t] as usize], Op::ActiveMask { .. }))
            .fold(0u32, |m, t| m | 1 << (t - lo));
        if ready & !at_mask != 0 {
            ready &= !at_mask;
        } else if ready != 0 {
            // Only `activemask` lanes can move: lanes at one that lanes at another can still
            // reach (and not the other way round: those are behind, e.g. still in a loop the
            // first left) wait for them, as the GPU reconverges the warp before they go on.
            let mut pcs: Vec<u32> =
                (lo..hi).filter(|&t| ready >> (t - lo) & 1 == 1).map(|t| self.pcs[t]).collect();
            pcs.sort_unstable();
            pcs.dedup();
            if pcs.len() > 1 {
                let code = &self.k.code;
                for t in lo..hi {
                    let p = self.pcs[t];
                    if ready >> (t - lo) & 1 == 1
                        && pcs.iter().any(|&q| q != p && reaches(code, q, p) && !reaches(code, p, q))
                    {
                        ready &= !(1 << (t - lo));
                    }
                }
            }
        }
        if ready == 0 {
            return Ok(false);
        }
        // Each lane's own value of its collective (its instruction's source register; a
        // vote's predicate as its instruction negates it or not).
        let mut own = [0u64; 32];
        for t in (lo..hi).filter(|t| waiting >> (t - lo) & 1 == 1) {
            let op = &self.k.code[self.pcs[t] as usize];
            if let Some(r) = op.collective_source() {
                let v = self.regs[t * ns + r as usize];
                own[t - lo] = match op {
                    Op::Vote { negate, .. } => ((v != 0) != *negate) as u64,
                    _ => v,
                };
            }
        }
        let mut vals = [0u64; 32];
        let mut valid = [false; 32];
        for t in lo..hi {
            if ready >> (t - lo) & 1 == 0 {
                continue;
            }
            match self.k.code[self.pcs[t] as usize] {
                Op::ActiveMask { .. } => {
                    vals[t - lo] = same[t - lo] as u64;
                    continue;
                }
                Op::Match { all, a, mask, .. } => {
                    let members = self.regs[t * ns + mask as usize] as u32 & same[t - lo];
                    let mine = self.regs[t * ns + a as usize];
                    let equal = (0..32)
                        .filter(|&u| members >> u & 1 == 1 && own[u] == mine)
                        .fold(0u32, |m, u| m | 1 << u);
                    (vals[t - lo], valid[t - lo]) = match all {
                        false => (equal as u64, false),
                        true if equal == members => (members as u64, true),
                        true => (0, false),
                    };
                    continue;
                }
                Op::Redux { op, signed, mask, .. } => {
                    let members = self.regs[t * ns + mask as usize] as u32 & same[t - lo];
                    let values = (0..32).filter(|u| members >> u & 1 == 1).map(|u| own[u] as u32);
                    vals[t - lo] = redux(op, signed, values) as u64;
                    continue;
                }
                Op::Elect { mask, .. } => {
                    let members = self.regs[t * ns + mask as usize] as u32 & same[t - lo];
                    let leader = members.trailing_zeros() as u64;
                    (vals[t - lo], valid[t - lo]) = (leader, leader == (t - lo) as u64);
                    continue;
                }
                _ => {}
            }
            if let Op::Vote { kind, mask, .. } = self.k.code[self.pcs[t] as usize] {
                // Every member waits at a vote of this kind (or has exited): vote over them,
                // each with its own predicate (negated where its instruction says `!p`).
                let members = self.regs[t * ns + mask as usize] as u32 & same[t - lo];
                let ballot = own
                    .iter()
                    .enumerate()
                    .filter(|&(u, &v)| members >> u & 1 == 1 && v != 0)
                    .fold(0u32, |b, (u, _)| b | 1 << u);
                vals[t - lo] = match kind {
                    VoteKind::Ballot => ballot as u64,
                    VoteKind::Any => (ballot != 0) as u64,
                    VoteKind::All => (ballot == members) as u64,
                    VoteKind::Uni => (ballot == 0 || ballot == members) as u64,
                };
                continue;
            }
            let Op::Shfl { mode, src, lane, clamp, mask, .. } = self.k.code[self.pcs[t] as usize] else {
                continue;
            };
            let regs = &self.regs[t * ns..(t + 1) * ns];
            let me = (t - lo) as i64;
            let b = (regs[lane as usize] & 0x1f) as i64;
            let c = regs[clamp as usize];
            let segmask = ((c >> 8) & 0x1f) as i64;
            let cval = (c & 0x1f) as i64;
            let max_lane = (me & segmask) | (cval & !segmask);
            let min_lane = me & segmask;
            let (j, ok) = match mode {
                ShflMode::Up => (me - b, me - b >= max_lane),
                ShflMode::Down => (me + b, me + b <= max_lane),
                ShflMode::Bfly => (me ^ b, (me ^ b) <= max_lane),
                ShflMode::Idx => {
                    let j = min_lane | (b & !segmask);
                    (j, j <= max_lane)
                }
            };
            let mine = regs[src as usize];
            // The source must be a member waiting at a shuffle of this mode.
            let in_mask =
                (0..32).contains(&j) && regs[mask as usize] >> j & 1 == 1 && same[t - lo] >> j & 1 == 1;
            // An in-range lane that takes no part (not in the mask, inactive, past the block's
            // last thread) gives an undefined value (this thread's own, here); the predicate
            // says only whether the lane is in range, as the PTX ISA's pseudo-code sets it.
            vals[t - lo] = if ok && in_mask { own[j as usize] } else { mine };
            valid[t - lo] = ok;
        }
        for t in lo..hi {
            if ready >> (t - lo) & 1 == 1 {
                match self.k.code[self.pcs[t] as usize] {
                    Op::Shfl { d, valid: p, .. } => {
                        self.regs[t * ns + d as usize] = vals[t - lo];
                        if let Some(p) = p {
                            self.regs[t * ns + p as usize] = valid[t - lo] as u64;
                        }
                    }
                    Op::Vote { d, .. } | Op::ActiveMask { d } | Op::Redux { d, .. } => {
                        self.regs[t * ns + d as usize] = vals[t - lo]
                    }
                    Op::Match { d, equal, .. } => {
                        self.regs[t * ns + d as usize] = vals[t - lo];
                        if let Some(p) = equal {
                            self.regs[t * ns + p as usize] = valid[t - lo] as u64;
                        }
                    }
                    Op::Elect { d, p, .. } => {
                        if let Some(d) = d {
                            self.regs[t * ns + d as usize] = vals[t - lo];
                        }
                        self.regs[t * ns + p as usize] = valid[t - lo] as u64;
                    }
                    Op::WarpSync { .. } => self.race.warp_sync(t as u32),
                    _ => continue,
                }
                self.pcs[t] += 1;
                self.status[t] = Status::Ready;
                *count += 1;
            }
        }
        Ok(true)
    }

    /// Runs the `ldmatrix` or `mma` that the lanes `tensor` of the warp `lo..hi` wait at,
    /// once all 32 lanes wait at that one instruction (`.aligned`: the PTX ISA requires
    /// every lane of the warp to execute it, convergently); `Ok(false)` while some have yet
    /// to arrive. A warp of fewer than 32 threads, or one with a lane that has exited, can
    /// never run it: an error.
    #[allow(clippy::too_many_arguments)]
    fn tensor_warp(
        &mut self,
        lo: usize,
        hi: usize,
        tensor: u32,
        gone: u32,
        ns: usize,
        ctaid: [u32; 3],
        count: &mut u64,
    ) -> Result<bool, SimError> {
        let first = lo + tensor.trailing_zeros() as usize;
        let pc = self.pcs[first] as usize;
        let (thread, text) = (split3(first as u64, self.geo.block), &self.k.text[pc]);
        if hi - lo < 32 {
            return Err(self.barrier_error(
                ctaid,
                format!(
                    "thread {thread:?} runs `{text}` in a warp of {} thread(s): `.aligned` tensor-core \
                     instructions need all 32 lanes of the warp (make the block a multiple of 32 threads)",
                    hi - lo
                ),
            ));
        }
        if gone != 0 {
            return Err(self.barrier_error(
                ctaid,
                format!(
                    "thread {thread:?} runs `{text}`, but lane(s) {gone:#010x} of its warp have exited: \
                     `.aligned` tensor-core instructions need all 32 lanes of the warp to execute the \
                     same instruction"
                ),
            ));
        }
        if tensor != u32::MAX || (lo..hi).any(|t| self.pcs[t] as usize != pc) {
            return Ok(false);
        }
        let reg = |s: &Self, t: usize, r: R| s.regs[t * ns + r as usize];
        match self.k.code[pc] {
            Op::LdMatrix { count: matrices, trans, space, d, base, off } => {
                // Lane 8i + r gives the address of row r of matrix i; each row is 8 16-bit
                // elements (16 bytes, 16-byte aligned), read by the lane that addressed it.
                let mut rows = [[[0u16; 8]; 8]; 4];
                for (i, matrix) in rows.iter_mut().enumerate().take(matrices as usize) {
                    for (r, row) in matrix.iter_mut().enumerate() {
                        let t = lo + 8 * i + r;
                        let addr = reg(self, t, base).wrapping_add(off as i64 as u64);
                        let fault = |s: &Self, cause| s.fault(ctaid, t, Trap { pc, cause });
                        let at = match resolve(space, addr) {
                            Place::Shared(a) => shared_at(self.shared.len(), a, 16, 16),
                            _ => None,
                        };
                        let Some(at) = at else { return Err(fault(self, Cause::Fault(addr))) };
                        if let Err(hazard) = self.race.load(t as u32, pc as u32, at, 16) {
                            return Err(fault(self, Cause::from(hazard)));
                        }
                        for (c, v) in row.iter_mut().enumerate() {
                            *v = sh_load(&self.shared, at + 2 * c, 2) as u16;
                        }
                    }
                }
                for t in lo..hi {
                    for (i, matrix) in rows.iter().enumerate().take(matrices as usize) {
                        self.regs[t * ns + d[i] as usize] =
                            crate::tensor::ldmatrix_fragment(matrix, trans, t - lo);
                    }
                }
            }
            Op::Mma { form, frag } => {
                let regs = &self.k.frags[frag as usize..frag as usize + form.regs()];
                let (d, rest) = regs.split_at(form.d_regs());
                let (a, rest) = rest.split_at(form.a_regs());
                let (b, c) = rest.split_at(form.b_regs());
                let mut lanes = [crate::tensor::Fragments::default(); 32];
                for (l, f) in lanes.iter_mut().enumerate() {
                    let t = lo + l;
                    a.iter().enumerate().for_each(|(j, &r)| f.a[j] = reg(self, t, r));
                    b.iter().enumerate().for_each(|(j, &r)| f.b[j] = reg(self, t, r));
                    c.iter().enumerate().for_each(|(j, &r)| f.c[j] = reg(self, t, r));
                }
                let out = crate::tensor::mma(&form, &lanes);
                for (l, values) in out.iter().enumerate() {
                    for (j, &r) in d.iter().enumerate() {
                        self.regs[(lo + l) * ns + r as usize] = values[j];
                    }
                }
            }
            _ => return Ok(false),
        }
        for t in lo..hi {
            self.pcs[t] += 1;
            self.status[t] = Status::Ready;
            *count += 1;
        }
        Ok(true)
    }
}

fn bad(kernel: &KernelCode, message: String) -> SimError {
    SimError::BadParams { kernel: kernel.name.clone(), message }
}

/// Whether control can flow from op `from` to op `to` (other than by being there already).
fn reaches(code: &[Op], from: u32, to: u32) -> bool {
    let mut seen = vec![false; code.len()];
    let mut todo = vec![from as usize];
    while let Some(pc) = todo.pop() {
        let next: [Option<u32>; 2] = match code[pc] {
            Op::Bra { t } => [Some(t), None],
            Op::BraIf { t, .. } | Op::BraIfNot { t, .. } => [Some(pc as u32 + 1), Some(t)],
            Op::Ret | Op::Trap | Op::BrxOutside { .. } => [None, None],
            _ => [Some(pc as u32 + 1), None],
        };
        for n in next.into_iter().flatten() {
            if n == to {
                return true;
            }
            if (n as usize) < code.len() && !seen[n as usize] {
                seen[n as usize] = true;
                todo.push(n as usize);
            }
        }
    }
    false
}

/// The most shared memory (static plus dynamic) any current GPU gives one block: 227 KiB
/// (sm_90 with the opt-in attribute).
const MAX_SHARED_PER_BLOCK: u64 = 227 * 1024;

fn check_geometry(kernel: &KernelCode, g: &Geometry) -> Result<(), SimError> {
    if g.grid.contains(&0) || g.block.contains(&0) {
        return Err(bad(
            kernel,
            format!("grid {:?} and block {:?} must be at least 1 in every dimension", g.grid, g.block),
        ));
    }
    let threads: u64 = g.block.iter().map(|&d| d as u64).product();
    if threads > 1024 || g.block[2] > 64 {
        return Err(bad(
            kernel,
            format!("block {:?} has {threads} threads; CUDA allows at most 1024 (and z <= 64)", g.block),
        ));
    }
    match kernel.block_limit {
        // (ptxas takes `.maxntid 4294967295, 4294967295, 4294967295`: 2^96 threads.)
        BlockLimit::Max(m) if u128::from(threads) > m.iter().map(|&d| u128::from(d)).product::<u128>() => {
            return Err(bad(
                kernel,
                format!(
                    "block {:?} has {threads} threads, but the kernel declares `.maxntid {:?}`",
                    g.block, m
                ),
            ));
        }
        BlockLimit::Exactly(r) if r != g.block => {
            return Err(bad(
                kernel,
                format!("block {:?}, but the kernel declares `.reqntid {:?}`", g.block, r),
            ));
        }
        _ => {}
    }
    if let Some(c) = kernel.cluster {
        if (0..3).any(|i| !g.grid[i].is_multiple_of(c[i])) {
            return Err(bad(
                kernel,
                format!(
                    "grid {:?} is not made of whole clusters: the kernel declares `.reqnctapercluster {:?}`",
                    g.grid, c
                ),
            ));
        }
    }
    let shared = kernel.static_shared as u64 + g.dynamic_shared_bytes as u64;
    if shared > MAX_SHARED_PER_BLOCK {
        return Err(bad(
            kernel,
            format!(
                "{shared} bytes of shared memory per block ({} static + {} dynamic); \
                 CUDA GPUs allow at most {MAX_SHARED_PER_BLOCK}",
                kernel.static_shared, g.dynamic_shared_bytes
            ),
        ));
    }
    if g.grid[0] > i32::MAX as u32 || g.grid[1] > 65535 || g.grid[2] > 65535 {
        return Err(bad(kernel, format!("grid {:?} exceeds CUDA's limits (2^31-1, 65535, 65535)", g.grid)));
    }
    Ok(())
}

/// Runs `kernel` over the whole grid with the default [`SimOptions`]. `params` holds one
/// raw value per kernel parameter, its bits zero-extended to 64 (f32 via `to_bits`,
/// pointers are addresses from [`Memory::alloc`]; a by-value byte array of at most 8 bytes
/// as its bytes read little-endian; a larger one needs [`launch_with_param_bytes`]). Blocks
/// run on `worker_threads` host threads (at least one).
///
/// Errors: [`SimError::BadParams`] for a wrong parameter count, a value wider than its
/// type, or an invalid geometry; [`SimError::Fault`] for an out-of-bounds or misaligned
/// access; [`SimError::Barrier`] for threads that can never meet at a sync point;
/// [`SimError::Race`] for a data race in shared memory; [`SimError::UninitializedShared`] for
/// a read of shared memory no thread of the block has written; [`SimError::StepBudget`] for
/// a thread that runs too long. On an error, memory holds whatever the blocks had written
/// so far.
pub fn launch(
    kernel: &KernelCode,
    geometry: &Geometry,
    params: &[u64],
    memory: &Memory,
    worker_threads: usize,
) -> Result<LaunchStats, SimError> {
    launch_with(kernel, geometry, params, memory, worker_threads, &SimOptions::default())
}

/// [`launch`] with `options`: the step budget, race checks of global memory, the check of
/// reads of never-written shared memory, and the model of `.approx` instructions.
pub fn launch_with(
    kernel: &KernelCode,
    geometry: &Geometry,
    params: &[u64],
    memory: &Memory,
    worker_threads: usize,
    options: &SimOptions,
) -> Result<LaunchStats, SimError> {
    check_param_count(kernel, params.len())?;
    let mut bytes = Vec::with_capacity(params.len());
    for (i, (p, &v)) in kernel.params.iter().zip(params).enumerate() {
        let size = p.size_bytes();
        if size > 8 {
            return Err(bad(
                kernel,
                format!(
                    "parameter {i} `{}` is a by-value array of {size} bytes, more than one value \
                     holds; pass its bytes with `launch_with_param_bytes`",
                    p.name
                ),
            ));
        }
        let bits = size * 8;
        if bits < 64 && v >> bits != 0 {
            let what = match p.array {
                Some(n) => format!("a by-value array of {n} bytes"),
                None => p.ty.to_string(),
            };
            return Err(bad(
                kernel,
                format!(
                    "parameter {i} `{}` is {what} but the value {v:#x} has bits above its {bits}; \
                     pass the value zero-extended",
                    p.name
                ),
            ));
        }
        bytes.push(v.to_le_bytes()[..size as usize].to_vec());
    }
    launch_with_param_bytes(kernel, geometry, &bytes, memory, worker_threads, options)
}

/// An error unless `given` is the kernel's parameter count.
fn check_param_count(kernel: &KernelCode, given: usize) -> Result<(), SimError> {
    if given == kernel.params.len() {
        return Ok(());
    }
    Err(bad(kernel, format!("the kernel takes {} parameter(s), {given} were given", kernel.params.len())))
}

/// [`launch_with`] with each parameter given as its bytes: exactly as many as the parameter
/// has ([`crate::ParamInfo::size_bytes`]), little-endian, as the GPU's parameter space holds
/// them (a scalar's value; a by-value `.b8 name[N]` array's N bytes, as the C struct lays
/// them out, padding included). A wrong count of parameters or of bytes is a
/// [`SimError::BadParams`] naming the parameter and both sizes.
pub fn launch_with_param_bytes<P: AsRef<[u8]>>(
    kernel: &KernelCode,
    geometry: &Geometry,
    params: &[P],
    memory: &Memory,
    worker_threads: usize,
    options: &SimOptions,
) -> Result<LaunchStats, SimError> {
    check_param_count(kernel, params.len())?;
    check_geometry(kernel, geometry)?;
    let mut template = kernel.init.clone();
    for (i, (p, given)) in kernel.params.iter().zip(params).enumerate() {
        let given = given.as_ref();
        if given.len() as u64 != p.size_bytes() {
            let what = match p.array {
                Some(n) => format!("a by-value array of {n} .{}", p.ty.ptx_name()),
                None => format!(".{}", p.ty.ptx_name()),
            };
            return Err(bad(
                kernel,
                format!(
                    "parameter {i} `{}` is {what}, {} byte(s), but {} byte(s) were given",
                    p.name,
                    p.size_bytes(),
                    given.len()
                ),
            ));
        }
        let first = kernel.param_slots[i] as usize;
        for (k, chunk) in given.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            template[first + k] = u64::from_le_bytes(word);
        }
    }
    if !kernel.data_slots.is_empty() {
        let addrs = kernel.data.addresses(memory)?;
        for &(index, offset, r) in &kernel.data_slots {
            template[r as usize] = addrs[index].wrapping_add(offset);
        }
    }
    let shared_bytes = kernel.static_shared as usize + geometry.dynamic_shared_bytes as usize;
    let allocs = memory.snapshot();
    let locks = memory.locks();
    let nblocks: u64 = geometry.grid.iter().map(|&d| d as u64).product();
    // The largest grid of the largest blocks has 2^73 threads.
    let threads = nblocks.saturating_mul(geometry.block.iter().map(|&d| d as u64).product::<u64>());
    let exact_threads =
        [geometry.grid, geometry.block].iter().flatten().map(|&d| d as u128).product::<u128>();
    if exact_threads > options.max_threads as u128 {
        return Err(bad(
            kernel,
            format!(
                "grid {:?} of blocks {:?} is {exact_threads} threads, more than the simulator runs in one launch \
                 ({}: `SimOptions::max_threads`, or `PTX_DSL_SIM_MAX_THREADS` for ptx-runtime's \
                 `Device::sim()`): simulate a smaller problem, or run it on a GPU",
                geometry.grid, geometry.block, options.max_threads
            ),
        ));
    }
    let workers = worker_threads.max(1).min(nblocks.min(1 << 16) as usize);
    let has_sync =
        kernel.code.iter().any(|o| matches!(o, Op::Bar { .. } | Op::BarRed { .. }) || o.is_warp_collective());
    let next = AtomicU64::new(0);
    let abort = AtomicBool::new(false);
    let work = || {
        let mut runner = BlockRunner {
            k: kernel,
            template: &template,
            geo: *geometry,
            shared_bytes,
            has_sync,
            regs: Vec::new(),
            pcs: Vec::new(),
            status: Vec::new(),
            shared: Vec::new(),
            race: RaceTracker::default(),
            local: Vec::new(),
            printed: String::new(),
            copies: Vec::new(),
            options: *options,
            spent: Vec::new(),
        };
        let mut view = GlobalView::new(&allocs, locks);
        let mut count = 0u64;
        let mut printed: Vec<(u64, String)> = Vec::new();
        loop {
            if abort.load(Ordering::Relaxed) {
                return (count, None, printed);
            }
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= nblocks {
                return (count, None, printed);
            }
            let result = runner.run_block(split3(b, geometry.grid), &mut view);
            if !runner.printed.is_empty() {
                printed.push((b, std::mem::take(&mut runner.printed)));
            }
            match result {
                Ok(n) => count += n,
                Err(e) => {
                    abort.store(true, Ordering::Relaxed);
                    return (count, Some((b, e)), printed);
                }
            }
        }
    };
    type WorkerResult = (u64, Option<(u64, SimError)>, Vec<(u64, String)>);
    let mut results: Vec<WorkerResult> = if workers == 1 {
        vec![work()]
    } else {
        std::thread::scope(|s| {
            // Blocks go to whichever worker asks next, so a worker the system refuses to start
            // (a thread limit) leaves the work to the others instead of failing the launch.
            let handles: Vec<_> =
                (1..workers).map_while(|_| std::thread::Builder::new().spawn_scoped(s, work).ok()).collect();
            let mut out = vec![work()];
            for h in handles {
                match h.join() {
                    Ok(r) => out.push(r),
                    Err(p) => std::panic::resume_unwind(p),
                }
            }
            out
        })
    };
    let instructions = results.iter().map(|r| r.0).sum();
    let mut blocks: Vec<(u64, String)> = Vec::new();
    for r in &mut results {
        blocks.append(&mut r.2);
    }
    blocks.sort_by_key(|(b, _)| *b);
    let printed = blocks.into_iter().map(|(_, text)| text).collect();
    if let Some((_, e)) = results.into_iter().filter_map(|r| r.1).min_by_key(|(b, _)| *b) {
        return Err(e);
    }
    Ok(LaunchStats { threads, instructions, printed })
}

/// Reads `vprintf`'s arguments and strings through generic addresses.
struct GenericReader<'r, 'g> {
    g: &'r mut GlobalView<'g>,
    shared: &'r [u8],
    local: &'r [u8],
    /// The next argument's address, and the buffer's start (arguments align to it).
    at: u64,
    start: u64,
}

impl GenericReader<'_, '_> {
    /// `size` bytes at generic address `addr`.
    fn read(&mut self, addr: u64, size: u64) -> Option<u64> {
        match resolve(MemSpace::Generic, addr) {
            Place::Global(a) => self.g.resolve(a, size, 1).map(|(m, o)| m.load(o, size)),
            Place::Shared(a) => {
                shared_at(self.shared.len(), a, size, 1).map(|at| sh_load(self.shared, at, size))
            }
            Place::Local(a) => {
                shared_at(self.local.len(), a, size, 1).map(|at| sh_load(self.local, at, size))
            }
        }
    }
}

impl crate::printf::Args for GenericReader<'_, '_> {
    fn next(&mut self, size: u64) -> Option<u64> {
        let offset = (self.at - self.start).div_ceil(size) * size;
        let v = self.read(self.start + offset, size)?;
        self.at = self.start + offset + size;
        Some(v)
    }

    fn string(&mut self, addr: u64) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        // Format strings and %s arguments are short; stop at 64 KiB without a NUL.
        for i in 0..1 << 16 {
            match self.read(addr + i, 1)? as u8 {
                0 => return Some(bytes),
                b => bytes.push(b),
            }
        }
        Some(bytes)
    }
}

/// The shared memory allocation unit of sm_80 and sm_90 (PTX ISA, `%total_smem_size`).
const SMEM_UNIT: u64 = 128;

/// `%nwarpid`: the warps an sm_80 or sm_90 multiprocessor holds (64), so every `%warpid`
/// (at most a block's 32 warps) is below it, as on the GPU.
const MAX_WARPS_PER_MULTIPROCESSOR: u64 = 64;

/// The value of special register `which` for the thread of `env`, `clock` instructions
/// into its block.
fn counter(which: Counter, env: &Env, clock: u64) -> u64 {
    let nanos = || {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    };
    let lane = env.lane;
    let below = (1u64 << lane) - 1;
    match which {
        Counter::Clock => clock & 0xffff_ffff,
        Counter::ClockHi => clock >> 32,
        Counter::Clock64 => clock,
        Counter::GlobalTimer => nanos(),
        Counter::GlobalTimerLo => nanos() & 0xffff_ffff,
        Counter::GlobalTimerHi => nanos() >> 32,
        Counter::WarpId => (env.linear / 32) as u64,
        Counter::NWarpId => MAX_WARPS_PER_MULTIPROCESSOR,
        Counter::SmId | Counter::GridId => 0,
        Counter::NSmId => 1,
        Counter::LaneMaskEq => 1 << lane,
        Counter::LaneMaskLe => below | 1 << lane,
        Counter::LaneMaskLt => below,
        Counter::LaneMaskGe => !below & 0xffff_ffff,
        Counter::LaneMaskGt => !(below | 1 << lane) & 0xffff_ffff,
        Counter::TotalSmemSize | Counter::AggrSmemSize => {
            (u64::from(env.static_smem) + u64::from(env.dynamic_smem)).next_multiple_of(SMEM_UNIT)
                & 0xffff_ffff
        }
    }
}

/// `redux.sync`'s reduction of the members' values (at least one: the thread's own).
fn redux(op: ReduxOp, signed: bool, values: impl Iterator<Item = u32>) -> u32 {
    let pick = |a: u32, b: u32, max: bool| {
        let a_first = if signed { (a as i32) < (b as i32) } else { a < b };
        if a_first != max {
            a
        } else {
            b
        }
    };
    values
        .reduce(|a, b| match op {
            ReduxOp::Add => a.wrapping_add(b),
            ReduxOp::Min => pick(a, b, false),
            ReduxOp::Max => pick(a, b, true),
            ReduxOp::And => a & b,
            ReduxOp::Or => a | b,
            ReduxOp::Xor => a ^ b,
        })
        .unwrap_or(0)
}

/// `.sat` on a float result: clamps to [+0.0, 1.0]; NaN and −0.0 give +0.0 (as a GPU does).
fn saturate(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else {
        x.min(1.0)
    }
}
