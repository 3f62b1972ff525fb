//! The verifier: checks a [`KernelIr`] for everything the typed builder cannot rule out, so
//! the printer never writes PTX that ptxas rejects. It checks operand types against each
//! instruction's type, the modifier combinations PTX allows, parameter and shared-array
//! references, label placement, identifiers, and that every register is defined on every
//! path before it is read.

use std::fmt;

use crate::ir::{
    AddrBase, Address, AtomOp, BinaryOp, CvtRound, FloatMode, Instr, KernelIr, Label, Operand, PrintArg,
    SharedId, Space, StringId, UnaryOp, VReg, VecWidth, VoteMode,
};
use crate::print::instr_text;
use crate::types::{PtxType, TypeClass};

/// Declares [`Rule`] and [`Rule::ALL`] from one list, so a new rule is in `ALL` (and in
/// the test that requires a rejected and an accepted kernel for every rule) by construction.
macro_rules! rules {
    ($($(#[doc = $doc:literal])+ $name:ident,)+) => {
        /// One rule the verifier enforces. Every [`VerifyError`] names the rule it broke, and
        /// `ptx-core/tests/verify_rules.rs` holds a kernel that breaks each rule and one that
        /// keeps it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[doc = $doc])+ $name,)+
        }

        impl Rule {
            /// Every rule, in the order they are declared.
            pub const ALL: &'static [Rule] = &[$(Rule::$name,)+];
        }
    };
}

rules! {
    /// The kernel's name is a PTX identifier, none PTX or the printer reserves (`WARP_SZ`,
    /// `vprintf`, a label's `$L<n>`); in a module ([`verify_module`]), no other kernel's, nor
    /// one the printer gives a kernel's strings or dynamic shared array.
    KernelName,
    /// Parameter names are PTX identifiers, each used once.
    ParamName,
    /// No parameter is a predicate or a `.bf16`, and pointer parameters are `.u64`.
    ParamType,
    /// The parameters, each at its alignment, fit the 4 352 bytes of parameter space every
    /// target gives a kernel ([`PARAM_SPACE_BYTES`]).
    ParamSpace,
    /// Shared arrays are aligned to a power of two of at most 2^30.
    SharedAlignment,
    /// A static shared array has at least one byte.
    SharedNonEmpty,
    /// A kernel has at most one dynamic shared array.
    OneDynamicShared,
    /// The static shared arrays, laid out in order at their alignments, fit in 48 KiB.
    SharedLimit,
    /// There are no registers of the memory-only byte types.
    NoByteRegisters,
    /// Each label is placed at most once.
    LabelPlacedOnce,
    /// The body ends in `ret` or an unconditional branch.
    EndsInRetOrBranch,
    /// The body has at most [`MAX_INSTRUCTIONS`] instructions.
    InstructionLimit,
    /// The builder refused nothing it was asked to build ([`KernelIr::refusal`]).
    NothingRefused,
    /// A register whose range the builder relied on is written exactly once.
    AssumptionWrittenOnce,
    /// Every register read is written on every path from the entry before it.
    DefinedBeforeUse,
    /// Every branch target is placed somewhere in the body.
    BranchTargetPlaced,
    /// Labels used by branches and placements were allocated.
    LabelAllocated,
    /// Every register an instruction names is declared (its index is below the count).
    RegisterDeclared,
    /// A register operand's type fits the instruction's type.
    RegisterType,
    /// The register of a byte load or store is a 16- or 32-bit integer register.
    ByteRegister,
    /// An immediate operand has the instruction's class and width.
    ImmediateType,
    /// A global address is in a 64-bit integer register, a shared one in a 32- or 64-bit one.
    AddressRegister,
    /// A shared array is addressed only in the `.shared` space.
    SharedArraySpace,
    /// Every shared array referenced is declared.
    SharedArrayDeclared,
    /// Every parameter read is declared.
    ParamDeclared,
    /// `ld.param` reads a parameter with its declared type.
    ParamReadType,
    /// `mov` does not take `.f16`/`.bf16` (16-bit floats move as `.b16`).
    MovType,
    /// `mul.wide` takes a 16- or 32-bit integer type.
    MulWideType,
    /// `mad.lo` takes an integer type.
    MadType,
    /// `fma` takes `.f32` or `.f64`.
    FmaType,
    /// `fma` takes an IEEE rounding modifier.
    FmaRounding,
    /// `setp` compares neither predicates nor 16-bit floats.
    SetpType,
    /// The unordered and number-only comparisons apply to floats only.
    SetpFloatComparison,
    /// Bit types are compared with `eq`/`ne` only.
    SetpBitComparison,
    /// `selp` selects 16-bit-or-wider non-predicate, non-half values.
    SelpType,
    /// Barrier ids are 0 to 15.
    BarrierId,
    /// Memory accesses are not of predicates, and 16-bit floats are accessed as `.b16`.
    MemoryType,
    /// `.v2` needs at most 64-bit elements, `.v4` at most 32-bit ones.
    VectorWidth,
    /// Each `atom` operation takes the types PTX defines for it.
    AtomType,
    /// Only `atom.cas` takes a second value, and it always does.
    AtomCasOperands,
    /// The `shfl` clamp operand is below 0x2000.
    ShflClamp,
    /// `bar.warp.sync` has at least one member lane.
    WarpSyncMask,
    /// Every `printf` format and choice string is declared.
    PrintfString,
    /// A string (a `printf` format or choice) has at least one byte, its terminating NUL.
    StringNotEmpty,
    /// A `printf` value is passed as `.u32 .s32 .u64 .s64` or `.f64`.
    PrintfArgType,
    /// A `printf` argument is aligned to its size and inside the argument buffer.
    PrintfArgSlot,
    /// `neg` and `abs` take a signed integer, `.f32` or `.f64`.
    NegAbsType,
    /// `not` takes an integer, bit or predicate type.
    NotType,
    /// `neg`, `abs` and `not` take no float modifier.
    UnaryNoModifier,
    /// `sqrt` and `rcp` take `.f32` or `.f64`.
    SqrtRcpType,
    /// `sqrt` and `rcp` take an IEEE rounding modifier (or `.approx` for `.f32`).
    SqrtRcpRounding,
    /// `rsqrt`, `ex2`, `lg2`, `sin` and `cos` exist only as `.approx.f32`.
    ApproxOnly,
    /// Binary float arithmetic is `.f32` or `.f64` (no 16-bit float forms).
    BinaryFloatType,
    /// Float `add`, `sub`, `mul` and `div` carry an explicit rounding modifier
    /// (`div.approx`/`div.full` for `.f32` only).
    FloatRounding,
    /// A binary float operation exists (`min`/`max` without modifiers, no bitwise float ops).
    BinaryFloatForm,
    /// Integer and bit operations take no float modifier.
    IntNoFloatModifier,
    /// A binary integer operation exists for its type.
    BinaryIntType,
    /// `cvt` does not convert predicates.
    CvtPredicate,
    /// `cvt` takes typed operands, not bit types.
    CvtBitTypes,
    /// `.f16`/`.bf16` convert only to and from `.f32`.
    CvtHalfPartner,
    /// To a 16-bit float takes `.rn`; from one, no modifier; neither takes `.sat`.
    CvtHalfRounding,
    /// Each conversion takes the rounding modifiers PTX defines for it.
    CvtRounding,
    /// `.sat` on an integer conversion only where the value can overflow.
    CvtSaturation,
}

/// What is wrong with a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyErrorKind {
    /// A register is read on some path before any instruction writes it.
    UseBeforeDef {
        /// The register, as printed.
        reg: String,
    },
    /// A branch targets a label that is never placed.
    LabelNeverPlaced {
        /// The label's number.
        label: u32,
    },
    /// A label is placed twice.
    LabelPlacedTwice {
        /// The label's number.
        label: u32,
    },
    /// `ld.param` reads a parameter with another type than it was declared with.
    ParamType {
        /// The parameter's name.
        param: String,
        /// Its declared type.
        declared: PtxType,
        /// The type the instruction reads.
        read_as: PtxType,
    },
    /// An operand's type does not fit the instruction.
    OperandType {
        /// Which operand (`"dst"`, `"a"`, ...).
        operand: &'static str,
        /// What the instruction needs.
        expected: String,
        /// The operand's type.
        found: PtxType,
    },
    /// A combination of instruction, type and modifiers PTX does not have.
    InvalidForm {
        /// Why.
        reason: String,
    },
    /// A reference to a parameter, shared array, register or label that does not exist.
    UnknownReference {
        /// What was referenced.
        what: String,
    },
    /// A kernel or parameter name that is not a PTX identifier, or a duplicate parameter name.
    BadName {
        /// The name.
        name: String,
    },
    /// The body does not end in `ret` or an unconditional branch.
    FallsOffEnd,
    /// The body has more than [`MAX_INSTRUCTIONS`] instructions.
    TooManyInstructions,
    /// The builder refused to build something it was asked for ([`KernelIr::refusal`]).
    Refused {
        /// Why, and what to do instead.
        reason: &'static str,
    },
    /// A register whose proven range the builder relied on ([`KernelIr::assumptions`]) is
    /// written more than once (or never), so the range may not hold where it is read.
    AssumptionBroken {
        /// The register, as printed.
        reg: String,
    },
}

