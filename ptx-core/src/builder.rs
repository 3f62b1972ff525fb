//! The typed builder: the only way most code makes a [`KernelIr`].
//!
//! Registers are `Reg<T>` handles whose marker type `T` (`U32`, `F32`, ...) makes rustc reject
//! an ill-typed instruction. Sources are [`Val<T>`]: a register or an immediate. When every
//! source of a pure operation is an immediate, the builder computes the result on the host
//! ([`crate::eval`], bit-exact with PTX) and emits nothing; otherwise immediates are folded
//! into the instruction's operands (`mul.lo.u32 %r2, %r1, 4`), never moved into a register first.

use std::marker::PhantomData;

use crate::eval;
use crate::ir::{
    AddrBase, Address, AtomOp, BinaryOp, Cmp, CvtRound, FloatMode, Guard, Imm, Instr, KernelIr, Label,
    Operand, Param, PrintArg, RegList, SharedDecl, SharedId, ShflMode, Space, SpecialReg, StringId, UnaryOp,
    VReg,
};
use crate::range::RangeFacts;
use crate::types::{
    AtomAddTy, Bits32, Bits32Or64, ByteTy, FloatTy, IntTy, LogicTy, MemTy, NumTy, Pred, PtxType, SignedTy,
    Ty, WideningTy, F32, U32, U64,
};

/// A typed virtual register.
pub struct Reg<T: Ty> {
    raw: VReg,
    _ty: PhantomData<T>,
}

impl<T: Ty> Clone for Reg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Ty> Copy for Reg<T> {}
impl<T: Ty> std::fmt::Debug for Reg<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "%{}{}", T::PTX.reg_prefix(), self.raw.index)
    }
}
impl<T: Ty> PartialEq for Reg<T> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl<T: Ty> Reg<T> {
    /// The untyped register.
    pub fn raw(self) -> VReg {
        self.raw
    }

    /// A typed register from an untyped one of exactly type `T`; `None` otherwise.
    pub fn from_raw(raw: VReg) -> Option<Reg<T>> {
        (raw.ty == T::PTX).then_some(Reg { raw, _ty: PhantomData })
    }
}

/// A source value: a register, or an immediate known while the kernel is built.
pub enum Val<T: Ty> {
    /// Held in a register.
    Reg(Reg<T>),
    /// A constant.
    Imm(T::Host),
}

impl<T: Ty> Clone for Val<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Ty> Copy for Val<T> {}
impl<T: Ty> std::fmt::Debug for Val<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Reg(r) => r.fmt(f),
            Val::Imm(v) => v.fmt(f),
        }
    }
}

impl<T: Ty> Val<T> {
    /// The constant, if this value is one.
    pub fn as_imm(self) -> Option<T::Host> {
        match self {
            Val::Imm(v) => Some(v),
            Val::Reg(_) => None,
        }
    }

    /// The untyped operand.
    pub fn operand(self) -> Operand {
        match self {
            Val::Reg(r) => Operand::Reg(r.raw),
            Val::Imm(v) => Operand::Imm(Imm::new(T::PTX, T::host_to_bits(v))),
        }
    }

    /// A typed value from an untyped operand whose type is exactly `T`'s; `None` otherwise.
    /// This is the bridge for code generators that track types themselves (the kernel
    /// language's lowering) and still want the typed builder's folding and checks.
    pub fn from_operand(op: Operand) -> Option<Val<T>> {
        match op {
            Operand::Reg(r) if r.ty == T::PTX => Some(Val::Reg(Reg { raw: r, _ty: PhantomData })),
            Operand::Imm(i) if i.ty == T::PTX => Some(Val::from_imm(i)),
            _ => None,
        }
    }

    fn imm_raw(self) -> Option<Imm> {
        self.as_imm().map(|v| Imm::new(T::PTX, T::host_to_bits(v)))
    }

    fn from_imm(i: Imm) -> Val<T> {
        Val::Imm(T::host_from_bits(i.bits))
    }
}

impl<T: Ty> From<Reg<T>> for Val<T> {
    fn from(r: Reg<T>) -> Val<T> {
        Val::Reg(r)
    }
}

macro_rules! imm_from {
    ($($marker:ident => $host:ty),*) => {$(
        impl From<$host> for Val<crate::types::$marker> {
            fn from(v: $host) -> Self {
                Val::Imm(v)
            }
        }
    )*};
}
imm_from!(Pred => bool, U16 => u16, S16 => i16, U32 => u32, S32 => i32, U64 => u64, S64 => i64, F32 => f32, F64 => f64);

/// A declared kernel parameter of type `T`.
pub struct ParamRef<T: Ty> {
    index: u32,
    _ty: PhantomData<T>,
}

impl<T: Ty> Clone for ParamRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Ty> Copy for ParamRef<T> {}

impl<T: Ty> ParamRef<T> {
    /// Position among the kernel's parameters.
    pub fn index(self) -> u32 {
        self.index
    }
}

/// No pointer parameter behind a register.
const NO_ORIGIN: u32 = u32::MAX;

/// Builds one kernel. Create with [`KernelBuilder::new`], add parameters and instructions,
/// then [`KernelBuilder::finish`].
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    ir: KernelIr,
    /// For each `.u64` register (by index), the pointer parameter it derives from, or
    /// `NO_ORIGIN`.
    pointer_origin: Vec<u32>,
    /// Proven magnitude bounds of f32 registers ([`crate::range`]).
    facts: RangeFacts,
}

impl KernelBuilder {
    /// Starts a kernel named `name` (a PTX identifier; the verifier checks it).
    pub fn new(name: impl Into<String>) -> KernelBuilder {
        KernelBuilder {
            ir: KernelIr {
                name: name.into(),
                // Room for a typical kernel, so that declaring parameters does not regrow.
                params: Vec::with_capacity(8),
                shared: Vec::new(),
                // Room for a kernel with a few heads' worth of math (RoPE: about 330
                // entries), so that building does not regrow and copy the body.
                body: Vec::with_capacity(512),
                reg_counts: [0; PtxType::COUNT],
                label_count: 0,
                notes: Vec::new(),
                strings: Vec::new(),
                print_buffer_bytes: 0,
                assumptions: Vec::new(),
                refusal: None,
            },
            pointer_origin: Vec::new(),
            facts: RangeFacts::default(),
        }
    }

