//! The builder's magnitude facts (`KernelBuilder::magnitude_bound`): what proves a bound,
//! what forgets one, the sine leaving out its Payne–Hanek path for a fraction of a turn, and
//! the verifier rejecting a kernel that writes a register a bound rested on.

use ptx_core::builder::{KernelBuilder, Val};
use ptx_core::ir::{CvtRound, Instr, Operand};
use ptx_core::verify::verify;
use ptx_core::{math, VerifyErrorKind, F32};

/// A value loaded from memory (through a new parameter), so nothing about it is known.
fn unknown(b: &mut KernelBuilder) -> Val<F32> {
    let name = format!("x{}", b.ir().params.len());
    let p = b.global_pointer(name);
    Val::Reg(b.ld_global::<F32>(p, 0))
}

fn fraction(b: &mut KernelBuilder, x: Val<F32>) -> Val<F32> {
    let r: Val<F32> = b.cvt(x, Some(CvtRound::Rni), false);
    b.sub(x, r)
}

#[test]
fn a_fraction_and_what_is_built_from_it_are_bounded() {
    let mut b = KernelBuilder::new("k");
    let x = unknown(&mut b);
    assert_eq!(b.magnitude_bound(x), None);
    let f = fraction(&mut b, x);
    assert_eq!(b.magnitude_bound(f), Some(0.5));
    let angle = b.mul(f, std::f32::consts::TAU);
    let bound = b.magnitude_bound(angle).expect("a product with a constant keeps a bound");
    assert!((std::f32::consts::PI..std::f32::consts::PI * 1.000_001).contains(&bound), "{bound}");
    let sum = b.add(f, angle);
    assert!(b.magnitude_bound(sum).expect("a sum keeps a bound") > bound);
    // Other operations, other operands, and other rounding modes prove nothing.
    let (y, ry) = (unknown(&mut b), unknown(&mut b));
    let not_own_rounding = b.sub(y, ry);
    assert_eq!(b.magnitude_bound(not_own_rounding), None);
    let floor: Val<F32> = b.cvt(y, Some(CvtRound::Rmi), false);
    let not_rni = b.sub(y, floor);
    assert_eq!(b.magnitude_bound(not_rni), None);
    let quotient = b.div(f, 3.0f32);
    assert_eq!(b.magnitude_bound(quotient), None);
    let times_unknown = b.mul(f, y);
    assert_eq!(b.magnitude_bound(times_unknown), None);
    assert_eq!(b.magnitude_bound(Val::Imm(-3.0)), Some(3.0));
    let ir = b.finish();
    assert!(!ir.assumptions.is_empty());
    verify(&ir).expect("every assumed register is written once");
}

#[test]
fn writing_a_source_again_forgets_the_fact() {
    let mut b = KernelBuilder::new("k");
    let x = unknown(&mut b);
    let Val::Reg(xr) = x else { unreachable!() };
    let r: Val<F32> = b.cvt(x, Some(CvtRound::Rni), false);
    b.assign(xr, 1.0e9f32); // x changes: r is no longer its rounding
    let d = b.sub(x, r);
    assert_eq!(b.magnitude_bound(d), None);
}

#[test]
fn the_sine_of_a_fraction_of_a_turn_has_no_large_argument_path() {
    let build = |bounded: bool| {
        let mut b = KernelBuilder::new("k");
        let x = unknown(&mut b);
        let t = if bounded { fraction(&mut b, x) } else { x };
        let angle = b.mul(t, std::f32::consts::TAU);
        let (s, c) = math::sin_cos(&mut b, angle);
        let out = b.global_pointer("out");
        b.st_global::<F32>(out, 0, s);
        b.st_global::<F32>(out, 4, c);
        let ir = b.finish();
        verify(&ir).expect("verifies");
        ir
    };
    let (general, reduced) = (build(false), build(true));
    let branches =
        |ir: &ptx_core::KernelIr| ir.body.iter().filter(|i| matches!(i, Instr::Bra { .. })).count();
    assert!(branches(&general) > 0, "the general sine branches to Payne–Hanek");
    assert_eq!(branches(&reduced), 0, "the sine of a fraction of a turn cannot need it");
    assert!(reduced.instruction_count() + 50 < general.instruction_count());
    // Nor can it be infinite: only the general sine compares its argument with infinity.
    let infinity_checks = |ir: &ptx_core::KernelIr| {
        let infinity = f32::INFINITY.to_bits() as u64;
        let is_infinity = |op: &Operand| matches!(op, Operand::Imm(imm) if imm.bits == infinity);
        ir.body
            .iter()
            .filter(|i| matches!(i, Instr::Setp { a, b, .. } if is_infinity(a) || is_infinity(b)))
            .count()
    };
    assert_eq!(infinity_checks(&general), 1);
    assert_eq!(infinity_checks(&reduced), 0);
}

#[test]
fn a_kernel_that_writes_an_assumed_register_again_is_rejected() {
    let mut b = KernelBuilder::new("k");
    let x = unknown(&mut b);
    let f = fraction(&mut b, x);
    let angle = b.mul(f, std::f32::consts::TAU);
    let (s, _) = math::sin_cos(&mut b, angle);
    // A loop back-edge could bring this value to the sine above: the bound would not hold.
    let Val::Reg(angle_reg) = angle else { unreachable!() };
    b.assign(angle_reg, 1.0e9f32);
    let out = b.global_pointer("out");
    b.st_global::<F32>(out, 0, s);
    let err = verify(&b.finish()).expect_err("the assumption is broken");
    assert!(matches!(err.kind, VerifyErrorKind::AssumptionBroken { .. }), "{err}");
    assert!(err.to_string().contains("relied on"), "{err}");
}

#[test]
fn a_label_between_the_rounding_and_the_difference_forgets_it() {
    let mut b = KernelBuilder::new("k");
    let x = unknown(&mut b);
    let r: Val<F32> = b.cvt(x, Some(CvtRound::Rni), false);
    let join = b.label();
    b.place(join); // another path could arrive here with other values
    let d = b.sub(x, r);
    assert_eq!(b.magnitude_bound(d), None);
}

#[test]
fn a_loop_that_advances_its_variable_after_the_sine_still_verifies() {
    // `let mut t = x; loop { let f = t - t.round_ties_even(); sin_cos(f·2π); t += 0.25 }`:
    // the fraction is taken from one value of `t`, so `t` itself is not an assumption.
    let mut b = KernelBuilder::new("k");
    let x = unknown(&mut b);
    let t = b.mov(x);
    let (head, exit) = (b.label(), b.label());
    b.place(head);
    let f = fraction(&mut b, Val::Reg(t));
    let angle = b.mul(f, std::f32::consts::TAU);
    let (s, _) = math::sin_cos(&mut b, angle);
    let out = b.global_pointer("out");
    b.st_global::<F32>(out, 0, s);
    let next = b.add(t, 0.25f32);
    b.assign(t, next);
    let done = b.setp(ptx_core::Cmp::Gt, t, 100.0f32);
    b.bra_if(done, exit);
    b.bra(head);
    b.place(exit);
    let ir = b.finish();
    // The loop's exit is the one conditional branch: the sine took its short path.
    let conditional = ir.body.iter().filter(|i| matches!(i, Instr::Bra { guard: Some(_), .. })).count();
    assert_eq!(conditional, 1);
    verify(&ir).expect("the assumed registers (the fraction and the angle) are written once");
    assert!(!ir.assumptions.is_empty());
}
