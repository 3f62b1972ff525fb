//! The verifier rejects, with an error naming the instruction, what the types cannot catch.

use ptx_core::builder::KernelBuilder;
use ptx_core::ir::{BinaryOp, CvtRound, FloatMode, Imm, Instr, Label, Operand, UnaryOp};
use ptx_core::verify::verify;
use ptx_core::{Cmp, PtxType, SpecialReg, VerifyErrorKind, F32, U32};

fn kind_of(ir: &ptx_core::KernelIr) -> VerifyErrorKind {
    verify(ir).expect_err("the verifier must reject this kernel").kind
}

#[test]
fn use_before_definition_on_one_path_is_rejected_and_named() {
    let mut b = KernelBuilder::new("k");
    let tid = b.special(SpecialReg::TidX);
    let r = b.reg::<U32>();
    let skip = b.label();
    let p = b.setp(Cmp::Lt, tid, 4u32);
    b.bra_if(p, skip);
    b.assign(r, 1u32);
    b.place(skip);
    let out = b.global_pointer("out");
    b.st_global::<U32>(out, 0, r); // r is undefined when the branch is taken
    let ir = b.finish();
    let err = verify(&ir).unwrap_err();
    assert_eq!(err.kind, VerifyErrorKind::UseBeforeDef { reg: "%r1".into() });
    let text = err.to_string();
    assert!(text.contains("st.global.u32") && text.contains("%r1"), "{text}");
}

#[test]
fn definition_on_every_path_is_accepted() {
    let mut b = KernelBuilder::new("k");
    let tid = b.special(SpecialReg::TidX);
    let r = b.reg::<U32>();
    let (else_, join) = (b.label(), b.label());
    let p = b.setp(Cmp::Lt, tid, 4u32);
    b.bra_unless(p, else_);
    b.assign(r, 1u32);
    b.bra(join);
    b.place(else_);
    b.assign(r, 2u32);
    b.place(join);
    let out = b.global_pointer("out");
    b.st_global::<U32>(out, 0, r);
    verify(&b.finish()).expect("r is defined on both paths");
}

#[test]
fn loops_are_analysed_to_a_fixed_point() {
    let mut b = KernelBuilder::new("k");
    let i = b.mov::<U32>(0u32);
    let head = b.label();
    b.place(head);
    let next = b.add(i, 1u32);
    b.assign(i, next);
    let more = b.setp(Cmp::Lt, i, 10u32);
    b.bra_if(more, head);
    verify(&b.finish()).expect("a counted loop verifies");
}

#[test]
fn branch_to_a_label_never_placed() {
    let mut b = KernelBuilder::new("k");
    let l = b.label();
    b.bra(l);
    assert_eq!(kind_of(&b.finish()), VerifyErrorKind::LabelNeverPlaced { label: 0 });
}

#[test]
fn label_placed_twice() {
    let mut b = KernelBuilder::new("k");
    let l = b.label();
    b.place(l);
    b.place(l);
    assert_eq!(kind_of(&b.finish()), VerifyErrorKind::LabelPlacedTwice { label: 0 });
}

#[test]
fn label_that_was_never_allocated() {
    let mut b = KernelBuilder::new("k");
    b.push(Instr::Bra { guard: None, target: Label(7) });
    assert!(matches!(kind_of(&b.finish()), VerifyErrorKind::InvalidForm { .. }));
}

#[test]
fn parameter_read_with_the_wrong_type() {
    let mut b = KernelBuilder::new("k");
    let p = b.param::<F32>("scale");
    let dst = b.raw_reg(PtxType::U32);
    b.push(Instr::LdParam { ty: PtxType::U32, dst, param: p.index() });
    assert_eq!(
        kind_of(&b.finish()),
        VerifyErrorKind::ParamType { param: "scale".into(), declared: PtxType::F32, read_as: PtxType::U32 }
    );
}

#[test]
fn register_of_the_wrong_type() {
    let mut b = KernelBuilder::new("k");
    let f = b.mov::<F32>(1.0f32);
    let dst = b.raw_reg(PtxType::U32);
    let one = Operand::Imm(Imm::new(PtxType::U32, 1));
    b.push(Instr::Binary {
        op: BinaryOp::Add,
        ty: PtxType::U32,
        mode: None,
        dst,
        a: Operand::Reg(f.raw()),
        b: one,
    });
    let err = verify(&b.finish()).unwrap_err();
    assert!(matches!(err.kind, VerifyErrorKind::OperandType { operand: "a", found: PtxType::F32, .. }));
    assert!(err.to_string().contains("add.u32 %r0, %f0, 1"), "{err}");
}

