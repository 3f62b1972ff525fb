//! Constant folding and simulation agree bit for bit: for every float operation the builder
//! folds (f32 and f64 arithmetic in all four IEEE rounding modes, `fma`, `sqrt`, `rcp`,
//! `neg`, `abs`, `min`, `max`, every `cvt` form between f32, f64 and the integers, with and
//! without `.sat`, and every float `setp`), the value the builder computes for immediate
//! operands is the value the simulator computes when the same operation reads them from
//! memory. NaNs are compared by their bits: both sides give the canonical NaN.
//!
//! Both sides use `ptx_core::softfloat`, so this checks the plumbing around it — the
//! builder's choice of what to fold, the printer's immediates, the simulator's decoding of
//! modes and types — on inputs over the whole range (specials, subnormals, huge values).
//! The inputs come from a fresh seed each run, printed on failure; set `FOLDING_SEED` to
//! replay one.

mod common;

use common::map3;
use ptx_core::builder::SignedOrFloat;
use ptx_core::ir::{BinaryOp, UnaryOp};
use ptx_core::types::{FloatTy, MemTy};
use ptx_core::{Cmp, CvtRound, FloatMode, KernelBuilder, Val, F32, F64, S32, S64, U32, U64};
use ptx_tools::rng::Rng;
use ptx_tools::seed::fresh_seeds;

/// Elements per case (a multiple of the 128-thread blocks `map3` launches).
const N: usize = 1024;

const MODES: [FloatMode; 4] = [FloatMode::Rn, FloatMode::Rz, FloatMode::Rm, FloatMode::Rp];
const INT_ROUNDINGS: [CvtRound; 4] = [CvtRound::Rni, CvtRound::Rzi, CvtRound::Rmi, CvtRound::Rpi];
const ROUNDINGS: [CvtRound; 4] = [CvtRound::Rn, CvtRound::Rz, CvtRound::Rm, CvtRound::Rp];

/// Raw operand bits of type `ty` over its whole range: specials, subnormals, extremes, and
/// uniformly random bit patterns (every exponent).
fn operand(rng: &mut Rng, ty: ptx_core::PtxType) -> u64 {
    let r = rng.next();
    match ty {
        ptx_core::PtxType::F32 => {
            let specials =
                [0u32, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 1, 0x807f_ffff, 0x7f7f_ffff];
            match r % 8 {
                0 => u64::from(specials[(r >> 8) as usize % specials.len()]),
                1 => u64::from(f32::from_bits((r >> 32) as u32 & 0x3fff_ffff | 0x3f00_0000).to_bits()),
                2 => {
                    u64::from((((r >> 20) as u32 % 9) as f32 * 0.5f32.powi(((r >> 40) % 3) as i32)).to_bits())
                }
                _ => (r >> 32) & 0xffff_ffff,
            }
        }
        ptx_core::PtxType::F64 => {
            let specials = [
                0u64,
                1 << 63,
                0x7ff0 << 48,
                0xfff0 << 48,
                0x7ff8 << 48,
                1,
                0x800f_ffff_ffff_ffff,
                0x7fef_ffff_ffff_ffff,
            ];
            match r % 8 {
                0 => specials[(r >> 8) as usize % specials.len()],
                1 => rng.next() & 0x3fff_ffff_ffff_ffff | 0x3fe0 << 48,
                2 => (((r >> 20) % 9) as f64 * 0.5f64.powi(((r >> 40) % 3) as i32)).to_bits(),
                _ => rng.next(),
            }
        }
        _ => {
            let small = (r >> 3) % 2000;
            let v = match r % 4 {
                0 => small.wrapping_sub(1000),
                1 => rng.next() >> (rng.next() % 64),
                _ => rng.next(),
            };
            v & (u64::MAX >> (64 - ty.bits()))
        }
    }
}

/// Runs `f` on the simulator over random operands and folds it on the same operands as
/// immediates; returns one line per disagreement.
fn case<A: MemTy, B: MemTy, C: MemTy, O: MemTy>(
    name: &str,
    seed: u64,
    f: impl Fn(&mut KernelBuilder, Val<A>, Val<B>, Val<C>) -> Val<O>,
) -> Vec<String> {
    let mut rng =
        Rng(seed ^ name.bytes().fold(0u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3)) | 1);
    let a: Vec<u64> = (0..N).map(|_| operand(&mut rng, A::PTX)).collect();
    let b: Vec<u64> = (0..N).map(|_| operand(&mut rng, B::PTX)).collect();
    let c: Vec<u64> = (0..N).map(|_| operand(&mut rng, C::PTX)).collect();
    let simulated = map3::<A, B, C, O>(name, &a, &b, &c, |kb, x, y, z| f(kb, x.into(), y.into(), z.into()));
    let mut bad = Vec::new();
    for i in 0..N {
        let mut kb = KernelBuilder::new("fold");
        let r = f(
            &mut kb,
            Val::Imm(A::host_from_bits(a[i])),
            Val::Imm(B::host_from_bits(b[i])),
            Val::Imm(C::host_from_bits(c[i])),
        );
        let Some(v) = r.as_imm() else {
            bad.push(format!("{name}: did not fold for {:#x} {:#x} {:#x}", a[i], b[i], c[i]));
            break;
        };
        let folded = O::host_to_bits(v) & (u64::MAX >> (64 - O::PTX.bits()));
        if folded != simulated[i] && bad.len() < 8 {
            bad.push(format!(
                "{name}({:#x}, {:#x}, {:#x}): folded {folded:#x}, simulated {:#x}",
                a[i], b[i], c[i], simulated[i]
            ));
        }
    }
    bad
}

