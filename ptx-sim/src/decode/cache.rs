//! Cache hints: `createpolicy` and the eviction-priority and `.L2::cache_hint` qualifiers of
//! `ld`/`st` (what Triton writes for `eviction_policy=`). The simulator has no cache, so a
//! hint never changes what a thread reads or writes; each form is still checked against the
//! PTX ISA, and a policy is a 64-bit value like any other.

use ptx_core::PtxType;

use super::Decoder;
use crate::error::SimError;
use crate::parse::Stmt;
use crate::program::{MemSpace, Op};

/// A cache qualifier of `ld`/`st`, as [`Decoder::cache_qualifier`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CacheQualifier {
    /// `.L1::evict_*`, `.L1::no_allocate`, or (loads only) `.L2::64B`/`128B`/`256B`.
    Hint,
    /// `.L2::cache_hint`: the instruction takes a trailing `.b64` cache-policy operand.
    PolicyOperand,
}

/// `.L2::` priorities a policy may give first.
const PRIMARY: [&str; 4] = ["L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"];
/// `.L2::` priorities a policy may give second.
const SECONDARY: [&str; 2] = ["L2::evict_first", "L2::evict_unchanged"];

impl Decoder {
    /// Reads `q` as a cache qualifier of `ld` (`is_ld`) or `st`; `None` when it is none.
    pub(super) fn cache_qualifier(q: &str, is_ld: bool) -> Option<CacheQualifier> {
        match q {
            "L1::evict_normal"
            | "L1::evict_unchanged"
            | "L1::evict_first"
            | "L1::evict_last"
            | "L1::no_allocate" => Some(CacheQualifier::Hint),
            "L2::64B" | "L2::128B" | "L2::256B" if is_ld => Some(CacheQualifier::Hint),
            "L2::cache_hint" => Some(CacheQualifier::PolicyOperand),
            _ => None,
        }
    }

    /// Checks the cache-policy operand `tok` of a `.L2::cache_hint` access: a `.b64`
    /// register or immediate (ptxas takes no `.f64` register, so it is checked as `.u64`).
    /// Nothing runs for it.
    pub(super) fn cache_policy_operand(&mut self, tok: &str) -> Result<(), SimError> {
        self.src(tok, PtxType::U64).map(drop)
    }

    /// `createpolicy.fractional`, `.range` and `.cvt`: the destination gets an opaque
    /// policy: the priorities' indices and the fraction's bits (1.0 for `.range`), or for
    /// `.cvt` the access property it converts.
    pub(super) fn create_policy(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let o = &s.operands;
        if p.last() != Some(&"b64") || p.len() < 3 {
            return Err(unsup(self));
        }
        if p[1..] == ["cvt", "L2", "b64"] {
            let (d, [a]) = self.dst_srcs(s, PtxType::U64, [PtxType::U64])?;
            self.emit(Op::Mov { d, a }, s);
            return Ok(());
        }
        let (kind, mut prios) = (p[1], &p[2..p.len() - 1]);
        if kind == "range" && prios.first() == Some(&"global") {
            prios = &prios[1..];
        }
        let primary = prios.first().and_then(|q| PRIMARY.iter().position(|x| x == q));
        let secondary = match prios.get(1) {
            None => Some(0),
            Some(q) => SECONDARY.iter().position(|x| x == q).map(|i| i + 1),
        };
        let (Some(primary), Some(secondary), true) = (primary, secondary, prios.len() <= 2) else {
            return Err(unsup(self));
        };
        let fraction = match kind {
            // `d{, fraction}`: an f32 immediate in (0, 1], 1 when left out.
            "fractional" => match o.len() {
                1 => 1.0f32.to_bits(),
                2 => {
                    let bits = self.imm(&o[1], PtxType::F32)? as u32;
                    let f = f32::from_bits(bits);
                    if !(f > 0.0 && f <= 1.0) {
                        return Err(self.parse_err(format!("`{}` needs a fraction in (0, 1]", s.opcode)));
                    }
                    bits
                }
                _ => return Err(self.parse_err(format!("`{}` takes 1 or 2 operand(s)", s.opcode))),
            },
            // `d, [a], primary-size, total-size`: a global range, sizes as `.b32` (ptxas
            // takes no f32 register for them: checked as `.u32`).
            "range" => {
                self.expect_ops(s, 4)?;
                self.address(&o[1], MemSpace::Global)?;
                for tok in &o[2..] {
                    self.src(tok, PtxType::U32)?;
                }
                1.0f32.to_bits()
            }
            _ => return Err(unsup(self)),
        };
        let d = self.dst(&o[0], PtxType::U64)?;
        let policy = self.konst((fraction as u64) << 32 | (secondary as u64) << 4 | primary as u64);
        self.emit(Op::Mov { d, a: policy }, s);
        Ok(())
    }
}
