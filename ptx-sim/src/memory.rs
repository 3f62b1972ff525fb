//! Simulated global memory: allocations of relaxed atomic 32-bit words, so host threads
//! running blocks in parallel never race in the Rust sense, with every access
//! bounds-checked against the one allocation it falls in.
//!
//! Addresses come from a bump allocator starting above 4 GiB (so an address truncated to
//! 32 bits faults), are 256-byte aligned, never reused, and separated by an unmapped gap of
//! at least 256 bytes so small overruns fault instead of landing in a neighbour.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};

use crate::error::SimError;

const BASE: u64 = 1 << 32;
const ALIGN: u64 = 256;
const GAP: u64 = 256;
const LOCKS: usize = 64;

/// One allocation: `bytes` bytes at `start`, stored as little-endian 32-bit words.
pub(crate) struct Allocation {
    pub(crate) start: u64,
    pub(crate) bytes: u64,
    words: Box<[AtomicU32]>,
}

/// The atomic read-modify-write operations of `atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomKind {
    AddU32,
    AddU64,
    AddF32,
    AddF64,
    /// `cas.b16` (what CUDA's bf16 `atomicAdd` loops on before sm_90).
    Cas16,
    Cas32,
    Cas64,
    Exch32,
    Exch64,
    /// min/max/and/or/xor of integers: the operation, the width, signedness.
    Int {
        op: IntAtom,
        wide: bool,
        signed: bool,
    },
    /// `inc.u32`: `old >= a ? 0 : old + 1`.
    Inc32,
    /// `dec.u32`: `old == 0 || old > a ? a : old - 1`.
    Dec32,
    /// `add.noftz.{f16,f16x2,bf16,bf16x2}`: a 16-bit float add (per half for a pair),
    /// rounded to nearest, subnormals kept.
    AddHalf {
        bf16: bool,
        pair: bool,
    },
}

/// The integer read-modify-write operations of `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntAtom {
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl AtomKind {
    /// The access size in bytes.
    pub(crate) fn bytes(self) -> u64 {
        match self {
            AtomKind::AddU32 | AtomKind::AddF32 | AtomKind::Cas32 | AtomKind::Exch32 => 4,
            AtomKind::Inc32 | AtomKind::Dec32 | AtomKind::Int { wide: false, .. } => 4,
            AtomKind::AddHalf { pair: false, .. } | AtomKind::Cas16 => 2,
            AtomKind::AddHalf { pair: true, .. } => 4,
            _ => 8,
        }
    }

    /// Whether the value stored depends on the old one (all but an exchange).
    pub(crate) fn reads_old(self) -> bool {
        !matches!(self, AtomKind::Exch32 | AtomKind::Exch64)
    }

    /// The new value stored for the old value `old`, operand `a` and (cas) `b`.
    pub(crate) fn apply(self, old: u64, a: u64, b: u64) -> u64 {
        match self {
            AtomKind::AddU32 => (old as u32).wrapping_add(a as u32) as u64,
            AtomKind::AddU64 => old.wrapping_add(a),
            AtomKind::AddF32 => atom_add_f32(old as u32, a as u32) as u64,
            AtomKind::AddF64 => {
                ptx_core::softfloat::add(ptx_core::softfloat::F64, old, a, ptx_core::softfloat::Rnd::Rn)
            }
            AtomKind::Cas16 => {
                if old & 0xffff == a & 0xffff {
                    b & 0xffff
                } else {
                    old
                }
            }
            AtomKind::Cas32 => {
                if old as u32 == a as u32 {
                    b & 0xffff_ffff
                } else {
                    old
                }
            }
            AtomKind::Cas64 => {
                if old == a {
                    b
                } else {
                    old
                }
            }
            AtomKind::Exch32 => a & 0xffff_ffff,
            AtomKind::Exch64 => a,
            AtomKind::AddHalf { bf16, pair } => {
                let form =
                    crate::program::HalfForm { bf16, pair, ftz: false, sat: false, relu: false, nan: false };
                crate::half::arith(crate::program::HalfOp::Add, form, old, a, 0)
            }
            AtomKind::Inc32 => {
                let (old, a) = (old as u32, a as u32);
                (if old >= a { 0 } else { old + 1 }) as u64
            }
            AtomKind::Dec32 => {
                let (old, a) = (old as u32, a as u32);
                (if old == 0 || old > a { a } else { old - 1 }) as u64
            }
            AtomKind::Int { op, wide, signed } => {
                let mask = if wide { u64::MAX } else { 0xffff_ffff };
                let (x, y) = (old & mask, a & mask);
                let as_signed = |v: u64| if wide { v as i64 } else { v as u32 as i32 as i64 };
                let r = match op {
                    IntAtom::Min if signed => as_signed(x).min(as_signed(y)) as u64,
                    IntAtom::Max if signed => as_signed(x).max(as_signed(y)) as u64,
                    IntAtom::Min => x.min(y),
                    IntAtom::Max => x.max(y),
                    IntAtom::And => x & y,
                    IntAtom::Or => x | y,
                    IntAtom::Xor => x ^ y,
                };
                r & mask
            }
        }
    }
}