    /// The instructions so far.
    pub fn body(&self) -> &[Instr] {
        &self.ir.body
    }

    /// The kernel as built so far (for checking candidate instructions against it).
    pub fn ir(&self) -> &KernelIr {
        &self.ir
    }

    /// How many instructions (labels included) the body has so far.
    pub fn instruction_count(&self) -> usize {
        self.ir.body.len()
    }

    /// Refuses to build what was asked for at `source` (`file:line:column`), for `reason`
    /// (the first refusal is kept): the kernel then fails verification, breaking
    /// [`crate::Rule::NothingRefused`].
    pub fn refuse(&mut self, reason: &'static str, source: Option<String>) {
        if self.ir.refusal.is_none() {
            self.ir.refusal = Some(crate::ir::Refusal { source, reason });
        }
    }

    /// Ends the kernel: appends `ret` unless the body already ends in `ret` or an
    /// unconditional branch, and returns the IR (not yet verified).
    pub fn finish(mut self) -> KernelIr {
        let terminated =
            matches!(self.ir.body.last(), Some(Instr::Ret) | Some(Instr::Bra { guard: None, .. }));
        if !terminated {
            self.ir.body.push(Instr::Ret);
        }
        self.ir
    }

    /// Appends a raw instruction. Typed methods are preferred; the verifier checks raw ones.
    pub fn push(&mut self, instr: Instr) {
        self.track_pointers(&instr);
        if !self.facts.is_empty() {
            let facts = &mut self.facts;
            instr.visit_defs(|r| facts.forget(r));
            if matches!(instr, Instr::Label(_)) {
                facts.at_label();
            }
        }
        self.ir.body.push(instr);
    }

    /// A proven bound on `|v|` (or `v` is NaN): an immediate's magnitude, or a bound the
    /// builder derived from the instructions defining the register (the `range` module: a
    /// fraction `x − rint(x)` and products and sums of bounded values). The registers the
    /// bound rests on join [`KernelIr::assumptions`], so the verifier rejects a kernel that
    /// writes them again.
    pub fn magnitude_bound(&mut self, v: Val<F32>) -> Option<f32> {
        match v {
            Val::Imm(x) => Some(x.abs()),
            Val::Reg(r) => {
                let (bound, basis) = self.facts.lookup(r.raw)?;
                for reg in basis {
                    if !self.ir.assumptions.contains(&reg) {
                        self.ir.assumptions.push(reg);
                    }
                }
                Some(bound)
            }
        }
    }

