//! GPU throughput of the library's row kernels (`kernels::softmax_rows`, `rms_norm`,
//! `layer_norm`) against a device-to-device copy of the same bytes, measured in the same run.
//!
//! Each kernel reads a `[rows, cols]` f32 matrix and writes one of the same size; the copy
//! moves those bytes. Each figure is the median of `--runs` launches after `--warmup`
//! untimed ones, timed with CUDA events (`Device::time`; wall clock on the simulator).
//! GB/s counts bytes read plus bytes written (the weight vectors are not counted).
//!
//! ```text
//! cargo run --release --example kernels_bench -- [--device auto|cuda|sim] [--cols 4096]
//!     [--mib 64,1024] [--runs N] [--warmup W]
//! ```

#[path = "bench/mod.rs"]
mod bench;

use std::process::ExitCode;
use std::time::Duration;

use bench::DeviceArg;
use clap::Parser;
use ptx_dsl::kernels;
use ptx_dsl::runtime::{DeviceKind, Error};

/// Row-kernel bandwidth against a device-to-device copy of the same bytes.
#[derive(Parser, Debug)]
#[command(name = "kernels_bench")]
struct Args {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = DeviceArg::Auto)]
    device: DeviceArg,
    /// Sizes of x in MiB, comma-separated [default: 64,1024 on a GPU, 1 on the simulator].
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    mib: Vec<usize>,
    /// Elements per row.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..))]
    cols: u32,
    /// Timed launches per figure (the median is reported).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Untimed launches before the timed ones.
    #[arg(long, default_value_t = 3)]
    warmup: u32,
}

fn main() -> ExitCode {
    bench::exit(run(&Args::parse()))
}

fn run(args: &Args) -> std::result::Result<(), String> {
    let e = |e: Error| e.to_string();
    let device = args.device.open().map_err(e)?;
    let sizes = match (&args.mib[..], device.kind()) {
        ([], DeviceKind::Cuda) => vec![64, 1024],
        ([], _) => vec![1],
        (given, _) => given.to_vec(),
    };
    let cols = args.cols as usize;
    println!(
        "device {} ({}), rows of {cols} f32, median of {} runs",
        device.name(),
        device.kind(),
        args.runs
    );
    for mib in sizes {
        let rows = ((mib << 20) / 4 / cols).max(1);
        let n = rows * cols;
        let x: Vec<f32> = (0..n).map(|i| ((i % 1999) as f32 / 99.95) - 10.0).collect();
        let w: Vec<f32> = (0..cols).map(|j| 1.0 + (j % 7) as f32 / 16.0).collect();
        let (xd, wd, bd) =
            (device.upload(&x).map_err(e)?, device.upload(&w).map_err(e)?, device.upload(&w).map_err(e)?);
        let mut out = device.zeroed::<f32>(n).map_err(e)?;
        let moved = (2 * n * 4) as f64;
        println!("\nx = {rows} x {cols} ({mib} MiB)");
        println!("{:<14} {:>11} {:>10} {:>8}", "kernel", "time", "GB/s", "of copy");
        let copy = bench::median(&device, args.runs, args.warmup, || out.copy_from_buffer(&xd)).map_err(e)?;
        let copy_gbps = moved / copy.as_secs_f64() / 1e9;
        println!("{:<14} {:>11.3?} {copy_gbps:>10.1} {:>8}", "copy", copy, "100%");
        let timed: [(&str, Duration); 3] = [
            (
                "softmax_rows",
                bench::median(&device, args.runs, args.warmup, || {
                    kernels::softmax_rows(&device, &xd, rows, cols, &mut out)
                })
                .map_err(e)?,
            ),
            (
                "rms_norm",
                bench::median(&device, args.runs, args.warmup, || {
                    kernels::rms_norm(&device, &xd, &wd, 1e-5, rows, cols, &mut out)
                })
                .map_err(e)?,
            ),
            (
                "layer_norm",
                bench::median(&device, args.runs, args.warmup, || {
                    kernels::layer_norm(&device, &xd, &wd, &bd, 1e-5, rows, cols, &mut out)
                })
                .map_err(e)?,
            ),
        ];
        for (name, t) in timed {
            let gbps = moved / t.as_secs_f64() / 1e9;
            println!("{name:<14} {:>11.3?} {gbps:>10.1} {:>7.1}%", t, 100.0 * gbps / copy_gbps);
        }
    }
    Ok(())
}
