//! Decoding the tensor-core instructions `ldmatrix` (`.m8n8` of `.b16`) and `mma.sync` (the
//! `.row.col` forms of sm_80: see [`crate::tensor::MmaForm::new`]). Their operands are
//! checked as ptxas checks them: fragments are `{ }` vectors (of one register too), of
//! `.b32` registers for packed 16-bit, `.tf32` and 8-bit values, of `.f32`/`.b32`,
//! `.f64`/`.b64` or 32-bit integer registers for accumulators of those types.

use ptx_core::PtxType;

use super::operand::Slot;
use super::Decoder;
use crate::error::SimError;
use crate::parse::Stmt;
use crate::program::{MemSpace, Op, R};
use crate::tensor::{Acc, Elem, MmaForm};

impl Decoder {
    /// The registers of fragment operand `tok`: a `{ }` vector of `n` registers of `slot`.
    fn fragment(&mut self, s: &Stmt, tok: &str, n: usize, slot: Slot, dst: bool) -> Result<Vec<R>, SimError> {
        if !tok.starts_with('{') {
            return Err(self.parse_err(format!("`{}` takes a vector `{{..}}` for operand `{tok}`", s.opcode)));
        }
        let regs = self.group(tok, slot, dst)?;
        if regs.len() != n {
            return Err(self.parse_err(format!(
                "`{}` takes {n} register(s) in `{tok}`, found {}",
                s.opcode,
                regs.len()
            )));
        }
        Ok(regs)
    }

    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 d, [a]`.
    pub(super) fn ldmatrix(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let ["ldmatrix", "sync", "aligned", "m8n8", num, rest @ ..] = p else { return Err(unsup(self)) };
        let count = match *num {
            "x1" => 1,
            "x2" => 2,
            "x4" => 4,
            _ => return Err(unsup(self)),
        };
        let (trans, rest) = match rest {
            ["trans", rest @ ..] => (true, rest),
            _ => (false, rest),
        };
        let space = match rest {
            ["shared", "b16"] => MemSpace::Shared,
            ["b16"] => MemSpace::Generic,
            _ => return Err(unsup(self)),
        };
        self.expect_ops(s, 2)?;
        let regs = self.fragment(s, &s.operands[0], count, Slot::Exact(PtxType::B32), true)?;
        let (base, off) = self.address(&s.operands[1], space)?;
        let mut d = [regs[0]; 4];
        d[..count].copy_from_slice(&regs);
        self.emit(Op::LdMatrix { count: count as u8, trans, space, d, base, off }, s);
        Ok(())
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}{.rn}.dtype.atype.btype.ctype d, a, b, c`.
    pub(super) fn mma(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let ["mma", "sync", "aligned", shape, "row", "col", rest @ ..] = p else { return Err(unsup(self)) };
        let (satfinite, rest) = match rest {
            ["satfinite", rest @ ..] => (true, rest),
            _ => (false, rest),
        };
        let (rn, rest) = match rest {
            ["rn", rest @ ..] => (true, rest),
            _ => (false, rest),
        };
        let [dt, at, bt, ct] = rest else { return Err(unsup(self)) };
        let form = MmaForm::new(shape, dt, at, bt, ct, satfinite).ok_or_else(|| unsup(self))?;
        if rn && form.d != Acc::F64 {
            return Err(unsup(self));
        }
        self.expect_ops(s, 4)?;
        let elem_slot = |e: Elem| match e {
            Elem::F64 => Slot::Exact(PtxType::F64),
            Elem::S8 | Elem::U8 => Slot::Exact(PtxType::U32),
            _ => Slot::Packed { wide: false },
        };
        let acc_slot = |a: Acc| match a {
            Acc::F16 => Slot::Packed { wide: false },
            Acc::F32 => Slot::Exact(PtxType::F32),
            Acc::F64 => Slot::Exact(PtxType::F64),
            Acc::S32 => Slot::Exact(PtxType::S32),
        };
        let o = &s.operands;
        let mut regs = self.fragment(s, &o[0], form.d_regs(), acc_slot(form.d), true)?;
        regs.extend(self.fragment(s, &o[1], form.a_regs(), elem_slot(form.a), false)?);
        regs.extend(self.fragment(s, &o[2], form.b_regs(), elem_slot(form.b), false)?);
        regs.extend(self.fragment(s, &o[3], form.c_regs(), acc_slot(form.c), false)?);
        let frag = self.frags.len() as u32;
        self.frags.extend(regs);
        self.emit(Op::Mma { form, frag }, s);
        Ok(())
    }
}
