//! The main job: RoPE forward and backward on a device, checked against float64.
//!
//! Builds the kernels and prints each one's instruction count, PTX generation time and, when
//! NVIDIA's ptxas is found, its sm_90 registers and stack. Then runs the production RoPE
//! (`ptx_dsl::rope::Rope`: q and k fused in one launch) — or with `--seed-port` the seed's
//! kernels (`ptx_dsl::rope::seed`) — on `Device::auto()` (a CUDA GPU when there is one, else
//! the CPU simulator) on fresh random inputs, compares forward, backward and the round trip
//! with an independent float64 reference, and exits non-zero when an error bound is
//! exceeded. `cargo run --release --example rope -- --help` lists the flags.

#[path = "../tests/common/rope_config.rs"]
mod rope_config;
#[path = "../tests/common/rope_reference.rs"]
mod rope_reference;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{CommandFactory, Parser, ValueEnum};
use ptx_dsl::core::{verify, Kernel, Target};
use ptx_dsl::rope::seed::{self, BatchedRope, BatchedRopeBackward, ErrorBounds};
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig, Scaling, TensorView};
use ptx_dsl::runtime::{Device, DeviceBuffer, DeviceKind, Error};
use ptx_tools::ptxas;
use rope_config::{half_bits, half_value, ref_layout, ref_scaling, storage_roundoff};
use rope_reference::reference_rope;

/// RoPE (rotary position embedding) forward and backward on a GPU or the CPU simulator,
/// checked against a float64 reference.
#[derive(Parser, Debug)]
#[command(name = "rope", version)]
struct Args {
    /// Where to run: a CUDA GPU when there is one (auto), the GPU, or the CPU simulator.
    #[arg(long, value_enum, default_value_t = DeviceArg::Auto)]
    device: DeviceArg,
    /// Pair layout: interleaved (GPT-J, pairs 2i, 2i+1) or half (NeoX/Llama/HF, pairs i, i+rotary_dim/2)
    /// [default: half; interleaved with --seed-port].
    #[arg(long, value_enum)]
    layout: Option<LayoutArg>,
    /// Storage type of q and k (the math is f32).
    #[arg(long, value_enum, default_value_t = DtypeArg::F32)]
    dtype: DtypeArg,
    /// Tokens (one position each; with --seed-port, sequences).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    tokens: u32,
    /// Query heads per token.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    heads: u32,
    /// Key heads per token, rotated in the same launch (0: q only) [default: 8; 0 with --seed-port].
    #[arg(long)]
    kv_heads: Option<u32>,
    /// Elements per head.
    #[arg(long, default_value_t = 128)]
    head_dim: u32,
    /// Rotated elements per head (even, <= head_dim; the rest is copied) [default: head_dim].
    #[arg(long)]
    rotary_dim: Option<u32>,
    /// The frequency base θ.
    #[arg(long, default_value_t = 10_000.0)]
    theta: f64,
    /// Frequency scaling: none, linear:F, ntk:F (dynamic NTK, original context 4096, sequence
    /// length --max-pos), yarn:F (original context 4096), llama3 (Llama 3.1's).
    #[arg(long, default_value = "none", value_parser = parse_scaling)]
    scaling: ScalingArg,
    /// Positions are drawn uniformly below this (the first tokens get 0, 1 and max-pos − 1).
    #[arg(long, visible_alias = "max-position", default_value_t = 1 << 20, value_parser = clap::value_parser!(u32).range(3..))]
    max_pos: u32,
    /// Seed of the random inputs, decimal or 0x hex as printed [default: fresh each run].
    #[arg(long, value_parser = parse_seed)]
    seed: Option<u64>,
    /// Run the seed port (rope::seed: interleaved, f32, full rotary, q only) instead; it implies
    /// --layout interleaved and --kv-heads 0.
    #[arg(long)]
    seed_port: bool,
    /// Write x.npy, positions.npy, forward.npy, backward.npy (float32) and params.json here
    /// (the directory is created, and checked to be writable, before the run).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Write each kernel's PTX for the selected device's target into this directory (created,
    /// and checked to be writable, before the run).
    #[arg(long)]
    emit_ptx: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DeviceArg {
    Auto,
    Cuda,
    Sim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LayoutArg {
    Interleaved,
    Half,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DtypeArg {
    F32,
    F16,
    Bf16,
}

/// `--scaling` as written: the variant and its factor (the rest is filled in from `--max-pos`).
#[derive(Clone, Debug, PartialEq)]
struct ScalingArg {
    text: String,
    kind: ScalingKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ScalingKind {
    None,
    Linear(f64),
    Ntk(f64),
    Yarn(f64),
    Llama3,
}

fn parse_scaling(text: &str) -> Result<ScalingArg, String> {
    // Below 1 every variant would turn pair 0 faster than one radian per position, which
    // the kernels refuse (`rope::MAX_TURNS_PER_POSITION`): say so here, in the flag's terms.
    let factor = |f: &str| match f.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 1.0 => Ok(v),
        _ => Err(format!(
            "the factor in `{text}` must be a number >= 1 (a scaling stretches positions; below 1 the \
             fastest pair would turn more than one radian per position)"
        )),
    };
    let kind = match text.split_once(':') {
        None if text == "none" => ScalingKind::None,
        None if text == "llama3" => ScalingKind::Llama3,
        Some(("linear", f)) => ScalingKind::Linear(factor(f)?),
        Some(("ntk", f)) => ScalingKind::Ntk(factor(f)?),
        Some(("yarn", f)) => ScalingKind::Yarn(factor(f)?),
        _ => return Err(format!("`{text}` is not one of none, linear:F, ntk:F, yarn:F, llama3")),
    };
    Ok(ScalingArg { text: text.to_string(), kind })
}

fn parse_seed(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("`{text}` is not a decimal or 0x-hex u64: {e}"))
}

impl Args {
    fn rotary_dim(&self) -> u32 {
        self.rotary_dim.unwrap_or(self.head_dim)
    }

    /// `--layout`, or its default: interleaved for the seed port, half-split otherwise.
    fn layout(&self) -> LayoutArg {
        let default = if self.seed_port { LayoutArg::Interleaved } else { LayoutArg::Half };
        self.layout.unwrap_or(default)
    }

    /// `--kv-heads`, or its default: 0 for the seed port (q only), 8 otherwise.
    fn kv_heads(&self) -> u32 {
        self.kv_heads.unwrap_or(if self.seed_port { 0 } else { 8 })
    }

    fn scaling(&self) -> Scaling {
        const ORIGINAL: u32 = 4096;
        match self.scaling.kind {
            ScalingKind::None => Scaling::None,
            ScalingKind::Linear(factor) => Scaling::Linear { factor },
            ScalingKind::Ntk(factor) => {
                Scaling::DynamicNtk { factor, original_max_position: ORIGINAL, seq_len: self.max_pos }
            }
            ScalingKind::Yarn(factor) => Scaling::yarn(factor, ORIGINAL),
            ScalingKind::Llama3 => Scaling::llama3(),
        }
    }

    fn config(&self) -> RopeConfig {
        RopeConfig {
            head_dim: self.head_dim,
            rotary_dim: self.rotary_dim(),
            layout: match self.layout() {
                LayoutArg::Interleaved => Layout::Interleaved,
                LayoutArg::Half => Layout::HalfSplit,
            },
            dtype: match self.dtype {
                DtypeArg::F32 => Dtype::F32,
                DtypeArg::F16 => Dtype::F16,
                DtypeArg::Bf16 => Dtype::Bf16,
            },
            theta: self.theta,
            scaling: self.scaling(),
        }
    }

    /// The seed port runs one configuration: refuse flags that ask for another.
    fn check_seed_port(&self) -> Result<(), String> {
        let mut conflicts = Vec::new();
        if self.layout() != LayoutArg::Interleaved {
            conflicts.push("--layout interleaved");
        }
        if self.dtype != DtypeArg::F32 {
            conflicts.push("--dtype f32");
        }
        if self.rotary_dim() != self.head_dim {
            conflicts.push("no --rotary-dim");
        }
        if self.scaling.kind != ScalingKind::None {
            conflicts.push("--scaling none");
        }
        if self.kv_heads() != 0 {
            conflicts.push("--kv-heads 0");
        }
        if conflicts.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "--seed-port runs the seed's interleaved f32 kernels on q alone: it needs {}",
                conflicts.join(", ")
            ))
        }
    }
}

