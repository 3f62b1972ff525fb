//! Launch geometry ([`LaunchConfig`], checked against [`DeviceLimits`] before any launch),
//! untyped kernel arguments ([`KernelArg`]) checked against the kernel's parameters, and what
//! a launch reports back ([`LaunchReport`]).

use std::time::Duration;

use ptx_core::ir::Param;
use ptx_core::PtxType;

use crate::buffer::{DeviceBuffer, ErasedBuffer};
use crate::error::{Error, Result};
use crate::scalar::{DeviceScalar, Scalar};

/// Grid and block shape of a launch, and its dynamic shared memory.
///
/// Always explicit: the runtime never infers geometry from the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid, (x, y, z).
    pub grid: (u32, u32, u32),
    /// Threads in a block, (x, y, z).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes (on top of the kernel's static `.shared`).
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A launch of `grid` blocks of `block` threads, without dynamic shared memory.
    pub fn new(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
        LaunchConfig { grid, block, shared_mem_bytes: 0 }
    }

    /// A one-dimensional launch: `grid_x` blocks of `block_x` threads.
    pub fn linear(grid_x: u32, block_x: u32) -> LaunchConfig {
        LaunchConfig::new((grid_x, 1, 1), (block_x, 1, 1))
    }

    /// A one-dimensional launch covering `n` elements with blocks of `block_size` threads:
    /// `ceil(n / block_size)` blocks (at least one, so `n == 0` still launches and the kernel's
    /// own bounds check does nothing). The kernel must check `i < n` for the last block.
    ///
    /// A `block_size` of 0 gives a configuration that [`LaunchConfig::validate`] rejects; a
    /// block count above `u32::MAX` saturates (and is rejected as too large a grid).
    pub fn for_elements(n: usize, block_size: u32) -> LaunchConfig {
        let blocks = if block_size == 0 { 1 } else { n.div_ceil(block_size as usize).max(1) };
        LaunchConfig::linear(u32::try_from(blocks).unwrap_or(u32::MAX), block_size)
    }

    /// The same configuration with `bytes` of dynamic shared memory per block.
    pub fn with_shared_mem(self, bytes: u32) -> LaunchConfig {
        LaunchConfig { shared_mem_bytes: bytes, ..self }
    }

    /// Threads per block (saturating at `u64::MAX`: three dimensions near `u32::MAX` have
    /// more than 2^64 threads, which no device runs and [`LaunchConfig::validate`] refuses).
    pub fn threads_per_block(&self) -> u64 {
        u64::from(self.block.0)
            .saturating_mul(u64::from(self.block.1))
            .saturating_mul(u64::from(self.block.2))
    }

    /// Threads in the whole grid (saturating at `u64::MAX`, like
    /// [`LaunchConfig::threads_per_block`]).
    pub fn total_threads(&self) -> u64 {
        let blocks = u64::from(self.grid.0)
            .saturating_mul(u64::from(self.grid.1))
            .saturating_mul(u64::from(self.grid.2));
        blocks.saturating_mul(self.threads_per_block())
    }

    /// Checks the configuration against `limits`: no zero dimension, block dimensions and
    /// threads per block, grid dimensions, and dynamic shared memory within the limits.
    pub fn validate(&self, limits: &DeviceLimits) -> Result<()> {
        self.check(None, limits, 0)
    }

    /// The check a launch of `kernel` makes: [`LaunchConfig::validate`], counting
    /// `static_shared` bytes of the kernel's own `.shared` arrays against the shared-memory
    /// limit too, with errors naming the kernel.
    pub fn validate_for(&self, kernel: &str, limits: &DeviceLimits, static_shared: u32) -> Result<()> {
        self.check(Some(kernel), limits, static_shared)
    }

    fn check(&self, kernel: Option<&str>, limits: &DeviceLimits, static_shared: u32) -> Result<()> {
        let bad = |reason: String| Err(Error::BadLaunchConfig { kernel: kernel.map(str::to_string), reason });
        let grid = [self.grid.0, self.grid.1, self.grid.2];
        let block = [self.block.0, self.block.1, self.block.2];
        const AXES: [&str; 3] = ["x", "y", "z"];
        for axis in 0..3 {
            if grid[axis] == 0 {
                return bad(format!(
                    "grid dimension {} is 0 (grid {:?}); every dimension must be at least 1",
                    AXES[axis], self.grid
                ));
            }
            if block[axis] == 0 {
                return bad(format!(
                    "block dimension {} is 0 (block {:?}); every dimension must be at least 1",
                    AXES[axis], self.block
                ));
            }
        }
        for axis in 0..3 {
            if block[axis] > limits.max_block_dim[axis] {
                return bad(format!(
                    "block dimension {} is {}, above the device's limit of {} (limits {:?})",
                    AXES[axis], block[axis], limits.max_block_dim[axis], limits.max_block_dim
                ));
            }
        }
        let threads = self.threads_per_block();
        if threads > u64::from(limits.max_threads_per_block) {
            return bad(format!(
                "block {:?} has {threads} threads, above the device's limit of {} threads per block",
                self.block, limits.max_threads_per_block
            ));
        }
        for axis in 0..3 {
            if grid[axis] > limits.max_grid_dim[axis] {
                return bad(format!(
                    "grid dimension {} is {}, above the device's limit of {} (limits {:?})",
                    AXES[axis], grid[axis], limits.max_grid_dim[axis], limits.max_grid_dim
                ));
            }
        }
        let shared = u64::from(self.shared_mem_bytes) + u64::from(static_shared);
        if shared > u64::from(limits.max_shared_mem_per_block) {
            return bad(format!(
                "{} bytes of dynamic shared memory plus {static_shared} bytes of the kernel's static \
                 shared memory exceed the device's limit of {} bytes per block",
                self.shared_mem_bytes, limits.max_shared_mem_per_block
            ));
        }
        Ok(())
    }
}

