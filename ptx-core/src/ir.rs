//! The kernel as data: virtual registers, labels, operands, the [`Instr`] enum and
//! [`KernelIr`]. Building ([`crate::builder`]), checking ([`crate::verify`]) and printing
//! ([`crate::print`]) are separate passes over these types.

use crate::types::PtxType;

/// An untyped virtual register: its type and its index among registers of that type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg {
    /// The register's declared type.
    pub ty: PtxType,
    /// Index among the kernel's registers of `ty` (printed as `%r3`, `%f0`, ...).
    pub index: u32,
}

/// A branch target. Labels are handles allocated by the builder, never strings, so two
/// labels cannot collide; the printer names them `$L0`, `$L1`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub u32);

/// An immediate with its type; `bits` is the value's bit pattern zero-extended to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Imm {
    /// The immediate's type.
    pub ty: PtxType,
    /// Its bit pattern (for f32, `f32::to_bits`; for s32, the two's complement in the low 32 bits).
    pub bits: u64,
}

impl Imm {
    /// An immediate of type `ty` from a bit pattern, truncated to the type's width.
    pub fn new(ty: PtxType, bits: u64) -> Imm {
        let bits = match ty.bits() {
            1 => bits & 1,
            16 => bits & 0xffff,
            32 => bits & 0xffff_ffff,
            _ => bits,
        };
        Imm { ty, bits }
    }
}

/// A source operand: a register or an immediate folded into the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A virtual register.
    Reg(VReg),
    /// An immediate value.
    Imm(Imm),
}

impl Operand {
    /// The register, if this operand is one.
    pub fn reg(self) -> Option<VReg> {
        match self {
            Operand::Reg(r) => Some(r),
            Operand::Imm(_) => None,
        }
    }

    /// The type of the register or immediate.
    pub fn ty(self) -> PtxType {
        match self {
            Operand::Reg(r) => r.ty,
            Operand::Imm(i) => i.ty,
        }
    }
}

impl From<VReg> for Operand {
    fn from(r: VReg) -> Operand {
        Operand::Reg(r)
    }
}

/// Rounding and precision modifiers of float instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatMode {
    /// `.rn`: round to nearest even (IEEE default).
    Rn,
    /// `.rz`: round toward zero.
    Rz,
    /// `.rm`: round toward minus infinity.
    Rm,
    /// `.rp`: round toward plus infinity.
    Rp,
    /// `.approx`: the fast hardware approximation.
    Approx,
    /// `.full`: `div.full.f32`, max 2 ulp.
    Full,
}

impl FloatMode {
    /// The modifier as printed, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            FloatMode::Rn => ".rn",
            FloatMode::Rz => ".rz",
            FloatMode::Rm => ".rm",
            FloatMode::Rp => ".rp",
            FloatMode::Approx => ".approx",
            FloatMode::Full => ".full",
        }
    }

    /// True for the four IEEE rounding modes.
    pub fn is_ieee_rounding(self) -> bool {
        matches!(self, FloatMode::Rn | FloatMode::Rz | FloatMode::Rm | FloatMode::Rp)
    }
}

/// One-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `neg`: two's-complement or float negation.
    Neg,
    /// `abs`.
    Abs,
    /// `not`: bitwise (or predicate) complement.
    Not,
    /// `sqrt` (`.rn`..`.rp` or `.approx`).
    Sqrt,
    /// `rcp` (`.rn`..`.rp` or `.approx`).
    Rcp,
    /// `rsqrt.approx`.
    Rsqrt,
    /// `ex2.approx`: 2^x.
    Ex2,
    /// `lg2.approx`: log2(x).
    Lg2,
    /// `sin.approx`.
    Sin,
    /// `cos.approx`.
    Cos,
}

impl UnaryOp {
    /// The mnemonic.
    pub fn mnemonic(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Not => "not",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rcp => "rcp",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Ex2 => "ex2",
            UnaryOp::Lg2 => "lg2",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
        }
    }
}

/// Two-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul` (`mul.lo` for integers).
    Mul,
    /// `mul.hi`: high half of the full product (integers).
    MulHi,
    /// `div`.
    Div,
    /// `rem` (integers).
    Rem,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `shl`: the shift amount is always a `.u32` operand.
    Shl,
    /// `shr`: arithmetic for signed types, logical otherwise; amount is `.u32`.
    Shr,
}

