//! [`Device`]: a CUDA GPU or the CPU simulator behind one cheap-to-clone handle, choosing
//! between them ([`Device::auto`], [`Device::from_env`]), its [`Stream`]s, and the untyped
//! launch entry point [`Device::launch`].

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use ptx_core::{Kernel, Target};

use crate::buffer::DeviceBuffer;
use crate::cache::{CacheStats, CachedKernel, Loaded, ModuleCache};
use crate::error::{Error, Result};
use crate::launch::{check_args, ArgKind, DeviceLimits, KernelArg, LaunchConfig, LaunchReport};
use crate::scalar::DeviceScalar;
use crate::sim_backend::SimBackend;

/// The environment variable that chooses the device: `cuda`, `cuda:N`, `sim` or `auto`.
pub const DEVICE_ENV: &str = "PTX_DSL_DEVICE";

/// Which backend a [`Device`] runs kernels on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// An NVIDIA GPU through the CUDA driver.
    Cuda,
    /// The CPU simulator of the emitted PTX (`ptx-sim`).
    Sim,
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceKind::Cuda => "cuda",
            DeviceKind::Sim => "sim",
        })
    }
}

/// A device that runs kernels: a CUDA GPU or the CPU simulator.
///
/// Cheap to clone (an `Arc` inside); clones are the same device and share its module cache,
/// memory and default stream. Buffers keep their device alive.
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

impl Drop for Device {
    /// The device's pending fault records (checked launches on CUDA not yet synchronised)
    /// each hold a handle of it through their buffers; when they hold all that is left but
    /// this one, they are dropped, so that the device is freed.
    fn drop(&mut self) {
        self.inner.pending.release_if_last(Arc::strong_count(&self.inner), 1);
    }
}

struct DeviceInner {
    id: u64,
    ordinal: Option<usize>,
    name: String,
    target: Target,
    limits: DeviceLimits,
    backend: Backend,
    cache: ModuleCache,
    pending: crate::checked::PendingChecks,
}

/// The backend of a device.
pub(crate) enum Backend {
    /// The simulator.
    Sim(SimBackend),
    /// A CUDA device.
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::CudaBackend),
}

impl Backend {
    /// The simulator, if this is one.
    pub(crate) fn as_sim(&self) -> Option<&SimBackend> {
        match self {
            Backend::Sim(sim) => Some(sim),
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => None,
        }
    }
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// What `PTX_DSL_DEVICE` asks for.
enum EnvChoice {
    Auto,
    Sim,
    Cuda(usize),
    Invalid(String),
}

fn env_choice() -> EnvChoice {
    let Ok(raw) = std::env::var(DEVICE_ENV) else { return EnvChoice::Auto };
    let value = raw.trim().to_ascii_lowercase();
    match value.as_str() {
        "" | "auto" => EnvChoice::Auto,
        "sim" | "simulator" | "cpu" => EnvChoice::Sim,
        "cuda" | "gpu" => EnvChoice::Cuda(0),
        other => match other.strip_prefix("cuda:").map(str::parse::<usize>) {
            Some(Ok(n)) => EnvChoice::Cuda(n),
            _ => EnvChoice::Invalid(raw),
        },
    }
}

/// Prints `message` on stderr, at most once per process (for all such notes together).
fn note_once(message: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!("ptx-runtime: {message}");
    }
}

