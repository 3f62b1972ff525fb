//! PTX value types: the untyped [`PtxType`] the IR carries, and the zero-sized marker types
//! (`U32`, `F32`, `Pred`, ...) that make builder handles such as `Reg<F32>` type-checked by rustc.

use std::fmt;

/// A PTX fundamental type, as written after a `.` in PTX (`.u32`, `.f32`, `.pred`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PtxType {
    /// `.pred`: a one-bit predicate.
    Pred,
    /// `.b16`: 16 untyped bits.
    B16,
    /// `.u16`: unsigned 16-bit integer.
    U16,
    /// `.s16`: signed 16-bit integer.
    S16,
    /// `.f16`: IEEE binary16 (storage and conversion only in this version).
    F16,
    /// bfloat16 (storage and conversion only; registers are declared `.b16`).
    Bf16,
    /// `.b32`: 32 untyped bits.
    B32,
    /// `.u32`: unsigned 32-bit integer.
    U32,
    /// `.s32`: signed 32-bit integer.
    S32,
    /// `.f32`: IEEE binary32.
    F32,
    /// `.b64`: 64 untyped bits.
    B64,
    /// `.u64`: unsigned 64-bit integer (also pointers).
    U64,
    /// `.s64`: signed 64-bit integer.
    S64,
    /// `.f64`: IEEE binary64.
    F64,
    /// `.u8`: unsigned byte. Memory only: there are no byte registers; `ld.u8` zero-extends
    /// into a 16- or 32-bit integer register and `st.u8` stores the low byte of one.
    U8,
    /// `.s8`: signed byte, memory only like [`PtxType::U8`]; `ld.s8` sign-extends.
    S8,
}

/// What kind of values a [`PtxType`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    /// `.pred`.
    Pred,
    /// `.bN`: raw bits.
    Bits,
    /// `.uN`.
    Unsigned,
    /// `.sN`.
    Signed,
    /// `.fN` and bf16.
    Float,
}

impl PtxType {
    /// The number of types, register and memory-only ones together.
    pub const COUNT: usize = 16;

    /// The memory-only types: bytes, which exist in `ld`/`st` but not as registers.
    pub const MEMORY_ONLY: [PtxType; 2] = [PtxType::U8, PtxType::S8];

    /// Every type, register types then memory-only ones: `EVERY[t as usize] == t`.
    pub const EVERY: [PtxType; PtxType::COUNT] = {
        let mut every = [PtxType::Pred; PtxType::COUNT];
        let mut i = 0;
        while i < PtxType::ALL.len() {
            every[i] = PtxType::ALL[i];
            i += 1;
        }
        while i < PtxType::COUNT {
            every[i] = PtxType::MEMORY_ONLY[i - PtxType::ALL.len()];
            i += 1;
        }
        every
    };

    /// Every register type, in declaration order (the printer declares registers in this
    /// order); [`PtxType::MEMORY_ONLY`] follows them in the enum.
    pub const ALL: [PtxType; 14] = [
        PtxType::Pred,
        PtxType::B16,
        PtxType::U16,
        PtxType::S16,
        PtxType::F16,
        PtxType::Bf16,
        PtxType::B32,
        PtxType::U32,
        PtxType::S32,
        PtxType::F32,
        PtxType::B64,
        PtxType::U64,
        PtxType::S64,
        PtxType::F64,
    ];

