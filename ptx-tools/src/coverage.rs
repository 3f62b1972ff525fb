//! A kernel that uses every instruction form the builder and verifier accept.
//!
//! [`every_form`] enumerates each instruction variant over every type, rounding mode and
//! modifier combination, keeps exactly the ones [`verify::check_instruction`] accepts, and
//! stores every result to global memory. The assembler tests feed it to ptxas, the
//! simulator tests run it, and the GPU tests compare the simulator's outputs with a GPU's.
//! Because the set is derived from the verifier, a form the verifier starts accepting is
//! covered automatically; [`InstrKind::ALL`] proves each variant appears.

use ptx_core::builder::KernelBuilder;
use ptx_core::ir::{
    AddrBase, Address, AtomOp, BinaryOp, Cmp, CvtRound, FenceScope, FloatMode, Guard, Imm, Instr, InstrKind,
    KernelIr, Operand, PrintArg, RegList, ShflMode, Space, SpecialReg, UnaryOp, VReg, VoteMode,
};
use ptx_core::types::PtxType;
use ptx_core::{print, verify};

/// One value the catalog kernel writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Byte offset in each thread's output record.
    pub offset: u32,
    /// The stored type.
    pub ty: PtxType,
    /// The instruction that produced it, as printed.
    pub form: String,
    /// True when PTX defines the result exactly (no `.approx`, no atomics whose result
    /// depends on thread order), so a simulator must match a GPU bit for bit.
    pub exact: bool,
}

/// The catalog kernel with a description of its inputs and outputs.
///
/// Parameters: `input` (pointer to [`FormCatalog::input_bytes`] bytes, read by every
/// thread), `output` (pointer to `record_bytes` bytes per thread), `scratch` (pointer to
/// 64 bytes per thread for loads, stores and atomics), then one scalar of each of u32,
/// s32, f32, u64, s64, f64. Launch with one block of 32 threads.
#[derive(Clone, Debug)]
pub struct FormCatalog {
    /// The kernel.
    pub ir: KernelIr,
    /// Values written per thread.
    pub outputs: Vec<Output>,
    /// Bytes of input the kernel reads.
    pub input_bytes: u32,
    /// Bytes of output per thread.
    pub record_bytes: u32,
}

/// Scalar parameter types of the catalog kernel, after its three pointers.
pub const SCALAR_PARAMS: [PtxType; 6] =
    [PtxType::U32, PtxType::S32, PtxType::F32, PtxType::U64, PtxType::S64, PtxType::F64];

/// Register types with arithmetic or storage in this version: every type but `.pred`.
const VALUE_TYPES: [PtxType; 13] = {
    let mut t = [PtxType::B16; 13];
    let mut i = 0;
    while i < 13 {
        t[i] = PtxType::ALL[i + 1];
        i += 1;
    }
    t
};

const FLOAT_MODES: [Option<FloatMode>; 7] = [
    None,
    Some(FloatMode::Rn),
    Some(FloatMode::Rz),
    Some(FloatMode::Rm),
    Some(FloatMode::Rp),
    Some(FloatMode::Approx),
    Some(FloatMode::Full),
];

const CVT_ROUNDS: [Option<CvtRound>; 9] = [
    None,
    Some(CvtRound::Rn),
    Some(CvtRound::Rz),
    Some(CvtRound::Rm),
    Some(CvtRound::Rp),
    Some(CvtRound::Rni),
    Some(CvtRound::Rzi),
    Some(CvtRound::Rmi),
    Some(CvtRound::Rpi),
];

struct Gen {
    b: KernelBuilder,
    out: VReg,
    /// The input pointer (global).
    input: VReg,
    scratch: VReg,
    outputs: Vec<Output>,
    record: u32,
    /// Three source registers per value type, loaded from the input.
    srcs: Vec<(PtxType, [VReg; 3])>,
    /// A small shift amount register.
    shift: VReg,
    pred: VReg,
}

impl Gen {
    fn src(&self, ty: PtxType, i: usize) -> VReg {
        let decl = ty.reg_decl_type();
        self.srcs.iter().find(|(t, _)| *t == ty || *t == decl).map(|(_, r)| r[i]).unwrap_or(self.srcs[0].1[0])
    }

