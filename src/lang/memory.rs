//! Kernel parameters and slice accesses. A slice parameter is a global pointer plus a
//! hidden `u64` length parameter (where the kernel reads the length); in a checked kernel
//! every access compares the index with
//! the length, an out-of-range load gives 0, an out-of-range store is dropped, and the first
//! such access of a launch is recorded in the fault record ([`ptx_core::fault`]).

use ptx_core::builder::{Reg, Val};
use ptx_core::fault::{self, FaultKind, FaultSite};
use ptx_core::ir::{Instr, Operand};
use ptx_core::types::MemTy;
use ptx_core::{Bf16, Cmp, PtxType, F16, F32, F64, S16, S32, S64, U16, U32, U64};
use ptx_core::{S8 as SignedByte, U8 as Byte};

use super::ops::{dispatch, Site};
use super::{internal_error, KernelCtx, Scalar, Value};

/// A slice parameter inside the kernel: its global address, its length and element type.
#[derive(Clone, Copy, Debug)]
pub struct Slice {
    base: Reg<U64>,
    /// The length, loaded when the kernel reads it (checks, `x.len()`).
    len: Option<Reg<U64>>,
    elem: Scalar,
    name: &'static str,
}

impl Slice {
    /// `x.len()`, a `usize`.
    pub fn len(&self) -> Value {
        Value::of(Val::Reg(self.len_reg()), Scalar::Usize)
    }

    fn len_reg(&self) -> Reg<U64> {
        self.len.unwrap_or_else(|| internal_error("a slice length read but not loaded"))
    }
}

/// The suffix of the hidden length parameter of slice `x` (`x__len`).
pub const LEN_SUFFIX: &str = "__len";

/// The PTX type a slice of `elem` is stored as.
fn memory_type(elem: Scalar) -> PtxType {
    match elem {
        Scalar::U8 => PtxType::U8,
        Scalar::I8 => PtxType::S8,
        Scalar::U16 => PtxType::U16,
        Scalar::I16 => PtxType::S16,
        other => other.reg_type(),
    }
}

impl KernelCtx {
    /// Declares and loads a scalar parameter.
    pub fn scalar_param(&mut self, name: &'static str, ty: Scalar) -> Value {
        if ty == Scalar::Bool {
            // PTX has no `.pred` parameters: a `bool` travels as a `u32`, 0 or 1.
            let word = self.scalar_param(name, Scalar::U32);
            return self.ne(word, Value::from(0u32));
        }
        let index = self.b.raw_param(name, ty.reg_type());
        let dst = self.b.raw_reg(ty.reg_type());
        self.b.push(Instr::LdParam { ty: ty.reg_type(), dst, param: index });
        Value::new(Operand::Reg(dst), ty)
    }

    /// Declares a slice parameter, a global pointer followed by its length when `with_len`
    /// (the kernel checks accesses or reads `x.len()`; otherwise the launch passes no
    /// length), and loads them.
    pub fn slice_param(&mut self, name: &'static str, elem: Scalar, with_len: bool) -> Slice {
        let base = self.b.global_pointer(name);
        let len = with_len.then(|| {
            let mut len_name = String::with_capacity(name.len() + LEN_SUFFIX.len());
            len_name.push_str(name);
            len_name.push_str(LEN_SUFFIX);
            let len_index = self.b.raw_param(len_name, PtxType::U64);
            let len = self.b.raw_reg(PtxType::U64);
            self.b.push(Instr::LdParam { ty: PtxType::U64, dst: len, param: len_index });
            Reg::from_raw(len).unwrap_or_else(|| internal_error("length register"))
        });
        Slice { base, len, elem, name }
    }

    /// The index as a `u64` (a negative signed index becomes huge, so one unsigned
    /// comparison with the length rejects it).
    fn index_u64(&mut self, index: Value) -> Val<U64> {
        // `as u64` sign-extends a signed index, as Rust's cast does.
        self.cast(index, Scalar::U64).typed::<U64>()
    }

