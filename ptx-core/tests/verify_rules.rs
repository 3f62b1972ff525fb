//! Every verifier rule, enumerated: for each [`Rule`] a kernel that breaks it (rejected,
//! and the error names that rule) and a kernel that keeps it at its edge (accepted).
//! `cases` matches on the rule with no catch-all arm, so a rule added without cases here
//! does not compile, and the test walks [`Rule::ALL`].

use ptx_core::builder::KernelBuilder;
use ptx_core::ir::{
    AddrBase, Address, AtomOp, BinaryOp, Guard, Imm, Instr, Operand, PrintArg, RegList, SharedDecl, SharedId,
    Space, StringId, UnaryOp, VReg, VoteMode,
};
use ptx_core::verify::{check_instruction, verify};
use ptx_core::{Cmp, CvtRound, FloatMode, KernelIr, Label, PtxType, Rule, ShflMode};

use PtxType::*;

/// A kernel named `k` with the body `f` writes (and the `ret` `finish` appends).
fn kernel(f: impl FnOnce(&mut KernelBuilder)) -> KernelIr {
    named("k", f)
}

/// A kernel named `name` with the body `f` writes.
fn named(name: &str, f: impl FnOnce(&mut KernelBuilder)) -> KernelIr {
    let mut b = KernelBuilder::new(name);
    f(&mut b);
    b.finish()
}

/// A kernel that is `build`'s IR after `edit` changes it directly.
fn edited(build: impl FnOnce(&mut KernelBuilder), edit: impl FnOnce(&mut KernelIr)) -> KernelIr {
    let mut ir = kernel(build);
    edit(&mut ir);
    ir
}

/// A kernel whose body is the one instruction `make` returns (its operands defined first).
fn one(make: impl FnOnce(&mut KernelBuilder) -> Instr) -> KernelIr {
    kernel(|b| {
        let instr = make(b);
        b.push(instr);
    })
}

/// A register of type `ty` holding a value, so that reading it is defined.
fn def(b: &mut KernelBuilder, ty: PtxType) -> VReg {
    let r = b.raw_reg(ty);
    let mov_ty = match ty {
        F16 | Bf16 => B16,
        other => other,
    };
    b.push(Instr::Mov { ty: mov_ty, dst: r, src: imm(mov_ty, 1) });
    r
}

/// An operand reading a defined register of type `ty`.
fn val(b: &mut KernelBuilder, ty: PtxType) -> Operand {
    Operand::Reg(def(b, ty))
}

fn imm(ty: PtxType, bits: u64) -> Operand {
    Operand::Imm(Imm::new(ty, bits))
}

fn unary(op: UnaryOp, ty: PtxType, mode: Option<FloatMode>) -> KernelIr {
    one(|b| {
        let src = val(b, ty);
        Instr::Unary { op, ty, mode, dst: b.raw_reg(ty), src }
    })
}

fn binary(op: BinaryOp, ty: PtxType, mode: Option<FloatMode>) -> KernelIr {
    one(|b| {
        // A destination of a register type, so that a byte type fails this rule, not the
        // rule against byte registers.
        let reg_ty = if ty.is_memory_only() { U32 } else { ty };
        let (a, rhs) = (val(b, reg_ty), val(b, if op.is_shift() { U32 } else { reg_ty }));
        Instr::Binary { op, ty, mode, dst: b.raw_reg(reg_ty), a, b: rhs }
    })
}

fn setp(cmp: Cmp, ty: PtxType) -> KernelIr {
    one(|b| {
        let (a, rhs) = (val(b, ty), val(b, ty));
        Instr::Setp { cmp, ty, dst: b.raw_reg(Pred), a, b: rhs }
    })
}

fn cvt(dst_ty: PtxType, src_ty: PtxType, round: Option<CvtRound>, sat: bool) -> KernelIr {
    one(|b| {
        let src = val(b, src_ty);
        Instr::Cvt { dst_ty, src_ty, round, sat, dst: b.raw_reg(dst_ty), src }
    })
}