    /// A nonzero immediate of type `ty`.
    fn imm(ty: PtxType) -> Operand {
        let bits = match ty {
            PtxType::F32 => 1.5f32.to_bits() as u64,
            PtxType::F64 => 1.5f64.to_bits(),
            PtxType::F16 | PtxType::Bf16 => 0x3c00,
            _ => 3,
        };
        Operand::Imm(Imm::new(ty, bits))
    }

    /// Pushes `instr` if the verifier accepts it; stores its result (`dst`) when it has one.
    fn try_push(&mut self, instr: Instr, exact: bool) -> bool {
        if verify::check_instruction(self.b.ir(), &instr).is_err() {
            return false;
        }
        let dsts = instr.defs();
        let form = print::instr_text(self.b.ir(), &instr);
        self.b.push(instr);
        for d in dsts {
            self.store_result(d, &form, exact);
        }
        true
    }

    fn store_result(&mut self, d: VReg, form: &str, exact: bool) {
        let (value, ty) = if d.ty == PtxType::Pred {
            let r = self.b.raw_reg(PtxType::U32);
            let one = Operand::Imm(Imm::new(PtxType::U32, 1));
            let zero = Operand::Imm(Imm::new(PtxType::U32, 0));
            self.b.push(Instr::Selp { ty: PtxType::U32, dst: r, a: one, b: zero, pred: d });
            (r, PtxType::U32)
        } else {
            (d, d.ty)
        };
        let size = ty.bytes().max(1);
        self.record = self.record.div_ceil(size) * size;
        let srcs = RegList::new(&[value]).expect("one register");
        let st_ty = ty.memory_type();
        let addr = Address { base: AddrBase::Reg(self.out), offset: self.record as i32 };
        self.b.push(Instr::St { guard: None, space: Space::Global, ty: st_ty, srcs, addr });
        self.outputs.push(Output { offset: self.record, ty, form: form.to_string(), exact });
        self.record += size;
    }
}

/// Bytes of scratch memory each thread uses (global and shared).
pub const SCRATCH_PER_THREAD: u32 = 64;
/// Threads the catalog kernel is launched with (one warp, for `shfl.sync`).
pub const THREADS: u32 = 32;

/// Builds the catalog kernel.
pub fn every_form() -> FormCatalog {
    let mut b = KernelBuilder::new("every_form");
    let input = b.global_pointer("input").raw();
    let output_base = b.global_pointer("output").raw();
    let scratch_base = b.global_pointer("scratch").raw();
    let scalar_params: Vec<(u32, PtxType)> = SCALAR_PARAMS
        .iter()
        .enumerate()
        .map(|(i, ty)| (b.raw_param(format!("scalar{i}"), *ty), *ty))
        .collect();

    // Per-thread output and scratch pointers; the record size is patched in at the end.
    let tid = b.special(SpecialReg::TidX).raw();
    let record_offset = b.raw_reg(PtxType::U64);
    let record_mul_index = b.body().len();
    b.push(Instr::MulWide {
        ty: PtxType::U32,
        dst: record_offset,
        a: Operand::Reg(tid),
        b: Operand::Imm(Imm::new(PtxType::U32, 0)),
    });
    let out = b.raw_reg(PtxType::U64);
    b.push(Instr::Binary {
        op: BinaryOp::Add,
        ty: PtxType::U64,
        mode: None,
        dst: out,
        a: Operand::Reg(output_base),
        b: Operand::Reg(record_offset),
    });
    let scratch_offset = b.raw_reg(PtxType::U64);
    b.push(Instr::MulWide {
        ty: PtxType::U32,
        dst: scratch_offset,
        a: Operand::Reg(tid),
        b: Operand::Imm(Imm::new(PtxType::U32, SCRATCH_PER_THREAD as u64)),
    });
    let scratch = b.raw_reg(PtxType::U64);
    b.push(Instr::Binary {
        op: BinaryOp::Add,
        ty: PtxType::U64,
        mode: None,
        dst: scratch,
        a: Operand::Reg(scratch_base),
        b: Operand::Reg(scratch_offset),
    });

    // Three sources of every value type, from the input.
    let mut srcs = Vec::new();
    for (t, ty) in VALUE_TYPES.iter().enumerate() {
        let regs = [0, 1, 2].map(|j| {
            let r = b.raw_reg(*ty);
            let dsts = RegList::new(&[r]).expect("one register");
            let addr = Address { base: AddrBase::Reg(input), offset: ((t * 3 + j) * 8) as i32 };
            b.push(Instr::Ld { guard: None, space: Space::Global, ty: ty.memory_type(), dsts, addr });
            r
        });
        srcs.push((*ty, regs));
    }
    let input_bytes = (VALUE_TYPES.len() * 3 * 8) as u32;
    let u32_src = srcs[6].1;
    let shift = b.raw_reg(PtxType::U32);
    b.push(Instr::Binary {
        op: BinaryOp::And,
        ty: PtxType::U32,
        mode: None,
        dst: shift,
        a: Operand::Reg(u32_src[1]),
        b: Operand::Imm(Imm::new(PtxType::U32, 63)),
    });
    let pred = b.raw_reg(PtxType::Pred);
    b.push(Instr::Setp {
        cmp: Cmp::Ne,
        ty: PtxType::U32,
        dst: pred,
        a: Operand::Reg(u32_src[2]),
        b: Operand::Imm(Imm::new(PtxType::U32, 0)),
    });

    let mut g = Gen { b, out, input, scratch, outputs: Vec::new(), record: 0, srcs, shift, pred };
    for (index, ty) in scalar_params {
        let dst = g.b.raw_reg(ty);
        g.try_push(Instr::LdParam { ty, dst, param: index }, true);
    }
    cover_moves(&mut g);
    cover_arithmetic(&mut g);
    cover_conversions(&mut g);
    cover_comparisons(&mut g);
    cover_control_flow(&mut g);
    cover_memory(&mut g);

    let record_bytes = g.record.div_ceil(16) * 16;
    let mut ir = g.b.finish();
    if let Instr::MulWide { b, .. } = &mut ir.body[record_mul_index] {
        *b = Operand::Imm(Imm::new(PtxType::U32, record_bytes as u64));
    }
    FormCatalog { ir, outputs: g.outputs, input_bytes, record_bytes }
}

