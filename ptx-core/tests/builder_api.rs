//! The builder's public API, one behaviour per test, read off the instructions and the IR it
//! produces: typed registers and operands, parameter indices, the pointer-access tracking the
//! runtime's launch checks rely on, source notes, casts, predicated and vector memory
//! accesses, shared arrays, strings and `printf` buffers. (Folding and verification have
//! their own files: `properties.rs`, `int_folding.rs`, `verify_rules.rs`.)

use ptx_core::builder::{KernelBuilder, Reg, Val};
use ptx_core::ir::{Guard, Imm, Instr, Operand, PointerAccess, PrintArg, SharedId};
use ptx_core::{CvtRound, Pred, PtxType, F32, F64, S32, U32, U64, U8};

/// The stores of `b`: guard, memory type, offset, number of registers.
fn stores(b: &KernelBuilder) -> Vec<(&Option<Guard>, PtxType, i32, usize)> {
    b.body()
        .iter()
        .filter_map(|i| match i {
            Instr::St { guard, ty, srcs, addr, .. } => Some((guard, *ty, addr.offset, srcs.as_slice().len())),
            _ => None,
        })
        .collect()
}

/// The loads of `b`: guard, memory type, offset.
fn loads(b: &KernelBuilder) -> Vec<(&Option<Guard>, PtxType, i32)> {
    b.body()
        .iter()
        .filter_map(|i| match i {
            Instr::Ld { guard, ty, addr, .. } => Some((guard, *ty, addr.offset)),
            _ => None,
        })
        .collect()
}

#[test]
fn typed_registers_compare_print_and_convert_by_their_untyped_register() {
    let mut b = KernelBuilder::new("k");
    let (r0, r1) = (b.reg::<F32>(), b.reg::<F32>());
    assert_eq!(r0, r0);
    assert_ne!(r0, r1);
    assert_eq!(format!("{r1:?}"), "%f1");
    assert_eq!(format!("{:?}", Val::Reg(r0)), "%f0");
    assert_eq!(format!("{:?}", Val::<F32>::Imm(1.5)), "1.5");
    // from_raw and from_operand accept exactly their own type.
    assert_eq!(Reg::<F32>::from_raw(r1.raw()), Some(r1));
    assert_eq!(Reg::<U32>::from_raw(r1.raw()), None);
    let reg_op = Operand::Reg(r1.raw());
    assert!(matches!(Val::<F32>::from_operand(reg_op), Some(Val::Reg(r)) if r == r1));
    assert!(Val::<S32>::from_operand(reg_op).is_none());
    let imm = Operand::Imm(Imm::new(PtxType::F32, 2.5f32.to_bits() as u64));
    assert_eq!(Val::<F32>::from_operand(imm).and_then(Val::as_imm), Some(2.5));
    assert!(Val::<U32>::from_operand(imm).is_none());
}

#[test]
fn parameters_are_numbered_in_declaration_order() {
    let mut b = KernelBuilder::new("k");
    let n = b.param::<U32>("n");
    let raw = b.raw_param("scale", PtxType::F64);
    let p = b.pointer_param("out");
    let again = b.raw_param("bias", PtxType::S32);
    assert_eq!((n.index(), raw, p.index(), again), (0, 1, 2, 3));
    let params = &b.ir().params;
    assert_eq!((params[1].ty, params[1].is_pointer), (PtxType::F64, false));
    assert_eq!((params[2].ty, params[2].is_pointer), (PtxType::U64, true));
}

#[test]
fn accesses_are_recorded_on_the_pointer_parameter_they_derive_from() {
    let mut b = KernelBuilder::new("k");
    let scalar = b.param::<U64>("not_a_pointer");
    let input = b.global_pointer("input"); // ld.param + cvta
    let output = b.global_pointer("output");
    let bytes = b.global_pointer("bytes");
    // Loads through an element address (a 64-bit add), stores through a copy (mov).
    let i = b.special(ptx_core::SpecialReg::TidX);
    let at = b.element_address::<F32>(input, i);
    let _ = b.ld_global::<F32>(at, 4);
    let copy = b.mov(output);
    b.st_global::<F32>(copy, 0, 1.0f32);
    // One pointer read with two types: mixed, no element type.
    let _ = b.ld_global::<U32>(bytes, 0);
    let _ = b.ld_global_byte::<U8>(bytes, 0);
    // A 64-bit value loaded from a scalar parameter is no pointer of the kernel's.
    let raw = b.load_param(scalar);
    b.st_global::<U32>(raw, 0, 7u32);
    let params = &b.ir().params;
    assert_eq!(params[1].access, PointerAccess { written: false, elem: Some(PtxType::F32), mixed: false });
    assert_eq!(params[2].access, PointerAccess { written: true, elem: Some(PtxType::F32), mixed: false });
    assert_eq!(params[3].access, PointerAccess { written: false, elem: None, mixed: true });
    assert_eq!(params[0].access, PointerAccess::default());
}

