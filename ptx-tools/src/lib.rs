//! # ptx-tools
//!
//! Tools and test support around [`ptx_core`]'s IR, kept out of that dependency-free crate:
//!
//! - [`ptxas`] finds and runs NVIDIA's PTX assembler, the judge of the PTX the project
//!   emits (tests assemble every kernel for sm_80 and sm_90 and read `ptxas -v`'s register
//!   and spill counts);
//! - [`sass`] disassembles what ptxas assembled with nvdisasm and counts the SASS (global
//!   accesses by width: tests assert the 16-byte accesses of the vectorised kernels);
//! - [`coverage`] builds the catalog kernel that uses every instruction form the builder and
//!   verifier accept, which the assembler, simulator and GPU tests all run;
//! - [`seed`] and [`rng`] are the randomised tests' seeds (fresh every run, printed, replayed
//!   with `PTX_DSL_TEST_SEED`) and their xorshift generator, one copy for every crate's tests;
//! - [`ulp`] measures an f32 result's distance from its reference in units in the last place.
//!
//! Nothing here is needed at run time: the library crates never depend on it; tests,
//! examples and benchmarks do, as a dev-dependency.

#![warn(missing_docs)]

pub mod coverage;
pub mod ptxas;
pub mod rng;
pub mod sass;
pub mod seed;
pub mod ulp;