fn fma(ty: PtxType, mode: FloatMode) -> KernelIr {
    one(|b| {
        let (x, y, z) = (val(b, ty), val(b, ty), val(b, ty));
        Instr::Fma { ty, mode, dst: b.raw_reg(ty), a: x, b: y, c: z }
    })
}

/// `ld.global` of `count` registers of type `reg_ty` as `ty`, from a 64-bit address.
fn ld_global(ty: PtxType, reg_ty: PtxType, count: usize) -> KernelIr {
    one(|b| {
        let base = def(b, U64);
        let regs: Vec<VReg> = (0..count).map(|_| b.raw_reg(reg_ty)).collect();
        let dsts = RegList::new(&regs).expect("1, 2 or 4 registers");
        Instr::Ld {
            guard: None,
            space: Space::Global,
            ty,
            dsts,
            addr: Address { base: AddrBase::Reg(base), offset: 0 },
        }
    })
}

/// `st.space.u32` of one value to `base`, in a kernel with one 16-byte shared array.
fn st_u32(space: Space, base: impl FnOnce(&mut KernelBuilder) -> AddrBase) -> KernelIr {
    one(|b| {
        b.shared_array(16, 4);
        let v = def(b, U32);
        let base = base(b);
        Instr::St {
            guard: None,
            space,
            ty: U32,
            srcs: RegList::new(&[v]).unwrap(),
            addr: Address { base, offset: 0 },
        }
    })
}

fn mul_wide(ty: PtxType, dst_ty: PtxType) -> KernelIr {
    one(|b| {
        let (x, y) = (val(b, ty), val(b, ty));
        Instr::MulWide { ty, dst: b.raw_reg(dst_ty), a: x, b: y }
    })
}

fn vote(mode: VoteMode, dst_ty: PtxType) -> KernelIr {
    one(|b| {
        let pred = def(b, Pred);
        Instr::Vote { mode, dst: b.raw_reg(dst_ty), pred, mask: !0 }
    })
}

fn atom(op: AtomOp, ty: PtxType, with_b: bool) -> KernelIr {
    one(|b| {
        let smem = b.shared_array(16, 8);
        let a = val(b, ty);
        let second = with_b.then(|| val(b, ty));
        let addr = Address { base: AddrBase::Shared(smem), offset: 0 };
        Instr::Atom { guard: None, op, space: Space::Shared, ty, dst: b.raw_reg(ty), addr, a, b: second }
    })
}

fn shared(arrays: &[(u32, u32)], dynamic: usize) -> KernelIr {
    edited(
        |b| {
            for &(bytes, align) in arrays {
                b.shared_array(bytes, align);
            }
        },
        // Pushed directly: the builder hands out one dynamic array however often asked.
        |ir| ir.shared.extend((0..dynamic).map(|_| SharedDecl { bytes: 0, align: 4, dynamic: true })),
    )
}

/// `printf` with one value argument of type `ty` at `offset`, the buffer `buffer` bytes
/// (`None`: as the builder sizes it).
fn printf(ty: PtxType, offset: u32, buffer: Option<u32>) -> KernelIr {
    edited(
        |b| {
            let format = b.string(b"%d\n");
            let reg = def(b, ty);
            b.printf(format, vec![PrintArg::Value { offset, ty, reg }]);
        },
        |ir| {
            if let Some(bytes) = buffer {
                ir.print_buffer_bytes = bytes;
            }
        },
    )
}

/// A kernel that writes `%r0` `writes` times and names it as an assumption.
fn assumption(writes: usize) -> KernelIr {
    edited(
        |b| {
            let r = b.raw_reg(U32);
            for _ in 0..writes {
                b.push(Instr::Mov { ty: U32, dst: r, src: imm(U32, 7) });
            }
            if writes == 0 {
                def(b, U32);
            }
        },
        |ir| ir.assumptions.push(VReg { ty: U32, index: 0 }),
    )
}

