//! The main job: batched RoPE forward and backward on a device.
//!
//! Builds both kernels and prints each one's instruction count, its PTX generation time
//! (median of build + verify + print) and, when NVIDIA's ptxas is found, its sm_90 register
//! use. Then runs them on `Device::auto()` (a CUDA GPU when there is one, else the CPU
//! simulator) on fresh random inputs and checks them against a float64 reference of the
//! same formulas. Exits non-zero when an error bound is exceeded.
//!
//! ```text
//! cargo run --release --example rope -- [--device auto|cuda|sim] [--batch B] [--heads H]
//!     [--head-dim D] [--theta T] [--max-position P] [--seed S] [--emit-ptx DIR]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ptx_dsl::core::{print, ptxas, verify};
use ptx_dsl::prelude::*;
use ptx_dsl::rope::{BatchedRope, ErrorBounds};
use ptx_dsl::runtime::{Device, DeviceKind};

/// Command-line options.
struct Options {
    device: String,
    batch: u32,
    heads: u32,
    head_dim: u32,
    theta: f32,
    max_position: u32,
    seed: Option<u64>,
    emit_ptx: Option<PathBuf>,
}

const USAGE: &str = "usage: rope [--device auto|cuda|sim] [--batch B] [--heads H] [--head-dim D] \
                     [--theta T] [--max-position P] [--seed S] [--emit-ptx DIR]";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        device: "auto".into(),
        batch: 64,
        heads: 32,
        head_dim: 128,
        theta: 10_000.0,
        max_position: 4096,
        seed: None,
        emit_ptx: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"));
        fn num<T: std::str::FromStr>(flag: &str, v: String) -> Result<T, String>
        where
            T::Err: std::fmt::Display,
        {
            v.parse().map_err(|e| format!("{flag} {v}: {e}"))
        }
        match flag.as_str() {
            "--device" => o.device = value()?,
            "--batch" => o.batch = num(&flag, value()?)?,
            "--heads" => o.heads = num(&flag, value()?)?,
            "--head-dim" => o.head_dim = num(&flag, value()?)?,
            "--theta" => o.theta = num(&flag, value()?)?,
            "--max-position" => o.max_position = num(&flag, value()?)?,
            "--seed" => o.seed = Some(num(&flag, value()?)?),
            "--emit-ptx" => o.emit_ptx = Some(PathBuf::from(value()?)),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if o.head_dim == 0 || o.head_dim % 2 != 0 || o.head_dim > 2048 {
        return Err(format!("--head-dim must be even and in 2..=2048, not {}", o.head_dim));
    }
    if o.batch == 0 || o.heads == 0 || o.max_position == 0 {
        return Err("--batch, --heads and --max-position must be at least 1".into());
    }
    if !(o.theta > 1.0 && o.theta.is_finite()) {
        return Err(format!("--theta must be a finite number above 1, not {}", o.theta));
    }
    Ok(o)
}

