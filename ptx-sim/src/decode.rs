//! Decodes a kernel's statements into [`Op`]s: resolves register names to slots, folds
//! immediates and shared-array addresses into constant slots, resolves labels, and picks a
//! specialised op for the common forms (e.g. `add.rn.f32`, scalar 32-bit global loads).
//!
//! Every opcode, modifier and type combination that the decoder does not implement is an
//! [`SimError::Unsupported`] naming it.

use std::collections::HashMap;

use ptx_core::eval;
use ptx_core::ir::{BinaryOp, Cmp, CvtRound, ShflMode, SpecialReg, UnaryOp};
use ptx_core::PtxType;

use crate::const_expr::{int_const, is_name, mentions_float, symbol_offset, IntConst};
use crate::error::SimError;
use crate::literal::{float_literal, float_literal_bits, float_overflow, hex_float_bits, is_hex_float};
use crate::memory::{AtomKind, IntAtom};
use crate::parse::{BodyItem, Stmt};
use crate::program::{
    BarReduce, BarSite, BitOp, BitOp2, Counter, DataDef, FArith, FUn, FloatClass, HalfForm, HalfOp,
    KernelCode, MemSpace, Op, ParamInfo, PrmtMode, ReduxOp, VoteKind, LOCAL_WINDOW, R, SHARED_WINDOW,
};
use crate::signature::PtxParam;
use ptx_core::softfloat::Rnd;

mod async_copy;
mod cache;
mod operand;
mod tensor;
mod video;

use cache::CacheQualifier;
use operand::{vector_type, Literal, Slot};

/// A `.reg .T %prefix<N>` declaration.
#[derive(Clone, Debug)]
pub(crate) struct RegDecl {
    pub(crate) prefix: String,
    pub(crate) ty: PtxType,
    pub(crate) count: u32,
    /// `%name` (one register named exactly that) rather than `%name<N>`.
    pub(crate) single: bool,
    pub(crate) line: usize,
}

/// A `.shared`/`.local` array or variable: its name, alignment and size in bytes.
#[derive(Clone, Debug)]
pub(crate) struct SharedDef {
    pub(crate) name: String,
    pub(crate) align: u32,
    pub(crate) bytes: u32,
}

/// A kernel's arrays: static `.shared`, the module's `.extern .shared` (dynamic), `.local`.
pub(crate) struct Arrays<'a> {
    pub(crate) shared: Vec<SharedDef>,
    pub(crate) dynamic: &'a [SharedDef],
    /// `.local` arrays and call-sequence `.param`s.
    pub(crate) locals: Vec<SharedDef>,
    pub(crate) data: &'a [DataDef],
}

/// Lays out arrays one after another at their alignments: each name's offset, and the end.
fn layout(arrays: &[SharedDef]) -> (HashMap<String, u32>, u64) {
    let mut offset = 0u64;
    let mut map = HashMap::new();
    for s in arrays {
        let start = offset.div_ceil(s.align as u64) * s.align as u64;
        map.insert(s.name.clone(), start.min(u32::MAX as u64) as u32);
        offset = start + s.bytes as u64;
    }
    (map, offset)
}

/// The kernel parameters whose address the body takes (`mov.u64 %rd, k_param_0`), as
/// thread-local arrays of their bytes (rounded up to whole 8-byte slots), for the `mov` to
/// fill and point at.
fn addressed_params(params: &[PtxParam], body: &[BodyItem]) -> Vec<SharedDef> {
    let takes_address = |s: &crate::parse::Stmt, name: &str| {
        (s.opcode.starts_with("mov.") || s.opcode.starts_with("cvta.param"))
            && s.operands.get(1).and_then(|o| param_operand(o)).is_some_and(|(n, _)| n == name)
    };
    params
        .iter()
        .filter(|p| body.iter().any(|item| matches!(item, BodyItem::Instr(s) if takes_address(s, &p.name))))
        .map(|p| SharedDef {
            name: p.name.clone(),
            align: 8,
            bytes: u32::try_from(p.size_bytes().div_ceil(8).max(1) * 8).unwrap_or(u32::MAX),
        })
        .collect()
}

/// An operand naming a variable, `name` or `name+offset` (an integer constant expression,
/// [`symbol_offset`]): the name and the offset.
fn param_operand(tok: &str) -> Option<(&str, u64)> {
    match symbol_offset(tok) {
        Some((name, offset)) => Some((name, offset.ok()?)),
        None => (!tok.contains('+')).then(|| (tok.trim(), 0)),
    }
}

fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

struct Decoder {
    kernel: String,
    regs: HashMap<String, (u32, u32, PtxType)>,
    /// Registers declared one by one (`%SP`), by name.
    singles: HashMap<String, (u32, PtxType)>,
    /// `.local` arrays: their offsets in the thread's local memory.
    locals: HashMap<String, u32>,
    /// The module's variables, by name: their index.
    data: HashMap<String, usize>,
    /// The registers that hold the addresses of the variables the kernel uses.
    data_slots: Vec<(usize, u64, R)>,
    params: Vec<PtxParam>,
    /// The first slot of each parameter (one per 8 bytes of a byte array).
    param_slots: Vec<R>,
    consts: HashMap<u64, R>,
    init: Vec<u64>,
    shared: HashMap<String, u32>,
    code: Vec<Op>,
    text: Vec<String>,
    sources: Vec<Option<String>>,
    labels: HashMap<String, u32>,
    fixups: Vec<(usize, String, usize)>,
    /// `.branchtargets` lists by their labels: the targets of `brx.idx`.
    branch_targets: HashMap<String, Vec<String>>,
    /// The hidden register of the carry flag (`add.cc` writes it, `addc` reads it), made
    /// on first use.
    carry_flag: Option<R>,
    /// The fragment registers of `mma` instructions ([`Op::Mma`]).
    frags: Vec<R>,
    line: usize,
}

/// The most static `.shared` memory a kernel may declare (ptxas's limit, 48 KiB).
pub(crate) const MAX_STATIC_SHARED: u32 = 48 * 1024;

/// The most `.local` memory a thread may have here (CUDA allows 512 KiB; the simulator
/// keeps every thread's of a block at once).
pub(crate) const MAX_LOCAL: u32 = 64 * 1024;

/// Builds a [`KernelCode`] from a parsed kernel.
pub(crate) fn decode_kernel(
    name: String,
    params: Vec<PtxParam>,
    reg_decls: Vec<RegDecl>,
    arrays: Arrays<'_>,
    body: Vec<BodyItem>,
    line: usize,
) -> Result<KernelCode, SimError> {
    let Arrays { shared, dynamic, mut locals, data } = arrays;
    locals.extend(addressed_params(&params, &body));
    let mut regs = HashMap::new();
    let mut singles = HashMap::new();
    let mut nregs: u32 = 0;
    for r in &reg_decls {
        let twice = if r.single {
            singles.insert(r.prefix.clone(), (nregs, r.ty)).is_some() || regs.contains_key(&r.prefix)
        } else {
            regs.insert(r.prefix.clone(), (nregs, r.count, r.ty)).is_some() || singles.contains_key(&r.prefix)
        };
        if twice {
            return Err(SimError::Parse {
                line: r.line,
                message: format!("registers `%{}` are declared twice", r.prefix),
            });
        }
        nregs = nregs
            .checked_add(r.count)
            .filter(|n| u64::from(*n) < crate::parse::MAX_REGISTERS)
            .ok_or_else(|| SimError::Unsupported { line: r.line, what: "more than 2^20 registers".into() })?;
    }
    // Checked: ptxas allows at most 48 KiB of static shared memory per kernel.
    let (mut shared_map, end) = layout(&shared);
    if end > MAX_STATIC_SHARED as u64 {
        return Err(SimError::Unsupported {
            line,
            what: format!(
                "{end} bytes of static .shared memory (at most {MAX_STATIC_SHARED}, as ptxas allows)"
            ),
        });
    }
    let mut offset = end as u32;
    // Every `.extern .shared` array starts where the dynamic shared memory does: after the
    // static arrays, at the largest alignment asked for (the padding counts as static).
    if let Some(align) = dynamic.iter().map(|s| s.align).max() {
        offset = offset.div_ceil(align) * align;
        for s in dynamic {
            shared_map.insert(s.name.clone(), offset);
        }
    }
    let (local_map, local_end) = layout(&locals);
    let local_bytes = u32::try_from(local_end).ok().filter(|&b| b <= MAX_LOCAL).ok_or_else(|| {
        let what = format!(
            "{local_end} bytes of .local memory per thread (the simulator holds at most {} KiB a thread, \
             CUDA 512 KiB; a recursive function's frame counts once per level it is inlined to)",
            MAX_LOCAL / 1024
        );
        SimError::Unsupported { line, what }
    })?;
    // Each parameter's slots after the registers: one for a scalar, one per 8 bytes of an
    // array (its size is bounded by `signature::MAX_PARAM_BYTES`).
    let mut param_slots = Vec::with_capacity(params.len());
    let mut next = nregs;
    for p in &params {
        param_slots.push(next);
        next += p.size_bytes().div_ceil(8).max(1) as u32;
    }
    let mut d = Decoder {
        kernel: name,
        regs,
        singles,
        init: vec![0; next as usize],
        params,
        param_slots,
        consts: HashMap::new(),
        shared: shared_map,
        locals: local_map,
        data: data.iter().enumerate().map(|(i, d)| (d.name.clone(), i)).collect(),
        data_slots: Vec::new(),
        code: Vec::new(),
        text: Vec::new(),
        sources: Vec::new(),
        labels: HashMap::new(),
        fixups: Vec::new(),
        branch_targets: HashMap::new(),
        carry_flag: None,
        frags: Vec::new(),
        line,
    };
    for item in &body {
        match item {
            BodyItem::Label(l, line) => {
                if d.labels.insert(l.clone(), d.code.len() as u32).is_some() {
                    return Err(SimError::Parse {
                        line: *line,
                        message: format!("label `{l}` is placed twice"),
                    });
                }
            }
            BodyItem::Instr(s) => {
                d.line = s.line;
                d.stmt(s)?;
            }
        }
    }
    d.code.push(Op::Ret);
    d.text.push("ret (implicit, end of kernel)".into());
    d.sources.push(None);
    for (at, label, line) in std::mem::take(&mut d.fixups) {
        let t = *d.labels.get(&label).ok_or_else(|| SimError::Parse {
            line,
            message: format!("branch to undefined label `{label}`"),
        })?;
        match &mut d.code[at] {
            Op::Bra { t: x } | Op::BraIf { t: x, .. } | Op::BraIfNot { t: x, .. } => *x = t,
            _ => {}
        }
    }
    let params = d
        .params
        .iter()
        .map(|p| ParamInfo {
            name: ptx_core::print::param_source_name(&d.kernel, &p.name).to_string(),
            ty: p.ty,
            array: p.array,
        })
        .collect();
    Ok(KernelCode {
        name: d.kernel,
        params,
        static_shared: offset,
        local_bytes,
        data: Default::default(),
        data_slots: d.data_slots,
        block_limit: Default::default(),
        cluster: None,
        code: d.code,
        text: d.text,
        sources: d.sources,
        init: d.init,
        param_slots: d.param_slots,
        frags: d.frags,
    })
}

fn parse_rnd(s: &str) -> Option<Rnd> {
    match s {
        "rn" => Some(Rnd::Rn),
        "rz" => Some(Rnd::Rz),
        "rm" => Some(Rnd::Rm),
        "rp" => Some(Rnd::Rp),
        _ => None,
    }
}

fn parse_cvt_round(s: &str) -> Option<CvtRound> {
    Some(match s {
        "rn" => CvtRound::Rn,
        "rz" => CvtRound::Rz,
        "rm" => CvtRound::Rm,
        "rp" => CvtRound::Rp,
        "rni" => CvtRound::Rni,
        "rzi" => CvtRound::Rzi,
        "rmi" => CvtRound::Rmi,
        "rpi" => CvtRound::Rpi,
        _ => return None,
    })
}

impl Decoder {
    fn unsupported(&self, what: impl Into<String>) -> SimError {
        SimError::Unsupported { line: self.line, what: what.into() }
    }

    fn parse_err(&self, message: impl Into<String>) -> SimError {
        SimError::Parse { line: self.line, message: message.into() }
    }

    fn ty(&self, s: &str) -> Result<PtxType, SimError> {
        PtxType::from_ptx_name(s).ok_or_else(|| self.unsupported(format!("type `.{s}`")))
    }

    /// The register holding the address of module variable `name` (allocated on first use;
    /// the launch fills it in).
    fn variable(&mut self, name: &str) -> Option<R> {
        self.variable_at(name, 0)
    }

    /// [`Self::variable`] for the address `offset` bytes into it (`tbl+8` as an operand).
    fn variable_at(&mut self, name: &str, offset: u64) -> Option<R> {
        let index = *self.data.get(name)?;
        if let Some(&(.., r)) = self.data_slots.iter().find(|(i, o, _)| *i == index && *o == offset) {
            return Some(r);
        }
        let r = self.scratch();
        self.data_slots.push((index, offset, r));
        Some(r)
    }

    /// A fresh register of the decoder's own (for flushed `.ftz` inputs, a vector load's `_`
    /// lanes, the steps of an instruction taken apart).
    fn scratch(&mut self) -> R {
        let r = self.init.len() as R;
        self.init.push(0);
        r
    }

    /// The carry flag's register.
    fn carry_flag(&mut self) -> R {
        if let Some(r) = self.carry_flag {
            return r;
        }
        let r = self.scratch();
        self.carry_flag = Some(r);
        r
    }

    /// `r` with a subnormal f32 flushed to a zero of its sign, in a fresh register.
    fn flushed(&mut self, r: R, s: &Stmt) -> R {
        let f = self.scratch();
        self.emit(Op::FlushF32 { d: f, a: r }, s);
        f
    }

    /// A signed integer result narrower than its destination register (`cvt.s8.s32 %r1`)
    /// sign-extended to the register's width, as PTX's relaxed type rules for destinations
    /// require.
    fn sign_extend_narrow(&mut self, tok: &str, d: R, ty: PtxType, s: &Stmt) -> Result<(), SimError> {
        let reg_bits = self.reg(tok)?.1.bits();
        if ty.is_signed() && ty.bits() < reg_bits {
            let src_bits = ty.bits() as u8;
            self.emit(Op::CvtIntInt { d, a: d, src_bits, signed: true, dst_mask: width_mask(reg_bits) }, s);
        }
        Ok(())
    }

    /// What `.ftz` and `.sat` do to an f32 result in `d`, in that order.
    fn finish_f32(&mut self, d: R, ftz: bool, sat: bool, s: &Stmt) {
        if ftz {
            self.emit(Op::FlushF32 { d, a: d }, s);
        }
        if sat {
            self.emit(Op::SatFloat { f64: false, d, a: d }, s);
        }
    }

