//! The verifier's definite-assignment analysis (bit rows per basic block, one pass for
//! forward-only code, a fixed point for loops) against a plain reference written here: a
//! per-instruction dataflow over sets, on random kernels with loops, guarded and
//! unguarded branches, early `ret`s and more than 64 registers of each of several types
//! (so the bit rows span several words). A fresh seed each run (printed; replay with
//! `PTX_DSL_TEST_SEED`).

use std::collections::HashSet;

use ptx_core::builder::KernelBuilder;
use ptx_core::ir::{BinaryOp, Guard, Imm, Instr, Operand, VReg};
use ptx_core::verify::verify;
use ptx_core::{Cmp, KernelIr, PtxType, Rule, VerifyErrorKind};
use ptx_tools::rng::Rng;

/// A random kernel: straight-line definitions and reads of `.u32`, `.u64` and `.pred`
/// registers, with labels, forward and backward branches (some guarded) and `ret`s.
fn random_kernel(rng: &mut Rng) -> KernelIr {
    let mut b = KernelBuilder::new("k");
    let below = |rng: &mut Rng, n: u64| rng.next() % n;
    let (n32, n64, npred) =
        (65 + below(rng, 100) as u32, 1 + below(rng, 140) as u32, 1 + below(rng, 70) as u32);
    let regs = |ty: PtxType, n: u32, b: &mut KernelBuilder| (0..n).map(|_| b.raw_reg(ty)).collect::<Vec<_>>();
    let (r32, r64, preds) = (
        regs(PtxType::U32, n32, &mut b),
        regs(PtxType::U64, n64, &mut b),
        regs(PtxType::Pred, npred, &mut b),
    );
    let labels: Vec<_> = (0..1 + below(rng, 8)).map(|_| b.label()).collect();
    let mut unplaced: Vec<_> = labels.clone();
    let pick = |rng: &mut Rng, v: &[VReg]| v[(rng.next() % v.len() as u64) as usize];
    // Reads mostly pick a register written earlier in the text, so that what is undefined
    // is so on some path only (or, one time in 256, any register). The first of each type
    // is written first.
    let (mut seen32, mut seen64, mut seen_pred) = (vec![r32[0]], vec![r64[0]], vec![preds[0]]);
    for r in [r32[0], r64[0], preds[0]] {
        b.push(Instr::Mov { ty: r.ty, dst: r, src: Operand::Imm(Imm::new(r.ty, 1)) });
    }
    let read = |rng: &mut Rng, seen: &[VReg], all: &[VReg]| {
        if rng.next().is_multiple_of(256) {
            pick(rng, all)
        } else {
            pick(rng, seen)
        }
    };
    let len = 10 + below(rng, 120);
    for _ in 0..len {
        match below(rng, 16) {
            0..=3 => {
                let dst = pick(rng, &r32);
                seen32.push(dst);
                b.push(Instr::Mov { ty: PtxType::U32, dst, src: Operand::Imm(Imm::new(PtxType::U32, 3)) });
            }
            4..=5 => {
                let dst = pick(rng, &r64);
                seen64.push(dst);
                b.push(Instr::Mov { ty: PtxType::U64, dst, src: Operand::Imm(Imm::new(PtxType::U64, 3)) });
            }
            6..=7 => {
                let (dst, a, c) = (pick(rng, &r32), read(rng, &seen32, &r32), read(rng, &seen32, &r32));
                seen32.push(dst);
                let op = BinaryOp::Add;
                b.push(Instr::Binary {
                    op,
                    ty: PtxType::U32,
                    mode: None,
                    dst,
                    a: Operand::Reg(a),
                    b: Operand::Reg(c),
                });
            }
            8 => {
                let (dst, a) = (pick(rng, &r64), read(rng, &seen64, &r64));
                seen64.push(dst);
                let op = BinaryOp::Xor;
                let imm = Operand::Imm(Imm::new(PtxType::U64, 5));
                b.push(Instr::Binary { op, ty: PtxType::U64, mode: None, dst, a: Operand::Reg(a), b: imm });
            }
            9..=10 => {
                let (dst, a) = (pick(rng, &preds), read(rng, &seen32, &r32));
                seen_pred.push(dst);
                let bound = Operand::Imm(Imm::new(PtxType::U32, 9));
                b.push(Instr::Setp { cmp: Cmp::Lt, ty: PtxType::U32, dst, a: Operand::Reg(a), b: bound });
            }
            11 if !unplaced.is_empty() => {
                let at = (rng.next() % unplaced.len() as u64) as usize;
                b.place(unplaced.swap_remove(at));
            }
            12..=13 => {
                let target = labels[(rng.next() % labels.len() as u64) as usize];
                let guard = (below(rng, 4) != 0)
                    .then(|| Guard { pred: read(rng, &seen_pred, &preds), negated: below(rng, 2) == 0 });
                b.push(Instr::Bra { guard, target });
            }
            14 if below(rng, 3) == 0 => b.push(Instr::Ret),
            _ => {}
        }
    }
    for l in unplaced {
        b.place(l);
    }
    b.finish()
}