impl BinaryOp {
    /// The mnemonic, without type or modifiers (`mul` prints as `mul.lo` for integers).
    pub fn mnemonic(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::MulHi => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
        }
    }

    /// True when the second operand is a shift amount (`.u32`) rather than of the instruction type.
    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::Shr)
    }
}

/// Rounding modifiers of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtRound {
    /// `.rn`: to nearest even float.
    Rn,
    /// `.rz`: float toward zero.
    Rz,
    /// `.rm`: float toward minus infinity.
    Rm,
    /// `.rp`: float toward plus infinity.
    Rp,
    /// `.rni`: to nearest even integer.
    Rni,
    /// `.rzi`: integer toward zero.
    Rzi,
    /// `.rmi`: integer toward minus infinity (floor).
    Rmi,
    /// `.rpi`: integer toward plus infinity (ceil).
    Rpi,
}

impl CvtRound {
    /// The modifier as printed, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            CvtRound::Rn => ".rn",
            CvtRound::Rz => ".rz",
            CvtRound::Rm => ".rm",
            CvtRound::Rp => ".rp",
            CvtRound::Rni => ".rni",
            CvtRound::Rzi => ".rzi",
            CvtRound::Rmi => ".rmi",
            CvtRound::Rpi => ".rpi",
        }
    }

    /// True for the integer-rounding modes (`.rni .rzi .rmi .rpi`).
    pub fn is_integer_rounding(self) -> bool {
        matches!(self, CvtRound::Rni | CvtRound::Rzi | CvtRound::Rmi | CvtRound::Rpi)
    }
}

/// Comparison operators of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `lt` (for unsigned types: below).
    Lt,
    /// `le`.
    Le,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
    /// `equ`: equal or unordered (floats).
    Equ,
    /// `neu`: not equal or unordered.
    Neu,
    /// `ltu`: less or unordered.
    Ltu,
    /// `leu`.
    Leu,
    /// `gtu`.
    Gtu,
    /// `geu`.
    Geu,
    /// `num`: both operands are numbers.
    Num,
    /// `nan`: either operand is NaN.
    Nan,
}

impl Cmp {
    /// Every comparison.
    pub const ALL: [Cmp; 14] = [
        Cmp::Eq,
        Cmp::Ne,
        Cmp::Lt,
        Cmp::Le,
        Cmp::Gt,
        Cmp::Ge,
        Cmp::Equ,
        Cmp::Neu,
        Cmp::Ltu,
        Cmp::Leu,
        Cmp::Gtu,
        Cmp::Geu,
        Cmp::Num,
        Cmp::Nan,
    ];

    /// The mnemonic suffix.
    pub fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
            Cmp::Equ => "equ",
            Cmp::Neu => "neu",
            Cmp::Ltu => "ltu",
            Cmp::Leu => "leu",
            Cmp::Gtu => "gtu",
            Cmp::Geu => "geu",
            Cmp::Num => "num",
            Cmp::Nan => "nan",
        }
    }

    /// True for the comparisons only floats have (unordered forms, `num`, `nan`).
    pub fn is_float_only(self) -> bool {
        !matches!(self, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge)
    }
}

/// Special registers readable with `mov`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.x`.
    TidX,
    /// `%tid.y`.
    TidY,
    /// `%tid.z`.
    TidZ,
    /// `%ntid.x`: block size.
    NtidX,
    /// `%ntid.y`.
    NtidY,
    /// `%ntid.z`.
    NtidZ,
    /// `%ctaid.x`: block index.
    CtaidX,
    /// `%ctaid.y`.
    CtaidY,
    /// `%ctaid.z`.
    CtaidZ,
    /// `%nctaid.x`: grid size in blocks.
    NctaidX,
    /// `%nctaid.y`.
    NctaidY,
    /// `%nctaid.z`.
    NctaidZ,
    /// `%laneid`.
    LaneId,
    /// `%dynamic_smem_size`: the bytes of dynamic shared memory the launch gave the block.
    DynamicSmemSize,
}

impl SpecialReg {
    /// Every special register.
    pub const ALL: [SpecialReg; 14] = [
        SpecialReg::TidX,
        SpecialReg::TidY,
        SpecialReg::TidZ,
        SpecialReg::NtidX,
        SpecialReg::NtidY,
        SpecialReg::NtidZ,
        SpecialReg::CtaidX,
        SpecialReg::CtaidY,
        SpecialReg::CtaidZ,
        SpecialReg::NctaidX,
        SpecialReg::NctaidY,
        SpecialReg::NctaidZ,
        SpecialReg::LaneId,
        SpecialReg::DynamicSmemSize,
    ];

