//! The CUDA backend, through `cudarc` with dynamic loading (compiled only with the `cuda`
//! feature).
//!
//! Rules kept here so nothing else has to: `is_culib_present()` is asked before any other
//! cudarc call (cudarc panics on the first driver call when `libcuda` is absent); lengths are
//! checked before cudarc's copies (which assert); every `DriverError` becomes
//! [`Error::Driver`] with the driver's error name; PTX is JIT-loaded with
//! `cuModuleLoadDataEx` so a rejection carries the JIT's error log.
//!
//! Context binding: a CUDA context is current per thread, so every entry point here binds
//! the device's context to the calling thread first ([`CudaBackend::bind`]), and so does
//! every destructor that calls the driver (buffers, modules, streams), since `cudarc`'s
//! `CudaSlice` frees with `cuMemFreeAsync` without binding. cudarc keeps errors of its
//! destructors in the context and returns them from the next `bind_to_thread`; they are
//! reported as errors of an earlier asynchronous operation, not of the call that found them.

use std::ffi::{c_void, CString};
use std::mem::MaybeUninit;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{result, sys, CudaContext, CudaSlice, CudaStream, DriverError};
use ptx_core::Target;

use crate::error::{Error, Result};
use crate::launch::{ArgKind, DeviceLimits, KernelArg, LaunchConfig};
use crate::scalar::DeviceScalar;

/// The advice appended to every "no CUDA device" reason.
pub(crate) const USE_SIM: &str =
    "use `Device::sim()` (or set PTX_DSL_DEVICE=sim) to run kernels on the CPU simulator";

/// Whether the CUDA driver library can be loaded (asked once per process).
pub(crate) fn culib_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: is_culib_present only tries to dlopen the driver library by its known names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Converts a driver error of `call` into [`Error::Driver`].
pub(crate) fn driver(call: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| {
        let (name, message) = error_text(&e);
        Error::Driver { call, name, message }
    }
}

/// The driver's name (`CUDA_ERROR_OUT_OF_MEMORY`) and description of an error.
fn error_text(e: &DriverError) -> (String, String) {
    let name = format!("{:?}", e.0);
    let message = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    (name, message)
}

/// The `call` reported for an error that cudarc recorded earlier (in a destructor, or in the
/// event bookkeeping around a copy or launch) and returned from the next context bind.
const EARLIER: &str = "an earlier asynchronous CUDA operation";

/// Binds `ctx` to the calling thread; an error cudarc recorded earlier is reported as such.
fn bind(ctx: &CudaContext) -> Result<()> {
    ctx.check_err().map_err(driver(EARLIER))?;
    ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent"))
}

/// Binds `ctx` to the calling thread from a destructor: an error recorded earlier is kept
/// for the next fallible call to report (binding would otherwise consume it and not bind).
fn bind_quietly(ctx: &CudaContext) {
    let pending = ctx.check_err();
    let bound = ctx.bind_to_thread();
    ctx.record_err(bound);
    ctx.record_err(pending);
}

/// Whether a `cuModuleLoadDataEx` error is about the module image (the PTX) rather than the
/// state of the driver or the context.
fn is_ptx_error(e: &DriverError) -> bool {
    use sys::CUresult as R;
    matches!(
        e.0,
        R::CUDA_ERROR_INVALID_PTX
            | R::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            | R::CUDA_ERROR_INVALID_IMAGE
            | R::CUDA_ERROR_NO_BINARY_FOR_GPU
            | R::CUDA_ERROR_INVALID_SOURCE
    )
}

/// The oldest driver whose API this backend calls, as `cuDriverGetVersion` writes it (CUDA
/// 12.8, the R570 series: `cuEventElapsedTime_v2`, which [`CudaBackend::time`] calls through
/// cudarc, is newer than every other function used).
const MIN_DRIVER_VERSION: std::ffi::c_int = 12080;

