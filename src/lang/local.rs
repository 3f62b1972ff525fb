//! Local arrays (`let mut acc = [0.0f32; 4];`, `let w = [1.0, 2.0, 3.0];`): each element
//! is a register of its own. An index known while the kernel is built (a literal, a
//! constant, an `#[unroll]` loop's variable) names its register directly; one computed on
//! the GPU compares itself with every index, a read selecting the element and a write
//! updating each element under its comparison (`N` selects, no local memory). Binding an
//! array copies its elements, as Rust copies a `[T; N]`. An index past the end is Rust's
//! panic: in a checked kernel the launch's `Err(OutOfBounds)` naming the array, a read
//! giving 0 and a write dropped as for slices.

use ptx_core::fault::FaultKind;

use super::ops::Site;
use super::{KernelCtx, Scalar, Value};

/// The most elements a local array may have: each is a register (PTX allows 255 per thread
/// before spilling), so a longer one is a runaway length rather than a kernel.
pub const MAX_LOCAL_ARRAY: usize = 1024;

/// A local array inside the kernel being built: its elements' registers (or constants,
/// before it is bound), its element type and the name its errors give it.
#[derive(Clone, Debug)]
pub struct LocalArray {
    elems: Vec<Value>,
    elem: Scalar,
    name: &'static str,
}

impl LocalArray {
    /// `a.len()`, known while the kernel is built.
    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// `a.is_empty()`.
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
}

impl KernelCtx {
    /// `[a, b, c]` of element type `elem`.
    pub fn local_array(&mut self, elems: &[Value], elem: Scalar) -> LocalArray {
        LocalArray { elems: elems.to_vec(), elem, name: "array" }
    }

    /// `[value; len]`: a length over [`MAX_LOCAL_ARRAY`] is a fault at `site` (and the array
    /// empty) rather than a build that runs out of memory.
    pub fn local_repeat(&mut self, value: Value, len: usize, site: Site) -> LocalArray {
        let len = if self.within_local_limit(len, site) { len } else { 0 };
        LocalArray { elems: vec![value; len], elem: value.ty(), name: "array" }
    }

    /// Whether a local array of `len` elements is within [`MAX_LOCAL_ARRAY`]; a fault at
    /// `site` where it is not.
    fn within_local_limit(&mut self, len: usize, site: Site) -> bool {
        if len <= MAX_LOCAL_ARRAY {
            return true;
        }
        let fault = site.fault(FaultKind::Panic, "a local array of more than 1024 elements");
        self.fault_here(fault, Value::from(len as u64), Value::from(0u64));
        false
    }

    /// `let a: [T; len] = array;` (and `a = array` with `a` of `len` elements): whether
    /// `array` has `len` elements. Another length (one the macro could not count) is a fault
    /// at `site`, where Rust's type check would refuse the program.
    pub fn local_expect_len(&mut self, array: &LocalArray, len: usize, site: Site) -> bool {
        if array.len() == len {
            return true;
        }
        let fault = site.fault(FaultKind::Panic, "an array's length differs from the one its type says");
        self.fault_here(fault, Value::from(array.len() as u64), Value::from(len as u64));
        false
    }

    /// `let name = array;`: the elements copied into registers of their own, which
    /// assignments to its elements change.
    pub fn local_bind(&mut self, array: &LocalArray, name: &'static str) -> LocalArray {
        let elems = array.elems.iter().map(|&v| self.mutable_var(v)).collect();
        LocalArray { elems, elem: array.elem, name }
    }

    /// `array = value` for a whole array: `value`'s elements are read first (they may be
    /// `array`'s own, `a = [a[1], a[0]]`), then written. A length other than `array`'s (one
    /// the macro could not compare) is a fault at `site`, where Rust's type check would
    /// refuse the program, and nothing is written.
    pub fn local_assign(&mut self, array: &LocalArray, value: &LocalArray, site: Site) {
        if !self.local_expect_len(value, array.len(), site) {
            return;
        }
        let read: Vec<Value> = value.elems.iter().map(|&v| self.var(v)).collect();
        for (&element, v) in array.elems.iter().zip(read) {
            self.assign(element, v);
        }
    }