    fn konst(&mut self, v: u64) -> R {
        if let Some(r) = self.consts.get(&v) {
            return *r;
        }
        let r = self.init.len() as R;
        self.init.push(v);
        self.consts.insert(v, r);
        r
    }

    fn reg(&self, tok: &str) -> Result<(R, PtxType), SimError> {
        let Some(body) = tok.strip_prefix('%') else {
            return self
                .bare_reg(tok)
                .ok_or_else(|| self.parse_err(format!("expected a register, found `{tok}`")));
        };
        if let Some(&(r, ty)) = self.singles.get(body) {
            return Ok((r, ty));
        }
        // Special registers of the PTX ISA the simulator does not model (a cooperative
        // launch's `%envreg`, the driver's shared-memory reservations, performance counters,
        // the sm_90 cluster registers `%clusterid`, `%cluster_ctarank`, ..): an unsupported
        // construct, not an undeclared or malformed register.
        const UNMODELLED: [&str; 10] = [
            "envreg",
            "cluster",
            "nclusterid",
            "is_explicit_cluster",
            "reserved_smem_offset",
            "dynamic_smem_size",
            "total_smem_size",
            "aggr_smem_size",
            "current_graph_exec",
            "pm",
        ];
        if UNMODELLED.iter().any(|u| body.starts_with(u))
            && !self.regs.contains_key(body.trim_end_matches(|c: char| c.is_ascii_digit()))
        {
            return Err(self.unsupported(format!("special register `{tok}`")));
        }
        let split = body.find(|c: char| c.is_ascii_digit()).unwrap_or(body.len());
        let (prefix, num) = body.split_at(split);
        let idx: u32 = num.parse().map_err(|_| self.parse_err(format!("malformed register `{tok}`")))?;
        match self.regs.get(prefix) {
            Some(&(base, count, ty)) if idx < count => Ok((base + idx, ty)),
            Some(_) => Err(self.parse_err(format!("register `{tok}` is beyond its declaration"))),
            None => Err(self.parse_err(format!("register `{tok}` is not declared"))),
        }
    }

    /// A register declared without `%` (`.reg .u32 t1;` in inline assembly).
    fn bare_reg(&self, tok: &str) -> Option<(R, PtxType)> {
        self.singles.get(&format!("={tok}")).copied()
    }

    /// The destination register `tok`, which must fit `slot` ([`Self::check_register`]).
    fn dst(&self, tok: &str, slot: impl Into<Slot>) -> Result<R, SimError> {
        if tok.contains('|') {
            return Err(self.unsupported(format!("predicate pair destination `{tok}`")));
        }
        self.check_register(tok, slot.into())?;
        Ok(self.reg(tok)?.0)
    }

    /// `d, a, b, ..`: the destination register and the sources, each checked against and
    /// read as its slot (after checking the operand count).
    fn dst_srcs<const N: usize>(
        &mut self,
        s: &Stmt,
        dst: impl Into<Slot>,
        srcs: [impl Into<Slot>; N],
    ) -> Result<(R, [R; N]), SimError> {
        self.expect_ops(s, N + 1)?;
        let d = self.dst(&s.operands[0], dst)?;
        let mut regs = [0; N];
        for (i, slot) in srcs.into_iter().enumerate() {
            regs[i] = self.src(&s.operands[i + 1], slot)?;
        }
        Ok((d, regs))
    }

    /// A `d|p` destination (`d` alone where the `|p` is optional): the register `d` (`None`
    /// for the sink `_`), which must fit `slot`, and the predicate `p`.
    fn pair_dst(&self, tok: &str, slot: impl Into<Slot>) -> Result<(Option<R>, Option<R>), SimError> {
        let (d, p) = match tok.split_once('|') {
            Some((d, p)) => (d.trim(), Some(self.pred(p.trim())?)),
            None => (tok, None),
        };
        let d = if d == "_" { None } else { Some(self.dst(d, slot)?) };
        Ok((d, p))
    }

    /// Checks that register operand `tok` (immediates and names pass) fits `slot` by the
    /// operand type rules of [`Slot::takes_register`]; the error names the register, its
    /// type and the registers the slot takes.
    fn check_register(&self, tok: &str, slot: Slot) -> Result<(), SimError> {
        let Ok((_, reg)) = self.reg(tok) else { return Ok(()) };
        if !slot.takes_register(reg) {
            return Err(self.parse_err(format!(
                "`{tok}` is a {reg} register; this {} operand takes {} registers",
                slot.name(),
                slot.register_names()
            )));
        }
        Ok(())
    }

    fn pred(&self, tok: &str) -> Result<R, SimError> {
        let (r, ty) = self.reg(tok)?;
        if ty != PtxType::Pred {
            return Err(self.parse_err(format!("`{tok}` is not a .pred register")));
        }
        Ok(r)
    }

    /// A predicate source: a `.pred` register, or an integer immediate or constant
    /// expression (true when not zero, as ptxas takes `1`, `0x1`, `2` or `1 > 0`), which PTX
    /// allows where an instruction reads one.
    fn pred_src(&mut self, tok: &str) -> Result<R, SimError> {
        if is_name(tok) {
            return self.pred(tok);
        }
        let v = self.int_const(tok)?;
        Ok(self.konst(u64::from(v.bits != 0)))
    }

    /// The value of integer constant expression `tok` ([`int_const`]: a literal,
    /// `WARP_SZ`, `(1 << 4) + 3`); an error says what is wrong with it.
    fn int_const(&self, tok: &str) -> Result<IntConst, SimError> {
        int_const(tok).map_err(|e| self.parse_err(e))
    }

    /// Immediate `tok` read as `ty`: the bits of a `0f`/`0d` literal ([`hex_float_bits`]), a
    /// decimal float of a float type, or an integer constant expression that fits `ty`
    /// ([`IntConst::fits`]), truncated to its width.
    fn imm(&self, tok: &str, ty: PtxType) -> Result<u64, SimError> {
        if is_hex_float(tok) {
            return hex_float_bits(tok, ty)
                .ok_or_else(|| self.parse_err(format!("malformed immediate `{tok}` for type {ty}")));
        }
        if ty.is_float() && !tok.starts_with("0x") && !tok.starts_with("0X") {
            return self.float_imm(tok, ty);
        }
        let bits = ty.bits();
        let v = self.int_const(tok)?;
        if !v.fits(bits) {
            return Err(self.parse_err(format!("immediate `{tok}` does not fit {ty}")));
        }
        Ok(v.bits & width_mask(bits))
    }

    /// A decimal float immediate (`1.5`, `1e-3`) of a `.f32` or `.f64` instruction: the
    /// nearest double, rounded to nearest f32 for `.f32`, as ptxas reads it. An expression
    /// of floats (`1.5 * 2.0`, which ptxas evaluates) is unsupported.
    fn float_imm(&self, tok: &str, ty: PtxType) -> Result<u64, SimError> {
        if float_literal(tok).is_none() && mentions_float(tok) {
            return Err(self.unsupported(format!(
                "floating-point constant expression `{tok}` (write its value; integer constant expressions are \
                 evaluated)"
            )));
        }
        if float_literal(tok).is_none() {
            return Err(self.parse_err(format!("malformed float immediate `{tok}` for type {ty}")));
        }
        if let Some(why) = float_overflow(tok) {
            return Err(self.parse_err(why));
        }
        float_literal_bits(tok, ty.bits()).ok_or_else(|| {
            self.unsupported(format!("decimal float immediate `{tok}` for type {ty} (write its bits)"))
        })
    }

    /// A source operand of `slot`: a register that fits it ([`Self::check_register`]), a
    /// shared-array or variable name, or an immediate of a kind it takes
    /// ([`Slot::takes_literal`]), read as its type.
    fn src(&mut self, tok: &str, slot: impl Into<Slot>) -> Result<R, SimError> {
        let slot = slot.into();
        if tok.starts_with('%') {
            if SpecialReg::ALL.iter().any(|s| s.ptx_name() == tok) || Counter::ALL.iter().any(|c| c.1 == tok)
            {
                return Err(self.unsupported(format!("special register `{tok}` outside `mov`")));
            }
            self.check_register(tok, slot)?;
            return Ok(self.reg(tok)?.0);
        }
        if let Some((r, _)) = self.bare_reg(tok) {
            self.check_register(tok, slot)?;
            return Ok(r);
        }
        if let Some(off) = self.shared.get(tok).or_else(|| self.locals.get(tok)) {
            let off = *off as u64;
            return Ok(self.konst(off));
        }
        if let Some(r) = self.variable(tok) {
            return Ok(r);
        }
        // `name+8`, `name+0x8`, `name+2*4`: an address into a module variable or a shared or
        // local array (the offset an integer constant expression).
        if let Some((name, offset)) = symbol_offset(tok) {
            let array = self.shared.get(name).or_else(|| self.locals.get(name)).copied();
            if array.is_some() || self.data.contains_key(name) {
                let offset = offset.map_err(|e| self.parse_err(e))?;
                if let Some(base) = array {
                    return Ok(self.konst(u64::from(base).wrapping_add(offset)));
                }
                if let Some(r) = self.variable_at(name, offset) {
                    return Ok(r);
                }
            }
        }
        let lit = Literal::of(tok);
        if lit == Literal::Int {
            // What is wrong with a malformed one (an unknown name, a division by zero), before
            // whether the slot takes an integer.
            self.int_const(tok)?;
        }
        if !slot.takes_literal(lit) {
            return Err(self.parse_err(format!(
                "`{tok}` is {} immediate, which this {} operand cannot take",
                lit.name(),
                slot.name()
            )));
        }
        let v = self.imm(tok, slot.ty())?;
        Ok(self.konst(v))
    }

    /// A `bfe`/`bfi` bit position or length: a `.u32` operand, an immediate one 0..=255
    /// (ptxas: "value out of range", the value read as signed).
    fn bit_field(&mut self, tok: &str) -> Result<R, SimError> {
        if int_const(tok).is_ok_and(|v| !(0..=255).contains(&(v.bits as i64))) {
            return Err(self.parse_err(format!("bit-field immediate `{tok}` is not in 0..=255")));
        }
        self.src(tok, PtxType::U32)
    }

    /// `[base+off]`: the base register (or constant slot of a shared array) and offset.
    fn address(&mut self, tok: &str, space: MemSpace) -> Result<(R, i32), SimError> {
        let inner = tok
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .ok_or_else(|| self.parse_err(format!("expected an address `[...]`, found `{tok}`")))?
            .trim();
        if inner.is_empty() {
            return Err(self.parse_err(format!("empty address `{tok}`")));
        }
        // The first '+' or '-' after the base's first character (char-boundary safe).
        let split = inner.char_indices().skip(1).find(|&(_, c)| c == '+' || c == '-').map(|(i, _)| i);
        let (base, off) = match split {
            Some(i) => {
                let (b, o) = inner.split_at(i);
                (b.trim(), self.address_offset(o, tok)?)
            }
            None => (inner, 0),
        };
        if base.starts_with('%') || self.bare_reg(base).is_some() {
            self.check_register(base, Slot::Address)?;
            return Ok((self.reg(base)?.0, off));
        }
        if let Some(r) = self.variable(base) {
            if !matches!(space, MemSpace::Global | MemSpace::Generic) {
                return Err(self.unsupported(format!("variable `{base}` addressed outside .global/.const")));
            }
            return Ok((r, off));
        }
        if let Some(&o) = self.locals.get(base) {
            if space != MemSpace::Local {
                return Err(self.unsupported(format!("local array `{base}` addressed outside .local")));
            }
            return Ok((self.konst(o as u64), off));
        }
        if let Some(o) = self.shared.get(base) {
            if space != MemSpace::Shared {
                return Err(self.unsupported(format!("shared array `{base}` addressed outside .shared")));
            }
            let o = *o as u64;
            return Ok((self.konst(o), off));
        }
        if base.parse::<u64>().is_ok() {
            return Err(self.unsupported(format!("absolute address `{tok}`")));
        }
        Err(self.parse_err(format!("unknown address base `{base}`")))
    }

    /// The offset `off` of address `tok` (`[%rd1+off]`): `+` and an integer constant
    /// expression (`+8`, `+-8`, `+0x10`, `+2*4`, `+(4)`; `-8` alone is ptxas's syntax error),
    /// read as signed; one beyond 32 bits is unsupported.
    fn address_offset(&self, off: &str, tok: &str) -> Result<i32, SimError> {
        let Some(expr) = off.strip_prefix('+') else {
            return Err(self.parse_err(format!(
                "malformed address offset in `{tok}` (PTX writes a negative one `+-n`)"
            )));
        };
        let v = self.int_const(expr)?.bits as i64;
        i32::try_from(v).map_err(|_| self.unsupported(format!("address offset in `{tok}` beyond 32 bits")))
    }

    /// The registers of operand `tok` of `slot`, destinations (`dst`) or sources: the one
    /// register (or immediate source) `tok`, or the elements of a `{%a, %b}` group, whose
    /// registers' common type ([`vector_type`]) must fit the slot (a `_` destination is read
    /// and dropped; an immediate source must be of a kind the slot takes).
    fn group(&mut self, tok: &str, slot: Slot, dst: bool) -> Result<Vec<R>, SimError> {
        if !tok.starts_with('{') {
            return Ok(vec![if dst { self.dst(tok, slot)? } else { self.src(tok, slot)? }]);
        }
        let toks: Vec<String> = self.group_tokens(tok).into_iter().map(str::to_string).collect();
        let types: Vec<PtxType> = toks.iter().filter_map(|t| self.reg(t).ok()).map(|(_, ty)| ty).collect();
        if !types.is_empty() {
            let common = vector_type(&types)
                .ok_or_else(|| self.parse_err(format!("the registers of `{tok}` differ in size or type")))?;
            if !slot.takes_register(common) {
                return Err(self.parse_err(format!(
                    "`{tok}` holds {common} registers; this {} operand takes {} registers",
                    slot.name(),
                    slot.register_names()
                )));
            }
        }
        toks.iter()
            .map(|t| match self.reg(t) {
                Ok((r, _)) => Ok(r),
                Err(_) if dst && t == "_" => Ok(self.scratch()),
                Err(e) if dst => Err(e),
                Err(_) => self.src(t, slot),
            })
            .collect()
    }

