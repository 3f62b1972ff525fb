//! Operand type checking: which registers and immediates an operand takes, as ptxas checks
//! them (the PTX ISA's "Operand Type Information" and "Operand Size Exceeding
//! Instruction-Type Size", with ptxas's answers where the ISA says nothing). Every operand
//! the decoder reads or writes goes through [`Slot::takes_register`] and
//! [`Slot::takes_literal`]; what they refuse is ptxas's "Arguments mismatch".

use ptx_core::types::TypeClass;
use ptx_core::PtxType;

use crate::const_expr::mentions_float;
use crate::literal::float_literal;

/// What an operand position of an instruction holds, and so which registers fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// An operand of most instructions, of type `T`: a register of `T`'s size whose type `T`
    /// accepts ([`PtxType::accepts_register`]: a bit type with any type, `.uN` with `.sN`, a
    /// float only with itself).
    Exact(PtxType),
    /// The data of `ld`, `st` and `cvt`: as [`Slot::Exact`], or a wider register (the value
    /// is extended or truncated): any for a bit type, an integer or bit one for an integer
    /// type, a bit one for `.f16 .f32 .f64` (none for `.bf16`).
    Wide(PtxType),
    /// A vector `ld`/`st`'s registers (their common type, [`vector_type`]): as
    /// [`Slot::Wide`], and a float type takes integer registers of its size too.
    Lane(PtxType),
    /// A value only bit registers hold: `.f16x2`, `.bf16x2`, `.tf32`. A `.b32` register, or
    /// with `wide` (`cvt`'s destination) a `.b64` one too.
    Packed { wide: bool },
    /// A memory address in a register: any integer or bit register (ptxas takes 16 and 32
    /// bits too).
    Address,
}

impl From<PtxType> for Slot {
    fn from(ty: PtxType) -> Slot {
        Slot::Exact(ty)
    }
}

/// The kind of an immediate operand, which decides the types it may stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Literal {
    /// An integer (`1`, `0x10`, `WARP_SZ`) or an integer constant expression (`(1 << 4) +
    /// 3`): any integer or bit type, never a float.
    Int,
    /// `0fXXXXXXXX`: `.f32`, `.f64` and `.b32`.
    F32,
    /// `0dXXXXXXXXXXXXXXXX`, a decimal float (`1.5`) or an expression with a float in it
    /// (which the simulator does not evaluate): `.f32`, `.f64` and `.b64`.
    F64,
}

impl Literal {
    /// The kind of immediate `tok`: a float if it is or mentions one, else an integer (a
    /// malformed one is left to the parser of its type).
    pub(crate) fn of(tok: &str) -> Literal {
        let prefix = tok.get(..2).map(str::to_ascii_lowercase);
        match prefix.as_deref() {
            Some("0f") => Literal::F32,
            Some("0d") => Literal::F64,
            _ if float_literal(tok).is_some() || mentions_float(tok) => Literal::F64,
            _ => Literal::Int,
        }
    }

    /// Its name in errors.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Literal::Int => "an integer",
            Literal::F32 => "an f32",
            Literal::F64 => "an f64",
        }
    }
}

impl Slot {
    /// The type an immediate or a value in this slot is read as.
    pub(crate) fn ty(self) -> PtxType {
        match self {
            Slot::Exact(t) | Slot::Wide(t) | Slot::Lane(t) => t,
            Slot::Packed { .. } => PtxType::B32,
            Slot::Address => PtxType::U64,
        }
    }

    /// Its name in errors: the type, or what it is.
    pub(crate) fn name(self) -> String {
        match self {
            Slot::Exact(t) | Slot::Wide(t) | Slot::Lane(t) => t.to_string(),
            Slot::Packed { .. } => "packed".into(),
            Slot::Address => "address".into(),
        }
    }

    /// Whether a register declared `reg` fits this slot.
    pub(crate) fn takes_register(self, reg: PtxType) -> bool {
        let (t, lane) = match self {
            Slot::Exact(t) => return t.accepts_register(reg),
            Slot::Packed { wide } => return reg == PtxType::B32 || (wide && reg == PtxType::B64),
            Slot::Address => return reg.is_int() || reg.class() == TypeClass::Bits,
            Slot::Wide(t) => (t, false),
            Slot::Lane(t) => (t, true),
        };
        if t.accepts_register(reg) || (lane && t.is_float() && reg.is_int() && reg.bits() == t.bits()) {
            return true;
        }
        let bits_reg = reg.class() == TypeClass::Bits;
        reg.bits() > t.bits()
            && match t.class() {
                TypeClass::Bits => reg != PtxType::Pred,
                TypeClass::Signed | TypeClass::Unsigned => reg.is_int() || bits_reg,
                TypeClass::Float => bits_reg && t != PtxType::Bf16,
                TypeClass::Pred => false,
            }
    }