/// Emits one invalid instruction into a kernel.
type Case = Box<dyn Fn(&mut KernelBuilder)>;

#[test]
fn invalid_modifier_combinations() {
    let cases: Vec<Case> = vec![
        // Float add without a rounding mode would let ptxas contract it into an fma.
        Box::new(|b| {
            let x = b.mov::<F32>(1.0f32);
            let d = b.raw_reg(PtxType::F32);
            b.push(Instr::Binary {
                op: BinaryOp::Add,
                ty: PtxType::F32,
                mode: None,
                dst: d,
                a: Operand::Reg(x.raw()),
                b: Operand::Reg(x.raw()),
            });
        }),
        // sin exists only as sin.approx.f32.
        Box::new(|b| {
            let x = b.mov::<F32>(1.0f32);
            let d = b.raw_reg(PtxType::F32);
            b.push(Instr::Unary {
                op: UnaryOp::Sin,
                ty: PtxType::F32,
                mode: Some(FloatMode::Rn),
                dst: d,
                src: Operand::Reg(x.raw()),
            });
        }),
        // Float to integer needs an integer rounding mode.
        Box::new(|b| {
            let x = b.mov::<F32>(1.0f32);
            let d = b.raw_reg(PtxType::S32);
            b.push(Instr::Cvt {
                dst_ty: PtxType::S32,
                src_ty: PtxType::F32,
                round: Some(CvtRound::Rn),
                sat: false,
                dst: d,
                src: Operand::Reg(x.raw()),
            });
        }),
        // neg on an unsigned type does not exist.
        Box::new(|b| {
            let x = b.mov::<U32>(1u32);
            let d = b.raw_reg(PtxType::U32);
            b.push(Instr::Unary {
                op: UnaryOp::Neg,
                ty: PtxType::U32,
                mode: None,
                dst: d,
                src: Operand::Reg(x.raw()),
            });
        }),
    ];
    for (i, case) in cases.iter().enumerate() {
        let mut b = KernelBuilder::new("k");
        case(&mut b);
        let kind = kind_of(&b.finish());
        assert!(matches!(kind, VerifyErrorKind::InvalidForm { .. }), "case {i}: {kind:?}");
    }
}

#[test]
fn names_must_be_identifiers_and_unique() {
    let b = KernelBuilder::new("my-kernel");
    assert!(matches!(kind_of(&b.finish()), VerifyErrorKind::BadName { .. }));
    let mut b = KernelBuilder::new("k");
    b.pointer_param("x");
    b.pointer_param("x");
    assert_eq!(kind_of(&b.finish()), VerifyErrorKind::BadName { name: "x".into() });
}

#[test]
fn predicate_logic_with_constants_never_prints_a_predicate_immediate() {
    use ptx_core::Pred;
    let mut b = KernelBuilder::new("k");
    let tid = b.special(SpecialReg::TidX);
    let p = b.setp(Cmp::Lt, tid, 3u32);
    let and_true = b.and(p, true);
    let or_false = b.or(false, p);
    let xor_true = b.xor(p, true);
    let and_false = b.and(p, false);
    assert!(matches!(and_false.as_imm(), Some(false)));
    let out = b.global_pointer("out");
    for (i, v) in [and_true, or_false, xor_true].into_iter().enumerate() {
        let as_u32 = b.selp::<U32>(v, 1u32, 0u32);
        b.st_global::<U32>(out, 4 * i as i32, as_u32);
    }
    let one = b.mov::<Pred>(true);
    let as_u32 = b.selp::<U32>(one, 1u32, 0u32);
    b.st_global::<U32>(out, 12, as_u32);
    let ir = b.finish();
    verify(&ir).expect("constants folded away or moved with mov.pred");
    let text = ptx_core::print::kernel_ptx(&ir, ptx_core::Target::SM_80);
    assert!(text.contains("not.pred") && text.contains("mov.pred %p"), "{text}");
}

#[test]
fn half_precision_registers_move_as_b16() {
    use ptx_core::builder::Val;
    use ptx_core::{Kernel, KernelBuilder, KernelIr, F16};
    struct MoveHalf;
    impl Kernel for MoveHalf {
        fn name(&self) -> &str {
            "move_half"
        }
        fn build(&self) -> KernelIr {
            let mut b = KernelBuilder::new("move_half");
            let r = b.mov::<F16>(Val::Imm(0x3c00));
            let s = b.mov::<F16>(r);
            b.assign(r, s);
            b.finish()
        }
    }
    let ptx = MoveHalf.try_ptx_for(ptx_core::Target::SM_80).expect("a half mov verifies");
    assert!(ptx.contains("mov.b16"), "{ptx}");
}

