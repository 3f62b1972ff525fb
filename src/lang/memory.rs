//! Kernel parameters, slice accesses and shared arrays. A slice parameter is a global
//! pointer plus a hidden `u64` length parameter (where the kernel reads the length); a
//! shared array (`shared::<T, N>()`) is a `.shared` variable of `N` elements, addressed with
//! 32-bit arithmetic, whose length is the constant `N`. Both are a [`Slice`] here, so every
//! access below serves both. In a checked kernel every access compares the index with the
//! length, an out-of-range load gives 0, an out-of-range store or atomic is dropped, and
//! the first such access of a launch is recorded in the fault record ([`ptx_core::fault`]).

use ptx_core::builder::{Reg, Val};
use ptx_core::fault::{self, FaultKind, FaultSite};
use ptx_core::ir::{AddrBase, Address, AtomOp, Guard, Imm, Instr, Operand, RegList, SharedId, Space, VReg};
use ptx_core::{Cmp, PtxType, S16, S32, U16, U32, U64};

use super::ops::Site;
use super::{internal_error, KernelCtx, Scalar, Value};

/// A slice parameter or a shared array inside the kernel: where its elements are, its
/// length and element type, and the name errors give it.
#[derive(Clone, Copy, Debug)]
pub struct Slice {
    base: Base,
    len: Length,
    pub(super) elem: Scalar,
    pub(super) name: &'static str,
}

/// Where a slice's elements are.
#[derive(Clone, Copy, Debug)]
enum Base {
    /// Global memory from this 64-bit address.
    Global(Reg<U64>),
    /// A shared array, the 32-bit shared-window address of the slice's first element in a
    /// register, and that element's byte offset in the array when it is a constant (a
    /// constant index is then an offset from the array's name).
    Shared(SharedId, Reg<U32>, Option<i32>),
}

/// A slice's length.
#[derive(Clone, Copy, Debug)]
enum Length {
    /// A register: a slice's hidden length parameter, loaded when the kernel reads it
    /// (checks, `x.len()`), the dynamic shared array's length from the launch, or a range's
    /// length computed from its bounds.
    Loaded(Option<Reg<U64>>),
    /// A constant length: a shared array's, or a range's with constant bounds.
    Fixed(u64),
}

impl Slice {
    /// `x.len()`, a `usize`.
    pub fn len(&self) -> Value {
        Value::of(self.len_val(), Scalar::Usize)
    }

    pub(super) fn len_val(&self) -> Val<U64> {
        match self.len {
            Length::Loaded(Some(r)) => Val::Reg(r),
            Length::Loaded(None) => internal_error("a slice length read but not loaded"),
            Length::Fixed(n) => Val::Imm(n),
        }
    }
}

/// The suffix of the hidden length parameter of slice `x` (`x__len`).
pub const LEN_SUFFIX: &str = "__len";

/// How a value of `elem` is held in memory and in its register: the memory type of the
/// access and the register type it is loaded into or stored from (a 16-bit integer goes
/// through a 16-bit register, then is extended to its 32-bit value register).
pub(super) fn access_types(elem: Scalar) -> (PtxType, PtxType) {
    match elem {
        Scalar::U8 => (PtxType::U8, PtxType::U32),
        Scalar::I8 => (PtxType::S8, PtxType::S32),
        Scalar::U16 => (PtxType::U16, PtxType::U16),
        Scalar::I16 => (PtxType::S16, PtxType::S16),
        other => (other.reg_type().memory_type(), other.reg_type()),
    }
}

/// The size of one element of `elem` in memory.
fn element_bytes(elem: Scalar) -> u32 {
    access_types(elem).0.bytes()
}