/// Why a driver of CUDA `version` (as `cuDriverGetVersion` writes it) cannot be used.
fn old_driver(version: std::ffi::c_int) -> String {
    format!(
        "the NVIDIA driver supports CUDA {}.{}, but ptx-runtime needs a driver for CUDA 12.8 (R570) or later: \
         update the NVIDIA driver; {USE_SIM}",
        version / 1000,
        version % 1000 / 10
    )
}

/// What to do about a `cuModuleLoadDataEx` error that says the driver cannot compile PTX at
/// all (whatever the PTX), or `None` for another error.
fn jit_unavailable(e: &DriverError) -> Option<&'static str> {
    match e.0 {
        sys::CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND => Some(
            "the driver's PTX compiler library (libnvidia-ptxjitcompiler) is missing: install the full NVIDIA \
             driver (a container needs the `compute` driver capability)",
        ),
        sys::CUresult::CUDA_ERROR_JIT_COMPILATION_DISABLED => Some(
            "PTX compilation is disabled on this machine (the CUDA_DISABLE_PTX_JIT environment variable, or \
             the driver's settings): enable it",
        ),
        _ => None,
    }
}

/// An open CUDA device: its context and default stream.
pub(crate) struct CudaBackend {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

/// What opening a device found out about it.
pub(crate) struct CudaInfo {
    pub(crate) name: String,
    pub(crate) target: Target,
    pub(crate) limits: DeviceLimits,
}

impl CudaBackend {
    /// Opens device `ordinal`; [`Error::NoDevice`] when there is no driver or no such GPU.
    pub(crate) fn open(ordinal: usize) -> Result<(CudaBackend, CudaInfo)> {
        if !culib_present() {
            return Err(Error::NoDevice {
                reason: format!(
                    "the CUDA driver library (libcuda.so / nvcuda.dll) was not found: no NVIDIA \
                     driver is installed; {USE_SIM}"
                ),
            });
        }
        // cudarc panics rather than erring in a few places (a symbol missing from an old
        // driver, for one); no path of ours may panic because of the machine we run on.
        match std::panic::catch_unwind(|| CudaBackend::open_inner(ordinal)) {
            Ok(r) => r,
            Err(_) => Err(Error::NoDevice {
                reason: format!(
                    "the CUDA driver library was found but could not be used (too old for CUDA \
                     13.0, or broken); {USE_SIM}"
                ),
            }),
        }
    }

    fn open_inner(ordinal: usize) -> Result<(CudaBackend, CudaInfo)> {
        let no_device = |what: &str, e: DriverError| {
            let (name, message) = error_text(&e);
            Error::NoDevice { reason: format!("{what} failed with {name} ({message}); {USE_SIM}") }
        };
        result::init().map_err(|e| no_device("initialising the CUDA driver (cuInit)", e))?;
        let mut version: std::ffi::c_int = 0;
        // SAFETY: the driver writes one `int` through the pointer, which outlives the call.
        let status = unsafe { sys::cuDriverGetVersion(&mut version) };
        if status == sys::CUresult::CUDA_SUCCESS && version < MIN_DRIVER_VERSION {
            return Err(Error::NoDevice { reason: old_driver(version) });
        }
        let count = result::device::get_count().map_err(|e| no_device("counting CUDA devices", e))?;
        if ordinal >= usize::try_from(count).unwrap_or(0) {
            return Err(Error::NoDevice {
                reason: format!(
                    "CUDA device {ordinal} was requested, but the driver reports {count} device(s); {USE_SIM}"
                ),
            });
        }
        let ctx = CudaContext::new(ordinal).map_err(driver("cuDevicePrimaryCtxRetain"))?;
        let name = ctx.name().map_err(driver("cuDeviceGetName"))?;
        let (major, minor) = ctx.compute_capability().map_err(driver("cuDeviceGetAttribute"))?;
        let attr = |a: sys::CUdevice_attribute| -> Result<u32> {
            let v = ctx.attribute(a).map_err(driver("cuDeviceGetAttribute"))?;
            Ok(u32::try_from(v).unwrap_or(0))
        };
        use sys::CUdevice_attribute as A;
        let limits = DeviceLimits {
            max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_mem_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        };
        let target = Target::from_compute_capability(
            u32::try_from(major).unwrap_or(0),
            u32::try_from(minor).unwrap_or(0),
        );
        let stream = ctx.default_stream();
        Ok((CudaBackend { ctx, stream }, CudaInfo { name, target, limits }))
    }