/// The registers `instr` reads and writes, from this file's own knowledge of the few
/// instructions `random_kernel` emits.
fn uses_and_defs(instr: &Instr) -> (Vec<VReg>, Option<VReg>) {
    let reg = |o: &Operand| match o {
        Operand::Reg(r) => Some(*r),
        Operand::Imm(_) => None,
    };
    match instr {
        Instr::Mov { dst, src, .. } => (reg(src).into_iter().collect(), Some(*dst)),
        Instr::Binary { dst, a, b, .. } | Instr::Setp { dst, a, b, .. } => {
            ([reg(a), reg(b)].into_iter().flatten().collect(), Some(*dst))
        }
        Instr::Bra { guard, .. } => (guard.iter().map(|g| g.pred).collect(), None),
        Instr::Label(_) | Instr::Ret => (vec![], None),
        other => panic!("random_kernel does not emit {other:?}"),
    }
}

/// The index of the first instruction that reads a register not written on every path
/// to it (unreachable instructions read nothing undefined), by a per-instruction
/// fixed point: `defined[i]` is `None` (every register) until a path reaches `i`.
fn first_undefined_read(k: &KernelIr) -> Option<usize> {
    let n = k.body.len();
    let label_at = |l: u32| k.body.iter().position(|i| *i == Instr::Label(ptx_core::Label(l))).unwrap();
    let successors = |i: usize| -> Vec<usize> {
        match &k.body[i] {
            Instr::Ret => vec![],
            Instr::Bra { guard: None, target } => vec![label_at(target.0)],
            Instr::Bra { guard: Some(_), target } => vec![label_at(target.0), i + 1],
            _ => vec![i + 1],
        }
    };
    let mut defined: Vec<Option<HashSet<VReg>>> = vec![None; n];
    defined[0] = Some(HashSet::new());
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            let Some(before) = defined[i].clone() else { continue };
            let mut after = before;
            after.extend(uses_and_defs(&k.body[i]).1);
            for s in successors(i).into_iter().filter(|&s| s < n) {
                let next = match &defined[s] {
                    None => after.clone(),
                    Some(old) => old.intersection(&after).copied().collect(),
                };
                if defined[s].as_ref() != Some(&next) {
                    defined[s] = Some(next);
                    changed = true;
                }
            }
        }
    }
    (0..n).find(|&i| {
        defined[i].as_ref().is_some_and(|set| uses_and_defs(&k.body[i]).0.iter().any(|r| !set.contains(r)))
    })
}

/// Random kernels per run.
const CASES: usize = 2000;

#[test]
fn definite_assignment_matches_a_plain_dataflow_reference() {
    let mut rng = Rng::fresh("definite_assignment");
    let (mut rejected, mut with_loops) = (0, 0);
    for case in 0..CASES {
        let k = random_kernel(&mut rng);
        let want = first_undefined_read(&k);
        let got = match verify(&k) {
            Ok(()) => None,
            Err(e) => {
                assert_eq!(e.rule, Rule::DefinedBeforeUse, "case {case}: {e}");
                let at = e.index.expect("names the instruction") as usize;
                let VerifyErrorKind::UseBeforeDef { reg } = &e.kind else { panic!("case {case}: {e}") };
                let (uses, _) = uses_and_defs(&k.body[at]);
                let named = uses.iter().any(|r| format!("%{}{}", r.ty.reg_prefix(), r.index) == *reg);
                assert!(named, "case {case}: {reg} is not read by instruction {at}");
                Some(at)
            }
        };
        assert_eq!(got, want, "case {case}:\n{}", ptx_core::print::kernel_ptx(&k, ptx_core::Target::SM_80));
        rejected += usize::from(want.is_some());
        let backward = k.body.iter().enumerate().any(|(i, instr)| match instr {
            Instr::Bra { target, .. } => k.body[..i].contains(&Instr::Label(*target)),
            _ => false,
        });
        with_loops += usize::from(backward);
    }
    eprintln!("{rejected} of {CASES} kernels rejected, {with_loops} with a backward branch");
    // The generator must exercise both verdicts and both paths of the analysis.
    assert!((CASES / 10..CASES * 9 / 10).contains(&rejected), "{rejected} of {CASES} rejected");
    assert!(with_loops >= CASES / 10, "{with_loops} of {CASES} with a backward branch");
}
