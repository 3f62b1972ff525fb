//! The simulator backend: device memory is a [`ptx_sim::Memory`], modules are parsed PTX
//! ([`ptx_sim::Module`]), and a launch runs the whole grid on the CPU before returning.
//!
//! This is the only module that calls into `ptx_sim`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::launch::{DeviceLimits, LaunchConfig};

/// What a simulated launch reports.
pub(crate) struct SimStats {
    pub(crate) threads: u64,
    pub(crate) instructions: u64,
    pub(crate) printed: String,
}

/// The simulated device: its global memory and how many CPU threads run a launch.
pub(crate) struct SimBackend {
    memory: ptx_sim::Memory,
    workers: usize,
    next_stream: AtomicU64,
    /// How launches run: step budget, race checks, `.approx` model.
    options: ptx_sim::SimOptions,
}

impl SimBackend {
    /// The options the environment asks for: `PTX_DSL_SIM_STEP_BUDGET` the step budget
    /// (default [`ptx_sim::DEFAULT_STEP_BUDGET`]), `PTX_DSL_SIM_MAX_THREADS` the most
    /// threads per launch (default [`ptx_sim::DEFAULT_MAX_THREADS`]), `PTX_DSL_SIM_RACECHECK=global` race
    /// checks of global memory, `PTX_DSL_SIM_APPROX=worst` the worst-case `.approx` model.
    /// A value none of these understands is ignored with a note on stderr (once per
    /// variable and process) saying what it expects and what is used instead: a silently
    /// ignored `PTX_DSL_SIM_RACECHECK=1` would leave a user believing global memory checked.
    pub(crate) fn env_options() -> ptx_sim::SimOptions {
        let defaults = ptx_sim::SimOptions::default();
        let count = |name: &str, what: &str, default: u64| {
            env_value(name, what, &default.to_string(), |s| s.parse::<u64>().ok().filter(|&n| n > 0))
                .unwrap_or(default)
        };
        let race = "`global` (to race-check global memory as well as shared) or `shared`";
        let approx =
            "`worst` (every `.approx` instruction off by the largest error the PTX ISA allows) or `accurate`";
        ptx_sim::SimOptions {
            step_budget: count(
                "PTX_DSL_SIM_STEP_BUDGET",
                "a whole number of instructions per thread, at least 1, written in decimal digits",
                defaults.step_budget,
            ),
            block_step_budget: defaults.block_step_budget,
            max_threads: count(
                "PTX_DSL_SIM_MAX_THREADS",
                "a whole number of threads per launch, at least 1, written in decimal digits",
                defaults.max_threads,
            ),
            global_race_check: env_value("PTX_DSL_SIM_RACECHECK", race, "`shared`", |s| match s {
                "global" => Some(true),
                "shared" => Some(false),
                _ => None,
            })
            .unwrap_or(false),
            uninit_shared_check: defaults.uninit_shared_check,
            approx: env_value("PTX_DSL_SIM_APPROX", approx, "`accurate`", |s| match s {
                "worst" => Some(ptx_sim::Approx::WorstCase),
                "accurate" => Some(ptx_sim::Approx::Accurate),
                _ => None,
            })
            .unwrap_or(defaults.approx),
        }
    }

    /// A fresh simulated device whose launches run with `options`. `PTX_DSL_SIM_THREADS`
    /// sets the number of worker threads (default: the machine's available parallelism).
    pub(crate) fn new(options: ptx_sim::SimOptions) -> SimBackend {
        let available = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = env_value(
            "PTX_DSL_SIM_THREADS",
            "a whole number of worker threads, at least 1, written in decimal digits",
            &format!("{available} (the machine's available parallelism)"),
            |s| s.parse::<usize>().ok().filter(|&n| n > 0),
        )
        .unwrap_or(available);
        SimBackend { memory: ptx_sim::Memory::new(), workers, next_stream: AtomicU64::new(1), options }
    }

    /// The simulator's human-readable name.
    pub(crate) fn name(&self) -> String {
        format!("ptx-sim (CPU simulator, {} worker threads)", self.workers)
    }

    /// The limits the simulator enforces: those of a real GPU, so that what runs here runs there.
    pub(crate) fn limits(&self) -> DeviceLimits {
        DeviceLimits::DEFAULT
    }

    /// A new stream id (streams are ordering tokens only: launches are synchronous).
    pub(crate) fn new_stream_id(&self) -> u64 {
        self.next_stream.fetch_add(1, Ordering::Relaxed)
    }

