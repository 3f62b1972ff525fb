//! The simulator backend: device memory is a [`ptx_sim::Memory`], modules are parsed PTX
//! ([`ptx_sim::Module`]), and a launch runs the whole grid on the CPU before returning.
//!
//! This is the only module that calls into `ptx_sim`.

use std::sync::atomic::{AtomicU64, Ordering};

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
    pub(crate) fn env_options() -> ptx_sim::SimOptions {
        let var = |name: &str| std::env::var(name).ok().map(|s| s.trim().to_ascii_lowercase());
        let defaults = ptx_sim::SimOptions::default();
        let count = |name: &str| var(name).and_then(|s| s.parse::<u64>().ok()).filter(|&n| n > 0);
        ptx_sim::SimOptions {
            step_budget: count("PTX_DSL_SIM_STEP_BUDGET").unwrap_or(defaults.step_budget),
            max_threads: count("PTX_DSL_SIM_MAX_THREADS").unwrap_or(defaults.max_threads),
            global_race_check: var("PTX_DSL_SIM_RACECHECK").is_some_and(|s| s == "global"),
            uninit_shared_check: defaults.uninit_shared_check,
            approx: match var("PTX_DSL_SIM_APPROX").as_deref() {
                Some("worst") => ptx_sim::Approx::WorstCase,
                _ => defaults.approx,
            },
        }
    }

    /// A fresh simulated device whose launches run with `options`. `PTX_DSL_SIM_THREADS`
    /// sets the number of worker threads (default: the machine's available parallelism).
    pub(crate) fn new(options: ptx_sim::SimOptions) -> SimBackend {
        let workers = std::env::var("PTX_DSL_SIM_THREADS")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
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

    /// Runs `kernel` of `module` over the grid of `cfg` with the raw 64-bit parameter values.
    pub(crate) fn launch(
        &self,
        module: &ptx_sim::Module,
        kernel: &str,
        cfg: &LaunchConfig,
        params: &[u64],
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
        let stats = ptx_sim::launch_with(code, &geometry, params, &self.memory, self.workers, &self.options)
            .map_err(map_sim_error)?;
        if !stats.printed.is_empty() {
            print!("{}", stats.printed);
        }
        Ok(SimStats { threads: stats.threads, instructions: stats.instructions, printed: stats.printed })
    }
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