    /// The address of element `index`, as a register and a constant byte offset: 64-bit
    /// arithmetic (`mul.wide.u32` for a `u32` index), shared with earlier accesses of the
    /// same straight-line stretch, and `x[i + c]` with a 64-bit `i` is `x[i]`'s address
    /// plus `c` elements ([`super::known`]).
    fn element_address(&mut self, slice: &Slice, index: Value) -> (Reg<U64>, i32) {
        match index.op {
            Operand::Reg(r) => match self.known.sum(r) {
                Some((base, delta)) => self.element_address_at(slice, Value::new(base, index.ty), delta),
                None => self.element_address_at(slice, index, 0),
            },
            Operand::Imm(_) => self.element_address_at(slice, index, 0),
        }
    }

    /// The address of element `index + delta` (`delta` nonzero only for a 64-bit index):
    /// `index`'s element address and `delta` elements as the constant offset, or the sum
    /// computed when the offset does not fit 32 bits.
    fn element_address_at(&mut self, slice: &Slice, index: Value, delta: i64) -> (Reg<U64>, i32) {
        let bytes = memory_type(slice.elem).bytes();
        let (index, offset) = match delta.checked_mul(i64::from(bytes)).map(i32::try_from) {
            Some(Ok(offset)) => (index, offset),
            _ => (self.offset_sum(index, delta), 0),
        };
        if let Some(address) = self.known.address(slice.base.raw(), index.op, bytes) {
            return (address, offset);
        }
        let byte_offset = match self.known.offset(index.op, bytes) {
            Some(known) => Val::Reg(known),
            None => {
                let computed = if index.ty == Scalar::U32 {
                    self.b.mul_wide(index.typed::<U32>(), bytes)
                } else {
                    let index64 = self.index_u64(index);
                    self.b.mul(index64, u64::from(bytes))
                };
                if let Val::Reg(r) = computed {
                    self.known.record_offset(index.op, bytes, r);
                }
                computed
            }
        };
        let address = self.b.offset_address(slice.base, byte_offset);
        self.known.record_address(slice.base.raw(), index.op, bytes, address);
        (address, offset)
    }

    /// In a checked kernel, the index as `u64` and the predicate `index < len`.
    fn in_bounds(&mut self, slice: &Slice, index: Value) -> Option<(Val<U64>, Val<ptx_core::Pred>)> {
        if !self.checked {
            return None;
        }
        let index64 = self.index_u64(index);
        Some((index64, self.b.setp::<U64>(Cmp::Lt, index64, slice.len_reg())))
    }

    fn bounds_site(&self, slice: &Slice, index: Value, site: Site) -> FaultSite {
        site.fault(FaultKind::IndexOutOfBounds { signed_index: index.ty.is_signed() }, slice.name)
    }

    /// `slice[index]`: in a checked kernel an out-of-range index reads 0 and records the
    /// access at `site`, without a branch: the load is predicated on `index < len`, and so
    /// is the recording.
    pub fn load(&mut self, slice: &Slice, index: Value, site: Site) -> Value {
        let addr = self.element_address(slice, index);
        let Some((index64, ok)) = self.in_bounds(slice, index) else {
            return self.raw_load(slice.elem, addr);
        };
        let result = self.guarded_load(slice.elem, addr, ok);
        let fault_site = self.bounds_site(slice, index, site);
        self.record_fault_when(ok, true, fault_site, Value::of(index64, Scalar::U64), slice.len());
        result
    }

    /// `slice[base + delta]` with a 64-bit `base`: `base`'s element address plus `delta`
    /// elements; the sum itself is computed only for the check of a checked kernel.
    pub fn load_offset(&mut self, slice: &Slice, base: Value, delta: i64, site: Site) -> Value {
        if self.checked {
            let index = self.offset_sum(base, delta);
            return self.load(slice, index, site);
        }
        let addr = self.element_address_at(slice, base, delta);
        self.raw_load(slice.elem, addr)
    }

    /// `slice[base + delta] = value`, as [`Self::load_offset`].
    pub fn store_offset(&mut self, slice: &Slice, base: Value, delta: i64, value: Value, site: Site) {
        if self.checked {
            let index = self.offset_sum(base, delta);
            return self.store(slice, index, value, site);
        }
        let addr = self.element_address_at(slice, base, delta);
        self.raw_store(slice.elem, addr, value, None);
    }

