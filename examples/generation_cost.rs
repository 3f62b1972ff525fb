//! Generates the batched RoPE forward kernel's PTX (build, verify, print) `N` times, for
//! counting the work with a deterministic tool rather than a noisy clock:
//!
//! ```text
//! scripts/generation-instructions.sh            # instructions per generation, each version
//! cargo run --release --example generation_cost -- builder 100000   # or time it
//! ```
//!
//! The versions: `builder` (written against the builder, `ptx_dsl::rope::builder`),
//! `unchecked` and `checked` (written with `#[ptx_kernel]`, `ptx_dsl::rope::kernel`).

use ptx_dsl::core::{print, verify, Kernel, KernelIr, Target};
use ptx_dsl::rope::builder::BuilderRope;
use ptx_dsl::rope::kernel::BatchedRopeUnchecked;
use ptx_dsl::rope::BatchedRope;

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
    let usage = "usage: generation_cost builder|unchecked|checked [iterations]";
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
    let rope = BatchedRope::forward(32, 128, 10_000.0);
    let start = std::time::Instant::now();
    let bytes = match version.as_str() {
        "builder" => generate(n, || BuilderRope { rope }.build()),
        "unchecked" => generate(n, || BatchedRopeUnchecked::new(32, 128, 10_000.0, false).build()),
        "checked" => generate(n, || rope.build()),
        other => {
            eprintln!("generation_cost: unknown version `{other}`\n{usage}");
            std::process::exit(2);
        }
    };
    let per = start.elapsed().as_secs_f64() / n.max(1) as f64;
    println!("{version}: {n} generations, {bytes} bytes of PTX each, {:.2} µs each", per * 1e6);
}