fn cover_moves(g: &mut Gen) {
    for ty in VALUE_TYPES.iter().copied().chain([PtxType::Pred]) {
        let src = if ty == PtxType::Pred { g.pred } else { g.src(ty, 0) };
        let dst = g.b.raw_reg(ty);
        g.try_push(Instr::Mov { ty, dst, src: Operand::Reg(src) }, true);
        let dst = g.b.raw_reg(ty);
        g.try_push(Instr::Mov { ty, dst, src: Gen::imm(ty) }, true);
    }
    for reg in SpecialReg::ALL {
        let dst = g.b.raw_reg(PtxType::U32);
        // Grid/block sizes and indices are launch-dependent but deterministic.
        g.try_push(Instr::Special { dst, reg }, true);
    }
}

fn cover_arithmetic(g: &mut Gen) {
    const UNARY: [UnaryOp; 10] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Not,
        UnaryOp::Sqrt,
        UnaryOp::Rcp,
        UnaryOp::Rsqrt,
        UnaryOp::Ex2,
        UnaryOp::Lg2,
        UnaryOp::Sin,
        UnaryOp::Cos,
    ];
    const BINARY: [BinaryOp; 13] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::MulHi,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::Shr,
    ];
    let all_types: Vec<PtxType> = VALUE_TYPES.iter().copied().chain([PtxType::Pred]).collect();
    for &ty in &all_types {
        let src = |g: &Gen, i| if ty == PtxType::Pred { g.pred } else { g.src(ty, i) };
        for op in UNARY {
            for mode in FLOAT_MODES {
                let dst = g.b.raw_reg(ty);
                let exact = mode != Some(FloatMode::Approx);
                g.try_push(Instr::Unary { op, ty, mode, dst, src: Operand::Reg(src(g, 0)) }, exact);
            }
        }
        for op in BINARY {
            for mode in FLOAT_MODES {
                let b_reg = if op.is_shift() { g.shift } else { src(g, 1) };
                let exact = !matches!(mode, Some(FloatMode::Approx | FloatMode::Full));
                let dst = g.b.raw_reg(ty);
                let a = Operand::Reg(src(g, 0));
                let pushed =
                    g.try_push(Instr::Binary { op, ty, mode, dst, a, b: Operand::Reg(b_reg) }, exact);
                if pushed && ty != PtxType::Pred {
                    let imm = if op.is_shift() { Gen::imm(PtxType::U32) } else { Gen::imm(ty) };
                    let dst = g.b.raw_reg(ty);
                    g.try_push(Instr::Binary { op, ty, mode, dst, a, b: imm }, exact);
                }
            }
        }
    }
    for ty in [PtxType::U16, PtxType::S16, PtxType::U32, PtxType::S32] {
        let wide = if ty.bits() == 16 {
            if ty.is_signed() {
                PtxType::S32
            } else {
                PtxType::U32
            }
        } else if ty.is_signed() {
            PtxType::S64
        } else {
            PtxType::U64
        };
        let dst = g.b.raw_reg(wide);
        let (a, b) = (Operand::Reg(g.src(ty, 0)), Operand::Reg(g.src(ty, 1)));
        g.try_push(Instr::MulWide { ty, dst, a, b }, true);
        let dst = g.b.raw_reg(wide);
        g.try_push(Instr::MulWide { ty, dst, a, b: Gen::imm(ty) }, true);
    }
    for &ty in &VALUE_TYPES {
        let [a, b, c] = [0, 1, 2].map(|i| Operand::Reg(g.src(ty, i)));
        let dst = g.b.raw_reg(ty);
        g.try_push(Instr::Mad { ty, dst, a, b, c }, true);
        for mode in [FloatMode::Rn, FloatMode::Rz, FloatMode::Rm, FloatMode::Rp] {
            let dst = g.b.raw_reg(ty);
            g.try_push(Instr::Fma { ty, mode, dst, a, b, c }, true);
            let dst = g.b.raw_reg(ty);
            g.try_push(Instr::Fma { ty, mode, dst, a, b, c: Gen::imm(ty) }, true);
        }
    }
}

