//! The math routines as emitted PTX, run on the simulator, give exactly the bits of the
//! host model (the builder's constant folding, which `ptx-core`'s accuracy tests measure),
//! and the accurate sine meets its bound on a million points run through the simulator.

use ptx_dsl::core::builder::Val;
use ptx_dsl::core::types::{MemTy, Ty};
use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceScalar, KernelArg, LaunchConfig};
use ptx_tools::rng::Rng;
use ptx_tools::ulp;

/// A routine under test: emits it on a register, or evaluates it on an immediate.
type Routine<T> = fn(&mut KernelBuilder, Val<T>) -> Val<T>;

const ROUTINES: [(&str, Routine<F32>); 21] = [
    ("sin", math::sin),
    ("cos", math::cos),
    ("tan", math::tan),
    ("atan", math::atan),
    ("asin", math::asin),
    ("acos", math::acos),
    ("cbrt", math::cbrt),
    ("exp_m1", math::exp_m1),
    ("ln_1p", math::ln_1p),
    ("sinh", math::sinh),
    ("cosh", math::cosh),
    ("hypot_x_2.5", |b, x| math::hypot(b, x, 2.5f32)),
    ("atan2_x_-1.5", |b, x| math::atan2(b, x, -1.5f32)),
    ("exp2", math::exp2),
    ("exp", math::exp),
    ("ln", math::ln),
    ("log2", math::log2),
    ("log10", math::log10),
    ("log_x_3", |b, x| math::log(b, x, 3.0f32)),
    ("tanh", math::tanh),
    ("pow_x_1.7", |b, x| math::powf(b, x, 1.7f32)),
];

/// The f64 routines.
const ROUTINES_F64: [(&str, Routine<F64>); 21] = [
    ("sin", math::sin_f64),
    ("cos", math::cos_f64),
    ("tan", math::tan_f64),
    ("atan", math::atan_f64),
    ("asin", math::asin_f64),
    ("acos", math::acos_f64),
    ("cbrt", math::cbrt_f64),
    ("exp_m1", math::exp_m1_f64),
    ("ln_1p", math::ln_1p_f64),
    ("sinh", math::sinh_f64),
    ("cosh", math::cosh_f64),
    ("hypot_x_2.5", |b, x| math::hypot_f64(b, x, 2.5)),
    ("atan2_x_-1.5", |b, x| math::atan2_f64(b, x, -1.5)),
    ("exp2", math::exp2_f64),
    ("exp", math::exp_f64),
    ("ln", math::ln_f64),
    ("log2", math::log2_f64),
    ("log10", math::log10_f64),
    ("log_x_3", |b, x| math::log_f64(b, x, 3.0)),
    ("tanh", math::tanh_f64),
    ("pow_x_1.7", |b, x| math::powf_f64(b, x, 1.7)),
];

/// out[k][i] = routine_k(x[i]) for each routine given.
struct MathKernel<T: Ty + 'static>(&'static [(&'static str, Routine<T>)]);

impl<T: MemTy> Kernel for MathKernel<T> {
    fn name(&self) -> &str {
        "math_routines"
    }
    fn cache_key(&self) -> String {
        format!("{} {}", T::PTX, self.0.len())
    }
    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("math_routines");
        let x = b.global_pointer("x");
        let outs: Vec<_> = (0..self.0.len()).map(|k| b.global_pointer(format!("out{k}"))).collect();
        let n = b.param::<U32>("n");
        let n = b.load_param(n);
        let i = b.global_index_x();
        let done = b.label();
        let outside = b.setp(Cmp::Ge, i, n);
        b.bra_if(outside, done);
        let offset = b.byte_offset::<T>(i);
        let xa = b.offset_address(x, offset);
        let xv = b.ld_global::<T>(xa, 0);
        for (k, (_, f)) in self.0.iter().enumerate() {
            let r = f(&mut b, Val::Reg(xv));
            let oa = b.offset_address(outs[k], offset);
            b.st_global::<T>(oa, 0, r);
        }
        b.place(done);
        b.finish()
    }
}

/// Runs `routines` on `x` in the simulator.
fn run<T: MemTy, H: DeviceScalar>(x: &[H], routines: &'static [(&'static str, Routine<T>)]) -> Vec<Vec<H>> {
    let device = Device::sim();
    let xd = device.upload(x).unwrap();
    let mut outs: Vec<_> = routines.iter().map(|_| device.zeroed::<H>(x.len()).unwrap()).collect();
    let mut args = vec![KernelArg::from(&xd)];
    args.extend(outs.iter_mut().map(KernelArg::from));
    args.push(KernelArg::from(x.len() as u32));
    unsafe { device.launch(&MathKernel(routines), LaunchConfig::for_elements(x.len(), 256), &mut args) }
        .unwrap();
    drop(args);
    outs.iter().map(|o| o.to_vec().unwrap()).collect()
}