/// A verification failure: the kernel, the offending instruction (index and text) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The kernel's name.
    pub kernel: String,
    /// Index of the instruction in the body, if the error is about one.
    pub index: Option<u32>,
    /// The instruction as it would print.
    pub instr: Option<Box<str>>,
    /// The source position of the statement the instruction implements
    /// (`file:line:column`), for kernels that carry source notes (`#[ptx_kernel]` ones).
    pub source: Option<Box<str>>,
    /// The rule the kernel breaks.
    pub rule: Rule,
    /// What is wrong.
    pub kind: VerifyErrorKind,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`", self.kernel)?;
        if let (Some(i), Some(text)) = (self.index, &self.instr) {
            write!(f, ", instruction {i} (`{text}`)")?;
        }
        if let Some(source) = &self.source {
            write!(f, " at {source}")?;
        }
        f.write_str(": ")?;
        match &self.kind {
            VerifyErrorKind::UseBeforeDef { reg } => {
                write!(f, "register {reg} is read before it is written on some path")
            }
            VerifyErrorKind::LabelNeverPlaced { label } => {
                write!(f, "branch to label $L{label}, which is never placed")
            }
            VerifyErrorKind::LabelPlacedTwice { label } => {
                write!(f, "label $L{label} is placed twice")
            }
            VerifyErrorKind::ParamType { param, declared, read_as } => {
                write!(f, "parameter `{param}` is declared {declared} but read as {read_as}")
            }
            VerifyErrorKind::OperandType { operand, expected, found } => {
                write!(f, "operand `{operand}` has type {found}, but the instruction needs {expected}")
            }
            VerifyErrorKind::InvalidForm { reason } => write!(f, "{reason}"),
            VerifyErrorKind::UnknownReference { what } => write!(f, "{what} does not exist"),
            VerifyErrorKind::BadName { name } => {
                write!(f, "`{name}` is not a valid PTX identifier or is used twice")
            }
            VerifyErrorKind::FallsOffEnd => {
                f.write_str("the body does not end in `ret` or an unconditional branch")
            }
            VerifyErrorKind::Refused { reason } => f.write_str(reason),
            VerifyErrorKind::TooManyInstructions => write!(
                f,
                "the body has more than {MAX_INSTRUCTIONS} instructions (this one is the first over the \
                 limit): an `#[unroll]` loop over a large count? Use a runtime loop"
            ),
            VerifyErrorKind::AssumptionBroken { reg } => write!(
                f,
                "`{reg}` must be written exactly once: the code built after its definition relied on \
                 that value's range"
            ),
        }
    }
}

impl std::error::Error for VerifyError {}

/// The most instructions a kernel body may have: far above any real kernel, a bound on
/// what an `#[unroll]` loop over a runaway count builds (it stops there,
/// `ptx_dsl::lang::KernelCtx::unroll_copy`) before ptxas or the simulator
/// would take it in.
pub const MAX_INSTRUCTIONS: usize = 1 << 18;

/// Checks `k`; `Ok(())` means the printer's output is valid PTX.
pub fn verify(k: &KernelIr) -> Result<(), VerifyError> {
    // First: what the builder refused is why the rest may be unfinished (an `#[unroll]`
    // loop stopped past the instruction limit).
    if let Some(refusal) = &k.refusal {
        return Err(VerifyError {
            kernel: k.name.clone(),
            index: None,
            instr: None,
            source: refusal.source.as_deref().map(Box::from),
            rule: Rule::NothingRefused,
            kind: VerifyErrorKind::Refused { reason: refusal.reason },
        });
    }
    if k.body.len() > MAX_INSTRUCTIONS {
        return Err(error_at(
            k,
            MAX_INSTRUCTIONS,
            Rule::InstructionLimit,
            VerifyErrorKind::TooManyInstructions,
        ));
    }
    check_names(k)?;
    check_no_byte_registers(k)?;
    let mut placed = vec![false; k.label_count as usize];
    for (i, instr) in k.body.iter().enumerate() {
        check(k, instr).map_err(|v| error_at(k, i, v.rule, v.kind))?;
        if let Instr::Label(l) = instr {
            if std::mem::replace(&mut placed[l.0 as usize], true) {
                return Err(error_at(
                    k,
                    i,
                    Rule::LabelPlacedOnce,
                    VerifyErrorKind::LabelPlacedTwice { label: l.0 },
                ));
            }
        }
    }
    match k.body.last() {
        Some(Instr::Ret) | Some(Instr::Bra { guard: None, .. }) => {}
        _ => return Err(kernel_error(k, Rule::EndsInRetOrBranch, VerifyErrorKind::FallsOffEnd)),
    }
    check_assumptions(k)?;
    check_definitions(k)
}

