//! Raw PTX modules: PTX text from anywhere (NVRTC, another compiler, a file), loaded with
//! [`Device::load_ptx`] and launched by kernel name, the same way on CUDA (the driver's JIT)
//! and on the simulator, with the arguments checked against each `.entry` signature.

use std::time::Instant;

use ptx_core::PtxType;

use crate::device::{sim_params, Backend, Device};
use crate::error::{Error, Result};
use crate::launch::{ArgKind, KernelArg, LaunchConfig, LaunchReport};
use crate::scalar::Scalar;
use ptx_sim::signature::{self, PtxEntry, PtxParam};

/// A PTX module loaded on a device: its kernels, launched by name ([`PtxModule::launch`]).
pub struct PtxModule {
    device: Device,
    entries: Vec<PtxEntry>,
    loaded: RawLoaded,
}

/// The module in the form its backend runs.
enum RawLoaded {
    Sim(ptx_sim::Module),
    #[cfg(feature = "cuda")]
    Cuda(Vec<crate::cuda::CudaKernel>),
}

impl Device {
    /// Loads a module of PTX text: every `.entry` in it becomes a kernel of the returned
    /// [`PtxModule`]. On CUDA the driver JIT-compiles it ([`Error::PtxRejected`] with its
    /// log); on the simulator it is parsed ([`Error::Simulator`] naming the line and the
    /// construct). A kernel whose parameters this crate cannot check arguments against (a
    /// struct passed by value, a `bool`'s `.u8`) stays in the module: launching it is an
    /// [`Error::InvalidArgument`] naming the line, and the module's other kernels launch.
    pub fn load_ptx(&self, ptx: &str) -> Result<PtxModule> {
        let entries = signature::entries(ptx)
            .map_err(|reason| Error::InvalidArgument { argument: "ptx".into(), reason })?;
        if entries.is_empty() {
            return Err(Error::InvalidArgument {
                argument: "ptx".into(),
                reason: "the module has no `.entry`".into(),
            });
        }
        let loaded = match self.backend() {
            Backend::Sim(_) => RawLoaded::Sim(ptx_sim::Module::parse(ptx).map_err(Error::Simulator)?),
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => {
                let module = cuda.load_module(&entries[0].name, ptx)?;
                let kernels =
                    entries.iter().map(|e| cuda.kernel_of(&module, &e.name)).collect::<Result<_>>()?;
                RawLoaded::Cuda(kernels)
            }
        };
        Ok(PtxModule { device: self.clone(), entries, loaded })
    }
}

impl std::fmt::Debug for PtxModule {
    /// The device and the kernels' names (not the PTX, which can be megabytes).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtxModule")
            .field("device", &self.device)
            .field("kernels", &self.kernel_names().collect::<Vec<_>>())
            .finish()
    }
}