#[test]
fn an_error_names_the_source_statement_of_its_instruction() {
    use ptx_core::{KernelBuilder, U32};
    let mut b = KernelBuilder::new("k");
    b.note_source("src/kernels.rs", 12, 5, "let y = x + 1;");
    let r = b.reg::<U32>();
    let _ = b.add(r, 1u32);
    let err = ptx_core::verify::verify(&b.finish()).unwrap_err();
    assert_eq!(err.source.as_deref(), Some("src/kernels.rs:12:5"));
    assert!(err.to_string().contains("at src/kernels.rs:12:5"), "{err}");
}

#[test]
fn bytes_live_in_16_or_32_bit_integer_registers() {
    use ptx_core::ir::{AddrBase, Address, RegList, Space};
    use ptx_core::{S8, U8};
    // The typed byte accesses verify: the loads extend into U32/S32 registers.
    let mut b = KernelBuilder::new("k");
    let p = b.global_pointer("p");
    let x = b.ld_global_byte::<U8>(p, 0);
    let y = b.ld_global_byte::<S8>(p, 1);
    let y = b.cast::<U32, ptx_core::S32>(y);
    let s = b.add(x, y);
    b.st_global_byte::<U8>(p, 2, s);
    b.ret();
    verify(&b.finish()).expect("byte accesses through 32-bit registers verify");

    // A byte register does not exist.
    let mut b = KernelBuilder::new("k");
    let p = b.global_pointer("p");
    let byte = b.raw_reg(PtxType::U8);
    let dsts = RegList::new(&[byte]).expect("one");
    b.push(Instr::Ld {
        guard: None,
        space: Space::Global,
        ty: PtxType::U8,
        dsts,
        addr: Address { base: AddrBase::Reg(p.raw()), offset: 0 },
    });
    b.ret();
    let kind = kind_of(&b.finish());
    assert!(
        matches!(&kind, VerifyErrorKind::InvalidForm { reason } if reason.contains("no .u8 registers")),
        "{kind:?}"
    );

    // Nor does a byte load into a 64-bit or float register.
    for ty in [PtxType::U64, PtxType::F32] {
        let mut b = KernelBuilder::new("k");
        let p = b.global_pointer("p");
        let dsts = RegList::new(&[b.raw_reg(ty)]).expect("one");
        b.push(Instr::Ld {
            guard: None,
            space: Space::Global,
            ty: PtxType::S8,
            dsts,
            addr: Address { base: AddrBase::Reg(p.raw()), offset: 0 },
        });
        b.ret();
        let kind = kind_of(&b.finish());
        assert!(
            matches!(kind, VerifyErrorKind::OperandType { operand: "dst", found, .. } if found == ty),
            "{kind:?}"
        );
    }
}

