//! `ptx_core::math::rem_f32` / `rem_f64` on the simulator give exactly Rust's `%` (the
//! host's `fmod`, an independent implementation) over the whole range: random bit patterns
//! (every exponent, so quotients up to 2^277 for f32 and 2^2098 for f64), subnormals,
//! zeros, infinities and NaNs. NaN results compare by class (both sides give a NaN; the
//! kernel's is the canonical one). Immediate operands fold to the same bits. A fresh seed
//! per run, printed on failure; `FLOAT_REM_SEED` replays one.

mod common;

use common::map3;
use ptx_core::{KernelBuilder, Val, F32, F64};
use ptx_tools::rng::Rng;
use ptx_tools::seed::fresh_seeds;
use ptx_tools::ulp::same_bits;

const N: usize = 1 << 14;

fn f32_operand(rng: &mut Rng) -> f32 {
    let r = rng.next();
    let specials =
        [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, 1e-45, f32::MAX];
    match r % 8 {
        0 => specials[(r >> 8) as usize % specials.len()],
        1 => ((r >> 16) % 50) as f32 - 25.0,
        2 => f32::from_bits((r >> 32) as u32 & 0x807f_ffff), // subnormal
        _ => f32::from_bits((r >> 32) as u32),
    }
}

fn f64_operand(rng: &mut Rng) -> f64 {
    let r = rng.next();
    let specials =
        [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE, 5e-324, f64::MAX];
    match r % 8 {
        0 => specials[(r >> 8) as usize % specials.len()],
        1 => ((r >> 16) % 50) as f64 - 25.0,
        2 => f64::from_bits(rng.next() & 0x800f_ffff_ffff_ffff),
        _ => f64::from_bits(rng.next()),
    }
}

#[test]
fn rem_f32_is_rusts_remainder() {
    let seed = fresh_seeds("FLOAT_REM_SEED", 1)[0];
    let mut rng = Rng(seed);
    let x: Vec<f32> = (0..N).map(|_| f32_operand(&mut rng)).collect();
    let y: Vec<f32> = (0..N).map(|_| f32_operand(&mut rng)).collect();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits() as u64).collect::<Vec<_>>();
    let out = map3::<F32, F32, F32, F32>("rem32", &bits(&x), &bits(&y), &bits(&y), |kb, a, b, _| {
        ptx_core::math::rem_f32(kb, a, b)
    });
    for i in 0..N {
        let got = f32::from_bits(out[i] as u32);
        let want = x[i] % y[i];
        assert!(
            same_bits(got, want),
            "{:e} % {:e}: kernel {got:e}, Rust {want:e} (FLOAT_REM_SEED={seed:#x})",
            x[i],
            y[i]
        );
        let mut kb = KernelBuilder::new("fold");
        let folded = ptx_core::math::rem_f32(&mut kb, x[i], y[i]).as_imm().expect("folds");
        assert_eq!(folded.to_bits(), out[i] as u32, "folded {:e} % {:e}", x[i], y[i]);
    }
}

#[test]
fn rem_f64_is_rusts_remainder() {
    let seed = fresh_seeds("FLOAT_REM_SEED", 1)[0];
    let mut rng = Rng(seed);
    let x: Vec<f64> = (0..N).map(|_| f64_operand(&mut rng)).collect();
    let y: Vec<f64> = (0..N).map(|_| f64_operand(&mut rng)).collect();
    let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let out = map3::<F64, F64, F64, F64>("rem64", &bits(&x), &bits(&y), &bits(&y), |kb, a, b, _| {
        ptx_core::math::rem_f64(kb, a, b)
    });
    for i in 0..N {
        let got = f64::from_bits(out[i]);
        let want = x[i] % y[i];
        assert!(
            same_bits(got, want),
            "{:e} % {:e}: kernel {got:e}, Rust {want:e} (FLOAT_REM_SEED={seed:#x})",
            x[i],
            y[i]
        );
        let mut kb = KernelBuilder::new("fold");
        let folded: Val<F64> = ptx_core::math::rem_f64(&mut kb, x[i], y[i]);
        assert_eq!(folded.as_imm().expect("folds").to_bits(), out[i], "folded {:e} % {:e}", x[i], y[i]);
    }
}
