//! The main job: the batched RoPE forward and backward kernels.
//!
//! Builds both kernels with the PTX builder, prints each one's instruction count and, when
//! NVIDIA's ptxas is found (see `scripts/install-ptxas.sh`), its register use on sm_90.
//!
//! ```text
//! cargo run --release --example rope -- [--heads N] [--head-dim D] [--theta T] [--emit-ptx DIR]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use ptx_dsl::core::ptxas;
use ptx_dsl::prelude::*;
use ptx_dsl::rope::BatchedRope;

/// Command-line options.
struct Options {
    heads: u32,
    head_dim: u32,
    theta: f32,
    emit_ptx: Option<PathBuf>,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options { heads: 32, head_dim: 128, theta: 10_000.0, emit_ptx: None };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--heads" => o.heads = value()?.parse().map_err(|e| format!("--heads: {e}"))?,
            "--head-dim" => o.head_dim = value()?.parse().map_err(|e| format!("--head-dim: {e}"))?,
            "--theta" => o.theta = value()?.parse().map_err(|e| format!("--theta: {e}"))?,
            "--emit-ptx" => o.emit_ptx = Some(PathBuf::from(value()?)),
            "-h" | "--help" => {
                return Err("usage: rope [--heads N] [--head-dim D] [--theta T] [--emit-ptx DIR]".into())
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    if o.head_dim == 0 || o.head_dim % 2 != 0 || o.head_dim > 2048 {
        return Err(format!("--head-dim must be even and in 2..=2048, not {}", o.head_dim));
    }
    Ok(o)
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let kernels = [
        BatchedRope::forward(opts.heads, opts.head_dim, opts.theta),
        BatchedRope::backward(opts.heads, opts.head_dim, opts.theta),
    ];
    let ptxas = ptxas::find_ptxas();
    if ptxas.is_none() {
        println!("(ptxas not found: register counts skipped; run scripts/install-ptxas.sh or set PTXAS)");
    }
    println!("batched RoPE, {} heads x head_dim {}, theta {}", opts.heads, opts.head_dim, opts.theta);
    println!("{:<24} {:>12} {:>12} {:>14}", "kernel", "instructions", "build+print", "sm_90 regs");
    for kernel in &kernels {
        let start = Instant::now();
        let ir = kernel.build();
        if let Err(e) = ptx_dsl::core::verify::verify(&ir) {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
        let ptx = ptx_dsl::core::print::kernel_ptx(&ir, Target::SM_80);
        let elapsed = start.elapsed();
        let regs = match &ptxas {
            Some(path) => match ptxas::assemble(path, &kernel.ptx_for(Target::SM_90), "sm_90") {
                Ok(a) => a.registers.map_or("?".to_string(), |r| r.to_string()),
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            },
            None => "-".to_string(),
        };
        println!("{:<24} {:>12} {:>10.1?} {:>14}", kernel.name(), ir.instruction_count(), elapsed, regs);
        if let Some(dir) = &opts.emit_ptx {
            let path = dir.join(format!("{}.ptx", kernel.name()));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &ptx)) {
                eprintln!("cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            println!("  wrote {}", path.display());
        }
    }
    ExitCode::SUCCESS
}