#[test]
fn a_register_index_at_the_count_is_unknown() {
    // The kernel declares %r0..%r{n-1}: index n is one past the end, n - 1 is the last.
    let build = |past_the_end: bool| {
        let mut b = KernelBuilder::new("k");
        let r = b.raw_reg(PtxType::U32);
        let index = if past_the_end { r.index + 1 } else { r.index };
        b.push(Instr::Mov {
            ty: PtxType::U32,
            dst: ptx_core::ir::VReg { ty: PtxType::U32, index },
            src: Operand::Imm(Imm::new(PtxType::U32, 1)),
        });
        b.finish()
    };
    verify(&build(false)).expect("the last declared register is known");
    match kind_of(&build(true)) {
        VerifyErrorKind::UnknownReference { what } => assert_eq!(what, "register %r1"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn barrier_ids_are_0_to_15() {
    let build = |barrier: u32| {
        let mut b = KernelBuilder::new("k");
        b.push(Instr::BarSync { barrier });
        b.finish()
    };
    verify(&build(0)).expect("barrier 0");
    verify(&build(15)).expect("barrier 15, the last");
    match kind_of(&build(16)) {
        VerifyErrorKind::InvalidForm { reason } => assert!(reason.contains("barrier 16"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn static_shared_memory_is_at_most_48_kib_and_never_empty() {
    let build = |sizes: &[u32]| {
        let mut b = KernelBuilder::new("k");
        for &bytes in sizes {
            b.shared_array(bytes, 4);
        }
        b.finish()
    };
    verify(&build(&[48 * 1024])).expect("exactly 48 KiB");
    verify(&build(&[1, 48 * 1024 - 4])).expect("48 KiB with the second array aligned to 4");
    for (sizes, want) in [
        (&[48 * 1024 + 4][..], "49156 bytes"),
        (&[1, 48 * 1024 - 3][..], "49153 bytes"),
        (&[0][..], "0 bytes"),
        // A size its caller saturated at `u32::MAX` (its true size does not fit 32 bits).
        (&[u32::MAX][..], "take 4 GiB or more, more than"),
    ] {
        match kind_of(&build(sizes)) {
            VerifyErrorKind::InvalidForm { reason } => assert!(reason.contains(want), "{sizes:?}: {reason}"),
            other => panic!("{sizes:?}: {other:?}"),
        }
    }
}

#[test]
fn each_atomic_operation_takes_the_types_ptx_defines() {
    use ptx_core::ir::{AddrBase, Address, AtomOp, Space};
    let build = |op: AtomOp, ty: PtxType| {
        let mut b = KernelBuilder::new("k");
        let smem = b.shared_array(16, 8);
        let dst = b.raw_reg(ty);
        let a = b.raw_reg(ty);
        b.push(Instr::Mov { ty, dst: a, src: Operand::Imm(Imm::new(ty, 1)) });
        let addr = Address { base: AddrBase::Shared(smem), offset: 0 };
        let b_op = (op == AtomOp::Cas).then_some(Operand::Reg(a));
        b.push(Instr::Atom {
            guard: None,
            op,
            space: Space::Shared,
            ty,
            dst,
            addr,
            a: Operand::Reg(a),
            b: b_op,
        });
        b.finish()
    };
    for (op, accepted, rejected) in [
        (
            AtomOp::Add,
            &[PtxType::U32, PtxType::S32, PtxType::U64, PtxType::F32, PtxType::F64][..],
            &[PtxType::S64][..],
        ),
        (
            AtomOp::Min,
            &[PtxType::U32, PtxType::S32, PtxType::U64, PtxType::S64],
            &[PtxType::F32, PtxType::F64],
        ),
        (AtomOp::Max, &[PtxType::U32, PtxType::S64], &[PtxType::F32]),
        (AtomOp::And, &[PtxType::U32, PtxType::S64, PtxType::B32], &[PtxType::U16]),
        (AtomOp::Xor, &[PtxType::U64], &[PtxType::Pred]),
        (AtomOp::Cas, &[PtxType::F32, PtxType::U64], &[PtxType::U16]),
    ] {
        for &ty in accepted {
            verify(&build(op, ty)).unwrap_or_else(|e| panic!("atom{}.{ty}: {e}", op.suffix()));
        }
        for &ty in rejected {
            match kind_of(&build(op, ty)) {
                VerifyErrorKind::InvalidForm { reason } => {
                    assert!(reason.contains("does not exist"), "atom{}.{ty}: {reason}", op.suffix())
                }
                other => panic!("atom{}.{ty}: {other:?}", op.suffix()),
            }
        }
    }
}

/// An assumption (a register a proven bound rests on) written more than once is reported
/// at its second write; a vector load naming the register twice is one write.
#[test]
fn an_assumed_register_written_again_is_named_at_its_second_write() {
    use ptx_core::ir::{AddrBase, Address, RegList, Space};
    let build = |movs: usize, loads: usize| {
        let mut b = KernelBuilder::new("k");
        let p = b.global_pointer("p");
        let r = b.raw_reg(PtxType::U32);
        for _ in 0..loads {
            b.push(Instr::Ld {
                guard: None,
                space: Space::Global,
                ty: PtxType::U32,
                dsts: RegList::new(&[r, r]).expect("two"),
                addr: Address { base: AddrBase::Reg(p.raw()), offset: 0 },
            });
        }
        for _ in 0..movs {
            b.push(Instr::Mov { ty: PtxType::U32, dst: r, src: Operand::Imm(Imm::new(PtxType::U32, 7)) });
        }
        b.ret();
        let mut ir = b.finish();
        ir.assumptions.push(r);
        ir
    };
    verify(&build(1, 0)).expect("one write keeps the assumption");
    verify(&build(0, 1)).expect("one load writing the register twice is one write");
    // The body starts with the parameter's load and conversion: the writes are
    // instructions 2, 3 and 4; none at all is a kernel-wide error.
    for (movs, loads, second) in [(3, 0, Some(3)), (1, 1, Some(3)), (0, 0, None)] {
        let e = verify(&build(movs, loads)).expect_err("the assumption is broken");
        assert!(matches!(e.kind, VerifyErrorKind::AssumptionBroken { .. }), "{e}");
        assert_eq!(e.index, second, "{movs} movs, {loads} loads: {e}");
        assert!(e.to_string().contains("`%r0` must be written exactly once: the code built after its definition relied on that value's range"), "{e}");
    }
}