    /// `TABLE[index]` of a constant array of the code around the kernel (`const TABLE: [f32;
    /// 4]`, read while the kernel is built): its elements are constants of their own type,
    /// indexed as a local array's (an index computed on the GPU selects among them).
    pub fn item_array_load<T: Copy + Default + Into<Value>>(
        &mut self,
        table: &[T],
        name: &'static str,
        index: Value,
        site: Site,
    ) -> Value {
        let elem = T::default().into().ty();
        let elems = table.iter().map(|&v| v.into()).collect();
        self.local_load(&LocalArray { elems, elem, name }, index, site)
    }

    /// A constant array of the code around the kernel used whole (`let t = TAPS;`): a local
    /// array of its elements as constants. More than [`MAX_LOCAL_ARRAY`] elements is a fault
    /// at `site` (and the array empty), as for `[v; n]`.
    pub fn table_array<T: Copy + Default + Into<Value>>(
        &mut self,
        table: &[T],
        name: &'static str,
        site: Site,
    ) -> LocalArray {
        let elem = T::default().into().ty();
        let elems = if self.within_local_limit(table.len(), site) {
            table.iter().map(|&v| v.into()).collect()
        } else {
            Vec::new()
        };
        LocalArray { elems, elem, name }
    }

    /// `array[index]` (a `usize` index).
    pub fn local_load(&mut self, array: &LocalArray, index: Value, site: Site) -> Value {
        if index.as_bits().is_none() {
            self.check_local_index(array, index, site);
            let mut picked = self.zero_of(array.elem);
            for (k, &element) in array.elems.iter().enumerate() {
                let here = self.eq(index, Value::from(k));
                picked = self.select(here, element, picked);
            }
            return picked;
        }
        match self.local_slot(array, index, site) {
            Some(i) => array.elems[i],
            None => self.zero_of(array.elem),
        }
    }

    /// `array[index] = value` (a `usize` index).
    pub fn local_store(&mut self, array: &LocalArray, index: Value, value: Value, site: Site) {
        if index.as_bits().is_none() {
            self.check_local_index(array, index, site);
            for (k, &element) in array.elems.iter().enumerate() {
                let here = self.eq(index, Value::from(k));
                let updated = self.select(here, value, element);
                self.assign(element, updated);
            }
            return;
        }
        if let Some(i) = self.local_slot(array, index, site) {
            self.assign(array.elems[i], value);
        }
    }

    /// Records an index computed on the GPU past the end at `site` (a checked kernel).
    fn check_local_index(&mut self, array: &LocalArray, index: Value, site: Site) {
        let len = Value::from(array.elems.len());
        let past = self.ge(index, len);
        let fault = site.fault(FaultKind::IndexOutOfBounds { signed_index: false }, array.name);
        let (index64, len64) = (self.cast(index, Scalar::U64), self.cast(len, Scalar::U64));
        self.fault_if(past, fault, index64, len64);
    }

    /// The element a constant `index` names, or `None` past the end (recorded at `site` in a
    /// checked kernel, as Rust's panic).
    fn local_slot(&mut self, array: &LocalArray, index: Value, site: Site) -> Option<usize> {
        let bits = index.as_bits().unwrap_or(u64::MAX);
        let negative = index.ty().is_signed() && (bits as i64) < 0;
        match usize::try_from(bits) {
            Ok(i) if !negative && i < array.elems.len() => Some(i),
            _ => {
                let kind = FaultKind::IndexOutOfBounds { signed_index: index.ty().is_signed() };
                let fault = site.fault(kind, array.name);
                let len = Value::from(array.elems.len() as u64);
                self.fault_here(fault, Value::from(bits), len);
                None
            }
        }
    }
}