    /// Binds the device's context to the calling thread (see the module docs).
    fn bind(&self) -> Result<()> {
        bind(&self.ctx)
    }

    /// Binds the device's context to the calling thread before a destructor frees something
    /// of it; errors are left for the next fallible call.
    pub(crate) fn bind_quietly(&self) {
        bind_quietly(&self.ctx);
    }

    /// A handle on the device's default stream (the legacy NULL stream of the context), which
    /// launches, transfers and allocations use.
    pub(crate) fn default_stream_handle(&self) -> Arc<CudaStreamHandle> {
        Arc::new(CudaStreamHandle { stream: self.stream.clone(), join_on_drop: None })
    }

    /// A new stream on this device. cudarc creates it non-blocking (it does not synchronize
    /// with the default stream by itself); buffers order their uses across streams with
    /// cudarc's events, and dropping the last handle makes the default stream wait for the
    /// work queued on it.
    pub(crate) fn new_stream(&self) -> Result<Arc<CudaStreamHandle>> {
        self.bind()?;
        let stream = self.ctx.new_stream().map_err(driver("cuStreamCreate"))?;
        Ok(Arc::new(CudaStreamHandle { stream, join_on_drop: Some(self.stream.clone()) }))
    }

    /// Runs `work` between two timing events on the default stream and returns the GPU time
    /// between them (waiting for the second).
    pub(crate) fn time<R>(&self, work: impl FnOnce() -> Result<R>) -> Result<(std::time::Duration, R)> {
        self.bind()?;
        let timed = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timed).map_err(driver("cuEventRecord"))?;
        let r = work()?;
        self.bind()?;
        let end = self.stream.record_event(timed).map_err(driver("cuEventRecord"))?;
        let ms = start.elapsed_ms(&end).map_err(driver("cuEventElapsedTime"))?;
        Ok((std::time::Duration::from_secs_f64(f64::from(ms) / 1e3), r))
    }