    /// The type's name as PTX writes it after the dot, e.g. `"u32"`.
    pub const fn ptx_name(self) -> &'static str {
        match self {
            PtxType::Pred => "pred",
            PtxType::B16 => "b16",
            PtxType::U16 => "u16",
            PtxType::S16 => "s16",
            PtxType::F16 => "f16",
            PtxType::Bf16 => "bf16",
            PtxType::B32 => "b32",
            PtxType::U32 => "u32",
            PtxType::S32 => "s32",
            PtxType::F32 => "f32",
            PtxType::B64 => "b64",
            PtxType::U64 => "u64",
            PtxType::S64 => "s64",
            PtxType::F64 => "f64",
            PtxType::U8 => "u8",
            PtxType::S8 => "s8",
        }
    }

    /// Parses a PTX type name without the dot (`"u32"`); the inverse of [`PtxType::ptx_name`].
    pub fn from_ptx_name(name: &str) -> Option<PtxType> {
        PtxType::EVERY.into_iter().find(|t| t.ptx_name() == name)
    }

    /// Whether a register of this type can hold a byte for `ld`/`st` of `.u8`/`.s8`: a
    /// 16- or 32-bit integer or bit type.
    pub fn holds_bytes(self) -> bool {
        matches!(self.bits(), 16 | 32) && (self.is_int() || self.class() == TypeClass::Bits)
    }

    /// True for the memory-only byte types [`PtxType::MEMORY_ONLY`].
    pub const fn is_memory_only(self) -> bool {
        matches!(self, PtxType::U8 | PtxType::S8)
    }

    /// The type used in `.reg` declarations for registers of this type (bf16 lives in `.b16`).
    pub fn reg_decl_type(self) -> PtxType {
        match self {
            PtxType::Bf16 => PtxType::B16,
            other => other,
        }
    }

    /// The type loads and stores of this type are written with: PTX moves 16-bit floats
    /// as `.b16`.
    pub fn memory_type(self) -> PtxType {
        match self {
            PtxType::F16 | PtxType::Bf16 => PtxType::B16,
            other => other,
        }
    }

    /// The register-name prefix the printer uses for this type (`%r` for u32, `%f` for f32, ...).
    pub const fn reg_prefix(self) -> &'static str {
        match self {
            PtxType::Pred => "p",
            PtxType::B16 => "bh",
            PtxType::U16 => "uh",
            PtxType::S16 => "sh",
            PtxType::F16 => "hf",
            PtxType::Bf16 => "bf",
            PtxType::B32 => "b",
            PtxType::U32 => "r",
            PtxType::S32 => "s",
            PtxType::F32 => "f",
            PtxType::B64 => "bd",
            PtxType::U64 => "rd",
            PtxType::S64 => "sd",
            PtxType::F64 => "fd",
            // Never declared (the verifier rejects byte registers); named for messages.
            PtxType::U8 => "ub",
            PtxType::S8 => "sb",
        }
    }

    /// Width in bits (1 for `.pred`).
    pub const fn bits(self) -> u32 {
        match self {
            PtxType::Pred => 1,
            PtxType::U8 | PtxType::S8 => 8,
            PtxType::B16 | PtxType::U16 | PtxType::S16 | PtxType::F16 | PtxType::Bf16 => 16,
            PtxType::B32 | PtxType::U32 | PtxType::S32 | PtxType::F32 => 32,
            PtxType::B64 | PtxType::U64 | PtxType::S64 | PtxType::F64 => 64,
        }
    }

    /// Width in bytes of one value in memory (predicates have no memory form; 0).
    pub fn bytes(self) -> u32 {
        self.bits() / 8
    }

    /// The kind of values this type holds.
    pub const fn class(self) -> TypeClass {
        match self {
            PtxType::Pred => TypeClass::Pred,
            PtxType::B16 | PtxType::B32 | PtxType::B64 => TypeClass::Bits,
            PtxType::U8 | PtxType::U16 | PtxType::U32 | PtxType::U64 => TypeClass::Unsigned,
            PtxType::S8 | PtxType::S16 | PtxType::S32 | PtxType::S64 => TypeClass::Signed,
            PtxType::F16 | PtxType::Bf16 | PtxType::F32 | PtxType::F64 => TypeClass::Float,
        }
    }

    /// True for `.uN` and `.sN`.
    pub const fn is_int(self) -> bool {
        matches!(self.class(), TypeClass::Unsigned | TypeClass::Signed)
    }

    /// True for `.sN`.
    pub fn is_signed(self) -> bool {
        self.class() == TypeClass::Signed
    }

    /// True for the float types.
    pub fn is_float(self) -> bool {
        self.class() == TypeClass::Float
    }

    /// True for the float types PTX can do arithmetic on in this version (f32, f64).
    pub fn is_arith_float(self) -> bool {
        matches!(self, PtxType::F32 | PtxType::F64)
    }

    /// Whether a register declared with type `reg` may be an operand of an instruction of
    /// type `self`, following PTX's operand type rules: identical types; bit types with any
    /// type of the same size; signed and unsigned integers of the same size.
    #[inline]
    pub const fn accepts_register(self, reg: PtxType) -> bool {
        if self as u8 == reg as u8 {
            return true;
        }
        if matches!(self, PtxType::Pred) || matches!(reg, PtxType::Pred) || self.bits() != reg.bits() {
            return false;
        }
        matches!(self.class(), TypeClass::Bits)
            || matches!(reg.class(), TypeClass::Bits)
            || (self.is_int() && reg.is_int())
            || (matches!(self, PtxType::Bf16) && matches!(reg, PtxType::B16))
    }
}

impl fmt::Display for PtxType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.ptx_name())
    }
}