    /// Follows addresses back to the pointer parameters they derive from (through
    /// `ld.param`, `cvta`, `mov` and 64-bit `add`/`sub`), and records each global access
    /// in its parameter's [`crate::ir::PointerAccess`].
    fn track_pointers(&mut self, instr: &Instr) {
        let origin = |b: &Self, op: &Operand| op.reg().and_then(|r| b.origin_of(r));
        let derived = match instr {
            Instr::LdParam { dst, param, .. } => {
                self.ir.params.get(*param as usize).is_some_and(|p| p.is_pointer).then_some((*dst, *param))
            }
            Instr::CvtaGlobal { dst, src } => origin(self, &Operand::Reg(*src)).map(|p| (*dst, p)),
            Instr::Mov { dst, src, .. } => origin(self, src).map(|p| (*dst, p)),
            Instr::Binary { op: BinaryOp::Add | BinaryOp::Sub, dst, a, b, .. } if dst.ty.bits() == 64 => {
                origin(self, a).or_else(|| origin(self, b)).map(|p| (*dst, p))
            }
            Instr::Ld { space: Space::Global, ty, addr, .. }
            | Instr::St { space: Space::Global, ty, addr, .. }
            | Instr::Atom { space: Space::Global, ty, addr, .. } => {
                if let AddrBase::Reg(r) = addr.base {
                    if let Some(p) = self.origin_of(r) {
                        let write = !matches!(instr, Instr::Ld { .. });
                        self.ir.params[p as usize].access.record(*ty, write);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some((dst, param)) = derived {
            if dst.ty == PtxType::U64 {
                let i = dst.index as usize;
                if self.pointer_origin.len() <= i {
                    self.pointer_origin.resize(i + 1, NO_ORIGIN);
                }
                self.pointer_origin[i] = param;
            }
        }
    }

    /// The pointer parameter `r` derives from, if any.
    fn origin_of(&self, r: VReg) -> Option<u32> {
        if r.ty != PtxType::U64 {
            return None;
        }
        self.pointer_origin.get(r.index as usize).copied().filter(|&p| p != NO_ORIGIN)
    }

    // ----- registers, parameters, special registers -------------------------------------

    /// Records that the instructions pushed from now on implement the source statement
    /// `text` at `file:line:column` (see [`crate::ir::SourceNote`]).
    /// Static strings (what `#[ptx_kernel]` passes) are kept without copying.
    pub fn note_source(
        &mut self,
        file: impl Into<std::borrow::Cow<'static, str>>,
        line: u32,
        column: u32,
        text: impl Into<std::borrow::Cow<'static, str>>,
    ) {
        let at = self.ir.body.len();
        if self.ir.notes.last().is_some_and(|n| n.at == at) {
            self.ir.notes.pop();
        }
        let text = text.into();
        if self.ir.notes.capacity() == 0 {
            // A kernel with notes has one per statement: start with room for a screenful.
            self.ir.notes.reserve(32);
        }
        self.ir.notes.push(crate::ir::SourceNote { at, file: file.into(), line, column, text });
    }

    /// A fresh register of type `T`.
    pub fn reg<T: Ty>(&mut self) -> Reg<T> {
        Reg { raw: self.raw_reg(T::PTX), _ty: PhantomData }
    }

    /// A fresh untyped register of type `ty`.
    pub fn raw_reg(&mut self, ty: PtxType) -> VReg {
        let slot = &mut self.ir.reg_counts[crate::ir::type_slot(ty)];
        let index = *slot;
        *slot += 1;
        VReg { ty, index }
    }

    /// Declares a scalar parameter of type `T`.
    pub fn param<T: Ty>(&mut self, name: impl Into<String>) -> ParamRef<T> {
        self.declare_param(name.into(), T::PTX, false)
    }

    /// Declares a pointer parameter (a `.u64` holding a global-memory address).
    pub fn pointer_param(&mut self, name: impl Into<String>) -> ParamRef<U64> {
        self.declare_param(name.into(), PtxType::U64, true)
    }

    /// Declares a scalar parameter of a type chosen at run time; returns its index.
    pub fn raw_param(&mut self, name: impl Into<String>, ty: PtxType) -> u32 {
        self.ir.params.push(Param { name: name.into(), ty, is_pointer: false, access: Default::default() });
        self.ir.params.len() as u32 - 1
    }

    fn declare_param<T: Ty>(&mut self, name: String, ty: PtxType, is_pointer: bool) -> ParamRef<T> {
        let index = self.ir.params.len() as u32;
        self.ir.params.push(Param { name, ty, is_pointer, access: Default::default() });
        ParamRef { index, _ty: PhantomData }
    }

    /// `ld.param`: reads a parameter into a register.
    pub fn load_param<T: Ty>(&mut self, param: ParamRef<T>) -> Reg<T> {
        let dst = self.reg::<T>();
        self.push(Instr::LdParam { ty: T::PTX, dst: dst.raw, param: param.index });
        dst
    }

    /// Declares a pointer parameter and returns its global-space address
    /// (`ld.param.u64` then `cvta.to.global.u64`).
    pub fn global_pointer(&mut self, name: impl Into<String>) -> Reg<U64> {
        let p = self.pointer_param(name);
        self.load_global_pointer(p)
    }

    /// Reads a declared pointer parameter as a global-space address.
    pub fn load_global_pointer(&mut self, param: ParamRef<U64>) -> Reg<U64> {
        let generic = self.load_param(param);
        let dst = self.reg::<U64>();
        self.push(Instr::CvtaGlobal { dst: dst.raw, src: generic.raw });
        dst
    }

    /// Reads a special register (`%tid.x`, `%ctaid.y`, `%laneid`, ...).
    pub fn special(&mut self, reg: SpecialReg) -> Reg<U32> {
        let dst = self.reg::<U32>();
        self.push(Instr::Special { dst: dst.raw, reg });
        dst
    }

    /// The thread's global x index, `ctaid.x * ntid.x + tid.x` (one `mad.lo.u32`).
    pub fn global_index_x(&mut self) -> Val<U32> {
        let block = self.special(SpecialReg::CtaidX);
        let width = self.special(SpecialReg::NtidX);
        let lane = self.special(SpecialReg::TidX);
        self.mad_lo(block, width, lane)
    }

    /// `mov`: a new register holding `src`.
    pub fn mov<T: Ty>(&mut self, src: impl Into<Val<T>>) -> Reg<T> {
        let dst = self.reg::<T>();
        self.assign(dst, src);
        dst
    }

    /// `mov` into an existing register (mutable variables, loop counters); 16-bit floats
    /// move as `.b16`, the only `mov` PTX has for them.
    pub fn assign<T: Ty>(&mut self, dst: Reg<T>, src: impl Into<Val<T>>) {
        let src = src.into();
        self.push(Instr::Mov { ty: T::PTX.memory_type(), dst: dst.raw, src: src.operand() });
    }

    /// `src` in a register: the register itself, or a `mov` of the immediate.
    pub fn to_reg<T: Ty>(&mut self, src: impl Into<Val<T>>) -> Reg<T> {
        match src.into() {
            Val::Reg(r) => r,
            imm @ Val::Imm(_) => self.mov(imm),
        }
    }

    /// Reinterprets the bits of `src` as type `D` of the same width (`mov.bN`).
    pub fn bitcast<D: Ty, S: Ty>(&mut self, src: impl Into<Val<S>>) -> Val<D> {
        let src = src.into();
        if let Some(i) = src.imm_raw() {
            return Val::Imm(D::host_from_bits(i.bits));
        }
        let bits = match D::PTX.bits() {
            16 => PtxType::B16,
            32 => PtxType::B32,
            _ => PtxType::B64,
        };
        let dst = self.reg::<D>();
        self.push(Instr::Mov { ty: bits, dst: dst.raw, src: src.operand() });
        Val::Reg(dst)
    }

    // ----- arithmetic -------------------------------------------------------------------

    fn emit_unary<T: Ty>(&mut self, op: UnaryOp, mode: Option<FloatMode>, a: Val<T>) -> Val<T> {
        if let Some(r) = a.imm_raw().and_then(|x| eval::unary(op, T::PTX, mode, x)) {
            return Val::from_imm(r);
        }
        let dst = self.reg::<T>();
        self.push(Instr::Unary { op, ty: T::PTX, mode, dst: dst.raw, src: a.operand() });
        Val::Reg(dst)
    }

    fn emit_binary<T: Ty, B: Ty>(
        &mut self,
        op: BinaryOp,
        mode: Option<FloatMode>,
        a: Val<T>,
        b: Val<B>,
    ) -> Val<T> {
        if let (Some(x), Some(y)) = (a.imm_raw(), b.imm_raw()) {
            if let Some(r) = eval::binary(op, T::PTX, mode, x, y) {
                return Val::from_imm(r);
            }
        }
        if T::PTX == PtxType::Pred {
            if let Some(v) = self.simplify_predicate_logic(op, a.operand(), b.operand()) {
                return match v {
                    Operand::Reg(r) => Val::Reg(Reg { raw: r, _ty: PhantomData }),
                    Operand::Imm(i) => Val::from_imm(i),
                };
            }
        }
        let dst = self.reg::<T>();
        let (a, b) = (a.operand(), b.operand());
        self.push(Instr::Binary { op, ty: T::PTX, mode, dst: dst.raw, a, b });
        self.facts.note_binary(op, mode, dst.raw, a, b);
        Val::Reg(dst)
    }

    /// `and`/`or`/`xor` of a predicate register with a constant, which PTX cannot write
    /// (it has no predicate immediates): reduced to the register, a constant, or a `not`.
    fn simplify_predicate_logic(&mut self, op: BinaryOp, a: Operand, b: Operand) -> Option<Operand> {
        let (reg, imm) = match (a, b) {
            (Operand::Reg(r), Operand::Imm(i)) | (Operand::Imm(i), Operand::Reg(r)) => (r, i.bits & 1 != 0),
            _ => return None,
        };
        let constant = |v: bool| Operand::Imm(Imm::new(PtxType::Pred, v as u64));
        Some(match (op, imm) {
            (BinaryOp::And, true) | (BinaryOp::Or, false) | (BinaryOp::Xor, false) => Operand::Reg(reg),
            (BinaryOp::And, false) => constant(false),
            (BinaryOp::Or, true) => constant(true),
            (BinaryOp::Xor, true) => {
                let dst = self.raw_reg(PtxType::Pred);
                self.push(Instr::Unary {
                    op: UnaryOp::Not,
                    ty: PtxType::Pred,
                    mode: None,
                    dst,
                    src: Operand::Reg(reg),
                });
                Operand::Reg(dst)
            }
            _ => return None,
        })
    }

    /// The rounding the plain arithmetic methods use: explicit `.rn` for floats, so ptxas
    /// never contracts a `mul` and an `add` into an `fma` behind the program's back.
    fn default_mode<T: Ty>() -> Option<FloatMode> {
        T::PTX.is_float().then_some(FloatMode::Rn)
    }

    /// `add` (floats: `add.rn`).
    pub fn add<T: NumTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Add, Self::default_mode::<T>(), a.into(), b.into())
    }

    /// `sub` (floats: `sub.rn`).
    pub fn sub<T: NumTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Sub, Self::default_mode::<T>(), a.into(), b.into())
    }