/// `atom.add.f32`: round to nearest even, subnormal inputs and results flushed to
/// sign-preserving zero, as the PTX ISA specifies for this instruction.
fn atom_add_f32(old: u32, a: u32) -> u32 {
    let ftz = |x: u32| {
        if x & 0x7f80_0000 == 0 {
            x & 0x8000_0000
        } else {
            x
        }
    };
    let r = f32::from_bits(ftz(old)) + f32::from_bits(ftz(a));
    ftz(ptx_core::softfloat::canon32(r) as u32)
}

impl Allocation {
    /// `bytes` zeroed bytes at `start`, or `None` when the host cannot hold them.
    fn new(start: u64, bytes: u64) -> Option<Allocation> {
        let n = usize::try_from(bytes.div_ceil(4)).ok()?;
        let mut words = Vec::new();
        words.try_reserve_exact(n).ok()?;
        words.extend((0..n).map(|_| AtomicU32::new(0)));
        Some(Allocation { start, bytes, words: words.into_boxed_slice() })
    }

    /// Loads `size` (1, 2, 4 or 8) bytes at byte offset `off`, aligned to `size`, in bounds.
    #[inline(always)]
    pub(crate) fn load(&self, off: u64, size: u64) -> u64 {
        let w = (off >> 2) as usize;
        match size {
            4 => self.words[w].load(Relaxed) as u64,
            8 => self.words[w].load(Relaxed) as u64 | (self.words[w + 1].load(Relaxed) as u64) << 32,
            2 => (self.words[w].load(Relaxed) >> ((off & 2) * 8)) as u64 & 0xffff,
            _ => (self.words[w].load(Relaxed) >> ((off & 3) * 8)) as u64 & 0xff,
        }
    }

    /// Stores the low `size` bytes of `v` at `off` (aligned, in bounds).
    #[inline(always)]
    pub(crate) fn store(&self, off: u64, size: u64, v: u64) {
        let w = (off >> 2) as usize;
        match size {
            4 => self.words[w].store(v as u32, Relaxed),
            8 => {
                self.words[w].store(v as u32, Relaxed);
                self.words[w + 1].store((v >> 32) as u32, Relaxed);
            }
            _ => {
                let shift = (off & 3) * 8;
                let mask = (((1u64 << (size * 8)) - 1) << shift) as u32;
                let bits = ((v << shift) as u32) & mask;
                let _ = self.words[w].fetch_update(Relaxed, Relaxed, |old| Some((old & !mask) | bits));
            }
        }
    }