/// A small xorshift generator for the inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [-1, 1).
    fn signed_unit(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

fn open_device(name: &str) -> Result<Device, String> {
    let device = match name {
        "auto" => Device::from_env(),
        "cuda" => Device::cuda(0),
        "sim" => Ok(Device::sim()),
        other => return Err(format!("--device must be auto, cuda or sim, not `{other}`")),
    };
    device.map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, String> {
    let o = parse_args()?;
    let forward = BatchedRope::forward(o.heads, o.head_dim, o.theta);
    let backward = BatchedRope::backward(o.heads, o.head_dim, o.theta);

    // The kernels themselves.
    let ptxas = ptxas::find_ptxas();
    println!(
        "batched RoPE: {} sequences x {} heads x head_dim {}, theta {}",
        o.batch, o.heads, o.head_dim, o.theta
    );
    println!("{:<24} {:>12} {:>12} {:>12}", "kernel", "instructions", "PTX gen", "sm_90 regs");
    for kernel in [&forward, &backward] {
        let ir = kernel.build();
        verify::verify(&ir).map_err(|e| e.to_string())?;
        let ptx = print::kernel_ptx(&ir, Target::SM_80);
        // The median of repeated build+verify+print (the bench measures it more carefully).
        let mut times: Vec<Duration> = (0..201)
            .map(|_| {
                let start = Instant::now();
                let ir = kernel.build();
                let ok = verify::verify(&ir).is_ok();
                std::hint::black_box((ok, print::kernel_ptx(&ir, Target::SM_80)));
                start.elapsed()
            })
            .collect();
        times.sort();
        let elapsed = times[times.len() / 2];
        let regs = match &ptxas {
            Some(path) => {
                let a = ptxas::assemble(path, &kernel.ptx_for(Target::SM_90), "sm_90")
                    .map_err(|e| e.to_string())?;
                a.registers.map_or("?".to_string(), |r| r.to_string())
            }
            None => "-".to_string(),
        };
        println!("{:<24} {:>12} {:>10.1?} {:>12}", kernel.label(), ir.instruction_count(), elapsed, regs);
        if let Some(dir) = &o.emit_ptx {
            let path = dir.join(format!("{}.ptx", kernel.label()));
            std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, &ptx))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("  wrote {}", path.display());
        }
    }
    if ptxas.is_none() {
        println!("(ptxas not found: register counts skipped; run scripts/install-ptxas.sh or set PTXAS)");
    }

    // Run them.
    let device = open_device(&o.device)?;
    let seed = o.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    }) | 1;
    let mut rng = Rng(seed);
    let n = o.batch as usize * o.heads as usize * o.head_dim as usize;
    let x: Vec<f32> = (0..n).map(|_| rng.signed_unit()).collect();
    let positions: Vec<u32> = (0..o.batch).map(|_| (rng.next() % o.max_position as u64) as u32).collect();

    let e = |e: ptx_dsl::runtime::Error| e.to_string();
    let x_dev = device.upload(&x).map_err(e)?;
    let pos_dev = device.upload(&positions).map_err(e)?;
    let mut y_dev = device.zeroed::<f32>(n).map_err(e)?;
    let mut back_dev = device.zeroed::<f32>(n).map_err(e)?;
    // First launches build, load and (on a GPU) warm up; the timed ones hit the cache.
    forward.launch(&device, &x_dev, &mut y_dev, &pos_dev).map_err(e)?;
    backward.launch(&device, &y_dev, &mut back_dev, &pos_dev).map_err(e)?;
    device.synchronize().map_err(e)?;
    let timed = |f: &mut dyn FnMut() -> Result<ptx_dsl::runtime::LaunchReport, ptx_dsl::runtime::Error>| {
        let start = Instant::now();
        let report = f().map_err(e)?;
        device.synchronize().map_err(e)?;
        Ok::<(Duration, _), String>((start.elapsed(), report))
    };
    let (t_fwd, r_fwd) = timed(&mut || forward.launch(&device, &x_dev, &mut y_dev, &pos_dev))?;
    let (t_bwd, _) = timed(&mut || backward.launch(&device, &y_dev, &mut back_dev, &pos_dev))?;
    let y = y_dev.to_vec().map_err(e)?;
    let back = back_dev.to_vec().map_err(e)?;

    let reference = forward.reference(&x, &positions);
    let fwd_err = y.iter().zip(&reference).map(|(a, b)| (*a as f64 - b).abs()).fold(0.0, f64::max);
    let trip_err = back.iter().zip(&x).map(|(a, b)| (*a as f64 - *b as f64).abs()).fold(0.0, f64::max);
    let rel = {
        let num: f64 = y.iter().zip(&reference).map(|(a, b)| (*a as f64 - b).powi(2)).sum();
        let den: f64 = reference.iter().map(|b| b * b).sum();
        (num / den).sqrt()
    };
    let b = ErrorBounds::for_positions_below(o.max_position);
    let gbps = |t: Duration| (3.0 * n as f64 * 4.0) / t.as_secs_f64() / 1e9;

    println!();
    println!("device        {} ({})", device.name(), device.kind());
    println!(
        "shape         [{}, {}, {}] f32, positions < {}, seed {seed:#x}",
        o.batch, o.heads, o.head_dim, o.max_position
    );
    println!(
        "forward       max abs error {fwd_err:.3e} (bound {:.3e}), ||out-ref||/||ref|| {rel:.3e}",
        b.forward
    );
    println!("round trip    max abs error {trip_err:.3e} (bound {:.3e})", b.round_trip);
    println!("time          forward {t_fwd:.2?} ({:.2} GB/s), backward {t_bwd:.2?}", gbps(t_fwd));
    if device.kind() == DeviceKind::Sim {
        if let Some(instr) = r_fwd.instructions {
            println!(
                "simulator     {} threads, {instr} instructions, {:.1} M instructions/s",
                r_fwd.threads.unwrap_or(0),
                instr as f64 / t_fwd.as_secs_f64() / 1e6
            );
        }
    }
    let ok = fwd_err <= b.forward && trip_err <= b.round_trip;
    println!("result        {}", if ok { "PASS" } else { "FAIL: an error bound is exceeded" });
    Ok(ok)
}