/// Checks kernels meant for one module ([`crate::print::module_ptx`]): each with [`verify`],
/// and the names the module declares at its scope all distinct — the kernels' own and those
/// the printer gives their strings (`<kernel>_str<N>`) and dynamic shared arrays
/// (`<kernel>_smem<N>`): a kernel named `a_str0` beside a kernel `a` that prints is an error.
pub fn verify_module(kernels: &[KernelIr]) -> Result<(), VerifyError> {
    let mut declared = std::collections::HashSet::new();
    for k in kernels {
        verify(k)?;
        for name in crate::print::module_scope_names(k) {
            if !declared.insert(name.clone()) {
                return Err(kernel_error(k, Rule::KernelName, VerifyErrorKind::BadName { name }));
            }
        }
    }
    Ok(())
}

/// Each register in [`KernelIr::assumptions`] is written exactly once in the whole body.
fn check_assumptions(k: &KernelIr) -> Result<(), VerifyError> {
    // One walk of the body finds, for each assumed register, the first two instructions
    // that write it.
    let mut writes = vec![AssumedWrites::default(); k.assumptions.len()];
    for (i, instr) in k.body.iter().enumerate() {
        instr.visit_defs(|r| {
            for (_, w) in k.assumptions.iter().zip(&mut writes).filter(|(&a, _)| a == r) {
                w.note(i);
            }
        });
    }
    for (&reg, w) in k.assumptions.iter().zip(&writes) {
        let kind =
            || VerifyErrorKind::AssumptionBroken { reg: format!("%{}{}", reg.ty.reg_prefix(), reg.index) };
        match *w {
            AssumedWrites { first: None, .. } => {
                return Err(kernel_error(k, Rule::AssumptionWrittenOnce, kind()));
            }
            AssumedWrites { second: Some(second), .. } => {
                return Err(error_at(k, second, Rule::AssumptionWrittenOnce, kind()));
            }
            AssumedWrites { .. } => {}
        }
    }
    Ok(())
}

/// The first two instructions writing one assumed register, as [`check_assumptions`] walks
/// the body.
#[derive(Clone, Copy, Default)]
struct AssumedWrites {
    first: Option<usize>,
    second: Option<usize>,
}

impl AssumedWrites {
    /// Notes that instruction `i` writes the register (an instruction writing it twice is
    /// one write).
    fn note(&mut self, i: usize) {
        match self.first {
            None => self.first = Some(i),
            Some(first) if first != i && self.second.is_none() => self.second = Some(i),
            Some(_) => {}
        }
    }
}

/// Rejects registers of the memory-only byte types, which PTX code cannot compute with.
fn check_no_byte_registers(k: &KernelIr) -> Result<(), VerifyError> {
    match PtxType::MEMORY_ONLY.into_iter().find(|&t| k.reg_count(t) > 0) {
        None => Ok(()),
        Some(t) => Err(kernel_error(
            k,
            Rule::NoByteRegisters,
            VerifyErrorKind::InvalidForm {
                reason: format!(
                    "there are no {t} registers: hold bytes in 16- or 32-bit integer registers \
                     (ld{t} extends into one, st{t} stores its low byte)"
                ),
            },
        )),
    }
}

/// An error about the kernel as a whole, not one instruction.
fn kernel_error(k: &KernelIr, rule: Rule, kind: VerifyErrorKind) -> VerifyError {
    VerifyError { kernel: k.name.clone(), index: None, instr: None, source: None, rule, kind }
}

/// An error about instruction `index`.
fn error_at(k: &KernelIr, index: usize, rule: Rule, kind: VerifyErrorKind) -> VerifyError {
    VerifyError {
        kernel: k.name.clone(),
        index: u32::try_from(index).ok(),
        instr: Some(instr_text(k, &k.body[index]).into_boxed_str()),
        source: source_of(k, index).map(String::into_boxed_str),
        rule,
        kind,
    }
}

/// The source position of the statement instruction `index` belongs to: the last note at
/// or before it.
pub fn source_of(k: &KernelIr, index: usize) -> Option<String> {
    let note = k.notes.iter().take_while(|n| n.at <= index).last()?;
    Some(crate::fault::location(&note.file, note.line, note.column))
}

/// True for a PTX identifier: a letter then letters, digits, `_` and `$`, or `_` or `$`
/// then at least one of those (`_` and `$` alone are none).
pub fn is_identifier(name: &str) -> bool {
    // Bytes, not chars: every allowed character is ASCII, and a non-ASCII byte fails.
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$';
    match name.as_bytes() {
        [first, rest @ ..] if first.is_ascii_alphabetic() => rest.iter().all(word),
        [b'_' | b'$', rest @ ..] => !rest.is_empty() && rest.iter().all(word),
        _ => false,
    }
}

/// Names a kernel cannot take although they are identifiers: `WARP_SZ` (PTX's predefined
/// constant), `vprintf` (the function `printf` calls, which the printer declares) and the
/// printer's label names (`$L0`, `$L1`, ..).
pub fn is_reserved_kernel_name(name: &str) -> bool {
    let label =
        name.strip_prefix("$L").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    label || name == "WARP_SZ" || name == "vprintf"
}

/// The most bytes of `.param` space the parameters of a kernel [`verify`] accepts may take:
/// 4 352 (4 KiB and 256 bytes), what every target allows. PTX 8.1 and later (which the
/// printer writes for sm_100 and later) allow 32 764 on sm_70 and later, but `verify` does
/// not know the target, so it holds every kernel to the limit all of them share.
pub const PARAM_SPACE_BYTES: u64 = 4352;

