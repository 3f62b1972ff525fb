//! Raw PTX modules (`Device::load_ptx`): PTX that NVRTC wrote, and our own printer's
//! multi-kernel modules, launched by name on the simulator; every argument check.

mod common;

use common::*;
use ptx_core::{print, Kernel, Target};
use ptx_runtime::{Device, Error, KernelArg, LaunchConfig};

/// NVRTC 13.5's PTX for `extern "C" __global__ void saxpy(float a, const float* x, float* y,
/// int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }`
/// (`cargo run --example nvrtc_on_sim -- --emit FILE` writes it).
const NVRTC_SAXPY: &str = include_str!("../../ptx-sim/tests/corpus/saxpy.ptx");

#[test]
fn nvrtc_saxpy_runs_on_the_simulator_bit_for_bit() {
    let device = Device::sim();
    let module = device.load_ptx(NVRTC_SAXPY).unwrap();
    assert_eq!(module.kernel_names().collect::<Vec<_>>(), ["saxpy"]);
    let types: Vec<_> = module.params("saxpy").unwrap().iter().map(|p| p.ty.ptx_name()).collect();
    assert_eq!(types, ["f32", "u64", "u64", "u32"]);
    let n = 3000;
    let (x, y) = (random_f32(11, n), random_f32(12, n));
    let (xd, mut yd) = (device.upload(&x).unwrap(), device.upload(&y).unwrap());
    let report = unsafe {
        module.launch(
            "saxpy",
            LaunchConfig::for_elements(n, 128),
            &mut [1.5f32.into(), (&xd).into(), (&mut yd).into(), (n as i32).into()],
        )
    }
    .unwrap();
    assert_eq!(report.threads, Some(24 * 128));
    // nvcc contracts `a * x[i] + y[i]` into one fma.
    let got = yd.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(got[i].to_bits(), 1.5f32.mul_add(x[i], y[i]).to_bits(), "element {i}");
    }
}

#[test]
fn every_kernel_of_a_module_launches_by_name() {
    let device = Device::sim();
    let ptx = print::module_ptx(&[Saxpy.build(), Hash.build()], Target::SM_80);
    let module = device.load_ptx(&ptx).unwrap();
    assert_eq!(module.kernel_names().collect::<Vec<_>>(), ["saxpy", Hash.name()]);
    let n = 500;
    let (x, y) = (random_f32(1, n), random_f32(2, n));
    let (xd, mut yd) = (device.upload(&x).unwrap(), device.upload(&y).unwrap());
    let cfg = LaunchConfig::for_elements(n, 64);
    unsafe {
        module.launch("saxpy", cfg, &mut [2.0f32.into(), (&xd).into(), (&mut yd).into(), (n as u32).into()])
    }
    .unwrap();
    assert_eq!(yd.to_vec().unwrap(), saxpy_ref(2.0, &x, &y));
}

#[test]
fn arguments_are_checked_against_the_entry_signature() {
    let device = Device::sim();
    let module = device.load_ptx(NVRTC_SAXPY).unwrap();
    let (xd, mut yd) = (device.upload(&[1.0f32; 8]).unwrap(), device.zeroed::<f32>(8).unwrap());
    let cfg = LaunchConfig::linear(1, 8);
    let err = unsafe { module.launch("saxpi", cfg, &mut []) }.unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { argument, .. } if argument == "kernel"), "{err}");
    assert!(err.to_string().contains("it has saxpy"), "{err}");
    let run = |args: &mut [KernelArg<'_>]| unsafe { module.launch("saxpy", cfg, args) }.unwrap_err();
    match run(&mut [1.0f32.into(), (&xd).into()]) {
        Error::ArgumentMismatch { index: 2, expected, .. } => {
            assert!(expected.starts_with("4 arguments"), "{expected}")
        }
        other => panic!("{other}"),
    }
    match run(&mut [(&xd).into(), (&xd).into(), (&mut yd).into(), 8i32.into()]) {
        Error::ArgumentMismatch { index: 0, expected, .. } => {
            assert!(expected.contains(".f32"), "{expected}")
        }
        other => panic!("{other}"),
    }
    match run(&mut [1.0f32.into(), 7u64.into(), (&mut yd).into(), 8.0f32.into()]) {
        Error::ArgumentMismatch { index: 3, .. } => {}
        other => panic!("{other}"),
    }
    match run(&mut [1.0f64.into(), (&xd).into(), (&mut yd).into(), 8u32.into()]) {
        Error::ArgumentMismatch { index: 0, .. } => {}
        other => panic!("{other}"),
    }
    // A buffer of another device.
    let other = Device::sim().upload(&[1.0f32; 8]).unwrap();
    match run(&mut [1.0f32.into(), (&other).into(), (&mut yd).into(), 8u32.into()]) {
        err @ Error::WrongDevice { .. } => {
            assert!(
                err.to_string().contains("parameter `saxpy_param_1` of kernel `saxpy` (PTX parameter 1,"),
                "{err}"
            )
        }
        other => panic!("{other}"),
    }
    // A bad geometry.
    let zero = LaunchConfig::linear(0, 8);
    let err = unsafe {
        module.launch("saxpy", zero, &mut [1.0f32.into(), (&xd).into(), (&mut yd).into(), 8u32.into()])
    };
    assert!(matches!(err, Err(Error::BadLaunchConfig { .. })));
}