    /// Allocates `bytes` zeroed bytes ([`ptx_sim::SimError::OutOfMemory`] when the host
    /// cannot hold them).
    pub(crate) fn alloc(&self, bytes: usize) -> Result<u64> {
        self.memory.try_alloc(bytes).map_err(Error::Simulator)
    }

    /// Frees an allocation (errors are ignored: this runs from `Drop`).
    pub(crate) fn free(&self, addr: u64) {
        let _ = self.memory.free(addr);
    }

    /// Copies host bytes to `addr`.
    pub(crate) fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        self.memory.write(addr, data).map_err(Error::Simulator)
    }

    /// Copies bytes at `addr` to the host.
    pub(crate) fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        self.memory.read(addr, out).map_err(Error::Simulator)
    }

    /// Copies `bytes` bytes from `src` to `dst` on the device.
    pub(crate) fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.memory.copy(dst, src, bytes).map_err(Error::Simulator)
    }

    /// Parses a module's PTX, checking it holds the entry `kernel`.
    pub(crate) fn load(&self, kernel: &str, ptx: &str) -> Result<ptx_sim::Module> {
        let module = ptx_sim::Module::parse(ptx).map_err(Error::Simulator)?;
        if let Some(e) = module.unsupported(kernel) {
            return Err(Error::Simulator(e.clone()));
        }
        if module.kernel(kernel).is_none() {
            return Err(Error::Simulator(ptx_sim::SimError::BadParams {
                kernel: kernel.to_string(),
                message: "the module's PTX has no entry of this name".into(),
            }));
        }
        Ok(module)
    }

    /// Runs `kernel` of `module` over the grid of `cfg` with each parameter's bytes
    /// (little-endian, exactly its size).
    pub(crate) fn launch(
        &self,
        module: &ptx_sim::Module,
        kernel: &str,
        cfg: &LaunchConfig,
        params: &[Vec<u8>],
    ) -> Result<SimStats> {
        if let Some(e) = module.unsupported(kernel) {
            return Err(Error::Simulator(e.clone()));
        }
        let code = module.kernel(kernel).ok_or_else(|| {
            Error::Simulator(ptx_sim::SimError::BadParams {
                kernel: kernel.to_string(),
                message: "the module's PTX has no entry of this name".into(),
            })
        })?;
        let geometry = ptx_sim::Geometry {
            grid: [cfg.grid.0, cfg.grid.1, cfg.grid.2],
            block: [cfg.block.0, cfg.block.1, cfg.block.2],
            dynamic_shared_bytes: cfg.shared_mem_bytes,
        };
        let stats = ptx_sim::launch_with_param_bytes(
            code,
            &geometry,
            params,
            &self.memory,
            self.workers,
            &self.options,
        )
        .map_err(map_sim_error)?;
        if !stats.printed.is_empty() {
            print!("{}", stats.printed);
        }
        Ok(SimStats { threads: stats.threads, instructions: stats.instructions, printed: stats.printed })
    }
}

/// The value of the environment variable `name` as `parse` reads it (given the value
/// trimmed and in lower case), or `None` when it is unset, empty or not understood; the
/// last is said on stderr, once per variable and process, with `expected` (what the
/// variable takes) and `used` (what is used instead).
fn env_value<T>(name: &str, expected: &str, used: &str, parse: impl FnOnce(&str) -> Option<T>) -> Option<T> {
    let raw = std::env::var(name).ok()?;
    let value = raw.trim().to_ascii_lowercase();
    if value.is_empty() {
        return None;
    }
    let parsed = parse(&value);
    if parsed.is_none() {
        static NOTED: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let mut noted = NOTED.lock().unwrap_or_else(|e| e.into_inner());
        if !noted.iter().any(|n| n == name) {
            noted.push(name.to_string());
            eprintln!("ptx-runtime: ignoring {name}={raw:?}: expected {expected}; using {used}");
        }
    }
    parsed
}

/// Turns a memory fault into [`Error::SimFault`]; every other simulator error stays whole.
fn map_sim_error(e: ptx_sim::SimError) -> Error {
    match e {
        ptx_sim::SimError::Fault { kernel, block, thread, address, instruction, source } => {
            Error::SimFault { kernel, block, thread, address, instruction, location: source }
        }
        other => Error::Simulator(other),
    }
}