    /// `base + delta` in `base`'s (64-bit) type, wrapping.
    fn offset_sum(&mut self, base: Value, delta: i64) -> Value {
        let delta = self.cast(Value::from(delta), base.ty);
        self.add(base, delta)
    }

    /// `slice[index]` where a dominating guard (`if i < x.len()`, `for i in 0..x.len()`)
    /// proves the index in range: no check.
    pub fn load_in_bounds(&mut self, slice: &Slice, index: Value) -> Value {
        let addr = self.element_address(slice, index);
        self.raw_load(slice.elem, addr)
    }

    /// `slice[index] = value` under a guard that proves the index in range: no check.
    pub fn store_in_bounds(&mut self, slice: &Slice, index: Value, value: Value) {
        let addr = self.element_address(slice, index);
        self.raw_store(slice.elem, addr, value, None);
    }

    /// `slice[index] = value`: in a checked kernel an out-of-range store is dropped and
    /// recorded at `site` (predicated, like [`Self::load`]).
    pub fn store(&mut self, slice: &Slice, index: Value, value: Value, site: Site) {
        let addr = self.element_address(slice, index);
        let Some((index64, ok)) = self.in_bounds(slice, index) else {
            return self.raw_store(slice.elem, addr, value, None);
        };
        self.raw_store(slice.elem, addr, value, Some(ok));
        let fault_site = self.bounds_site(slice, index, site);
        self.record_fault_when(ok, true, fault_site, Value::of(index64, Scalar::U64), slice.len());
    }

    /// A load of `elem` at `addr + off` bytes when `ok` holds, else 0.
    fn guarded_load(&mut self, elem: Scalar, (addr, off): (Reg<U64>, i32), ok: Val<ptx_core::Pred>) -> Value {
        fn load<T: MemTy>(
            k: &mut KernelCtx,
            (addr, off): (Reg<U64>, i32),
            ok: Val<ptx_core::Pred>,
            zero: Val<T>,
        ) -> Reg<T> {
            let dst = k.b.mov::<T>(zero);
            k.b.ld_global_into_if(ok, false, addr, off, dst);
            dst
        }
        match elem {
            // A byte is loaded straight into its 32-bit register, zero- or sign-extended.
            Scalar::U8 => {
                let dst = self.b.mov::<U32>(0u32);
                self.b.ld_global_byte_into_if::<Byte>(ok, false, addr, off, dst);
                Value::of(Val::Reg(dst), elem)
            }
            Scalar::I8 => {
                let dst = self.b.mov::<S32>(0i32);
                self.b.ld_global_byte_into_if::<SignedByte>(ok, false, addr, off, dst);
                Value::of(Val::Reg(dst), elem)
            }
            Scalar::U16 => {
                let narrow = load::<U16>(self, (addr, off), ok, Val::Imm(0));
                Value::of(self.b.cast::<U32, U16>(narrow), elem)
            }
            Scalar::I16 => {
                let narrow = load::<S16>(self, (addr, off), ok, Val::Imm(0));
                Value::of(self.b.cast::<S32, S16>(narrow), elem)
            }
            _ => {
                let zero =
                    Value::new(ptx_core::ir::Operand::Imm(ptx_core::ir::Imm::new(elem.reg_type(), 0)), elem);
                let op = dispatch!(elem.reg_type(), T => Val::Reg(load::<T>(self, (addr, off), ok, zero.typed::<T>())).operand(),
                    [U32, S32, U64, S64, F32, F64, F16, Bf16]);
                Value::new(op, elem)
            }
        }
    }

    fn raw_load(&mut self, elem: Scalar, (addr, off): (Reg<U64>, i32)) -> Value {
        fn load<T: MemTy>(k: &mut KernelCtx, addr: Reg<U64>, off: i32) -> Operand {
            Val::Reg(k.b.ld_global::<T>(addr, off)).operand()
        }
        match elem {
            Scalar::U8 => Value::of(Val::Reg(self.b.ld_global_byte::<Byte>(addr, off)), elem),
            Scalar::I8 => Value::of(Val::Reg(self.b.ld_global_byte::<SignedByte>(addr, off)), elem),
            Scalar::U16 => {
                let narrow = Val::Reg(self.b.ld_global::<U16>(addr, off));
                Value::of(self.b.cast::<U32, U16>(narrow), elem)
            }
            Scalar::I16 => {
                let narrow = Val::Reg(self.b.ld_global::<S16>(addr, off));
                Value::of(self.b.cast::<S32, S16>(narrow), elem)
            }
            _ => {
                let op = dispatch!(elem.reg_type(), T => load::<T>(self, addr, off), [U32, S32, U64, S64, F32, F64, F16, Bf16]);
                Value::new(op, elem)
            }
        }
    }

