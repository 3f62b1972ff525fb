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
    /// construct). Parameters of every scalar width (`.u8` for a CUDA `bool` or `char`,
    /// `.u16` for a `short`) and by-value byte arrays (`.b8 name[N]`: a struct, a `__half`)
    /// are launched with the matching [`KernelArg`]s. A parameter declaration ptxas refuses
    /// (a `.pred` parameter, `name[]`, more parameter space than the PTX version allows) is
    /// an [`Error::InvalidArgument`] for the whole module, naming the line, as the driver
    /// refuses the whole module too.
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

    /// The parameters of `kernel`, if the module has it: each one's name, type and, for a
    /// by-value byte array, element count ([`PtxParam::array`]; `Display` writes it as
    /// declared, `.b8 k_param_1[24]`). The list is empty for a kernel without parameters,
    /// and for one that cannot be launched through this API, which
    /// [`PtxModule::unsupported`] tells apart.
    pub fn params(&self, kernel: &str) -> Option<&[PtxParam]> {
        self.entries.iter().find(|e| e.name == kernel).map(|e| e.params.as_slice())
    }

    /// Why `kernel` cannot be launched here, naming the line: on the simulator, a construct
    /// it does not run (`bar.sync` with a thread count, an `f16x2` transcendental, ...; the
    /// GPU's driver runs those). `None` when it can, or when the module has no such kernel.
    pub fn unsupported(&self, kernel: &str) -> Option<String> {
        self.entries.iter().find(|e| e.name == kernel)?;
        match &self.loaded {
            RawLoaded::Sim(module) => module.unsupported(kernel).map(|e| e.to_string()),
            #[cfg(feature = "cuda")]
            RawLoaded::Cuda(_) => None,
        }
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
    /// a 64-bit integer scalar; a 32-, 16- or 8-bit one an integer scalar of its width
    /// (signed or not: PTX writes `int` as `.u32`, `int8_t` as `.u8`), or for 8 bits a
    /// `bool`; a float one a float of its width; a by-value byte array `.b8 name[N]`
    /// [`KernelArg::bytes`] of exactly N bytes.
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
        cfg.validate_for(kernel, &self.device.limits(), 0)?;
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
                    cfg.validate_for(kernel, &self.device.limits(), code.static_shared_bytes())?;
                }
                let stats = sim.launch(module, kernel, &cfg, &sim_params(args))?;
                Ok(report(Some(stats.threads), Some(stats.instructions), stats.printed))
            }
            #[cfg(feature = "cuda")]
            (Backend::Cuda(cuda), RawLoaded::Cuda(kernels)) => {
                cuda.launch(kernel, &kernels[index], &cuda.default_stream_handle(), &cfg, args)?;
                Ok(report(None, None, String::new()))
            }
            #[cfg(feature = "cuda")]
            _ => Err(Error::WrongDevice { what: "the module was loaded for another backend".into() }),
        }
    }
}

/// What a raw parameter takes, as said in [`Error::ArgumentMismatch`]: which argument
/// kinds to pass, and the parameter as declared.
fn describe_param(p: &PtxParam) -> String {
    if p.array.is_some() {
        return format!(
            "{} bytes passed by value (parameter `{p}`): pass `KernelArg::bytes` of the {} bytes, \
             as the C struct lays them out",
            p.size_bytes(),
            p.size_bytes()
        );
    }
    let what = match (p.ty.bits(), p.ty.is_float()) {
        (64, false) => "a buffer or a 64-bit integer (u64 or i64)",
        (64, true) => "an f64",
        (32, false) => "a 32-bit integer (u32 or i32)",
        (32, true) => "an f32",
        (16, false) => "a 16-bit integer (u16 or i16)",
        (16, true) => "a u16 holding the half-precision bits",
        _ => "a u8, an i8 or a bool",
    };
    format!("{what} (parameter `{p}`)")
}

/// Checks launch arguments against a raw `.entry` signature (see [`PtxModule::launch`]).
fn check_raw_args(kernel: &str, params: &[PtxParam], args: &[KernelArg<'_>]) -> Result<()> {
    let mismatch = |index: usize, expected: String, found: String| Error::ArgumentMismatch {
        kernel: kernel.to_string(),
        index,
        expected,
        found,
    };
    if params.len() != args.len() {
        let list: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        return Err(mismatch(
            params.len().min(args.len()),
            format!("{} arguments ({})", params.len(), list.join(", ")),
            format!("{} arguments", args.len()),
        ));
    }
    for (index, (param, arg)) in params.iter().zip(args).enumerate() {
        let ok = match (&arg.kind, param.array) {
            (ArgKind::In(_) | ArgKind::Out(_), None) => param.ty.bits() == 64 && !param.ty.is_float(),
            (ArgKind::Scalar(s), None) => scalar_fits(*s, param.ty),
            (ArgKind::Bytes(b), Some(_)) => {
                if b.len() as u64 != param.size_bytes() {
                    return Err(mismatch(
                        index,
                        describe_param(param),
                        format!("{} bytes by value, not the {} it has", b.len(), param.size_bytes()),
                    ));
                }
                true
            }
            _ => false,
        };
        if !ok {
            return Err(mismatch(index, describe_param(param), arg.describe()));
        }
    }
    Ok(())
}

/// Whether a scalar fits a raw scalar parameter: the same width, float for float, integers
/// of either signedness (and a `bool` for an 8-bit one) for integer and untyped parameters,
/// and a `u16` of half-precision bits for a `.f16`/`.bf16` one.
fn scalar_fits(s: Scalar, ty: PtxType) -> bool {
    let own = s.ptx_type();
    let half_bits = matches!(ty, PtxType::F16 | PtxType::Bf16) && matches!(s, Scalar::U16(_));
    own.bits() == ty.bits() && (own.is_float() == ty.is_float() || half_bits)
}