    /// Whether an immediate of kind `lit` fits this slot (16-bit floats and packed values
    /// take none).
    pub(crate) fn takes_literal(self, lit: Literal) -> bool {
        let t = match self {
            Slot::Exact(t) | Slot::Wide(t) | Slot::Lane(t) => t,
            Slot::Packed { .. } | Slot::Address => return false,
        };
        match lit {
            Literal::Int => !t.is_float(),
            Literal::F32 => matches!(t, PtxType::F32 | PtxType::F64 | PtxType::B32),
            Literal::F64 => matches!(t, PtxType::F32 | PtxType::F64 | PtxType::B64),
        }
    }

    /// The register types that fit, for errors (`.b32 or .f32`).
    pub(crate) fn register_names(self) -> String {
        let names: Vec<String> =
            PtxType::ALL.into_iter().filter(|r| self.takes_register(*r)).map(|r| r.to_string()).collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => "no register".into(),
        }
    }
}

/// The type ptxas gives a vector of registers `regs` (`{%r1, %r2}`): a bit type when one
/// is (it takes the others), else the first's (`None` for none). `None` when two neighbours differ in size
/// or are not of compatible types (ptxas: "Incompatible elements of vector expression",
/// "Vector with elements of different types").
pub(crate) fn vector_type(regs: &[PtxType]) -> Option<PtxType> {
    if regs.windows(2).any(|w| !w[0].accepts_register(w[1])) {
        return None;
    }
    regs.iter().find(|r| r.class() == TypeClass::Bits).or(regs.first()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use PtxType::*;

    /// The relaxed rules of `ld`/`st`/`cvt` (each row checked with ptxas 13.5, sm_80).
    #[test]
    fn wide_slots_take_wider_registers_of_a_fitting_class() {
        assert!(Slot::Wide(U16).takes_register(U64));
        assert!(Slot::Wide(B16).takes_register(F64));
        assert!(Slot::Wide(F32).takes_register(B64));
        assert!(Slot::Wide(F16).takes_register(B32));
        assert!(!Slot::Wide(F32).takes_register(F64));
        assert!(!Slot::Wide(U32).takes_register(F64));
        assert!(!Slot::Wide(Bf16).takes_register(B32));
        assert!(!Slot::Wide(U64).takes_register(U32));
        assert!(!Slot::Exact(U32).takes_register(U64));
        assert!(Slot::Lane(F32).takes_register(S32));
        assert!(!Slot::Lane(F32).takes_register(U64));
    }

    /// Which immediates fit which types (ptxas: `mov.b32 %r, 0f3F800000` is valid,
    /// `mov.u32 %r, 0f3F800000` and `add.f32 %f, %f, 1` are not).
    #[test]
    fn float_literals_fit_floats_and_their_bit_size() {
        assert_eq!(Literal::of("0F3F800000"), Literal::F32);
        assert_eq!(Literal::of("-0x10"), Literal::Int);
        assert_eq!(Literal::of("1.5"), Literal::F64);
        assert_eq!(Literal::of("(1 << 4) + 3"), Literal::Int);
        assert_eq!(Literal::of("WARP_SZ"), Literal::Int);
        assert_eq!(Literal::of("2 * 1.5"), Literal::F64);
        assert!(Slot::Exact(B32).takes_literal(Literal::F32));
        assert!(!Slot::Exact(U32).takes_literal(Literal::F32));
        assert!(!Slot::Exact(F32).takes_literal(Literal::Int));
        assert!(!Slot::Exact(F16).takes_literal(Literal::Int));
        assert!(!Slot::Packed { wide: false }.takes_literal(Literal::Int));
    }

    /// A vector's elements: neighbours of one size and compatible types.
    #[test]
    fn vector_types_follow_their_bit_element() {
        assert_eq!(vector_type(&[U32, B32, F32]), Some(B32));
        assert_eq!(vector_type(&[U32, S32]), Some(U32));
        assert_eq!(vector_type(&[F32, U32]), None);
        assert_eq!(vector_type(&[U32, U64]), None);
    }
}