#[test]
fn an_atomic_or_a_guarded_store_writes_its_pointer() {
    let mut b = KernelBuilder::new("k");
    let counter = b.global_pointer("counter");
    let flags = b.global_pointer("flags");
    let _ = b.atom_add::<U32>(counter, 1u32);
    let tid = b.special(ptx_core::SpecialReg::TidX);
    let first = b.setp(ptx_core::Cmp::Eq, tid, 0u32);
    b.st_global_if::<U32>(first, false, flags, 0, 1u32);
    let params = &b.ir().params;
    assert!(params[0].access.written && params[0].access.elem == Some(PtxType::U32));
    assert!(params[1].access.written && params[1].access.elem == Some(PtxType::U32));
}

#[test]
fn a_second_note_at_the_same_place_replaces_the_first() {
    let mut b = KernelBuilder::new("k");
    b.note_source("k.rs", 1, 5, "let a = 1;");
    b.note_source("k.rs", 2, 5, "let b = 2;"); // nothing emitted for `a`
    let _ = b.mov::<U32>(1u32);
    b.note_source("k.rs", 3, 5, "let c = 3;");
    let notes = &b.ir().notes;
    assert_eq!(notes.iter().map(|n| (n.at, n.line)).collect::<Vec<_>>(), [(0, 2), (1, 3)]);
}

#[test]
fn predicate_or_with_true_is_true_and_with_false_is_the_register() {
    let mut b = KernelBuilder::new("k");
    let tid = b.special(ptx_core::SpecialReg::TidX);
    let p = b.setp(ptx_core::Cmp::Lt, tid, 4u32);
    let before = b.body().len();
    assert_eq!(b.or::<Pred>(p, true).as_imm(), Some(true));
    assert_eq!(b.or::<Pred>(true, p).as_imm(), Some(true));
    assert!(matches!(b.or::<Pred>(p, false), Val::Reg(_)));
    assert_eq!(b.and::<Pred>(p, false).as_imm(), Some(false));
    assert_eq!(b.body().len(), before, "no instruction for logic with a constant");
}

/// The rounding modifier of the one `cvt` a cast emits.
fn cast_rounding<D: ptx_core::types::Ty, S: ptx_core::types::Ty>() -> Option<Option<CvtRound>> {
    let mut b = KernelBuilder::new("k");
    let src = b.reg::<S>();
    let _: Val<D> = b.cast(src);
    b.body().iter().find_map(|i| match i {
        Instr::Cvt { round, .. } => Some(*round),
        _ => None,
    })
}

#[test]
fn casts_round_as_rusts_as() {
    assert_eq!(cast_rounding::<S32, F32>(), Some(Some(CvtRound::Rzi)), "float to integer truncates");
    assert_eq!(cast_rounding::<F32, U32>(), Some(Some(CvtRound::Rn)), "integer to float rounds");
    assert_eq!(cast_rounding::<F32, F64>(), Some(Some(CvtRound::Rn)), "f64 to f32 rounds");
    assert_eq!(cast_rounding::<F64, F32>(), Some(None), "f32 to f64 is exact");
    assert_eq!(cast_rounding::<U64, U32>(), Some(None), "integers extend");
    assert_eq!(cast_rounding::<F32, F32>(), None, "a float to its own type is no conversion");
    // The same type without rounding or saturation is the same register, no instruction.
    let mut b = KernelBuilder::new("k");
    let r = b.reg::<F32>();
    let same: Val<F32> = b.cvt(r, None, false);
    assert!(matches!(same, Val::Reg(s) if s == r) && b.body().is_empty());
    let _: Val<F32> = b.cvt(r, None, true);
    assert_eq!(b.body().len(), 1, "saturation is an instruction");
}

#[test]
fn vector_stores_of_other_lengths_store_each_value_at_its_offset() {
    let mut b = KernelBuilder::new("k");
    let out = b.global_pointer("out");
    let values = [b.reg::<F32>(), b.reg::<F32>(), b.reg::<F32>()];
    b.st_global_vec::<F32>(out, 16, &values);
    let four = [values[0], values[1], values[2], values[0]];
    b.st_global_vec::<F32>(out, 32, &four);
    let offsets: Vec<_> = stores(&b).iter().map(|s| (s.2, s.3)).collect();
    assert_eq!(offsets, [(16, 1), (20, 1), (24, 1), (32, 4)]);
}