fn check_names(k: &KernelIr) -> Result<(), VerifyError> {
    let bad = |rule, name: &str| kernel_error(k, rule, VerifyErrorKind::BadName { name: name.to_string() });
    let invalid = |rule, reason: String| kernel_error(k, rule, VerifyErrorKind::InvalidForm { reason });
    if !is_identifier(&k.name) || is_reserved_kernel_name(&k.name) {
        return Err(bad(Rule::KernelName, &k.name));
    }
    let mut param_bytes = 0u64;
    for (i, p) in k.params.iter().enumerate() {
        if !is_identifier(&p.name) || k.params[..i].iter().any(|q| q.name == p.name) {
            return Err(bad(Rule::ParamName, &p.name));
        }
        if matches!(p.ty, PtxType::Pred | PtxType::Bf16) || (p.is_pointer && p.ty != PtxType::U64) {
            let hint = if p.ty == PtxType::Bf16 { " (pass a bf16 as its `.b16` bits)" } else { "" };
            let reason = format!("parameter `{}` cannot have type {}{hint}", p.name, p.ty);
            return Err(invalid(Rule::ParamType, reason));
        }
        let size = u64::from(p.ty.bits().div_ceil(8));
        param_bytes = param_bytes.next_multiple_of(size) + size;
    }
    if param_bytes > PARAM_SPACE_BYTES {
        let reason = format!(
            "the {} parameters take {param_bytes} bytes, more than the {PARAM_SPACE_BYTES} bytes of parameter \
             space a kernel has: pass the values in a buffer",
            k.params.len()
        );
        return Err(invalid(Rule::ParamSpace, reason));
    }
    if let Some(index) = k.strings.iter().position(|s| s.is_empty()) {
        let reason = format!("string {index} is empty: a string holds at least its terminating NUL");
        return Err(invalid(Rule::StringNotEmpty, reason));
    }
    for (index, s) in k.shared.iter().enumerate() {
        if !s.align.is_power_of_two() || s.align > 1 << 30 {
            let reason = format!("shared alignment {} is not a power of two of at most 2^30", s.align);
            return Err(invalid(Rule::SharedAlignment, reason));
        }
        if s.bytes == 0 && !s.dynamic {
            let reason = format!(
                "shared array {index} (counting from 0 in declaration order) has 0 bytes: give it at least \
                 one element"
            );
            return Err(shared_error(k, index, Rule::SharedNonEmpty, reason));
        }
    }
    if k.shared.iter().filter(|s| s.dynamic).count() > 1 {
        let reason = "more than one dynamic shared array (a kernel has one, sized by the launch)".to_string();
        return Err(invalid(Rule::OneDynamicShared, reason));
    }
    // Laid out in declaration order, each at its alignment (the dynamic one has no size here).
    let ends: Vec<u64> = k
        .shared
        .iter()
        .scan(0u64, |end, s| {
            *end = end.next_multiple_of(u64::from(s.align)) + u64::from(s.bytes);
            Some(*end)
        })
        .collect();
    let total = ends.last().copied().unwrap_or(0);
    if total > MAX_STATIC_SHARED_BYTES {
        // An array of `u32::MAX` bytes is one the builder's caller saturated (its true size
        // does not fit 32 bits).
        let size_text = |bytes: u64| {
            if bytes >= u64::from(u32::MAX) {
                "4 GiB or more".to_string()
            } else {
                format!("{bytes} bytes")
            }
        };
        let sizes: Vec<String> =
            k.shared.iter().filter(|s| !s.dynamic).map(|s| size_text(u64::from(s.bytes))).collect();
        let taken = size_text(total);
        let reason = format!(
            "the kernel's shared arrays take {taken}, more than the {MAX_STATIC_SHARED_BYTES} bytes \
             (48 KiB) of static shared memory a kernel may declare (arrays of {} in declaration \
             order, with their alignment; a block reduction such as `block_sum` adds a scratch array of \
             its own); a larger array needs dynamic shared memory (`shared_dyn`, sized by the launch)",
            sizes.join(", ")
        );
        // Named by the first array that ends past the limit.
        let first_over = ends.iter().position(|&end| end > MAX_STATIC_SHARED_BYTES).unwrap_or(0);
        return Err(shared_error(k, first_over, Rule::SharedLimit, reason));
    }
    Ok(())
}

/// An error about shared array `index`, at the first instruction that takes its address
/// (where the source declares it: its statement's Rust line), or about the kernel when none
/// does.
fn shared_error(k: &KernelIr, index: usize, rule: Rule, reason: String) -> VerifyError {
    let id = SharedId(index as u32);
    let names_it = |instr: &Instr| match instr {
        Instr::SharedAddr { shared, .. } => *shared == id,
        Instr::Ld { addr, .. } | Instr::St { addr, .. } | Instr::Atom { addr, .. } => {
            addr.base == AddrBase::Shared(id)
        }
        _ => false,
    };
    let kind = VerifyErrorKind::InvalidForm { reason };
    match k.body.iter().position(names_it) {
        Some(at) => error_at(k, at, rule, kind),
        None => kernel_error(k, rule, kind),
    }
}

/// The most static `.shared` memory one kernel may declare (48 KiB on every target;
/// more needs dynamic shared memory and an opt-in at launch).
pub const MAX_STATIC_SHARED_BYTES: u64 = 48 * 1024;

/// A broken rule found in one instruction, and what is wrong.
struct Violation {
    rule: Rule,
    kind: VerifyErrorKind,
}

/// The result of one check; the error is boxed so the common `Ok` path stays one word.
type Check = Result<(), Box<Violation>>;

/// The violation of `rule` described by `kind`.
fn broken(rule: Rule, kind: VerifyErrorKind) -> Box<Violation> {
    Box::new(Violation { rule, kind })
}

/// The violation of `rule` by an instruction form PTX does not have, for `reason`.
fn invalid(rule: Rule, reason: impl Into<String>) -> Box<Violation> {
    broken(rule, VerifyErrorKind::InvalidForm { reason: reason.into() })
}

/// Ok when `ok` holds, else the violation of `rule` for the reason given.
#[inline]
fn require(rule: Rule, ok: bool, reason: impl FnOnce() -> String) -> Check {
    if ok {
        Ok(())
    } else {
        Err(invalid(rule, reason()))
    }
}

/// Checks that register `r` is declared.
#[inline]
fn reg_declared(k: &KernelIr, r: VReg) -> Check {
    if r.index < k.reg_count(r.ty) {
        Ok(())
    } else {
        Err(undeclared(r))
    }
}

/// The violation of a register that is not declared.
#[cold]
#[inline(never)]
fn undeclared(r: VReg) -> Box<Violation> {
    let what = format!("register %{}{}", r.ty.reg_prefix(), r.index);
    broken(Rule::RegisterDeclared, VerifyErrorKind::UnknownReference { what })
}