    /// The register's PTX name.
    pub fn ptx_name(self) -> &'static str {
        match self {
            SpecialReg::TidX => "%tid.x",
            SpecialReg::TidY => "%tid.y",
            SpecialReg::TidZ => "%tid.z",
            SpecialReg::NtidX => "%ntid.x",
            SpecialReg::NtidY => "%ntid.y",
            SpecialReg::NtidZ => "%ntid.z",
            SpecialReg::CtaidX => "%ctaid.x",
            SpecialReg::CtaidY => "%ctaid.y",
            SpecialReg::CtaidZ => "%ctaid.z",
            SpecialReg::NctaidX => "%nctaid.x",
            SpecialReg::NctaidY => "%nctaid.y",
            SpecialReg::NctaidZ => "%nctaid.z",
            SpecialReg::LaneId => "%laneid",
            SpecialReg::DynamicSmemSize => "%dynamic_smem_size",
        }
    }
}

/// A memory state space for loads, stores and atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.global`: device memory, addressed by 64-bit registers.
    Global,
    /// `.shared`: per-block memory, addressed by 32-bit registers or a shared array.
    Shared,
}

impl Space {
    /// The state space as printed, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            Space::Global => ".global",
            Space::Shared => ".shared",
        }
    }
}

/// Index of a `.shared` array declared on the kernel ([`KernelIr::shared`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedId(pub u32);

/// The base of a memory address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// A register holding the address (`.u64` for global, `.u32` for shared).
    Reg(VReg),
    /// A shared array by name.
    Shared(SharedId),
}

/// A memory operand `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// Register or symbol.
    pub base: AddrBase,
    /// Constant byte offset.
    pub offset: i32,
}

/// How many elements a load or store moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VecWidth {
    /// A scalar access.
    V1,
    /// `.v2`.
    V2,
    /// `.v4`.
    V4,
}

impl VecWidth {
    /// Number of elements.
    pub fn count(self) -> usize {
        match self {
            VecWidth::V1 => 1,
            VecWidth::V2 => 2,
            VecWidth::V4 => 4,
        }
    }

    /// The vector width for `len` elements, if PTX has one.
    pub fn from_len(len: usize) -> Option<VecWidth> {
        match len {
            1 => Some(VecWidth::V1),
            2 => Some(VecWidth::V2),
            4 => Some(VecWidth::V4),
            _ => None,
        }
    }
}

/// Operations of `atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `atom.add`: returns the old value, stores old + a.
    Add,
    /// `atom.cas`: compare with a, store b if equal; returns the old value.
    Cas,
    /// `atom.exch`: store a, return the old value.
    Exch,
    /// `atom.min`: store the smaller of the old value and a (signed or unsigned as the type).
    Min,
    /// `atom.max`: store the larger of the old value and a.
    Max,
    /// `atom.and`: store old & a (printed with the `.bN` type).
    And,
    /// `atom.or`: store old | a.
    Or,
    /// `atom.xor`: store old ^ a.
    Xor,
}

impl AtomOp {
    /// Every operation.
    pub const ALL: [AtomOp; 8] = [
        AtomOp::Add,
        AtomOp::Cas,
        AtomOp::Exch,
        AtomOp::Min,
        AtomOp::Max,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
    ];

    /// The operation as printed, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            AtomOp::Add => ".add",
            AtomOp::Cas => ".cas",
            AtomOp::Exch => ".exch",
            AtomOp::Min => ".min",
            AtomOp::Max => ".max",
            AtomOp::And => ".and",
            AtomOp::Or => ".or",
            AtomOp::Xor => ".xor",
        }
    }

    /// Whether PTX names the operation's type by its bits (`.b32`) rather than as a number.
    pub fn takes_bit_type(self) -> bool {
        matches!(self, AtomOp::Cas | AtomOp::Exch | AtomOp::And | AtomOp::Or | AtomOp::Xor)
    }
}

/// Modes of `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`: read from lane - delta.
    Up,
    /// `.down`: read from lane + delta.
    Down,
    /// `.bfly`: read from lane ^ mask.
    Bfly,
    /// `.idx`: read from a given lane.
    Idx,
}

impl ShflMode {
    /// The mode as printed, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            ShflMode::Up => ".up",
            ShflMode::Down => ".down",
            ShflMode::Bfly => ".bfly",
            ShflMode::Idx => ".idx",
        }
    }
}

