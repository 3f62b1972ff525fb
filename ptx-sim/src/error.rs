//! The simulator's error type: everything that can go wrong parsing PTX, launching a grid,
//! executing it, or touching simulated memory from the host.

use std::fmt;

/// An error from parsing, launching or running PTX in the simulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The PTX text is malformed: a line the simulator cannot read as PTX
    /// (`line` is 1-based).
    Parse {
        /// 1-based line number in the PTX text.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The PTX is well-formed but uses an opcode, modifier, type or directive the
    /// simulator does not implement; it never skips such a line silently.
    Unsupported {
        /// 1-based line number in the PTX text.
        line: usize,
        /// The construct, e.g. `opcode "tex.2d"`.
        what: String,
    },
    /// A thread accessed memory outside every live allocation (or outside its block's
    /// shared memory), or with an address not aligned to the access size. The launch stops.
    Fault {
        /// The kernel's name.
        kernel: String,
        /// `%ctaid` of the faulting thread.
        block: [u32; 3],
        /// `%tid` of the faulting thread.
        thread: [u32; 3],
        /// The address accessed (a global address, or an offset in the shared window).
        address: u64,
        /// The instruction's PTX text.
        instruction: String,
        /// The source position of the instruction (`file:line:column`), when the PTX has
        /// `.loc` directives (kernels written with `#[ptx_kernel]` do).
        source: Option<String>,
    },
    /// The launch arguments do not fit the kernel: wrong parameter count, a value wider
    /// than its parameter type, or an invalid grid/block shape.
    BadParams {
        /// The kernel's name.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// Threads of a block can never all meet: some wait at `bar.sync` (or `shfl.sync`)
    /// while others wait at a different barrier (threads that exited hold up none); or they
    /// all wait at one aligned barrier (`bar.sync`, `bar.red`, `barrier.sync.aligned`) but
    /// reached it through
    /// different instructions, which the PTX ISA leaves undefined. Real hardware would hang
    /// or behave undefinedly; the simulator stops the launch instead.
    Barrier {
        /// The kernel's name.
        kernel: String,
        /// Which threads wait where.
        message: String,
    },
    /// A thread ran more instructions than the launch's step budget allows: an endless
    /// loop, or a spin-wait that no thread ends (threads of a block take turns, so a later
    /// thread of the block does get to store the flag; a later block may not). Stopped
    /// instead of hanging.
    StepBudget {
        /// The kernel's name.
        kernel: String,
        /// The thread's block index (x, y, z).
        block: [u32; 3],
        /// The thread's index within its block (x, y, z).
        thread: [u32; 3],
        /// The budget, in instructions per thread.
        budget: u64,
        /// Where the block's threads together ran past the instructions they share
        /// ([`crate::SimOptions::block_step_budget`]) before this one ran past its own: that
        /// shared budget.
        block_budget: Option<u64>,
        /// The branch it was taking when the budget ran out, as PTX text, followed by its
        /// source position in parentheses where the PTX gives one.
        instruction: String,
    },
    /// Two threads of a block accessed the same byte of shared memory (or of global memory,
    /// when the launch checks it) between two barriers, at least one storing, without
    /// atomics: on a GPU the result would depend on the threads' timing. The launch stops at
    /// the second access.
    Race(Box<DataRace>),
    /// A thread loaded (or updated atomically) a shared byte that no thread of its block has
    /// written since the block started: on a GPU its value is undefined (whatever an earlier
    /// block left there), though the simulator's shared memory starts zeroed. The launch
    /// stops at that access ([`crate::SimOptions::uninit_shared_check`] turns the check off).
    UninitializedShared {
        /// The kernel's name.
        kernel: String,
        /// The block's index (x, y, z).
        block: [u32; 3],
        /// The thread's index in its block (x, y, z).
        thread: [u32; 3],
        /// The first such byte's offset in the block's shared memory.
        offset: u64,
        /// The instruction's PTX text.
        instruction: String,
        /// Its source position (`file:line:column`), when the PTX has `.loc` directives.
        source: Option<String>,
    },
    /// A thread executed `trap` (CUDA's `__trap()`), called a device function deeper than
    /// the simulator's recursion limit, or took a `brx.idx` with an index outside its list
    /// of targets (undefined in the PTX ISA; the instruction's text then names the index and
    /// the list's length): the launch stops, as a GPU's kernel aborts.
    Trap {
        /// The kernel's name.
        kernel: String,
        /// The block's index (x, y, z).
        block: [u32; 3],
        /// The thread's index in its block (x, y, z).
        thread: [u32; 3],
        /// The instruction's PTX text.
        instruction: String,
        /// Its source position (`file:line:column`), when the PTX has `.loc` directives.
        source: Option<String>,
    },
    /// The host cannot hold an allocation of simulated device memory (a buffer, or a
    /// module's `.global`/`.const` variable): simulated device memory is host memory.
    OutOfMemory {
        /// The size asked for.
        bytes: u64,
    },
    /// A host-side memory operation (`read`, `write`, `copy`, `free`) named an address
    /// range that is not inside one live allocation.
    InvalidAddress {
        /// The first address of the offending range.
        address: u64,
        /// What is wrong.
        message: String,
    },
}

/// Where a data race happened ([`SimError::Race`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataRace {
    /// The kernel's name.
    pub kernel: String,
    /// The block's index (x, y, z).
    pub block: [u32; 3],
    /// The thread whose access conflicts (x, y, z).
    pub thread: [u32; 3],
    /// The thread that accessed the byte before it in the same interval; `None` when
    /// several threads had loaded it.
    pub other: Option<[u32; 3]>,
    /// The byte's offset in the block's shared memory, or its address in global memory.
    pub offset: u64,
    /// Whether the conflicting access was a store (else a load).
    pub stored: bool,
    /// Whether the byte is in global memory (else in shared memory).
    pub global: bool,
    /// The conflicting instruction's PTX text.
    pub instruction: String,
    /// Its source position (`file:line:column`), when the PTX has `.loc` directives.
    pub source: Option<String>,
    /// What the earlier access it conflicts with did to the byte.
    pub other_access: AccessKind,
    /// The earlier access's PTX text (the last one's, when several threads loaded the byte).
    pub other_instruction: String,
    /// Its source position, when the PTX has `.loc` directives.
    pub other_source: Option<String>,
}

