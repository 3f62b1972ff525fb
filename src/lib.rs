//! # ptx-dsl
//!
//! GPU kernels written as ordinary-looking Rust, lowered to PTX by a pure-Rust builder: no
//! LLVM, no nvcc, no CUDA toolkit to build. This facade re-exports the pieces:
//!
//! - [`core`]: the typed PTX builder, verifier, printer and math routines (`ptx-core`);
//! - [`runtime`]: devices (CUDA through cudarc, or the CPU simulator), buffers, launches;
//! - [`rope`]: the batched rotary position embedding kernels.

#![warn(missing_docs)]

pub use ptx_core as core;
pub use ptx_runtime as runtime;

pub mod gpu;
mod lang;
pub mod rope;

pub use ptx_macros::ptx_kernel;

/// What the code `#[ptx_kernel]` generates refers to; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::lang::launch::{is_bounds_check, FaultBuffer};
    pub use crate::lang::memory::Slice;
    pub use crate::lang::methods::F32Fn;
    pub use crate::lang::ops::Site;
    pub use crate::lang::{Builtin, Dim3, KernelCtx, Scalar, Value};
    pub use ptx_core::fault::FaultSite;
    pub use ptx_core::{Kernel, KernelIr, Label};
    pub use ptx_runtime::{Device, DeviceBuffer, KernelArg, LaunchConfig, LaunchReport, Result};
}

/// The names most kernel code needs: the `#[ptx_kernel]` attribute and the built-ins, and
/// for kernels written against the builder, its types.
pub mod prelude {
    pub use crate::gpu::{block_dim, block_idx, grid_dim, thread_idx};
    pub use ptx_core::builder::{KernelBuilder, Reg, Val};
    pub use ptx_core::{
        math, Cmp, Kernel, KernelIr, PtxType, SpecialReg, Target, F32, F64, S32, S64, U32, U64,
    };
    pub use ptx_macros::ptx_kernel;
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