/// The guard for "when `ok` holds" (`None`: always): `Some(None)` for a condition that
/// always holds, `None` for one that never does.
pub(super) fn guard_when(ok: Option<Val<ptx_core::Pred>>) -> Option<Option<Guard>> {
    match ok {
        None | Some(Val::Imm(true)) => Some(None),
        Some(Val::Imm(false)) => None,
        Some(Val::Reg(r)) => Some(Some(Guard { pred: r.raw(), negated: false })),
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
        // PTX has no `.bf16` parameters: a `bf16` travels as its `.b16` bits.
        let param_ty = if ty == Scalar::Bf16 { PtxType::B16 } else { ty.reg_type() };
        let index = self.b.raw_param(name, param_ty);
        let dst = self.b.raw_reg(ty.reg_type());
        self.b.push(Instr::LdParam { ty: param_ty, dst, param: index });
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
        Slice { base: Base::Global(base), len: Length::Loaded(len), elem, name }
    }

    /// `&x[start..end]` (`..=end` when `inclusive`; a bound left out is `0` or `x.len()`):
    /// the slice of those elements, named `name` in its faults. A range outside `x` is
    /// Rust's panic at `site` in a checked kernel, which stops the thread there (checked in
    /// the order Rust's slices check: the start past the length, the end past it, the
    /// start past the end); undefined behaviour in an unchecked one.
    pub fn sub_slice(
        &mut self,
        x: &Slice,
        start: Option<Value>,
        end: Option<Value>,
        inclusive: bool,
        name: &'static str,
        site: Site,
    ) -> Slice {
        let start = start.map_or(Val::Imm(0), |v| self.index_u64(v));
        let end = match end {
            Some(v) => {
                let end = self.index_u64(v);
                if inclusive {
                    // `..=usize::MAX` ends past every slice.
                    let at_max = self.b.setp::<U64>(Cmp::Eq, end, u64::MAX);
                    let message = "range end index out of range for slice";
                    self.panic_and_stop_if(Value::of(at_max, Scalar::Bool), site, message);
                    self.b.add(end, 1u64)
                } else {
                    end
                }
            }
            None => x.len_val(),
        };
        if self.checked {
            let len = x.len_val();
            let checks = [
                (start, len, "range start index out of range for slice"),
                (end, len, "range end index out of range for slice"),
                (start, end, "slice index starts after its end"),
            ];
            for (a, b, message) in checks {
                let past = self.b.setp::<U64>(Cmp::Gt, a, b);
                self.panic_and_stop_if(Value::of(past, Scalar::Bool), site, message);
            }
        }
        let bytes = element_bytes(x.elem);
        let base = match x.base {
            Base::Global(base) => {
                let offset = self.b.mul(start, u64::from(bytes));
                Base::Global(self.b.offset_address(base, offset))
            }
            Base::Shared(id, address, first) => {
                let start32 = self.b.cast::<U32, U64>(start);
                let moved = self.b.mad_lo::<U32>(start32, bytes, address);
                let offset =
                    start.as_imm().and_then(|i| i32::try_from(i.checked_mul(u64::from(bytes))?).ok());
                let first = first.zip(offset).and_then(|(a, b)| a.checked_add(b));
                Base::Shared(id, self.b.to_reg(moved), first)
            }
        };
        let len = match self.b.sub(end, start) {
            Val::Reg(r) => Length::Loaded(Some(r)),
            Val::Imm(n) => Length::Fixed(n),
        };
        Slice { base, len, elem: x.elem, name }
    }

    /// `let name = shared::<elem, len>();`: declares a `.shared` array of `len` elements,
    /// aligned to its element size. A size over the 48 KiB of static shared memory (or
    /// zero) is reported by the verifier when the kernel is launched.
    pub fn shared_array(&mut self, name: &'static str, elem: Scalar, len: u64) -> Slice {
        let bytes = element_bytes(elem);
        let total = u32::try_from(len.saturating_mul(u64::from(bytes))).unwrap_or(u32::MAX);
        let id = self.b.shared_array(total, bytes);
        let address = self.b.shared_address(id);
        Slice { base: Base::Shared(id, address, Some(0)), len: Length::Fixed(len), elem, name }
    }

    /// `let name = shared_dyn::<elem>();`: the kernel's dynamic shared memory (every
    /// `shared_dyn` of a kernel is the same memory), as many whole elements as the launch's
    /// `LaunchConfig::with_shared_mem` bytes hold.
    pub fn dynamic_shared_array(&mut self, name: &'static str, elem: Scalar) -> Slice {
        let bytes = element_bytes(elem);
        let id = self.b.dynamic_shared_array(bytes.max(16));
        let address = self.b.shared_address(id);
        let size = self.b.special(ptx_core::SpecialReg::DynamicSmemSize);
        let count = self.b.div::<U32>(size, bytes);
        let len = self.b.cast::<U64, U32>(count);
        let len = self.b.to_reg(len);
        Slice { base: Base::Shared(id, address, Some(0)), len: Length::Loaded(Some(len)), elem, name }
    }

    /// The index as a `u64` (a negative signed index becomes huge, so one unsigned
    /// comparison with the length rejects it).
    pub(super) fn index_u64(&mut self, index: Value) -> Val<U64> {
        // `as u64` sign-extends a signed index, as Rust's cast does.
        self.cast(index, Scalar::U64).typed::<U64>()
    }

    /// Where element `index` is: its state space and address.
    pub(super) fn element_location(&mut self, slice: &Slice, index: Value) -> (Space, Address) {
        match slice.base {
            Base::Global(base) => {
                let (address, offset) = self.element_address(base, slice.elem, index);
                (Space::Global, Address { base: AddrBase::Reg(address.raw()), offset })
            }
            Base::Shared(id, address, first) => {
                (Space::Shared, self.shared_element(id, address, first, slice.elem, index))
            }
        }
    }

    /// The address of element `index` of a shared array: the array plus a constant offset
    /// for a constant index, else `index * bytes + base` in 32 bits (a shared window is
    /// smaller than 4 GiB; a checked kernel has compared the full index with the length).
    fn shared_element(
        &mut self,
        id: SharedId,
        base: Reg<U32>,
        first: Option<i32>,
        elem: Scalar,
        index: Value,
    ) -> Address {
        let bytes = element_bytes(elem);
        // A constant index (its bits zero-extended: a negative one is huge) within i32 range,
        // from a first element at a constant place in the array.
        let constant = index.as_bits().and_then(|bits| bits.checked_mul(u64::from(bytes)));
        let offset =
            constant.and_then(|o| i32::try_from(o).ok()).zip(first).and_then(|(o, f)| o.checked_add(f));
        if let Some(offset) = offset {
            return Address { base: AddrBase::Shared(id), offset };
        }
        let index32 = self.cast(index, Scalar::U32).typed::<U32>();
        let sum = self.b.mad_lo::<U32>(index32, bytes, base);
        let address = self.b.to_reg(sum);
        Address { base: AddrBase::Reg(address.raw()), offset: 0 }
    }

    /// The global address of element `index`, as a register and a constant byte offset:
    /// 64-bit arithmetic (`mul.wide.u32` for a `u32` index), shared with earlier accesses
    /// of the same straight-line stretch, and `x[i + c]` with a 64-bit `i` is `x[i]`'s
    /// address plus `c` elements ([`super::known`]).
    fn element_address(&mut self, base: Reg<U64>, elem: Scalar, index: Value) -> (Reg<U64>, i32) {
        match index.op {
            Operand::Reg(r) => match self.known.sum(r) {
                Some((sum_base, delta)) => {
                    self.element_address_at(base, elem, Value::new(sum_base, index.ty), delta)
                }
                None => self.element_address_at(base, elem, index, 0),
            },
            Operand::Imm(_) => self.element_address_at(base, elem, index, 0),
        }
    }

    /// The global address of element `index + delta` (`delta` nonzero only for a 64-bit
    /// index): `index`'s element address and `delta` elements as the constant offset, or
    /// the sum computed when the offset does not fit 32 bits.
    fn element_address_at(
        &mut self,
        base: Reg<U64>,
        elem: Scalar,
        index: Value,
        delta: i64,
    ) -> (Reg<U64>, i32) {
        let bytes = element_bytes(elem);
        let (index, offset) = match delta.checked_mul(i64::from(bytes)).map(i32::try_from) {
            Some(Ok(offset)) => (index, offset),
            _ => (self.offset_sum(index, delta), 0),
        };
        if let Some(address) = self.known.address(base.raw(), index.op, bytes) {
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
        let address = self.b.offset_address(base, byte_offset);
        self.known.record_address(base.raw(), index.op, bytes, address);
        (address, offset)
    }

    /// In a checked kernel, the index as `u64` and the predicate `index < len`.
    fn in_bounds(&mut self, slice: &Slice, index: Value) -> Option<(Val<U64>, Val<ptx_core::Pred>)> {
        if !self.checked {
            return None;
        }
        let index64 = self.index_u64(index);
        Some((index64, self.b.setp::<U64>(Cmp::Lt, index64, slice.len_val())))
    }

    /// Records, in a checked kernel, an access at `site` that `ok` says was out of range.
    fn record_out_of_bounds(
        &mut self,
        slice: &Slice,
        index: Value,
        checked: (Val<U64>, Val<ptx_core::Pred>),
        site: Site,
    ) {
        let (index64, ok) = checked;
        let fault_site =
            site.fault(FaultKind::IndexOutOfBounds { signed_index: index.ty.is_signed() }, slice.name);
        self.record_fault_when(ok, true, fault_site, Value::of(index64, Scalar::U64), slice.len());
    }

    /// `slice[index]`: in a checked kernel an out-of-range index reads 0 and records the
    /// access at `site`, without a branch: the load is predicated on `index < len`, and so
    /// is the recording.
    pub fn load(&mut self, slice: &Slice, index: Value, site: Site) -> Value {
        let at = self.element_location(slice, index);
        let Some(checked) = self.in_bounds(slice, index) else {
            return self.load_at(slice.elem, at, None);
        };
        let result = self.load_at(slice.elem, at, Some(checked.1));
        self.record_out_of_bounds(slice, index, checked, site);
        result
    }

    /// `slice[base + delta]` with a 64-bit `base`: for a global slice, `base`'s element
    /// address plus `delta` elements; the sum itself is computed only for the check of a
    /// checked kernel (and for the 32-bit address of a shared array).
    pub fn load_offset(&mut self, slice: &Slice, base: Value, delta: i64, site: Site) -> Value {
        match slice.base {
            Base::Global(address) if !self.checked => {
                let (address, offset) = self.element_address_at(address, slice.elem, base, delta);
                self.load_at(
                    slice.elem,
                    (Space::Global, Address { base: AddrBase::Reg(address.raw()), offset }),
                    None,
                )
            }
            _ => {
                let index = self.offset_sum(base, delta);
                self.load(slice, index, site)
            }
        }
    }

    /// `slice[base + delta] = value`, as [`Self::load_offset`].
    pub fn store_offset(&mut self, slice: &Slice, base: Value, delta: i64, value: Value, site: Site) {
        match slice.base {
            Base::Global(address) if !self.checked => {
                let (address, offset) = self.element_address_at(address, slice.elem, base, delta);
                let at = (Space::Global, Address { base: AddrBase::Reg(address.raw()), offset });
                self.store_at(slice.elem, at, value, None);
            }
            _ => {
                let index = self.offset_sum(base, delta);
                self.store(slice, index, value, site);
            }
        }
    }

    /// `base + delta` in `base`'s (64-bit) type, wrapping.
    fn offset_sum(&mut self, base: Value, delta: i64) -> Value {
        let delta = self.cast(Value::from(delta), base.ty);
        self.add(base, delta)
    }

    /// `slice[index]` where a dominating guard (`if i < x.len()`, `for i in 0..x.len()`)
    /// proves the index in range: no check.
    pub fn load_in_bounds(&mut self, slice: &Slice, index: Value) -> Value {
        let at = self.element_location(slice, index);
        self.load_at(slice.elem, at, None)
    }

    /// `slice[index] = value` under a guard that proves the index in range: no check.
    pub fn store_in_bounds(&mut self, slice: &Slice, index: Value, value: Value) {
        let at = self.element_location(slice, index);
        self.store_at(slice.elem, at, value, None);
    }

    /// `slice[index] = value` where `cond` holds (no branch), for an index known in range.
    pub(crate) fn store_if(&mut self, slice: &Slice, index: Value, value: Value, cond: Value) {
        let at = self.element_location(slice, index);
        self.store_at(slice.elem, at, value, Some(cond.typed::<ptx_core::Pred>()));
    }

    /// `slice[index] = value`: in a checked kernel an out-of-range store is dropped and
    /// recorded at `site` (predicated, like [`Self::load`]).
    pub fn store(&mut self, slice: &Slice, index: Value, value: Value, site: Site) {
        let at = self.element_location(slice, index);
        let Some(checked) = self.in_bounds(slice, index) else {
            return self.store_at(slice.elem, at, value, None);
        };
        self.store_at(slice.elem, at, value, Some(checked.1));
        self.record_out_of_bounds(slice, index, checked, site);
    }

    /// The old value of `slice[index]` after the atomic `op` with `a` (and `b`, the new
    /// value of a compare-and-swap) on it. In a checked kernel an out-of-range atomic is
    /// dropped, gives 0 and is recorded at `site`. `op` is one the macro accepted for the
    /// element type (integers of 32 and 64 bits, `f32`/`f64` for add and exchange).
    pub fn atomic(
        &mut self,
        op: AtomOp,
        slice: &Slice,
        index: Value,
        a: Value,
        b: Option<Value>,
        site: Site,
    ) -> Value {
        let (space, addr) = self.element_location(slice, index);
        let checked = self.in_bounds(slice, index);
        let ty = atomic_type(op, slice.elem);
        let dst = self.b.raw_reg(slice.elem.reg_type());
        let zero = Operand::Imm(Imm::new(dst.ty, 0));
        if checked.is_some() {
            self.mov_raw(dst, zero);
        }
        if let Some(guard) = guard_when(checked.map(|c| c.1)) {
            let (a, b) = (a.op, b.map(|b| b.op));
            self.b.push(Instr::Atom { guard, op, space, ty, dst, addr, a, b });
        }
        if let Some(checked) = checked {
            self.record_out_of_bounds(slice, index, checked, site);
        }
        Value::new(Operand::Reg(dst), slice.elem)
    }

    /// A load of `elem` at `at`; with `ok`, only when it holds, else 0 (no branch).
    fn load_at(
        &mut self,
        elem: Scalar,
        (space, addr): (Space, Address),
        ok: Option<Val<ptx_core::Pred>>,
    ) -> Value {
        let (memory, register) = access_types(elem);
        let dst = self.b.raw_reg(register);
        if ok.is_some() {
            self.mov_raw(dst, Operand::Imm(Imm::new(register, 0)));
        }
        if let Some(guard) = guard_when(ok) {
            let dsts = RegList::new(&[dst]).unwrap_or_else(|| internal_error("one register"));
            self.b.push(Instr::Ld { guard, space, ty: memory, dsts, addr });
        }
        self.loaded_value(elem, dst)
    }

    /// The value of `elem` a load into `dst` (of `access_types(elem).1`) gives: 16-bit
    /// integers extended to their 32-bit value registers, the rest as loaded.
    pub(super) fn loaded_value(&mut self, elem: Scalar, dst: VReg) -> Value {
        let narrow = |raw: VReg| Reg::<U16>::from_raw(raw).map(Val::Reg);
        let op = match elem {
            Scalar::U16 => self
                .b
                .cast::<U32, U16>(narrow(dst).unwrap_or_else(|| internal_error("u16 register")))
                .operand(),
            Scalar::I16 => {
                let r = Reg::<S16>::from_raw(dst).unwrap_or_else(|| internal_error("i16 register"));
                self.b.cast::<S32, S16>(Val::Reg(r)).operand()
            }
            _ => Operand::Reg(dst),
        };
        Value::new(op, elem)
    }

    /// The register (of `access_types(elem).1`) a store of `value` writes: 16-bit integers
    /// truncated from their 32-bit value registers, the rest as they are.
    pub(super) fn stored_register(&mut self, elem: Scalar, value: Value) -> VReg {
        let src = match elem {
            Scalar::U16 => self.b.cast::<U16, U32>(value.typed::<U32>()).operand(),
            Scalar::I16 => self.b.cast::<S16, S32>(value.typed::<S32>()).operand(),
            _ => value.op,
        };
        self.operand_register(src)
    }

    /// A store of `value` at `at`; with `ok`, only when it holds.
    fn store_at(
        &mut self,
        elem: Scalar,
        (space, addr): (Space, Address),
        value: Value,
        ok: Option<Val<ptx_core::Pred>>,
    ) {
        let memory = access_types(elem).0;
        let src = self.stored_register(elem, value);
        if let Some(guard) = guard_when(ok) {
            let srcs = RegList::new(&[src]).unwrap_or_else(|| internal_error("one register"));
            self.b.push(Instr::St { guard, space, ty: memory, srcs, addr });
        }
    }

    /// Records a fault at `site` where the kernel reaches this point (checked kernels only):
    /// one the build already knows happens, as a panic or a constant index past the end.
    pub(crate) fn fault_here(&mut self, site: FaultSite, value: Value, extra: Value) {
        self.fault_if(Value::from(true), site, value, extra);
    }

    /// Records Rust's panic with `message` at `site` when `cond` holds, and stops the thread
    /// there, as a panicking Rust thread stops (checked kernels only: in an unchecked one
    /// the condition is undefined behaviour, and nothing is built for it).
    pub(crate) fn panic_and_stop_if(&mut self, cond: Value, site: Site, message: &'static str) {
        if !self.checked || cond.as_bits() == Some(0) {
            return;
        }
        self.panic_if(cond, site, message);
        self.return_if(cond);
    }

    /// Records Rust's panic with `message` at `site` when `cond` holds (checked kernels only;
    /// the thread goes on, as after a faulting slice access).
    pub(crate) fn panic_if(&mut self, cond: Value, site: Site, message: &'static str) {
        self.fault_if(cond, site.fault(FaultKind::Panic, message), Value::from(0u64), Value::from(0u64));
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
    pub(super) fn record_fault_when(
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

/// The type an atomic on `elem` is written with: the signedness `min`/`max` need, and
/// `.u64` for a 64-bit signed add (the same bits; PTX has no `atom.add.s64`).
fn atomic_type(op: AtomOp, elem: Scalar) -> PtxType {
    match (op, elem.reg_type()) {
        (AtomOp::Add, PtxType::S64) => PtxType::U64,
        (_, ty) => ty,
    }
}