/// What an access did to a byte, in a [`DataRace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A plain store.
    Store,
    /// A plain load.
    Load,
    /// An atomic read-modify-write.
    Atomic,
}

impl AccessKind {
    /// The access as a verb of the race's message: `stored to`, `loaded`, `updated atomically`.
    pub fn verb(self) -> &'static str {
        match self {
            AccessKind::Store => "stored to",
            AccessKind::Load => "loaded",
            AccessKind::Atomic => "updated atomically",
        }
    }
}

/// `text` (a message quoting PTX text) with the characters one cannot see escaped as
/// Rust escapes them: control characters but the tab (`\0`, `\u{b}`) and whitespace outside
/// ASCII (`\u{a0}`), so that a message about one shows it.
pub(crate) fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| (c.is_control() && c != '\t') || (c.is_whitespace() && !c.is_ascii());
    if !text.contains(hidden) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if c.is_control() && c != '\t' => out.extend(c.escape_debug()),
            c if hidden(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out.into()
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Parse { line, message } => {
                write!(f, "PTX parse error at line {line}: {}", visible(message))
            }
            SimError::Unsupported { line, what } => write!(
                f,
                "PTX line {line}: the simulator does not support {}; \
                 run this kernel on a CUDA device or avoid that construct",
                visible(what)
            ),
            SimError::Fault { kernel, block, thread, address, instruction, source } => {
                write!(
                    f,
                    "memory fault in kernel `{kernel}`: block ({}, {}, {}) thread ({}, {}, {}) {}",
                    block[0],
                    block[1],
                    block[2],
                    thread[0],
                    thread[1],
                    thread[2],
                    describe_fault(*address, instruction)
                )?;
                match source {
                    Some(s) => write!(f, " ({s})"),
                    None => Ok(()),
                }
            }
            SimError::Race(race) => {
                let DataRace {
                    kernel,
                    block,
                    thread,
                    other,
                    offset,
                    stored,
                    global,
                    instruction,
                    source,
                    other_access,
                    other_instruction,
                    other_source,
                } = &**race;
                let access = if *stored { "stored to" } else { "loaded" };
                let located = |text: &str, source: &Option<String>| match source {
                    Some(s) => format!("`{text}` ({s})"),
                    None => format!("`{text}`"),
                };
                let (here, at_other) =
                    (located(instruction, source), located(other_instruction, other_source));
                let earlier = match other {
                    Some(o) => format!(
                        "thread ({}, {}, {}) had {} at {at_other}",
                        o[0],
                        o[1],
                        o[2],
                        other_access.verb()
                    ),
                    None => format!("several threads had loaded (the last at {at_other})"),
                };
                let (memory, byte) = if *global {
                    ("global", format!("global address {offset:#x}"))
                } else {
                    ("shared", format!("shared byte {offset}"))
                };
                write!(
                    f,
                    "{memory}-memory race in kernel `{kernel}`: block ({}, {}, {}) thread ({}, {}, {}) {access} \
                     {byte} at {here}, which {earlier} since the last barrier",
                    block[0], block[1], block[2], thread[0], thread[1], thread[2]
                )?;
                write!(f, "; separate the accesses with a barrier (`sync_threads()`, or `sync_warp()` within a warp; CUDA C's `__syncthreads()`, `__syncwarp()`), or use atomics")
            }
            SimError::UninitializedShared { kernel, block, thread, offset, instruction, source } => {
                write!(
                    f,
                    "read of uninitialised shared memory in kernel `{kernel}`: block ({}, {}, {}) \
                     thread ({}, {}, {}) read shared byte {offset}, which no thread of the block \
                     has written since the block started, at `{instruction}`",
                    block[0], block[1], block[2], thread[0], thread[1], thread[2]
                )?;
                if let Some(s) = source {
                    write!(f, " ({s})")?;
                }
                write!(
                    f,
                    "; its value is undefined on a GPU (whatever an earlier block left there, or \
                     another thread's store that no barrier orders before this read; the \
                     simulator's zeroed shared memory would hide the bug): store to it first, with \
                     `sync_threads()` between other threads' stores and this read \
                     (`SimOptions::uninit_shared_check` turns this check off)"
                )
            }
            SimError::Trap { kernel, block, thread, instruction, source } => {
                write!(
                    f,
                    "kernel `{kernel}` trapped: block ({}, {}, {}) thread ({}, {}, {}) executed `{instruction}`",
                    block[0], block[1], block[2], thread[0], thread[1], thread[2]
                )?;
                match source {
                    Some(s) => write!(f, " ({s})"),
                    None => Ok(()),
                }
            }
            SimError::BadParams { kernel, message } => {
                write!(f, "bad launch of kernel `{kernel}`: {message}")
            }
            SimError::Barrier { kernel, message } => {
                write!(f, "barrier misuse in kernel `{kernel}`: {message}")
            }
            SimError::StepBudget { kernel, block, thread, budget, block_budget, instruction } => {
                let ran_past = match block_budget {
                    Some(shared) => format!(
                        "ran past the {shared} instructions its block's threads share (each may run \
                         {budget})"
                    ),
                    None => format!(
                        "ran past its step budget of {budget} instruction{}",
                        if *budget == 1 { "" } else { "s" }
                    ),
                };
                write!(
                    f,
                    "kernel `{kernel}`: block ({}, {}, {}) thread ({}, {}, {}) {ran_past} at {instruction} \
                     (an endless loop, or a wait on another thread that cannot make progress first); if \
                     the kernel really needs more, raise the budget: `SimOptions::step_budget` (and \
                     `block_step_budget`), in ptx-runtime `Device::sim_with_step_budget`, or \
                     `PTX_DSL_SIM_STEP_BUDGET` for `Device::sim()`",
                    block[0], block[1], block[2], thread[0], thread[1], thread[2],
                )
            }
            SimError::OutOfMemory { bytes } => write!(
                f,
                "cannot allocate {bytes} bytes of simulated device memory: the host cannot hold \
                 them (the simulator keeps device memory in host memory); allocate less, or run \
                 on a CUDA device"
            ),
            SimError::InvalidAddress { address, message } => {
                write!(f, "invalid device address {address:#x}: {message}")
            }
        }
    }
}

