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

pub mod rope;

/// The names most kernel code needs.
pub mod prelude {
    pub use ptx_core::builder::{KernelBuilder, Reg, Val};
    pub use ptx_core::{
        math, Cmp, Kernel, KernelIr, PtxType, SpecialReg, Target, F32, F64, S32, S64, U32, U64,
    };
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