/// The flag a configuration argument of the library comes from.
fn flag_of(argument: &str) -> &str {
    match argument {
        "head_dim" => "--head-dim",
        "rotary_dim" => "--rotary-dim",
        "theta" => "--theta",
        // The seed port's: one sequence per token.
        "num_heads" => "--heads",
        "positions" => "--tokens",
        "x" => "--tokens x --heads x --head-dim",
        a if a.starts_with("scaling.") => "--scaling",
        other => other,
    }
}

impl Args {
    /// The flags' values together: the seed port's conflicts, or the configuration
    /// `Rope::new` refuses, as one line naming the flag.
    fn check(&self) -> Result<(), String> {
        let checked = if self.seed_port {
            self.check_seed_port()?;
            // The seed computes in f32: θ as an f32 (1e300 is inf there).
            seed::check_shape(self.heads, self.head_dim, self.theta as f32, self.tokens as usize).map(|_| ())
        } else {
            Rope::new(self.config()).map(|_| ())
        };
        checked.map_err(|e| match e {
            Error::InvalidArgument { argument, reason } => {
                let flag = flag_of(&argument);
                let default = if argument == "rotary_dim" && self.rotary_dim.is_none() {
                    " (its default, --head-dim)"
                } else {
                    ""
                };
                let f32_theta = if self.seed_port && argument == "theta" {
                    " (the seed port takes θ as an f32)"
                } else {
                    ""
                };
                format!("invalid value for {flag}{default}: {reason}{f32_theta}")
            }
            other => other.to_string(),
        })
    }
}

/// Parses the command line and checks the flags' values together: a bad value is a clap
/// error (one line, then the usage; exit code 2), as a value clap itself refuses is.
fn parse_checked<I: IntoIterator<Item = T>, T: Into<std::ffi::OsString> + Clone>(
    argv: I,
) -> Result<Args, clap::Error> {
    let args = Args::try_parse_from(argv).map_err(with_usage)?;
    match args.check() {
        Ok(()) => Ok(args),
        Err(msg) => Err(Args::command().error(clap::error::ErrorKind::ValueValidation, msg)),
    }
}

/// A value clap refuses itself, rendered as the example's own checks are: the error (with
/// what clap adds under it, the possible values), then the usage, which clap's own
/// rendering of a refused value leaves out. Help and version requests, and errors that
/// show the usage already, pass as they are.
fn with_usage(e: clap::Error) -> clap::Error {
    use clap::error::ErrorKind;
    let text = e.render().to_string();
    let help = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if help || text.contains("Usage:") {
        return e;
    }
    let body = text.trim_end().trim_end_matches("For more information, try '--help'.").trim_end();
    let message = body.strip_prefix("error: ").unwrap_or(body).to_string();
    Args::command().error(e.kind(), message)
}

