//! The CUDA backend, through `cudarc` with dynamic loading (compiled only with the `cuda`
//! feature).
//!
//! Rules kept here so nothing else has to: `is_culib_present()` is asked before any other
//! cudarc call (cudarc panics on the first driver call when `libcuda` is absent); lengths are
//! checked before cudarc's copies (which assert); every `DriverError` becomes
//! [`Error::Driver`] with the driver's error name; PTX is JIT-loaded with
//! `cuModuleLoadDataEx` so a rejection carries the JIT's error log.

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

    /// The device's default stream.
    pub(crate) fn default_stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A new stream on this device.
    pub(crate) fn new_stream(&self) -> Result<Arc<CudaStream>> {
        self.ctx.new_stream().map_err(driver("cuStreamCreate"))
    }

    /// Waits for all work on the device.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.ctx.synchronize().map_err(driver("cuCtxSynchronize"))
    }

    /// Waits for all work on `stream`.
    pub(crate) fn synchronize_stream(stream: &CudaStream) -> Result<()> {
        stream.synchronize().map_err(driver("cuStreamSynchronize"))
    }

    /// A zeroed allocation of `len` elements (at least one, since the driver refuses empty
    /// allocations; the buffer keeps its own length).
    pub(crate) fn zeroed<T: DeviceScalar>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.stream.alloc_zeros::<T>(len.max(1)).map_err(driver("cuMemAlloc"))
    }

    /// An allocation holding a copy of `data`.
    pub(crate) fn upload<T: DeviceScalar>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        // SAFETY: every element is written below before anyone reads it (or, for an empty
        // buffer, the one padding element is never read).
        let mut slice = unsafe { self.stream.alloc::<T>(data.len().max(1)) }.map_err(driver("cuMemAlloc"))?;
        self.write(&mut slice, data)?;
        Ok(slice)
    }

    /// Copies `data` into the start of `dst` (which the caller made long enough).
    pub(crate) fn write<T: DeviceScalar>(&self, dst: &mut CudaSlice<T>, data: &[T]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        if dst.len() < data.len() {
            return Err(Error::SizeMismatch { expected: dst.len(), found: data.len() });
        }
        self.stream.memcpy_htod(data, dst).map_err(driver("cuMemcpyHtoD"))?;
        CudaBackend::synchronize_stream(&self.stream)
    }

    /// The first `len` elements of `src`, on the host.
    pub(crate) fn download<T: DeviceScalar>(&self, src: &CudaSlice<T>, len: usize) -> Result<Vec<T>> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let view = src.try_slice(..len).ok_or(Error::SizeMismatch { expected: src.len(), found: len })?;
        let out = self.stream.clone_dtoh(&view).map_err(driver("cuMemcpyDtoH"))?;
        CudaBackend::synchronize_stream(&self.stream)?;
        Ok(out)
    }

    /// Copies the first `len` elements of `src` to `dst`.
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
        self.stream.memcpy_dtod(&src_view, &mut dst_view).map_err(driver("cuMemcpyDtoD"))
    }

    /// JIT-loads `ptx` and looks up its entry `kernel`; a rejection is
    /// [`Error::PtxRejected`] with the JIT's error log.
    pub(crate) fn load(&self, kernel: &str, ptx: &str) -> Result<CudaKernel> {
        self.ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent"))?;
        let rejected = |log: String| Error::PtxRejected { kernel: kernel.to_string(), log };
        let src = CString::new(ptx).map_err(|_| rejected("the PTX text contains a NUL byte".into()))?;
        let mut error_log = vec![0u8; 1 << 16];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values: [*mut c_void; 2] = [error_log.as_mut_ptr().cast(), error_log.len() as *mut c_void];
        let mut module = MaybeUninit::<sys::CUmodule>::uninit();
        // SAFETY: `src` is a NUL-terminated PTX string; the log buffer outlives the call and
        // its size is passed alongside, as cuModuleLoadDataEx requires.
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
            let (name, message) = error_text(&e);
            let end = error_log.iter().position(|&b| b == 0).unwrap_or(error_log.len());
            let jit_log = String::from_utf8_lossy(&error_log[..end]).trim().to_string();
            let log = if jit_log.is_empty() {
                let head: Vec<&str> = ptx.lines().take(12).collect();
                format!("{name} ({message}); the JIT wrote no log. The PTX begins:\n{}", head.join("\n"))
            } else {
                format!("{name} ({message}):\n{jit_log}")
            };
            return Err(rejected(log));
        }
        // SAFETY: the call succeeded, so it wrote the module handle.
        let module = unsafe { module.assume_init() };
        let mut loaded = CudaKernel { ctx: self.ctx.clone(), module, function: std::ptr::null_mut() };
        let name =
            CString::new(kernel).map_err(|_| rejected("the kernel name contains a NUL byte".into()))?;
        // SAFETY: `module` is a live module handle owned by `loaded`.
        loaded.function =
            unsafe { result::module::get_function(module, name) }.map_err(driver("cuModuleGetFunction"))?;
        Ok(loaded)
    }

    /// Enqueues `kernel` on `stream` with `args` (already checked against its parameters and
    /// against this device).
    pub(crate) fn launch(
        &self,
        kernel: &CudaKernel,
        stream: &Arc<CudaStream>,
        cfg: &LaunchConfig,
        args: &mut [KernelArg<'_>],
    ) -> Result<()> {
        self.ctx.bind_to_thread().map_err(driver("cuCtxSetCurrent"))?;
        let wrong = || Error::WrongDevice { what: "a buffer argument is not a CUDA allocation".into() };
        let mut slots: Vec<u64> = Vec::with_capacity(args.len());
        let mut guards = Vec::with_capacity(args.len());
        for arg in args.iter_mut() {
            match &mut arg.kind {
                ArgKind::In(b) => {
                    let (ptr, guard) = b.cuda_ptr(stream).ok_or_else(wrong)?;
                    slots.push(ptr);
                    guards.push(guard);
                }
                ArgKind::Out(b) => {
                    let (ptr, guard) = b.cuda_ptr_mut(stream).ok_or_else(wrong)?;
                    slots.push(ptr);
                    guards.push(guard);
                }
                // Little-endian: a 4-byte parameter reads the low half of its 8-byte slot.
                ArgKind::Scalar(s) => slots.push(s.to_bits()),
            }
        }
        let mut params: Vec<*mut c_void> = slots.iter_mut().map(|s| (s as *mut u64).cast()).collect();
        // SAFETY: the function handle is live (held by `kernel`); each parameter slot is 8
        // bytes, aligned, and covers the parameter's size; argument kinds and types were
        // checked against the kernel's parameters; the buffers stay borrowed (and their
        // cudarc read/write events are recorded by `guards`) until after the launch.
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

/// A JIT-loaded module and its one entry function; unloaded on drop.
pub(crate) struct CudaKernel {
    ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    function: sys::CUfunction,
}

// SAFETY: CUDA module and function handles may be used from any thread once the context is
// bound, which every use here does first.
unsafe impl Send for CudaKernel {}
// SAFETY: as above; the handles are never mutated after loading.
unsafe impl Sync for CudaKernel {}

impl Drop for CudaKernel {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the module was loaded by `CudaBackend::load` and is unloaded only here.
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}