    /// An atomic read-modify-write at `off`; returns the old value. 64-bit and 16-bit
    /// operations hold one of `locks` (chosen by address) so they are atomic with respect to
    /// each other.
    pub(crate) fn atomic(&self, off: u64, kind: AtomKind, a: u64, b: u64, locks: &[Mutex<()>]) -> u64 {
        let w = (off >> 2) as usize;
        if kind.bytes() == 4 {
            let cell = &self.words[w];
            return match kind {
                AtomKind::AddU32 => cell.fetch_add(a as u32, Relaxed) as u64,
                AtomKind::Exch32 => cell.swap(a as u32, Relaxed) as u64,
                AtomKind::Cas32 => match cell.compare_exchange(a as u32, b as u32, Relaxed, Relaxed) {
                    Ok(v) | Err(v) => v as u64,
                },
                _ => {
                    let mut old = cell.load(Relaxed);
                    loop {
                        let new = kind.apply(old as u64, a, b) as u32;
                        match cell.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                            Ok(_) => return old as u64,
                            Err(v) => old = v,
                        }
                    }
                }
            };
        }
        // 64-bit and 16-bit operations: under the address's lock.
        let size = kind.bytes();
        let lock = &locks[((self.start + off) >> 3) as usize % locks.len()];
        let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        let old = self.load(off, size);
        self.store(off, size, kind.apply(old, a, b));
        old
    }

    fn read_bytes(&self, off: u64, out: &mut [u8]) {
        for (i, chunk) in out.iter_mut().enumerate() {
            *chunk = self.load(off + i as u64, 1) as u8;
        }
    }

    fn write_bytes(&self, off: u64, data: &[u8]) {
        let mut i = 0usize;
        while i < data.len() {
            let o = off + i as u64;
            if o & 3 == 0 && data.len() - i >= 4 {
                let v = u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
                self.words[(o >> 2) as usize].store(v, Relaxed);
                i += 4;
            } else {
                self.store(o, 1, data[i] as u64);
                i += 1;
            }
        }
    }
}

struct Inner {
    next: u64,
    allocs: BTreeMap<u64, Arc<Allocation>>,
}

/// Simulated device global memory. `Send + Sync`; every method takes `&self`.
pub struct Memory {
    inner: RwLock<Inner>,
    locks: Box<[Mutex<()>]>,
    /// Unique per memory, so a module's variables are placed once in each memory.
    id: u64,
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.read_inner();
        f.debug_struct("Memory").field("allocations", &inner.allocs.len()).finish()
    }
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Memory {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Memory {
            inner: RwLock::new(Inner { next: BASE, allocs: BTreeMap::new() }),
            locks: (0..LOCKS).map(|_| Mutex::new(())).collect(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// This memory's unique id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    fn read_inner(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `bytes` zeroed bytes and returns their device address: nonzero, 256-byte
    /// aligned, never reused, followed by an unmapped gap.
    ///
    /// # Panics
    ///
    /// When the host cannot hold `bytes` more bytes; [`Memory::try_alloc`] returns that as
    /// an error instead.
    pub fn alloc(&self, bytes: usize) -> u64 {
        self.try_alloc(bytes).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`Memory::alloc`], with [`SimError::OutOfMemory`] when the host cannot hold
    /// `bytes` more bytes (simulated device memory is host memory).
    pub fn try_alloc(&self, bytes: usize) -> Result<u64, SimError> {
        let size = bytes as u64;
        let out_of_memory = SimError::OutOfMemory { bytes: size };
        let span = size.max(1).div_ceil(ALIGN).checked_mul(ALIGN).and_then(|s| s.checked_add(GAP));
        // Zero the words before taking the lock: a large allocation takes a while.
        let mut allocation = Allocation::new(0, size).ok_or_else(|| out_of_memory.clone())?;
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let start = inner.next;
        inner.next = span.and_then(|s| start.checked_add(s)).ok_or(out_of_memory)?;
        allocation.start = start;
        inner.allocs.insert(start, Arc::new(allocation));
        Ok(start)
    }

    /// Frees the allocation that starts at `addr`. Launches already running keep their view.
    pub fn free(&self, addr: u64) -> Result<(), SimError> {
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        match inner.allocs.remove(&addr) {
            Some(_) => Ok(()),
            None => Err(SimError::InvalidAddress {
                address: addr,
                message: "free of an address that is not the start of a live allocation".into(),
            }),
        }
    }

    /// The allocation holding `[addr, addr + len)` entirely, and the offset of `addr` in it.
    fn find(&self, addr: u64, len: usize, what: &str) -> Result<(Arc<Allocation>, u64), SimError> {
        let inner = self.read_inner();
        let hit = inner.allocs.range(..=addr).next_back().map(|(_, a)| a.clone());
        match hit {
            Some(a) if addr - a.start <= a.bytes && a.bytes - (addr - a.start) >= len as u64 => {
                let off = addr - a.start;
                Ok((a, off))
            }
            Some(a) if addr - a.start < a.bytes.max(1) => Err(SimError::InvalidAddress {
                address: addr,
                message: format!(
                    "{what} of {len} bytes runs past the end of its allocation \
                     ({} bytes at {:#x})",
                    a.bytes, a.start
                ),
            }),
            _ => Err(SimError::InvalidAddress {
                address: addr,
                message: format!("{what} of {len} bytes: the address is in no live allocation"),
            }),
        }
    }

    /// Copies `data` to device address `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        let (a, off) = self.find(addr, data.len(), "write")?;
        a.write_bytes(off, data);
        Ok(())
    }

    /// Copies `out.len()` bytes from device address `addr` into `out`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), SimError> {
        let (a, off) = self.find(addr, out.len(), "read")?;
        a.read_bytes(off, out);
        Ok(())
    }

    /// Copies `bytes` bytes from device address `src` to `dst` (overlap is allowed).
    pub fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<(), SimError> {
        let (s, soff) = self.find(src, bytes, "copy source")?;
        let (d, doff) = self.find(dst, bytes, "copy destination")?;
        let mut tmp = vec![0u8; bytes];
        s.read_bytes(soff, &mut tmp);
        d.write_bytes(doff, &tmp);
        Ok(())
    }

    /// The live allocations, sorted by address (a launch's view of memory).
    pub(crate) fn snapshot(&self) -> Vec<Arc<Allocation>> {
        self.read_inner().allocs.values().cloned().collect()
    }

    pub(crate) fn locks(&self) -> &[Mutex<()>] {
        &self.locks
    }
}