impl Device {
    /// Opens CUDA device `ordinal`.
    ///
    /// Returns [`Error::NoDevice`] — never panics — when the crate was built without the
    /// `cuda` feature, when the CUDA driver library is absent, when the driver reports no
    /// GPU, or when `ordinal` is out of range; the reason says how to use the simulator.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        #[cfg(feature = "cuda")]
        {
            let (backend, info) = crate::cuda::CudaBackend::open(ordinal)?;
            Ok(Device::from_parts(
                Some(ordinal),
                format!("CUDA device {ordinal} ({}, {})", info.name, info.target),
                info.target,
                info.limits,
                Backend::Cuda(backend),
            ))
        }
        #[cfg(not(feature = "cuda"))]
        {
            Err(Error::NoDevice {
                reason: format!(
                    "cannot open CUDA device {ordinal}: ptx-runtime was built without its `cuda` \
                     feature; rebuild with `--features cuda`, or use `Device::sim()` (or set \
                     PTX_DSL_DEVICE=sim) to run kernels on the CPU simulator"
                ),
            })
        }
    }

    /// A new simulated device, with its own memory and module cache. It reports target sm_80
    /// and a real GPU's launch limits. Its launches run with the options the environment
    /// sets: `PTX_DSL_SIM_STEP_BUDGET` (instructions per thread, default
    /// [`ptx_sim::DEFAULT_STEP_BUDGET`]), `PTX_DSL_SIM_MAX_THREADS` (threads per launch,
    /// default [`ptx_sim::DEFAULT_MAX_THREADS`]), `PTX_DSL_SIM_RACECHECK=global` (race checks
    /// of global memory as well as shared), `PTX_DSL_SIM_APPROX=worst` (`.approx`
    /// instructions off by the largest error the PTX ISA allows); see
    /// [`Device::sim_with_options`]. `PTX_DSL_SIM_THREADS` sets how many worker threads
    /// run a launch (default: the machine's available parallelism). A value a variable does
    /// not take is ignored, with a note on stderr (once per variable) saying what it takes.
    pub fn sim() -> Device {
        Device::sim_with_options(SimBackend::env_options())
    }

    /// A new simulated device whose threads may each run at most `steps` instructions per
    /// launch (default [`ptx_sim::DEFAULT_STEP_BUDGET`], or `PTX_DSL_SIM_STEP_BUDGET`): an
    /// endless loop is then an error naming the kernel and the thread, never a hang.
    pub fn sim_with_step_budget(steps: u64) -> Device {
        Device::sim_with_options(ptx_sim::SimOptions { step_budget: steps, ..SimBackend::env_options() })
    }

    /// A new simulated device whose launches run with `options` (the environment's
    /// settings of them are not read; `PTX_DSL_SIM_THREADS` still sets the worker threads):
    /// e.g. `global_race_check` to find races in global memory as well as shared, or
    /// `approx: Approx::WorstCase` to test that a kernel's results hold with the hardware's
    /// worst `.approx` accuracy. A step budget of 0 is taken as 1, as
    /// [`Device::sim_with_step_budget`] takes it.
    pub fn sim_with_options(options: ptx_sim::SimOptions) -> Device {
        let options = ptx_sim::SimOptions { step_budget: options.step_budget.max(1), ..options };
        let sim = SimBackend::new(options);
        let name = sim.name();
        let limits = sim.limits();
        Device::from_parts(None, name, Target::SM_80, limits, Backend::Sim(sim))
    }

    /// The device `PTX_DSL_DEVICE` asks for, falling back to the simulator when it cannot be
    /// had: unset or `auto` means CUDA device 0 when a driver and a GPU answer, else the
    /// simulator; `sim` means the simulator; `cuda` / `cuda:N` means that CUDA device. Every
    /// fallback is said once per process on stderr. Never fails, never panics.
    ///
    /// Each call opens a new handle (with its own module cache; CUDA handles share the
    /// device's primary context): open once and clone.
    pub fn auto() -> Device {
        match env_choice() {
            EnvChoice::Sim => Device::sim(),
            EnvChoice::Cuda(n) => Device::cuda(n).unwrap_or_else(|e| {
                note_once(&format!(
                    "{DEVICE_ENV} asks for CUDA device {n}, but {e}; using the CPU simulator"
                ));
                Device::sim()
            }),
            EnvChoice::Auto => Device::auto_detect(""),
            // One note says both: the value ignored, and where the kernels then run.
            EnvChoice::Invalid(v) => Device::auto_detect(&format!(
                "ignoring {DEVICE_ENV}={v:?} (expected cuda, cuda:N, sim or auto) and choosing automatically: "
            )),
        }
    }

    /// CUDA device 0, or the simulator with a note (after `said`) saying why.
    fn auto_detect(said: &str) -> Device {
        match Device::cuda(0) {
            Ok(device) => {
                if !said.is_empty() {
                    note_once(&format!("{said}CUDA device 0"));
                }
                device
            }
            Err(e) => {
                let why = match e {
                    Error::NoDevice { reason } => reason,
                    other => other.to_string(),
                };
                note_once(&format!(
                    "{said}no usable CUDA device ({why}); running kernels on the CPU simulator"
                ));
                Device::sim()
            }
        }
    }

    /// The device `PTX_DSL_DEVICE` asks for, as an error when it cannot be had: like
    /// [`Device::auto`], except that a forced `cuda` without a usable GPU, or a value that
    /// names no device, is [`Error::NoDevice`].
    pub fn from_env() -> Result<Device> {
        match env_choice() {
            EnvChoice::Auto => Ok(Device::auto_detect("")),
            EnvChoice::Sim => Ok(Device::sim()),
            EnvChoice::Cuda(n) => Device::cuda(n),
            EnvChoice::Invalid(v) => Err(Error::NoDevice {
                reason: format!(
                    "{DEVICE_ENV}={v:?} names no device; use cuda, cuda:N, sim or auto \
                     (PTX_DSL_DEVICE=sim runs kernels on the CPU simulator)"
                ),
            }),
        }
    }

    fn from_parts(
        ordinal: Option<usize>,
        name: String,
        target: Target,
        limits: DeviceLimits,
        backend: Backend,
    ) -> Device {
        Device {
            inner: Arc::new(DeviceInner {
                id: next_id(),
                ordinal,
                name,
                target,
                limits,
                backend,
                cache: ModuleCache::default(),
                pending: Default::default(),
            }),
        }
    }

    pub(crate) fn backend(&self) -> &Backend {
        &self.inner.backend
    }

    /// A human-readable name: the GPU's name and target, or the simulator's.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// CUDA or simulator.
    pub fn kind(&self) -> DeviceKind {
        match self.inner.backend {
            Backend::Sim(_) => DeviceKind::Sim,
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => DeviceKind::Cuda,
        }
    }

    /// The CUDA ordinal, or `None` for the simulator.
    pub fn ordinal(&self) -> Option<usize> {
        self.inner.ordinal
    }

    /// The PTX target kernels are printed for: `sm_XY` from a GPU's compute capability,
    /// sm_80 for the simulator.
    pub fn target(&self) -> Target {
        self.inner.target
    }

    /// The device's launch limits, which [`Device::launch`] checks before launching.
    pub fn limits(&self) -> DeviceLimits {
        self.inner.limits
    }

    /// Whether `self` and `other` are handles to the same device (the same `Device::cuda` /
    /// `Device::sim` call, cloned).
    pub fn same_as(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Waits until all work queued on the device has finished (a no-op on the simulator,
    /// where launches are synchronous); then reports the first fault of the checked launches
    /// since the last such call ([`crate::checked`]).
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner.backend {
            Backend::Sim(_) => {}
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => cuda.synchronize()?,
        }
        self.take_pending_faults()
    }

    /// How long `work` (launches and copies on the default stream) takes on the device: on
    /// CUDA the GPU time between two events recorded around it, on the simulator the
    /// wall-clock time of the synchronous calls. Then reports faults as
    /// [`Device::synchronize`] does. On CUDA, host time the stream waits through between the
    /// events counts too (a kernel's first launch builds and loads its module there): call
    /// [`Device::preload`] first, or time a later run.
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R>) -> Result<(std::time::Duration, R)> {
        let timed = match &self.inner.backend {
            Backend::Sim(_) => {
                let start = std::time::Instant::now();
                let r = work()?;
                (start.elapsed(), r)
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => cuda.time(work)?,
        };
        self.take_pending_faults()?;
        Ok(timed)
    }

    /// Whether a launch has finished when it returns (the simulator).
    pub(crate) fn is_synchronous(&self) -> bool {
        self.inner.backend.as_sim().is_some()
    }

    /// The checked launches whose fault records are not read yet.
    pub(crate) fn pending_checks(&self) -> &crate::checked::PendingChecks {
        &self.inner.pending
    }

    /// A weak handle of the device's state, for tests that it is freed.
    #[cfg(test)]
    pub(crate) fn downgrade(&self) -> std::sync::Weak<impl Sized> {
        Arc::downgrade(&self.inner)
    }

    /// The device's default stream: the one [`Device::launch`] and buffer transfers use.
    pub fn default_stream(&self) -> Stream {
        let inner = match &self.inner.backend {
            Backend::Sim(_) => StreamInner::Sim { id: 0 },
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => StreamInner::Cuda(cuda.default_stream_handle()),
        };
        Stream { device: self.clone(), inner }
    }

    /// A new stream for [`Device::launch_on`]. On CUDA launches on different streams may
    /// overlap (cudarc orders them around the buffers they share, and when the last clone of
    /// a stream is dropped the default stream waits for the work queued on it); on the
    /// simulator a stream is only an ordering token, as every launch runs to completion
    /// before returning.
    ///
    /// One limit on CUDA: cudarc keeps one read event per buffer, which each read records
    /// anew, so a buffer a kernel reads on this stream and that is then read on another
    /// stream (a `to_vec`, another launch) must not be written or dropped until this stream
    /// is synchronised ([`Stream::synchronize`]): the write would wait for the later read
    /// only.
    pub fn new_stream(&self) -> Result<Stream> {
        let inner = match &self.inner.backend {
            Backend::Sim(sim) => StreamInner::Sim { id: sim.new_stream_id() },
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => StreamInner::Cuda(cuda.new_stream()?),
        };
        Ok(Stream { device: self.clone(), inner })
    }

    /// A buffer on this device holding a copy of `data` (same as [`DeviceBuffer::from_slice`]).
    pub fn upload<T: DeviceScalar>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::from_slice(self, data)
    }

    /// A buffer of `len` zeros on this device (same as [`DeviceBuffer::zeroed`]).
    pub fn zeroed<T: DeviceScalar>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::zeroed(self, len)
    }

    /// The module cache's counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.inner.cache.stats()
    }

    /// The PTX of `kernel` as this device loads it (building and loading it into the module
    /// cache if it is not there yet).
    pub fn kernel_ptx<K: Kernel + ?Sized>(&self, kernel: &K) -> Result<String> {
        Ok(self.load_kernel(kernel)?.0.ptx.clone())
    }

    /// Builds and loads `kernel` into the module cache now, so a first launch pays nothing
    /// extra; returns whether it was already there.
    pub fn preload<K: Kernel + ?Sized>(&self, kernel: &K) -> Result<bool> {
        Ok(self.load_kernel(kernel)?.1)
    }

    fn load_kernel<K: Kernel + ?Sized>(&self, kernel: &K) -> Result<(Arc<CachedKernel>, bool)> {
        let backend = &self.inner.backend;
        self.inner.cache.get_or_load(kernel, self.inner.target, |entry, ptx| match backend {
            Backend::Sim(sim) => Ok(Loaded::Sim(sim.load(entry, ptx)?)),
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => Ok(Loaded::Cuda(cuda.load(entry, ptx)?)),
        })
    }

    /// Launches `kernel` on the default stream; see [`Device::launch_on`].
    ///
    /// # Safety
    ///
    /// As for [`Device::launch_on`].
    pub unsafe fn launch<K: Kernel + ?Sized>(
        &self,
        kernel: &K,
        cfg: LaunchConfig,
        args: &mut [KernelArg<'_>],
    ) -> Result<LaunchReport> {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { self.launch_on(&self.default_stream(), kernel, cfg, args) }
    }

    /// Launches `kernel` over `cfg` with `args` on `stream`.
    ///
    /// In order, before anything runs: `cfg` is checked against [`Device::limits`]
    /// ([`Error::BadLaunchConfig`]); the kernel is taken from the module cache or built,
    /// verified ([`Error::InvalidKernel`]) and loaded ([`Error::PtxRejected`] on CUDA); the
    /// kernel's static shared memory is added to the shared-memory check; `args` are checked
    /// against the kernel's parameters ([`Error::ArgumentMismatch`]: a pointer parameter needs
    /// a buffer, any other parameter a scalar of its exact PTX type); every buffer and the
    /// stream must belong to this device ([`Error::WrongDevice`]); on CUDA, the block must
    /// also fit the compiled kernel's own threads-per-block limit, lower than the device's
    /// when the kernel needs many registers ([`Error::BadLaunchConfig`]).
    ///
    /// On the simulator the grid has run when this returns (a memory fault is
    /// [`Error::SimFault`]); on CUDA the launch is queued, and errors of the running kernel
    /// surface at the next synchronizing call as [`Error::Driver`].
    ///
    /// # Safety
    ///
    /// The runtime checks the arguments' kinds and types against the kernel's parameters,
    /// not what the kernel does with them: the caller guarantees that every memory access
    /// the kernel makes for every thread of `cfg` stays inside the buffers passed (and any
    /// length it is given is true). On the simulator an access outside every buffer is an
    /// `Err`; on a GPU it is undefined behaviour. Kernels written with `#[ptx_kernel]`
    /// have a typed `launch` that passes their slices' lengths itself: use it instead.
    pub unsafe fn launch_on<K: Kernel + ?Sized>(
        &self,
        stream: &Stream,
        kernel: &K,
        cfg: LaunchConfig,
        args: &mut [KernelArg<'_>],
    ) -> Result<LaunchReport> {
        let start = Instant::now();
        if !stream.device.same_as(self) {
            return Err(Error::WrongDevice {
                what: format!("a stream of {} used to launch on {}", stream.device, self),
            });
        }
        cfg.validate_for(kernel.name(), &self.inner.limits, 0)?;
        let (entry, cache_hit) = self.load_kernel(kernel)?;
        if entry.static_shared > 0 {
            cfg.validate_for(kernel.name(), &self.inner.limits, entry.static_shared)?;
        }
        check_args(kernel.name(), &entry.params, args)?;
        self.check_owned(kernel.name(), entry.params.iter().map(|p| p.name.as_str()), args)?;
        match (&self.inner.backend, &entry.loaded, &stream.inner) {
            (Backend::Sim(sim), Loaded::Sim(module), StreamInner::Sim { .. }) => {
                let stats = sim.launch(module, &entry.entry, &cfg, &sim_params(args))?;
                Ok(LaunchReport {
                    kernel: kernel.name().to_string(),
                    cache_hit,
                    threads: Some(stats.threads),
                    instructions: Some(stats.instructions),
                    wall_time: start.elapsed(),
                    printed: stats.printed,
                })
            }
            #[cfg(feature = "cuda")]
            (Backend::Cuda(cuda), Loaded::Cuda(loaded), StreamInner::Cuda(s)) => {
                cuda.launch(kernel.name(), loaded, s, &cfg, args)?;
                Ok(LaunchReport {
                    kernel: kernel.name().to_string(),
                    cache_hit,
                    threads: None,
                    instructions: None,
                    wall_time: start.elapsed(),
                    printed: String::new(),
                })
            }
            #[cfg(feature = "cuda")]
            _ => Err(Error::WrongDevice {
                what: "a stream or module does not belong to this device's backend".into(),
            }),
        }
    }
}

impl Device {
    /// Checks that every buffer in `args` belongs to this device ([`Error::WrongDevice`],
    /// naming the argument's index and its parameter's name from `names`, the kernel's
    /// parameters that `args` were checked against).
    pub(crate) fn check_owned<'p>(
        &self,
        kernel: &str,
        names: impl Iterator<Item = &'p str>,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        for (index, (name, arg)) in names.zip(args).enumerate() {
            if let Some(buf) = arg.erased_buffer() {
                if !buf.owner().same_as(self) {
                    return Err(Error::WrongDevice {
                        what: format!(
                            "parameter `{name}` of kernel `{kernel}` (PTX parameter {index}, {}) lives on {}, but the \
                             launch is on {}",
                            arg.describe(),
                            buf.owner(),
                            self
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// The parameter bytes of a simulated launch (checked against the kernel's parameters
/// already): a buffer's 8-byte address, a scalar's own little-endian bytes, a by-value
/// argument's bytes.
pub(crate) fn sim_params(args: &[KernelArg<'_>]) -> Vec<Vec<u8>> {
    args.iter()
        .map(|arg| match &arg.kind {
            ArgKind::In(b) => b.sim_addr().unwrap_or(0).to_le_bytes().to_vec(),
            ArgKind::Out(b) => b.sim_addr().unwrap_or(0).to_le_bytes().to_vec(),
            ArgKind::Scalar(s) => s.to_le_bytes(),
            ArgKind::Bytes(b) => b.clone(),
        })
        .collect()
}

impl PartialEq for Device {
    /// Handles are equal when they are the same device (see [`Device::same_as`]).
    fn eq(&self, other: &Device) -> bool {
        self.same_as(other)
    }
}

impl Eq for Device {}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            DeviceKind::Sim => write!(f, "simulator #{}", self.inner.id),
            DeviceKind::Cuda => f.write_str(&self.inner.name),
        }
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("kind", &self.kind())
            .field("name", &self.inner.name)
            .field("target", &self.inner.target.to_string())
            .finish()
    }
}

/// An ordered queue of work on one device. Cheap to clone.
#[derive(Clone)]
pub struct Stream {
    device: Device,
    inner: StreamInner,
}

#[derive(Clone)]
enum StreamInner {
    Sim {
        id: u64,
    },
    #[cfg(feature = "cuda")]
    Cuda(Arc<crate::cuda::CudaStreamHandle>),
}

impl Stream {
    /// The device the stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits until all work queued on this stream has finished (a no-op on the simulator);
    /// then reports the first fault of the device's pending checked launches.
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner {
            StreamInner::Sim { .. } => {}
            #[cfg(feature = "cuda")]
            StreamInner::Cuda(s) => crate::cuda::CudaBackend::synchronize_stream(s.stream())?,
        }
        self.device.take_pending_faults()
    }

    /// Launches `kernel` on this stream (same as [`Device::launch_on`]).
    ///
    /// # Safety
    ///
    /// As for [`Device::launch_on`].
    pub unsafe fn launch<K: Kernel + ?Sized>(
        &self,
        kernel: &K,
        cfg: LaunchConfig,
        args: &mut [KernelArg<'_>],
    ) -> Result<LaunchReport> {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { self.device.launch_on(self, kernel, cfg, args) }
    }
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Stream");
        d.field("device", &self.device);
        match &self.inner {
            StreamInner::Sim { id } => d.field("id", id),
            #[cfg(feature = "cuda")]
            StreamInner::Cuda(s) => d.field("cu_stream", &s.stream().cu_stream()),
        };
        d.finish()
    }
}
