//! # ptx-sim
//!
//! A CPU simulator for the PTX text that `ptx_core::print` emits, and for what NVRTC and
//! OpenAI Triton write for kernels typical of real code (the corpus in `tests/corpus/`,
//! Triton's in `tests/corpus/triton/`). [`Module::parse`] reads
//! the text into a compact decoded form (registers as indices into a flat per-thread
//! register file, labels resolved, immediates decoded); [`launch`] executes a whole grid
//! on the CPU against a simulated global [`Memory`].
//!
//! It is built to be faithful to a GPU:
//! - integer operations wrap exactly as PTX defines them (shared code with
//!   `ptx_core::eval`); float `add sub mul fma div sqrt rcp` with `.rn .rz .rm .rp` and every
//!   `cvt` rounding mode give IEEE-correct bits, subnormals included (no flush to zero);
//!   NaN results are the canonical NaN (`0x7fffffff`, `0x7fffffffffffffff`);
//! - `.approx` instructions are modelled by the f64 function rounded to f32, or, with
//!   [`Approx::WorstCase`], moved by the largest error the PTX ISA allows first;
//! - every global access is bounds-checked against the one allocation it falls in and must
//!   be aligned; shared memory is per block and bounds-checked too; a bad access stops the
//!   launch with [`SimError::Fault`] naming block, thread, address and instruction;
//! - the threads of a block meet at `bar.sync`, the lanes of a warp at `shfl.sync` and
//!   `vote.sync`; threads that can never meet are [`SimError::Barrier`], not a hang, and so
//!   are threads that meet at an aligned barrier (`bar.sync`, `bar.red`) through different
//!   instructions (undefined in the PTX ISA); a thread that runs past the step budget
//!   ([`SimOptions::step_budget`]) is [`SimError::StepBudget`];
//! - two threads of a block touching one shared byte between barriers, one of them
//!   storing, is [`SimError::Race`] (global memory too with
//!   [`SimOptions::global_race_check`]), and a load or atomic (but an exchange) of a
//!   shared byte that no thread of the block has written is [`SimError::UninitializedShared`] (shared memory
//!   starts zeroed here, undefined on a GPU; [`SimOptions::uninit_shared_check`]);
//! - each thread has its own `.local` memory (which also holds the `.param`s of calls, so
//!   that a callee loads them at any offset and width, and through their addresses), generic
//!   addresses reach local, shared and global memory, module `.global`/`.const` variables
//!   persist per [`Memory`], `cp.async` copies land at the `cp.async.wait_group` that covers
//!   them, and `printf` (`vprintf`) output is returned in [`LaunchStats::printed`];
//! - any opcode, modifier or directive it does not implement is
//!   [`SimError::Unsupported`], never skipped; a kernel that uses one is left out of its
//!   module ([`Module::unsupported`]) while the others load.
//!
//! ```
//! use ptx_core::{KernelBuilder, SpecialReg, F32, Target};
//! use ptx_sim::{launch, Geometry, Memory, Module};
//!
//! let mut b = KernelBuilder::new("double");
//! let data = b.global_pointer("data");
//! let i = b.special(SpecialReg::TidX);
//! let addr = b.element_address::<F32>(data, i);
//! let x = b.ld_global::<F32>(addr, 0);
//! let y = b.add(x, x);
//! b.st_global::<F32>(addr, 0, y);
//! let ir = b.finish();
//! let ptx = ptx_core::print::kernel_ptx(&ir, Target::SM_80);
//!
//! let module = Module::parse(&ptx).unwrap();
//! let kernel = module.kernel("double").unwrap();
//! let memory = Memory::new();
//! let buf = memory.alloc(4 * 32);
//! let input: Vec<u8> = (0..32).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! memory.write(buf, &input).unwrap();
//! let geometry = Geometry { grid: [1, 1, 1], block: [32, 1, 1], dynamic_shared_bytes: 0 };
//! launch(kernel, &geometry, &[buf], &memory, 1).unwrap();
//! let mut out = [0u8; 4];
//! memory.read(buf + 4 * 5, &mut out).unwrap();
//! assert_eq!(f32::from_le_bytes(out), 10.0);
//! ```

#![warn(missing_docs)]

mod approx;
mod async_copy;
mod bits;
mod comments;
mod const_expr;
mod decode;
mod error;
mod exec;
mod half;
mod literal;
mod memory;
mod options;
mod parse;
mod printf;
mod program;
mod race;
pub mod signature;
mod tensor;
mod versions;
mod video;

pub use approx::{Approx, Bound};
pub use error::{describe_fault, AccessKind, DataRace, SimError};
pub use exec::{launch, launch_with, launch_with_param_bytes, Geometry, LaunchStats};
pub use memory::Memory;
pub use options::{SimOptions, DEFAULT_BLOCK_STEP_BUDGET, DEFAULT_MAX_THREADS, DEFAULT_STEP_BUDGET};
pub use program::{KernelCode, Module, ParamInfo};