/// A launch's view of global memory with a one-entry cache of the last allocation hit.
pub(crate) struct GlobalView<'a> {
    allocs: &'a [Arc<Allocation>],
    locks: &'a [Mutex<()>],
    last: usize,
}

impl<'a> GlobalView<'a> {
    pub(crate) fn new(allocs: &'a [Arc<Allocation>], locks: &'a [Mutex<()>]) -> Self {
        GlobalView { allocs, locks, last: 0 }
    }

    /// The allocation holding `[addr, addr + size)` and the offset, if the access is in
    /// bounds and `addr` is aligned to `align`.
    #[inline(always)]
    pub(crate) fn resolve(&mut self, addr: u64, size: u64, align: u64) -> Option<(&'a Allocation, u64)> {
        if addr & (align - 1) != 0 {
            return None;
        }
        if let Some(a) = self.allocs.get(self.last) {
            let off = addr.wrapping_sub(a.start);
            if off < a.bytes && a.bytes - off >= size {
                return Some((a, off));
            }
        }
        self.resolve_slow(addr, size)
    }

    fn resolve_slow(&mut self, addr: u64, size: u64) -> Option<(&'a Allocation, u64)> {
        let i = self.allocs.partition_point(|a| a.start <= addr).checked_sub(1)?;
        let a = &self.allocs[i];
        let off = addr - a.start;
        if off < a.bytes && a.bytes - off >= size {
            self.last = i;
            Some((a, off))
        } else {
            None
        }
    }

    pub(crate) fn locks(&self) -> &'a [Mutex<()>] {
        self.locks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_read_write_copy_free() {
        let m = Memory::new();
        let a = m.alloc(10);
        let b = m.alloc(8);
        assert!(a != 0 && a.is_multiple_of(256) && b.is_multiple_of(256));
        assert!(b >= a + 256 + 10, "a gap separates allocations");
        m.write(a + 1, &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
        let mut out = [0u8; 10];
        m.read(a, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert!(m.read(a + 5, &mut out).is_err());
        assert!(m.write(a + 10, &[1]).is_err());
        m.copy(b, a + 2, 8).unwrap();
        let mut o2 = [0u8; 8];
        m.read(b, &mut o2).unwrap();
        assert_eq!(o2, [2, 3, 4, 5, 6, 7, 8, 9]);
        m.free(a).unwrap();
        assert!(m.free(a).is_err());
        assert!(matches!(m.read(a, &mut out), Err(SimError::InvalidAddress { .. })));
        let c = m.alloc(4);
        assert!(c > b, "addresses are never reused");
    }
}