/// The kernels that break `rule` and the kernels that keep it.
fn cases(rule: Rule) -> (Vec<KernelIr>, Vec<KernelIr>) {
    use FloatMode::{Approx, Full, Rm, Rn, Rz};
    match rule {
        Rule::KernelName => (
            ["1k", "a-b", "", "_", "$", "WARP_SZ", "vprintf", "$L0", "$L12"]
                .map(|n| named(n, |_| {}))
                .to_vec(),
            ["_k$1", "$a", "_1", "$L", "$Lx", "warp_sz", "vprintf2", "ret"]
                .map(|n| named(n, |_| {}))
                .to_vec(),
        ),
        Rule::ParamName => (
            vec![
                kernel(|b| {
                    b.raw_param("x", U32);
                    b.raw_param("x", F32);
                }),
                kernel(|b| {
                    b.raw_param("a b", U32);
                }),
            ],
            vec![kernel(|b| {
                b.raw_param("x", U32);
                b.raw_param("x1", U32);
            })],
        ),
        Rule::ParamType => (
            vec![
                kernel(|b| {
                    b.raw_param("p", Pred);
                }),
                kernel(|b| {
                    b.raw_param("h", Bf16);
                }),
                edited(
                    |b| {
                        b.pointer_param("p");
                    },
                    |ir| ir.params[0].ty = U32,
                ),
            ],
            vec![kernel(|b| {
                b.pointer_param("p");
                b.raw_param("n", U32);
                b.raw_param("h", F16);
            })],
        ),
        Rule::ParamSpace => {
            // 4352 bytes fit: 544 `.u64`s, or a `.u32` (padded to 8) then 543 `.u64`s.
            let params = |first: PtxType, wide: usize| {
                kernel(move |b| {
                    b.raw_param("p", first);
                    for i in 0..wide {
                        b.raw_param(format!("q{i}"), U64);
                    }
                })
            };
            (vec![params(U64, 544), params(U32, 544)], vec![params(U64, 543), params(U32, 543)])
        }
        Rule::SharedAlignment => (
            vec![shared(&[(4, 3)], 0), shared(&[(4, 1 << 31)], 0)],
            vec![shared(&[(4, 1), (4, 16)], 0), shared(&[(4, 1 << 30)], 0)],
        ),
        Rule::SharedNonEmpty => (vec![shared(&[(0, 4)], 0)], vec![shared(&[(1, 4)], 1)]),
        Rule::OneDynamicShared => (vec![shared(&[], 2)], vec![shared(&[(4, 4)], 1)]),
        Rule::SharedLimit => (
            vec![shared(&[(48 * 1024 + 4, 4)], 0), shared(&[(1, 4), (48 * 1024 - 3, 4)], 0)],
            vec![shared(&[(48 * 1024, 4)], 1), shared(&[(1, 4), (48 * 1024 - 4, 4)], 0)],
        ),
        Rule::NoByteRegisters => (
            vec![kernel(|b| {
                b.raw_reg(U8);
            })],
            vec![ld_global(U8, U16, 1), ld_global(S8, U32, 1)],
        ),
        Rule::LabelPlacedOnce => {
            let placed = |times| {
                kernel(move |b| {
                    let l = b.label();
                    for _ in 0..times {
                        b.place(l);
                    }
                })
            };
            (vec![placed(2)], vec![placed(1)])
        }
        Rule::NothingRefused => {
            let refused = kernel(|b| b.refuse("asked for too much", Some("k.rs:3:5".to_string())));
            (vec![refused], vec![kernel(|_| {})])
        }
        Rule::InstructionLimit => {
            // `finish` appends the `ret`: the bodies are the limit and one more.
            let movs = |n: usize| {
                kernel(|b| {
                    let r = def(b, U32);
                    for _ in 1..n {
                        b.push(Instr::Mov { ty: U32, dst: r, src: imm(U32, 7) });
                    }
                })
            };
            (
                vec![movs(ptx_core::verify::MAX_INSTRUCTIONS)],
                vec![movs(ptx_core::verify::MAX_INSTRUCTIONS - 1)],
            )
        }
        Rule::EndsInRetOrBranch => {
            let ends_in_guarded_branch = kernel(|b| {
                let l = b.label();
                b.place(l);
                let p = def(b, Pred);
                b.push(Instr::Bra { guard: Some(Guard { pred: p, negated: false }), target: l });
            });
            let without_ret = |mut ir: KernelIr| {
                ir.body.pop();
                ir
            };
            let loop_forever = kernel(|b| {
                let l = b.label();
                b.place(l);
                b.bra(l);
            });
            (
                vec![
                    without_ret(ends_in_guarded_branch),
                    without_ret(kernel(|b| {
                        def(b, U32);
                    })),
                ],
                vec![
                    loop_forever,
                    kernel(|b| {
                        def(b, U32);
                    }),
                ],
            )
        }
        Rule::AssumptionWrittenOnce => (vec![assumption(0), assumption(2)], vec![assumption(1)]),
        Rule::DefinedBeforeUse => {
            let read = |defined: bool| {
                one(move |b| {
                    let src = if defined { def(b, U32) } else { b.raw_reg(U32) };
                    Instr::Mov { ty: U32, dst: b.raw_reg(U32), src: Operand::Reg(src) }
                })
            };
            (vec![read(false)], vec![read(true)])
        }
        Rule::BranchTargetPlaced => {
            let branch = |place: bool| {
                kernel(move |b| {
                    let l = b.label();
                    b.bra(l);
                    if place {
                        b.place(l);
                    }
                })
            };
            (vec![branch(false)], vec![branch(true)])
        }
        Rule::LabelAllocated => (
            vec![
                kernel(|b| b.push(Instr::Bra { guard: None, target: Label(0) })),
                kernel(|b| b.push(Instr::Label(Label(1)))),
            ],
            vec![kernel(|b| {
                let l = b.label();
                b.place(l);
                b.push(Instr::Bra { guard: None, target: Label(0) });
            })],
        ),
        Rule::RegisterDeclared => {
            let mov_to = |past_the_end: u32| {
                one(move |b| {
                    let r = b.raw_reg(U32);
                    Instr::Mov {
                        ty: U32,
                        dst: VReg { ty: U32, index: r.index + past_the_end },
                        src: imm(U32, 1),
                    }
                })
            };
            let address_past_the_end = ld_global(U32, U32, 1);
            let mut bad_address = address_past_the_end.clone();
            if let Some(Instr::Ld { addr, .. }) =
                bad_address.body.iter_mut().find(|i| matches!(i, Instr::Ld { .. }))
            {
                addr.base = AddrBase::Reg(VReg { ty: U64, index: 1 });
            }
            (vec![mov_to(1), bad_address], vec![mov_to(0), address_past_the_end])
        }
        Rule::RegisterType => {
            let add = |a_ty: PtxType| {
                one(move |b| {
                    let a = val(b, a_ty);
                    Instr::Binary {
                        op: BinaryOp::Add,
                        ty: U32,
                        mode: None,
                        dst: b.raw_reg(U32),
                        a,
                        b: imm(U32, 1),
                    }
                })
            };
            // mul.wide's destination is twice as wide as its type; a ballot is a .b32.
            (
                vec![
                    add(F32),
                    add(U64),
                    mul_wide(U32, U32),
                    mul_wide(S16, S64),
                    vote(VoteMode::Ballot, Pred),
                    vote(VoteMode::Any, B32),
                ],
                vec![add(U32), add(S32), add(B32), vote(VoteMode::Ballot, B32), vote(VoteMode::All, Pred)],
            )
        }
        Rule::ByteRegister => {
            (vec![ld_global(U8, F32, 1), ld_global(U8, U64, 1)], vec![ld_global(U8, U32, 1)])
        }
        Rule::ImmediateType => {
            let add = |ty: PtxType, mode: Option<FloatMode>, operand: Operand| {
                one(move |b| {
                    let a = val(b, ty);
                    Instr::Binary { op: BinaryOp::Add, ty, mode, dst: b.raw_reg(ty), a, b: operand }
                })
            };
            let one_f32 = u64::from(1f32.to_bits());
            // `mov.pred %p, 1` takes a predicate immediate, and no other.
            let set_pred =
                |ty: PtxType| one(move |b| Instr::Mov { ty: Pred, dst: b.raw_reg(Pred), src: imm(ty, 1) });
            // `cvt.f32.f16 %f, 0x3C00`: ptxas takes no half immediate there, only a register.
            let widen = |src: fn(&mut KernelBuilder) -> Operand| {
                one(move |b| {
                    let src = src(b);
                    Instr::Cvt { dst_ty: F32, src_ty: F16, round: None, sat: false, dst: b.raw_reg(F32), src }
                })
            };
            (
                vec![
                    add(U32, None, imm(F32, one_f32)),
                    add(F32, Some(Rn), imm(U32, 1)),
                    add(U32, None, imm(U64, 1)),
                    set_pred(U32),
                    widen(|_| imm(F16, 0x3c00)),
                ],
                vec![
                    add(U32, None, imm(U32, 1)),
                    add(F32, Some(Rn), imm(F32, one_f32)),
                    add(S32, None, imm(U32, 1)),
                    set_pred(Pred),
                    widen(|b| val(b, F16)),
                ],
            )
        }
        Rule::AddressRegister => {
            let global_from = |ty: PtxType| st_u32(Space::Global, move |b| AddrBase::Reg(def(b, ty)));
            let shared_from = |ty: PtxType| st_u32(Space::Shared, move |b| AddrBase::Reg(def(b, ty)));
            (
                vec![global_from(U32), global_from(F64), shared_from(U16), shared_from(F32)],
                vec![global_from(U64), global_from(B64), shared_from(U32), shared_from(U64)],
            )
        }
        Rule::SharedArraySpace => (
            vec![st_u32(Space::Global, |_| AddrBase::Shared(SharedId(0)))],
            vec![st_u32(Space::Shared, |_| AddrBase::Shared(SharedId(0)))],
        ),
        Rule::SharedArrayDeclared => {
            let address_of = |id: u32| {
                one(move |b| {
                    b.shared_array(4, 4);
                    Instr::SharedAddr { dst: b.raw_reg(U32), shared: SharedId(id) }
                })
            };
            (
                vec![address_of(1), st_u32(Space::Shared, |_| AddrBase::Shared(SharedId(1)))],
                vec![address_of(0)],
            )
        }
        Rule::ParamDeclared | Rule::ParamReadType => {
            let read = |param: u32, ty: PtxType| {
                one(move |b| {
                    b.raw_param("x", F32);
                    Instr::LdParam { ty, dst: b.raw_reg(ty), param }
                })
            };
            let bad = if rule == Rule::ParamDeclared { read(1, F32) } else { read(0, U32) };
            (vec![bad], vec![read(0, F32)])
        }
        Rule::MovType => {
            let mov =
                |ty: PtxType| one(move |b| Instr::Mov { ty, dst: b.raw_reg(F16), src: imm(ty, 0x3c00) });
            (vec![mov(F16)], vec![mov(B16)])
        }
        Rule::MulWideType => (
            vec![mul_wide(U64, U64), mul_wide(F32, F64)],
            vec![mul_wide(U16, U32), mul_wide(S16, S32), mul_wide(U32, U64), mul_wide(S32, S64)],
        ),
        Rule::MadType => {
            let mad = |ty: PtxType| {
                one(move |b| {
                    let (x, y, z) = (val(b, ty), val(b, ty), val(b, ty));
                    Instr::Mad { ty, dst: b.raw_reg(ty), a: x, b: y, c: z }
                })
            };
            (vec![mad(F32)], vec![mad(S64), mad(U16)])
        }
        Rule::FmaType => (vec![fma(U32, Rn), fma(F16, Rn)], vec![fma(F64, Rn)]),
        Rule::FmaRounding => (vec![fma(F32, Approx), fma(F64, Full)], vec![fma(F32, Rz), fma(F64, Rm)]),
        Rule::SetpType => {
            (vec![setp(Cmp::Eq, Pred), setp(Cmp::Eq, F16)], vec![setp(Cmp::Eq, S16), setp(Cmp::Lt, F64)])
        }
        Rule::SetpFloatComparison => {
            (vec![setp(Cmp::Nan, U32), setp(Cmp::Ltu, S64)], vec![setp(Cmp::Nan, F32), setp(Cmp::Geu, F64)])
        }
        Rule::SetpBitComparison => (vec![setp(Cmp::Lt, B32)], vec![setp(Cmp::Ne, B32), setp(Cmp::Eq, B64)]),
        Rule::SelpType => {
            let selp = |ty: PtxType| {
                one(move |b| {
                    let (x, y, p) = (val(b, ty), val(b, ty), def(b, Pred));
                    Instr::Selp { ty, dst: b.raw_reg(ty), a: x, b: y, pred: p }
                })
            };
            (vec![selp(Pred), selp(F16), selp(Bf16)], vec![selp(U16), selp(B64), selp(F32)])
        }
        Rule::BarrierId => {
            let bar = |barrier| one(move |_| Instr::BarSync { barrier });
            (vec![bar(16), bar(u32::MAX)], vec![bar(0), bar(15)])
        }
        Rule::MemoryType => {
            (vec![ld_global(Pred, Pred, 1), ld_global(F16, F16, 1)], vec![ld_global(B16, F16, 1)])
        }
        Rule::VectorWidth => (
            vec![ld_global(U64, U64, 4), ld_global(F64, F64, 4)],
            vec![ld_global(F64, F64, 2), ld_global(F32, F32, 4), ld_global(U16, U16, 4)],
        ),
        Rule::AtomType => (
            vec![atom(AtomOp::Add, S64, false), atom(AtomOp::Min, F32, false), atom(AtomOp::And, U16, false)],
            vec![
                atom(AtomOp::Add, F32, false),
                atom(AtomOp::Max, S64, false),
                atom(AtomOp::Exch, B64, false),
            ],
        ),
        Rule::AtomCasOperands => (
            vec![atom(AtomOp::Add, U32, true), atom(AtomOp::Cas, U32, false)],
            vec![atom(AtomOp::Cas, U32, true), atom(AtomOp::Add, U32, false)],
        ),
        Rule::ShflClamp => {
            let shfl = |clamp| {
                one(move |b| {
                    let src = def(b, B32);
                    Instr::Shfl {
                        mode: ShflMode::Bfly,
                        dst: b.raw_reg(B32),
                        src,
                        lane: imm(U32, 1),
                        clamp,
                        mask: !0,
                    }
                })
            };
            (vec![shfl(0x2000)], vec![shfl(0x1f), shfl(0x1fff)])
        }
        Rule::WarpSyncMask => {
            let sync = |mask| one(move |_| Instr::BarWarpSync { mask });
            (vec![sync(0)], vec![sync(1), sync(!0)])
        }
        Rule::PrintfString => {
            let print = |format: u32, choice: u32| {
                edited(
                    |b| {
                        b.string(b"%s\n");
                        let pred = def(b, Pred);
                        let arg = PrintArg::Choice {
                            offset: 0,
                            pred,
                            if_true: StringId(choice),
                            if_false: StringId(0),
                        };
                        b.printf(StringId(format), vec![arg]);
                    },
                    |_| {},
                )
            };
            (vec![print(1, 0), print(0, 1)], vec![print(0, 0)])
        }
        Rule::StringNotEmpty => (
            vec![edited(
                |b| {
                    let format = b.string(b"%d\n");
                    b.printf(format, vec![]);
                },
                |ir| ir.strings[0].clear(),
            )],
            vec![printf(U32, 0, None)],
        ),
        Rule::PrintfArgType => (
            vec![printf(F32, 0, None), printf(U16, 0, None)],
            vec![printf(S64, 0, None), printf(F64, 8, None)],
        ),
        Rule::PrintfArgSlot => (
            vec![printf(U64, 4, None), printf(U32, 0, Some(0)), printf(U32, 8, Some(8))],
            vec![printf(U64, 8, None), printf(U32, 4, Some(8))],
        ),
        Rule::NegAbsType => (
            vec![
                unary(UnaryOp::Neg, U32, None),
                unary(UnaryOp::Abs, B32, None),
                unary(UnaryOp::Neg, F16, None),
            ],
            vec![
                unary(UnaryOp::Abs, S16, None),
                unary(UnaryOp::Neg, F64, None),
                unary(UnaryOp::Neg, S64, None),
            ],
        ),
        Rule::NotType => (
            vec![unary(UnaryOp::Not, F32, None)],
            vec![
                unary(UnaryOp::Not, Pred, None),
                unary(UnaryOp::Not, B32, None),
                unary(UnaryOp::Not, U64, None),
            ],
        ),
        Rule::UnaryNoModifier => (
            vec![
                unary(UnaryOp::Neg, F32, Some(Rn)),
                unary(UnaryOp::Abs, S32, Some(Rz)),
                unary(UnaryOp::Not, B32, Some(Rn)),
            ],
            vec![unary(UnaryOp::Neg, F32, None), unary(UnaryOp::Not, B32, None)],
        ),
        Rule::SqrtRcpType => (
            vec![unary(UnaryOp::Sqrt, U32, Some(Rn)), unary(UnaryOp::Rcp, F16, Some(Rn))],
            vec![unary(UnaryOp::Sqrt, F64, Some(Rn))],
        ),
        Rule::SqrtRcpRounding => (
            vec![
                unary(UnaryOp::Sqrt, F32, None),
                unary(UnaryOp::Rcp, F64, Some(Approx)),
                unary(UnaryOp::Sqrt, F32, Some(Full)),
            ],
            vec![unary(UnaryOp::Sqrt, F32, Some(Approx)), unary(UnaryOp::Rcp, F64, Some(Rm))],
        ),
        Rule::ApproxOnly => (
            vec![
                unary(UnaryOp::Sin, F64, Some(Approx)),
                unary(UnaryOp::Ex2, F32, Some(Rn)),
                unary(UnaryOp::Rsqrt, F32, None),
            ],
            vec![unary(UnaryOp::Ex2, F32, Some(Approx)), unary(UnaryOp::Cos, F32, Some(Approx))],
        ),
        Rule::BinaryFloatType => (
            vec![binary(BinaryOp::Add, F16, Some(Rn)), binary(BinaryOp::Min, Bf16, None)],
            vec![binary(BinaryOp::Add, F32, Some(Rn))],
        ),
        Rule::FloatRounding => (
            vec![
                binary(BinaryOp::Add, F32, None),
                binary(BinaryOp::Div, F64, Some(Approx)),
                binary(BinaryOp::Mul, F32, Some(Approx)),
                binary(BinaryOp::Sub, F64, Some(Full)),
            ],
            vec![
                binary(BinaryOp::Div, F32, Some(Full)),
                binary(BinaryOp::Div, F32, Some(Approx)),
                binary(BinaryOp::Sub, F64, Some(Rm)),
            ],
        ),
        Rule::BinaryFloatForm => (
            vec![
                binary(BinaryOp::Min, F32, Some(Rn)),
                binary(BinaryOp::And, F32, None),
                binary(BinaryOp::Rem, F64, Some(Rn)),
            ],
            vec![binary(BinaryOp::Max, F32, None), binary(BinaryOp::Min, F64, None)],
        ),
        Rule::IntNoFloatModifier => (
            vec![binary(BinaryOp::Add, U32, Some(Rn)), binary(BinaryOp::And, B32, Some(Approx))],
            vec![binary(BinaryOp::Add, U32, None)],
        ),
        Rule::BinaryIntType => (
            vec![
                binary(BinaryOp::And, U8, None),
                binary(BinaryOp::Add, Pred, None),
                binary(BinaryOp::Mul, B32, None),
            ],
            vec![
                binary(BinaryOp::And, Pred, None),
                binary(BinaryOp::Shl, B32, None),
                binary(BinaryOp::Xor, U16, None),
            ],
        ),
        Rule::CvtPredicate => {
            (vec![cvt(U32, Pred, None, false), cvt(Pred, U32, None, false)], vec![cvt(U32, U16, None, false)])
        }
        Rule::CvtBitTypes => (
            vec![cvt(U32, B32, None, false), cvt(B16, F32, Some(CvtRound::Rzi), false)],
            vec![cvt(S64, U32, None, false)],
        ),
        Rule::CvtHalfPartner => (
            vec![cvt(F16, F64, Some(CvtRound::Rn), false), cvt(U32, Bf16, Some(CvtRound::Rzi), false)],
            vec![cvt(F16, F32, Some(CvtRound::Rn), false), cvt(F32, Bf16, None, false)],
        ),
        Rule::CvtHalfRounding => (
            vec![
                cvt(F16, F32, None, false),
                cvt(F32, F16, Some(CvtRound::Rn), false),
                cvt(Bf16, F32, Some(CvtRound::Rn), true),
            ],
            vec![cvt(Bf16, F32, Some(CvtRound::Rn), false), cvt(F32, F16, None, false)],
        ),
        Rule::CvtRounding => (
            vec![
                cvt(U32, F32, None, false),
                cvt(F32, S32, Some(CvtRound::Rzi), false),
                cvt(F32, F64, None, false),
                cvt(F64, F32, Some(CvtRound::Rn), false),
                cvt(U32, U16, Some(CvtRound::Rn), false),
                cvt(F32, F32, Some(CvtRound::Rn), false),
                cvt(F64, F64, None, false),
            ],
            vec![
                cvt(U32, F32, Some(CvtRound::Rzi), false),
                cvt(F32, S32, Some(CvtRound::Rn), false),
                cvt(F64, F32, None, false),
                cvt(F32, F32, Some(CvtRound::Rni), false),
            ],
        ),
        Rule::CvtSaturation => (
            vec![cvt(U32, U16, None, true), cvt(S64, S32, None, true), cvt(S64, U32, None, true)],
            vec![
                cvt(U16, U32, None, true),
                cvt(U32, S32, None, true),
                cvt(S32, U32, None, true),
                cvt(U32, U16, None, false),
                cvt(U32, F32, Some(CvtRound::Rzi), true),
                cvt(S16, F64, Some(CvtRound::Rni), true),
            ],
        ),
    }
}

