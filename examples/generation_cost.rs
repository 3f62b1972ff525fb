//! Generates the batched RoPE forward kernel's PTX (build, verify, print) `N` times, for
//! counting the work with a deterministic tool rather than a noisy clock:
//!
//! ```text
//! scripts/generation-instructions.sh            # instructions per generation, each version
//! cargo run --release --example generation_cost -- builder 100000   # or time it
//! ```
//!
//! The versions: the seed port's forward kernel `builder` (written against the builder,
//! `benches/baseline`), `unchecked` and `checked` (written with `#[ptx_kernel]`, the
//! latter `ptx_dsl::rope::seed::BatchedRope`), and `production` (`ptx_dsl::rope::Rope`'s
//! out-of-place f32 half-split forward kernel at head_dim 128).

use ptx_dsl::core::{print, verify, Kernel, KernelIr, Target};
use ptx_dsl::rope::seed::BatchedRope;
use ptx_dsl::rope::{Direction, Rope, RopeConfig};

#[path = "../benches/baseline/mod.rs"]
mod baseline;
use baseline::{BatchedRopeUnchecked, BuilderRope};

/// Builds, verifies and prints `build()`'s kernel `n` times; returns the PTX bytes of one.
fn generate(n: u64, build: impl Fn() -> KernelIr) -> usize {
    let mut bytes = 0;
    for _ in 0..n {
        let ir = build();
        if let Err(e) = verify::verify(&ir) {
            eprintln!("generation_cost: {e}");
            std::process::exit(1);
        }
        bytes = std::hint::black_box(print::kernel_ptx(&ir, Target::SM_80)).len();
    }
    bytes
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: generation_cost builder|unchecked|checked|production [iterations]";
    let Some(version) = args.first() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let n = match args.get(1).map(|s| s.parse::<u64>()) {
        None => 1000,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("generation_cost: the iteration count must be a number\n{usage}");
            std::process::exit(2);
        }
    };
    let rope = BatchedRope::new(32, 128, 10_000.0);
    let production = Rope::new(RopeConfig::new(128)).expect("valid").kernel(Direction::Forward, false);
    let start = std::time::Instant::now();
    let bytes = match version.as_str() {
        "builder" => generate(n, || BuilderRope { num_heads: 32, head_dim: 128, theta: 10_000.0 }.build()),
        "unchecked" => generate(n, || BatchedRopeUnchecked::new(32, 128, 10_000.0).build()),
        "checked" => generate(n, || rope.build()),
        "production" => generate(n, || production.build()),
        other => {
            eprintln!("generation_cost: unknown version `{other}`\n{usage}");
            std::process::exit(2);
        }
    };
    let per = start.elapsed().as_secs_f64() / n.max(1) as f64;
    println!("{version}: {n} generations, {bytes} bytes of PTX each, {:.2} µs each", per * 1e6);
}