/// `println!` that ends the program quietly when stdout is closed (`rope | head -1`)
/// instead of panicking on the broken pipe; any other failure to write is an error.
macro_rules! say {
    () => {
        say!("")
    };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write to stdout: {e}");
                std::process::exit(2);
            }
            std::process::exit(0);
        }
    }};
}

fn main() -> ExitCode {
    let args = parse_checked(std::env::args_os()).unwrap_or_else(|e| e.exit());
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// A small xorshift generator for the inputs.
struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value: it is mixed so that 0 and even seeds work too).
    fn new(seed: u64) -> Rng {
        let mixed = (seed ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        Rng(mixed | 1)
    }

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

fn open_device(arg: DeviceArg) -> Result<Device, String> {
    match arg {
        DeviceArg::Auto => Device::from_env().map_err(err),
        // The library's advice names its API; on the command line the simulator is a flag.
        DeviceArg::Cuda => Device::cuda(0).map_err(|e| format!("{e} (or run with --device sim)")),
        DeviceArg::Sim => Ok(Device::sim()),
    }
}

fn err(e: Error) -> String {
    e.to_string()
}

/// `tokens × heads × head_dim`, or an error when the product overflows `usize`.
fn elements(tokens: usize, heads: u32, head_dim: u32, heads_flag: &str) -> Result<usize, String> {
    tokens
        .checked_mul(heads as usize)
        .and_then(|n| n.checked_mul(head_dim as usize))
        .ok_or_else(|| format!("--tokens x {heads_flag} x --head-dim overflows this machine's address space"))
}

/// An empty vector with room for exactly `len` values, or an error naming `what` and the
/// `flags` that size it when the host cannot allocate it (rather than aborting).
fn host_vec<T>(what: &str, len: usize, flags: &str) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        format!("cannot allocate {len} values for {what} on the host: choose smaller {flags}")
    })?;
    Ok(v)
}

/// Bytes of host memory a run needs for each element of q and k, rounded up: the input, the
/// simulator's four tensors (input, forward, backward, round trip), their read-backs, and the
/// float64 reference's input and output.
const HOST_BYTES_PER_ELEMENT: usize = 80;

/// Checks up front that the host can hold what a run over `elements` values of q and k
/// needs (the read-backs and references are allocated as they come, and a failed
/// allocation would abort the process): an error naming the `flags` that size it when this
/// process cannot reserve that much, or when the machine has less available.
fn check_host_memory(elements: usize, flags: &str) -> Result<(), String> {
    let bytes = elements.saturating_mul(HOST_BYTES_PER_ELEMENT);
    let mib = |b: usize| b >> 20;
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).map_err(|_| {
        format!(
            "this run needs about {} MiB of host memory, more than this process can allocate: choose smaller {flags}",
            mib(bytes)
        )
    })?;
    drop(probe);
    match available_memory() {
        Some(available) if bytes > available => Err(format!(
            "this run needs about {} MiB of host memory and the machine has {} MiB available: choose smaller {flags}",
            mib(bytes),
            mib(available)
        )),
        _ => Ok(()),
    }
}

/// The memory the machine has available for new allocations (Linux's `MemAvailable`), if
/// it says.
fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn run(args: &Args) -> Result<bool, String> {
    if args.seed_port {
        args.check_seed_port()?;
    }
    if let Some(dir) = &args.save {
        prepare_dir("--save", dir)?;
    }
    if let Some(dir) = &args.emit_ptx {
        prepare_dir("--emit-ptx", dir)?;
    }
    let device = open_device(args.device)?;
    let target = device.target();
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let mut rng = Rng::new(seed);

    let rope = if args.seed_port { None } else { Some(Rope::new(args.config()).map_err(err)?) };
    let kernels: Vec<(String, Box<dyn Kernel>)> = match &rope {
        None => {
            let theta = args.theta as f32;
            vec![
                ("batched_rope".into(), Box::new(BatchedRope::new(args.heads, args.head_dim, theta))),
                (
                    "batched_rope_backward".into(),
                    Box::new(BatchedRopeBackward::new(args.heads, args.head_dim, theta)),
                ),
            ]
        }
        Some(rope) => [Direction::Forward, Direction::Backward]
            .into_iter()
            .map(|d| {
                (format!("{} {}", rope.kernel(d, false).name(), direction_name(d)), rope.kernel(d, false))
            })
            .collect(),
    };
    print_header(args);
    print_kernels(&kernels, target, args.emit_ptx.as_deref())?;

    let tokens = args.tokens as usize;
    let mut positions = host_vec::<u32>("positions", tokens, "--tokens")?;
    positions.extend((0..tokens).map(|_| (rng.next() % args.max_pos as u64) as u32));
    for (slot, p) in positions.iter_mut().zip([0, 1, args.max_pos - 1]) {
        *slot = p;
    }
    let q_len = elements(tokens, args.heads, args.head_dim, "--heads")?;
    let k_len = elements(tokens, args.kv_heads(), args.head_dim, "--kv-heads")?;
    check_host_memory(q_len.saturating_add(k_len), "--tokens, --heads, --kv-heads or --head-dim")?;
    let mut x = host_vec::<f32>("q", q_len, "--tokens, --heads or --head-dim")?;
    x.extend((0..q_len).map(|_| rng.signed_unit()));
    let mut k = host_vec::<f32>("k", k_len, "--tokens, --kv-heads or --head-dim")?;
    k.extend((0..k_len).map(|_| rng.signed_unit()));

    let outcome = match &rope {
        None => run_seed_port(args, &device, &x, &positions)?,
        Some(rope) => run_production(args, rope, &device, &x, &k, &positions)?,
    };

    say!();
    say!("device        {} ({})", device.name(), device.kind());
    say!("positions     < {}, seed {seed:#x}", args.max_pos);
    for line in &outcome.lines {
        say!("{line}");
    }
    let bytes = outcome.bytes_per_pass as f64;
    say!(
        "time          forward {:.2?} ({:.2} GB/s), backward {:.2?} ({:.2} GB/s)",
        outcome.forward_time,
        bytes / outcome.forward_time.as_secs_f64() / 1e9,
        outcome.backward_time,
        bytes / outcome.backward_time.as_secs_f64() / 1e9,
    );
    if device.kind() == DeviceKind::Sim {
        if let Some(instr) = outcome.sim_instructions {
            say!(
                "simulator     {instr} instructions per forward pass, {:.1} M instructions/s",
                instr as f64 / outcome.forward_time.as_secs_f64() / 1e6
            );
        }
    }
    if let Some(dir) = &args.save {
        save(dir, args, &device, seed, &positions, &outcome)?;
        say!("saved         x.npy positions.npy forward.npy backward.npy params.json in {}", dir.display());
    }
    say!("result        {}", if outcome.pass { "PASS" } else { "FAIL: an error bound is exceeded" });
    Ok(outcome.pass)
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Forward => "(forward)",
        Direction::Backward => "(backward)",
    }
}