/// The rules checked over the whole body rather than one instruction at a time.
const WHOLE_BODY_RULES: [Rule; 6] = [
    Rule::NothingRefused,
    Rule::LabelPlacedOnce,
    Rule::AssumptionWrittenOnce,
    Rule::DefinedBeforeUse,
    Rule::BranchTargetPlaced,
    Rule::InstructionLimit,
];

#[test]
fn every_rule_rejects_a_kernel_that_breaks_it_and_accepts_one_at_its_edge() {
    let mut failures = Vec::new();
    for &rule in Rule::ALL {
        let (bad, good) = cases(rule);
        assert!(!bad.is_empty() && !good.is_empty(), "{rule:?} needs a rejected and an accepted kernel");
        for (i, ir) in bad.iter().enumerate() {
            match verify(ir) {
                Ok(()) => failures.push(format!("{rule:?}: rejected case {i} verifies")),
                Err(e) if e.rule != rule => {
                    failures.push(format!("{rule:?}: rejected case {i} broke {:?} instead: {e}", e.rule))
                }
                Err(e) => {
                    assert!(e.to_string().starts_with("kernel `"), "{e}");
                    // The instruction named is rejected on its own too, unless the rule
                    // is about the whole body.
                    if let Some(at) = e.index {
                        let alone = check_instruction(ir, &ir.body[at as usize]);
                        let want =
                            if WHOLE_BODY_RULES.contains(&rule) { Ok(()) } else { Err(e.kind.clone()) };
                        if alone != want {
                            failures.push(format!("{rule:?}: case {i} alone gives {alone:?}, want {want:?}"));
                        }
                    }
                }
            }
        }
        for (i, ir) in good.iter().enumerate() {
            if let Err(e) = verify(ir) {
                failures.push(format!("{rule:?}: accepted case {i} is rejected ({:?}): {e}", e.rule));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