    /// The register names of a `{%a, %b}` group, or the one register `tok`.
    fn group_tokens<'t>(&self, tok: &'t str) -> Vec<&'t str> {
        match tok.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            Some(inner) => inner.split(',').map(str::trim).collect(),
            None => vec![tok],
        }
    }

    fn expect_ops(&self, s: &Stmt, n: usize) -> Result<(), SimError> {
        if s.operands.len() != n {
            return Err(self.parse_err(format!(
                "`{}` takes {n} operand(s), found {}",
                s.opcode,
                s.operands.len()
            )));
        }
        Ok(())
    }

    fn emit(&mut self, op: Op, s: &Stmt) {
        self.code.push(op);
        self.text.push(s.text.clone());
        self.sources.push(s.source.clone());
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), SimError> {
        if s.opcode == ".branchtargets" {
            // `tlist: .branchtargets L1, L2;` (the parser puts `tlist` first): no code.
            let (list, targets) = s
                .operands
                .split_first()
                .filter(|(_, targets)| !targets.is_empty())
                .ok_or_else(|| self.parse_err("`.branchtargets` without a label to branch to"))?;
            self.branch_targets.insert(list.clone(), targets.to_vec());
            return Ok(());
        }
        // `.shared::cta` is `.shared` spelled out (PTX 7.8); `.shared::cluster`, another
        // block's shared memory, stays unsupported.
        let parts: Vec<&str> =
            s.opcode.split('.').map(|p| if p == "shared::cta" { "shared" } else { p }).collect();
        if let Some((neg, reg)) = &s.guard {
            let p = self.pred(reg)?;
            if parts[0] == "bra" {
                return self.bra(s, &parts, Some((*neg, p)));
            }
            let at = self.code.len();
            let skip = if *neg { Op::BraIf { p, t: 0 } } else { Op::BraIfNot { p, t: 0 } };
            self.emit(skip, s);
            self.instr(s, &parts)?;
            let end = self.code.len() as u32;
            match &mut self.code[at] {
                Op::BraIf { t, .. } | Op::BraIfNot { t, .. } => *t = end,
                _ => {}
            }
            return Ok(());
        }
        self.instr(s, &parts)
    }

    fn bra(&mut self, s: &Stmt, parts: &[&str], guard: Option<(bool, R)>) -> Result<(), SimError> {
        if !(parts == ["bra"] || parts == ["bra", "uni"]) {
            return Err(self.unsupported(format!("opcode `{}`", s.opcode)));
        }
        self.expect_ops(s, 1)?;
        let op = match guard {
            None => Op::Bra { t: 0 },
            Some((false, p)) => Op::BraIf { p, t: 0 },
            Some((true, p)) => Op::BraIfNot { p, t: 0 },
        };
        self.fixups.push((self.code.len(), s.operands[0].clone(), self.line));
        self.emit(op, s);
        Ok(())
    }

    /// `brx.idx[.uni] index, tlist`: a branch to target `index` of the `.branchtargets`
    /// list `tlist` (declared before it, as the PTX ISA requires), taken apart into one
    /// conditional branch per target; an index past the list, undefined in the PTX ISA,
    /// stops the launch naming the index and the list's length ([`Op::BrxOutside`]).
    fn brx(&mut self, s: &Stmt, parts: &[&str]) -> Result<(), SimError> {
        if !(parts == ["brx", "idx"] || parts == ["brx", "idx", "uni"]) {
            return Err(self.unsupported(format!("opcode `{}`", s.opcode)));
        }
        self.expect_ops(s, 2)?;
        let index = self.src(&s.operands[0], PtxType::U32)?;
        let targets = self.branch_targets.get(&s.operands[1]).cloned().ok_or_else(|| {
            self.parse_err(format!("`{}` is no `.branchtargets` list declared before", s.operands[1]))
        })?;
        let count = targets.len() as u32;
        for (k, target) in targets.into_iter().enumerate() {
            let (p, b) = (self.scratch(), self.konst(k as u64));
            self.emit(Op::SetpU { cmp: Cmp::Eq, d: p, a: index, b }, s);
            self.fixups.push((self.code.len(), target, self.line));
            self.emit(Op::BraIf { p, t: 0 }, s);
        }
        self.emit(Op::BrxOutside { index, targets: count }, s);
        Ok(())
    }

    fn instr(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let o = &s.operands;
        match p[0] {
            "add" | "sub" | "mul" | "fma" | "neg" | "abs" | "min" | "max" | "setp"
                if matches!(p.last(), Some(&("f16" | "f16x2" | "bf16" | "bf16x2"))) =>
            {
                self.half(s, p)?
            }
            "add" | "min" | "max" if p.iter().any(|q| matches!(*q, "u16x2" | "s16x2" | "relu")) => {
                self.int_lanes(s, p)?
            }
            "addc" | "subc" | "madc" => self.carry(s, p)?,
            name if video::video_simd_opcode(name).is_some() => {
                let Some((op, lane_bits)) = video::video_simd_opcode(name) else { unreachable!() };
                self.video_simd(s, p, op, lane_bits)?
            }
            name if video::video_scalar_opcode(name).is_some() => {
                let Some(op) = video::video_scalar_opcode(name) else { unreachable!() };
                self.video_scalar(s, p, op)?
            }
            "add" | "sub" | "mad" if p.contains(&"cc") => self.carry(s, p)?,
            "mov" => {
                let [_, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                self.expect_ops(s, 2)?;
                if o[0].starts_with('{') || o[1].starts_with('{') {
                    return self.mov_vector(s, ty);
                }
                let d = self.dst(&o[0], ty)?;
                if let Some(&(which, _, bits)) = Counter::ALL.iter().find(|c| c.1 == o[1]) {
                    // (ptxas also takes `mov.u32` of `%gridid`, 32 bits wide before PTX 3.0:
                    // its low word, 0 here too.)
                    if ty.bits() != bits && !(which == Counter::GridId && ty.bits() == 32) {
                        return Err(self.unsupported(format!("`{}` of the {bits}-bit `{}`", s.opcode, o[1])));
                    }
                    self.emit(Op::Counter { which, d }, s);
                } else if let Some(sr) = SpecialReg::ALL.iter().find(|r| r.ptx_name() == o[1]) {
                    if ty.bits() != 32 {
                        return Err(self.unsupported(format!("`{}` of a special register", s.opcode)));
                    }
                    self.emit(Op::Special { d, which: *sr }, s);
                } else if let Some(address) = self.kernel_param_address(&o[1], s)? {
                    // `mov.u64 %rd, k_param_0`: the address of a parameter (NVRTC's for a struct
                    // passed by value and indexed at run time), which `ld.param [%rd+n]` and,
                    // after `cvta.param`, generic loads read.
                    if ty.bits() != 64 {
                        return Err(
                            self.unsupported(format!("`{}` of kernel parameter `{}`", s.opcode, o[1]))
                        );
                    }
                    self.emit(Op::Mov { d, a: address }, s);
                } else {
                    let a = self.src(&o[1], ty)?;
                    self.emit(Op::Mov { d, a }, s);
                }
            }
            "ld" | "st" => self.memory(s, p)?,
            // `ldu`: a load of read-only data the warp's threads share, which is `ld` for
            // every value it returns.
            "ldu" if p[1..p.len() - 1].iter().all(|q| matches!(*q, "global" | "v2" | "v4")) => {
                let mut as_ld = p.to_vec();
                as_ld[0] = "ld";
                self.memory(s, &as_ld)?
            }
            "createpolicy" => self.create_policy(s, p)?,
            "cp" => self.cp_async(s, p)?,
            "ldmatrix" => self.ldmatrix(s, p)?,
            "mma" => self.mma(s, p)?,
            "cvta" => {
                // `cvta.param.u64 %rd, k_param_0`: the generic address of a kernel parameter
                // named, its thread's copy's (`kernel_param_address`).
                if p == ["cvta", "param", "u64"] && o.len() == 2 {
                    if let Some(address) = self.kernel_param_address(&o[1], s)? {
                        let d = self.dst(&o[0], PtxType::U64)?;
                        let w = self.konst(LOCAL_WINDOW);
                        self.emit(Op::Add { d, a: address, b: w, mask: width_mask(64) }, s);
                        return Ok(());
                    }
                }
                // Generic addresses are global ones, or an offset in the local or shared
                // window ([`LOCAL_WINDOW`], [`SHARED_WINDOW`]). `.const` variables live in
                // device memory here, at global addresses: `cvta.const` (LLVM takes one's
                // generic address so at -O0) keeps the address.
                let (to_generic, window) = match p {
                    ["cvta", "to", "global", "u64"] | ["cvta", "global" | "const", "u64"] => (true, 0),
                    ["cvta", "local", "u64"] => (true, LOCAL_WINDOW),
                    ["cvta", "to", "local", "u64"] => (false, LOCAL_WINDOW),
                    ["cvta", "shared", "u64"] => (true, SHARED_WINDOW),
                    ["cvta", "to", "shared", "u64"] => (false, SHARED_WINDOW),
                    // Parameters whose address is taken are thread-local copies here (call
                    // sequences' too): their generic addresses are in the local window.
                    ["cvta", "param", "u64"] => (true, LOCAL_WINDOW),
                    ["cvta", "to", "param", "u64"] => (false, LOCAL_WINDOW),
                    _ => return Err(unsup(self)),
                };
                let (d, [a]) = self.dst_srcs(s, PtxType::U64, [PtxType::U64])?;
                let w = self.konst(window);
                let mask = width_mask(64);
                let op = if to_generic { Op::Add { d, a, b: w, mask } } else { Op::Sub { d, a, b: w, mask } };
                self.emit(op, s);
            }
            "neg" | "abs" | "not" => {
                // `.ftz` (f32 only): a subnormal input gives a zero of the result's sign.
                let (op, t, ftz) = match p {
                    [op, t] => (op, t, false),
                    [op @ ("neg" | "abs"), "ftz", t @ "f32"] => (op, t, true),
                    _ => return Err(unsup(self)),
                };
                let ty = self.ty(t)?;
                let (d, [mut a]) = self.dst_srcs(s, ty, [ty])?;
                if ftz {
                    a = self.flushed(a, s);
                }
                let op = match *op {
                    "neg" => UnaryOp::Neg,
                    "abs" => UnaryOp::Abs,
                    _ => UnaryOp::Not,
                };
                if ty.is_arith_float() && op != UnaryOp::Not {
                    let f = if op == UnaryOp::Neg { FUn::Neg } else { FUn::Abs };
                    self.emit(Op::FUnary { op: f, f64: ty == PtxType::F64, d, a }, s);
                } else if int_unary_exists(op, ty) {
                    self.emit(Op::IntUnary { op, ty, d, a }, s);
                } else {
                    return Err(unsup(self));
                }
            }
            "sqrt" | "rcp" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => {
                // `.ftz` (what NVRTC's fast forms use): subnormal inputs and results are
                // flushed to a zero of their sign around the operation.
                let (op, mode, t, ftz) = match p {
                    [op, mode, t] => (op, mode, t, false),
                    [op, mode, "ftz", t] => (op, mode, t, true),
                    _ => return Err(unsup(self)),
                };
                if matches!(*t, "f16" | "bf16" | "f16x2" | "bf16x2") {
                    // `ex2.approx.f16x2`, `tanh.approx.bf16`, ..: named as the instruction, not
                    // as a type (16-bit float arithmetic itself runs).
                    return Err(self.unsupported(format!("`{}` (16-bit float approximations)", s.opcode)));
                }
                let ty = self.ty(t)?;
                if !ty.is_arith_float() {
                    return Err(unsup(self));
                }
                let f64 = ty == PtxType::F64;
                let f = match (*op, *mode, f64) {
                    ("sqrt", m, _) if parse_rnd(m).is_some() => FUn::Sqrt(parse_rnd(m).unwrap_or(Rnd::Rn)),
                    ("rcp", m, _) if parse_rnd(m).is_some() => FUn::Rcp(parse_rnd(m).unwrap_or(Rnd::Rn)),
                    ("sqrt", "approx", false) => FUn::SqrtApprox,
                    ("rcp", "approx", false) => FUn::RcpApprox,
                    ("rsqrt", "approx", false) => FUn::Rsqrt,
                    ("ex2", "approx", false) => FUn::Ex2,
                    ("lg2", "approx", false) => FUn::Lg2,
                    ("sin", "approx", false) => FUn::Sin,
                    ("cos", "approx", false) => FUn::Cos,
                    ("tanh", "approx", false) => FUn::Tanh,
                    // Seeds of the CUDA math library's f64 division and power (refined by
                    // Newton steps): computed exactly here.
                    ("rcp", "approx", true) if ftz => FUn::RcpApproxF64,
                    ("rsqrt", "approx", true) if ftz => FUn::RsqrtApproxFtzF64,
                    ("rsqrt", "approx", true) => FUn::RsqrtApproxF64,
                    _ => return Err(unsup(self)),
                };
                let (d, [mut a]) = self.dst_srcs(s, ty, [ty])?;
                // (The f64 approximations with `.ftz` flush their own subnormals.)
                let ftz32 = ftz && !f64;
                if ftz32 {
                    a = self.flushed(a, s);
                }
                self.emit(Op::FUnary { op: f, f64, d, a }, s);
                self.finish_f32(d, ftz32, false, s);
            }
            "shf" => {
                let (left, clamp) = match p {
                    ["shf", dir @ ("l" | "r"), mode @ ("wrap" | "clamp"), "b32"] => {
                        (*dir == "l", *mode == "clamp")
                    }
                    _ => return Err(unsup(self)),
                };
                let (d, [a, b, c]) =
                    self.dst_srcs(s, PtxType::B32, [PtxType::B32, PtxType::B32, PtxType::U32])?;
                self.emit(Op::Shf { left, clamp, d, a, b, c }, s);
            }
            "prmt" => {
                let mode = match p {
                    ["prmt", "b32"] => PrmtMode::Generic,
                    ["prmt", "b32", "f4e"] => PrmtMode::F4e,
                    ["prmt", "b32", "b4e"] => PrmtMode::B4e,
                    ["prmt", "b32", "rc8"] => PrmtMode::Rc8,
                    ["prmt", "b32", "ecl"] => PrmtMode::Ecl,
                    ["prmt", "b32", "ecr"] => PrmtMode::Ecr,
                    ["prmt", "b32", "rc16"] => PrmtMode::Rc16,
                    _ => return Err(unsup(self)),
                };
                let (d, [a, b, c]) = self.dst_srcs(s, PtxType::B32, [PtxType::B32; 3])?;
                self.emit(Op::Prmt { mode, d, a, b, c }, s);
            }
            "fns" => {
                if p != ["fns", "b32"] {
                    return Err(unsup(self));
                }
                // (ptxas reads `base` and `offset` as `.b32`: an f32 register passes.)
                let (d, [mask, base, offset]) = self.dst_srcs(s, PtxType::B32, [PtxType::B32; 3])?;
                self.emit(Op::Fns { d, mask, base, offset }, s);
            }
            "dp4a" | "dp2a" => {
                let (pairs, high, at, bt) = match p {
                    ["dp4a", at, bt] => (4, false, *at, *bt),
                    ["dp2a", "lo", at, bt] => (2, false, *at, *bt),
                    ["dp2a", "hi", at, bt] => (2, true, *at, *bt),
                    _ => return Err(unsup(self)),
                };
                let signed = |t: &str| match t {
                    "s32" => Some(true),
                    "u32" => Some(false),
                    _ => None,
                };
                let (Some(a_signed), Some(b_signed)) = (signed(at), signed(bt)) else {
                    return Err(unsup(self));
                };
                // Integer operands (`.u32` takes the registers `.s32` does; an f32 one not).
                let (d, [a, b, c]) = self.dst_srcs(s, PtxType::U32, [PtxType::U32; 3])?;
                self.emit(Op::Dot { pairs, high, a_signed, b_signed, d, a, b, c }, s);
            }
            "cvt" if p.len() == 4 && p[2] == "tf32" && p[3] == "f32" => {
                let mode = match p[1] {
                    "rna" => crate::bits::Tf32Round::NearestAway,
                    "rn" => crate::bits::Tf32Round::NearestEven,
                    "rz" => crate::bits::Tf32Round::Zero,
                    _ => return Err(unsup(self)),
                };
                let (d, [a]) = self.dst_srcs(s, Slot::Packed { wide: false }, [PtxType::F32])?;
                self.emit(Op::Tf32 { mode, d, a }, s);
            }
            "sad" => {
                let [_, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                if !ty.is_int() || ty.bits() < 16 {
                    return Err(unsup(self));
                }
                let (d, [a, b, c]) = self.dst_srcs(s, ty, [ty; 3])?;
                self.emit(Op::Sad { signed: ty.is_signed(), bits: ty.bits() as u8, d, a, b, c }, s);
            }
            "lop3" => {
                // `lop3.b32 d, a, b, c, immLut`: the three-input function whose truth table
                // is the immediate (PTX's `lop3.or`/`.and` with a predicate are not here).
                if p != ["lop3", "b32"] {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 5)?;
                let d = self.dst(&o[0], PtxType::B32)?;
                let a = self.src(&o[1], PtxType::B32)?;
                let b = self.src(&o[2], PtxType::B32)?;
                let c = self.src(&o[3], PtxType::B32)?;
                let lut = u8::try_from(self.imm(&o[4], PtxType::B32)?)
                    .map_err(|_| self.parse_err(format!("`lop3` table `{}` is not 0..=255", o[4])))?;
                self.emit(Op::Lop3 { lut, d, a, b, c }, s);
            }
            "bmsk" | "szext" => {
                // `bmsk.mode.b32 d, a, b`: `b` ones from bit `a`; `szext.mode.type d, a, b`:
                // the low `b` bits of `a` sign- or zero-extended (`.clamp`/`.wrap`: how a
                // position or width of 32 or more counts).
                let (clamp, t) = match p {
                    [_, mode @ ("clamp" | "wrap"), t] => (*mode == "clamp", *t),
                    _ => return Err(unsup(self)),
                };
                let op = match (p[0], t) {
                    ("bmsk", "b32") => BitOp2::Bmsk,
                    ("szext", "s32" | "u32") => BitOp2::Szext { signed: t == "s32" },
                    _ => return Err(unsup(self)),
                };
                // (`bmsk`'s operands are positions and widths: ptxas gives its `.b32`
                // destination no f32 register either.)
                let ty = if op == BitOp2::Bmsk { PtxType::U32 } else { self.ty(t)? };
                let (d, [a, b]) = self.dst_srcs(s, ty, [ty, PtxType::U32])?;
                self.emit(Op::Mask { op, clamp, d, a, b }, s);
            }
            "slct" => self.slct(s, p)?,
            "cnot" => {
                // `d = a == 0 ? 1 : 0`.
                let [_, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                if !matches!(ty, PtxType::B16 | PtxType::B32 | PtxType::B64) {
                    return Err(unsup(self));
                }
                let (d, [a]) = self.dst_srcs(s, ty, [ty])?;
                let zero = self.konst(0);
                self.emit(Op::SetpU { cmp: Cmp::Eq, d, a, b: zero }, s);
            }
            "mul24" | "mad24" => {
                // The 48-bit product of 24-bit operands, its bits 0..32 (`.lo`) or 16..48
                // (`.hi`), plus `c` for `mad24` (clamped to the s32 range with `.sat`).
                let (hi, sat, t) = match p {
                    [_, half @ ("lo" | "hi"), t] => (*half == "hi", false, *t),
                    ["mad24", "hi", "sat", t @ "s32"] => (true, true, *t),
                    _ => return Err(unsup(self)),
                };
                let ty = self.ty(t)?;
                if !matches!(ty, PtxType::U32 | PtxType::S32) {
                    return Err(unsup(self));
                }
                let signed = ty.is_signed();
                if p[0] == "mul24" {
                    let (d, [a, b]) = self.dst_srcs(s, ty, [ty; 2])?;
                    self.emit(Op::Mul24 { hi, signed, d, a, b }, s);
                    return Ok(());
                }
                let (d, [a, b, c]) = self.dst_srcs(s, ty, [ty; 3])?;
                let product = self.scratch();
                self.emit(Op::Mul24 { hi, signed, d: product, a, b }, s);
                let op = if sat {
                    Op::AddSatS32 { sub: false, d, a: product, b: c }
                } else {
                    Op::Add { d, a: product, b: c, mask: width_mask(32) }
                };
                self.emit(op, s);
            }
            "activemask" => {
                if p != ["activemask", "b32"] {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 1)?;
                let d = self.dst(&o[0], PtxType::B32)?;
                self.emit(Op::ActiveMask { d }, s);
            }
            "match" => {
                // `match.{any,all}.sync.{b32,b64}` (also accepted with `.sync` first).
                let (all, t) = match p {
                    ["match", "any", "sync", t] | ["match", "sync", "any", t] => (false, *t),
                    ["match", "all", "sync", t] | ["match", "sync", "all", t] => (true, *t),
                    _ => return Err(unsup(self)),
                };
                let ty = self.ty(t)?;
                if !matches!(ty, PtxType::B32 | PtxType::B64) {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 3)?;
                // (ptxas gives the `.b32` destination and mask no f32 register.)
                let (d, equal) = self.pair_dst(&o[0], PtxType::U32)?;
                if equal.is_some() && !all {
                    return Err(self.parse_err("`match.any` has no predicate destination"));
                }
                let d = match d {
                    Some(d) => d,
                    None => self.scratch(),
                };
                let a = self.src(&o[1], ty)?;
                let mask = self.src(&o[2], PtxType::U32)?;
                self.emit(Op::Match { all, d, equal, a, mask }, s);
            }
            "redux" => {
                let [_, "sync", op, t] = p else { return Err(unsup(self)) };
                let (op, signed) = match (*op, *t) {
                    ("add", "u32" | "s32") => (ReduxOp::Add, false),
                    ("min", "u32" | "s32") => (ReduxOp::Min, *t == "s32"),
                    ("max", "u32" | "s32") => (ReduxOp::Max, *t == "s32"),
                    ("and", "b32") => (ReduxOp::And, false),
                    ("or", "b32") => (ReduxOp::Or, false),
                    ("xor", "b32") => (ReduxOp::Xor, false),
                    _ => return Err(unsup(self)),
                };
                // (ptxas gives none of the `.b32` operands an f32 register.)
                let (d, [a, mask]) = self.dst_srcs(s, PtxType::U32, [PtxType::U32; 2])?;
                self.emit(Op::Redux { op, signed, d, a, mask }, s);
            }
            "elect" => {
                if p != ["elect", "sync"] {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 2)?;
                let (d, pred) = self.pair_dst(&o[0], PtxType::U32)?;
                let p = pred.ok_or_else(|| self.parse_err("`elect.sync` needs a `d|p` destination"))?;
                let mask = self.src(&o[1], PtxType::U32)?;
                self.emit(Op::Elect { d, p, mask }, s);
            }
            "bfe" | "bfi" => {
                let [op, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                let wide = ty.bits() == 64;
                if ty.bits() < 32 || ty.is_float() || ty == PtxType::Pred {
                    return Err(unsup(self));
                }
                if *op == "bfe" {
                    if !ty.is_int() {
                        return Err(unsup(self));
                    }
                    self.expect_ops(s, 4)?;
                    let d = self.dst(&o[0], ty)?;
                    let a = self.src(&o[1], ty)?;
                    let pos = self.bit_field(&o[2])?;
                    let len = self.bit_field(&o[3])?;
                    self.emit(Op::Bfe { wide, signed: ty.is_signed(), d, a, pos, len }, s);
                } else {
                    self.expect_ops(s, 5)?;
                    let d = self.dst(&o[0], ty)?;
                    let a = self.src(&o[1], ty)?;
                    let b = self.src(&o[2], ty)?;
                    let pos = self.bit_field(&o[3])?;
                    let len = self.bit_field(&o[4])?;
                    self.emit(Op::Bfi { wide, d, a, b, pos, len }, s);
                }
            }
            "copysign" => {
                // `d` is `b` with the sign of `a`.
                let [_, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                if !ty.is_arith_float() {
                    return Err(unsup(self));
                }
                let (d, [a, b]) = self.dst_srcs(s, ty, [ty; 2])?;
                let sign = if ty == PtxType::F64 { 1u64 << 63 } else { 1 << 31 };
                let (sign_mask, magnitude_mask) =
                    (self.konst(sign), self.konst(width_mask(ty.bits()) & !sign));
                let (from_a, from_b) = (self.scratch(), self.scratch());
                self.emit(Op::And { d: from_a, a, b: sign_mask }, s);
                self.emit(Op::And { d: from_b, a: b, b: magnitude_mask }, s);
                self.emit(Op::Or { d, a: from_a, b: from_b }, s);
            }
            "popc" | "clz" | "brev" | "bfind" => {
                let (op, t) = match p {
                    ["popc", t] => (BitOp::Popc, *t),
                    ["clz", t] => (BitOp::Clz, *t),
                    ["brev", t] => (BitOp::Brev, *t),
                    ["bfind", t] => (BitOp::Bfind { signed: t.starts_with('s'), shiftamt: false }, *t),
                    ["bfind", "shiftamt", t] => {
                        (BitOp::Bfind { signed: t.starts_with('s'), shiftamt: true }, *t)
                    }
                    _ => return Err(unsup(self)),
                };
                let ty = self.ty(t)?;
                let typed_ok = match op {
                    BitOp::Bfind { .. } => ty.is_int() && ty.bits() >= 32,
                    _ => ty.class() == ptx_core::types::TypeClass::Bits && ty.bits() >= 32,
                };
                if !typed_ok {
                    return Err(unsup(self));
                }
                // A count or position is a `.u32`; `brev` gives its own type.
                let dty = if matches!(op, BitOp::Brev) { ty } else { PtxType::U32 };
                let (d, [a]) = self.dst_srcs(s, dty, [ty])?;
                self.emit(Op::Bits { op, wide: ty.bits() == 64, d, a }, s);
            }
            "vote" => {
                let kind = match p {
                    ["vote", "sync", "ballot", "b32"] => VoteKind::Ballot,
                    ["vote", "sync", "any", "pred"] => VoteKind::Any,
                    ["vote", "sync", "all", "pred"] => VoteKind::All,
                    ["vote", "sync", "uni", "pred"] => VoteKind::Uni,
                    _ => return Err(unsup(self)),
                };
                self.expect_ops(s, 3)?;
                let dty = if kind == VoteKind::Ballot { PtxType::B32 } else { PtxType::Pred };
                let d = self.dst(&o[0], dty)?;
                let (negate, pred) = match o[1].strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, o[1].as_str()),
                };
                let a = self.pred_src(pred)?;
                let mask = self.src(&o[2], PtxType::U32)?;
                self.emit(Op::Vote { kind, d, a, negate, mask }, s);
            }
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr" => {
                self.binary(s, p)?
            }
            "mad" if p.get(1) == Some(&"wide") => {
                // `mad.wide.{u32,s32} d, a, b, c`: the 64-bit product plus a 64-bit `c`.
                let [_, _, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                if !matches!(ty, PtxType::U32 | PtxType::S32 | PtxType::U16 | PtxType::S16) {
                    return Err(unsup(self));
                }
                let wide = if ty.bits() == 32 { PtxType::U64 } else { PtxType::U32 };
                let (d, [a, b, c]) = self.dst_srcs(s, wide, [ty, ty, wide])?;
                let product = self.scratch();
                let op = if ty == PtxType::U32 {
                    Op::MulWideU32 { d: product, a, b }
                } else {
                    Op::MulWide { ty, d: product, a, b }
                };
                self.emit(op, s);
                self.emit(Op::Add { d, a: product, b: c, mask: width_mask(wide.bits()) }, s);
            }
            "mad" if p.get(1).and_then(|m| parse_rnd(m)).is_none() => {
                // `mad.lo`/`mad.hi`: the low or high half of the full product plus `c`,
                // wrapping; `mad.hi.sat.s32` clamps the sum to the s32 range.
                let (hi, sat, t) = match p {
                    [_, half @ ("lo" | "hi"), t] => (*half == "hi", false, *t),
                    [_, "hi", "sat", t @ "s32"] => (true, true, *t),
                    _ => return Err(unsup(self)),
                };
                let ty = self.ty(t)?;
                if !ty.is_int() {
                    return Err(unsup(self));
                }
                let (d, [a, b, c]) = self.dst_srcs(s, ty, [ty; 3])?;
                let mask = width_mask(ty.bits());
                if !hi {
                    self.emit(Op::Mad { d, a, b, c, mask }, s);
                    return Ok(());
                }
                let product = self.scratch();
                self.emit(Op::IntBin { op: BinaryOp::MulHi, ty, d: product, a, b }, s);
                let op = if sat {
                    Op::AddSatS32 { sub: false, d, a: product, b: c }
                } else {
                    Op::Add { d, a: product, b: c, mask }
                };
                self.emit(op, s);
            }
            // `mad.rnd.f32`/`.f64` is `fma.rnd` by another name (PTX ISA, since sm_20).
            "fma" | "mad" => {
                let [_, m, mods @ .., t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                let mode = parse_rnd(m).ok_or_else(|| unsup(self))?;
                if !ty.is_arith_float() {
                    return Err(unsup(self));
                }
                let f64 = ty == PtxType::F64;
                let (ftz, sat) = match (mods, f64) {
                    ([], _) => (false, false),
                    (["ftz"], false) => (true, false),
                    (["sat"], false) => (false, true),
                    (["ftz", "sat"], false) => (true, true),
                    _ => return Err(unsup(self)),
                };
                let (d, [mut a, mut b, mut c]) = self.dst_srcs(s, ty, [ty; 3])?;
                if ftz {
                    (a, b, c) = (self.flushed(a, s), self.flushed(b, s), self.flushed(c, s));
                }
                let op = match (mode, f64) {
                    (Rnd::Rn, false) => Op::FmaF32 { d, a, b, c },
                    (Rnd::Rn, true) => Op::FmaF64 { d, a, b, c },
                    _ => Op::FFma { f64, mode, d, a, b, c },
                };
                self.emit(op, s);
                self.finish_f32(d, ftz, sat, s);
            }
            "cvt"
                if matches!(
                    p,
                    ["cvt", "rn" | "rz", "f16x2" | "bf16x2", "f32"]
                        | ["cvt", "rn" | "rz", "relu", "f16x2" | "bf16x2", "f32"]
                ) =>
            {
                // `cvt.{rn,rz}{.relu}.f16x2.f32 d, a, b`: `a` rounded into the high half, `b`
                // into the low one.
                let half = if p[p.len() - 2] == "f16x2" { PtxType::F16 } else { PtxType::Bf16 };
                let relu = p[2] == "relu";
                let round = Some(if p[1] == "rz" { CvtRound::Rz } else { CvtRound::Rn });
                self.expect_ops(s, 3)?;
                let d = self.dst(&o[0], Slot::Packed { wide: true })?;
                // (ptxas widens the f32 sources of `.f16x2` alone.)
                let from =
                    if half == PtxType::F16 { Slot::Wide(PtxType::F32) } else { Slot::Exact(PtxType::F32) };
                let mut halves = [0; 2];
                for (slot, src) in halves.iter_mut().zip(&o[1..3]) {
                    let mut a = self.src(src, from)?;
                    if relu {
                        // A negative value becomes +0 (NaN stays NaN, as `.relu` defines).
                        let (zero, clamped) = (self.konst(0), self.scratch());
                        self.emit(
                            Op::FMinMax { max: true, nan: true, f64: false, d: clamped, a, b: zero },
                            s,
                        );
                        a = clamped;
                    }
                    *slot = self.scratch();
                    self.emit(Op::Cvt { d: *slot, a, dst: half, src: PtxType::F32, round, sat: false }, s);
                }
                let (high, sixteen) = (self.scratch(), self.konst(16));
                self.emit(
                    Op::IntBin { op: BinaryOp::Shl, ty: PtxType::B32, d: high, a: halves[0], b: sixteen },
                    s,
                );
                self.emit(Op::Or { d, a: high, b: halves[1] }, s);
            }
            "cvt" => {
                if p.len() < 3 {
                    return Err(unsup(self));
                }
                let dst = self.ty(p[p.len() - 2])?;
                let src = self.ty(p[p.len() - 1])?;
                let mut round = None;
                let mut sat = false;
                // `.ftz`: a subnormal f32 source or result is a zero of its sign.
                let mut ftz = false;
                // `.relu` (`cvt.rn.relu.f16.f32`, `.bf16`): a negative value becomes +0, NaN
                // stays NaN.
                let mut relu = false;
                let relu_form = src == PtxType::F32 && matches!(dst, PtxType::F16 | PtxType::Bf16);
                for m in &p[1..p.len() - 2] {
                    match (*m, parse_cvt_round(m)) {
                        (_, Some(r)) if round.is_none() => round = Some(r),
                        ("sat", _) if !sat => sat = true,
                        ("ftz", _) if !ftz && (src == PtxType::F32 || dst == PtxType::F32) => ftz = true,
                        ("relu", _) if !relu && relu_form => relu = true,
                        _ => return Err(self.unsupported(format!("modifier `.{m}` of `{}`", s.opcode))),
                    }
                }
                if relu && (!matches!(round, Some(CvtRound::Rn | CvtRound::Rz)) || sat || ftz) {
                    return Err(
                        self.unsupported(format!("`{}` (`.relu` goes with `.rn` or `.rz` alone)", s.opcode))
                    );
                }
                // `cvt{.ftz}{.sat}.f32.f32` (and f64, f16, bf16): the value itself, flushed or
                // clamped.
                let float_same = dst == src && dst.is_float() && round.is_none();
                if sat && (dst == PtxType::Bf16 || src == PtxType::Bf16) {
                    // (ptxas: "Illegal modifier '.sat'", from or to bf16; `.f16` takes it.)
                    return Err(self.unsupported(format!("`{}`: `.sat` with a bf16 operand", s.opcode)));
                }
                if !float_same {
                    eval::cvt_form(dst, src, round).map_err(|e| self.unsupported(e))?;
                }
                self.expect_ops(s, 2)?;
                let d = self.dst(&o[0], Slot::Wide(dst))?;
                let mut a = self.src(&o[1], Slot::Wide(src))?;
                if ftz && src == PtxType::F32 {
                    a = self.flushed(a, s);
                }
                if relu {
                    let (zero, clamped) = (self.konst(0), self.scratch());
                    self.emit(Op::FMinMax { max: true, nan: true, f64: false, d: clamped, a, b: zero }, s);
                    a = clamped;
                }
                let op = if float_same && sat && dst.is_arith_float() {
                    // `cvt.sat.f32.f32`: a clamp to [0, 1].
                    Op::SatFloat { f64: dst == PtxType::F64, d, a }
                } else if float_same && !sat {
                    Op::Mov { d, a }
                } else if dst.is_int() && src.is_int() && !sat {
                    Op::CvtIntInt {
                        d,
                        a,
                        src_bits: src.bits() as u8,
                        signed: src.is_signed(),
                        dst_mask: width_mask(dst.bits()),
                    }
                } else {
                    Op::Cvt { d, a, dst, src, round, sat }
                };
                self.emit(op, s);
                self.finish_f32(d, ftz && dst == PtxType::F32, false, s);
                self.sign_extend_narrow(&o[0], d, dst, s)?;
            }
            "setp" => {
                // `setp.cmp{.bop}{.ftz}.type p{|q}, a, b{, {!}c}`: `p = (a cmp b) bop c` and
                // `q = !(a cmp b) bop c`.
                let [_, c, mods @ .., t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                let cmp = cmp_named(c).filter(|_| cmp_fits(c, ty)).ok_or_else(|| unsup(self))?;
                let (bop, ftz) = match mods {
                    [] => (None, false),
                    ["ftz"] => (None, true),
                    [b @ ("and" | "or" | "xor")] => (Some(*b), false),
                    [b @ ("and" | "or" | "xor"), "ftz"] => (Some(*b), true),
                    _ => return Err(unsup(self)),
                };
                if ftz && ty != PtxType::F32 {
                    return Err(unsup(self));
                }
                self.expect_ops(s, if bop.is_some() { 4 } else { 3 })?;
                let (d, q) = self.pair_dst(&o[0], PtxType::Pred)?;
                let d = d.ok_or_else(|| self.parse_err("`setp` needs a destination predicate"))?;
                let mut a = self.src(&o[1], ty)?;
                let mut b = self.src(&o[2], ty)?;
                if ftz {
                    (a, b) = (self.flushed(a, s), self.flushed(b, s));
                }
                let plain = bop.is_none() && q.is_none();
                let t = if plain { d } else { self.scratch() };
                let op = match ty {
                    PtxType::F32 => Op::SetpF32 { cmp, d: t, a, b },
                    PtxType::F64 => Op::SetpF64 { cmp, d: t, a, b },
                    _ if cmp.is_float_only() || ty.is_float() || ty == PtxType::Pred => {
                        return Err(unsup(self))
                    }
                    _ if ty.is_signed() => Op::SetpS { cmp, bits: ty.bits() as u8, d: t, a, b },
                    _ if ty.is_int() || matches!(cmp, Cmp::Eq | Cmp::Ne) => Op::SetpU { cmp, d: t, a, b },
                    _ => return Err(unsup(self)),
                };
                self.emit(op, s);
                if !plain {
                    self.predicate_pair(t, d, q, bop, o.get(3).map(String::as_str), s)?;
                }
            }
            "selp" => {
                let [_, t] = p else { return Err(unsup(self)) };
                let ty = self.ty(t)?;
                if ty == PtxType::Pred {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 4)?;
                let d = self.dst(&o[0], ty)?;
                let a = self.src(&o[1], ty)?;
                let b = self.src(&o[2], ty)?;
                let pr = self.pred_src(&o[3])?;
                self.emit(Op::Selp { d, a, b, p: pr }, s);
            }
            "bra" => self.bra(s, p, None)?,
            "brx" => self.brx(s, p)?,
            "call" => self.call(s, p)?,
            // `brkpt` stops at a breakpoint: with no debugger attached, the kernel faults
            // there as a `trap` does.
            "trap" | "brkpt" => {
                if p.len() != 1 {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 0)?;
                self.emit(Op::Trap, s);
            }
            "ret" | "exit" => {
                if !(p.len() == 1 || p == ["ret", "uni"]) {
                    return Err(unsup(self));
                }
                self.expect_ops(s, 0)?;
                self.emit(Op::Ret, s);
            }
            "testp" => {
                let [_, class, t] = p else { return Err(unsup(self)) };
                let class = match *class {
                    "finite" => FloatClass::Finite,
                    "infinite" => FloatClass::Infinite,
                    "number" => FloatClass::Number,
                    "notanumber" => FloatClass::NotANumber,
                    "normal" => FloatClass::Normal,
                    "subnormal" => FloatClass::Subnormal,
                    _ => return Err(unsup(self)),
                };
                let ty = self.ty(t)?;
                if !matches!(ty, PtxType::F32 | PtxType::F64) {
                    return Err(unsup(self));
                }
                let (d, [a]) = self.dst_srcs(s, PtxType::Pred, [ty])?;
                self.emit(Op::Testp { class, double: ty == PtxType::F64, d, a }, s);
            }
            // Cache hints: `prefetch{.space}.level [a]`, `prefetchu.L1 [a]`, `applypriority`
            // (an L2 line's eviction priority), and `discard`, which leaves a line's contents
            // undefined (so keeping them is one of its outcomes).
            "prefetch" | "prefetchu" | "applypriority" | "discard" => {
                if s.operands.is_empty() || s.operands.len() > 2 || !s.operands[0].starts_with('[') {
                    return Err(unsup(self));
                }
            }
            "isspacep" => {
                // `isspacep.space p, a`: whether generic address `a` is in that window.
                let [_, space] = p else { return Err(unsup(self)) };
                self.expect_ops(s, 2)?;
                let d = self.pred(&o[0])?;
                // (ptxas takes a 32-bit address register too.)
                let a = self.src(&o[1], Slot::Wide(PtxType::U32))?;
                let top = self.scratch();
                let high = self.konst(0xffff_0000_0000_0000);
                self.emit(Op::And { d: top, a, b: high }, s);
                let window = |w: u64| w & 0xffff_0000_0000_0000;
                match *space {
                    "shared" | "local" => {
                        let w =
                            self.konst(window(if *space == "shared" { SHARED_WINDOW } else { LOCAL_WINDOW }));
                        self.emit(Op::SetpU { cmp: Cmp::Eq, d, a: top, b: w }, s);
                    }
                    "global" => {
                        let (shared, local) =
                            (self.konst(window(SHARED_WINDOW)), self.konst(window(LOCAL_WINDOW)));
                        let not_local = self.scratch();
                        self.emit(Op::SetpU { cmp: Cmp::Ne, d, a: top, b: shared }, s);
                        self.emit(Op::SetpU { cmp: Cmp::Ne, d: not_local, a: top, b: local }, s);
                        self.emit(Op::And { d, a: d, b: not_local }, s);
                    }
                    _ => return Err(unsup(self)),
                }
            }
            // `pmevent a` / `pmevent.mask a` (CUDA's `__prof_trigger`): a signal to the
            // performance counters, which the simulator has none of.
            "pmevent" if p == ["pmevent"] || p == ["pmevent", "mask"] => {
                self.expect_ops(s, 1)?;
                self.src(&o[0], PtxType::U32)?;
            }
            // Threads run one after another between sync points: a sleep changes nothing.
            "nanosleep" if p == ["nanosleep", "u32"] => {
                self.expect_ops(s, 1)?;
                self.src(&o[0], PtxType::U32)?;
            }
            "bar" if p == ["bar", "warp", "sync"] => {
                self.expect_ops(s, 1)?;
                let mask = self.src(&o[0], PtxType::U32)?;
                self.emit(Op::WarpSync { mask }, s);
            }
            // One simulated thread's accesses are seen in program order by every other, and
            // threads run one after another between sync points: fences change nothing.
            "membar" if matches!(p, ["membar", "cta" | "gl" | "sys"]) => self.expect_ops(s, 0)?,
            // (`fence.proxy.alias` and `membar.proxy.alias` order accesses through different
            // virtual addresses of one location: the simulator's memory has one address per
            // location.)
            "fence" | "membar"
                if matches!(
                    p,
                    ["fence", "sc" | "acq_rel", "cta" | "gpu" | "sys"]
                        | ["fence" | "membar", "proxy", "alias"]
                ) =>
            {
                self.expect_ops(s, 0)?
            }
            // Programmatic dependent launch (sm_90): `griddepcontrol.wait` waits for the grids
            // this one depends on, `.launch_dependents` lets the next start early. Launches
            // here run one after another, each to its end, so the first has nothing to wait
            // for and the second nothing to start.
            "griddepcontrol" if matches!(p, ["griddepcontrol", "wait" | "launch_dependents"]) => {
                self.expect_ops(s, 0)?
            }
            "bar" | "barrier" => self.barrier(s, p)?,
            "set" => self.set(s, p)?,
            "atom" | "red" => {
                // `red` is `atom` without the old value. Memory-order and scope qualifiers
                // (`.relaxed`, `.gpu`, ...) change nothing for one simulated thread.
                let is_red = p[0] == "red";
                let mut q: Vec<&str> = p
                    .iter()
                    .copied()
                    .filter(|q| {
                        !matches!(*q, "relaxed" | "acquire" | "release" | "acq_rel" | "gpu" | "cta" | "sys")
                    })
                    .collect();
                // sm_90's vector form (`red.global.add.v4.f32`, `atom.global.v2.f16x2.add.noftz`):
                // each element its own atomic, one after another; the qualifier may come
                // before or after the operation.
                let lanes = match q.iter().position(|m| matches!(*m, "v2" | "v4" | "v8")) {
                    Some(i) => q.remove(i)[1..].parse::<usize>().unwrap_or(1),
                    None => 1,
                };
                if lanes > 1 && q.get(1) == Some(&"global") && q.len() >= 4 && q[2] != "add" && q[3] == "add"
                {
                    q.swap(2, 3);
                    if q.get(4) == Some(&"noftz") && q.len() == 5 {
                        q.swap(3, 4);
                    }
                }
                // Without a state space, the address is generic (its window decides).
                if !matches!(q.get(1), Some(&("global" | "shared"))) {
                    q.insert(1, "generic");
                }
                // `add.noftz` of 16-bit floats (what `atomicAdd` on `__half` compiles to).
                let half = match q.as_slice() {
                    [_, _, "add", "noftz", t @ ("f16" | "f16x2" | "bf16" | "bf16x2")] => Some(*t),
                    _ => None,
                };
                let q: Vec<&str> = match half {
                    Some(_) => vec![q[0], q[1], "add", "b32"],
                    None => q,
                };
                let [_, sp, op, t] = q.as_slice() else { return Err(unsup(self)) };
                let space = match *sp {
                    "global" => MemSpace::Global,
                    "shared" => MemSpace::Shared,
                    _ => MemSpace::Generic,
                };
                let ty = match half {
                    Some("f16" | "bf16") => PtxType::B16,
                    _ => self.ty(t)?,
                };
                let kind = match (*op, ty) {
                    _ if half.is_some() => AtomKind::AddHalf {
                        bf16: half.is_some_and(|h| h.starts_with("bf")),
                        pair: half.is_some_and(|h| h.ends_with("x2")),
                    },
                    ("add", PtxType::U32 | PtxType::S32) => AtomKind::AddU32,
                    ("add", PtxType::U64) => AtomKind::AddU64,
                    ("add", PtxType::F32) => AtomKind::AddF32,
                    ("add", PtxType::F64) => AtomKind::AddF64,
                    ("cas", t) if t.bits() == 16 && !t.is_float() => AtomKind::Cas16,
                    ("cas", t) if t.bits() == 32 && t != PtxType::Pred && !t.is_float() => AtomKind::Cas32,
                    ("cas", t) if t.bits() == 64 && !t.is_float() => AtomKind::Cas64,
                    ("exch", t) if t.bits() == 32 && !t.is_float() => AtomKind::Exch32,
                    ("exch", t) if t.bits() == 64 && !t.is_float() => AtomKind::Exch64,
                    ("add", PtxType::S64) => AtomKind::AddU64,
                    ("inc", PtxType::U32) => AtomKind::Inc32,
                    ("dec", PtxType::U32) => AtomKind::Dec32,
                    ("min" | "max", t) if t.is_int() && t.bits() >= 32 => AtomKind::Int {
                        op: if *op == "min" { IntAtom::Min } else { IntAtom::Max },
                        wide: t.bits() == 64,
                        signed: t.is_signed(),
                    },
                    ("and" | "or" | "xor", t) if !t.is_float() && t.bits() >= 32 && t != PtxType::Pred => {
                        let op = match *op {
                            "and" => IntAtom::And,
                            "or" => IntAtom::Or,
                            _ => IntAtom::Xor,
                        };
                        AtomKind::Int { op, wide: t.bits() == 64, signed: false }
                    }
                    _ => return Err(unsup(self)),
                };
                let cas = *op == "cas";
                if is_red && cas {
                    return Err(unsup(self));
                }
                if lanes > 1 {
                    // The ISA's vector atomics: `.add` of `.f32` (`.v2`, `.v4`) and `.add.noftz`
                    // of `.f16`/`.bf16` (`.v2`, `.v4`, `.v8`) and of their pairs (`.v2`, `.v4`),
                    // in global memory.
                    let fits = match (half, kind) {
                        (None, AtomKind::AddF32) => lanes <= 4,
                        (Some("f16" | "bf16"), _) => true,
                        (Some(_), _) => lanes <= 4,
                        _ => false,
                    };
                    if space != MemSpace::Global || !fits {
                        return Err(unsup(self));
                    }
                    return self.vector_atom(s, is_red, lanes, half, ty, kind);
                }
                let first = if is_red { 0 } else { 1 };
                self.expect_ops(s, first + if cas { 3 } else { 2 })?;
                // `add.noftz` of 16-bit floats: `.f16`/`.bf16` values, or a pair in a `.b32`.
                let slot = half.map_or(Slot::Exact(ty), half_slot);
                let d = if is_red { self.scratch() } else { self.dst(&o[0], slot)? };
                let (base, off) = self.address(&o[first], space)?;
                let a = self.src(&o[first + 1], slot)?;
                let b = if cas { self.src(&o[first + 2], slot)? } else { a };
                self.emit(Op::Atom { space, kind, d, base, off, a, b }, s);
            }
            "shfl" => {
                let [_, "sync", m, "b32"] = p else { return Err(unsup(self)) };
                let mode = match *m {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    "idx" => ShflMode::Idx,
                    _ => return Err(unsup(self)),
                };
                self.expect_ops(s, 5)?;
                // `d|p`: `p` says whether the source lane was valid.
                let (d, valid) = self.pair_dst(&o[0], PtxType::B32)?;
                let d = d.ok_or_else(|| self.parse_err("`shfl.sync` needs a destination register"))?;
                // (ptxas reads the lane and clamp as `.b32`, the member mask as `.u32`.)
                let src = self.src(&o[1], PtxType::B32)?;
                let lane = self.src(&o[2], PtxType::B32)?;
                let clamp = self.src(&o[3], PtxType::B32)?;
                let mask = self.src(&o[4], PtxType::U32)?;
                self.emit(Op::Shfl { mode, d, valid, src, lane, clamp, mask }, s);
            }
            _ => return Err(unsup(self)),
        }
        Ok(())
    }

    /// Writes `setp`'s `p = t bop c` and `q = !t bop c` from the comparison `t` (without
    /// `bop`: `p = t`, `q = !t`); `c` may be negated (`!%p`).
    fn predicate_pair(
        &mut self,
        t: R,
        d: R,
        q: Option<R>,
        bop: Option<&str>,
        c: Option<&str>,
        s: &Stmt,
    ) -> Result<(), SimError> {
        let one = self.konst(1);
        let c = match c {
            Some(c) => {
                let (negate, name) = match c.strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, c),
                };
                let r = self.pred_src(name)?;
                Some(if negate {
                    let n = self.scratch();
                    self.emit(Op::Xor { d: n, a: r, b: one }, s);
                    n
                } else {
                    r
                })
            }
            None => None,
        };
        let not_t = self.scratch();
        self.emit(Op::Xor { d: not_t, a: t, b: one }, s);
        let combine = |dec: &mut Self, dst: R, v: R| {
            let op = match (bop, c) {
                (Some("and"), Some(c)) => Op::And { d: dst, a: v, b: c },
                (Some("or"), Some(c)) => Op::Or { d: dst, a: v, b: c },
                (Some(_), Some(c)) => Op::Xor { d: dst, a: v, b: c },
                _ => Op::Mov { d: dst, a: v },
            };
            dec.emit(op, s);
        };
        if let Some(q) = q {
            combine(self, q, not_t);
        }
        combine(self, d, t);
        Ok(())
    }

    /// `set.cmp{.ftz}.dtype.stype d, a, b`: `d` is 1.0 (a float `dtype`) or all ones (an
    /// integer one) where `a cmp b` holds, else 0; with 16-bit float pairs, per half.
    fn set(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let (c, ftz, dtype, stype) = match p {
            ["set", c, dt, st] => (*c, false, *dt, *st),
            ["set", c, "ftz", dt, st] => (*c, true, *dt, *st),
            _ => return Err(unsup(self)),
        };
        let cmp = cmp_named(c).ok_or_else(|| unsup(self))?;
        // (A 16-bit float pair type is no `PtxType`: no unsigned comparison fits it either.)
        if !cmp_fits(c, self.ty(stype).unwrap_or(PtxType::F32)) {
            return Err(unsup(self));
        }
        if let ("f16" | "f16x2" | "bf16" | "bf16x2", dt) = (stype, dtype) {
            let (bf16, pair) = (stype.starts_with("bf"), stype.ends_with("x2"));
            let float = match dt {
                _ if dt == stype => true,
                "u32" | "s32" if pair => false,
                "u16" | "s16" if !pair => false,
                _ => return Err(unsup(self)),
            };
            let form = HalfForm { bf16, pair, ftz, sat: false, relu: false, nan: false };
            let half = half_slot(stype);
            let dst = if float { half } else { Slot::Exact(self.ty(dt)?) };
            let (d, [a, b]) = self.dst_srcs(s, dst, [half; 2])?;
            self.emit(Op::SetHalf { cmp, form, float, d, a, b }, s);
            return Ok(());
        }
        let (dty, sty) = (self.ty(dtype)?, self.ty(stype)?);
        let truth = match dty {
            PtxType::F32 => 1f32.to_bits() as u64,
            PtxType::U32 | PtxType::S32 => 0xffff_ffff,
            _ => return Err(unsup(self)),
        };
        let (d, [mut a, mut b]) = self.dst_srcs(s, dty, [sty; 2])?;
        if ftz && sty == PtxType::F32 {
            (a, b) = (self.flushed(a, s), self.flushed(b, s));
        }
        let t = self.scratch();
        let op = match sty {
            PtxType::F32 => Op::SetpF32 { cmp, d: t, a, b },
            PtxType::F64 => Op::SetpF64 { cmp, d: t, a, b },
            _ if cmp.is_float_only() || sty.is_float() || sty == PtxType::Pred => return Err(unsup(self)),
            _ if sty.is_signed() => Op::SetpS { cmp, bits: sty.bits() as u8, d: t, a, b },
            _ => Op::SetpU { cmp, d: t, a, b },
        };
        self.emit(op, s);
        let (yes, no) = (self.konst(truth), self.konst(0));
        self.emit(Op::Selp { d, a: yes, b: no, p: t }, s);
        Ok(())
    }

    /// `slct.dtype.s32 d, a, b, c` and `slct{.ftz}.dtype.f32`: `d = c >= 0 ? a : b`, the
    /// selected operand copied unchanged (a NaN `c` selects `b`, -0.0 selects `a`; `.ftz`
    /// makes a negative subnormal `c` a -0.0).
    fn slct(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let (ftz, dt, ct) = match p {
            ["slct", dt, ct @ ("s32" | "f32")] => (false, *dt, *ct),
            ["slct", "ftz", dt, ct @ "f32"] => (true, *dt, *ct),
            _ => return Err(unsup(self)),
        };
        let (ty, cty) = (self.ty(dt)?, self.ty(ct)?);
        // Every type of 16 bits or more but the 16-bit floats.
        if ty.bits() < 16 || matches!(ty, PtxType::F16 | PtxType::Bf16) {
            return Err(unsup(self));
        }
        let (d, [a, b, mut c]) = self.dst_srcs(s, ty, [ty, ty, cty])?;
        if ftz {
            c = self.flushed(c, s);
        }
        let (t, zero) = (self.scratch(), self.konst(0));
        let cmp = Cmp::Ge;
        let op = if cty == PtxType::F32 {
            Op::SetpF32 { cmp, d: t, a: c, b: zero }
        } else {
            Op::SetpS { cmp, bits: 32, d: t, a: c, b: zero }
        };
        self.emit(op, s);
        self.emit(Op::Selp { d, a, b, p: t }, s);
        Ok(())
    }

    /// The carry chains: `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, and
    /// `mad{c}.{lo,hi}{.cc}` (the product's low or high half plus `c`), on `.u32 .s32 .u64
    /// .s64`. The carry flag is a hidden register of the thread.
    fn carry(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let (half, rest) = match (p[0], &p[1..]) {
            ("mad" | "madc", [h @ ("lo" | "hi"), rest @ ..]) => (Some(*h == "hi"), rest),
            ("mad" | "madc", _) => return Err(unsup(self)),
            (_, rest) => (None, rest),
        };
        let (carry_out, t) = match rest {
            ["cc", t] => (true, *t),
            [t] => (false, *t),
            _ => return Err(unsup(self)),
        };
        let carry_in = p[0].ends_with('c');
        let ty = self.ty(t)?;
        if !(carry_in || carry_out)
            || !matches!(ty, PtxType::U32 | PtxType::S32 | PtxType::U64 | PtxType::S64)
        {
            return Err(unsup(self));
        }
        let o = &s.operands;
        self.expect_ops(s, if half.is_some() { 4 } else { 3 })?;
        let d = self.dst(&o[0], ty)?;
        let mut a = self.src(&o[1], ty)?;
        let mut b = self.src(&o[2], ty)?;
        if let Some(hi) = half {
            let product = self.scratch();
            let op = if hi {
                Op::IntBin { op: BinaryOp::MulHi, ty, d: product, a, b }
            } else {
                Op::MulLo { d: product, a, b, mask: width_mask(ty.bits()) }
            };
            self.emit(op, s);
            (a, b) = (product, self.src(&o[3], ty)?);
        }
        let cc = self.carry_flag();
        let sub = p[0].starts_with("sub");
        self.emit(Op::Carry { sub, wide: ty.bits() == 64, carry_in, carry_out, d, a, b, cc }, s);
        Ok(())
    }

    /// 16-bit float arithmetic and comparison: `add sub mul fma neg abs min max setp` on
    /// `.f16 .f16x2 .bf16 .bf16x2` with `.rn`, `.ftz`, `.sat` (f16), `.relu` (fma: PTX
    /// has no `.relu` on 16-bit float `min`/`max`) and `.NaN` (min, max).
    fn half(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let t = p[p.len() - 1];
        let bf16 = t.starts_with("bf");
        let pair = t.ends_with("x2");
        let mut form = HalfForm { bf16, pair, ftz: false, sat: false, relu: false, nan: false };
        let setp = p[0] == "setp";
        let cmp = if setp {
            let c = p.get(1).ok_or_else(|| unsup(self))?;
            Some(cmp_named(c).ok_or_else(|| unsup(self))?)
        } else {
            None
        };
        let op = match p[0] {
            "add" => HalfOp::Add,
            "sub" => HalfOp::Sub,
            "mul" => HalfOp::Mul,
            "fma" => HalfOp::Fma,
            "neg" => HalfOp::Neg,
            "abs" => HalfOp::Abs,
            "min" => HalfOp::Min,
            "max" => HalfOp::Max,
            _ => HalfOp::Add, // `setp`: unused.
        };
        let arith = matches!(op, HalfOp::Add | HalfOp::Sub | HalfOp::Mul | HalfOp::Fma) && !setp;
        let min_max = matches!(op, HalfOp::Min | HalfOp::Max) && !setp;
        let mut seen_rn = false;
        for m in &p[if setp { 2 } else { 1 }..p.len() - 1] {
            match *m {
                "rn" if arith && !seen_rn => seen_rn = true,
                "ftz" if !bf16 && !form.ftz => form.ftz = true,
                "sat" if !bf16 && arith && !form.sat => form.sat = true,
                "relu" if op == HalfOp::Fma && !form.relu => form.relu = true,
                "NaN" if min_max && !form.nan => form.nan = true,
                _ => return Err(unsup(self)),
            }
        }
        let o = &s.operands;
        let ty = half_slot(t);
        let unary = matches!(op, HalfOp::Neg | HalfOp::Abs) && !setp;
        self.expect_ops(
            s,
            if unary {
                2
            } else if op == HalfOp::Fma {
                4
            } else {
                3
            },
        )?;
        if let Some(cmp) = cmp {
            let (d, hi) = self.pair_dst(&o[0], PtxType::Pred)?;
            let d = d.ok_or_else(|| self.parse_err("`setp` needs a destination predicate"))?;
            if hi.is_some() != pair {
                return Err(self.parse_err(format!("`{}` writes {} predicate(s)", s.opcode, 1 + pair as u8)));
            }
            let a = self.src(&o[1], ty)?;
            let b = self.src(&o[2], ty)?;
            self.emit(Op::SetpHalf { cmp, form, d, hi, a, b }, s);
            return Ok(());
        }
        let d = self.dst(&o[0], ty)?;
        let a = self.src(&o[1], ty)?;
        let b = if unary { a } else { self.src(&o[2], ty)? };
        let c = if op == HalfOp::Fma { self.src(&o[3], ty)? } else { a };
        self.emit(Op::Half { op, form, d, a, b, c }, s);
        Ok(())
    }

    /// A vector `atom`/`red` of `lanes` elements of `ty` (`half` for the 16-bit floats):
    /// element `i` updated atomically at the address plus `i` elements, old values (for
    /// `atom`) into the destination group.
    fn vector_atom(
        &mut self,
        s: &Stmt,
        is_red: bool,
        lanes: usize,
        half: Option<&str>,
        ty: PtxType,
        kind: AtomKind,
    ) -> Result<(), SimError> {
        let o = &s.operands;
        let first = usize::from(!is_red);
        self.expect_ops(s, first + 2)?;
        let slot = half.map_or(Slot::Exact(ty), half_slot);
        let (base, off) = self.address(&o[first], MemSpace::Global)?;
        let srcs = self.group(&o[first + 1], slot, false)?;
        let dsts = if is_red {
            (0..lanes).map(|_| self.scratch()).collect()
        } else {
            self.group(&o[0], slot, true)?
        };
        if srcs.len() != lanes || dsts.len() != lanes {
            return Err(self.parse_err(format!("`{}` takes groups of {lanes} elements", s.opcode)));
        }
        let size = (ty.bits() / 8) as i32;
        for (i, (d, a)) in dsts.into_iter().zip(srcs).enumerate() {
            let off = off + size * i as i32;
            self.emit(Op::Atom { space: MemSpace::Global, kind, d, base, off, a, b: a }, s);
        }
        Ok(())
    }

    /// A CTA barrier: `bar{.cta}.sync a` and `barrier{.cta}.sync{.aligned} a`, or
    /// `bar{.cta}.red.popc.u32 d, a, {!}p` / `.red.{and,or}.pred` (`barrier` with
    /// `.aligned` anywhere among the modifiers, as ptxas takes it). `bar` is aligned (the
    /// PTX ISA: `bar.sync` is `barrier.sync.aligned`, `bar.red` is `barrier.red.aligned`);
    /// `barrier` only with `.aligned`. A thread count (`bar.sync a, b`) is unsupported.
    fn barrier(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let aligned_mods = p.iter().filter(|q| **q == "aligned").count();
        if aligned_mods > usize::from(p[0] == "barrier") {
            return Err(unsup(self));
        }
        let q: Vec<&str> = p[1..].iter().copied().filter(|q| !matches!(*q, "cta" | "aligned")).collect();
        let o = &s.operands;
        let at = |d: &Decoder, op: &String| -> Result<BarSite, SimError> {
            let id = int_const(op).ok().map(|c| c.bits).filter(|v| *v < 16).map(|v| v as u32).ok_or_else(
                || d.unsupported(format!("barrier operand `{op}` (an immediate 0..15 is needed)")),
            )?;
            Ok(BarSite { id, aligned: p[0] == "bar" || aligned_mods == 1, line: s.line as u32 })
        };
        if q == ["sync"] {
            if o.len() != 1 {
                return Err(self.unsupported(format!("`{}` with a thread count", s.opcode)));
            }
            let at = at(self, &o[0])?;
            self.emit(Op::Bar { at }, s);
            return Ok(());
        }
        let kind = match q[..] {
            ["red", "popc", "u32"] => BarReduce::Popc,
            ["red", "and", "pred"] => BarReduce::And,
            ["red", "or", "pred"] => BarReduce::Or,
            _ => return Err(unsup(self)),
        };
        if o.len() == 4 {
            return Err(self.unsupported(format!("`{}` with a thread count", s.opcode)));
        }
        self.expect_ops(s, 3)?;
        let dty = if kind == BarReduce::Popc { PtxType::U32 } else { PtxType::Pred };
        let d = self.dst(&o[0], dty)?;
        let at = at(self, &o[1])?;
        let (negate, pred) = match o[2].strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, o[2].as_str()),
        };
        let a = self.pred_src(pred)?;
        self.emit(Op::BarRed { at, kind, d, a, negate }, s);
        Ok(())
    }

    /// `call[.uni] (ret), vprintf, (fmt, args);` and `call.uni __assertfail, (..);`: the
    /// runtime functions the simulator knows.
    fn call(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        if !(p == ["call"] || p == ["call", "uni"]) {
            return Err(self.unsupported(format!("opcode `{}`", s.opcode)));
        }
        let (ret, name, args) =
            crate::parse::call_operands(&s.text).ok_or_else(|| self.parse_err("unclosed `(` in `call`"))?;
        if name == "__assertfail" {
            // A failed `assert` (CUDA's runtime prints its message, then traps): a trap,
            // whose error names this call.
            self.emit(Op::Trap, s);
            return Ok(());
        }
        if name != "vprintf" {
            // Functions the module defines and the simulator reads were inlined where they
            // are called. The kernel is left out (its module's others load), with the
            // function's own reason when the simulator could not read it.
            return Err(self.unsupported(format!(
                "`call` of `{name}`, which this module does not define (or the simulator cannot read)"
            )));
        }
        // The arguments (two addresses) and the result (the `.b32` count) are call
        // parameters, the thread's own bytes.
        let param = |d: &mut Self, n: &str| {
            let off =
                *d.locals.get(n).ok_or_else(|| d.parse_err(format!("`{n}` is not a call parameter")))?;
            Ok::<_, SimError>(d.konst(u64::from(off)))
        };
        let [fmt, list] = args.as_slice() else {
            return Err(self.parse_err("`vprintf` takes two arguments"));
        };
        let load = |d: &mut Self, n: &str| {
            let (base, r) = (param(d, n)?, d.scratch());
            d.emit(
                Op::Ld { space: MemSpace::Local, size: 8, n: 1, strong: false, d: [r; 4], base, off: 0 },
                s,
            );
            Ok::<_, SimError>(r)
        };
        let (fmt, list) = (load(self, fmt)?, load(self, list)?);
        let count = ret.map(|r| Ok::<_, SimError>((param(self, r)?, self.scratch()))).transpose()?;
        self.emit(Op::Printf { fmt, args: list, ret: count.map(|(_, r)| r) }, s);
        if let Some((base, r)) = count {
            self.emit(
                Op::St { space: MemSpace::Local, size: 4, n: 1, strong: false, s: [r; 4], base, off: 0 },
                s,
            );
        }
        Ok(())
    }

    /// `mov.bN d, {a, b, ..}` packs the elements (first in the low bits) and
    /// `mov.bN {a, b, ..}, s` unpacks them; each element is `N / count` bits.
    fn mov_vector(&mut self, s: &Stmt, ty: PtxType) -> Result<(), SimError> {
        let o = &s.operands;
        let (packing, group) = if o[1].starts_with('{') { (true, &o[1]) } else { (false, &o[0]) };
        let count = self.group_tokens(group).len() as u32;
        if !(count == 2 || count == 4) || !ty.bits().is_multiple_of(count) || ty.is_float() {
            return Err(self.unsupported(format!("`{}` with {count} elements", s.opcode)));
        }
        let width = ty.bits() / count;
        let part_ty = PtxType::ALL
            .into_iter()
            .find(|t| t.bits() == width && t.class() == ptx_core::types::TypeClass::Bits)
            .unwrap_or(PtxType::B16);
        let mask = self.konst(width_mask(width));
        let elements = self.group(group, Slot::Exact(part_ty), !packing)?;
        if packing {
            let d = self.dst(&o[0], ty)?;
            let acc = self.scratch();
            let zero = self.konst(0);
            self.emit(Op::Mov { d: acc, a: zero }, s);
            for (k, v) in elements.into_iter().enumerate() {
                let (low, shifted) = (self.scratch(), self.scratch());
                self.emit(Op::And { d: low, a: v, b: mask }, s);
                let by = self.konst(k as u64 * width as u64);
                self.emit(Op::IntBin { op: BinaryOp::Shl, ty: PtxType::B64, d: shifted, a: low, b: by }, s);
                self.emit(Op::Or { d: acc, a: acc, b: shifted }, s);
            }
            self.emit(Op::Mov { d, a: acc }, s);
        } else {
            let src = self.src(&o[1], ty)?;
            let whole = self.scratch();
            self.emit(Op::Mov { d: whole, a: src }, s);
            // (A `_` element's part goes to a scratch register.)
            for (k, d) in elements.into_iter().enumerate() {
                let by = self.konst(k as u64 * width as u64);
                let shifted = self.scratch();
                self.emit(Op::IntBin { op: BinaryOp::Shr, ty: PtxType::B64, d: shifted, a: whole, b: by }, s);
                self.emit(Op::And { d, a: shifted, b: mask }, s);
            }
        }
        Ok(())
    }

    /// For an operand naming a kernel parameter (`k_param_0`, `k_param_0+8`): fills the
    /// thread's copy of its bytes from its slots (`addressed_params`; parameters are never
    /// written, so the copy is the parameter) and returns a register holding the copy's
    /// address plus the offset. `None` for other operands.
    fn kernel_param_address(&mut self, tok: &str, s: &Stmt) -> Result<Option<R>, SimError> {
        let Some((name, offset)) = param_operand(tok) else { return Ok(None) };
        let Some(idx) = self.params.iter().position(|p| p.name == name) else { return Ok(None) };
        let Some(&base) = self.locals.get(name) else {
            return Err(self.unsupported(format!("the address of kernel parameter `{name}` here")));
        };
        let (first, words) = (self.param_slots[idx], self.params[idx].size_bytes().div_ceil(8).max(1));
        let at = self.konst(u64::from(base));
        for word in 0..words as u32 {
            let off = i32::try_from(8 * word).unwrap_or(i32::MAX);
            let slot = first + word;
            self.emit(
                Op::St { space: MemSpace::Local, size: 8, n: 1, strong: false, s: [slot; 4], base: at, off },
                s,
            );
        }
        Ok(Some(self.konst(u64::from(base).wrapping_add(offset))))
    }

    /// `ld.param[.v2|.v4].T d, [name+offset]` of a kernel parameter: each lane's bytes
    /// (little-endian, at `offset + lane * size`) from the parameter's slots, zero-extended
    /// into the register, or sign-extended for `.s8`/`.s16`/`.s32` into a wider one. A read
    /// past the parameter's end, or one straddling two of its 8-byte slots (which PTX's
    /// natural alignment rules out), is an error naming the parameter.
    fn load_kernel_param(&mut self, s: &Stmt, ty: PtxType, n: usize) -> Result<(), SimError> {
        let (regs_tok, addr) = (&s.operands[0], &s.operands[1]);
        let inner = addr
            .strip_prefix('[')
            .and_then(|x| x.strip_suffix(']'))
            .map(str::trim)
            .ok_or_else(|| self.parse_err(format!("expected `[param]`, found `{addr}`")))?;
        let (name, offset) = match symbol_offset(inner) {
            Some((n, off)) => {
                (n, off.map_err(|e| self.parse_err(format!("bad parameter offset in `{addr}`: {e}")))?)
            }
            None => (inner, 0),
        };
        let idx = self
            .params
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| self.parse_err(format!("unknown parameter `{name}`")))?;
        let param = self.params[idx].clone();
        let size = u64::from(ty.bytes());
        let end = offset.saturating_add(size * n as u64);
        if end > param.size_bytes() {
            return Err(self.parse_err(format!(
                "`{}` reads beyond parameter `{}`: bytes {offset}..{end} of `{param}`, which has {} \
                 byte(s)",
                s.opcode,
                param.name,
                param.size_bytes()
            )));
        }
        let slot = if n == 1 { Slot::Wide(ty) } else { Slot::Lane(ty) };
        let regs = self.group(regs_tok, slot, true)?;
        if regs.len() != n {
            return Err(self.parse_err(format!("`{}` needs {n} register(s)", s.opcode)));
        }
        let toks: Vec<String> = self.group_tokens(regs_tok).into_iter().map(str::to_string).collect();
        // The bits of the slot that hold the parameter: a scalar's own width, all 64 of an
        // array's slot (the bytes past its end are zero).
        let slot_bits = if param.is_array() { 64 } else { u64::from(param.ty.bits()) };
        for (lane, (&d, tok)) in regs.iter().zip(&toks).enumerate() {
            let at = offset + size * lane as u64;
            if at / 8 != (at + size - 1) / 8 {
                return Err(self.parse_err(format!(
                    "`{}` reads {size} bytes at offset {at} of parameter `{param}`, which is not \
                     aligned to {size} bytes",
                    s.opcode
                )));
            }
            let mut from = self.param_slots[idx] + (at / 8) as u32;
            let shift = (at % 8) * 8;
            // A part of a slot at a byte offset (`[seed+4]`: a `.u64`'s high word).
            if shift != 0 {
                let (shifted, by) = (self.scratch(), self.konst(shift));
                self.emit(Op::IntBin { op: BinaryOp::Shr, ty: PtxType::U64, d: shifted, a: from, b: by }, s);
                from = shifted;
            }
            // Bits above the parameter's are zero in its slot: only a part below its top is masked.
            if shift + size * 8 < slot_bits {
                let m = self.konst(width_mask(ty.bits()));
                self.emit(Op::And { d, a: from, b: m }, s);
            } else {
                self.emit(Op::Mov { d, a: from }, s);
            }
            if tok != "_" {
                self.sign_extend_narrow(tok, d, ty, s)?;
            }
        }
        Ok(())
    }

    fn memory(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let o = &s.operands;
        let is_ld = p[0] == "ld";
        if p.len() < 2 {
            return Err(unsup(self));
        }
        // `.b8` moves a byte as `.u8` does: zero-extended into a wider register by `ld`,
        // the register's low byte by `st` (Triton's int8/uint8 loads and stores).
        let ty = if p[p.len() - 1] == "b8" { PtxType::U8 } else { self.ty(p[p.len() - 1])? };
        if ty == PtxType::Pred {
            return Err(unsup(self));
        }
        // A kernel parameter is read from its slot. Any other `.param` is a call sequence's:
        // bytes of the thread's own (see `parse`), which `ld.param`/`st.param` reach as
        // `.local` ones are, by name or through the address a `mov` of the name gave.
        let addr = if is_ld { o.get(1) } else { o.first() };
        let base = addr.and_then(|a| a.strip_prefix('[')).and_then(|a| a.split(['+', ']']).next());
        let kernel_param = base.is_some_and(|b| self.params.iter().any(|p| p.name == b.trim()));
        if p[1] == "param" && kernel_param {
            if !is_ld {
                return Err(self.unsupported(format!("`{}` to a kernel parameter", s.opcode)));
            }
            let n = match p.len() {
                3 => 1,
                4 if p[2] == "v2" => 2,
                4 if p[2] == "v4" && ty.bits() <= 32 => 4,
                _ => return Err(self.unsupported(format!("`{}` of a kernel parameter", s.opcode))),
            };
            self.expect_ops(s, 2)?;
            return self.load_kernel_param(s, ty, n);
        }
        // `ld[.volatile][.space][.cache op][.nc][.cache hints][.vN].type`: the space (none:
        // a generic address), the vector width and the type matter here; cache operators and
        // hints, and `.nc` do not change what one thread reads, and the memory order only
        // what the race checker takes for a race (`strong`).
        let mut space = MemSpace::Generic;
        let mut strong = false;
        let mut n = 1;
        let (mut hinted, mut policy) = (false, false);
        for q in &p[1..p.len() - 1] {
            if let Some(c) = Self::cache_qualifier(q, is_ld) {
                hinted = true;
                policy |= c == CacheQualifier::PolicyOperand;
                continue;
            }
            match *q {
                "global" if space == MemSpace::Generic => space = MemSpace::Global,
                "shared" if space == MemSpace::Generic => space = MemSpace::Shared,
                "local" if space == MemSpace::Generic => space = MemSpace::Local,
                "v2" if n == 1 => n = 2,
                "v4" if n == 1 && ty.bits() <= 32 => n = 4,
                "weak" | "nc" | "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" => {}
                // `ld.acquire` / `st.release` with a scope (libcu++'s `atomic_ref` loads and
                // stores), `.relaxed` and `.volatile`: the simulator's memory is sequentially
                // consistent, which gives them their ordering.
                "volatile" | "relaxed" => strong = true,
                "acquire" if is_ld => strong = true,
                "release" if !is_ld => strong = true,
                "cta" | "gpu" | "sys" | "cluster" => {}
                "const" if !is_ld => {
                    return Err(self.parse_err(format!(
                        "`{}` stores to the constant space, which kernels cannot write",
                        s.opcode
                    )))
                }
                // `.const` variables live in device memory here, read like global ones.
                "const" if space == MemSpace::Generic => space = MemSpace::Global,
                "param" if space == MemSpace::Generic && !kernel_param => space = MemSpace::Local,
                "param" => return Err(self.unsupported(format!("state space `.{q}` of `{}`", s.opcode))),
                _ => return Err(unsup(self)),
            }
        }
        // Cache hints apply to global memory (directly or through a generic address); a
        // `.L2::cache_hint` access names its policy last.
        if hinted && !matches!(space, MemSpace::Global | MemSpace::Generic) {
            return Err(unsup(self));
        }
        self.expect_ops(s, 2 + policy as usize)?;
        if policy {
            self.cache_policy_operand(&o[2])?;
        }
        let (regs_tok, addr_tok) = if is_ld { (&o[0], &o[1]) } else { (&o[1], &o[0]) };
        // A value travels in a register at least as wide (a byte in a 16-, 32- or 64-bit
        // one: zero- or sign-extended to it when loaded, its low bits when stored).
        let slot = if n == 1 { Slot::Wide(ty) } else { Slot::Lane(ty) };
        let regs = self.group(regs_tok, slot, is_ld)?;
        if regs.len() != n {
            return Err(self.parse_err(format!("`{}` needs {n} register(s)", s.opcode)));
        }
        let (base, off) = self.address(addr_tok, space)?;
        let size = ty.bytes() as u8;
        let mut r4 = [regs[0]; 4];
        r4[..n].copy_from_slice(&regs);
        let op = match (is_ld, space, n, size) {
            (true, MemSpace::Global, 1, 4) if !strong => Op::LdG32 { d: regs[0], base, off },
            (false, MemSpace::Global, 1, 4) if !strong => Op::StG32 { s: regs[0], base, off },
            (true, ..) => Op::Ld { space, size, n: n as u8, strong, d: r4, base, off },
            (false, ..) => Op::St { space, size, n: n as u8, strong, s: r4, base, off },
        };
        self.emit(op, s);
        if is_ld {
            // A signed value narrower than its register (`ld.s8`, `ld.s16` into 32 bits)
            // is sign-extended to the register's width.
            for (tok, r) in self.group_tokens(regs_tok).into_iter().zip(regs).filter(|(t, _)| *t != "_") {
                self.sign_extend_narrow(tok, r, ty, s)?;
            }
        }
        Ok(())
    }

    /// A `.pred` source of `and`/`or`/`xor`: a predicate, or one negated (`!%p2`, which
    /// the PTX ISA allows there), read through a `not` into a register of its own.
    fn pred_source(&mut self, tok: &str, s: &Stmt) -> Result<R, SimError> {
        let Some(negated) = tok.strip_prefix('!') else { return self.src(tok, PtxType::Pred) };
        let a = self.src(negated.trim_start(), PtxType::Pred)?;
        let d = self.scratch();
        self.emit(Op::IntUnary { op: UnaryOp::Not, ty: PtxType::Pred, d, a }, s);
        Ok(d)
    }

    /// sm_90's lane-wise integer forms: `add`, `min`, `max` of `.u16x2`/`.s16x2` (the two
    /// 16-bit halves of a `.b32` apart) and `min.relu`/`max.relu` of `.s16x2`/`.s32` (each
    /// result clamped below at 0), the `.relu` before or after the type (NVRTC writes
    /// `max.s32.relu`, the PTX ISA `max.relu.s32`; ptxas takes both).
    fn int_lanes(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let (t, relu) = match p[1..] {
            [t] => (t, false),
            ["relu", t] | [t, "relu"] if p[0] != "add" => (t, true),
            _ => return Err(unsup(self)),
        };
        let (lane_bits, signed, ty) = match (t, relu) {
            ("u16x2", false) => (16, false, PtxType::B32),
            ("s16x2", _) => (16, true, PtxType::B32),
            ("s32", true) => (32, true, PtxType::S32),
            _ => return Err(unsup(self)),
        };
        let op = match p[0] {
            "add" => BinaryOp::Add,
            "min" => BinaryOp::Min,
            _ => BinaryOp::Max,
        };
        let (d, [a, b]) = self.dst_srcs(s, ty, [ty, ty])?;
        self.emit(Op::IntLanes { op, lane_bits, signed, relu, d, a, b }, s);
        Ok(())
    }

    fn binary(&mut self, s: &Stmt, p: &[&str]) -> Result<(), SimError> {
        let unsup = |d: &Decoder| d.unsupported(format!("opcode `{}`", s.opcode));
        let o = &s.operands;
        let ty = self.ty(p[p.len() - 1])?;
        let mods = &p[1..p.len() - 1];
        self.expect_ops(s, 3)?;
        // `mul.wide.u32 d, a, b`: a 64-bit `d` from 32-bit sources.
        let wide = PtxType::EVERY.into_iter().find(|w| {
            w.bits() == 2 * ty.bits() && w.is_int() == ty.is_int() && w.is_signed() == ty.is_signed()
        });
        let d = match wide {
            Some(w) if mods.contains(&"wide") => self.dst(&o[0], w)?,
            _ => self.dst(&o[0], ty)?,
        };
        if ty.is_arith_float() {
            let f64 = ty == PtxType::F64;
            let mut a = self.src(&o[1], ty)?;
            let mut b = self.src(&o[2], ty)?;
            // One rounding mode (or `.approx`/`.full` for `div`), and for f32 `.ftz` (subnormal
            // inputs and result flushed), `.sat` (result clamped to [0, 1]); `.NaN` for min/max.
            let (mut mode, mut ftz, mut sat, mut nan) = (None, false, false, false);
            for m in mods {
                match *m {
                    "ftz" if !f64 && !ftz => ftz = true,
                    "sat" if !f64 && !sat => sat = true,
                    "NaN" if !nan => nan = true,
                    m if mode.is_none() && m != "ftz" && m != "sat" && m != "NaN" => mode = Some(m),
                    _ => return Err(unsup(self)),
                }
            }
            let min_max = matches!(p[0], "min" | "max");
            if (nan && !min_max) || (min_max && (mode.is_some() || sat)) || (sat && p[0] == "div") {
                return Err(unsup(self));
            }
            if ftz {
                (a, b) = (self.flushed(a, s), self.flushed(b, s));
            }
            let arith = match p[0] {
                "add" => FArith::Add,
                "sub" => FArith::Sub,
                "mul" => FArith::Mul,
                "div" => FArith::Div,
                "min" | "max" => {
                    self.emit(Op::FMinMax { max: p[0] == "max", nan, f64, d, a, b }, s);
                    self.finish_f32(d, ftz, false, s);
                    return Ok(());
                }
                _ => return Err(unsup(self)),
            };
            let rnd = match mode {
                None if arith != FArith::Div => Rnd::Rn,
                Some(m) if parse_rnd(m).is_some() => parse_rnd(m).unwrap_or(Rnd::Rn),
                Some(m @ ("approx" | "full")) if arith == FArith::Div && !f64 => {
                    self.emit(Op::DivApproxF32 { full: m == "full", d, a, b }, s);
                    self.finish_f32(d, ftz, false, s);
                    return Ok(());
                }
                _ => return Err(unsup(self)),
            };
            let op = match (arith, rnd, f64) {
                (FArith::Add, Rnd::Rn, false) => Op::AddF32 { d, a, b },
                (FArith::Sub, Rnd::Rn, false) => Op::SubF32 { d, a, b },
                (FArith::Mul, Rnd::Rn, false) => Op::MulF32 { d, a, b },
                (FArith::Add, Rnd::Rn, true) => Op::AddF64 { d, a, b },
                (FArith::Sub, Rnd::Rn, true) => Op::SubF64 { d, a, b },
                (FArith::Mul, Rnd::Rn, true) => Op::MulF64 { d, a, b },
                _ => Op::FArith { op: arith, f64, mode: rnd, d, a, b },
            };
            self.emit(op, s);
            self.finish_f32(d, ftz, sat, s);
            return Ok(());
        }
        if ty.is_float() {
            return Err(unsup(self));
        }
        if let ("add" | "sub", ["sat"]) = (p[0], mods) {
            // `add.sat.s32`/`sub.sat.s32`: the exact result clamped to the s32 range.
            if ty != PtxType::S32 {
                return Err(unsup(self));
            }
            let a = self.src(&o[1], ty)?;
            let b = self.src(&o[2], ty)?;
            self.emit(Op::AddSatS32 { sub: p[0] == "sub", d, a, b }, s);
            return Ok(());
        }
        let op = match (p[0], mods) {
            ("add", []) => BinaryOp::Add,
            ("sub", []) => BinaryOp::Sub,
            ("mul", ["lo"]) => BinaryOp::Mul,
            ("mul", ["hi"]) => BinaryOp::MulHi,
            ("mul", ["wide"]) => {
                if !(ty.is_int() && ty.bits() <= 32 && ty.bits() >= 16) {
                    return Err(unsup(self));
                }
                let a = self.src(&o[1], ty)?;
                let b = self.src(&o[2], ty)?;
                let op =
                    if ty == PtxType::U32 { Op::MulWideU32 { d, a, b } } else { Op::MulWide { ty, d, a, b } };
                self.emit(op, s);
                return Ok(());
            }
            ("div", []) => BinaryOp::Div,
            ("rem", []) => BinaryOp::Rem,
            ("min", []) => BinaryOp::Min,
            ("max", []) => BinaryOp::Max,
            ("and", []) => BinaryOp::And,
            ("or", []) => BinaryOp::Or,
            ("xor", []) => BinaryOp::Xor,
            ("shl", []) => BinaryOp::Shl,
            ("shr", []) => BinaryOp::Shr,
            _ => return Err(unsup(self)),
        };
        let logic = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
        let ok = match op {
            _ if logic => ty == PtxType::Pred || ty.bits() >= 16,
            BinaryOp::Shl | BinaryOp::Shr => ty.is_int() || ty.class() == ptx_core::types::TypeClass::Bits,
            _ => ty.is_int(),
        };
        if !ok {
            return Err(unsup(self));
        }
        let (a, b) = if ty == PtxType::Pred {
            (self.pred_source(&o[1], s)?, self.pred_source(&o[2], s)?)
        } else {
            (self.src(&o[1], ty)?, self.src(&o[2], if op.is_shift() { PtxType::U32 } else { ty })?)
        };
        let mask = width_mask(ty.bits());
        let op = match op {
            BinaryOp::Add => Op::Add { d, a, b, mask },
            BinaryOp::Sub => Op::Sub { d, a, b, mask },
            BinaryOp::Mul => Op::MulLo { d, a, b, mask },
            BinaryOp::And => Op::And { d, a, b },
            BinaryOp::Or => Op::Or { d, a, b },
            BinaryOp::Xor => Op::Xor { d, a, b },
            op => Op::IntBin { op, ty, d, a, b },
        };
        self.emit(op, s);
        Ok(())
    }
}