#[test]
fn emitted_routines_match_the_host_model_bit_for_bit() {
    let mut rng = Rng::fresh("emitted_routines");
    // Magnitudes from 2^-30 to 2^127 with both signs (the large-argument sine reduction
    // included), plus special values.
    let mut x: Vec<f32> = (0..50_000)
        .map(|_| {
            let mag = 2f64.powf(rng.unit() * 157.0 - 30.0) as f32;
            if rng.next() & 1 == 0 {
                mag
            } else {
                -mag
            }
        })
        .collect();
    x.extend([0.0, -0.0, 1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, 1e-45]);
    x.extend([524_288.0, -524_288.0, 524_287.97, f32::MAX, f32::MIN, 1.6263e24, 3.0e38]);
    let outs = run(&x, &ROUTINES);
    let mut host = KernelBuilder::new("host_model");
    for (k, (name, f)) in ROUTINES.iter().enumerate() {
        for (i, &xi) in x.iter().enumerate() {
            let want = f(&mut host, Val::Imm(xi)).as_imm().expect("folds on an immediate");
            let got = outs[k][i];
            // NaNs compare by class: the GPU's canonical NaN and a folded NaN both qualify.
            let same = ulp::same_bits(got, want);
            assert!(
                same,
                "{name}({xi:e}): simulator {got:e} ({:#x}), host model {want:e} ({:#x})",
                got.to_bits(),
                want.to_bits()
            );
        }
    }
    assert!(host.body().is_empty(), "the host model emitted instructions");
}

/// The f64 routines, run as PTX in the simulator, give the host model's bits too: every
/// exponent and sign, the large-argument reduction and the special values included.
#[test]
fn emitted_f64_routines_match_the_host_model_bit_for_bit() {
    let mut rng = Rng::fresh("emitted_f64_routines");
    let mut x: Vec<f64> = (0..4_000).map(|_| f64::from_bits(rng.next())).collect();
    x.extend((0..4_000).map(|_| (rng.unit() - 0.5) * 40.0));
    x.extend([0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE, 5e-324]);
    x.extend([67_108_864.0, -67_108_863.9, f64::MAX, f64::MIN, 6_381_956_970_095_103.0 * 2f64.powi(797)]);
    let outs = run(&x, &ROUTINES_F64);
    let mut host = KernelBuilder::new("host_model");
    for (k, (name, f)) in ROUTINES_F64.iter().enumerate() {
        for (i, &xi) in x.iter().enumerate() {
            let want = f(&mut host, Val::Imm(xi)).as_imm().expect("folds on an immediate");
            let got = outs[k][i];
            let same = ulp::same_bits(got, want);
            assert!(
                same,
                "{name}({xi:e}): simulator {got:e} ({:#x}), host model {want:e} ({:#x})",
                got.to_bits(),
                want.to_bits()
            );
        }
    }
    assert!(host.body().is_empty(), "the host model emitted instructions");
}

#[test]
fn accurate_sine_meets_its_bound_on_a_million_points_in_the_simulator() {
    let mut rng = Rng::fresh("sine_in_simulator");
    let x: Vec<f32> =
        (0..1_000_000).map(|_| ((rng.unit() * 2.0 - 1.0) * (1u32 << 20) as f64) as f32).collect();
    // sin and cos are the first two routines.
    let outs = run(&x, &ROUTINES[..2]);
    let (mut max_sin, mut max_cos) = (0f64, 0f64);
    for (i, &xi) in x.iter().enumerate() {
        max_sin = max_sin.max((outs[0][i] as f64 - (xi as f64).sin()).abs());
        max_cos = max_cos.max((outs[1][i] as f64 - (xi as f64).cos()).abs());
    }
    eprintln!("simulator: sin max abs error 2^{:.2}, cos 2^{:.2}", max_sin.log2(), max_cos.log2());
    // The documented bound of math::sin_cos for |x| <= 2^20.
    assert!(max_sin <= 2f64.powi(-22) && max_cos <= 2f64.powi(-22), "sin {max_sin:e}, cos {max_cos:e}");
}

/// `2π·(x − rint(x))`: an angle the builder proves below π in magnitude (a fraction of a
/// turn, as the RoPE kernels form it), so the sine leaves out its large-argument path and
/// its infinity check.
fn angle_of_a_turn(b: &mut KernelBuilder, x: Val<F32>) -> Val<F32> {
    let whole: Val<F32> = b.cvt(x, Some(ptx_dsl::core::CvtRound::Rni), false);
    let fraction = b.sub(x, whole);
    b.mul(fraction, std::f32::consts::TAU)
}

const SINE_OF_A_TURN: [(&str, Routine<F32>); 2] = [
    ("sin of a turn", |b, x| {
        let angle = angle_of_a_turn(b, x);
        math::sin(b, angle)
    }),
    ("cos of a turn", |b, x| {
        let angle = angle_of_a_turn(b, x);
        math::cos(b, angle)
    }),
];