/// The set of threads a memory fence orders accesses for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceScope {
    /// `membar.cta`: the threads of the block.
    Cta,
    /// `membar.gl`: every thread of the GPU.
    Gpu,
    /// `membar.sys`: the GPU's threads and the host.
    Sys,
}

impl FenceScope {
    /// The instruction as printed.
    pub fn mnemonic(self) -> &'static str {
        match self {
            FenceScope::Cta => "membar.cta",
            FenceScope::Gpu => "membar.gl",
            FenceScope::Sys => "membar.sys",
        }
    }
}

/// Modes of `vote.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.ballot.b32`: bit n of the result is lane n's predicate.
    Ballot,
    /// `.any.pred`: whether the predicate holds in some member lane.
    Any,
    /// `.all.pred`: whether it holds in every member lane.
    All,
}

impl VoteMode {
    /// The mode and its result type as printed (`.ballot.b32`, `.any.pred`, `.all.pred`).
    pub fn suffix(self) -> &'static str {
        match self {
            VoteMode::Ballot => ".ballot.b32",
            VoteMode::Any => ".any.pred",
            VoteMode::All => ".all.pred",
        }
    }
}

/// Index of a constant string of a kernel ([`KernelIr::strings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StringId(pub u32);

/// One argument of a [`Instr::Printf`]: its place in the argument buffer and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrintArg {
    /// `reg` stored at byte `offset` as `ty` (`.u32`, `.s32`, `.u64`, `.s64` or `.f64`, the
    /// types C's varargs promote to).
    Value {
        /// Byte offset in the buffer (a multiple of the type's size).
        offset: u32,
        /// The stored type.
        ty: PtxType,
        /// The register.
        reg: VReg,
    },
    /// The address of string `if_true` or `if_false` as `pred` holds, for a `%s`.
    Choice {
        /// Byte offset in the buffer (a multiple of 8).
        offset: u32,
        /// The `.pred` register that chooses.
        pred: VReg,
        /// The string when it holds.
        if_true: StringId,
        /// The string when it does not.
        if_false: StringId,
    },
}

/// A predicate guard on a branch or a memory access: `@%p` or `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The `.pred` register tested.
    pub pred: VReg,
    /// Branch when the predicate is false.
    pub negated: bool,
}

/// Up to four registers of a vector load or store; `len` is 1, 2 or 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegList {
    len: u8,
    regs: [VReg; 4],
}

impl RegList {
    /// A list from a slice of 1, 2 or 4 registers; `None` for other lengths.
    pub fn new(regs: &[VReg]) -> Option<RegList> {
        VecWidth::from_len(regs.len())?;
        let mut all = [regs[0]; 4];
        all[..regs.len()].copy_from_slice(regs);
        Some(RegList { len: regs.len() as u8, regs: all })
    }

    /// The registers.
    pub fn as_slice(&self) -> &[VReg] {
        &self.regs[..self.len as usize]
    }

    /// The vector width.
    pub fn width(&self) -> VecWidth {
        VecWidth::from_len(self.len as usize).unwrap_or(VecWidth::V1)
    }
}