    /// Waits for all work on the device.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.ctx.synchronize().map_err(driver("cuCtxSynchronize"))
    }

    /// Waits for all work on `stream`.
    pub(crate) fn synchronize_stream(stream: &CudaStream) -> Result<()> {
        bind(stream.context())?;
        stream.synchronize().map_err(driver("cuStreamSynchronize"))
    }

    /// A zeroed allocation of `len` elements (at least one, since the driver refuses empty
    /// allocations; the buffer keeps its own length).
    pub(crate) fn zeroed<T: DeviceScalar>(&self, len: usize) -> Result<CudaSlice<T>> {
        // cudarc multiplies without a check: `DeviceBuffer::zeroed` has refused a length
        // whose byte size overflows.
        self.bind()?;
        self.stream.alloc_zeros::<T>(len.max(1)).map_err(driver("cuMemAlloc"))
    }

    /// An allocation holding a copy of `data`.
    pub(crate) fn upload<T: DeviceScalar>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        self.bind()?;
        // SAFETY: every element is written below before anyone reads it (or, for an empty
        // buffer, the one padding element is never read).
        let mut slice = unsafe { self.stream.alloc::<T>(data.len().max(1)) }.map_err(driver("cuMemAlloc"))?;
        self.write(&mut slice, data)?;
        Ok(slice)
    }

    /// Copies `data` into the start of `dst` (which the caller made long enough), and waits
    /// for the copy.
    pub(crate) fn write<T: DeviceScalar>(&self, dst: &mut CudaSlice<T>, data: &[T]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        // cudarc asserts on this; check it first.
        if dst.len() < data.len() {
            return Err(Error::SizeMismatch { expected: dst.len(), found: data.len() });
        }
        self.bind()?;
        self.stream.memcpy_htod(data, dst).map_err(driver("cuMemcpyHtoD"))?;
        CudaBackend::synchronize_stream(&self.stream)
    }

    /// The first `len` elements of `src`, on the host.
    pub(crate) fn download<T: DeviceScalar>(&self, src: &CudaSlice<T>, len: usize) -> Result<Vec<T>> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let view = src.try_slice(..len).ok_or(Error::SizeMismatch { expected: src.len(), found: len })?;
        let mut out = crate::scalar::host_vec::<T>(len, 0)?;
        self.bind()?;
        self.stream.memcpy_dtoh(&view, &mut out).map_err(driver("cuMemcpyDtoH"))?;
        CudaBackend::synchronize_stream(&self.stream)?;
        Ok(out)
    }

    /// Copies the first `len` elements of `src` to `dst` (queued on the default stream).
    pub(crate) fn copy<T: DeviceScalar>(
        &self,
        dst: &mut CudaSlice<T>,
        src: &CudaSlice<T>,
        len: usize,
    ) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        let src_view = src.try_slice(..len).ok_or(Error::SizeMismatch { expected: len, found: src.len() })?;
        let dst_len = dst.len();
        let mut dst_view =
            dst.try_slice_mut(..len).ok_or(Error::SizeMismatch { expected: len, found: dst_len })?;
        self.bind()?;
        self.stream.memcpy_dtod(&src_view, &mut dst_view).map_err(driver("cuMemcpyDtoD"))
    }

    /// JIT-loads `ptx` and looks up its entry `kernel`; a rejection is
    /// [`Error::PtxRejected`] with the JIT's error log.
    pub(crate) fn load(&self, kernel: &str, ptx: &str) -> Result<CudaKernel> {
        let module = self.load_module(kernel, ptx)?;
        self.kernel_of(&module, kernel)
    }

    /// JIT-loads a module's PTX; `label` names it in errors ([`Error::PtxRejected`] with the
    /// JIT's error log).
    pub(crate) fn load_module(&self, label: &str, ptx: &str) -> Result<Arc<CudaModule>> {
        let rejected = |log: String| Error::PtxRejected { kernel: label.to_string(), log };
        let src = CString::new(ptx).map_err(|_| rejected("the PTX text contains a NUL byte".into()))?;
        self.bind()?;
        let mut error_log = vec![0u8; 1 << 16];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // Option values are passed in pointer-sized slots: the buffer's address, and its size
        // as an integer (an `unsigned int` the driver reads from the slot, and on return
        // overwrites with the bytes it wrote).
        let mut values: [*mut c_void; 2] =
            [error_log.as_mut_ptr().cast(), std::ptr::without_provenance_mut(error_log.len())];
        let mut module = MaybeUninit::<sys::CUmodule>::uninit();
        // SAFETY: `src` is a NUL-terminated PTX string; `options` and `values` have the same
        // length, passed as the count; the log buffer outlives the call and its size is
        // passed alongside, as cuModuleLoadDataEx requires; the context is bound.
        let status = unsafe {
            sys::cuModuleLoadDataEx(
                module.as_mut_ptr(),
                src.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if let Err(e) = status.result() {
            let (err_name, message) = error_text(&e);
            if let Some(fix) = jit_unavailable(&e) {
                // Nothing is wrong with the PTX: this machine cannot compile any.
                return Err(Error::Driver {
                    call: "cuModuleLoadDataEx",
                    name: err_name,
                    message: format!("{message}; {fix}"),
                });
            }
            let end = error_log.iter().position(|&b| b == 0).unwrap_or(error_log.len());
            let jit_log = String::from_utf8_lossy(&error_log[..end]).trim().to_string();
            if jit_log.is_empty() && !is_ptx_error(&e) {
                // Not about the PTX: out of memory, or a sticky error of an earlier launch.
                return Err(Error::Driver { call: "cuModuleLoadDataEx", name: err_name, message });
            }
            let advice = match e.0 {
                sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
                    " (the PTX's `.version` is newer than this driver's JIT compiler: update the NVIDIA driver, \
                     or write the PTX for an older `.version`)"
                }
                _ => "",
            };
            let log = if jit_log.is_empty() {
                let head: Vec<&str> = ptx.lines().take(12).collect();
                format!(
                    "{err_name} ({message}){advice}; the JIT wrote no log. The PTX begins:\n{}",
                    head.join("\n")
                )
            } else {
                format!("{err_name} ({message}){advice}:\n{jit_log}")
            };
            return Err(rejected(log));
        }
        // SAFETY: the call succeeded, so it wrote the module handle; owned from here on.
        Ok(Arc::new(CudaModule { ctx: self.ctx.clone(), module: unsafe { module.assume_init() } }))
    }

    /// The entry function `kernel` of a loaded module.
    pub(crate) fn kernel_of(&self, module: &Arc<CudaModule>, kernel: &str) -> Result<CudaKernel> {
        let name = CString::new(kernel).map_err(|_| Error::PtxRejected {
            kernel: kernel.to_string(),
            log: "the kernel name contains a NUL byte".into(),
        })?;
        self.bind()?;
        // SAFETY: `module.module` is a live module handle, kept alive by the `Arc`.
        let function = unsafe { result::module::get_function(module.module, name) }
            .map_err(driver("cuModuleGetFunction"))?;
        // SAFETY: `function` is a live function handle of that module.
        let max_threads = unsafe {
            result::function::get_function_attribute(
                function,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        }
        .map_err(driver("cuFuncGetAttribute"))?;
        Ok(CudaKernel {
            _module: module.clone(),
            function,
            max_threads_per_block: u32::try_from(max_threads).unwrap_or(0),
        })
    }

    /// Enqueues `kernel` (named `name`, for errors) on `stream` with `args` (already checked
    /// against its parameters and against this device).
    pub(crate) fn launch(
        &self,
        name: &str,
        kernel: &CudaKernel,
        stream: &CudaStreamHandle,
        cfg: &LaunchConfig,
        args: &mut [KernelArg<'_>],
    ) -> Result<()> {
        // The device's limit was checked already; the compiled kernel's own limit (lower when
        // it needs many registers per thread) is known only now. The driver would refuse the
        // launch with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES.
        if cfg.threads_per_block() > u64::from(kernel.max_threads_per_block) {
            return Err(Error::BadLaunchConfig {
                kernel: Some(name.to_string()),
                reason: format!(
                    "block {:?} has {} threads, above the {} threads per block that this compiled \
                     kernel can run with (its register use limits it below the device's limit)",
                    cfg.block,
                    cfg.threads_per_block(),
                    kernel.max_threads_per_block
                ),
            });
        }
        let stream = &stream.stream;
        self.bind()?;
        let wrong = || Error::WrongDevice { what: "a buffer argument is not a CUDA allocation".into() };
        // One slot of 8-byte words per parameter, each holding the parameter's value in its
        // first bytes, little-endian (every host CUDA supports is little-endian). As with
        // cudarc's `DeviceRepr::as_kernel_param`, cuLaunchKernel is given a pointer to each
        // parameter's value and copies the parameter's size (taken from the kernel image)
        // from it: a pointer or a 64-bit scalar the whole first word, a 32-, 16- or 8-bit
        // scalar its first 4, 2 or 1 bytes (a `bool` one byte, 0 or 1), a by-value `.b8
        // name[N]` its N bytes. Argument kinds and sizes were checked against the
        // parameters, so the driver never copies past a slot. Each slot is a heap block of
        // its own, whose address stays put while `slots` grows.
        let mut slots: Vec<Vec<u64>> = Vec::with_capacity(args.len());
        let mut guards = Vec::with_capacity(args.len());
        let words = |bytes: &[u8]| -> Vec<u64> {
            let mut slot = vec![0u64; bytes.len().div_ceil(8).max(1)];
            for (word, chunk) in slot.iter_mut().zip(bytes.chunks(8)) {
                let mut b = [0u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                *word = u64::from_le_bytes(b);
            }
            slot
        };
        for arg in args.iter_mut() {
            match &mut arg.kind {
                ArgKind::In(b) => {
                    let (ptr, guard) = b.cuda_ptr(stream).ok_or_else(wrong)?;
                    slots.push(vec![ptr]);
                    guards.push(guard);
                }
                ArgKind::Out(b) => {
                    let (ptr, guard) = b.cuda_ptr_mut(stream).ok_or_else(wrong)?;
                    slots.push(vec![ptr]);
                    guards.push(guard);
                }
                ArgKind::Scalar(s) => slots.push(words(&s.to_le_bytes())),
                ArgKind::Bytes(b) => slots.push(words(b)),
            }
        }
        let mut params: Vec<*mut c_void> = slots.iter_mut().map(|s| s.as_mut_ptr().cast()).collect();
        // SAFETY: the function handle is live (held by `kernel`) and belongs to the bound
        // context, as does `stream`; each parameter slot is 8-byte aligned and covers the
        // parameter's size; argument kinds and types were checked against the kernel's
        // parameters; `slots` is not touched until the call returns (the driver copies the
        // values during the call); the buffers stay borrowed, and their cudarc read/write
        // events are recorded by `guards` after the launch is queued.
        unsafe {
            result::launch_kernel(
                kernel.function,
                cfg.grid,
                cfg.block,
                cfg.shared_mem_bytes,
                stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(driver("cuLaunchKernel"))?;
        drop(guards);
        Ok(())
    }
}

/// A stream of a [`crate::Stream`], shared by its clones.
pub(crate) struct CudaStreamHandle {
    stream: Arc<CudaStream>,
    /// For a stream of our own: the default stream, which waits for this one's work when the
    /// last handle goes. cudarc's buffers order uses across streams with events only while
    /// some non-default stream exists; without this, a download on the default stream after
    /// the last stream is dropped would not wait for kernels still running on it.
    join_on_drop: Option<Arc<CudaStream>>,
}

impl CudaStreamHandle {
    /// The cudarc stream.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl Drop for CudaStreamHandle {
    fn drop(&mut self) {
        if let Some(default) = self.join_on_drop.take() {
            let ctx = self.stream.context();
            bind_quietly(ctx);
            let pending = ctx.check_err();
            if default.join(&self.stream).is_err() {
                // Could not queue the wait: wait here instead.
                let _ = self.stream.synchronize();
            }
            ctx.record_err(pending);
        }
    }
}

/// A JIT-loaded module; unloaded when the last kernel of it goes.
pub(crate) struct CudaModule {
    ctx: Arc<CudaContext>,
    module: sys::CUmodule,
}

/// An entry function of a loaded module, which it keeps loaded.
pub(crate) struct CudaKernel {
    /// Keeps the module loaded while the function can be launched.
    _module: Arc<CudaModule>,
    function: sys::CUfunction,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` of the compiled function.
    max_threads_per_block: u32,
}

// SAFETY: CUDA module and function handles may be used from any thread once the context is
// bound, which every use here does first.
unsafe impl Send for CudaModule {}
// SAFETY: as above; the handle is never mutated after loading.
unsafe impl Sync for CudaModule {}
// SAFETY: as for `CudaModule`: the function handle is used only with the context bound.
unsafe impl Send for CudaKernel {}
// SAFETY: as above; the handles are never mutated after loading.
unsafe impl Sync for CudaKernel {}

impl Drop for CudaModule {
    fn drop(&mut self) {
        bind_quietly(&self.ctx);
        // A module goes with its last user (the device's module cache, or a `PtxModule`),
        // but kernels launched from it may still be running: let them finish before
        // unloading their code. (A sticky error of a faulted kernel is reported elsewhere.)
        let _ = result::ctx::synchronize();
        // SAFETY: the module was loaded by `CudaBackend::load_module` and is unloaded only here, with
        // its context bound.
        let unloaded = unsafe { result::module::unload(self.module) };
        self.ctx.record_err(unloaded);
    }
}