impl std::error::Error for SimError {}

/// What a memory fault at `address` by `instruction` (its PTX text) did, for messages:
/// `accessed address 0x.., which is .., at `st.global.u32 [%rd3], %r2``. The space is
/// read from the instruction: shared, local and (a call's) `.param` addresses are offsets
/// in the block's or the thread's window, anything else a global (or generic) address; a
/// copy between two spaces names neither.
pub fn describe_fault(address: u64, instruction: &str) -> String {
    let two_spaces = [".shared", ".global", ".local"].iter().filter(|s| instruction.contains(*s)).count() > 1;
    let (place, what) = if two_spaces {
        // A copy between spaces (`cp.async.ca.shared.global`): either side may have missed.
        (
            format!("address {address:#x}"),
            "outside the memory one side of the copy may reach (a global address outside every \
             live allocation, or an offset past the block's shared memory), or misaligned for the \
             access size",
        )
    } else if instruction.contains(".shared") {
        (
            format!("offset {address:#x} of the block's shared memory"),
            "past the shared memory the kernel declares and the launch gives it (`shared_bytes` for \
             a dynamic array), or misaligned for the access size",
        )
    } else if instruction.contains(".local") {
        (
            format!("offset {address:#x} of the thread's local memory"),
            "past the local memory the kernel declares, or misaligned for the access size",
        )
    } else if instruction.contains(".param") {
        // A call sequence's parameters, which the simulator keeps in the thread's local memory.
        (
            format!("offset {address:#x} of the thread's call parameters (`.param` space)"),
            "past the call parameters and local arrays the thread declares, or misaligned for the \
             access size (a vector access must be aligned to the whole vector's size, which a \
             parameter declared with a smaller `.align` does not promise past its start)",
        )
    } else {
        (
            format!("address {address:#x}"),
            "outside every live allocation (an index past a buffer's end, or a pointer that is \
             no buffer's), or misaligned for the access size",
        )
    };
    let text = instruction.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("accessed {place}, which is {what}, at `{text}`")
}