/// A marker type standing for one [`PtxType`], so builder handles carry their type in Rust.
pub trait Ty: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The PTX type this marker stands for.
    const PTX: PtxType;
    /// The Rust type of immediates of this type (`u32` for `U32`, `f32` for `F32`, ...).
    type Host: Copy + fmt::Debug + PartialEq;
    /// The immediate's bit pattern, zero-extended to 64 bits.
    fn host_to_bits(v: Self::Host) -> u64;
    /// The immediate a bit pattern stands for (extra high bits are ignored).
    fn host_from_bits(bits: u64) -> Self::Host;
}

/// Marker trait for integer types (`U16 S16 U32 S32 U64 S64`).
pub trait IntTy: NumTy {}
/// Marker trait for signed integer types.
pub trait SignedTy: IntTy {}
/// Marker trait for float types PTX computes with (`F32`, `F64`).
pub trait FloatTy: NumTy {}
/// Marker trait for types with arithmetic (`add`, `sub`, `mul`, `min`, `max`, ...): integers and floats.
pub trait NumTy: Ty {}
/// Marker trait for the integer types `mul.wide` accepts, with the type of its result.
pub trait WideningTy: IntTy {
    /// The type twice as wide.
    type Wide: IntTy;
}
/// Marker trait for types that `and`/`or`/`xor`/`not` accept (integers, bits, predicates).
pub trait LogicTy: Ty {}
/// Marker trait for types with a memory form (everything except `Pred`).
pub trait MemTy: Ty {}
/// Marker trait for 32- and 64-bit integer types that `atom.add` accepts, plus f32/f64.
pub trait AtomAddTy: MemTy {}
/// Marker trait for the 32-bit types `shfl.sync` moves.
pub trait Bits32: Bits32Or64 {}
/// Marker trait for the 32- and 64-bit types `atom.cas`/`atom.exch`/`shfl` move as bits.
pub trait Bits32Or64: MemTy {}

/// Marker trait for the byte types (`U8`, `S8`), which exist only in memory: `ld` extends
/// a byte into a 32-bit register of type [`ByteTy::Reg`] and `st` stores the low byte of one.
pub trait ByteTy: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The PTX memory type (`.u8` or `.s8`).
    const PTX: PtxType;
    /// The register type a loaded byte is held in: `U32` (zero-extended) for `U8`, `S32`
    /// (sign-extended) for `S8`.
    type Reg: IntTy + MemTy;
}

/// `.u8`: an unsigned byte in memory, loaded zero-extended into a `U32` register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct U8;
impl ByteTy for U8 {
    const PTX: PtxType = PtxType::U8;
    type Reg = U32;
}

/// `.s8`: a signed byte in memory, loaded sign-extended into an `S32` register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct S8;
impl ByteTy for S8 {
    const PTX: PtxType = PtxType::S8;
    type Reg = S32;
}

macro_rules! marker {
    ($(#[$doc:meta])* $name:ident, $ptx:ident, $host:ty, to = $to:expr, from = $from:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Ty for $name {
            const PTX: PtxType = PtxType::$ptx;
            type Host = $host;
            fn host_to_bits(v: $host) -> u64 {
                #[allow(clippy::redundant_closure_call)]
                ($to)(v)
            }
            fn host_from_bits(bits: u64) -> $host {
                #[allow(clippy::redundant_closure_call)]
                ($from)(bits)
            }
        }
    };
}

marker!(/// `.pred`, immediates are `bool`.
    Pred, Pred, bool, to = |v: bool| v as u64, from = |b: u64| b & 1 != 0);
marker!(/// `.b16`, immediates are `u16`.
    B16, B16, u16, to = |v: u16| v as u64, from = |b: u64| b as u16);
marker!(/// `.u16`.
    U16, U16, u16, to = |v: u16| v as u64, from = |b: u64| b as u16);
marker!(/// `.s16`.
    S16, S16, i16, to = |v: i16| v as u16 as u64, from = |b: u64| b as u16 as i16);
marker!(/// `.f16`, immediates are the raw binary16 bits.
    F16, F16, u16, to = |v: u16| v as u64, from = |b: u64| b as u16);
marker!(/// bfloat16, immediates are the raw bits.
    Bf16, Bf16, u16, to = |v: u16| v as u64, from = |b: u64| b as u16);
marker!(/// `.b32`.
    B32, B32, u32, to = |v: u32| v as u64, from = |b: u64| b as u32);