/// Every folded form of float type `T`: arithmetic, comparisons, and conversions between
/// `T` and the integers.
fn float_cases<T: MemTy + FloatTy + SignedOrFloat>(seed: u64) -> Vec<String> {
    let t = T::PTX.to_string().replace('.', "");
    let mut bad = Vec::new();
    for mode in MODES {
        for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
            bad.extend(case::<T, T, T, T>(&format!("{op:?}_{mode:?}_{t}"), seed, |kb, x, y, _| {
                kb.float_op(op, mode, x, y)
            }));
        }
        bad.extend(case::<T, T, T, T>(&format!("fma_{mode:?}_{t}"), seed, |kb, x, y, z| {
            kb.fma_with(mode, x, y, z)
        }));
        for op in [UnaryOp::Sqrt, UnaryOp::Rcp] {
            bad.extend(case::<T, T, T, T>(&format!("{op:?}_{mode:?}_{t}"), seed, |kb, x, _, _| {
                kb.float_unary(op, mode, x)
            }));
        }
    }
    bad.extend(case::<T, T, T, T>(&format!("neg_{t}"), seed, |kb, x, _, _| kb.neg(x)));
    bad.extend(case::<T, T, T, T>(&format!("abs_{t}"), seed, |kb, x, _, _| kb.abs(x)));
    bad.extend(case::<T, T, T, T>(&format!("min_{t}"), seed, |kb, x, y, _| kb.min(x, y)));
    bad.extend(case::<T, T, T, T>(&format!("max_{t}"), seed, |kb, x, y, _| kb.max(x, y)));
    for cmp in Cmp::ALL {
        bad.extend(case::<T, T, T, U32>(&format!("setp_{cmp:?}_{t}"), seed, |kb, x, y, _| {
            let p = kb.setp(cmp, x, y);
            kb.selp(p, 1u32, 0u32)
        }));
    }
    for r in INT_ROUNDINGS {
        bad.extend(case::<T, T, T, T>(&format!("cvt_{r:?}_{t}_{t}"), seed, |kb, x, _, _| {
            kb.cvt(x, Some(r), false)
        }));
        for sat in [false, true] {
            bad.extend(case::<T, T, T, S32>(&format!("cvt_{r:?}_{sat}_s32_{t}"), seed, |kb, x, _, _| {
                kb.cvt(x, Some(r), sat)
            }));
            bad.extend(case::<T, T, T, U64>(&format!("cvt_{r:?}_{sat}_u64_{t}"), seed, |kb, x, _, _| {
                kb.cvt(x, Some(r), sat)
            }));
        }
    }
    for r in ROUNDINGS {
        for sat in [false, true] {
            bad.extend(case::<S32, T, T, T>(&format!("cvt_{r:?}_{sat}_{t}_s32"), seed, |kb, x, _, _| {
                kb.cvt(x, Some(r), sat)
            }));
            bad.extend(case::<U64, T, T, T>(&format!("cvt_{r:?}_{sat}_{t}_u64"), seed, |kb, x, _, _| {
                kb.cvt(x, Some(r), sat)
            }));
            bad.extend(case::<S64, T, T, T>(&format!("cvt_{r:?}_{sat}_{t}_s64"), seed, |kb, x, _, _| {
                kb.cvt(x, Some(r), sat)
            }));
        }
    }
    bad
}

#[test]
fn folding_gives_the_bits_the_simulator_computes() {
    let seed = fresh_seeds("FOLDING_SEED", 1)[0];
    let mut bad = float_cases::<F32>(seed);
    bad.extend(float_cases::<F64>(seed));
    for r in ROUNDINGS {
        for sat in [false, true] {
            bad.extend(case::<F64, F64, F64, F32>(
                &format!("cvt_{r:?}_{sat}_f32_f64"),
                seed,
                |kb, x, _, _| kb.cvt(x, Some(r), sat),
            ));
        }
    }
    for sat in [false, true] {
        bad.extend(case::<F32, F32, F32, F64>(&format!("cvt_{sat}_f64_f32"), seed, |kb, x, _, _| {
            kb.cvt(x, None, sat)
        }));
    }
    assert!(bad.is_empty(), "seed {seed:#x} (replay with FOLDING_SEED={seed:#x}):\n{}", bad.join("\n"));
}
