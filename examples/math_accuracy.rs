//! Scans ptx-core's accurate f32 math routines over their whole domains and prints, per
//! routine, the largest error in ulp against a float64 reference, the input where it
//! occurs, and the routine's instruction count; with `--on cuda` (or `--on sim`) it also
//! runs each routine as a kernel over the same inputs and counts the results whose bits
//! differ from the constant folding's.
//!
//! ```text
//! cargo run --release --example math_accuracy                  # every 4099th bit pattern
//! cargo run --release --example math_accuracy -- --stride 97    # finer (minutes)
//! cargo run --release --example math_accuracy -- --on cuda      # and on the GPU, bit for bit
//! cargo run --release --example math_accuracy -- --routine tan  # one routine
//! ```
//!
//! The values are those of the routines' constant folding, which gives the bits the
//! emitted PTX computes (`tests/sim_math.rs` checks the simulator against it bit for bit;
//! `--on` checks a device against it), so a scan here is a scan of the kernel code. Every
//! finite f32 whose bit pattern is a multiple of the stride is an input (both signs, every
//! exponent, subnormals); `powf` is scanned as `x^y` for `y` in a fixed set of exponents.

use std::process::ExitCode;

use clap::Parser;
use ptx_dsl::core::builder::Val;
use ptx_dsl::core::{math, Kernel, KernelBuilder, KernelIr, F32};
use ptx_dsl::runtime::{Device, LaunchConfig};

/// Math routine accuracy over every f32 bit pattern that is a multiple of a stride.
#[derive(Parser, Debug)]
#[command(name = "math_accuracy")]
struct Args {
    /// Scan every N-th f32 bit pattern.
    #[arg(long, default_value_t = 4099, value_parser = clap::value_parser!(u32).range(1..))]
    stride: u32,
    /// Also run every routine as a kernel on this device and compare its bits with the
    /// constant folding's (`sim` is slow: pair it with a large stride).
    #[arg(long, value_enum)]
    on: Option<OnDevice>,
    /// Scan only these routines (by the names the table prints, e.g. `tan`, `powf(x, 2)`);
    /// all of them when not given.
    #[arg(long)]
    routine: Vec<String>,
}

/// A device to run the routines on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OnDevice {
    /// The first CUDA GPU.
    Cuda,
    /// The CPU simulator.
    Sim,
}

/// A routine: emits its instructions for a register, folds for an immediate.
type Routine = Box<dyn Fn(&mut KernelBuilder, Val<F32>) -> Val<F32> + Sync>;

/// The float64 function a routine is measured against.
type Reference = Box<dyn Fn(f64) -> f64 + Sync>;

/// The error of `got` against `want` in units of the f32 spacing at `want` (the smallest
/// subnormal below the normal range).
fn ulp_error(got: f32, want: f64) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() == want.is_nan() { 0.0 } else { f64::INFINITY };
    }
    // Beyond f32's range the right answer is the infinity `want` rounds to.
    let rounded = want as f32;
    if rounded.is_infinite() || got.is_infinite() {
        return if got == rounded { 0.0 } else { f64::INFINITY };
    }
    let w = want.abs().max(f32::MIN_POSITIVE as f64);
    let ulp = 2f64.powi(w.log2().floor() as i32 - 23);
    (got as f64 - want).abs() / ulp
}

/// The finite f32 values whose bit patterns are multiples of `stride`.
fn inputs(stride: u32) -> Vec<f32> {
    (0..=u32::MAX / stride).map(|k| f32::from_bits(k * stride)).filter(|x| x.is_finite()).collect()
}

/// The routine's constant folding of every input, on every core.
fn fold_all(f: &Routine, xs: &[f32]) -> Vec<f32> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = xs.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = xs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut b = KernelBuilder::new("fold");
                    part.iter()
                        .map(|&x| f(&mut b, Val::Imm(x)).as_imm().unwrap_or(f32::NAN))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|p| p.join().expect("folding does not panic")).collect()
    })
}

/// The largest error of `got` (the routine's values of `xs`) with the input where it occurs.
fn worst_error(xs: &[f32], got: &[f32], reference: &Reference) -> (f64, f32) {
    let (mut worst, mut at) = (0f64, 0f32);
    for (&x, &y) in xs.iter().zip(got) {
        let e = ulp_error(y, reference(x as f64));
        if e > worst {
            (worst, at) = (e, x);
        }
    }
    (worst, at)
}

/// The instruction count of `f` emitted on a register.
fn instructions(f: &Routine) -> usize {
    let mut b = KernelBuilder::new("count");
    let p = b.global_pointer("x");
    let x = b.ld_global::<F32>(p, 0);
    let before = b.body().len();
    let _ = f(&mut b, Val::Reg(x));
    b.body().len() - before
}

/// Threads per block of the device runs; the inputs are padded to a multiple of it.
const BLOCK: u32 = 256;

/// `out[i] = routine(x[i])` as a kernel.
struct Apply<'a> {
    name: String,
    routine: &'a Routine,
}

impl Kernel for Apply<'_> {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new(&self.name);
        let x = b.global_pointer("x");
        let out = b.global_pointer("out");
        let i = b.global_index_x();
        let xa = b.element_address::<F32>(x, i);
        let v = b.ld_global::<F32>(xa, 0);
        let y = (self.routine)(&mut b, Val::Reg(v));
        let oa = b.element_address::<F32>(out, i);
        b.st_global::<F32>(oa, 0, y);
        b.finish()
    }
}