/// One PTX instruction, or a label placement.
#[derive(Clone, Debug, PartialEq)]
pub enum Instr {
    /// `mov.ty dst, src`.
    Mov {
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// The source operand.
        src: Operand,
    },
    /// `mov.u32 dst, %special`.
    Special {
        /// The destination register.
        dst: VReg,
        /// The special register read.
        reg: SpecialReg,
    },
    /// `ld.param.ty dst, [param]`.
    LdParam {
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// Index of the parameter in [`KernelIr::params`].
        param: u32,
    },
    /// `cvta.to.global.u64 dst, src`: generic to global address.
    CvtaGlobal {
        /// The destination register.
        dst: VReg,
        /// The source operand.
        src: VReg,
    },
    /// `mov.u32 dst, shared_array`: the shared-window address of a shared array.
    SharedAddr {
        /// The destination register.
        dst: VReg,
        /// The shared array.
        shared: SharedId,
    },
    /// `op{.mode}.ty dst, src`.
    Unary {
        /// The operation.
        op: UnaryOp,
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// Rounding or precision modifier (floats only).
        mode: Option<FloatMode>,
        /// The destination register.
        dst: VReg,
        /// The source operand.
        src: Operand,
    },
    /// `op{.mode}.ty dst, a, b` (for shifts `b` is the `.u32` amount).
    Binary {
        /// The operation.
        op: BinaryOp,
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// Rounding or precision modifier (floats only).
        mode: Option<FloatMode>,
        /// The destination register.
        dst: VReg,
        /// First source operand.
        a: Operand,
        /// Second source operand.
        b: Operand,
    },
    /// `mul.wide.ty dst, a, b`: `ty` is the 16/32-bit source type, `dst` twice as wide.
    MulWide {
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// First source operand.
        a: Operand,
        /// Second source operand.
        b: Operand,
    },
    /// `mad.lo.ty dst, a, b, c`: integer a*b+c, low half.
    Mad {
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// First source operand.
        a: Operand,
        /// Second source operand.
        b: Operand,
        /// Third source operand (the addend).
        c: Operand,
    },
    /// `fma.rnd.ty dst, a, b, c`: fused multiply-add, one rounding.
    Fma {
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The IEEE rounding mode.
        mode: FloatMode,
        /// The destination register.
        dst: VReg,
        /// First source operand.
        a: Operand,
        /// Second source operand.
        b: Operand,
        /// Third source operand (the addend).
        c: Operand,
    },
    /// `cvt{.rnd}{.sat}.dst_ty.src_ty dst, src`.
    Cvt {
        /// The destination type.
        dst_ty: PtxType,
        /// The source type.
        src_ty: PtxType,
        /// Rounding modifier, where the conversion takes one.
        round: Option<CvtRound>,
        /// Saturate to the destination range (`.sat`).
        sat: bool,
        /// The destination register.
        dst: VReg,
        /// The source operand.
        src: Operand,
    },
    /// `setp.cmp.ty dst, a, b`.
    Setp {
        /// The comparison.
        cmp: Cmp,
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// First source operand.
        a: Operand,
        /// Second source operand.
        b: Operand,
    },
    /// `selp.ty dst, a, b, pred`: `pred ? a : b`.
    Selp {
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// First source operand.
        a: Operand,
        /// Second source operand.
        b: Operand,
        /// The selecting predicate register.
        pred: VReg,
    },
    /// `{@guard} bra target`.
    Bra {
        /// Predicate guard; `None` branches always.
        guard: Option<Guard>,
        /// The label branched to.
        target: Label,
    },
    /// Places a label.
    Label(Label),
    /// `ret`.
    Ret,
    /// `{@guard} ld.space{.vN}.ty dsts, [addr]`.
    Ld {
        /// Predicate guard: the load happens only when it holds (the destinations keep
        /// their values otherwise); `None` loads always.
        guard: Option<Guard>,
        /// The state space.
        space: Space,
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The loaded registers (1, 2 or 4).
        dsts: RegList,
        /// The memory operand.
        addr: Address,
    },
    /// `{@guard} st.space{.vN}.ty [addr], srcs`.
    St {
        /// Predicate guard: the store happens only when it holds; `None` stores always.
        guard: Option<Guard>,
        /// The state space.
        space: Space,
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The stored registers (1, 2 or 4).
        srcs: RegList,
        /// The memory operand.
        addr: Address,
    },
    /// `bar.sync id`.
    BarSync {
        /// Barrier number (0..16).
        barrier: u32,
    },
    /// `{@guard} atom.space.op.ty dst, [addr], a{, b}`; `b` only for `cas`.
    Atom {
        /// Predicate guard: the atomic happens only when it holds (`dst` keeps its value
        /// otherwise); `None` always.
        guard: Option<Guard>,
        /// The operation.
        op: AtomOp,
        /// The state space.
        space: Space,
        /// The instruction type (`.u32`, `.f32`, ...).
        ty: PtxType,
        /// The destination register.
        dst: VReg,
        /// The memory operand.
        addr: Address,
        /// The operand (`cas`: the expected value).
        a: Operand,
        /// The new value of `cas`; `None` for other operations.
        b: Option<Operand>,
    },
    /// `shfl.sync.mode.b32 dst, src, lane, clamp, mask`.
    Shfl {
        /// Rounding or precision modifier (floats only).
        mode: ShflMode,
        /// The destination register.
        dst: VReg,
        /// The register whose value is exchanged.
        src: VReg,
        /// Source lane, delta or xor mask.
        lane: Operand,
        /// The clamp / segment-mask operand `c`.
        clamp: u32,
        /// The member mask of participating lanes.
        mask: u32,
    },
    /// `bar.warp.sync mask`: the member lanes of the warp wait for each other, and their
    /// memory accesses before it are ordered before those after it.
    BarWarpSync {
        /// The member lanes.
        mask: u32,
    },
    /// `membar.scope`: this thread's memory accesses before it are seen before those after
    /// it by the threads of `scope`.
    Fence {
        /// Which threads.
        scope: FenceScope,
    },
    /// `printf(format, args..)`: the arguments stored to the kernel's local argument buffer,
    /// then `call.uni vprintf(generic format address, generic buffer address)` in a scope of
    /// its own (the CUDA runtime's device-side `printf`).
    Printf {
        /// The format string, a C `printf` format.
        format: StringId,
        /// The arguments, in order.
        args: Vec<PrintArg>,
    },
    /// `vote.sync.mode dst, pred, mask`.
    Vote {
        /// Ballot, any or all.
        mode: VoteMode,
        /// The destination: `.b32` for a ballot, `.pred` otherwise.
        dst: VReg,
        /// The predicate each lane votes with.
        pred: VReg,
        /// The member mask of participating lanes.
        mask: u32,
    },
}

