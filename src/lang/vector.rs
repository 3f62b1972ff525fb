//! Vector accesses: `load2`/`load4`/`load8` and `store2`/`store4`/`store8` of a slice
//! parameter, two, four or eight consecutive elements in one `ld.global.v2`/`.v4` or
//! `st.global.v2`/`.v4` (4 to 16 bytes: what bandwidth-bound kernels need; eight 16-bit
//! elements travel as four 32-bit words, two to a word, low half first). The index must be
//! a multiple of the width, so that the access is aligned (a slice parameter starts on a
//! 256-byte boundary). A checked kernel
//! checks both: a misaligned index is `Error::KernelPanic` with the host function's panic
//! message, elements past the end `Error::OutOfBounds` with the first index out of range;
//! either way the access does not happen (a load gives zeros).

use ptx_core::builder::{Reg, Val};
use ptx_core::fault::FaultKind;
use ptx_core::ir::{Imm, Instr, Operand, RegList, Space, VReg};
use ptx_core::{Cmp, Pred, PtxType, U16, U32, U64};

use super::memory::{access_types, guard_when, Slice};
use super::ops::Site;
use super::{internal_error, KernelCtx, Scalar, Value};

/// The eight values of `load8` and `store8`, as the kernel's tuple.
type Values8 = (Value, Value, Value, Value, Value, Value, Value, Value);

impl KernelCtx {
    /// `load2(slice, index)`.
    pub fn load2(&mut self, slice: &Slice, index: Value, site: Site) -> (Value, Value) {
        let [a, b] = self.load_vector::<2>(slice, index, site);
        (a, b)
    }

    /// `load4(slice, index)`.
    pub fn load4(&mut self, slice: &Slice, index: Value, site: Site) -> (Value, Value, Value, Value) {
        let [a, b, c, d] = self.load_vector::<4>(slice, index, site);
        (a, b, c, d)
    }

    /// `store2(slice, index, (a, b))`.
    pub fn store2(&mut self, slice: &Slice, index: Value, (a, b): (Value, Value), site: Site) {
        self.store_vector(slice, index, [a, b], site);
    }

    /// `store4(slice, index, (a, b, c, d))`.
    pub fn store4(
        &mut self,
        slice: &Slice,
        index: Value,
        (a, b, c, d): (Value, Value, Value, Value),
        site: Site,
    ) {
        self.store_vector(slice, index, [a, b, c, d], site);
    }

    /// `load8(slice, index)`: four untyped 32-bit words (`.b32`: the launch's argument check
    /// reads it as a packed access of the slice's 16-bit elements), each split into its low
    /// and high halves.
    pub fn load8(&mut self, slice: &Slice, index: Value, site: Site) -> Values8 {
        let (space, addr) = self.vector_location(slice, index);
        let ok = self.vector_checks::<8>(slice, index, site);
        let words: [VReg; 4] = std::array::from_fn(|_| self.b.raw_reg(PtxType::U32));
        if ok.is_some() {
            for w in words {
                self.mov_raw(w, Operand::Imm(Imm::new(PtxType::U32, 0)));
            }
        }
        if let Some(guard) = guard_when(ok) {
            let list = RegList::new(&words).unwrap_or_else(|| internal_error("four registers"));
            self.b.push(Instr::Ld { guard, space, ty: PtxType::B32, dsts: list, addr });
        }
        let register = access_types(slice.elem).1;
        let halves = words.map(|w| {
            let word = Val::Reg(Reg::<U32>::from_raw(w).unwrap_or_else(|| internal_error("a u32 register")));
            let high = self.b.shr(word, 16u32);
            [word, high].map(|part| {
                let bits = self.b.cast::<U16, U32>(part);
                let element = self.b.raw_reg(register);
                self.b.push(Instr::Mov { ty: PtxType::B16, dst: element, src: bits.operand() });
                self.loaded_value(slice.elem, element)
            })
        });
        let [[a, b], [c, d], [e, f], [g, h]] = halves;
        (a, b, c, d, e, f, g, h)
    }