fn print_header(args: &Args) {
    if args.seed_port {
        say!(
            "seed port: {} sequences x {} heads x head_dim {}, interleaved, f32, theta {}",
            args.tokens,
            args.heads,
            args.head_dim,
            args.theta
        );
    } else {
        say!(
            "RoPE: {} tokens, {} q heads + {} kv heads, head_dim {} (rotary {}), {} pairs, {}, theta {}, scaling {}",
            args.tokens,
            args.heads,
            args.kv_heads(),
            args.head_dim,
            args.rotary_dim(),
            if args.layout() == LayoutArg::Half { "half-split" } else { "interleaved" },
            args.config().dtype.name(),
            args.theta,
            args.scaling.text
        );
    }
}

/// Instruction counts, generation time, ptxas resources, and `--emit-ptx`.
fn print_kernels(
    kernels: &[(String, Box<dyn Kernel>)],
    target: Target,
    emit: Option<&Path>,
) -> Result<(), String> {
    let ptxas = ptxas::find_ptxas();
    let mut unusable_ptxas: Option<String> = None;
    say!("{:<28} {:>12} {:>10} {:>11} {:>7}", "kernel", "instructions", "PTX gen", "sm_90 regs", "stack");
    for (label, kernel) in kernels {
        let ir = kernel.build();
        verify::verify(&ir).map_err(|e| e.to_string())?;
        // The median of repeated build + verify + print (the bench measures it more carefully).
        let mut times: Vec<Duration> = (0..201)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(kernel.try_ptx_for(target).is_ok());
                start.elapsed()
            })
            .collect();
        times.sort();
        // (Not tried again for the next kernel once it could not be run.)
        let assembled = match ptxas.as_ref().filter(|_| unusable_ptxas.is_none()) {
            Some(path) => match ptxas::assemble(path, &kernel.ptx_for(Target::SM_90), "sm_90") {
                Ok(a) => Some(a),
                // A ptxas that cannot be run only loses these two columns, as a missing one
                // does; one that runs and refuses the PTX is an error of the kernel's.
                Err(e @ ptxas::PtxasError::Spawn { .. }) => {
                    unusable_ptxas = Some(e.to_string());
                    None
                }
                Err(e) => return Err(e.to_string()),
            },
            None => None,
        };
        let (regs, stack) = match assembled {
            Some(a) => {
                let stack: u32 = a.functions.iter().map(|f| f.stack_frame_bytes).sum();
                (a.registers.map_or("?".into(), |r| r.to_string()), format!("{stack} B"))
            }
            None => ("-".to_string(), "-".to_string()),
        };
        say!("{label:<28} {:>12} {:>10.1?} {regs:>11} {stack:>7}", ir.instruction_count(), times[100]);
        if let Some(dir) = emit {
            // `rope_f32 (forward)` -> `rope_f32_forward.ptx`: both directions are one entry name.
            let file: String = label.replace(" (", "_").replace(')', "").replace(' ', "_");
            let path = dir.join(format!("{file}.ptx"));
            std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, kernel.ptx_for(target)))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            say!("  wrote {}", path.display());
        }
    }
    if ptxas.is_none() {
        say!("(ptxas not found: registers and stack skipped; run scripts/install-ptxas.sh or set PTXAS)");
    }
    if let Some(e) = unusable_ptxas {
        say!("(registers and stack skipped: {e}; run scripts/install-ptxas.sh or set PTXAS)");
    }
    Ok(())
}

/// What a run measured.
struct Outcome {
    lines: Vec<String>,
    input: Vec<f32>,
    pass: bool,
    forward: Vec<f32>,
    backward: Vec<f32>,
    forward_time: Duration,
    backward_time: Duration,
    bytes_per_pass: usize,
    sim_instructions: Option<u64>,
}

