//! GPU throughput of the RoPE kernels against the practical ceiling: a device-to-device copy
//! of the same bytes, measured in the same run.
//!
//! Each kernel reads `x` and writes `out` (8 bytes per element, plus one position per
//! sequence); the copy moves the same 8 bytes per element. Inputs default to 256 MiB per
//! tensor, several times an H200's 60 MB L2, so the numbers are DRAM bandwidth, not cache.
//! Each figure is the median of `--runs` timed launches after `--warmup` untimed ones, each
//! launch timed from its enqueue to the device being idle again.
//!
//! ```text
//! cargo run --release --example rope_bench -- [--device auto|cuda|sim] [--mib M] [--runs N] [--warmup W]
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ptx_dsl::rope::seed::{BatchedRope, BatchedRopeBackward};
use ptx_dsl::rope::{Direction, Layout, Rope, RopeConfig, TensorView};
use ptx_dsl::runtime::{Device, DeviceKind, Error};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Median wall time of `runs` calls of `f`, each followed by a device synchronize.
fn median_time(
    device: &Device,
    runs: usize,
    mut f: impl FnMut() -> Result<(), Error>,
) -> Result<Duration, Error> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        device.synchronize()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn run() -> Result<(), String> {
    let mut device_name = "auto".to_string();
    let (mut mib, mut runs, mut warmup) = (None, 20usize, 3usize);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--device" => device_name = value,
            "--mib" => mib = Some(value.parse::<usize>().map_err(|e| format!("--mib: {e}"))?),
            "--runs" => runs = value.parse().map_err(|e| format!("--runs: {e}"))?,
            "--warmup" => warmup = value.parse().map_err(|e| format!("--warmup: {e}"))?,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let device = match device_name.as_str() {
        "auto" => Device::from_env(),
        "cuda" => Device::cuda(0),
        "sim" => Ok(Device::sim()),
        other => return Err(format!("--device must be auto, cuda or sim, not `{other}`")),
    }
    .map_err(|e| e.to_string())?;
    // The simulator is ~10^4 times slower than a GPU: default to a size it finishes quickly.
    let mib = mib.unwrap_or(if device.kind() == DeviceKind::Cuda { 256 } else { 4 });
    let runs = runs.max(1);

    let (heads, head_dim) = (32u32, 128u32);
    let per_seq = (heads * head_dim) as usize;
    let batch = ((mib << 20) / 4 / per_seq).max(1);
    let n = batch * per_seq;
    let x: Vec<f32> = (0..n).map(|i| ((i % 1999) as f32 / 999.5) - 1.0).collect();
    let positions: Vec<u32> = (0..batch as u32).map(|s| s * 7 % 8192).collect();
    let e = |e: Error| e.to_string();
    let xd = device.upload(&x).map_err(e)?;
    let pd = device.upload(&positions).map_err(e)?;
    let mut out = device.zeroed::<f32>(n).map_err(e)?;

    let bytes = (8 * n + 4 * batch) as f64;
    println!(
        "device {} ({}), {batch} x {heads} x {head_dim} f32 ({:.0} MiB per tensor), median of {runs}",
        device.name(),
        device.kind(),
        (4 * n) as f64 / (1 << 20) as f64
    );
    let copy_time = {
        for _ in 0..warmup {
            out.copy_from_buffer(&xd).map_err(e)?;
        }
        median_time(&device, runs, || out.copy_from_buffer(&xd)).map_err(e)?
    };
    let copy_gbps = (8 * n) as f64 / copy_time.as_secs_f64() / 1e9;
    println!("{:<24} {:>10.3?} {:>9.1} GB/s  (the ceiling)", "device-to-device copy", copy_time, copy_gbps);
    let (seed_fwd, seed_bwd) =
        (BatchedRope::new(heads, head_dim, 10_000.0), BatchedRopeBackward::new(heads, head_dim, 10_000.0));
    let view = TensorView::contiguous(batch as u32, heads, head_dim);
    let half = Rope::new(RopeConfig::new(head_dim)).map_err(e)?.on(&device).map_err(e)?;
    let interleaved = RopeConfig { layout: Layout::Interleaved, ..RopeConfig::new(head_dim) };
    let interleaved = Rope::new(interleaved).map_err(e)?.on(&device).map_err(e)?;
    type Run<'a> = Box<dyn Fn(&mut ptx_dsl::runtime::DeviceBuffer<f32>) -> ptx_dsl::runtime::Result<()> + 'a>;
    let runs_list: Vec<(&str, Run)> = vec![
        ("seed forward", Box::new(|o| seed_fwd.apply(&device, &xd, o, &pd).map(|_| ()))),
        ("seed backward", Box::new(|o| seed_bwd.apply(&device, &xd, o, &pd).map(|_| ()))),
        (
            "half-split forward",
            Box::new(|o| half.apply(Direction::Forward, &pd, &xd, view, o, view).map(|_| ())),
        ),
        (
            "half-split backward",
            Box::new(|o| half.apply(Direction::Backward, &pd, &xd, view, o, view).map(|_| ())),
        ),
        (
            "interleaved forward",
            Box::new(|o| interleaved.apply(Direction::Forward, &pd, &xd, view, o, view).map(|_| ())),
        ),
        (
            "interleaved backward",
            Box::new(|o| interleaved.apply(Direction::Backward, &pd, &xd, view, o, view).map(|_| ())),
        ),
    ];
    for (label, run) in &runs_list {
        for _ in 0..warmup {
            run(&mut out).map_err(e)?;
        }
        let t = median_time(&device, runs, || run(&mut out)).map_err(e)?;
        let gbps = bytes / t.as_secs_f64() / 1e9;
        println!("{label:<24} {t:>10.3?} {gbps:>9.1} GB/s  {:>5.1}% of copy", 100.0 * gbps / copy_gbps);
    }
    Ok(())
}