/// What a device allows in one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Most threads in one block (1024 on every GPU since Fermi).
    pub max_threads_per_block: u32,
    /// Largest block dimensions, (x, y, z): (1024, 1024, 64).
    pub max_block_dim: [u32; 3],
    /// Largest grid dimensions, (x, y, z): (2^31 - 1, 65535, 65535).
    pub max_grid_dim: [u32; 3],
    /// Most shared memory (static plus dynamic) per block without opting in to more: 48 KiB.
    pub max_shared_mem_per_block: u32,
}

impl DeviceLimits {
    /// The limits of every GPU from sm_30 on (and of the simulator).
    pub const DEFAULT: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_block_dim: [1024, 1024, 64],
        max_grid_dim: [(1 << 31) - 1, 65535, 65535],
        max_shared_mem_per_block: 48 * 1024,
    };
}

impl Default for DeviceLimits {
    fn default() -> DeviceLimits {
        DeviceLimits::DEFAULT
    }
}

/// One argument of an untyped launch: a buffer the kernel reads, a buffer it may write, a
/// scalar passed by value, or the bytes of a value passed by value (a struct). Made with the
/// `From` impls (`KernelArg::from(&buf)`, `KernelArg::from(&mut buf)`,
/// `KernelArg::from(3u32)`, `true.into()`, `5u8.into()`, `(-3i16).into()`) or the named
/// constructors ([`KernelArg::bytes`] for a struct).
pub struct KernelArg<'a> {
    pub(crate) kind: ArgKind<'a>,
}