/// `ACCEPTS[ty][reg]`: [`PtxType::accepts_register`] as a table, for the verifier's
/// per-operand check.
const ACCEPTS: [[bool; PtxType::COUNT]; PtxType::COUNT] = {
    let mut t = [[false; PtxType::COUNT]; PtxType::COUNT];
    let mut i = 0;
    while i < PtxType::COUNT {
        let mut j = 0;
        while j < PtxType::COUNT {
            t[i][j] = PtxType::EVERY[i].accepts_register(PtxType::EVERY[j]);
            j += 1;
        }
        i += 1;
    }
    t
};

/// Checks that a register exists and fits an instruction of type `ty`.
#[inline]
fn reg_fits(k: &KernelIr, operand: &'static str, r: VReg, ty: PtxType) -> Check {
    if r.index < k.reg_count(r.ty) && ACCEPTS[ty as usize][r.ty as usize] {
        Ok(())
    } else {
        Err(misfit(k, operand, r, ty))
    }
}

/// The violation of a register that is undeclared or does not fit type `ty`.
#[cold]
#[inline(never)]
fn misfit(k: &KernelIr, operand: &'static str, r: VReg, ty: PtxType) -> Box<Violation> {
    if let Err(undeclared) = reg_declared(k, r) {
        return undeclared;
    }
    broken(
        Rule::RegisterType,
        VerifyErrorKind::OperandType {
            operand,
            expected: format!("a register compatible with {ty}"),
            found: r.ty,
        },
    )
}

/// Checks the register of a byte load or store: a 16- or 32-bit integer (or bits) register,
/// which `ld.u8`/`ld.s8` extend into and `st.u8`/`st.s8` store the low byte of.
fn byte_reg_fits(k: &KernelIr, operand: &'static str, r: VReg, ty: PtxType) -> Check {
    if !r.ty.holds_bytes() {
        return Err(broken(
            Rule::ByteRegister,
            VerifyErrorKind::OperandType {
                operand,
                expected: format!("a 16- or 32-bit integer register for {ty}"),
                found: r.ty,
            },
        ));
    }
    reg_fits(k, operand, r, r.ty)
}

/// Checks a source operand: a fitting register, or an immediate of the same class and width.
#[inline]
fn src_fits(k: &KernelIr, operand: &'static str, o: Operand, ty: PtxType) -> Check {
    match o {
        Operand::Reg(r) => reg_fits(k, operand, r, ty),
        Operand::Imm(i) => {
            let same_kind = i.ty.bits() == ty.bits()
                && i.ty != PtxType::Pred
                && ty != PtxType::Pred
                && (i.ty.is_float() == ty.is_float() || ty.class() == TypeClass::Bits);
            if same_kind {
                Ok(())
            } else {
                Err(immediate_misfit(operand, i.ty, ty))
            }
        }
    }
}

/// The violation of an immediate of type `found` where type `ty` is needed.
#[cold]
#[inline(never)]
fn immediate_misfit(operand: &'static str, found: PtxType, ty: PtxType) -> Box<Violation> {
    let expected = format!("an immediate of type {ty}");
    broken(Rule::ImmediateType, VerifyErrorKind::OperandType { operand, expected, found })
}

fn check_address(k: &KernelIr, space: Space, addr: &Address) -> Check {
    match addr.base {
        AddrBase::Reg(r) => {
            let ok_width = match space {
                Space::Global => r.ty.bits() == 64,
                Space::Shared => r.ty.bits() == 32 || r.ty.bits() == 64,
            };
            reg_declared(k, r)?;
            if !ok_width || !(r.ty.is_int() || r.ty.class() == TypeClass::Bits) {
                return Err(broken(
                    Rule::AddressRegister,
                    VerifyErrorKind::OperandType {
                        operand: "address",
                        expected: format!(
                            "a {} address register",
                            if space == Space::Global { "64-bit" } else { "32- or 64-bit" }
                        ),
                        found: r.ty,
                    },
                ));
            }
            Ok(())
        }
        AddrBase::Shared(s) => {
            if space != Space::Shared {
                return Err(invalid(
                    Rule::SharedArraySpace,
                    "a shared array can only be addressed in the .shared space",
                ));
            }
            shared_declared(k, s)
        }
    }
}

/// Checks one instruction's operand types, modifiers and references against kernel `k`
/// (everything except control flow and definitions, which need the whole body).
pub fn check_instruction(k: &KernelIr, instr: &Instr) -> Result<(), VerifyErrorKind> {
    check(k, instr).map_err(|v| v.kind)
}

/// Checks that shared array `s` is declared.
fn shared_declared(k: &KernelIr, s: SharedId) -> Check {
    if (s.0 as usize) < k.shared.len() {
        Ok(())
    } else {
        let what = format!("shared array {}", s.0);
        Err(broken(Rule::SharedArrayDeclared, VerifyErrorKind::UnknownReference { what }))
    }
}