    /// `store8(slice, index, values)`: the eight 16-bit values joined two to a 32-bit word,
    /// low half first, in one store of four words.
    pub fn store8(&mut self, slice: &Slice, index: Value, values: Values8, site: Site) {
        let (space, addr) = self.vector_location(slice, index);
        let ok = self.vector_checks::<8>(slice, index, site);
        let (a, b, c, d, e, f, g, h) = values;
        let widened = [a, b, c, d, e, f, g, h].map(|v| {
            let element = self.stored_register(slice.elem, v);
            let bits = self.b.raw_reg(PtxType::U16);
            self.b.push(Instr::Mov { ty: PtxType::B16, dst: bits, src: Operand::Reg(element) });
            let bits = Reg::<U16>::from_raw(bits).unwrap_or_else(|| internal_error("a u16 register"));
            self.b.cast::<U32, U16>(Val::Reg(bits))
        });
        let words: [VReg; 4] = std::array::from_fn(|k| {
            let high = self.b.shl(widened[2 * k + 1], 16u32);
            let word = self.b.or(widened[2 * k], high);
            self.operand_register(word.operand())
        });
        if let Some(guard) = guard_when(ok) {
            let list = RegList::new(&words).unwrap_or_else(|| internal_error("four registers"));
            self.b.push(Instr::St { guard, space, ty: PtxType::B32, srcs: list, addr });
        }
    }

    /// `N` elements from `index` in one load; in a checked kernel, zeros (and a recorded
    /// fault) where the access is misaligned or out of range.
    fn load_vector<const N: usize>(&mut self, slice: &Slice, index: Value, site: Site) -> [Value; N] {
        let (space, addr) = self.vector_location(slice, index);
        let ok = self.vector_checks::<N>(slice, index, site);
        let register = access_types(slice.elem).1;
        let dsts: [_; N] = std::array::from_fn(|_| self.b.raw_reg(register));
        if ok.is_some() {
            for d in dsts {
                self.mov_raw(d, Operand::Imm(Imm::new(register, 0)));
            }
        }
        if let Some(guard) = guard_when(ok) {
            let list = RegList::new(&dsts).unwrap_or_else(|| internal_error("two or four registers"));
            self.b.push(Instr::Ld { guard, space, ty: access_types(slice.elem).0, dsts: list, addr });
        }
        dsts.map(|d| self.loaded_value(slice.elem, d))
    }

    /// `values` into the `N` elements from `index` in one store; in a checked kernel,
    /// nothing (and a recorded fault) where the access is misaligned or out of range.
    fn store_vector<const N: usize>(&mut self, slice: &Slice, index: Value, values: [Value; N], site: Site) {
        let (space, addr) = self.vector_location(slice, index);
        let ok = self.vector_checks::<N>(slice, index, site);
        let srcs = values.map(|v| self.stored_register(slice.elem, v));
        if let Some(guard) = guard_when(ok) {
            let list = RegList::new(&srcs).unwrap_or_else(|| internal_error("two or four registers"));
            self.b.push(Instr::St { guard, space, ty: access_types(slice.elem).0, srcs: list, addr });
        }
    }

    /// Where element `index` of a slice parameter is (the macro accepts vector accesses of
    /// slice parameters only).
    fn vector_location(&mut self, slice: &Slice, index: Value) -> (Space, ptx_core::ir::Address) {
        let at = self.element_location(slice, index);
        if at.0 != Space::Global {
            internal_error("a vector access of a shared array");
        }
        at
    }

    /// In a checked kernel, whether the access of `N` elements from `index` is aligned
    /// (`index % N == 0`) and in range (`index < len` and `len - index >= N`), recording the
    /// fault Rust's host functions would panic with where it is not: the misalignment first
    /// (the host function asserts it first), then the first index out of range
    /// (`max(index, len)`, where the host's indexing stops).
    fn vector_checks<const N: usize>(
        &mut self,
        slice: &Slice,
        index: Value,
        site: Site,
    ) -> Option<Val<Pred>> {
        if !self.checked {
            return None;
        }
        let index64 = self.index_u64(index);
        let len = slice.len_val();
        let low_bits = self.b.and::<U64>(index64, N as u64 - 1);
        let aligned = self.b.setp::<U64>(Cmp::Eq, low_bits, 0u64);
        let starts_inside = self.b.setp::<U64>(Cmp::Lt, index64, len);
        let room = self.b.sub::<U64>(len, index64);
        let fits = self.b.setp::<U64>(Cmp::Ge, room, N as u64);
        let in_range = self.b.and::<Pred>(starts_inside, fits);
        let misaligned = site.fault(FaultKind::Panic, crate::gpu::misaligned(N));
        let zero = Value::from(0u64);
        self.record_fault_when(aligned, true, misaligned, zero, zero);
        // The range fault is recorded where this does not hold: aligned and out of range.
        let not_aligned = self.b.not::<Pred>(aligned);
        let no_range_fault = self.b.or::<Pred>(in_range, not_aligned);
        let first_outside = self.b.max::<U64>(index64, len);
        let oob = site.fault(FaultKind::IndexOutOfBounds { signed_index: false }, slice.name);
        self.record_fault_when(no_range_fault, true, oob, Value::of(first_outside, Scalar::U64), slice.len());
        Some(self.b.and::<Pred>(aligned, in_range))
    }
}
