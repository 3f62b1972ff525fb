//! What the kernel being built knows about the straight-line stretch it is in: 64-bit sums
//! `i + c` by their result, and the element byte offsets and addresses already computed.
//! Slice accesses use it to share address arithmetic (`x[i]` and `y[i]` compute `i * 4`
//! once) and to fold `x[i + 1]` into the address of `x[i]` plus a constant offset, which is
//! exact for 64-bit indices because addresses wrap at 2^64 too (a `u32` index wraps at
//! 2^32, so its sums are never folded).
//!
//! Everything is forgotten at each label, where other paths join, and what mentions a
//! variable is forgotten when the variable is assigned; so an entry is only used where
//! the instructions that made it dominate the use and its inputs still hold their values.

use ptx_core::builder::Reg;
use ptx_core::ir::{Operand, VReg};
use ptx_core::U64;

/// Entries kept per table: accesses that share arithmetic are close together.
const CAPACITY: usize = 16;

/// The tables; see the module docs.
#[derive(Debug, Default)]
pub(crate) struct Known {
    /// `(sum, base, delta)`: the register `sum` holds `base + delta` (64-bit).
    sums: Vec<(VReg, Operand, i64)>,
    /// `(index, bytes, offset)`: `offset` holds `index * bytes` as a `u64`.
    offsets: Vec<(Operand, u32, Reg<U64>)>,
    /// `(slice base, index, bytes, address)`: `address` holds `base + index * bytes`.
    addresses: Vec<(VReg, Operand, u32, Reg<U64>)>,
}

/// Appends `entry`, dropping the oldest beyond [`CAPACITY`].
fn push_bounded<T>(table: &mut Vec<T>, entry: T) {
    if table.len() == CAPACITY {
        table.remove(0);
    }
    table.push(entry);
}

impl Known {
    /// Records that `sum` holds `base + delta`.
    pub(crate) fn record_sum(&mut self, sum: VReg, base: Operand, delta: i64) {
        push_bounded(&mut self.sums, (sum, base, delta));
    }

    /// `(base, delta)` when `r` holds a recorded sum `base + delta`.
    pub(crate) fn sum(&self, r: VReg) -> Option<(Operand, i64)> {
        self.sums.iter().rev().find(|e| e.0 == r).map(|e| (e.1, e.2))
    }

    /// Records that `offset` holds `index * bytes`.
    pub(crate) fn record_offset(&mut self, index: Operand, bytes: u32, offset: Reg<U64>) {
        push_bounded(&mut self.offsets, (index, bytes, offset));
    }

    /// The register holding `index * bytes`, if computed.
    pub(crate) fn offset(&self, index: Operand, bytes: u32) -> Option<Reg<U64>> {
        self.offsets.iter().rev().find(|e| e.0 == index && e.1 == bytes).map(|e| e.2)
    }

    /// Records that `address` holds `base + index * bytes`.
    pub(crate) fn record_address(&mut self, base: VReg, index: Operand, bytes: u32, address: Reg<U64>) {
        push_bounded(&mut self.addresses, (base, index, bytes, address));
    }

    /// The register holding `base + index * bytes`, if computed.
    pub(crate) fn address(&self, base: VReg, index: Operand, bytes: u32) -> Option<Reg<U64>> {
        self.addresses.iter().rev().find(|e| e.0 == base && e.1 == index && e.2 == bytes).map(|e| e.3)
    }

    /// Forgets every entry that reads or holds `r` (it is about to be assigned).
    pub(crate) fn forget(&mut self, r: VReg) {
        let reads = |o: &Operand| *o == Operand::Reg(r);
        self.sums.retain(|e| e.0 != r && !reads(&e.1));
        self.offsets.retain(|e| !reads(&e.0) && e.2.raw() != r);
        self.addresses.retain(|e| e.0 != r && !reads(&e.1) && e.3.raw() != r);
    }

    /// Forgets everything (a label: other paths join here).
    pub(crate) fn clear(&mut self) {
        self.sums.clear();
        self.offsets.clear();
        self.addresses.clear();
    }
}