/// Times one call (after a first, untimed call that builds and loads the kernel).
fn timed<R>(device: &Device, mut f: impl FnMut() -> Result<R, Error>) -> Result<(Duration, R), String> {
    f().map_err(err)?;
    device.synchronize().map_err(err)?;
    let start = Instant::now();
    let r = f().map_err(err)?;
    device.synchronize().map_err(err)?;
    Ok((start.elapsed(), r))
}

/// The largest `|a − b|`; NaN when any difference is NaN (`f64::max` would drop it, and a
/// NaN output would show as error 0), ∞ when one is infinite: either fails every bound.
fn max_abs_diff(a: &[f32], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (*x as f64 - y).abs()).fold(0.0, |worst, d| {
        if d > worst || d.is_nan() {
            d
        } else {
            worst
        }
    })
}

fn run_seed_port(args: &Args, device: &Device, x: &[f32], positions: &[u32]) -> Result<Outcome, String> {
    let theta = args.theta as f32;
    let (fwd, bwd) = (
        BatchedRope::new(args.heads, args.head_dim, theta),
        BatchedRopeBackward::new(args.heads, args.head_dim, theta),
    );
    let (xd, pd) = (device.upload(x).map_err(err)?, device.upload(positions).map_err(err)?);
    let mut yd = device.zeroed::<f32>(x.len()).map_err(err)?;
    let mut gd = device.zeroed::<f32>(x.len()).map_err(err)?;
    let (forward_time, report) = timed(device, || fwd.apply(device, &xd, &mut yd, &pd))?;
    let (backward_time, _) = timed(device, || bwd.apply(device, &xd, &mut gd, &pd))?;
    let (y, g) = (yd.to_vec().map_err(err)?, gd.to_vec().map_err(err)?);
    let mut trip = device.zeroed::<f32>(x.len()).map_err(err)?;
    bwd.apply(device, &yd, &mut trip, &pd).map_err(err)?;
    let trip = trip.to_vec().map_err(err)?;

    let want_f = seed::reference(args.heads, args.head_dim, theta, x, positions, false);
    let want_b = seed::reference(args.heads, args.head_dim, theta, x, positions, true);
    let (ef, eb) = (max_abs_diff(&y, &want_f), max_abs_diff(&g, &want_b));
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let et = max_abs_diff(&trip, &x64);
    let bounds = ErrorBounds::for_positions_below(args.max_pos);
    let lines = vec![
        format!("forward       max abs error {ef:.3e} (bound {:.3e}: the seed's f32 angle)", bounds.forward),
        format!("backward      max abs error {eb:.3e} (bound {:.3e})", bounds.forward),
        format!("round trip    max abs error {et:.3e} (bound {:.3e})", bounds.round_trip),
    ];
    Ok(Outcome {
        lines,
        input: x.to_vec(),
        pass: ef <= bounds.forward && eb <= bounds.forward && et <= bounds.round_trip,
        forward: y,
        backward: g,
        forward_time,
        backward_time,
        bytes_per_pass: 8 * x.len() + 4 * positions.len(),
        sim_instructions: report.instructions,
    })
}

/// q and k on the device in the configured storage, read back as f32.
enum Tensors {
    F32(DeviceBuffer<f32>, DeviceBuffer<f32>),
    Half(DeviceBuffer<u16>, DeviceBuffer<u16>),
}

impl Tensors {
    fn upload(device: &Device, dtype: Dtype, q: &[f32], k: &[f32]) -> Result<Tensors, Error> {
        Ok(match dtype {
            Dtype::F32 => Tensors::F32(device.upload(q)?, device.upload(k)?),
            _ => {
                let bits = |v: &[f32]| v.iter().map(|&x| half_bits(dtype, x)).collect::<Vec<u16>>();
                Tensors::Half(device.upload(&bits(q))?, device.upload(&bits(k))?)
            }
        })
    }

    fn zeroed_like(&self, device: &Device) -> Result<Tensors, Error> {
        Ok(match self {
            Tensors::F32(q, k) => Tensors::F32(device.zeroed(q.len())?, device.zeroed(k.len())?),
            Tensors::Half(q, k) => Tensors::Half(device.zeroed(q.len())?, device.zeroed(k.len())?),
        })
    }

    fn read(&self, dtype: Dtype) -> Result<(Vec<f32>, Vec<f32>), Error> {
        Ok(match self {
            Tensors::F32(q, k) => (q.to_vec()?, k.to_vec()?),
            Tensors::Half(q, k) => {
                let values = |v: Vec<u16>| v.into_iter().map(|b| half_value(dtype, b)).collect::<Vec<f32>>();
                (values(q.to_vec()?), values(k.to_vec()?))
            }
        })
    }
}

/// One fused q+k launch from `src` into `dst`.
fn apply_qk(
    rope: &ptx_dsl::rope::DeviceRope,
    d: Direction,
    pd: &DeviceBuffer<u32>,
    (qv, kv): (TensorView, TensorView),
    src: &Tensors,
    dst: &mut Tensors,
) -> Result<ptx_dsl::runtime::LaunchReport, Error> {
    match (src, dst) {
        (Tensors::F32(q, k), Tensors::F32(qo, ko)) if kv.heads > 0 => {
            rope.apply_qk(d, pd, (q, qv), (k, kv), (qo, qv), (ko, kv))
        }
        (Tensors::F32(q, _), Tensors::F32(qo, _)) => rope.apply(d, pd, q, qv, qo, qv),
        (Tensors::Half(q, k), Tensors::Half(qo, ko)) if kv.heads > 0 => {
            rope.apply_qk(d, pd, (q, qv), (k, kv), (qo, qv), (ko, kv))
        }
        (Tensors::Half(q, _), Tensors::Half(qo, _)) => rope.apply(d, pd, q, qv, qo, qv),
        _ => unreachable!("source and destination share a storage type"),
    }
}