#[test]
fn byte_stores_store_a_byte() {
    let mut b = KernelBuilder::new("k");
    let out = b.global_pointer("out");
    b.st_global_byte::<U8>(out, 3, 0x1ffu32);
    assert_eq!(stores(&b).iter().map(|s| (s.1, s.2)).collect::<Vec<_>>(), [(PtxType::U8, 3)]);
}

#[test]
fn the_dynamic_shared_array_is_declared_once_with_the_largest_alignment() {
    let mut b = KernelBuilder::new("k");
    let fixed = b.shared_array(64, 4);
    let dynamic = b.dynamic_shared_array(8);
    let again = b.dynamic_shared_array(16);
    let smaller = b.dynamic_shared_array(4);
    assert_eq!((fixed, dynamic, again, smaller), (SharedId(0), SharedId(1), SharedId(1), SharedId(1)));
    let shared = &b.ir().shared;
    assert_eq!(shared.len(), 2);
    assert!(shared[1].dynamic && shared[1].align == 16 && shared[1].bytes == 0);
}

#[test]
fn strings_are_nul_terminated_and_shared() {
    let mut b = KernelBuilder::new("k");
    let hello = b.string(b"hello");
    let world = b.string(b"world");
    assert_eq!(b.string(b"hello"), hello);
    assert_ne!(hello, world);
    assert_eq!(b.ir().strings, [b"hello\0".to_vec(), b"world\0".to_vec()]);
}

#[test]
fn printf_buffers_hold_every_argument_and_at_least_8_bytes() {
    let mut b = KernelBuilder::new("k");
    let format = b.string(b"%d %s\n");
    b.printf(format, vec![]);
    assert_eq!(b.ir().print_buffer_bytes, 8);
    let (v, p) = (b.raw_reg(PtxType::F64), b.raw_reg(PtxType::Pred));
    b.printf(format, vec![PrintArg::Value { offset: 16, ty: PtxType::F64, reg: v }]);
    assert_eq!(b.ir().print_buffer_bytes, 24);
    let choice = PrintArg::Choice { offset: 32, pred: p, if_true: format, if_false: format };
    b.printf(format, vec![choice]);
    assert_eq!(b.ir().print_buffer_bytes, 40);
}

#[test]
fn guarded_accesses_follow_their_predicate() {
    let mut b = KernelBuilder::new("k");
    let ptr = b.global_pointer("p");
    let tid = b.special(ptx_core::SpecialReg::TidX);
    let p = b.setp(ptx_core::Cmp::Lt, tid, 4u32);
    let Val::Reg(pred) = p else { panic!("a comparison with a register is a register") };
    let (dst, byte, old) = (b.reg::<F32>(), b.reg::<U32>(), b.reg::<U32>());
    b.ld_global_into_if::<F32>(p, false, ptr, 0, dst);
    b.ld_global_byte_into_if::<U8>(p, true, ptr, 1, byte);
    b.st_global_if::<F32>(p, true, ptr, 4, 2.0f32);
    b.st_global_byte_if::<U8>(p, false, ptr, 5, 9u32);
    b.atom_cas_into_if::<U32>(p, false, ptr, 0u32, 1u32, old);
    let when = |negated| Some(Guard { pred: pred.raw(), negated });
    assert_eq!(loads(&b), [(&when(false), PtxType::F32, 0), (&when(true), PtxType::U8, 1)]);
    let st: Vec<_> = stores(&b).iter().map(|s| (*s.0, s.1, s.2)).collect();
    assert_eq!(st, [(when(true), PtxType::F32, 4), (when(false), PtxType::U8, 5)]);
    assert!(b.body().iter().any(|i| matches!(i, Instr::Atom { guard, .. } if *guard == when(false))));
    // A constant predicate: always (no guard) or never (nothing emitted).
    let before = b.body().len();
    b.st_global_if::<F32>(false, false, ptr, 0, 1.0f32);
    b.st_global_if::<F32>(true, true, ptr, 0, 1.0f32);
    b.ld_global_into_if::<F32>(true, true, ptr, 0, dst);
    assert_eq!(b.body().len(), before, "a guard that never holds emits nothing");
    b.st_global_if::<F32>(true, false, ptr, 8, 1.0f32);
    b.ld_global_into_if::<F32>(false, true, ptr, 12, dst);
    assert_eq!(stores(&b).last().map(|s| (*s.0, s.2)), Some((None, 8)));
    assert_eq!(loads(&b).last().map(|l| (*l.0, l.2)), Some((None, 12)));
}