fn check(k: &KernelIr, instr: &Instr) -> Check {
    match instr {
        Instr::Mov { ty, dst, src } => {
            require(Rule::MovType, !matches!(ty, PtxType::F16 | PtxType::Bf16), || {
                format!("mov{ty} does not exist: move 16-bit floats as .b16")
            })?;
            reg_fits(k, "dst", *dst, *ty)?;
            match (ty, src) {
                // `mov.pred %p, 1` is the one place PTX takes a predicate immediate.
                (PtxType::Pred, Operand::Imm(i)) if i.ty == PtxType::Pred => Ok(()),
                _ => src_fits(k, "src", *src, *ty),
            }
        }
        Instr::Special { dst, .. } | Instr::SharedAddr { dst, .. } => {
            reg_fits(k, "dst", *dst, PtxType::U32)?;
            if let Instr::SharedAddr { shared, .. } = instr {
                shared_declared(k, *shared)?;
            }
            Ok(())
        }
        Instr::LdParam { ty, dst, param } => {
            let p = k.params.get(*param as usize).ok_or_else(|| {
                broken(
                    Rule::ParamDeclared,
                    VerifyErrorKind::UnknownReference { what: format!("parameter {param}") },
                )
            })?;
            if p.ty != *ty {
                return Err(broken(
                    Rule::ParamReadType,
                    VerifyErrorKind::ParamType { param: p.name.clone(), declared: p.ty, read_as: *ty },
                ));
            }
            // A byte parameter is read into a wider integer register, as a byte load is
            // (`ld.param.u8 %rs1, [p]`, which NVRTC writes).
            if ty.is_memory_only() {
                byte_reg_fits(k, "dst", *dst, *ty)
            } else {
                reg_fits(k, "dst", *dst, *ty)
            }
        }
        Instr::CvtaGlobal { dst, src } => {
            reg_fits(k, "dst", *dst, PtxType::U64)?;
            reg_fits(k, "src", *src, PtxType::U64)
        }
        Instr::Unary { op, ty, mode, dst, src } => {
            check_unary(*op, *ty, *mode)?;
            reg_fits(k, "dst", *dst, *ty)?;
            src_fits(k, "src", *src, *ty)
        }
        Instr::Binary { op, ty, mode, dst, a, b } => {
            check_binary(*op, *ty, *mode)?;
            reg_fits(k, "dst", *dst, *ty)?;
            src_fits(k, "a", *a, *ty)?;
            src_fits(k, "b", *b, if op.is_shift() { PtxType::U32 } else { *ty })
        }
        Instr::MulWide { ty, dst, a, b } => {
            require(Rule::MulWideType, ty.is_int() && ty.bits() <= 32, || {
                format!("mul.wide needs a 16- or 32-bit integer type, not {ty}")
            })?;
            let wide = match *ty {
                PtxType::U16 => PtxType::U32,
                PtxType::S16 => PtxType::S32,
                PtxType::U32 => PtxType::U64,
                _ => PtxType::S64,
            };
            reg_fits(k, "dst", *dst, wide)?;
            src_fits(k, "a", *a, *ty)?;
            src_fits(k, "b", *b, *ty)
        }
        Instr::Mad { ty, dst, a, b, c } => {
            require(Rule::MadType, ty.is_int(), || format!("mad.lo needs an integer type, not {ty}"))?;
            reg_fits(k, "dst", *dst, *ty)?;
            src_fits(k, "a", *a, *ty)?;
            src_fits(k, "b", *b, *ty)?;
            src_fits(k, "c", *c, *ty)
        }
        Instr::Fma { ty, mode, dst, a, b, c } => {
            require(Rule::FmaType, ty.is_arith_float(), || format!("fma needs .f32 or .f64, not {ty}"))?;
            require(Rule::FmaRounding, mode.is_ieee_rounding(), || {
                format!("fma needs .rn/.rz/.rm/.rp, not {}", mode.suffix())
            })?;
            reg_fits(k, "dst", *dst, *ty)?;
            src_fits(k, "a", *a, *ty)?;
            src_fits(k, "b", *b, *ty)?;
            src_fits(k, "c", *c, *ty)
        }
        Instr::Cvt { dst_ty, src_ty, round, sat, dst, src } => {
            check_cvt(*dst_ty, *src_ty, *round, *sat)?;
            reg_fits(k, "dst", *dst, *dst_ty)?;
            // ptxas takes no half-precision immediate as `cvt`'s source ("Arguments mismatch").
            if let (Operand::Imm(i), PtxType::F16 | PtxType::Bf16) = (src, src_ty) {
                let expected =
                    format!("a register (`cvt` takes no {src_ty} immediate: move it into one first)");
                return Err(broken(
                    Rule::ImmediateType,
                    VerifyErrorKind::OperandType { operand: "src", expected, found: i.ty },
                ));
            }
            src_fits(k, "src", *src, *src_ty)
        }
        Instr::Setp { cmp, ty, dst, a, b } => {
            require(
                Rule::SetpType,
                *ty != PtxType::Pred && *ty != PtxType::F16 && *ty != PtxType::Bf16,
                || format!("setp cannot compare {ty}"),
            )?;
            require(Rule::SetpFloatComparison, !cmp.is_float_only() || ty.is_float(), || {
                format!("setp.{} applies to floats only", cmp.name())
            })?;
            require(
                Rule::SetpBitComparison,
                ty.class() != TypeClass::Bits || matches!(cmp, crate::ir::Cmp::Eq | crate::ir::Cmp::Ne),
                || format!("bit types can only be compared with eq/ne, not {}", cmp.name()),
            )?;
            reg_fits(k, "dst", *dst, PtxType::Pred)?;
            src_fits(k, "a", *a, *ty)?;
            src_fits(k, "b", *b, *ty)
        }
        Instr::Selp { ty, dst, a, b, pred } => {
            require(
                Rule::SelpType,
                *ty != PtxType::Pred && ty.bits() >= 16 && !matches!(ty, PtxType::F16 | PtxType::Bf16),
                || format!("selp cannot select {ty}"),
            )?;
            reg_fits(k, "dst", *dst, *ty)?;
            src_fits(k, "a", *a, *ty)?;
            src_fits(k, "b", *b, *ty)?;
            reg_fits(k, "pred", *pred, PtxType::Pred)
        }
        Instr::Bra { guard, target } => {
            if let Some(g) = guard {
                reg_fits(k, "guard", g.pred, PtxType::Pred)?;
            }
            label_allocated(k, *target)
        }
        Instr::Label(l) => label_allocated(k, *l),
        Instr::Ret => Ok(()),
        Instr::BarSync { barrier } => {
            require(Rule::BarrierId, *barrier < 16, || format!("barrier {barrier} is not in 0..16"))
        }
        Instr::Ld { guard, space, ty, dsts, addr } | Instr::St { guard, space, ty, srcs: dsts, addr } => {
            if let Some(g) = guard {
                reg_fits(k, "guard", g.pred, PtxType::Pred)?;
            }
            require(Rule::MemoryType, *ty != PtxType::Pred, || "predicates have no memory form".into())?;
            require(Rule::MemoryType, !matches!(ty, PtxType::F16 | PtxType::Bf16), || {
                format!("memory accesses of {ty} are written with .b16")
            })?;
            let width = dsts.width();
            require(
                Rule::VectorWidth,
                width == VecWidth::V1
                    || (width == VecWidth::V2 && ty.bits() <= 64)
                    || (width == VecWidth::V4 && ty.bits() <= 32),
                || format!(".v{} is not available for {ty}", width.count()),
            )?;
            let role = if matches!(instr, Instr::Ld { .. }) { "dst" } else { "src" };
            for r in dsts.as_slice() {
                if ty.is_memory_only() {
                    byte_reg_fits(k, role, *r, *ty)?;
                } else {
                    reg_fits(k, role, *r, ty.reg_decl_type())?;
                }
            }
            check_address(k, *space, addr)
        }
        Instr::Atom { guard, op, space, ty, dst, addr, a, b } => {
            if let Some(g) = guard {
                reg_fits(k, "guard", g.pred, PtxType::Pred)?;
            }
            check_atom_type(*op, *ty)?;
            require(Rule::AtomCasOperands, b.is_some() == (*op == AtomOp::Cas), || {
                "only atom.cas takes a second value".into()
            })?;
            reg_fits(k, "dst", *dst, *ty)?;
            src_fits(k, "a", *a, *ty)?;
            if let Some(b) = b {
                src_fits(k, "b", *b, *ty)?;
            }
            check_address(k, *space, addr)
        }
        Instr::Shfl { dst, src, lane, clamp, .. } => {
            reg_fits(k, "dst", *dst, PtxType::B32)?;
            reg_fits(k, "src", *src, PtxType::B32)?;
            src_fits(k, "lane", *lane, PtxType::U32)?;
            require(Rule::ShflClamp, *clamp < 0x2000, || {
                format!("shfl clamp value {clamp:#x} is out of range")
            })
        }
        Instr::BarWarpSync { mask } => {
            require(Rule::WarpSyncMask, *mask != 0, || "bar.warp.sync with no member lanes".into())
        }
        Instr::Fence { .. } => Ok(()),
        Instr::Printf { format, args } => {
            let string_known = |id: StringId| {
                require(Rule::PrintfString, (id.0 as usize) < k.strings.len(), || {
                    format!("printf string {} is not declared", id.0)
                })
            };
            string_known(*format)?;
            for arg in args {
                let (offset, size) = match *arg {
                    PrintArg::Value { offset, ty, reg } => {
                        require(
                            Rule::PrintfArgType,
                            matches!(
                                ty,
                                PtxType::U32 | PtxType::S32 | PtxType::U64 | PtxType::S64 | PtxType::F64
                            ),
                            || {
                                format!(
                                    "a printf argument is passed as .u32 .s32 .u64 .s64 or .f64, not {ty}"
                                )
                            },
                        )?;
                        reg_fits(k, "printf argument", reg, ty)?;
                        (offset, ty.bytes())
                    }
                    PrintArg::Choice { offset, pred, if_true, if_false } => {
                        reg_fits(k, "printf choice", pred, PtxType::Pred)?;
                        string_known(if_true)?;
                        string_known(if_false)?;
                        (offset, 8)
                    }
                };
                require(
                    Rule::PrintfArgSlot,
                    offset % size == 0 && offset + size <= k.print_buffer_bytes,
                    || {
                        format!(
                        "printf argument at byte {offset} ({size} bytes) is misaligned or outside the {}-byte buffer",
                        k.print_buffer_bytes
                    )
                    },
                )?;
            }
            Ok(())
        }
        Instr::Vote { mode, dst, pred, .. } => {
            let dst_ty = if *mode == VoteMode::Ballot { PtxType::B32 } else { PtxType::Pred };
            reg_fits(k, "dst", *dst, dst_ty)?;
            reg_fits(k, "pred", *pred, PtxType::Pred)
        }
    }
}