fn run_production(
    args: &Args,
    rope: &Rope,
    device: &Device,
    q: &[f32],
    k: &[f32],
    positions: &[u32],
) -> Result<Outcome, String> {
    let config = *rope.config();
    let rope = rope.clone().on(device).map_err(err)?;
    let views = (
        TensorView::contiguous(args.tokens, args.heads, args.head_dim),
        TensorView::contiguous(args.tokens, args.kv_heads(), args.head_dim),
    );
    let pd = device.upload(positions).map_err(err)?;
    let x = Tensors::upload(device, config.dtype, q, k).map_err(err)?;
    let (mut y, mut g, mut trip) = (
        x.zeroed_like(device).map_err(err)?,
        x.zeroed_like(device).map_err(err)?,
        x.zeroed_like(device).map_err(err)?,
    );
    let (forward_time, report) =
        timed(device, || apply_qk(&rope, Direction::Forward, &pd, views, &x, &mut y))?;
    let (backward_time, _) = timed(device, || apply_qk(&rope, Direction::Backward, &pd, views, &x, &mut g))?;
    apply_qk(&rope, Direction::Backward, &pd, views, &y, &mut trip).map_err(err)?;

    // The inputs as stored, and the reference on them.
    let (xq, xk) = x.read(config.dtype).map_err(err)?;
    let (yq, yk) = y.read(config.dtype).map_err(err)?;
    let (gq, gk) = g.read(config.dtype).map_err(err)?;
    let (tq, tk) = trip.read(config.dtype).map_err(err)?;
    let m = config.scaling.attention_factor();
    let accuracy = rope.rope().error_bound(args.max_pos);
    let storage = storage_roundoff(config.dtype);
    let reference = |x: &[f64], heads: u32, backward: bool| {
        reference_rope(
            x,
            positions,
            args.tokens as usize,
            heads as usize,
            args.head_dim as usize,
            heads as usize * args.head_dim as usize,
            config.rotary_dim as usize,
            ref_layout(config.layout),
            config.theta,
            ref_scaling(config.scaling),
            backward,
        )
    };
    let wide = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let max_abs = |v: &[f32]| v.iter().fold(0.0f64, |a, b| a.max(b.abs() as f64));
    let max_x = max_abs(&xq).max(max_abs(&xk));
    // The largest error, and whether every element is within `absolute` plus the storage
    // rounding of its value.
    let check = |got: &[f32], want: &[f64], absolute: f64| {
        let worst = max_abs_diff(got, want);
        let ok =
            got.iter().zip(want).all(|(g, w)| (*g as f64 - w).abs() <= absolute + storage * w.abs() * 1.0001);
        (worst, ok)
    };
    let mut pass = true;
    let mut lines = Vec::new();
    let mut line = |what: &str, (worst, ok): (f64, bool), bound: f64| {
        pass &= ok;
        // The storage rounding is relative: a bound of its own on each element's magnitude.
        let storage_note = if storage > 0.0 {
            format!(" + {storage:.3e} x |value|, the storage rounding")
        } else {
            String::new()
        };
        let verdict = if ok { "" } else { "  EXCEEDED" };
        lines
            .push(format!("{what:<13} max abs error {worst:.3e} (bound {bound:.3e}{storage_note}){verdict}"));
    };
    let joined = |a: &[f32], b: &[f32]| a.iter().chain(b).copied().collect::<Vec<f32>>();
    let (xq64, xk64) = (wide(&xq), wide(&xk));
    for (what, got_q, got_k, backward) in [("forward", &yq, &yk, false), ("backward", &gq, &gk, true)] {
        let want =
            [reference(&xq64, args.heads, backward), reference(&xk64, args.kv_heads(), backward)].concat();
        let bound = accuracy * m * max_x;
        line(what, check(&joined(got_q, got_k), &want, bound), bound);
    }
    // backward(forward(x)): m²·x on the rotated elements, x on the tail. The forward error
    // (accuracy·m·M, and u·|y| <= u·√2·m·M from storage) goes through a rotation scaled by m;
    // the backward pass adds its own on inputs up to √2·m·M: (1 + √2)·accuracy·m²·M and
    // 2√2·u·m²·M, and the final storage rounding.
    let want = [
        reference(&reference(&xq64, args.heads, false), args.heads, true),
        reference(&reference(&xk64, args.kv_heads(), false), args.kv_heads(), true),
    ]
    .concat();
    let bound = ((1.0 + 2f64.sqrt()) * accuracy + 2.0 * 2f64.sqrt() * storage) * m * m.max(1.0) * max_x;
    line("round trip", check(&joined(&tq, &tk), &want, bound), bound);
    let elems = q.len() + k.len();
    Ok(Outcome {
        lines,
        input: xq,
        pass,
        forward: yq,
        backward: gq,
        forward_time,
        backward_time,
        bytes_per_pass: 2 * elems * config.dtype.size() + 4 * positions.len(),
        sim_instructions: report.instructions,
    })
}