marker!(/// `.u32`.
    U32, U32, u32, to = |v: u32| v as u64, from = |b: u64| b as u32);
marker!(/// `.s32`.
    S32, S32, i32, to = |v: i32| v as u32 as u64, from = |b: u64| b as u32 as i32);
marker!(/// `.f32`.
    F32, F32, f32, to = |v: f32| v.to_bits() as u64, from = |b: u64| f32::from_bits(b as u32));
marker!(/// `.b64`.
    B64, B64, u64, to = |v: u64| v, from = |b: u64| b);
marker!(/// `.u64` (also pointers).
    U64, U64, u64, to = |v: u64| v, from = |b: u64| b);
marker!(/// `.s64`.
    S64, S64, i64, to = |v: i64| v as u64, from = |b: u64| b as i64);
marker!(/// `.f64`.
    F64, F64, f64, to = |v: f64| v.to_bits(), from = f64::from_bits);

impl IntTy for U16 {}
impl IntTy for S16 {}
impl IntTy for U32 {}
impl IntTy for S32 {}
impl IntTy for U64 {}
impl IntTy for S64 {}
impl SignedTy for S16 {}
impl SignedTy for S32 {}
impl SignedTy for S64 {}
impl NumTy for U16 {}
impl NumTy for S16 {}
impl NumTy for U32 {}
impl NumTy for S32 {}
impl NumTy for U64 {}
impl NumTy for S64 {}
impl NumTy for F32 {}
impl NumTy for F64 {}
impl WideningTy for U16 {
    type Wide = U32;
}
impl WideningTy for S16 {
    type Wide = S32;
}
impl WideningTy for U32 {
    type Wide = U64;
}
impl WideningTy for S32 {
    type Wide = S64;
}
impl FloatTy for F32 {}
impl FloatTy for F64 {}
impl LogicTy for Pred {}
impl LogicTy for B16 {}
impl LogicTy for U16 {}
impl LogicTy for S16 {}
impl LogicTy for B32 {}
impl LogicTy for U32 {}
impl LogicTy for S32 {}
impl LogicTy for B64 {}
impl LogicTy for U64 {}
impl LogicTy for S64 {}
impl MemTy for B16 {}
impl MemTy for U16 {}
impl MemTy for S16 {}
impl MemTy for F16 {}
impl MemTy for Bf16 {}
impl MemTy for B32 {}
impl MemTy for U32 {}
impl MemTy for S32 {}
impl MemTy for F32 {}
impl MemTy for B64 {}
impl MemTy for U64 {}
impl MemTy for S64 {}
impl MemTy for F64 {}
impl AtomAddTy for U32 {}
impl AtomAddTy for S32 {}
impl AtomAddTy for U64 {}
impl AtomAddTy for F32 {}
impl AtomAddTy for F64 {}
impl Bits32 for B32 {}
impl Bits32 for U32 {}
impl Bits32 for S32 {}
impl Bits32 for F32 {}
impl Bits32Or64 for B32 {}
impl Bits32Or64 for U32 {}
impl Bits32Or64 for S32 {}
impl Bits32Or64 for F32 {}
impl Bits32Or64 for B64 {}
impl Bits32Or64 for U64 {}
impl Bits32Or64 for S64 {}
impl Bits32Or64 for F64 {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in PtxType::ALL.into_iter().chain(PtxType::MEMORY_ONLY) {
            assert_eq!(PtxType::from_ptx_name(t.ptx_name()), Some(t));
            assert_eq!(PtxType::EVERY[t as usize], t, "EVERY is indexed by discriminant");
        }
        assert_eq!(PtxType::ALL.len() + PtxType::MEMORY_ONLY.len(), PtxType::COUNT);
        assert_eq!(PtxType::from_ptx_name("u33"), None);
    }

    #[test]
    fn operand_type_rules() {
        assert!(PtxType::B32.accepts_register(PtxType::F32));
        assert!(PtxType::S32.accepts_register(PtxType::U32));
        assert!(!PtxType::F32.accepts_register(PtxType::U32));
        assert!(!PtxType::U32.accepts_register(PtxType::U64));
        assert!(!PtxType::B32.accepts_register(PtxType::Pred));
        assert!(PtxType::Bf16.accepts_register(PtxType::B16));
    }

    #[test]
    fn immediate_bits() {
        assert_eq!(S32::host_to_bits(-1), 0xffff_ffff);
        assert_eq!(S32::host_from_bits(0xffff_fffe), -2);
        assert_eq!(F32::host_from_bits(F32::host_to_bits(1.5)), 1.5);
    }
}