/// The slot of a 16-bit float operand of type `name` (`f16 bf16 f16x2 bf16x2`): an `.f16`
/// or `.bf16` value, or a pair packed in a `.b32`.
fn half_slot(name: &str) -> Slot {
    match name {
        "f16" => Slot::Exact(PtxType::F16),
        "bf16" => Slot::Exact(PtxType::Bf16),
        _ => Slot::Packed { wide: false },
    }
}

/// Whether the PTX ISA defines integer `neg`/`abs`/`not` of type `ty`: `neg` and `abs` of
/// the signed types, `not` of the bit types and predicates (ptxas rejects the rest, e.g.
/// `neg.u32`, `not.u32`).
fn int_unary_exists(op: UnaryOp, ty: PtxType) -> bool {
    match op {
        UnaryOp::Not => ty.class() == ptx_core::types::TypeClass::Bits || ty == PtxType::Pred,
        _ => ty.is_signed(),
    }
}

/// The comparison `setp`/`set` name: the builder's names (`eq`, `lt`, `ltu`, ...) and the
/// unsigned spellings the PTX ISA gives integers (`lo`, `ls`, `hi`, `hs`: lower, lower or
/// same, higher, higher or same), the same comparisons on unsigned operands.
fn cmp_named(name: &str) -> Option<Cmp> {
    match name {
        "lo" => Some(Cmp::Lt),
        "ls" => Some(Cmp::Le),
        "hi" => Some(Cmp::Gt),
        "hs" => Some(Cmp::Ge),
        _ => Cmp::ALL.into_iter().find(|x| x.name() == name),
    }
}

/// Whether comparison `name` may compare operands of type `ty`: the unsigned spellings
/// (`lo ls hi hs`) only unsigned integers, as the PTX ISA gives them.
fn cmp_fits(name: &str, ty: PtxType) -> bool {
    !matches!(name, "lo" | "ls" | "hi" | "hs") || (ty.is_int() && !ty.is_signed())
}