/// `--save DIR` or `--emit-ptx DIR` (`flag`), before anything runs: creates the directory
/// and checks that a file can be written there, so that a bad path is an error naming the
/// flag at once rather than an I/O error about a file inside it later.
fn prepare_dir(flag: &str, dir: &Path) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{flag} {}: {e}", dir.display());
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{flag} {}: exists and is not a directory", dir.display()));
    }
    std::fs::create_dir_all(dir).map_err(io)?;
    let probe = dir.join(format!(".rope-save-check-{}", std::process::id()));
    std::fs::write(&probe, b"").and_then(|()| std::fs::remove_file(&probe)).map_err(io)
}

/// The scaling's parameters as the run resolved them (defaults filled in, YaRN's attention
/// factor computed), under their `Scaling` field names.
fn scaling_params(scaling: Scaling) -> serde_json::Value {
    use serde_json::json;
    match scaling {
        Scaling::None => json!({ "kind": "none" }),
        Scaling::Linear { factor } => json!({ "kind": "linear", "factor": factor }),
        Scaling::DynamicNtk { factor, original_max_position, seq_len } => json!({
            "kind": "dynamic_ntk",
            "factor": factor,
            "original_max_position": original_max_position,
            "seq_len": seq_len,
        }),
        Scaling::Yarn { factor, original_max_position, beta_fast, beta_slow, attention_factor } => json!({
            "kind": "yarn",
            "factor": factor,
            "original_max_position": original_max_position,
            "beta_fast": beta_fast,
            "beta_slow": beta_slow,
            "attention_factor": scaling.attention_factor(),
            "attention_factor_is_default": attention_factor.is_none(),
        }),
        Scaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position } => json!({
            "kind": "llama3",
            "factor": factor,
            "low_freq_factor": low_freq_factor,
            "high_freq_factor": high_freq_factor,
            "original_max_position": original_max_position,
        }),
    }
}