    /// `mul.lo` for integers (wrapping), `mul.rn` for floats.
    pub fn mul<T: NumTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Mul, Self::default_mode::<T>(), a.into(), b.into())
    }

    /// Float add, sub, mul or div with an explicit rounding mode (or `.approx`/`.full` for div).
    pub fn float_op<T: FloatTy>(
        &mut self,
        op: BinaryOp,
        mode: FloatMode,
        a: impl Into<Val<T>>,
        b: impl Into<Val<T>>,
    ) -> Val<T> {
        self.emit_binary(op, Some(mode), a.into(), b.into())
    }

    /// `mul.hi`: the high half of the full integer product.
    pub fn mul_hi<T: IntTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::MulHi, None, a.into(), b.into())
    }

    /// Division: integer `div` (truncating), or IEEE `div.rn` for floats.
    pub fn div<T: NumTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Div, Self::default_mode::<T>(), a.into(), b.into())
    }

    /// `div.approx.f32`: fast division, max 2 ulp for divisors in [2^-126, 2^126].
    pub fn div_approx(
        &mut self,
        a: impl Into<Val<crate::F32>>,
        b: impl Into<Val<crate::F32>>,
    ) -> Val<crate::F32> {
        self.emit_binary(BinaryOp::Div, Some(FloatMode::Approx), a.into(), b.into())
    }

    /// Integer remainder (`rem`, sign of the dividend).
    pub fn rem<T: IntTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Rem, None, a.into(), b.into())
    }

    /// `min` (floats: a NaN operand yields the other operand).
    pub fn min<T: NumTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Min, None, a.into(), b.into())
    }

    /// `max`.
    pub fn max<T: NumTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Max, None, a.into(), b.into())
    }

    /// Bitwise (or predicate) `and`.
    pub fn and<T: LogicTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::And, None, a.into(), b.into())
    }

    /// Bitwise (or predicate) `or`.
    pub fn or<T: LogicTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Or, None, a.into(), b.into())
    }

    /// Bitwise (or predicate) `xor`.
    pub fn xor<T: LogicTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T> {
        self.emit_binary(BinaryOp::Xor, None, a.into(), b.into())
    }

    /// `shl`: shift left; amounts of the width or more give 0.
    pub fn shl<T: IntTy>(&mut self, a: impl Into<Val<T>>, amount: impl Into<Val<U32>>) -> Val<T> {
        self.emit_binary(BinaryOp::Shl, None, a.into(), amount.into())
    }

    /// `shr`: arithmetic for signed types, logical for unsigned; amounts clamp to the width.
    pub fn shr<T: IntTy>(&mut self, a: impl Into<Val<T>>, amount: impl Into<Val<U32>>) -> Val<T> {
        self.emit_binary(BinaryOp::Shr, None, a.into(), amount.into())
    }

    /// Negation (signed integers: two's complement; floats: sign flip).
    pub fn neg<T: SignedOrFloat>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        self.emit_unary(UnaryOp::Neg, None, a.into())
    }

    /// `-a` as Rust computes it for floats: the sign bit flipped, a NaN's too (`neg` leaves
    /// the sign of a NaN result unspecified). One `xor.bN` on the float register itself, as
    /// PTX lets a bit-type instruction take a register of any type of its size.
    pub fn flip_sign<T: FloatTy>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        let sign = 1u64 << (T::PTX.bits() - 1);
        self.sign_bit_op(BinaryOp::Xor, sign, a.into())
    }

    /// `|a|` as Rust computes it for floats: the sign bit cleared, a NaN's payload kept
    /// (`abs` gives an unspecified NaN for a NaN). One `and.bN` on the float register itself.
    pub fn clear_sign<T: FloatTy>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        let magnitude = u64::MAX >> (64 - T::PTX.bits() + 1);
        self.sign_bit_op(BinaryOp::And, magnitude, a.into())
    }

    /// `op.bN a, mask` on the bits of float `a` (folded when `a` is an immediate): the
    /// sign-bit operations Rust specifies bit for bit, NaNs included.
    fn sign_bit_op<T: FloatTy>(&mut self, op: BinaryOp, mask: u64, a: Val<T>) -> Val<T> {
        let bits = match T::PTX.bits() {
            16 => PtxType::B16,
            32 => PtxType::B32,
            _ => PtxType::B64,
        };
        if let Some(folded) = a.imm_raw().and_then(|x| eval::int_binary(op, bits, x.bits, mask)) {
            return Val::Imm(T::host_from_bits(folded));
        }
        let dst = self.reg::<T>();
        self.push(Instr::Binary {
            op,
            ty: bits,
            mode: None,
            dst: dst.raw,
            a: a.operand(),
            b: Operand::Imm(Imm::new(bits, mask)),
        });
        Val::Reg(dst)
    }

    /// Absolute value (signed integers and floats).
    pub fn abs<T: SignedOrFloat>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        self.emit_unary(UnaryOp::Abs, None, a.into())
    }

    /// Bitwise (or predicate) complement.
    pub fn not<T: LogicTy>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        self.emit_unary(UnaryOp::Not, None, a.into())
    }

    /// A float unary operation with an explicit mode: `sqrt`/`rcp` with `.rn`..`.rp` or
    /// `.approx`; `rsqrt`, `ex2`, `lg2`, `sin`, `cos` with `.approx` (f32 only).
    pub fn float_unary<T: FloatTy>(&mut self, op: UnaryOp, mode: FloatMode, a: impl Into<Val<T>>) -> Val<T> {
        self.emit_unary(op, Some(mode), a.into())
    }

    /// IEEE square root, `sqrt.rn`.
    pub fn sqrt<T: FloatTy>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        self.emit_unary(UnaryOp::Sqrt, Some(FloatMode::Rn), a.into())
    }

    /// IEEE reciprocal, `rcp.rn`.
    pub fn rcp<T: FloatTy>(&mut self, a: impl Into<Val<T>>) -> Val<T> {
        self.emit_unary(UnaryOp::Rcp, Some(FloatMode::Rn), a.into())
    }

    /// `mul.wide`: the full product of two 16/32-bit integers as a value twice as wide.
    pub fn mul_wide<T: WideningTy>(&mut self, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<T::Wide> {
        let (a, b) = (a.into(), b.into());
        if let (Some(x), Some(y)) = (a.imm_raw(), b.imm_raw()) {
            return Val::Imm(<T::Wide as Ty>::host_from_bits(eval::mul_wide(T::PTX, x.bits, y.bits)));
        }
        let dst = self.reg::<T::Wide>();
        self.push(Instr::MulWide { ty: T::PTX, dst: dst.raw, a: a.operand(), b: b.operand() });
        Val::Reg(dst)
    }

    /// `mad.lo`: integer `a * b + c`, wrapping.
    pub fn mad_lo<T: IntTy>(
        &mut self,
        a: impl Into<Val<T>>,
        b: impl Into<Val<T>>,
        c: impl Into<Val<T>>,
    ) -> Val<T> {
        let (a, b, c) = (a.into(), b.into(), c.into());
        if let (Some(x), Some(y), Some(z)) = (a.imm_raw(), b.imm_raw(), c.imm_raw()) {
            let p = eval::int_binary(BinaryOp::Mul, T::PTX, x.bits, y.bits).unwrap_or(0);
            let s = eval::int_binary(BinaryOp::Add, T::PTX, p, z.bits).unwrap_or(0);
            return Val::Imm(T::host_from_bits(s));
        }
        let dst = self.reg::<T>();
        self.push(Instr::Mad { ty: T::PTX, dst: dst.raw, a: a.operand(), b: b.operand(), c: c.operand() });
        Val::Reg(dst)
    }

    /// `fma.rn`: `a * b + c` with one rounding.
    pub fn fma<T: FloatTy>(
        &mut self,
        a: impl Into<Val<T>>,
        b: impl Into<Val<T>>,
        c: impl Into<Val<T>>,
    ) -> Val<T> {
        self.fma_with(FloatMode::Rn, a, b, c)
    }

    /// `fma` with an explicit IEEE rounding mode.
    pub fn fma_with<T: FloatTy>(
        &mut self,
        mode: FloatMode,
        a: impl Into<Val<T>>,
        b: impl Into<Val<T>>,
        c: impl Into<Val<T>>,
    ) -> Val<T> {
        let (a, b, c) = (a.into(), b.into(), c.into());
        if let (Some(x), Some(y), Some(z)) = (a.imm_raw(), b.imm_raw(), c.imm_raw()) {
            if let Some(r) = eval::fma(T::PTX, mode, x, y, z) {
                return Val::from_imm(r);
            }
        }
        let dst = self.reg::<T>();
        self.push(Instr::Fma {
            ty: T::PTX,
            mode,
            dst: dst.raw,
            a: a.operand(),
            b: b.operand(),
            c: c.operand(),
        });
        Val::Reg(dst)
    }

    // ----- conversions ------------------------------------------------------------------

    /// `cvt` with the semantics of Rust's `as`: integers truncate or extend, float to integer
    /// rounds toward zero and saturates (NaN gives 0), integer to float and f64 to f32 round
    /// to nearest, f32 to f64 is exact.
    pub fn cast<D: Ty, S: Ty>(&mut self, src: impl Into<Val<S>>) -> Val<D> {
        let round = match (D::PTX.is_float(), S::PTX.is_float()) {
            (false, true) => Some(CvtRound::Rzi),
            (true, false) => Some(CvtRound::Rn),
            (true, true) if D::PTX.bits() < S::PTX.bits() => Some(CvtRound::Rn),
            _ => None,
        };
        self.cvt(src, round, false)
    }

    /// `cvt` with an explicit rounding mode and saturation (the verifier checks the combination).
    pub fn cvt<D: Ty, S: Ty>(
        &mut self,
        src: impl Into<Val<S>>,
        round: Option<CvtRound>,
        sat: bool,
    ) -> Val<D> {
        let src = src.into();
        if D::PTX == S::PTX && round.is_none() && !sat {
            return match src {
                Val::Reg(r) => Val::Reg(Reg { raw: r.raw, _ty: PhantomData }),
                Val::Imm(v) => Val::Imm(D::host_from_bits(S::host_to_bits(v))),
            };
        }
        if let Some(r) = src.imm_raw().and_then(|i| eval::cvt(D::PTX, S::PTX, round, sat, i)) {
            return Val::from_imm(r);
        }
        let dst = self.reg::<D>();
        self.push(Instr::Cvt {
            dst_ty: D::PTX,
            src_ty: S::PTX,
            round,
            sat,
            dst: dst.raw,
            src: src.operand(),
        });
        if let (Some(CvtRound::Rni), false, Val::Reg(s)) = (round, sat, src) {
            self.facts.note_round(dst.raw, s.raw);
        }
        Val::Reg(dst)
    }

    // ----- comparison and selection -----------------------------------------------------

    /// `setp.cmp`: compares two values into a predicate.
    pub fn setp<T: Ty>(&mut self, cmp: Cmp, a: impl Into<Val<T>>, b: impl Into<Val<T>>) -> Val<Pred> {
        let (a, b) = (a.into(), b.into());
        if let (Some(x), Some(y)) = (a.imm_raw(), b.imm_raw()) {
            if let Some(r) = eval::compare(cmp, T::PTX, x, y) {
                return Val::Imm(r);
            }
        }
        let dst = self.reg::<Pred>();
        self.push(Instr::Setp { cmp, ty: T::PTX, dst: dst.raw, a: a.operand(), b: b.operand() });
        Val::Reg(dst)
    }

    /// `selp`: `if pred { a } else { b }`.
    pub fn selp<T: Ty>(
        &mut self,
        pred: impl Into<Val<Pred>>,
        a: impl Into<Val<T>>,
        b: impl Into<Val<T>>,
    ) -> Val<T> {
        let (a, b) = (a.into(), b.into());
        match pred.into() {
            Val::Imm(p) => {
                if p {
                    a
                } else {
                    b
                }
            }
            Val::Reg(p) => {
                let dst = self.reg::<T>();
                self.push(Instr::Selp {
                    ty: T::PTX,
                    dst: dst.raw,
                    a: a.operand(),
                    b: b.operand(),
                    pred: p.raw,
                });
                Val::Reg(dst)
            }
        }
    }

    // ----- control flow -----------------------------------------------------------------

    /// A new label, not yet placed.
    pub fn label(&mut self) -> Label {
        let l = Label(self.ir.label_count);
        self.ir.label_count += 1;
        l
    }

    /// Places `label` here.
    pub fn place(&mut self, label: Label) {
        self.push(Instr::Label(label));
    }

    /// Unconditional `bra`.
    pub fn bra(&mut self, target: Label) {
        self.push(Instr::Bra { guard: None, target });
    }

    /// `@p bra`: branch when `pred` holds (a constant predicate branches always or never).
    pub fn bra_if(&mut self, pred: impl Into<Val<Pred>>, target: Label) {
        self.guarded_bra(pred.into(), false, target);
    }

    /// `@!p bra`: branch when `pred` does not hold.
    pub fn bra_unless(&mut self, pred: impl Into<Val<Pred>>, target: Label) {
        self.guarded_bra(pred.into(), true, target);
    }

    fn guarded_bra(&mut self, pred: Val<Pred>, negated: bool, target: Label) {
        if let Some(guard) = Self::guard_for(pred, negated) {
            self.push(Instr::Bra { guard, target });
        }
    }

    /// `ret`.
    pub fn ret(&mut self) {
        self.push(Instr::Ret);
    }

    // ----- memory -----------------------------------------------------------------------

    /// The global address of element `index` of an array of `T` at `base`: the index is
    /// widened with `mul.wide.u32` before it is scaled, so arrays over 4 GiB work.
    pub fn element_address<T: MemTy>(&mut self, base: Reg<U64>, index: impl Into<Val<U32>>) -> Reg<U64> {
        let offset = self.byte_offset::<T>(index);
        self.offset_address(base, offset)
    }

    /// The byte offset of element `index` of an array of `T`, widened to 64 bits first
    /// (`mul.wide.u32`); share it between arrays indexed alike with [`Self::offset_address`].
    pub fn byte_offset<T: MemTy>(&mut self, index: impl Into<Val<U32>>) -> Val<U64> {
        self.mul_wide(index, T::PTX.bytes())
    }

    /// `base + offset` as an address register.
    pub fn offset_address(&mut self, base: Reg<U64>, offset: impl Into<Val<U64>>) -> Reg<U64> {
        match self.add(base, offset) {
            Val::Reg(r) => r,
            imm @ Val::Imm(_) => self.mov(imm),
        }
    }

    fn emit_load<T: MemTy>(&mut self, space: Space, addr: Address, n: usize) -> RegList {
        let mut regs = [VReg { ty: T::PTX, index: 0 }; 4];
        for r in regs.iter_mut().take(n) {
            *r = self.raw_reg(T::PTX);
        }
        let dsts = RegList::new(&regs[..n]).expect("1, 2 or 4 registers");
        self.push(Instr::Ld { guard: None, space, ty: T::PTX.memory_type(), dsts, addr });
        dsts
    }

    /// `ld.global`: one value at `addr + offset` bytes.
    pub fn ld_global<T: MemTy>(&mut self, addr: Reg<U64>, offset: i32) -> Reg<T> {
        let list = self.emit_load::<T>(Space::Global, reg_address(addr.raw, offset), 1);
        Reg { raw: list.as_slice()[0], _ty: PhantomData }
    }

    /// `ld.global.v2`: two consecutive values (the address must be aligned to both).
    pub fn ld_global_v2<T: MemTy>(&mut self, addr: Reg<U64>, offset: i32) -> [Reg<T>; 2] {
        let list = self.emit_load::<T>(Space::Global, reg_address(addr.raw, offset), 2);
        let r = list.as_slice();
        [0, 1].map(|i| Reg { raw: r[i], _ty: PhantomData })
    }

    /// `ld.global.v4`: four consecutive 16/32-bit values.
    pub fn ld_global_v4<T: MemTy>(&mut self, addr: Reg<U64>, offset: i32) -> [Reg<T>; 4] {
        let list = self.emit_load::<T>(Space::Global, reg_address(addr.raw, offset), 4);
        let r = list.as_slice();
        [0, 1, 2, 3].map(|i| Reg { raw: r[i], _ty: PhantomData })
    }

    /// `st.global`: stores `value` at `addr + offset` bytes.
    pub fn st_global<T: MemTy>(&mut self, addr: Reg<U64>, offset: i32, value: impl Into<Val<T>>) {
        let v = self.to_reg(value);
        self.store_one(None, Space::Global, reg_address(addr.raw, offset), v);
    }

    /// `st.global.v2` / `.v4`: stores 2 or 4 consecutive values; any other count is
    /// stored one value at a time.
    pub fn st_global_vec<T: MemTy>(&mut self, addr: Reg<U64>, offset: i32, values: &[Reg<T>]) {
        if matches!(values.len(), 2 | 4) {
            let mut raw = [VReg { ty: T::PTX, index: 0 }; 4];
            for (r, v) in raw.iter_mut().zip(values) {
                *r = v.raw;
            }
            let srcs = RegList::new(&raw[..values.len()]).expect("2 or 4 registers");
            let addr = reg_address(addr.raw, offset);
            self.push(Instr::St { guard: None, space: Space::Global, ty: T::PTX.memory_type(), srcs, addr });
        } else {
            for (i, v) in values.iter().enumerate() {
                let at = offset + (i as u32 * T::PTX.bytes()) as i32;
                self.store_one(None, Space::Global, reg_address(addr.raw, at), *v);
            }
        }
    }

    fn store_one<T: MemTy>(&mut self, guard: Option<Guard>, space: Space, addr: Address, value: Reg<T>) {
        self.push_store(guard, space, T::PTX.memory_type(), addr, value.raw);
    }

    fn push_store(&mut self, guard: Option<Guard>, space: Space, ty: PtxType, addr: Address, src: VReg) {
        let srcs = RegList::new(&[src]).expect("one register");
        self.push(Instr::St { guard, space, ty, srcs, addr });
    }

    fn push_load(&mut self, guard: Option<Guard>, ty: PtxType, addr: Address, dst: VReg) {
        let dsts = RegList::new(&[dst]).expect("one register");
        self.push(Instr::Ld { guard, space: Space::Global, ty, dsts, addr });
    }

    /// `ld.global.u8` / `.s8`: the byte at `addr + offset`, zero-extended (`U8`) or
    /// sign-extended (`S8`) into a 32-bit register.
    pub fn ld_global_byte<M: ByteTy>(&mut self, addr: Reg<U64>, offset: i32) -> Reg<M::Reg> {
        let dst = self.reg::<M::Reg>();
        self.push_load(None, M::PTX, reg_address(addr.raw, offset), dst.raw);
        dst
    }

    /// `st.global.u8` / `.s8`: stores the low byte of `value` at `addr + offset`.
    pub fn st_global_byte<M: ByteTy>(&mut self, addr: Reg<U64>, offset: i32, value: impl Into<Val<M::Reg>>) {
        let v = self.to_reg(value);
        self.push_store(None, Space::Global, M::PTX, reg_address(addr.raw, offset), v.raw);
    }

    /// Declares a `.shared` array of `bytes` bytes aligned to `align` (a power of two).
    pub fn shared_array(&mut self, bytes: u32, align: u32) -> SharedId {
        self.ir.shared.push(SharedDecl { bytes, align, dynamic: false });
        SharedId(self.ir.shared.len() as u32 - 1)
    }

    /// The kernel's dynamic shared memory (sized by the launch, read its size from
    /// [`SpecialReg::DynamicSmemSize`]), aligned to `align`: declared on first use, the same
    /// array on every later call (with the larger alignment).
    pub fn dynamic_shared_array(&mut self, align: u32) -> SharedId {
        if let Some(i) = self.ir.shared.iter().position(|s| s.dynamic) {
            let decl = &mut self.ir.shared[i];
            decl.align = decl.align.max(align);
            return SharedId(i as u32);
        }
        self.ir.shared.push(SharedDecl { bytes: 0, align, dynamic: true });
        SharedId(self.ir.shared.len() as u32 - 1)
    }

    /// The 32-bit shared-window address of a shared array.
    pub fn shared_address(&mut self, shared: SharedId) -> Reg<U32> {
        let dst = self.reg::<U32>();
        self.push(Instr::SharedAddr { dst: dst.raw, shared });
        dst
    }

    /// `ld.shared` at a 32-bit shared address plus `offset` bytes.
    pub fn ld_shared<T: MemTy>(&mut self, addr: Reg<U32>, offset: i32) -> Reg<T> {
        let list = self.emit_load::<T>(Space::Shared, reg_address(addr.raw, offset), 1);
        Reg { raw: list.as_slice()[0], _ty: PhantomData }
    }

    /// `st.shared` at a 32-bit shared address plus `offset` bytes.
    pub fn st_shared<T: MemTy>(&mut self, addr: Reg<U32>, offset: i32, value: impl Into<Val<T>>) {
        let v = self.to_reg(value);
        self.store_one(None, Space::Shared, reg_address(addr.raw, offset), v);
    }

    /// `ld.shared` directly from a shared array at a constant byte offset.
    pub fn ld_shared_at<T: MemTy>(&mut self, shared: SharedId, offset: i32) -> Reg<T> {
        let addr = Address { base: AddrBase::Shared(shared), offset };
        let list = self.emit_load::<T>(Space::Shared, addr, 1);
        Reg { raw: list.as_slice()[0], _ty: PhantomData }
    }

    /// A constant string of the kernel: `text` and a terminating NUL (the same text twice
    /// is one string).
    pub fn string(&mut self, text: &[u8]) -> StringId {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text);
        bytes.push(0);
        if let Some(i) = self.ir.strings.iter().position(|s| *s == bytes) {
            return StringId(i as u32);
        }
        self.ir.strings.push(bytes);
        StringId(self.ir.strings.len() as u32 - 1)
    }

    /// `printf(format, args)` through the CUDA runtime's `vprintf`; the argument buffer
    /// grows to hold `args` (each at the offset it names).
    pub fn printf(&mut self, format: StringId, args: Vec<PrintArg>) {
        let end = args
            .iter()
            .map(|a| match a {
                PrintArg::Value { offset, ty, .. } => offset + ty.bytes(),
                PrintArg::Choice { offset, .. } => offset + 8,
            })
            .max()
            .unwrap_or(0);
        // A buffer of at least 8 bytes, so that an argument-less `printf` passes a real one.
        self.ir.print_buffer_bytes = self.ir.print_buffer_bytes.max(end).max(8);
        self.push(Instr::Printf { format, args });
    }

    /// `bar.sync 0`: waits until every thread of the block arrives.
    pub fn bar_sync(&mut self) {
        self.push(Instr::BarSync { barrier: 0 });
    }

    /// `atom.global.add`: adds `value` at `addr`, returns the old value.
    pub fn atom_add<T: AtomAddTy>(&mut self, addr: Reg<U64>, value: impl Into<Val<T>>) -> Reg<T> {
        self.atom(AtomOp::Add, addr, value.into(), None)
    }

    /// `atom.global.exch`: stores `value` at `addr`, returns the old value.
    pub fn atom_exch<T: Bits32Or64>(&mut self, addr: Reg<U64>, value: impl Into<Val<T>>) -> Reg<T> {
        self.atom(AtomOp::Exch, addr, value.into(), None)
    }

    /// `atom.global.cas`: stores `new` at `addr` if it holds `expected`; returns the old value.
    pub fn atom_cas<T: Bits32Or64>(
        &mut self,
        addr: Reg<U64>,
        expected: impl Into<Val<T>>,
        new: impl Into<Val<T>>,
    ) -> Reg<T> {
        let new = new.into().operand();
        self.atom(AtomOp::Cas, addr, expected.into(), Some(new))
    }

    fn atom<T: MemTy>(&mut self, op: AtomOp, addr: Reg<U64>, a: Val<T>, b: Option<Operand>) -> Reg<T> {
        let dst = self.reg::<T>();
        self.atom_into(None, op, addr, a, b, dst);
        dst
    }

    /// `{@guard} atom.global` writing the old value into `dst`.
    fn atom_into<T: MemTy>(
        &mut self,
        guard: Option<Guard>,
        op: AtomOp,
        addr: Reg<U64>,
        a: Val<T>,
        b: Option<Operand>,
        dst: Reg<T>,
    ) {
        self.push(Instr::Atom {
            guard,
            op,
            space: Space::Global,
            ty: T::PTX,
            dst: dst.raw,
            addr: reg_address(addr.raw, 0),
            a: a.operand(),
            b,
        });
    }

    // ----- predicated memory accesses ----------------------------------------------------

    /// The guard for "when `pred` holds" (`negated`: when it does not): `Some(None)` for a
    /// constant that always holds, `None` for one that never does.
    fn guard_for(pred: Val<Pred>, negated: bool) -> Option<Option<Guard>> {
        match pred {
            Val::Imm(p) => (p != negated).then_some(None),
            Val::Reg(r) => Some(Some(Guard { pred: r.raw, negated })),
        }
    }

    /// `@pred ld.global` of one value into `dst`, which keeps its value when `pred` does
    /// not hold (`negated`: the other way round). No branch.
    pub fn ld_global_into_if<T: MemTy>(
        &mut self,
        pred: impl Into<Val<Pred>>,
        negated: bool,
        addr: Reg<U64>,
        offset: i32,
        dst: Reg<T>,
    ) {
        let Some(guard) = Self::guard_for(pred.into(), negated) else { return };
        self.push_load(guard, T::PTX.memory_type(), reg_address(addr.raw, offset), dst.raw);
    }

    /// `@pred ld.global.u8` / `.s8` of one byte into `dst`, extended as by
    /// [`Self::ld_global_byte`]; `dst` keeps its value when `pred` does not hold.
    pub fn ld_global_byte_into_if<M: ByteTy>(
        &mut self,
        pred: impl Into<Val<Pred>>,
        negated: bool,
        addr: Reg<U64>,
        offset: i32,
        dst: Reg<M::Reg>,
    ) {
        let Some(guard) = Self::guard_for(pred.into(), negated) else { return };
        self.push_load(guard, M::PTX, reg_address(addr.raw, offset), dst.raw);
    }

    /// `@pred st.global.u8` / `.s8` of the low byte of `value`. No branch.
    pub fn st_global_byte_if<M: ByteTy>(
        &mut self,
        pred: impl Into<Val<Pred>>,
        negated: bool,
        addr: Reg<U64>,
        offset: i32,
        value: impl Into<Val<M::Reg>>,
    ) {
        let Some(guard) = Self::guard_for(pred.into(), negated) else { return };
        let v = self.to_reg(value);
        self.push_store(guard, Space::Global, M::PTX, reg_address(addr.raw, offset), v.raw);
    }

    /// `@pred st.global` of one value (`negated`: when `pred` does not hold). No branch.
    pub fn st_global_if<T: MemTy>(
        &mut self,
        pred: impl Into<Val<Pred>>,
        negated: bool,
        addr: Reg<U64>,
        offset: i32,
        value: impl Into<Val<T>>,
    ) {
        let Some(guard) = Self::guard_for(pred.into(), negated) else { return };
        let v = self.to_reg(value);
        self.store_one(guard, Space::Global, reg_address(addr.raw, offset), v);
    }

    /// `@pred atom.global.cas` into `dst` (which keeps its value when `pred` does not hold).
    pub fn atom_cas_into_if<T: Bits32Or64>(
        &mut self,
        pred: impl Into<Val<Pred>>,
        negated: bool,
        addr: Reg<U64>,
        expected: impl Into<Val<T>>,
        new: impl Into<Val<T>>,
        dst: Reg<T>,
    ) {
        let Some(guard) = Self::guard_for(pred.into(), negated) else { return };
        let new = new.into().operand();
        self.atom_into(guard, AtomOp::Cas, addr, expected.into(), Some(new), dst);
    }

    /// `shfl.sync.mode.b32` over the full warp: `lane` is the source lane (`.idx`), the
    /// delta (`.up`/`.down`) or the xor mask (`.bfly`).
    pub fn shfl<T: Bits32>(&mut self, mode: ShflMode, src: Reg<T>, lane: impl Into<Val<U32>>) -> Reg<T> {
        let dst = self.reg::<T>();
        let clamp = if mode == ShflMode::Up { 0 } else { 31 };
        self.push(Instr::Shfl {
            mode,
            dst: dst.raw,
            src: src.raw,
            lane: lane.into().operand(),
            clamp,
            mask: u32::MAX,
        });
        dst
    }
}

/// Marker trait for the types `abs` accepts: signed integers and floats.
pub trait SignedOrFloat: NumTy {}
impl<T: SignedTy> SignedOrFloat for T {}
impl SignedOrFloat for crate::F32 {}
impl SignedOrFloat for crate::F64 {}

fn reg_address(base: VReg, offset: i32) -> Address {
    Address { base: AddrBase::Reg(base), offset }
}
