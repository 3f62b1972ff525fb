//! A CUDA C kernel compiled by NVRTC at run time, loaded as raw PTX (`Device::load_ptx`) and
//! run on the CPU simulator, and on the GPU when there is one, against a Rust reference.
//!
//! ```text
//! pip install --target DIR nvidia-cuda-nvrtc
//! LD_LIBRARY_PATH=DIR/nvidia/cu13/lib cargo run --release --example nvrtc_on_sim [-- --emit FILE]
//! ```
//!
//! Without libnvrtc it says so and exits successfully: nothing else here needs it.

use std::process::ExitCode;

use ptx_dsl::runtime::{Device, KernelArg, LaunchConfig};

/// y[i] = a·x[i] + y[i] for i < n, written the usual CUDA way.
const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !matches!(args.as_slice(), [] | [_, _] if args[0] == "--emit") {
        eprintln!("usage: nvrtc_on_sim [--emit PATH]  (PATH receives NVRTC's PTX)");
        return ExitCode::from(2);
    }
    // SAFETY: only tries to load libnvrtc by its usual names.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        println!("nvrtc_on_sim: libnvrtc not found (pip install nvidia-cuda-nvrtc, then set LD_LIBRARY_PATH to its nvidia/cu13/lib): skipped");
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nvrtc_on_sim: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    // sm_80 and the lowest ISA NVRTC writes for it, so that older drivers load it too.
    let options = cudarc::nvrtc::CompileOptions { arch: Some("sm_80"), ..Default::default() };
    let ptx =
        cudarc::nvrtc::compile_ptx_with_opts(SAXPY, options).map_err(|e| format!("NVRTC: {e:?}"))?.to_src();
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args.iter().position(|a| a == "--emit").and_then(|i| args.get(i + 1)) {
        std::fs::write(path, &ptx).map_err(|e| format!("{path}: {e}"))?;
    }
    let n = 10_000usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
    let y: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5f32.mul_add(*x, *y)).collect();
    let mut devices = vec![Device::sim()];
    match Device::cuda(0) {
        Ok(gpu) => devices.push(gpu),
        Err(e) => println!("no GPU: {e}"),
    }
    for device in devices {
        let e = |e: ptx_dsl::runtime::Error| format!("{device}: {e}");
        let module = device.load_ptx(&ptx).map_err(e)?;
        let (xd, mut yd) = (device.upload(&x).map_err(e)?, device.upload(&y).map_err(e)?);
        let cfg = LaunchConfig::for_elements(n, 256);
        let mut launch_args =
            [KernelArg::from(2.5f32), KernelArg::from(&xd), KernelArg::from(&mut yd), (n as i32).into()];
        // SAFETY: saxpy touches elements below `n` of `x` and `y`, which hold `n`.
        unsafe { module.launch("saxpy", cfg, &mut launch_args) }.map_err(e)?;
        let got = yd.to_vec().map_err(e)?;
        // nvcc contracts `a * x + y` into one fma, as `mul_add` computes it.
        let wrong = got.iter().zip(&want).filter(|(g, w)| g.to_bits() != w.to_bits()).count();
        println!(
            "{device}: saxpy of {n} elements from NVRTC's PTX, {wrong} elements differ from Rust's mul_add"
        );
        if wrong > 0 {
            return Err(format!("{device}: {wrong} elements differ"));
        }
    }
    Ok(())
}
