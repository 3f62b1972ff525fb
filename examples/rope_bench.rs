//! GPU throughput of the RoPE kernels against the practical ceiling: a device-to-device copy
//! of the same bytes, measured in the same run.
//!
//! For each size of `x` (`--mib`, default 16 MiB to 4 GiB on a GPU, 4 MiB on the simulator),
//! each kernel reads `x` and writes `out` of the same size; the copy moves the same bytes.
//! Kernels: the production RoPE (`rope::Rope`) forward and backward for each layout and
//! storage type, out of place, and the seed port (`rope::seed`, f32). Each figure is the
//! median of `--runs` launches after `--warmup` untimed ones, each timed with CUDA events
//! (`Device::time`; wall clock on the simulator). GB/s counts bytes read plus bytes written.
//!
//! ```text
//! cargo run --release --example rope_bench -- [--device auto|cuda|sim] [--mib 16,256,4096]
//!     [--runs N] [--warmup W] [--heads H] [--head-dim D]
//! ```

#[path = "bench/mod.rs"]
mod bench;

use std::process::ExitCode;
use std::time::Duration;

use bench::DeviceArg;
use clap::Parser;
use ptx_dsl::rope::seed::{BatchedRope, BatchedRopeBackward};
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig, TensorView};
use ptx_dsl::runtime::{DeviceBuffer, DeviceKind, Error};

/// RoPE bandwidth against a device-to-device copy of the same bytes.
#[derive(Parser, Debug)]
#[command(name = "rope_bench")]
struct Args {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = DeviceArg::Auto)]
    device: DeviceArg,
    /// Sizes of x in MiB, comma-separated [default: 16,64,256,1024,4096 on a GPU, 4 on the simulator].
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    mib: Vec<usize>,
    /// Timed launches per figure (the median is reported).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Untimed launches before the timed ones.
    #[arg(long, default_value_t = 3)]
    warmup: u32,
    /// Heads per token.
    #[arg(long, default_value_t = 32)]
    heads: u32,
    /// Elements per head.
    #[arg(long, default_value_t = 128)]
    head_dim: u32,
}

fn main() -> ExitCode {
    bench::exit(run(&Args::parse()))
}

/// A buffer pair of one storage type, `x` and `out`.
enum Pair {
    F32(DeviceBuffer<f32>, DeviceBuffer<f32>),
    Half(DeviceBuffer<u16>, DeviceBuffer<u16>),
}

fn run(args: &Args) -> std::result::Result<(), String> {
    let e = |e: Error| e.to_string();
    let device = args.device.open().map_err(e)?;
    let sizes = match (&args.mib[..], device.kind()) {
        ([], DeviceKind::Cuda) => vec![16, 64, 256, 1024, 4096],
        ([], _) => vec![4],
        (given, _) => given.to_vec(),
    };
    let row = args.heads as usize * args.head_dim as usize;
    println!(
        "device {} ({}), {} heads x head_dim {}, median of {} runs (CUDA events on a GPU)",
        device.name(),
        device.kind(),
        args.heads,
        args.head_dim,
        args.runs
    );
    for mib in sizes {
        let bytes = mib << 20;
        println!("\nx = {mib} MiB");
        println!("{:<36} {:>11} {:>10} {:>8}", "kernel", "time", "GB/s", "of copy");
        let mut copy_gbps = None;
        for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
            let tokens = (bytes / dtype.size() / row).max(1);
            let n = tokens * row;
            let mut pair = match dtype {
                Dtype::F32 => {
                    let x: Vec<f32> = (0..n).map(|i| ((i % 1999) as f32 / 999.5) - 1.0).collect();
                    Pair::F32(device.upload(&x).map_err(e)?, device.zeroed(n).map_err(e)?)
                }
                _ => {
                    let x: Vec<u16> = (0..n).map(|i| 0x3c00 ^ (i % 977) as u16).collect();
                    Pair::Half(device.upload(&x).map_err(e)?, device.zeroed(n).map_err(e)?)
                }
            };
            let positions: Vec<u32> = (0..tokens as u32).map(|t| t.wrapping_mul(7919) % (1 << 20)).collect();
            let pd = device.upload(&positions).map_err(e)?;
            let moved = (2 * n * dtype.size() + 4 * tokens) as f64;
            let report = |label: String, t: Duration, copy: Option<f64>| {
                let gbps = moved / t.as_secs_f64() / 1e9;
                let share = copy.map_or(String::new(), |c| format!("{:.1}%", 100.0 * gbps / c));
                println!("{label:<36} {:>11.3?} {gbps:>10.1} {share:>8}", t);
                gbps
            };
            if copy_gbps.is_none() {
                let t = match &mut pair {
                    Pair::F32(x, out) => {
                        bench::median(&device, args.runs, args.warmup, || out.copy_from_buffer(x))
                    }
                    Pair::Half(x, out) => {
                        bench::median(&device, args.runs, args.warmup, || out.copy_from_buffer(x))
                    }
                }
                .map_err(e)?;
                copy_gbps = Some(report("device-to-device copy".into(), t, None));
            }
            let view = TensorView::contiguous(tokens as u32, args.heads, args.head_dim);
            for layout in [Layout::HalfSplit, Layout::Interleaved] {
                let config = RopeConfig { layout, dtype, ..RopeConfig::new(args.head_dim) };
                let rope = Rope::new(config).map_err(e)?.on(&device).map_err(e)?;
                for direction in [Direction::Forward, Direction::Backward] {
                    let t = match &mut pair {
                        Pair::F32(x, out) => bench::median(&device, args.runs, args.warmup, || {
                            rope.apply(direction, &pd, x, view, out, view).map(|_| ())
                        }),
                        Pair::Half(x, out) => bench::median(&device, args.runs, args.warmup, || {
                            rope.apply(direction, &pd, x, view, out, view).map(|_| ())
                        }),
                    }
                    .map_err(e)?;
                    let label = format!("rope {} {layout:?} {direction:?}", dtype.name());
                    report(label, t, copy_gbps);
                }
            }
            // The seed's geometry puts sequences in grid y, whose limit is 65535.
            if let (Pair::F32(_, _), true) = (&pair, tokens > 65_535) {
                println!(
                    "seed port                            skipped: {tokens} sequences exceed grid y (65535)"
                );
            } else if let Pair::F32(x, out) = &mut pair {
                let (fwd, bwd) = (
                    BatchedRope::new(args.heads, args.head_dim, 10_000.0),
                    BatchedRopeBackward::new(args.heads, args.head_dim, 10_000.0),
                );
                let t = bench::median(&device, args.runs, args.warmup, || {
                    fwd.apply(&device, x, out, &pd).map(|_| ())
                })
                .map_err(e)?;
                report("seed port forward".into(), t, copy_gbps);
                let t = bench::median(&device, args.runs, args.warmup, || {
                    bwd.apply(&device, x, out, &pd).map(|_| ())
                })
                .map_err(e)?;
                report("seed port backward".into(), t, copy_gbps);
            }
        }
    }
    Ok(())
}
