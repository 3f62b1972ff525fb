//! # ptx-dsl
//!
//! GPU kernels written as ordinary-looking Rust, lowered to PTX at compile time by the
//! `#[ptx_kernel]` attribute and a pure-Rust builder: no LLVM, no nvcc, no CUDA toolkit to
//! build. Kernels run on an NVIDIA GPU through the CUDA driver, or on a CPU simulator of the
//! emitted PTX when there is no GPU.
//!
//! ```
//! use ptx_dsl::prelude::*;
//! use ptx_dsl::runtime::{Device, LaunchConfig};
//!
//! /// y = a·x + y
//! #[ptx_kernel]
//! pub fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32) {
//!     let i = block_idx().x * block_dim().x + thread_idx().x;
//!     if i < n {
//!         y[i] = a.mul_add(x[i], y[i]);
//!     }
//! }
//!
//! # fn main() -> Result<(), ptx_dsl::runtime::Error> {
//! let dev = Device::auto();
//! let (xs, ys) = (vec![1.5f32; 4096], vec![0.25f32; 4096]);
//! let (x, mut y) = (dev.upload(&xs)?, dev.upload(&ys)?);
//! Saxpy::new().launch(&dev, LaunchConfig::for_elements(4096, 256), 2.0, &x, &mut y, 4096)?;
//! assert!(y.to_vec()?.iter().all(|&v| v == 3.25));
//! # Ok(())
//! # }
//! ```
//!
//! The attribute turns the function into a type (`Saxpy`: fields are the `#[comptime]`
//! parameters) implementing [`core::Kernel`], with a typed `launch` taking
//! [`runtime::DeviceBuffer`]s for the slices — so one buffer cannot be passed as both an
//! input and an output. The body means what it means as plain Rust (release-mode integer
//! wrapping aside): casts, rounding, NaN handling, short-circuit evaluation, integer
//! division. Slice accesses are bounds-checked unless proven by a guard; an out-of-range
//! access is an `Err` naming the kernel, the parameter, the index, the length and the Rust
//! line. Helper functions marked `#[ptx_device]` are written in the same language and
//! inlined into the kernels that call them. The README's "Writing a kernel" section is the
//! language reference.
//!
//! - [`prelude`]: `ptx_kernel`, `ptx_device` and the built-ins ([`gpu`]: `thread_idx()`, `block_idx()`,
//!   `block_dim()`, `grid_dim()`), plus the builder's types;
//! - [`core`]: the typed PTX builder, verifier, printer and math routines (`ptx-core`);
//! - [`runtime`]: devices (CUDA through cudarc, or the CPU simulator), buffers, launches;
//! - [`rope`]: the batched rotary position embedding kernels.

#![warn(missing_docs)]

pub use ptx_core as core;
pub use ptx_runtime as runtime;
/// The `half` crate, whose `f16` and `bf16` kernels take as slice elements
/// (`DeviceBuffer<half::f16>`) and the host-side bodies compute with.
pub use ptx_runtime::half;

pub mod gpu;
pub mod kernels;
mod lang;
mod placement;
pub mod rope;

pub use ptx_macros::{ptx_device, ptx_kernel};

/// What the code `#[ptx_kernel]` generates refers to; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::lang::cache_key::{ByDebug, ConstantKey, NoKey};
    pub use crate::lang::launch::is_bounds_check;
    pub use crate::lang::memory::Slice;
    pub use crate::lang::methods::FloatFn;
    pub use crate::lang::ops::Site;
    pub use crate::lang::warp::{Reduce, Shuffle, Vote, WARP_SIZE};
    pub use crate::lang::{shift_amount, Builtin, Dim3, KernelCtx, Scalar, Value};
    pub use ptx_core::fault::FaultSite;
    pub use ptx_core::ir::{AtomOp, FenceScope};
    pub use ptx_core::{Kernel, KernelIr, Label};
    pub use ptx_macros::ptx_kernel_resume;
    pub use ptx_runtime::{
        Bf16Storage, Device, DeviceBuffer, Error, F16Storage, KernelArg, LaunchConfig, LaunchReport, Result,
    };
}

/// The names most kernel code needs: the `#[ptx_kernel]` attribute and the built-ins, and
/// for kernels written against the builder, its types.
pub mod prelude {
    pub use crate::gpu::{
        all, any, atomic_add, atomic_and, atomic_cas, atomic_exch, atomic_max, atomic_min, atomic_or,
        atomic_xor, ballot, block_dim, block_idx, block_max, block_min, block_sum, global_idx, grid_dim,
        grid_stride, lane_id, load2, load4, load8, shared, shared_dyn, shfl_down, shfl_idx, shfl_up,
        shfl_xor, store2, store4, store8, sync_threads, sync_warp, thread_fence, thread_fence_block,
        thread_fence_system, thread_idx, warp_max, warp_min, warp_size, warp_sum,
    };
    pub use crate::gpu_print;
    pub use ptx_core::builder::{KernelBuilder, Reg, Val};
    pub use ptx_core::{
        math, Cmp, Kernel, KernelIr, PtxType, SpecialReg, Target, F32, F64, S32, S64, U32, U64,
    };
    pub use ptx_macros::{ptx_device, ptx_kernel};
    pub use ptx_runtime::half::{bf16, f16};
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