pub(crate) enum ArgKind<'a> {
    In(&'a dyn ErasedBuffer),
    Out(&'a mut dyn ErasedBuffer),
    Scalar(Scalar),
    /// A by-value `.b8 name[N]` parameter's N bytes.
    Bytes(Vec<u8>),
}

impl<'a> KernelArg<'a> {
    /// A buffer the kernel only reads.
    pub fn buffer<T: DeviceScalar>(buf: &'a DeviceBuffer<T>) -> KernelArg<'a> {
        KernelArg { kind: ArgKind::In(buf) }
    }

    /// A buffer the kernel may write.
    pub fn buffer_mut<T: DeviceScalar>(buf: &'a mut DeviceBuffer<T>) -> KernelArg<'a> {
        KernelArg { kind: ArgKind::Out(buf) }
    }

    /// A scalar passed by value.
    pub fn scalar(value: impl Into<Scalar>) -> KernelArg<'a> {
        KernelArg { kind: ArgKind::Scalar(value.into()) }
    }

    /// A by-value parameter of `.b8 name[N]` (a C struct, a `__half`, a `float2` passed by
    /// value): its N bytes, as the C struct lays them out (little-endian fields at their
    /// offsets, padding included). A launch checks the count against the parameter's N.
    ///
    /// ```
    /// # use ptx_runtime::KernelArg;
    /// // struct { int a; double b; short c; }: a at 0, b at 8, c at 16, 24 bytes in all.
    /// let mut s = [0u8; 24];
    /// s[0..4].copy_from_slice(&7i32.to_le_bytes());
    /// s[8..16].copy_from_slice(&0.5f64.to_le_bytes());
    /// s[16..18].copy_from_slice(&(-2i16).to_le_bytes());
    /// let arg = KernelArg::bytes(&s);
    /// assert_eq!(arg.describe(), "24 bytes by value");
    /// ```
    pub fn bytes(bytes: &[u8]) -> KernelArg<'a> {
        KernelArg { kind: ArgKind::Bytes(bytes.to_vec()) }
    }

    /// Whether this argument is a buffer (read-only or writable).
    pub fn is_buffer(&self) -> bool {
        matches!(self.kind, ArgKind::In(_) | ArgKind::Out(_))
    }

    /// A short description, as used in [`Error::ArgumentMismatch`]: `buffer of f32 (len 16)`,
    /// `mutable buffer of u32 (len 4)`, `scalar f32`, `scalar bool (.u8)`, `24 bytes by value`.
    pub fn describe(&self) -> String {
        match &self.kind {
            ArgKind::In(b) => format!("buffer of {} (len {})", b.elem_type().ptx_name(), b.elem_len()),
            ArgKind::Out(b) => {
                format!("mutable buffer of {} (len {})", b.elem_type().ptx_name(), b.elem_len())
            }
            ArgKind::Scalar(s) => s.to_string(),
            ArgKind::Bytes(b) => format!("{} bytes by value", b.len()),
        }
    }

    /// The same argument, borrowed for a shorter time (to extend an argument list).
    pub fn reborrow(&mut self) -> KernelArg<'_> {
        let kind = match &mut self.kind {
            ArgKind::In(b) => ArgKind::In(*b),
            ArgKind::Out(b) => ArgKind::Out(&mut **b),
            ArgKind::Scalar(s) => ArgKind::Scalar(*s),
            ArgKind::Bytes(b) => ArgKind::Bytes(b.clone()),
        };
        KernelArg { kind }
    }

    pub(crate) fn erased_buffer(&self) -> Option<&dyn ErasedBuffer> {
        match &self.kind {
            ArgKind::In(b) => Some(*b),
            ArgKind::Out(b) => Some(&**b),
            ArgKind::Scalar(_) | ArgKind::Bytes(_) => None,
        }
    }
}

impl std::fmt::Debug for KernelArg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ArgKind::Scalar(s) => write!(f, "KernelArg({s:?})"),
            ArgKind::Bytes(b) => write!(f, "KernelArg(Bytes({b:?}))"),
            _ => write!(f, "KernelArg({})", self.describe()),
        }
    }
}

impl<'a, T: DeviceScalar> From<&'a DeviceBuffer<T>> for KernelArg<'a> {
    fn from(buf: &'a DeviceBuffer<T>) -> KernelArg<'a> {
        KernelArg::buffer(buf)
    }
}

impl<'a, T: DeviceScalar> From<&'a mut DeviceBuffer<T>> for KernelArg<'a> {
    fn from(buf: &'a mut DeviceBuffer<T>) -> KernelArg<'a> {
        KernelArg::buffer_mut(buf)
    }
}

impl From<Scalar> for KernelArg<'_> {
    fn from(value: Scalar) -> Self {
        KernelArg::scalar(value)
    }
}

macro_rules! arg_from_scalar {
    ($($t:ty),*) => {$(
        impl From<$t> for KernelArg<'_> {
            fn from(value: $t) -> Self {
                KernelArg::scalar(value)
            }
        }
    )*};
}

arg_from_scalar!(u8, i8, bool, u16, i16, u32, i32, f32, u64, i64, f64, half::f16, half::bf16);