/// The routine's values of `xs` computed by a kernel on `device`.
fn run_on(device: &Device, name: &str, f: &Routine, xs: &[f32]) -> Result<Vec<f32>, String> {
    let kernel = Apply {
        name: format!("math_{}", name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")),
        routine: f,
    };
    let padded = xs.len().div_ceil(BLOCK as usize) * BLOCK as usize;
    let mut host = xs.to_vec();
    host.resize(padded, 1.0);
    let x = device.upload(&host).map_err(|e| e.to_string())?;
    let mut out = device.zeroed::<f32>(padded).map_err(|e| e.to_string())?;
    let config = LaunchConfig::linear((padded / BLOCK as usize) as u32, BLOCK);
    // SAFETY: one thread per element of the padded buffers, each touching its own.
    unsafe { device.launch(&kernel, config, &mut [(&x).into(), (&mut out).into()]) }
        .map_err(|e| e.to_string())?;
    let mut got = out.to_vec().map_err(|e| e.to_string())?;
    got.truncate(xs.len());
    Ok(got)
}

/// Every routine scanned, with its name and reference.
fn routines() -> Vec<(String, Routine, Reference)> {
    type Unary = (&'static str, fn(&mut KernelBuilder, Val<F32>) -> Val<F32>, fn(f64) -> f64);
    let unary: [Unary; 17] = [
        ("sin", |b, x| math::sin(b, x), f64::sin),
        ("cos", |b, x| math::cos(b, x), f64::cos),
        ("tan", |b, x| math::tan(b, x), f64::tan),
        ("atan", |b, x| math::atan(b, x), f64::atan),
        ("asin", |b, x| math::asin(b, x), f64::asin),
        ("acos", |b, x| math::acos(b, x), f64::acos),
        ("exp", |b, x| math::exp(b, x), f64::exp),
        ("exp2", |b, x| math::exp2(b, x), f64::exp2),
        ("ln", |b, x| math::ln(b, x), f64::ln),
        ("log2", |b, x| math::log2(b, x), f64::log2),
        ("log10", |b, x| math::log10(b, x), f64::log10),
        ("tanh", |b, x| math::tanh(b, x), f64::tanh),
        ("cbrt", |b, x| math::cbrt(b, x), f64::cbrt),
        ("exp_m1", |b, x| math::exp_m1(b, x), f64::exp_m1),
        ("ln_1p", |b, x| math::ln_1p(b, x), f64::ln_1p),
        ("sinh", |b, x| math::sinh(b, x), f64::sinh),
        ("cosh", |b, x| math::cosh(b, x), f64::cosh),
    ];
    let mut all: Vec<(String, Routine, Reference)> = unary
        .into_iter()
        .map(|(n, f, r)| (n.to_string(), Box::new(f) as Routine, Box::new(r) as Reference))
        .collect();
    for y in [0.5f32, 2.0, 3.0, -1.5, 10.0, 100.0] {
        all.push((
            format!("powf(x, {y})"),
            Box::new(move |b: &mut KernelBuilder, x: Val<F32>| math::powf(b, x, y)),
            Box::new(move |x: f64| x.powf(y as f64)),
        ));
    }
    all
}

fn main() -> ExitCode {
    let args = Args::parse();
    let names: Vec<String> = routines().into_iter().map(|(name, _, _)| name).collect();
    if let Some(unknown) = args.routine.iter().find(|r| !names.contains(r)) {
        eprintln!("math_accuracy: --routine {unknown:?} is none of: {}", names.join(", "));
        return ExitCode::from(2);
    }
    let device = match args.on {
        None => None,
        Some(OnDevice::Sim) => Some(Device::sim()),
        Some(OnDevice::Cuda) => match Device::cuda(0) {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("math_accuracy: --on cuda: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let xs = inputs(args.stride);
    println!("every {}th f32 bit pattern (finite inputs), error in ulp against f64", args.stride);
    print!("{:<13} {:>10} {:>16} {:>10} {:>13}", "routine", "max ulp", "at x", "inputs", "instructions");
    match &device {
        Some(d) => println!(" {:>13}", format!("{} ≠ fold", d.kind())),
        None => println!(),
    }
    let mut differing = 0usize;
    let chosen =
        routines().into_iter().filter(|(name, _, _)| args.routine.is_empty() || args.routine.contains(name));
    for (name, f, reference) in chosen {
        let folded = fold_all(&f, &xs);
        let (worst, at) = worst_error(&xs, &folded, &reference);
        print!("{name:<13} {worst:>10.3} {at:>16e} {:>10} {:>13}", xs.len(), instructions(&f));
        if let Some(device) = &device {
            match run_on(device, &name, &f, &xs) {
                Ok(got) => {
                    let bad: Vec<usize> =
                        (0..xs.len()).filter(|&i| got[i].to_bits() != folded[i].to_bits()).collect();
                    print!(" {:>13}", bad.len());
                    if let Some(&i) = bad.first() {
                        print!(
                            "  first: x = {:e} ({:#010x}): device {:#010x}, fold {:#010x}",
                            xs[i],
                            xs[i].to_bits(),
                            got[i].to_bits(),
                            folded[i].to_bits()
                        );
                    }
                    differing += bad.len();
                }
                Err(e) => {
                    println!();
                    eprintln!("math_accuracy: {name} on the device: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        println!();
    }
    if differing > 0 {
        eprintln!("math_accuracy: {differing} results differ between the device and the folding");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