    /// A store of `value` at `addr`, predicated on `guard` when there is one.
    fn raw_store(
        &mut self,
        elem: Scalar,
        (addr, off): (Reg<U64>, i32),
        value: Value,
        guard: Option<Val<ptx_core::Pred>>,
    ) {
        fn store<T: MemTy>(
            k: &mut KernelCtx,
            (addr, off): (Reg<U64>, i32),
            v: Val<T>,
            guard: Option<Val<ptx_core::Pred>>,
        ) {
            match guard {
                Some(ok) => k.b.st_global_if(ok, false, addr, off, v),
                None => k.b.st_global::<T>(addr, off, v),
            }
        }
        match elem {
            Scalar::U8 => match guard {
                Some(ok) => self.b.st_global_byte_if::<Byte>(ok, false, addr, off, value.typed::<U32>()),
                None => self.b.st_global_byte::<Byte>(addr, off, value.typed::<U32>()),
            },
            Scalar::I8 => match guard {
                Some(ok) => {
                    self.b.st_global_byte_if::<SignedByte>(ok, false, addr, off, value.typed::<S32>())
                }
                None => self.b.st_global_byte::<SignedByte>(addr, off, value.typed::<S32>()),
            },
            Scalar::U16 => {
                let narrow = self.b.cast::<U16, U32>(value.typed::<U32>());
                store::<U16>(self, (addr, off), narrow, guard);
            }
            Scalar::I16 => {
                let narrow = self.b.cast::<S16, S32>(value.typed::<S32>());
                store::<S16>(self, (addr, off), narrow, guard);
            }
            _ => dispatch!(elem.reg_type(), T => store::<T>(self, (addr, off), value.typed::<T>(), guard),
                [U32, S32, U64, S64, F32, F64, F16, Bf16]),
        }
    }

    /// Records a fault at `site` when `cond` holds (checked kernels only).
    pub(crate) fn fault_if(&mut self, cond: Value, site: FaultSite, value: Value, extra: Value) {
        if !self.checked || cond.as_bits() == Some(0) {
            return;
        }
        self.record_fault_when(cond.typed::<ptx_core::Pred>(), false, site, value, extra);
    }

    /// Records a fault at `site` when `pred` holds (`negated`: when it does not), branch-free:
    /// a predicated `atom.cas` claims the record for the first faulting thread of the
    /// launch, and two stores predicated on that claim write the values.
    fn record_fault_when(
        &mut self,
        pred: Val<ptx_core::Pred>,
        negated: bool,
        site: FaultSite,
        value: Value,
        extra: Value,
    ) {
        let Some(record) = self.fault_record else {
            internal_error("a fault recorded before the kernel's body began")
        };
        let id = u32::try_from(self.sites.len()).unwrap_or(u32::MAX - 1);
        self.sites.push(site);
        const _: () = assert!(fault::SITE_OFFSET == 0, "the site word is at the record's address");
        // `previous` stays 1 (not claimed) where the access was fine.
        let previous = self.b.mov::<U32>(1u32);
        self.b.atom_cas_into_if::<U32>(pred, negated, record, 0u32, id + 1, previous);
        let claimed = self.b.setp::<U32>(Cmp::Eq, previous, 0u32);
        let value = self.cast(value, Scalar::U64).typed::<U64>();
        let extra = self.cast(extra, Scalar::U64).typed::<U64>();
        self.b.st_global_if::<U64>(claimed, false, record, fault::VALUE_OFFSET, value);
        self.b.st_global_if::<U64>(claimed, false, record, fault::EXTRA_OFFSET, extra);
    }
}