impl PtxModule {
    /// The kernels' names, in the module's order.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// The parameters of `kernel`, if the module has it.
    pub fn params(&self, kernel: &str) -> Option<&[PtxParam]> {
        self.entries.iter().find(|e| e.name == kernel).map(|e| e.params.as_slice())
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Launches `kernel` over `cfg` with `args` on the device's default stream.
    ///
    /// Checked before anything runs: the name ([`Error::InvalidArgument`] listing the
    /// module's kernels), `cfg` against the device's limits ([`Error::BadLaunchConfig`]),
    /// and `args` against the `.entry` signature ([`Error::ArgumentMismatch`]): as many
    /// arguments as parameters; a 64-bit integer parameter takes a buffer of this device or
    /// a 64-bit integer scalar; a 32-bit one a 32-bit integer scalar (signed or not: PTX
    /// writes `int` as `.u32`); a float one a float of its width.
    ///
    /// # Safety
    ///
    /// What the kernel does with a pointer cannot be checked: the caller guarantees that
    /// every access the kernel makes for every thread of `cfg` stays inside the buffers
    /// passed. On the simulator an access outside every buffer is an `Err`; on a GPU it is
    /// undefined behaviour.
    pub unsafe fn launch(
        &self,
        kernel: &str,
        cfg: LaunchConfig,
        args: &mut [KernelArg<'_>],
    ) -> Result<LaunchReport> {
        let start = Instant::now();
        let Some(index) = self.entries.iter().position(|e| e.name == kernel) else {
            let names: Vec<&str> = self.kernel_names().collect();
            return Err(Error::InvalidArgument {
                argument: "kernel".into(),
                reason: format!("the module has no kernel `{kernel}`; it has {}", names.join(", ")),
            });
        };
        cfg.validate(&self.device.limits())?;
        if let Some(why) = &self.entries[index].unsupported {
            return Err(Error::InvalidArgument {
                argument: "kernel".into(),
                reason: format!("`{kernel}` cannot be launched through this API: {why}"),
            });
        }
        check_raw_args(kernel, &self.entries[index].params, args)?;
        let names = self.entries[index].params.iter().map(|p| p.name.as_str());
        self.device.check_owned(kernel, names, args)?;
        let report = |threads, instructions, printed| LaunchReport {
            kernel: kernel.to_string(),
            cache_hit: true,
            threads,
            instructions,
            wall_time: start.elapsed(),
            printed,
        };
        match (self.device.backend(), &self.loaded) {
            (Backend::Sim(sim), RawLoaded::Sim(module)) => {
                if let Some(code) = module.kernel(kernel) {
                    cfg.validate_with_static_shared(&self.device.limits(), code.static_shared_bytes())?;
                }
                let stats = sim.launch(module, kernel, &cfg, &sim_params(args))?;
                Ok(report(Some(stats.threads), Some(stats.instructions), stats.printed))
            }
            #[cfg(feature = "cuda")]
            (Backend::Cuda(cuda), RawLoaded::Cuda(kernels)) => {
                cuda.launch(&kernels[index], &cuda.default_stream_handle(), &cfg, args)?;
                Ok(report(None, None, String::new()))
            }
            #[cfg(feature = "cuda")]
            _ => Err(Error::WrongDevice { what: "the module was loaded for another backend".into() }),
        }
    }
}

/// Checks launch arguments against a raw `.entry` signature (see [`PtxModule::launch`]).
fn check_raw_args(kernel: &str, params: &[PtxParam], args: &[KernelArg<'_>]) -> Result<()> {
    let mismatch = |index: usize, expected: String, found: String| Error::ArgumentMismatch {
        kernel: kernel.to_string(),
        index,
        expected,
        found,
    };
    let describe = |p: &PtxParam| match p.ty.bits() {
        64 if !p.ty.is_float() => {
            format!("a buffer or a 64-bit integer (parameter `{}`, .{})", p.name, p.ty.ptx_name())
        }
        _ => format!("a .{} scalar (parameter `{}`)", p.ty.ptx_name(), p.name),
    };
    if params.len() != args.len() {
        let list: Vec<String> = params.iter().map(|p| format!(".{} {}", p.ty.ptx_name(), p.name)).collect();
        return Err(mismatch(
            params.len().min(args.len()),
            format!("{} arguments ({})", params.len(), list.join(", ")),
            format!("{} arguments", args.len()),
        ));
    }
    for (index, (param, arg)) in params.iter().zip(args).enumerate() {
        let ok = match &arg.kind {
            ArgKind::In(_) | ArgKind::Out(_) => param.ty.bits() == 64 && !param.ty.is_float(),
            ArgKind::Scalar(s) => scalar_fits(*s, param.ty),
        };
        if !ok {
            return Err(mismatch(index, describe(param), arg.describe()));
        }
    }
    Ok(())
}

/// Whether a scalar fits a raw parameter: the same width, float for float, integers of
/// either signedness for integer and untyped parameters.
fn scalar_fits(s: Scalar, ty: PtxType) -> bool {
    let own = s.ptx_type();
    own.bits() == ty.bits() && own.is_float() == ty.is_float()
}
