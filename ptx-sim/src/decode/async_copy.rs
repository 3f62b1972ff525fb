//! Decoding `cp.async` (global to shared, 4, 8 or 16 bytes, optionally fewer read and the
//! rest zero-filled) and its `commit_group`, `wait_group` and `wait_all`. The bulk and
//! tensor forms (`cp.async.bulk`, Hopper's TMA) and `cp.async.mbarrier.arrive` stay
//! unsupported.

use ptx_core::PtxType;

use super::Decoder;
use crate::error::SimError;
use crate::parse::Stmt;
use crate::program::{MemSpace, Op};

impl Decoder {
    /// `cp.async.{ca,cg}.shared{::cta}.global{hints} [dst], [src], cp-size{, src-size |
    /// ignore-src}{, cache-policy}`, `cp.async.commit_group`, `cp.async.wait_group n`,
    /// `cp.async.wait_all`.
    pub(super) fn cp_async(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let o = &s.operands;
        match p {
            ["cp", "async", "commit_group"] => {
                self.expect_ops(s, 0)?;
                self.emit(Op::CpAsyncCommit, s);
                Ok(())
            }
            ["cp", "async", "wait_all"] => {
                self.expect_ops(s, 0)?;
                self.emit(Op::CpAsyncWaitAll, s);
                Ok(())
            }
            ["cp", "async", "wait_group"] => {
                self.expect_ops(s, 1)?;
                let n = self.imm(&o[0], PtxType::U32)? as u32;
                self.emit(Op::CpAsyncWait { n }, s);
                Ok(())
            }
            ["cp", "async", level @ ("ca" | "cg"), "shared", "global", hints @ ..] => {
                let mut policy = false;
                for h in hints {
                    match *h {
                        "L2::64B" | "L2::128B" | "L2::256B" => {}
                        "L2::cache_hint" if !policy => policy = true,
                        _ => return Err(unsup(self)),
                    }
                }
                let (fixed, optional) = (3 + policy as usize, o.len().saturating_sub(3 + policy as usize));
                if o.len() < fixed || optional > 1 {
                    return Err(self.parse_err(format!(
                        "`{}` takes {fixed} or {} operand(s), found {}",
                        s.opcode,
                        fixed + 1,
                        o.len()
                    )));
                }
                if policy {
                    self.cache_policy_operand(&o[o.len() - 1])?;
                }
                let size = self.imm(&o[2], PtxType::U32)?;
                // `.cg` copies 16 bytes; `.ca` 4, 8 or 16.
                if !(size == 16 || (*level == "ca" && matches!(size, 4 | 8))) {
                    return Err(self.parse_err(format!("`{}` cannot copy {size} bytes", s.opcode)));
                }
                let (dst, doff) = self.address(&o[0], MemSpace::Shared)?;
                let (src, soff) = self.address(&o[1], MemSpace::Global)?;
                // src-size, bytes read (the rest zero-filled); or ignore-src, a predicate that
                // reads none where true.
                let src_size = match optional {
                    0 => self.konst(size),
                    _ => match self.reg(&o[3]) {
                        Ok((p, PtxType::Pred)) => {
                            let (none, all, d) = (self.konst(0), self.konst(size), self.scratch());
                            self.emit(Op::Selp { d, a: none, b: all, p }, s);
                            d
                        }
                        _ => self.src(&o[3], PtxType::U32)?,
                    },
                };
                self.emit(Op::CpAsync { dst, doff, src, soff, size: size as u8, src_size }, s);
                Ok(())
            }
            _ => Err(unsup(self)),
        }
    }
}