fn cover_conversions(g: &mut Gen) {
    for &dst_ty in &VALUE_TYPES {
        for &src_ty in &VALUE_TYPES {
            for round in CVT_ROUNDS {
                for sat in [false, true] {
                    let dst = g.b.raw_reg(dst_ty);
                    let src = Operand::Reg(g.src(src_ty, 0));
                    g.try_push(Instr::Cvt { dst_ty, src_ty, round, sat, dst, src }, true);
                }
            }
        }
    }
}

fn cover_comparisons(g: &mut Gen) {
    for &ty in &VALUE_TYPES {
        for cmp in Cmp::ALL {
            let dst = g.b.raw_reg(PtxType::Pred);
            let (a, b) = (Operand::Reg(g.src(ty, 0)), Operand::Reg(g.src(ty, 1)));
            if g.try_push(Instr::Setp { cmp, ty, dst, a, b }, true) {
                let dst = g.b.raw_reg(PtxType::Pred);
                g.try_push(Instr::Setp { cmp, ty, dst, a, b: Gen::imm(ty) }, true);
            }
        }
        let dst = g.b.raw_reg(ty);
        let (a, b) = (Operand::Reg(g.src(ty, 0)), Operand::Reg(g.src(ty, 1)));
        let pred = g.pred;
        g.try_push(Instr::Selp { ty, dst, a, b, pred }, true);
        let dst = g.b.raw_reg(ty);
        g.try_push(Instr::Selp { ty, dst, a: Gen::imm(ty), b, pred }, true);
    }
}

fn cover_control_flow(g: &mut Gen) {
    // A conditional skip over a store, both polarities, and an unconditional jump.
    for negated in [false, true] {
        let skip = g.b.label();
        let dst = g.b.raw_reg(PtxType::U32);
        let one = Operand::Imm(Imm::new(PtxType::U32, 1));
        g.try_push(Instr::Mov { ty: PtxType::U32, dst, src: one }, true);
        g.b.push(Instr::Bra { guard: Some(Guard { pred: g.pred, negated }), target: skip });
        let two = Operand::Imm(Imm::new(PtxType::U32, 2));
        g.b.push(Instr::Mov { ty: PtxType::U32, dst, src: two });
        g.b.place(skip);
        g.store_result(dst, if negated { "@!p bra" } else { "@p bra" }, true);
    }
    let over = g.b.label();
    g.b.bra(over);
    g.b.place(over);
    g.b.push(Instr::BarSync { barrier: 0 });
}