#[test]
fn sine_of_a_proven_small_angle_meets_its_bound_and_keeps_nan() {
    let mut rng = Rng::fresh("sine_of_a_turn");
    // Turns up to 2^12 in both signs (fractions of a turn all over [−½, ½]), then zeros,
    // the ties ±½ and 1.5, quarter turns, values with nothing or next to nothing after the
    // point, and what must give NaN.
    let mut x: Vec<f32> = (0..200_000).map(|_| ((rng.unit() * 2.0 - 1.0) * 4096.0) as f32).collect();
    x.extend([0.0, -0.0, 0.5, -0.5, 1.5, 0.25, -0.75, 1e-30, 1e30]);
    x.extend([f32::NAN, f32::from_bits(0xffa0_0001), f32::INFINITY, f32::NEG_INFINITY]);
    let outs = run(&x, &SINE_OF_A_TURN);
    for (i, &xi) in x.iter().enumerate() {
        // The same f32 operations as the kernel's.
        let angle = (xi - xi.round_ties_even()) * std::f32::consts::TAU;
        let (sin, cos) = (outs[0][i], outs[1][i]);
        if angle.is_nan() {
            // The routines' one NaN (math_accuracy.rs: every NaN result is canonical).
            assert!(
                sin.to_bits() == 0x7fff_ffff && cos.to_bits() == 0x7fff_ffff,
                "x = {xi:e}: {sin:e} {cos:e}"
            );
            continue;
        }
        // math::sin_cos's documented bound: 2 ulp of the exact sine and cosine of its
        // f32 argument (the f64 functions are far closer than that to the exact values).
        let (want_sin, want_cos) = (angle as f64).sin_cos();
        assert!(
            ulp::error_f32(sin, want_sin) <= 2.0,
            "sin({angle:e}) of x = {xi:e}: {sin:e}, want {want_sin:e}"
        );
        assert!(
            ulp::error_f32(cos, want_cos) <= 2.0,
            "cos({angle:e}) of x = {xi:e}: {cos:e}, want {want_cos:e}"
        );
    }
}

/// out[i] = f16(2 · f32(x[i])): f16 data stored as u16 bits, converted in the kernel.
struct DoubleHalf;

impl Kernel for DoubleHalf {
    fn name(&self) -> &str {
        "double_half"
    }
    fn build(&self) -> KernelIr {
        use ptx_dsl::core::{CvtRound, F16};
        let mut b = KernelBuilder::new("double_half");
        let x = b.global_pointer("x");
        let out = b.global_pointer("out");
        let i = b.special(SpecialReg::TidX);
        let xa = b.element_address::<F16>(x, i);
        let h = b.ld_global::<F16>(xa, 0);
        let f: Val<F32> = b.cast::<F32, F16>(h);
        let twice = b.mul(f, 2.0f32);
        let back: Val<F16> = b.cvt::<F16, F32>(twice, Some(CvtRound::Rn), false);
        let oa = b.element_address::<F16>(out, i);
        b.st_global::<F16>(oa, 0, back);
        b.finish()
    }
}

#[test]
fn f16_data_lives_in_u16_buffers() {
    let device = Device::sim();
    // 1.0, 0.5, -3.0, the largest f16 (65504, doubles to +inf), the smallest subnormal.
    let x: [u16; 5] = [0x3c00, 0x3800, 0xc200, 0x7bff, 0x0001];
    let xd = device.upload(&x).unwrap();
    let mut od = device.zeroed::<u16>(x.len()).unwrap();
    unsafe {
        device.launch(
            &DoubleHalf,
            LaunchConfig::linear(1, x.len() as u32),
            &mut [(&xd).into(), (&mut od).into()],
        )
    }
    .unwrap();
    assert_eq!(od.to_vec().unwrap(), [0x4000, 0x3c00, 0xc600, 0x7c00, 0x0002]);
}

/// The kernel of every routine (the sine's large-argument reduction and the f64-evaluated
/// routines included) assembles
/// with ptxas for sm_80 and sm_90 without a stack frame or spills: 2/π lives in
/// immediates, not in local memory.
#[test]
fn the_routines_need_no_stack_and_no_local_memory() {
    use ptx_dsl::core::Target;
    use ptx_tools::ptxas;
    let Some(path) = ptxas::ptxas_or_skip("the_routines_need_no_stack_and_no_local_memory") else { return };
    for target in [Target::SM_80, Target::SM_90] {
        let kernels = [
            MathKernel(&ROUTINES).try_ptx_for(target).expect("the f32 math kernel verifies"),
            MathKernel(&ROUTINES_F64).try_ptx_for(target).expect("the f64 math kernel verifies"),
        ];
        for ptx in kernels {
            assert!(!ptx.contains(".local"), "no local memory:\n{ptx}");
            let a = ptxas::assemble(&path, &ptx, &target.to_string()).unwrap_or_else(|e| panic!("{e}"));
            for f in &a.functions {
                assert_eq!(
                    (f.stack_frame_bytes, f.spill_stores_bytes),
                    (0, 0),
                    "{target} {}: {}",
                    f.name,
                    a.log
                );
            }
            assert!(!a.functions.is_empty(), "ptxas -v reported no function:\n{}", a.log);
        }
    }
}