/// Checks `args` against the kernel's parameters: same count, a buffer for each pointer
/// parameter, a scalar of the parameter's PTX type for each other one.
pub(crate) fn check_args(kernel: &str, params: &[Param], args: &[KernelArg<'_>]) -> Result<()> {
    let mismatch = |index: usize, expected: String, found: String| Error::ArgumentMismatch {
        kernel: kernel.to_string(),
        index,
        expected,
        found,
    };
    if params.len() != args.len() {
        // A `#[ptx_kernel]` kernel's hidden parameters (the lengths, the fault record) are
        // its typed launch's to pass.
        let hint = if params.last().is_some_and(|p| p.name == ptx_core::fault::FAULT_PARAM) {
            format!(
                "; `{kernel}` is a `#[ptx_kernel]` kernel: launch it with its type's `launch` \
                 (`MyKernel::new(..).launch(&device, config, ..)`), which passes the slices' lengths \
                 and the fault record itself"
            )
        } else {
            String::new()
        };
        return Err(mismatch(
            params.len().min(args.len()),
            format!("{} arguments ({}){hint}", params.len(), describe_params(params)),
            format!("{} arguments", args.len()),
        ));
    }
    for (index, (param, arg)) in params.iter().zip(args).enumerate() {
        let ok = match (&arg.kind, param.is_pointer) {
            (ArgKind::Scalar(_) | ArgKind::Bytes(_), true) | (ArgKind::In(_) | ArgKind::Out(_), false) => {
                false
            }
            (ArgKind::Bytes(_), false) => false,
            (ArgKind::Scalar(s), false) => s.fits(param.ty),
            (_, true) => true,
        };
        if !ok {
            return Err(mismatch(index, describe_param(param), arg.describe()));
        }
        if let Some(buf) = arg.erased_buffer() {
            if param.access.written && matches!(arg.kind, ArgKind::In(_)) {
                return Err(mismatch(
                    index,
                    format!(
                        "a mutable buffer (the kernel writes through `{}`): pass `&mut buffer`",
                        param.name
                    ),
                    arg.describe(),
                ));
            }
            if let Some(elem) = param.access.elem {
                if !memory_types_agree(elem, buf.elem_type()) {
                    return Err(mismatch(
                        index,
                        format!(
                            "a buffer of {} (the kernel accesses `{}` as .{0})",
                            elem.ptx_name(),
                            param.name
                        ),
                        arg.describe(),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether memory accessed as `access` may hold elements of type `elem`: the same type, or
/// the same width where one side is untyped bits or both are integers (a reinterpretation
/// of the same bits, e.g. a `.u32` load of `i32` data), or an untyped access of a whole
/// number of elements (a `.b32` load of two `f16`). Half-precision elements also agree with
/// 16-bit integer accesses, which is how PTX moves them (NVRTC loads a `__half` with
/// `ld.u16`; there is no float load of 16 bits). Float against integer otherwise, and other
/// widths, are refused.
fn memory_types_agree(access: PtxType, elem: PtxType) -> bool {
    if access == elem {
        return true;
    }
    let same_width = access.bits() == elem.bits();
    let untyped = |t: PtxType| matches!(t, PtxType::B16 | PtxType::B32 | PtxType::B64);
    // An untyped access wider than the elements moves several at once (the language's
    // `load8` reads eight 16-bit elements as four `.b32` words).
    let packed = untyped(access) && access.bits() > elem.bits() && access.bits().is_multiple_of(elem.bits());
    // Half-precision elements are bits to an integer access as much as integers are.
    let bits_to_int = |t: PtxType| t.is_int() || matches!(t, PtxType::F16 | PtxType::Bf16);
    packed || (same_width && (untyped(access) || untyped(elem) || (access.is_int() && bits_to_int(elem))))
}

fn describe_param(p: &Param) -> String {
    if p.is_pointer {
        format!("a buffer (pointer parameter `{}`)", p.name)
    } else {
        format!("scalar {} (parameter `{}`)", p.ty.ptx_name(), p.name)
    }
}

fn describe_params(params: &[Param]) -> String {
    let list: Vec<String> = params
        .iter()
        .map(|p| {
            if p.is_pointer {
                format!("{}: buffer", p.name)
            } else {
                format!("{}: {}", p.name, p.ty.ptx_name())
            }
        })
        .collect();
    list.join(", ")
}

/// What a launch reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchReport {
    /// The kernel launched.
    pub kernel: String,
    /// Whether the kernel's module came from the device's cache (no build, no load).
    pub cache_hit: bool,
    /// Threads executed: known on the simulator, `None` on CUDA.
    pub threads: Option<u64>,
    /// Instructions executed, summed over threads: known on the simulator, `None` on CUDA.
    pub instructions: Option<u64>,
    /// Wall time of the launch call. On the simulator the kernel has finished when the call
    /// returns; on CUDA launches are asynchronous, so this is the time to enqueue it (and to
    /// build and load the module on a cache miss).
    pub wall_time: Duration,
    /// What the kernel's `printf`s printed, block by block in grid order (also written to
    /// stdout). On the simulator only: on CUDA the driver prints at the next synchronising
    /// call, and this is empty.
    pub printed: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_core::PtxType;

    #[test]
    fn for_elements_covers_n() {
        assert_eq!(LaunchConfig::for_elements(1000, 256).grid, (4, 1, 1));
        assert_eq!(LaunchConfig::for_elements(1024, 256).grid, (4, 1, 1));
        assert_eq!(LaunchConfig::for_elements(0, 256).grid, (1, 1, 1));
        assert_eq!(LaunchConfig::for_elements(5, 256).block, (256, 1, 1));
        assert!(LaunchConfig::for_elements(10, 0).validate(&DeviceLimits::DEFAULT).is_err());
        let huge = LaunchConfig::for_elements(usize::MAX, 1);
        assert_eq!(huge.grid.0, u32::MAX);
        assert!(huge.validate(&DeviceLimits::DEFAULT).is_err());
    }

    #[test]
    fn static_shared_counts_against_the_limit() {
        let cfg = LaunchConfig::linear(1, 32).with_shared_mem(40 * 1024);
        cfg.validate(&DeviceLimits::DEFAULT).unwrap();
        assert!(cfg.validate_for("k", &DeviceLimits::DEFAULT, 8 * 1024 + 1).is_err());
        assert_eq!(cfg.total_threads(), 32);
    }

    #[test]
    fn argument_checks() {
        let params = vec![
            Param { name: "p".into(), ty: PtxType::U64, is_pointer: true, access: Default::default() },
            Param { name: "a".into(), ty: PtxType::F32, is_pointer: false, access: Default::default() },
            Param { name: "bits".into(), ty: PtxType::B32, is_pointer: false, access: Default::default() },
        ];
        let err = check_args("k", &params, &[KernelArg::from(1.0f32)]).unwrap_err();
        assert!(matches!(err, Error::ArgumentMismatch { index: 1, .. }), "{err}");
        let err = check_args("k", &params, &[1u64.into(), 1.0f32.into(), 2u32.into()]).unwrap_err();
        assert!(matches!(err, Error::ArgumentMismatch { index: 0, .. }), "{err}");
        assert!(err.to_string().contains("pointer parameter `p`"), "{err}");
        assert!(Scalar::I32(-1).fits(PtxType::B32));
        assert!(!Scalar::F32(1.0).fits(PtxType::B32));
        assert!(!Scalar::F64(1.0).fits(PtxType::F32));
        assert_eq!(Scalar::I32(-1).to_bits(), 0xffff_ffff);
        assert_eq!(Scalar::F32(1.0).to_bits(), 0x3f80_0000);
    }

    #[test]
    fn accesses_agree_with_buffers_of_the_same_bits() {
        use super::memory_types_agree as agree;
        assert!(agree(PtxType::U32, PtxType::S32), "integers of one width reinterpret");
        assert!(agree(PtxType::B32, PtxType::F32) && agree(PtxType::F32, PtxType::B32));
        assert!(agree(PtxType::B32, PtxType::U16), "a packed access of two 16-bit elements");
        assert!(agree(PtxType::B64, PtxType::F32), "a packed access of two f32");
        assert!(!agree(PtxType::U32, PtxType::U16), "a typed access of a narrower element");
        assert!(!agree(PtxType::B16, PtxType::U32), "an access narrower than the element");
        assert!(!agree(PtxType::F32, PtxType::U32), "float against integer");
        assert!(!agree(PtxType::F64, PtxType::F32));
        assert!(
            agree(PtxType::U16, PtxType::F16) && agree(PtxType::B16, PtxType::Bf16),
            "halves move as bits"
        );
        assert!(agree(PtxType::B32, PtxType::Bf16), "a packed access of two bf16");
        assert!(!agree(PtxType::U32, PtxType::F16), "a typed access of a narrower element");
    }
}