fn cover_memory(g: &mut Gen) {
    let smem = g.b.shared_array(SCRATCH_PER_THREAD * THREADS, 16);
    let smem_base = g.b.raw_reg(PtxType::U32);
    g.try_push(Instr::SharedAddr { dst: smem_base, shared: smem }, false);
    let tid = g.b.raw_reg(PtxType::U32);
    g.b.push(Instr::Special { dst: tid, reg: SpecialReg::TidX });
    let shared_slot = g.b.raw_reg(PtxType::U32);
    g.b.push(Instr::Mad {
        ty: PtxType::U32,
        dst: shared_slot,
        a: Operand::Reg(tid),
        b: Operand::Imm(Imm::new(PtxType::U32, SCRATCH_PER_THREAD as u64)),
        c: Operand::Reg(smem_base),
    });
    let spaces = [(Space::Global, g.scratch), (Space::Shared, shared_slot)];
    for (space, base) in spaces {
        for &ty in &VALUE_TYPES {
            for n in [1usize, 2, 4] {
                let mem_ty = ty.memory_type();
                let values: Vec<VReg> = (0..n).map(|i| g.src(ty, i % 3)).collect();
                let addr = Address { base: AddrBase::Reg(base), offset: 0 };
                let st = Instr::St {
                    guard: None,
                    space,
                    ty: mem_ty,
                    srcs: RegList::new(&values).expect("1, 2 or 4"),
                    addr,
                };
                if verify::check_instruction(g.b.ir(), &st).is_err() {
                    continue;
                }
                g.b.push(st);
                let dsts: Vec<VReg> = (0..n).map(|_| g.b.raw_reg(ty)).collect();
                let ld = Instr::Ld {
                    guard: None,
                    space,
                    ty: mem_ty,
                    dsts: RegList::new(&dsts).expect("1, 2 or 4"),
                    addr,
                };
                g.try_push(ld, true);
            }
        }
        // Bytes, stored from and loaded (extended) into 16- and 32-bit registers.
        for mem_ty in PtxType::MEMORY_ONLY {
            for ty in [PtxType::U16, PtxType::S16, PtxType::U32, PtxType::S32] {
                let addr = Address { base: AddrBase::Reg(base), offset: 1 };
                let srcs = RegList::new(&[g.src(ty, 0)]).expect("one");
                g.try_push(Instr::St { guard: None, space, ty: mem_ty, srcs, addr }, false);
                let dsts = RegList::new(&[g.b.raw_reg(ty)]).expect("one");
                g.try_push(Instr::Ld { guard: None, space, ty: mem_ty, dsts, addr }, true);
            }
        }
        // The atomics' slot starts from a stored value: shared memory holds whatever an
        // earlier kernel left (the simulator's starts zeroed), so an atomic's old value
        // would otherwise differ between a GPU and the simulator.
        let slot = Address { base: AddrBase::Reg(base), offset: 32 };
        let srcs = RegList::new(&[g.src(PtxType::U64, 0)]).expect("one");
        g.b.push(Instr::St { guard: None, space, ty: PtxType::U64, srcs, addr: slot });
        for op in AtomOp::ALL {
            for &ty in &VALUE_TYPES {
                let dst = g.b.raw_reg(ty);
                let addr = slot;
                let a = Operand::Reg(g.src(ty, 0));
                let b = (op == AtomOp::Cas).then(|| Operand::Reg(g.src(ty, 1)));
                g.try_push(Instr::Atom { guard: None, op, space, ty, dst, addr, a, b }, true);
            }
        }
    }
    // Byte loads from the input (modelled by the reference): every extension into 16- and
    // 32-bit registers, one, two and four at a time.
    for (k, mem_ty) in PtxType::MEMORY_ONLY.into_iter().enumerate() {
        for ty in [PtxType::U16, PtxType::S16, PtxType::U32, PtxType::S32] {
            for (j, n) in [1usize, 2, 4].into_iter().enumerate() {
                let dsts: Vec<VReg> = (0..n).map(|_| g.b.raw_reg(ty)).collect();
                let dsts = RegList::new(&dsts).expect("1, 2 or 4");
                let addr = Address { base: AddrBase::Reg(g.input), offset: (k * 16 + j * 4) as i32 };
                g.try_push(Instr::Ld { guard: None, space: Space::Global, ty: mem_ty, dsts, addr }, true);
            }
        }
    }
    // A negative address offset (printed `+-8`), from a pointer into the input.
    let inside = g.b.raw_reg(PtxType::U64);
    g.b.push(Instr::Binary {
        op: BinaryOp::Add,
        ty: PtxType::U64,
        mode: None,
        dst: inside,
        a: Operand::Reg(g.input),
        b: Operand::Imm(Imm::new(PtxType::U64, 16)),
    });
    let dsts = RegList::new(&[g.b.raw_reg(PtxType::U32)]).expect("one");
    let addr = Address { base: AddrBase::Reg(inside), offset: -8 };
    g.try_push(Instr::Ld { guard: None, space: Space::Global, ty: PtxType::U32, dsts, addr }, true);
    // A load straight from the shared array by name, of thread 0's slot: after a barrier,
    // so that thread 0's stores to it are not a race with the other threads' loads.
    g.b.push(Instr::BarSync { barrier: 0 });
    let dst = g.b.raw_reg(PtxType::U32);
    let addr = Address { base: AddrBase::Shared(smem), offset: 4 };
    g.try_push(
        Instr::Ld {
            guard: None,
            space: Space::Shared,
            ty: PtxType::U32,
            dsts: RegList::new(&[dst]).expect("one"),
            addr,
        },
        false,
    );
    for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
        let src = g.src(PtxType::U32, 0);
        let clamp = if mode == ShflMode::Up { 0 } else { 31 };
        let dst = g.b.raw_reg(PtxType::U32);
        let lane = Operand::Imm(Imm::new(PtxType::U32, 1));
        g.try_push(Instr::Shfl { mode, dst, src, lane, clamp, mask: u32::MAX }, true);
        let dst = g.b.raw_reg(PtxType::F32);
        let src = g.src(PtxType::F32, 0);
        let lane = Operand::Reg(g.shift);
        g.try_push(Instr::Shfl { mode, dst, src, lane, clamp, mask: u32::MAX }, true);
    }
    // Votes over whether each lane's input is odd.
    let odd = g.b.raw_reg(PtxType::Pred);
    let low_bit = g.b.raw_reg(PtxType::U32);
    let src = g.src(PtxType::U32, 0);
    g.b.push(Instr::Binary {
        op: BinaryOp::And,
        ty: PtxType::B32,
        mode: None,
        dst: low_bit,
        a: Operand::Reg(src),
        b: Operand::Imm(Imm::new(PtxType::B32, 1)),
    });
    g.b.push(Instr::Setp {
        cmp: Cmp::Ne,
        ty: PtxType::U32,
        dst: odd,
        a: Operand::Reg(low_bit),
        b: Operand::Imm(Imm::new(PtxType::U32, 0)),
    });
    for mode in [VoteMode::Ballot, VoteMode::Any, VoteMode::All] {
        let ty = if mode == VoteMode::Ballot { PtxType::U32 } else { PtxType::Pred };
        let dst = g.b.raw_reg(ty);
        g.try_push(Instr::Vote { mode, dst, pred: odd, mask: u32::MAX }, true);
    }
    g.b.push(Instr::BarWarpSync { mask: u32::MAX });
    for scope in [FenceScope::Cta, FenceScope::Gpu, FenceScope::Sys] {
        g.b.push(Instr::Fence { scope });
    }
    // A printf of each argument kind, behind a branch every thread takes around it (the
    // catalog's outputs are values; the printf is there to be assembled and parsed).
    let skip = g.b.label();
    g.b.bra(skip);
    let format = g.b.string(b"catalog %u %d %llu %lld %g %s\n");
    let (yes, no) = (g.b.string(b"odd"), g.b.string(b"even"));
    let value = |offset, ty: PtxType, reg| PrintArg::Value { offset, ty, reg };
    let args = vec![
        value(0, PtxType::U32, g.src(PtxType::U32, 0)),
        value(4, PtxType::S32, g.src(PtxType::S32, 0)),
        value(8, PtxType::U64, g.src(PtxType::U64, 0)),
        value(16, PtxType::S64, g.src(PtxType::S64, 0)),
        value(24, PtxType::F64, g.src(PtxType::F64, 0)),
        PrintArg::Choice { offset: 32, pred: odd, if_true: yes, if_false: no },
    ];
    g.b.printf(format, args);
    g.b.place(skip);
}

/// The instruction variants that appear in `ir`.
pub fn kinds_used(ir: &KernelIr) -> Vec<InstrKind> {
    let mut kinds: Vec<InstrKind> = ir.body.iter().map(Instr::kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_verifies_and_covers_every_instruction_variant() {
        let cat = every_form();
        verify::verify(&cat.ir).expect("the catalog kernel verifies");
        let used = kinds_used(&cat.ir);
        let missing: Vec<_> = InstrKind::ALL.iter().filter(|k| !used.contains(k)).collect();
        assert!(missing.is_empty(), "variants not covered by the catalog: {missing:?}");
        assert!(cat.outputs.len() > 400, "only {} forms", cat.outputs.len());
    }
}