/// `--save`: the inputs and outputs as float32 `.npy` (f16/bf16 values widen exactly) and
/// every parameter in `params.json`: each flag under its name (as resolved), the scaling's
/// resolved parameters and the device that ran.
fn save(
    dir: &Path,
    args: &Args,
    device: &Device,
    seed: u64,
    positions: &[u32],
    o: &Outcome,
) -> Result<(), String> {
    use npyz::WriterBuilder;
    let io = |e: std::io::Error| format!("--save {}: {e}", dir.display());
    let shape = [args.tokens as u64, args.heads as u64, args.head_dim as u64];
    fn write<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], data: &[T]) -> std::io::Result<()> {
        let file = std::io::BufWriter::new(std::fs::File::create(path)?);
        let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(file).begin_nd()?;
        w.extend(data.iter().copied())?;
        w.finish()
    }
    write(&dir.join("x.npy"), &shape, &o.input).map_err(io)?;
    write(&dir.join("positions.npy"), &[positions.len() as u64], positions).map_err(io)?;
    write(&dir.join("forward.npy"), &shape, &o.forward).map_err(io)?;
    write(&dir.join("backward.npy"), &shape, &o.backward).map_err(io)?;
    let params = serde_json::json!({
        "device": format!("{:?}", args.device).to_lowercase(),
        "device_kind": device.kind().to_string(),
        "device_name": device.name(),
        "layout": format!("{:?}", args.layout()).to_lowercase(),
        "dtype": format!("{:?}", args.dtype).to_lowercase(),
        "tokens": args.tokens,
        "heads": args.heads,
        "kv_heads": args.kv_heads(),
        "head_dim": args.head_dim,
        "rotary_dim": args.rotary_dim(),
        "theta": args.theta,
        "scaling": args.scaling.text,
        "scaling_params": scaling_params(args.scaling()),
        "max_pos": args.max_pos,
        "seed": format!("{seed:#x}"),
        "seed_port": args.seed_port,
        "note": "x.npy is q, the input as stored (f16/bf16 widened to float32); forward.npy and backward.npy are q's rotations",
    });
    let text = serde_json::to_string_pretty(&params).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("params.json"), text + "\n").map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(flags: &[&str]) -> Args {
        Args::try_parse_from(std::iter::once("rope").chain(flags.iter().copied())).unwrap()
    }

    #[test]
    fn a_nan_or_infinite_output_is_an_error_that_fails_the_bound() {
        let want = [0.5f64, -0.25, 1.0];
        assert_eq!(max_abs_diff(&[0.5, -0.5, 1.0], &want), 0.25);
        // `f64::max` would drop the NaN and report 0.25 (or 0): the NaN must show.
        assert!(max_abs_diff(&[f32::NAN, -0.5, 1.0], &want).is_nan());
        assert!(max_abs_diff(&[0.5, -0.5, f32::NAN], &want).is_nan());
        assert_eq!(max_abs_diff(&[0.5, f32::INFINITY, 1.0], &want), f64::INFINITY);
    }

    #[test]
    fn seed_port_implies_its_layout_and_no_k_heads() {
        let seed = parse(&["--seed-port"]);
        assert_eq!((seed.layout(), seed.kv_heads()), (LayoutArg::Interleaved, 0));
        assert_eq!(seed.check_seed_port(), Ok(()));
        let production = parse(&[]);
        assert_eq!((production.layout(), production.kv_heads()), (LayoutArg::Half, 8));
        // Values given explicitly that the seed port cannot run stay an error.
        let err =
            parse(&["--seed-port", "--layout", "half", "--kv-heads", "2"]).check_seed_port().unwrap_err();
        assert!(err.contains("--layout interleaved") && err.contains("--kv-heads 0"), "{err}");
        assert_eq!(
            parse(&["--seed-port", "--layout", "interleaved", "--kv-heads", "0"]).check_seed_port(),
            Ok(())
        );
    }

    #[test]
    fn the_save_directory_is_checked_up_front() {
        let base = std::env::temp_dir().join(format!("rope-example-save-{}", std::process::id()));
        let dir = base.join("new").join("dir");
        prepare_dir("--save", &dir).unwrap();
        assert!(dir.is_dir());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the write check leaves nothing behind");
        let file = base.join("file");
        std::fs::write(&file, b"x").unwrap();
        let err = prepare_dir("--save", &file).unwrap_err();
        assert!(err.contains("not a directory") && !err.contains('\n'), "{err}");
        assert!(prepare_dir("--save", &file.join("below")).is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn an_emit_ptx_path_that_is_a_file_is_refused_before_anything_runs() {
        // `--emit-ptx` names a directory; a file there must be an error that names the flag
        // and says what is wrong, as `--save`'s is, not an I/O error about a path inside it.
        let base = std::env::temp_dir().join(format!("rope-example-emit-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let file = base.join("kernels.ptx");
        std::fs::write(&file, b"x").unwrap();
        let flags =
            ["--device", "sim", "--tokens", "2", "--heads", "1", "--kv-heads", "1", "--head-dim", "8"];
        let file_arg = file.to_str().unwrap();
        let err = run(&parse(&[&flags[..], &["--emit-ptx", file_arg]].concat())).unwrap_err();
        assert!(
            err.starts_with("--emit-ptx ") && err.contains("not a directory") && !err.contains('\n'),
            "{err}"
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"x", "the file is left alone");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn bad_flag_values_are_usage_errors_naming_the_flag() {
        // Values only the library refuses (odd or too large rotary dims, θ <= 1, a scaling
        // factor that rotates too fast) and the seed port's conflicts are reported as clap
        // reports the values it refuses: one error line naming the flag, the usage, exit 2.
        let argv = |flags: &[&str]| {
            std::iter::once("rope").chain(flags.iter().copied()).map(String::from).collect::<Vec<_>>()
        };
        for (flags, flag) in [
            (&["--rotary-dim", "7"][..], "--rotary-dim"),
            (&["--head-dim", "9"], "--rotary-dim (its default, --head-dim)"),
            (&["--head-dim", "0"], "--head-dim"),
            (&["--theta", "1"], "--theta"),
            (&["--theta=-5"], "--theta"),
            (&["--seed-port", "--rotary-dim", "4"], "--seed-port"),
            (&["--seed-port", "--theta", "nan"], "--theta"),
            (&["--seed-port", "--head-dim", "7"], "--head-dim"),
            (&["--seed-port", "--tokens", "70000"], "--tokens"),
            // Values clap's own parsers refuse, and unknown flags: the usage too.
            (&["--tokens", "0"], "--tokens"),
            (&["--seed", "garbage"], "--seed"),
            (&["--dtype", "f64"], "--dtype"),
            (&["--token", "5"], "--token"),
            (&["--bogus"], "--bogus"),
        ] {
            let err = parse_checked(argv(flags)).map(|_| ()).unwrap_err();
            let text = err.render().to_string();
            let first = text.lines().next().unwrap();
            assert!(first.starts_with("error: ") && first.contains(flag), "{flags:?}: {text}");
            assert!(text.contains("Usage: rope"), "{flags:?}: {text}");
            // What clap says under the error stays: the possible values.
            if flags[0] == "--dtype" {
                assert!(text.contains("[possible values: f32, f16, bf16]"), "{text}");
            }
            assert_eq!(err.exit_code(), 2, "{flags:?}");
        }
        // A scaling factor below 1 is refused by the flag's own parser, saying why.
        for factor in ["linear:0.5", "yarn:0.5", "ntk:0"] {
            let err = parse_checked(argv(&["--scaling", factor])).map(|_| ()).unwrap_err();
            let text = err.render().to_string();
            assert!(
                text.starts_with("error: ") && text.contains("--scaling") && text.contains(">= 1"),
                "{text}"
            );
            assert_eq!(err.exit_code(), 2, "{factor}");
        }
        // Good values pass, and --help is still help (exit 0).
        assert!(parse_checked(argv(&["--rotary-dim", "64", "--scaling", "yarn:4"])).is_ok());
        assert_eq!(parse_checked(argv(&["--help"])).map(|_| ()).unwrap_err().exit_code(), 0);
    }

    #[test]
    fn params_hold_the_resolved_scaling() {
        let yarn = scaling_params(parse(&["--scaling", "yarn:4"]).scaling());
        assert_eq!(yarn["kind"], "yarn");
        assert_eq!(yarn["original_max_position"], 4096);
        assert_eq!((yarn["beta_fast"].as_f64(), yarn["beta_slow"].as_f64()), (Some(32.0), Some(1.0)));
        assert_eq!(yarn["attention_factor"].as_f64(), Some(0.1 * 4f64.ln() + 1.0));
        assert_eq!(yarn["attention_factor_is_default"], true);
        let ntk = scaling_params(parse(&["--scaling", "ntk:2", "--max-pos", "9000"]).scaling());
        assert_eq!(
            (ntk["seq_len"].as_u64(), ntk["original_max_position"].as_u64()),
            (Some(9000), Some(4096))
        );
        let llama = scaling_params(parse(&["--scaling", "llama3"]).scaling());
        assert_eq!(llama["high_freq_factor"].as_f64(), Some(4.0));
        assert_eq!(llama["original_max_position"], 8192);
    }
}