/// Checks that label `l` was allocated.
fn label_allocated(k: &KernelIr, l: Label) -> Check {
    require(Rule::LabelAllocated, l.0 < k.label_count, || format!("label $L{} was not allocated", l.0))
}

/// The types each `atom` operation exists for (sm_80's set: no float `min`/`max`).
fn check_atom_type(op: AtomOp, ty: PtxType) -> Check {
    let name = op.suffix().trim_start_matches('.');
    let ok = match op {
        AtomOp::Add => {
            matches!(ty, PtxType::U32 | PtxType::S32 | PtxType::U64 | PtxType::F32 | PtxType::F64)
        }
        AtomOp::Min | AtomOp::Max => matches!(ty, PtxType::U32 | PtxType::S32 | PtxType::U64 | PtxType::S64),
        AtomOp::Cas | AtomOp::Exch | AtomOp::And | AtomOp::Or | AtomOp::Xor => {
            (ty.bits() == 32 || ty.bits() == 64) && ty != PtxType::Pred
        }
    };
    require(Rule::AtomType, ok, || format!("atom.{name} does not exist for {ty}"))
}

fn check_unary(op: UnaryOp, ty: PtxType, mode: Option<FloatMode>) -> Check {
    let name = op.mnemonic();
    match op {
        UnaryOp::Neg | UnaryOp::Abs => {
            let ok = ty.is_signed() || ty.is_arith_float();
            require(Rule::NegAbsType, ok, || format!("{name} does not exist for {ty}"))?;
            require(Rule::UnaryNoModifier, mode.is_none(), || format!("{name} takes no rounding modifier"))
        }
        UnaryOp::Not => {
            require(Rule::NotType, !ty.is_float(), || format!("not does not exist for {ty}"))?;
            require(Rule::UnaryNoModifier, mode.is_none(), || "not takes no modifier".into())
        }
        UnaryOp::Sqrt | UnaryOp::Rcp => {
            require(Rule::SqrtRcpType, ty.is_arith_float(), || {
                format!("{name} needs .f32 or .f64, not {ty}")
            })?;
            match mode {
                Some(m) if m.is_ieee_rounding() => Ok(()),
                Some(FloatMode::Approx) if ty == PtxType::F32 => Ok(()),
                _ => Err(invalid(
                    Rule::SqrtRcpRounding,
                    format!("{name}{} needs .rn/.rz/.rm/.rp (or .approx for .f32)", ty),
                )),
            }
        }
        UnaryOp::Rsqrt | UnaryOp::Ex2 | UnaryOp::Lg2 | UnaryOp::Sin | UnaryOp::Cos => {
            require(Rule::ApproxOnly, ty == PtxType::F32 && mode == Some(FloatMode::Approx), || {
                format!("{name} exists only as {name}.approx.f32")
            })
        }
    }
}

fn check_binary(op: BinaryOp, ty: PtxType, mode: Option<FloatMode>) -> Check {
    let name = op.mnemonic();
    if ty.is_float() {
        require(Rule::BinaryFloatType, ty.is_arith_float(), || {
            format!("{name} is not available for {ty} in this version")
        })?;
        return match (op, mode) {
            (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, Some(m)) if m.is_ieee_rounding() => Ok(()),
            (BinaryOp::Div, Some(m)) if m.is_ieee_rounding() => Ok(()),
            (BinaryOp::Div, Some(FloatMode::Approx | FloatMode::Full)) if ty == PtxType::F32 => Ok(()),
            (BinaryOp::Min | BinaryOp::Max, None) => Ok(()),
            (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div, _) => Err(invalid(
                Rule::FloatRounding,
                format!("{name}{ty} needs an explicit rounding modifier (.rn/.rz/.rm/.rp)"),
            )),
            _ => Err(invalid(Rule::BinaryFloatForm, format!("{name} does not exist for {ty}"))),
        };
    }
    require(Rule::IntNoFloatModifier, mode.is_none(), || format!("{name}{ty} takes no float modifier"))?;
    let ok = match op {
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => ty.bits() >= 16 || ty == PtxType::Pred,
        _ => ty.is_int() || (op.is_shift() && ty.class() == TypeClass::Bits),
    };
    require(Rule::BinaryIntType, ok, || format!("{name} does not exist for {ty}"))
}

