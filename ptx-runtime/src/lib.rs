//! # ptx-runtime
//!
//! Runs ptx-dsl kernels: on an NVIDIA GPU through the CUDA driver (`cudarc`, dynamically
//! loaded, behind the default `cuda` feature), or on the CPU simulator of the emitted PTX
//! (`ptx-sim`). The same code runs on both:
//!
//! - [`Device`]: [`Device::cuda`], [`Device::sim`], [`Device::auto`] / [`Device::from_env`]
//!   (`PTX_DSL_DEVICE=cuda|sim|auto`). A missing driver or GPU is an [`Error::NoDevice`],
//!   never a panic.
//! - [`DeviceBuffer<T>`] for `f32 f64 u8 i8 u16 i16 u32 i32 u64 i64` and `half::f16`,
//!   `half::bf16` ([`DeviceScalar`]; f16 and bf16 data may also travel as `u16` bits):
//!   upload, zeroed allocation, download, copies; freed on drop.
//! - [`Device::launch`] with an explicit [`LaunchConfig`] (checked against the device's
//!   [`DeviceLimits`] before launching) and [`KernelArg`]s checked against the kernel's
//!   parameters. [`Stream`]s for explicit ordering.
//! - A per-device module cache: each (kernel, comptime values, target) is built and loaded
//!   once ([`Device::cache_stats`]).
//! - Raw PTX from anywhere (NVRTC, a file): [`Device::load_ptx`] gives a [`PtxModule`] whose
//!   kernels launch by name, checked against their `.entry` signatures, on either backend.
//! - One error type, [`Error`].
//!
//! ```
//! use ptx_core::{Kernel, KernelBuilder, KernelIr, SpecialReg, F32};
//! use ptx_runtime::{Device, KernelArg, LaunchConfig};
//!
//! struct Double;
//! impl Kernel for Double {
//!     fn name(&self) -> &str { "double" }
//!     fn build(&self) -> KernelIr {
//!         let mut b = KernelBuilder::new("double");
//!         let data = b.global_pointer("data");
//!         let i = b.special(SpecialReg::TidX);
//!         let addr = b.element_address::<F32>(data, i);
//!         let x = b.ld_global::<F32>(addr, 0);
//!         let y = b.add(x, x);
//!         b.st_global::<F32>(addr, 0, y);
//!         b.ret();
//!         b.finish()
//!     }
//! }
//!
//! # fn main() -> ptx_runtime::Result<()> {
//! let device = Device::sim();
//! let mut data = device.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
//! // SAFETY: four threads, each touching its own element of the 4-element buffer.
//! unsafe { device.launch(&Double, LaunchConfig::linear(1, 4), &mut [KernelArg::from(&mut data)]) }?;
//! assert_eq!(data.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod buffer;
mod cache;
pub mod checked;
#[cfg(feature = "cuda")]
mod cuda;
mod device;
mod error;
mod launch;
mod raw;
mod scalar;
mod sim_backend;

pub use buffer::DeviceBuffer;
pub use cache::CacheStats;
pub use device::{Device, DeviceKind, Stream, DEVICE_ENV};
pub use error::{Error, Result};
/// The `half` crate, whose `f16` and `bf16` are buffer elements here (re-exported so that
/// its version is the one this crate implements [`DeviceScalar`] for).
pub use half;
pub use launch::{DeviceLimits, KernelArg, LaunchConfig, LaunchReport};
pub use ptx_sim::signature::PtxParam;
pub use ptx_sim::{Approx, SimOptions};
pub use raw::PtxModule;
pub use scalar::{Bf16Storage, DeviceScalar, F16Storage, Scalar};