macro_rules! instr_kinds {
    ($($kind:ident),* $(,)?) => {
        /// The variant of an [`Instr`], without its fields; [`InstrKind::ALL`] lists every one,
        /// so tests can prove they cover each variant.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum InstrKind { $(#[allow(missing_docs)] $kind),* }

        impl InstrKind {
            /// Every variant of [`Instr`].
            pub const ALL: &'static [InstrKind] = &[$(InstrKind::$kind),*];
        }
    };
}

instr_kinds!(
    Mov,
    Special,
    LdParam,
    CvtaGlobal,
    SharedAddr,
    Unary,
    Binary,
    MulWide,
    Mad,
    Fma,
    Cvt,
    Setp,
    Selp,
    Bra,
    Label,
    Ret,
    Ld,
    St,
    BarSync,
    Atom,
    Shfl,
    Vote,
    Printf,
    BarWarpSync,
    Fence,
);

impl Instr {
    /// Which variant this is.
    pub fn kind(&self) -> InstrKind {
        match self {
            Instr::Mov { .. } => InstrKind::Mov,
            Instr::Special { .. } => InstrKind::Special,
            Instr::LdParam { .. } => InstrKind::LdParam,
            Instr::CvtaGlobal { .. } => InstrKind::CvtaGlobal,
            Instr::SharedAddr { .. } => InstrKind::SharedAddr,
            Instr::Unary { .. } => InstrKind::Unary,
            Instr::Binary { .. } => InstrKind::Binary,
            Instr::MulWide { .. } => InstrKind::MulWide,
            Instr::Mad { .. } => InstrKind::Mad,
            Instr::Fma { .. } => InstrKind::Fma,
            Instr::Cvt { .. } => InstrKind::Cvt,
            Instr::Setp { .. } => InstrKind::Setp,
            Instr::Selp { .. } => InstrKind::Selp,
            Instr::Bra { .. } => InstrKind::Bra,
            Instr::Label(_) => InstrKind::Label,
            Instr::Ret => InstrKind::Ret,
            Instr::Ld { .. } => InstrKind::Ld,
            Instr::St { .. } => InstrKind::St,
            Instr::BarSync { .. } => InstrKind::BarSync,
            Instr::Atom { .. } => InstrKind::Atom,
            Instr::Shfl { .. } => InstrKind::Shfl,
            Instr::Vote { .. } => InstrKind::Vote,
            Instr::Printf { .. } => InstrKind::Printf,
            Instr::BarWarpSync { .. } => InstrKind::BarWarpSync,
            Instr::Fence { .. } => InstrKind::Fence,
        }
    }

    /// Calls `f` on each register this instruction writes.
    #[inline]
    pub fn visit_defs(&self, mut f: impl FnMut(VReg)) {
        match self {
            Instr::Mov { dst, .. }
            | Instr::Special { dst, .. }
            | Instr::LdParam { dst, .. }
            | Instr::CvtaGlobal { dst, .. }
            | Instr::SharedAddr { dst, .. }
            | Instr::Unary { dst, .. }
            | Instr::Binary { dst, .. }
            | Instr::MulWide { dst, .. }
            | Instr::Mad { dst, .. }
            | Instr::Fma { dst, .. }
            | Instr::Cvt { dst, .. }
            | Instr::Setp { dst, .. }
            | Instr::Selp { dst, .. }
            | Instr::Atom { dst, .. }
            | Instr::Shfl { dst, .. }
            | Instr::Vote { dst, .. } => f(*dst),
            Instr::Ld { dsts, .. } => dsts.as_slice().iter().copied().for_each(f),
            Instr::Bra { .. }
            | Instr::Label(_)
            | Instr::Ret
            | Instr::St { .. }
            | Instr::BarSync { .. }
            | Instr::BarWarpSync { .. }
            | Instr::Fence { .. }
            | Instr::Printf { .. } => {}
        }
    }