fn check_cvt(dst: PtxType, src: PtxType, round: Option<CvtRound>, sat: bool) -> Check {
    let desc = || format!("cvt{}{}", dst, src);
    require(Rule::CvtPredicate, dst != PtxType::Pred && src != PtxType::Pred, || {
        "cvt does not convert predicates".into()
    })?;
    require(Rule::CvtBitTypes, dst.class() != TypeClass::Bits && src.class() != TypeClass::Bits, || {
        format!("{} needs typed operands, not bit types", desc())
    })?;
    let half = |t: PtxType| matches!(t, PtxType::F16 | PtxType::Bf16);
    if half(dst) || half(src) {
        let other = if half(dst) { src } else { dst };
        require(Rule::CvtHalfPartner, other == PtxType::F32, || {
            format!("{}: f16/bf16 convert only to and from f32 in this version", desc())
        })?;
        let want = if half(dst) { Some(CvtRound::Rn) } else { None };
        return require(Rule::CvtHalfRounding, round == want && !sat, || {
            format!("{} needs {}", desc(), if half(dst) { ".rn" } else { "no rounding modifier" })
        });
    }
    // The rounding modifiers each form takes: the one table the folder and the simulator
    // use too.
    crate::eval::cvt_form(dst, src, round).map_err(|reason| invalid(Rule::CvtRounding, reason))?;
    if dst.is_int() && src.is_int() {
        let fits = if dst.is_signed() == src.is_signed() {
            dst.bits() >= src.bits()
        } else {
            !src.is_signed() && dst.bits() > src.bits()
        };
        require(Rule::CvtSaturation, !sat || !fits, || {
            format!("{}: .sat applies only when the value can overflow", desc())
        })?;
    }
    Ok(())
}

/// Definite-assignment analysis over the control-flow graph: every read must be preceded by
/// a write on every path from the entry.
///
/// Register sets are bit rows (one bit per register) in one flat table, a row per basic
/// block. Kernels whose branches all go forward (the common case) are settled in one pass
/// in block order; kernels with loops first iterate the block transfer functions to a
/// fixed point.
#[allow(clippy::needless_range_loop)] // blocks index several parallel tables
fn check_definitions(k: &KernelIr) -> Result<(), VerifyError> {
    let mut base = [0usize; PtxType::COUNT];
    let mut total = 0usize;
    for (slot, b) in base.iter_mut().enumerate() {
        *b = total;
        total += k.reg_counts[slot] as usize;
    }
    let flat = |r: VReg| base[crate::ir::type_slot(r.ty)] + r.index as usize;
    let words = total.div_ceil(64).max(1);

    // Basic blocks: a new block starts at each label and after each branch or ret.
    let mut starts = vec![0usize];
    let mut label_block = vec![usize::MAX; k.label_count as usize];
    for (i, instr) in k.body.iter().enumerate() {
        let start = match instr {
            Instr::Label(_) => i,
            Instr::Bra { .. } | Instr::Ret => i + 1,
            _ => continue,
        };
        if start < k.body.len() && starts.last() != Some(&start) {
            starts.push(start);
        }
        if let Instr::Label(l) = instr {
            label_block[l.0 as usize] = starts.len() - 1;
        }
    }
    let n_blocks = starts.len();
    let block_end = |b: usize| if b + 1 < n_blocks { starts[b + 1] } else { k.body.len() };
    let mut succ = Vec::with_capacity(n_blocks);
    let mut has_back_edge = false;
    for b in 0..n_blocks {
        let fall = (b + 1 < n_blocks).then_some(b + 1);
        let last = block_end(b) - 1;
        let s = match &k.body[last] {
            Instr::Ret => [None, None],
            Instr::Bra { guard, target } => {
                let t = label_block[target.0 as usize];
                if t == usize::MAX {
                    let kind = VerifyErrorKind::LabelNeverPlaced { label: target.0 };
                    return Err(error_at(k, last, Rule::BranchTargetPlaced, kind));
                }
                [Some(t), if guard.is_some() { fall } else { None }]
            }
            _ => [fall, None],
        };
        has_back_edge |= s.iter().flatten().any(|&t| t <= b);
        succ.push(s);
    }

    // ins[b]: registers defined on every path into block b (all ones until a path arrives).
    let mut ins = vec![u64::MAX; n_blocks * words];
    ins[..words].fill(0);
    let row = |b: usize| b * words..(b + 1) * words;
    let mut set = vec![0u64; words];
    if has_back_edge {
        let mut gen = vec![0u64; n_blocks * words];
        for b in 0..n_blocks {
            for instr in &k.body[starts[b]..block_end(b)] {
                instr.visit_defs(|d| {
                    let i = flat(d);
                    gen[b * words + i / 64] |= 1 << (i % 64);
                });
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for b in 0..n_blocks {
                for s in succ[b].into_iter().flatten() {
                    for w in 0..words {
                        let out = ins[b * words + w] | gen[b * words + w];
                        let next = ins[s * words + w] & out;
                        if next != ins[s * words + w] {
                            ins[s * words + w] = next;
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    for b in 0..n_blocks {
        set.copy_from_slice(&ins[row(b)]);
        for i in starts[b]..block_end(b) {
            let instr = &k.body[i];
            let mut undefined = None;
            instr.visit_uses(|u| {
                let j = flat(u);
                if undefined.is_none() && set[j / 64] & (1 << (j % 64)) == 0 {
                    undefined = Some(u);
                }
            });
            if let Some(u) = undefined {
                let reg = format!("%{}{}", u.ty.reg_prefix(), u.index);
                return Err(error_at(k, i, Rule::DefinedBeforeUse, VerifyErrorKind::UseBeforeDef { reg }));
            }
            instr.visit_defs(|d| {
                let j = flat(d);
                set[j / 64] |= 1 << (j % 64);
            });
        }
        if !has_back_edge {
            // Every predecessor of a later block comes earlier, so its in-set is final
            // once all blocks before it have been walked.
            for s in succ[b].into_iter().flatten() {
                for w in 0..words {
                    ins[s * words + w] &= set[w];
                }
            }
        }
    }
    Ok(())
}
