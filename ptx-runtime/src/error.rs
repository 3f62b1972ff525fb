//! The crate's one error type, [`Error`], and its [`Result`] alias.
//!
//! Every failure of the runtime — a missing driver, a driver call that failed, PTX the JIT
//! rejected, a launch configuration or argument list that does not fit, a simulated memory
//! fault — is one variant of [`Error`], with the fields a caller needs to act on it.

use ptx_core::VerifyError;

/// `std::result::Result` with [`Error`] as the error type.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in ptx-runtime.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No device of the requested kind can be used: the crate was built without its `cuda`
    /// feature, the CUDA driver library (`libcuda`) is absent, the driver reports no GPU, the
    /// ordinal is out of range, or `PTX_DSL_DEVICE` names no known device. `reason` says which,
    /// and how to run on the CPU simulator instead.
    #[error("no device: {reason}")]
    NoDevice {
        /// What is missing, and what to do instead (e.g. `Device::sim()` or `PTX_DSL_DEVICE=sim`).
        reason: String,
    },

    /// A CUDA driver call failed.
    #[error("CUDA driver call `{call}` failed with {name}: {message}")]
    Driver {
        /// The operation that failed (e.g. `cuMemAlloc`, `cuLaunchKernel`).
        call: &'static str,
        /// The driver's name for the error, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The driver's description of the error (empty if the driver gave none).
        message: String,
    },

    /// The CUDA driver's JIT compiler refused the kernel's PTX.
    #[error("the CUDA driver rejected the PTX of kernel `{kernel}`:\n{log}")]
    PtxRejected {
        /// The kernel whose module failed to load.
        kernel: String,
        /// The driver error name and the JIT's error log (or, when the JIT wrote none, the
        /// first lines of the PTX).
        log: String,
    },

    /// The kernel's IR failed verification, so no PTX was printed for it. (Boxed: a
    /// verifier error is the largest variant, and every `Result` of the crate carries it.)
    #[error("invalid kernel: {0}")]
    InvalidKernel(Box<VerifyError>),

    /// The launch configuration does not fit the device (or the compiled kernel); detected
    /// before launching.
    #[error("{}bad launch configuration: {reason}", kernel_prefix(.kernel))]
    BadLaunchConfig {
        /// The kernel whose launch was refused (`None` from [`crate::LaunchConfig::validate`]
        /// called on its own, where no kernel is known).
        kernel: Option<String>,
        /// Which limit is exceeded (or which dimension is zero), with the numbers.
        reason: String,
    },

    /// The arguments passed to a launch do not match the kernel's parameters, either in
    /// number (then `index` is the first position where one list has no counterpart and
    /// `expected`/`found` give the counts) or in kind/type at position `index`.
    #[error("kernel `{kernel}`, argument {index}: expected {expected}, found {found}")]
    ArgumentMismatch {
        /// The kernel being launched.
        kernel: String,
        /// The argument's position (0-based).
        index: usize,
        /// What the kernel's parameter needs, e.g. `a buffer (pointer parameter `x`)` or `f32`.
        expected: String,
        /// What was passed, e.g. `scalar u32`.
        found: String,
    },

    /// An argument of a library operation (a shape, a size, a table, a parameter) is invalid;
    /// detected before launching anything.
    #[error("invalid argument `{argument}`: {reason}")]
    InvalidArgument {
        /// The argument, by its parameter name (e.g. `rotary_dim`, `positions`).
        argument: String,
        /// What is wrong with it, with the numbers.
        reason: String,
    },

    /// The host cannot allocate the memory a copy to it needs (a download of a buffer larger
    /// than the host's free memory).
    #[error(
        "the host cannot allocate {bytes} bytes to copy the buffer into: free host memory, or work \
         on smaller buffers"
    )]
    HostOutOfMemory {
        /// The size asked for.
        bytes: usize,
    },

    /// A host slice or buffer does not have the length an operation needs.
    #[error(
        "size mismatch: expected {expected} elements, found {found} (a copy between a buffer and a \
         host slice or another buffer needs equal lengths: `copy_from` and `copy_from_buffer` copy \
         whole buffers)"
    )]
    SizeMismatch {
        /// The length the destination (or the operation) requires.
        expected: usize,
        /// The length that was given.
        found: usize,
    },

    /// A checked kernel (one written with `#[ptx_kernel]`) indexed a slice parameter out of
    /// range. The access read 0 or stored nothing and the other threads ran to completion;
    /// this is the first offending access of the launch.
    #[error("kernel `{kernel}` indexed `{param}` at {index}, but its length is {len} (at {location})")]
    OutOfBounds {
        /// The kernel.
        kernel: String,
        /// The slice parameter that was indexed out of range.
        param: String,
        /// The offending index (negative for a signed index below zero).
        index: i128,
        /// The slice's length.
        len: u64,
        /// The Rust source position of the access, `file:line:column`.
        location: String,
    },

    /// A checked kernel did what makes Rust panic whatever the build profile (an integer
    /// division by zero or with overflow, a `step_by(0)`); the offending thread went on with
    /// an unspecified value, the others ran to completion.
    #[error("kernel `{kernel}` panicked: {message} (at {location})")]
    KernelPanic {
        /// The kernel.
        kernel: String,
        /// Rust's panic message for the operation, e.g. `attempt to divide by zero`.
        message: String,
        /// The Rust source position of the operation, `file:line:column`.
        location: String,
    },

    /// A simulated thread accessed memory that is not allocated (or not accessible).
    #[error(
        "kernel `{kernel}` faulted in the simulator: block ({}, {}, {}), thread ({}, {}, {}) {}{}",
        block[0], block[1], block[2], thread[0], thread[1], thread[2],
        ptx_sim::describe_fault(*address, instruction),
        location.as_ref().map(|l| format!(" ({l})")).unwrap_or_default()
    )]
    SimFault {
        /// The kernel.
        kernel: String,
        /// The faulting thread's block index (x, y, z).
        block: [u32; 3],
        /// The faulting thread's index within its block (x, y, z).
        thread: [u32; 3],
        /// The address it accessed.
        address: u64,
        /// The instruction that faulted, as PTX text.
        instruction: String,
        /// The kernel source position of that instruction (`file:line:column`), for kernels
        /// whose PTX carries `.loc` directives (those written with `#[ptx_kernel]`).
        location: Option<String>,
    },

    /// Any other simulator error (PTX the simulator cannot parse or does not support, bad
    /// parameters, a barrier not reached by all threads, an invalid allocation address).
    #[error("simulator: {0}")]
    Simulator(#[source] ptx_sim::SimError),

    /// A buffer or stream belongs to a different device than the one it is used with.
    #[error("wrong device: {what}")]
    WrongDevice {
        /// Which object, and which devices are involved.
        what: String,
    },
}

impl From<VerifyError> for Error {
    fn from(e: VerifyError) -> Self {
        Error::InvalidKernel(Box::new(e))
    }
}

/// `kernel `name`: ` before a launch error's text, where the kernel is known.
fn kernel_prefix(kernel: &Option<String>) -> String {
    kernel.as_ref().map(|k| format!("kernel `{k}`: ")).unwrap_or_default()
}