    /// Calls `f` on each register this instruction reads.
    #[inline]
    pub fn visit_uses(&self, mut f: impl FnMut(VReg)) {
        let mut op = |o: &Operand| {
            if let Operand::Reg(r) = o {
                f(*r)
            }
        };
        let addr_op = |a: &Address| match a.base {
            AddrBase::Reg(r) => Operand::Reg(r),
            AddrBase::Shared(_) => Operand::Imm(Imm { ty: PtxType::U32, bits: 0 }),
        };
        match self {
            Instr::Mov { src, .. } | Instr::Unary { src, .. } | Instr::Cvt { src, .. } => op(src),
            Instr::Special { .. } | Instr::LdParam { .. } | Instr::SharedAddr { .. } => {}
            Instr::CvtaGlobal { src, .. } => op(&Operand::Reg(*src)),
            Instr::Binary { a, b, .. } | Instr::MulWide { a, b, .. } | Instr::Setp { a, b, .. } => {
                op(a);
                op(b);
            }
            Instr::Mad { a, b, c, .. } | Instr::Fma { a, b, c, .. } => {
                op(a);
                op(b);
                op(c);
            }
            Instr::Selp { a, b, pred, .. } => {
                op(a);
                op(b);
                op(&Operand::Reg(*pred));
            }
            Instr::Bra { guard, .. } => {
                if let Some(g) = guard {
                    op(&Operand::Reg(g.pred));
                }
            }
            Instr::Label(_)
            | Instr::Ret
            | Instr::BarSync { .. }
            | Instr::BarWarpSync { .. }
            | Instr::Fence { .. } => {}
            Instr::Ld { guard, dsts, addr, .. } => {
                op(&addr_op(addr));
                if let Some(g) = guard {
                    // A guarded load may leave its destinations as they were: it reads them.
                    op(&Operand::Reg(g.pred));
                    dsts.as_slice().iter().for_each(|r| op(&Operand::Reg(*r)));
                }
            }
            Instr::St { guard, srcs, addr, .. } => {
                srcs.as_slice().iter().for_each(|r| op(&Operand::Reg(*r)));
                op(&addr_op(addr));
                if let Some(g) = guard {
                    op(&Operand::Reg(g.pred));
                }
            }
            Instr::Atom { guard, dst, addr, a, b, .. } => {
                if let Some(g) = guard {
                    op(&Operand::Reg(g.pred));
                    op(&Operand::Reg(*dst));
                }
                op(&addr_op(addr));
                op(a);
                if let Some(b) = b {
                    op(b);
                }
            }
            Instr::Shfl { src, lane, .. } => {
                op(&Operand::Reg(*src));
                op(lane);
            }
            Instr::Vote { pred, .. } => op(&Operand::Reg(*pred)),
            Instr::Printf { args, .. } => {
                for a in args {
                    match a {
                        PrintArg::Value { reg, .. } => op(&Operand::Reg(*reg)),
                        PrintArg::Choice { pred, .. } => op(&Operand::Reg(*pred)),
                    }
                }
            }
        }
    }

    /// The registers this instruction writes.
    pub fn defs(&self) -> Vec<VReg> {
        let mut v = Vec::new();
        self.visit_defs(|r| v.push(r));
        v
    }

    /// The registers this instruction reads.
    pub fn uses(&self) -> Vec<VReg> {
        let mut v = Vec::new();
        self.visit_uses(|r| v.push(r));
        v
    }
}

/// A kernel parameter: a name and a `.param` type (`.u64` for pointers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name in the PTX (an identifier).
    pub name: String,
    /// Its type.
    pub ty: PtxType,
    /// True when the parameter is a pointer to global memory.
    pub is_pointer: bool,
    /// For a pointer: how the kernel uses the memory behind it (filled in by the builder,
    /// which follows each address back to the parameter it derives from).
    pub access: PointerAccess,
}