#[test]
fn unusable_modules_are_errors_naming_the_line() {
    let device = Device::sim();
    let err = device.load_ptx(".version 7.0\n.target sm_80\n.address_size 64\n").expect_err("no entry");
    assert!(err.to_string().contains("no `.entry`"), "{err}");
    // A module whose only kernel takes a parameter no argument fills (a `.pred`): nothing
    // to load.
    let by_pred = NVRTC_SAXPY.replace(".param .u32 saxpy_param_3", ".param .pred saxpy_param_3");
    let err = device.load_ptx(&by_pred).expect_err("predicate parameter");
    assert!(err.to_string().contains("`.pred` parameter is invalid PTX"), "{err}");
    // Beside another kernel too: a `.pred` parameter is invalid PTX, and ptxas (so the
    // driver) refuses the whole module ("Predicate variable must be in register state
    // space"), so it is refused here, not left out alone.
    let with_pred = format!(
        "{NVRTC_SAXPY}\n.visible .entry flag(.param .u64 flag_param_0, .param .pred flag_param_1)\n{{\n\tret;\n}}\n"
    );
    let err = device.load_ptx(&with_pred).expect_err("the module is invalid PTX");
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert!(err.to_string().contains("kernel `flag`") && err.to_string().contains("whole module"), "{err}");
    // A kernel the simulator does not run (a named barrier with a thread count, which a GPU
    // runs) says so before any launch, beside one it runs.
    let with_named_barrier = format!(
        "{NVRTC_SAXPY}\n.visible .entry named_bar(.param .u64 named_bar_param_0)\n{{\n\tbar.sync 1, 64;\n\tret;\n}}\n"
    );
    let module = device.load_ptx(&with_named_barrier).expect("the other kernel loads");
    let why = module.unsupported("named_bar").expect("the simulator refuses it");
    assert!(why.contains("bar.sync") && why.contains("named_bar"), "{why}");
    assert_eq!(module.unsupported("saxpy").as_deref(), None);
    let garbled = NVRTC_SAXPY.replace("fma.rn.f32", "fma.rn.q32");
    let err = device.load_ptx(&garbled).expect_err("garbled body");
    assert!(matches!(err, Error::Simulator(_)), "{err}");
    assert!(err.to_string().contains("line 46") && err.to_string().contains(".q32"), "{err}");
}

#[test]
fn endless_loops_and_spin_waits_stop_at_the_step_budget() {
    // `while (flag[0] == 0) {}` where nothing ever sets the flag, and a barrier loop that
    // never ends: both would hang a GPU; the simulator stops them and names the thread.
    let ptx = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry spin(
	.param .u64 spin_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [spin_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
$L__BB0_1:
	ld.volatile.global.u32 	%r1, [%rd2];
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_1;
	ret;
}
.visible .entry barrier_loop()
{
$L__BB1_1:
	bar.sync 	0;
	bra.uni 	$L__BB1_1;
}
";
    let device = Device::sim_with_step_budget(100_000);
    let module = device.load_ptx(ptx).unwrap();
    let mut flag = device.zeroed::<u32>(1).unwrap();
    for (kernel, args) in [("spin", vec![KernelArg::from(&mut flag)]), ("barrier_loop", vec![])] {
        let mut args = args;
        let err = unsafe { module.launch(kernel, LaunchConfig::linear(1, 32), &mut args) }.unwrap_err();
        let text = err.to_string();
        assert!(text.contains(kernel) && text.contains("step budget of 100000"), "{text}");
        assert!(text.contains("thread (0, 0, 0)"), "{text}");
    }
}

#[test]
fn one_unsupported_kernel_leaves_the_others_loadable() {
    // NVRTC's saxpy, and a second kernel using a texture fetch, which the simulator lacks.
    let extra = "
.visible .entry fetch(
	.param .u64 fetch_param_0
)
{
	.reg .f32 	%f<5>;
	.reg .b64 	%rd<2>;
	ld.param.u64 	%rd1, [fetch_param_0];
	tex.2d.v4.f32.f32 	{%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}];
	ret;
}
";
    let device = Device::sim();
    let module = device.load_ptx(&format!("{NVRTC_SAXPY}{extra}")).unwrap();
    assert_eq!(module.kernel_names().collect::<Vec<_>>(), ["saxpy", "fetch"]);
    let (x, mut y) = (device.upload(&[1.0f32; 4]).unwrap(), device.upload(&[1.0f32; 4]).unwrap());
    unsafe {
        module.launch(
            "saxpy",
            LaunchConfig::linear(1, 4),
            &mut [2.0f32.into(), (&x).into(), (&mut y).into(), 4i32.into()],
        )
    }
    .unwrap();
    assert_eq!(y.to_vec().unwrap(), [3.0; 4]);
    let err = unsafe { module.launch("fetch", LaunchConfig::linear(1, 1), &mut [(&x).into()]) }
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not support") && err.contains("tex.2d"), "{err}");
    let line = format!("{NVRTC_SAXPY}{extra}").lines().position(|l| l.contains("tex.2d")).unwrap() + 1;
    assert!(err.contains(&format!("line {line}")), "{err}");
}
