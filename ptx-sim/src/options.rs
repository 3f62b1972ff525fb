//! How a launch runs: the step budget, the most threads a launch may have, whether global
//! memory is race-checked and reads of never-written shared memory refused, and how the
//! `.approx` instructions are modelled.

use crate::approx::Approx;

/// The options of [`crate::launch_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimOptions {
    /// Instructions one thread may run before the launch stops with
    /// [`crate::SimError::StepBudget`] (checked at backward branches and barriers, so a
    /// thread may run a few instructions past it). Default [`DEFAULT_STEP_BUDGET`].
    pub step_budget: u64,
    /// Instructions the threads of one block may run together (or one thread's budget,
    /// where that is larger): a block of many threads spinning on a flag none of them sets
    /// stops after this many, not after a budget for each. Default
    /// [`DEFAULT_BLOCK_STEP_BUDGET`].
    pub block_step_budget: u64,
    /// The most threads (grid × block) a launch may have: a larger one is
    /// [`crate::SimError::BadParams`] before any block runs, rather than a simulation of
    /// hours (the step budget bounds each thread, not the grid). Default
    /// [`DEFAULT_MAX_THREADS`].
    pub max_threads: u64,
    /// Check global memory for races between the threads of a block, as shared memory
    /// always is ([`crate::SimError::Race`]). Off by default: it records every global byte
    /// a block touches between two barriers, which slows the launch several times.
    pub global_race_check: bool,
    /// Refuse a load or atomic (but an exchange, which needs no old value) of a shared byte
    /// that no thread of the block has written since the block started ([`crate::SimError::UninitializedShared`]): the simulator
    /// zero-fills shared memory, a GPU leaves there what an earlier block did. On by
    /// default; it reads the records the shared-memory race check keeps anyway, so it
    /// costs next to nothing.
    pub uninit_shared_check: bool,
    /// How `.approx` instructions compute.
    pub approx: Approx,
}

/// The default step budget: instructions one thread may run in a launch (about a few
/// seconds of simulation; far more than any test kernel needs).
pub const DEFAULT_STEP_BUDGET: u64 = 1 << 30;

/// The default budget of a block's threads together: 2^32 instructions (several seconds of
/// simulation), four default thread budgets.
pub const DEFAULT_BLOCK_STEP_BUDGET: u64 = 1 << 32;

/// The default most threads per launch: 2^32, a minute or so of simulating threads that do
/// little, and far more than a test of a kernel needs.
pub const DEFAULT_MAX_THREADS: u64 = 1 << 32;

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            step_budget: DEFAULT_STEP_BUDGET,
            block_step_budget: DEFAULT_BLOCK_STEP_BUDGET,
            max_threads: DEFAULT_MAX_THREADS,
            global_race_check: false,
            uninit_shared_check: true,
            approx: Approx::Accurate,
        }
    }
}