/// How a kernel accesses the memory a pointer parameter points to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointerAccess {
    /// Whether any store or atomic goes through it.
    pub written: bool,
    /// The memory type of every access through it, when they all agree (`None` when there
    /// is none, or they differ, e.g. a fault record read as `.b32` and `.u64`).
    pub elem: Option<PtxType>,
    /// Whether accesses of different types were seen.
    pub mixed: bool,
}

impl PointerAccess {
    /// Records one access of memory type `ty`.
    pub fn record(&mut self, ty: PtxType, write: bool) {
        self.written |= write;
        match self.elem {
            None if !self.mixed => self.elem = Some(ty),
            Some(t) if t != ty => {
                self.elem = None;
                self.mixed = true;
            }
            _ => {}
        }
    }
}

/// A `.shared` array of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    /// Size in bytes (0 for the dynamic array).
    pub bytes: u32,
    /// Alignment in bytes (a power of two).
    pub align: u32,
    /// The kernel's dynamic shared memory (`.extern .shared .b8 name[]`), sized by the
    /// launch; a kernel has at most one.
    pub dynamic: bool,
}

/// A whole kernel: name, parameters, shared arrays, instructions and register counts.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelIr {
    /// The entry's name (an identifier).
    pub name: String,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// Shared arrays, named in PTX after the kernel (`<kernel>_smem<N>`).
    pub shared: Vec<SharedDecl>,
    /// The body.
    pub body: Vec<Instr>,
    /// How many registers of each type exist, indexed in enum order ([`PtxType::ALL`], then
    /// [`PtxType::MEMORY_ONLY`], whose counts a verified kernel keeps at 0).
    pub reg_counts: [u32; PtxType::COUNT],
    /// How many labels were allocated.
    pub label_count: u32,
    /// Source positions: which statement of the kernel's source the instructions from
    /// each note's `at` on were written for (empty for kernels built by hand).
    pub notes: Vec<SourceNote>,
    /// Constant NUL-terminated strings (`printf` formats), module-level `.global` arrays
    /// named after the kernel (`<kernel>_str<N>`).
    pub strings: Vec<Vec<u8>>,
    /// Bytes of the local argument buffer the kernel's `printf`s share (0: none).
    pub print_buffer_bytes: u32,
    /// Registers whose values a math routine's choice of code relied on (a proven bound,
    /// e.g. the sine leaving out its large-argument path); the verifier requires each to be
    /// written exactly once, so that the bound holds wherever it is read.
    pub assumptions: Vec<VReg>,
    /// What the builder was asked to build and refused ([`KernelBuilder::refuse`]), which
    /// the verifier reports: the first refusal, if any.
    ///
    /// [`KernelBuilder::refuse`]: crate::KernelBuilder::refuse
    pub refusal: Option<Refusal>,
}

/// Code a kernel's builder refused to build (an `#[ptx_kernel]`'s `#[unroll]` loop
/// unrolling past the limits), reported by the verifier where it was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Where in the kernel's source it was asked for (`file:line:column`), if known.
    pub source: Option<String>,
    /// Why it was refused, and what to do instead.
    pub reason: &'static str,
}

/// A statement of the kernel's source (Rust, for `#[ptx_kernel]` kernels), attached to the
/// body position where its instructions begin. The printer writes it as a comment and a
/// `.loc` directive, so the PTX reads against the source and profilers show source lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceNote {
    /// Index in [`KernelIr::body`] of the first instruction of the statement.
    pub at: usize,
    /// The source file, as `file!()` gives it.
    pub file: std::borrow::Cow<'static, str>,
    /// The 1-based line.
    pub line: u32,
    /// The 1-based column.
    pub column: u32,
    /// The statement's text (printed on one line: line breaks print as spaces).
    pub text: std::borrow::Cow<'static, str>,
}

impl KernelIr {
    /// The number of registers declared of type `ty`.
    pub fn reg_count(&self, ty: PtxType) -> u32 {
        self.reg_counts[type_slot(ty)]
    }

    /// Instructions proper, not counting label placements.
    pub fn instruction_count(&self) -> usize {
        self.body.iter().filter(|i| !matches!(i, Instr::Label(_))).count()
    }

    /// The PTX name of shared array `id`.
    pub fn shared_name(&self, id: SharedId) -> String {
        format!("{}_smem{}", self.name, id.0)
    }
}

/// The position of `ty` in enum order: [`PtxType::ALL`], then [`PtxType::MEMORY_ONLY`].
pub fn type_slot(ty: PtxType) -> usize {
    ty as usize
}
