//! The race checker. Between two barriers, the threads of a block may run in any order on
//! a GPU; two accesses of one byte by different threads there, at least one a store, give a
//! result that depends on that order (a data race), unless both are atomics. For every byte
//! the checker remembers, per barrier interval ("epoch"), the last thread that stored to it
//! and the thread (or threads) that loaded it, and reports the first access that conflicts
//! with another thread's; atomics conflict with other threads' plain stores, not with
//! their loads or atomics: a plain load beside atomics reads some value the atomics leave,
//! which is how the compare-and-swap loop of CUDA's programming guide starts (`old = *p;
//! do { .. } while (atomicCAS(p, ..) != ..)`), and NVIDIA's racecheck does not report it
//! either. Warp shuffles and votes do not separate epochs: like CUDA since Volta, the
//! lanes of a warp are not in lockstep between them; `bar.warp.sync` (`sync_warp()`) orders
//! the accesses of the lanes of its warp.
//!
//! A store of the value a byte already holds (every lane of a warp storing its reduced
//! value to one word, as Triton's reductions do) conflicts with other threads' loads and
//! atomics, not with their stores: whichever of the stores lands last, the byte ends with
//! that value.
//!
//! Nor do the stores of the lanes of one warp by one instruction conflict with each other,
//! whatever values they store: a warp-wide store to one address is a single instruction on
//! the GPU, of which one lane's value lands (which one is not specified; here the last
//! lane's). Triton's cross-warp reductions store that way, every lane its own rounding of
//! the warp's partial sum. The checker knows one execution of an instruction by the store's
//! op and the thread's count of instructions run in the block when it ran it, which lanes
//! that have not diverged share; lanes that reach one store on different paths are still
//! checked as a race.
//!
//! The same records find loads and atomics of shared bytes that no thread of the block has
//! stored to since the block started (when the launch checks for them,
//! [`crate::SimOptions::uninit_shared_check`]): a byte whose last store is of no epoch was
//! never written, and its value on a GPU is whatever was there before.
//!
//! Strong accesses (`.volatile`, `.relaxed`, `.acquire`, `.release` loads and stores) do
//! not race with each other or with atomics, only with plain (weak) accesses, as in PTX's
//! memory model; and they order plain accesses across threads as a flag does: a strong
//! store or an atomic releases the accesses its thread made before it, and a strong load or
//! an atomic of that byte by another thread acquires them (they are ordered before that
//! thread's later accesses). A plain load still races with another thread's strong store
//! (a flag spun on with a plain load), though not with an atomic (above). The checker takes
//! every strong access as release or acquire (the fence that PTX wants beside a `.relaxed`
//! or `.volatile` one is not required), so it can miss a race that only a missing fence
//! makes. It follows one flag between two threads: an acquire orders the accesses of the
//! thread whose release it read, not those that thread had itself acquired from a third, nor
//! the earlier releases an atomic read-modify-write passed on (an arrival counter's), nor
//! the loads of several threads recorded together; such orderings are still reported as
//! races.
//!
//! Shared memory is always checked (a record per byte of the block's shared memory, by
//! whichever address reaches it: `.shared` or generic). Global memory is checked when the
//! launch asks for it ([`crate::SimOptions::global_race_check`]): records per byte touched,
//! in a map cleared at each barrier, for the threads of one block (blocks are not ordered
//! with each other by barriers, and the checker does not look across them).

use std::collections::HashMap;

use crate::error::AccessKind;
use crate::options::SimOptions;

/// A conflicting access: the other thread (`None`: several threads loaded the byte), the
/// byte (its offset in the block's shared memory, or its global address with `global`),
/// whether the access was a store, and the earlier access it conflicts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub other: Option<u32>,
    pub offset: u64,
    pub stored: bool,
    pub global: bool,
    pub earlier: Earlier,
}

/// The earlier access of a conflict: what it did and the op that did it (the last of them,
/// when several threads loaded the byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Earlier {
    pub kind: AccessKind,
    pub pc: u32,
}

/// Why the checker refuses an access of shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hazard {
    /// A data race.
    Race(Conflict),
    /// A load or atomic of this shared byte (its offset), which no thread of the block has
    /// written.
    Unwritten(u64),
}

impl From<Conflict> for Hazard {
    fn from(conflict: Conflict) -> Hazard {
        Hazard::Race(conflict)
    }
}

/// A thread index that stands for "more than one thread loaded it".
const SEVERAL: u32 = u32::MAX;

/// A warp index that stands for "threads of more than one warp".
const MIXED: u32 = u32::MAX;

/// What an access does to a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A plain store; bit `i` of the mask is set where byte `i` of it is a rewrite, the
    /// value the byte already holds ([`rewrites`]).
    Store(u32),
    /// A plain load.
    Load,
    /// An atomic read-modify-write (it acquires and releases).
    Atomic,
    /// A strong load (`.volatile`, `.relaxed`, `.acquire`): conflicts as an atomic does, and
    /// acquires.
    StrongLoad,
    /// A strong store (`.volatile`, `.relaxed`, `.release`): conflicts as an atomic does, and
    /// releases.
    StrongStore,
}

impl Kind {
    /// Whether the access writes the bytes (for the message of a race).
    fn stores(self) -> bool {
        !matches!(self, Kind::Load | Kind::StrongLoad)
    }

    /// Whether the access orders its thread's earlier accesses before those of a thread
    /// that acquires the bytes it writes.
    fn releases(self) -> bool {
        matches!(self, Kind::StrongStore | Kind::Atomic)
    }

    /// Whether the access orders the accesses a release of these bytes ordered before its
    /// thread's later ones.
    fn acquires(self) -> bool {
        matches!(self, Kind::StrongLoad | Kind::Atomic)
    }
}

/// Who accessed a byte in an epoch: the thread (or `SEVERAL`), its warp (or `MIXED`), the
/// most warp syncs any of them had passed when it accessed it, how many releases the thread
/// had made, and the op of the (last) access, for the message of a race.
#[derive(Clone, Copy, Debug, Default)]
struct Access {
    epoch: u32,
    thread: u32,
    warp: u32,
    syncs: u32,
    releases: u32,
    pc: u32,
}

/// The last release of a byte: the thread and its count of releases with it (0: none).
#[derive(Clone, Copy, Debug, Default)]
struct Release {
    thread: u32,
    count: u32,
}

/// What the current epoch knows of one byte: its last store (and the step it was, see
/// [`RaceTracker::set_store_step`]), its loads and its atomics; and whether anything of the
/// block has written it (a store or an atomic).
#[derive(Clone, Copy, Debug, Default)]
struct Records {
    stored: Access,
    stored_step: u64,
    loaded: Access,
    atomic: Access,
    /// Its strong stores (its strong loads are with the atomics, as they conflict alike).
    strong_stored: Access,
    release: Release,
    written: bool,
}

/// The step of a store that is no instruction of a thread's (an async copy landing).
const NO_STEP: u64 = 0;

/// Per-byte records for one block, stamped with the epoch they were made in, and how many
/// `bar.warp.sync`s each thread has passed in the current epoch.
#[derive(Debug, Default)]
pub(crate) struct RaceTracker {
    epoch: u32,
    shared: Vec<Records>,
    /// Global memory's records by address, when the launch checks global memory.
    global: Option<HashMap<u64, Records>>,
    warp_syncs: Vec<u32>,
    /// Whether loads and atomics of never-written shared bytes are refused.
    unwritten: bool,
    /// The instructions the running thread had run in the block when it last stopped.
    steps: u64,
    /// The step of the store being checked ([`RaceTracker::set_store_step`]).
    step: u64,
    /// Each thread's count of releases.
    releases: Vec<u32>,
    /// For `(thread << 32) | other`, the count of `other`'s releases that `thread` has
    /// acquired: `other`'s accesses made before that many releases are ordered before
    /// `thread`'s.
    acquired: HashMap<u64, u32>,
}

impl RaceTracker {
    /// Starts a block of `threads` threads with `bytes` bytes of shared memory, checking
    /// global memory too and never-written shared bytes as `options` say.
    pub(crate) fn reset(&mut self, bytes: usize, threads: usize, options: &SimOptions) {
        let global = options.global_race_check;
        self.unwritten = options.uninit_shared_check;
        self.epoch = 1;
        self.shared.clear();
        self.shared.resize(bytes, Records::default());
        match (&mut self.global, global) {
            (Some(map), true) => map.clear(),
            (slot, on) => *slot = on.then(HashMap::new),
        }
        self.warp_syncs.clear();
        self.warp_syncs.resize(threads, 0);
        self.releases.clear();
        self.releases.resize(threads, 0);
        self.acquired.clear();
    }

    /// A thread starts (or resumes) having run `steps` instructions in the block.
    pub(crate) fn resume(&mut self, steps: u64) {
        self.steps = steps;
    }

    /// The stores checked next are by the `n`th instruction the running thread has run
    /// since it resumed: lanes of one warp that run one store op with the same count are one
    /// warp-wide store. `None`: stores of no instruction of the thread's.
    pub(crate) fn set_store_step(&mut self, n: Option<u64>) {
        self.step = n.map_or(NO_STEP, |n| self.steps + n);
    }

    /// Every thread of the block passed a barrier: a new epoch.
    pub(crate) fn barrier(&mut self) {
        self.epoch += 1;
        self.warp_syncs.fill(0);
        if let Some(map) = &mut self.global {
            map.clear();
        }
    }

    /// Thread `thread` passed a `bar.warp.sync` with its warp.
    pub(crate) fn warp_sync(&mut self, thread: u32) {
        if let Some(n) = self.warp_syncs.get_mut(thread as usize) {
            *n += 1;
        }
    }

    /// Whether global memory is checked.
    #[inline(always)]
    pub(crate) fn checks_global(&self) -> bool {
        self.global.is_some()
    }

    /// Whether `record` is an access of the current epoch by another thread that no warp
    /// sync orders before an access by `thread` now; the other thread, if so.
    fn unordered(&self, record: Access, thread: u32) -> Option<u32> {
        if record.epoch != self.epoch || record.thread == thread {
            return None;
        }
        let syncs = self.warp_syncs.get(thread as usize).copied().unwrap_or(0);
        let ordered = record.warp == thread / 32 && record.syncs < syncs;
        let acquired = || {
            let count = self.acquired.get(&(u64::from(thread) << 32 | u64::from(record.thread)));
            count.is_some_and(|&count| record.releases < count)
        };
        (!ordered && (self.acquired.is_empty() || !acquired())).then_some(record.thread)
    }

    fn access(&self, thread: u32, pc: u32) -> Access {
        let syncs = self.warp_syncs.get(thread as usize).copied().unwrap_or(0);
        let releases = self.releases.get(thread as usize).copied().unwrap_or(0);
        Access { epoch: self.epoch, thread, warp: thread / 32, syncs, releases, pc }
    }

    /// Thread `thread` releases (a strong store or an atomic): the release stamped on the
    /// bytes it writes.
    fn release(&mut self, kind: Kind, thread: u32) -> Option<Release> {
        if !kind.releases() {
            return None;
        }
        let count = self.releases.get_mut(thread as usize)?;
        *count += 1;
        Some(Release { thread, count: *count })
    }

    /// Thread `thread` acquires `release`, that of a byte it reads with a strong load or an
    /// atomic.
    fn acquire(&mut self, thread: u32, release: Release) {
        if release.count == 0 || release.thread == thread {
            return;
        }
        let known = self.acquired.entry(u64::from(thread) << 32 | u64::from(release.thread)).or_default();
        *known = (*known).max(release.count);
    }

    /// The byte's records `r` after an access of `kind` by `thread` ([`Self::step`]'s
    /// `after`): it acquires the byte's release and stamps its own `release`.
    fn synchronise(
        &mut self,
        kind: Kind,
        thread: u32,
        before: Records,
        after: Records,
        release: Option<Release>,
    ) -> Records {
        if kind.acquires() {
            self.acquire(thread, before.release);
        }
        match release {
            Some(release) => Records { release, ..after },
            None => after,
        }
    }

    /// Thread `thread` stores shared bytes `at..at + len` at op `pc`, those in `rewrites`
    /// (bit `i` for byte `at + i`) with the value they hold.
    pub(crate) fn store(
        &mut self,
        thread: u32,
        pc: u32,
        at: usize,
        len: usize,
        rewrites: u32,
    ) -> Result<(), Hazard> {
        self.touch(Kind::Store(rewrites), thread, pc, at, len)
    }

    /// Thread `thread` loads shared bytes `at..at + len` at op `pc`.
    pub(crate) fn load(&mut self, thread: u32, pc: u32, at: usize, len: usize) -> Result<(), Hazard> {
        self.touch(Kind::Load, thread, pc, at, len)
    }

    /// Thread `thread` updates shared bytes `at..at + len` atomically at op `pc`: a conflict
    /// with other threads' plain stores, not with their loads or atomics. `reads_old`: the
    /// new value depends on the old one (all but an exchange, which may initialise memory
    /// never written: `atomicExch(&s, v)`).
    pub(crate) fn atomic(
        &mut self,
        thread: u32,
        pc: u32,
        at: usize,
        len: usize,
        reads_old: bool,
    ) -> Result<(), Hazard> {
        self.access_bytes(Kind::Atomic, reads_old, thread, pc, at, len)
    }

    /// One access of `kind` to shared bytes `at..at + len` at op `pc`: a load or an atomic of
    /// a byte never written is [`Hazard::Unwritten`] when the block checks for it.
    pub(crate) fn touch(
        &mut self,
        kind: Kind,
        thread: u32,
        pc: u32,
        at: usize,
        len: usize,
    ) -> Result<(), Hazard> {
        self.access_bytes(
            kind,
            matches!(kind, Kind::Load | Kind::StrongLoad | Kind::Atomic),
            thread,
            pc,
            at,
            len,
        )
    }

    /// [`Self::touch`], where `reads` says whether the access needs the bytes' values.
    fn access_bytes(
        &mut self,
        kind: Kind,
        reads: bool,
        thread: u32,
        pc: u32,
        at: usize,
        len: usize,
    ) -> Result<(), Hazard> {
        let mine = self.access(thread, pc);
        let release = self.release(kind, thread);
        for (i, b) in (at..(at + len).min(self.shared.len())).enumerate() {
            if reads && self.unwritten && !self.shared[b].written {
                return Err(Hazard::Unwritten(b as u64));
            }
            let conflict = |(other, earlier)| Conflict {
                other,
                offset: b as u64,
                stored: kind.stores(),
                global: false,
                earlier,
            };
            let before = self.shared[b];
            let after = self.step(kind, i, thread, mine, before).map_err(conflict)?;
            self.shared[b] = self.synchronise(kind, thread, before, after, release);
        }
        Ok(())
    }

    /// One access of `kind` to global bytes `addr..addr + len` at op `pc` (nothing when
    /// global memory is not checked).
    pub(crate) fn touch_global(
        &mut self,
        kind: Kind,
        thread: u32,
        pc: u32,
        addr: u64,
        len: u64,
    ) -> Result<(), Conflict> {
        let Some(mut map) = self.global.take() else { return Ok(()) };
        let mine = self.access(thread, pc);
        let release = self.release(kind, thread);
        let mut result = Ok(());
        for (i, b) in (addr..addr + len).enumerate() {
            let records = map.entry(b).or_default();
            match self.step(kind, i, thread, mine, *records) {
                Ok(r) => *records = self.synchronise(kind, thread, *records, r, release),
                Err((other, earlier)) => {
                    result = Err(Conflict { other, offset: b, stored: kind.stores(), global: true, earlier });
                    break;
                }
            }
        }
        self.global = Some(map);
        result
    }

    /// The byte's records after an access of `kind` (byte `i` of it) by `thread` (`mine`),
    /// or, when it conflicts with one of them, the other thread (`None`: several) and its
    /// access: stores conflict with everything (rewrites with loads and atomics), loads and
    /// atomics with stores.
    fn step(
        &self,
        kind: Kind,
        i: usize,
        thread: u32,
        mine: Access,
        r: Records,
    ) -> Result<Records, (Option<u32>, Earlier)> {
        // The lanes of one warp storing by one instruction (see the module's docs).
        let one_store = self.step != NO_STEP
            && r.stored_step == self.step
            && r.stored.pc == mine.pc
            && r.stored.warp == mine.warp;
        let against: &[(Access, AccessKind)] = match kind {
            Kind::Store(rewrites) if rewrites >> i & 1 == 1 || one_store => &[
                (r.loaded, AccessKind::Load),
                (r.atomic, AccessKind::Atomic),
                (r.strong_stored, AccessKind::Store),
            ],
            Kind::Store(_) => &[
                (r.stored, AccessKind::Store),
                (r.loaded, AccessKind::Load),
                (r.atomic, AccessKind::Atomic),
                (r.strong_stored, AccessKind::Store),
            ],
            // A plain load beside a strong store (a flag spun on with a plain load) is a race
            // in PTX's model; beside an atomic it is not reported (the module's docs).
            Kind::Load => &[(r.stored, AccessKind::Store), (r.strong_stored, AccessKind::Store)],
            Kind::StrongStore => &[(r.stored, AccessKind::Store), (r.loaded, AccessKind::Load)],
            Kind::Atomic | Kind::StrongLoad => &[(r.stored, AccessKind::Store)],
        };
        for &(record, kind) in against {
            if let Some(other) = self.unordered(record, thread) {
                return Err(((other != SEVERAL).then_some(other), Earlier { kind, pc: record.pc }));
            }
        }
        Ok(match kind {
            Kind::Store(_) => Records { stored: mine, stored_step: self.step, written: true, ..r },
            Kind::Load => Records { loaded: self.joined(r.loaded, mine), ..r },
            Kind::Atomic => Records { atomic: self.joined(r.atomic, mine), written: true, ..r },
            Kind::StrongStore => {
                Records { strong_stored: self.joined(r.strong_stored, mine), written: true, ..r }
            }
            Kind::StrongLoad => Records { atomic: self.joined(r.atomic, mine), ..r },
        })
    }

    /// The record of `before`'s accesses and `mine`: `mine` alone when `before` is of an
    /// earlier epoch or the same thread, else several threads.
    fn joined(&self, before: Access, mine: Access) -> Access {
        if before.epoch != self.epoch || before.thread == mine.thread {
            return mine;
        }
        Access {
            epoch: self.epoch,
            thread: SEVERAL,
            warp: if before.warp == mine.warp { mine.warp } else { MIXED },
            syncs: before.syncs.max(mine.syncs),
            releases: u32::MAX,
            pc: mine.pc,
        }
    }
}

/// The rewrite mask of [`Kind::Store`] for a store of `size`-byte values, given each
/// value's `(held, stored)` bits: bit `i` set where byte `i` of the store (little-endian,
/// the values in order) equals the byte memory holds.
pub(crate) fn rewrites(size: u64, values: impl Iterator<Item = (u64, u64)>) -> u32 {
    let mut mask = 0;
    for (k, (held, stored)) in values.enumerate() {
        let diff = held ^ stored;
        for j in 0..size {
            if (diff >> (8 * j)) & 0xff == 0 {
                mask |= 1 << (k as u64 * size + j);
            }
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The earlier access of a conflict.
    fn earlier(kind: AccessKind, pc: u32) -> Earlier {
        Earlier { kind, pc }
    }

    /// Options that check races only (in global memory too with `global`), not loads of
    /// never-written bytes.
    fn races_only(global: bool) -> SimOptions {
        SimOptions { global_race_check: global, uninit_shared_check: false, ..SimOptions::default() }
    }

    #[test]
    fn lanes_of_a_warp_storing_by_one_instruction_do_not_conflict() {
        let mut r = RaceTracker::default();
        r.reset(16, 64, &races_only(true));
        // A race with the store of thread `other` by the op at `pc`.
        let race = |other, offset, pc| {
            Err(Hazard::Race(Conflict {
                other: Some(other),
                offset,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Store, pc),
            }))
        };
        // Lanes 0..32 run the store at pc 7 as their 5th instruction: one warp-wide store.
        for t in 0..32 {
            r.resume(0);
            r.set_store_step(Some(5));
            r.store(t, 7, 0, 8, 0).expect("one store of the warp");
            r.touch_global(Kind::Store(0), t, 7, 64, 4).expect("one store of the warp, to global memory");
        }
        // Lane 32 runs it too, in another warp.
        r.set_store_step(Some(5));
        assert_eq!(r.store(32, 7, 0, 8, 0), race(31, 0, 7));
        // A lane that reaches the store after more instructions (a divergent path), or
        // another store of the same count: not the same instruction.
        r.resume(2);
        r.set_store_step(Some(3));
        r.store(0, 7, 8, 4, 0).unwrap();
        r.set_store_step(Some(5));
        assert_eq!(r.store(1, 7, 8, 4, 0), race(0, 8, 7));
        r.set_store_step(Some(5));
        assert_eq!(r.store(2, 9, 8, 4, 0), race(0, 8, 7));
        // It is still a race with loads, and an async copy's landing is no instruction.
        r.load(3, 11, 0, 4).unwrap_err();
        r.set_store_step(None);
        r.store(4, 12, 12, 4, 0).unwrap();
        assert_eq!(r.store(5, 12, 12, 4, 0), race(4, 12, 12));
    }

    #[test]
    fn conflicts_are_between_threads_within_an_epoch() {
        let mut r = RaceTracker::default();
        r.reset(16, 64, &races_only(false));
        r.store(0, 100, 0, 4, 0).unwrap();
        r.load(0, 100, 0, 4).unwrap();
        r.store(0, 100, 0, 4, 0).expect("a thread's own accesses never conflict");
        assert_eq!(
            r.load(1, 101, 2, 4),
            Err(Hazard::Race(Conflict {
                other: Some(0),
                offset: 2,
                stored: false,
                global: false,
                earlier: earlier(AccessKind::Store, 100)
            }))
        );
        r.load(1, 101, 8, 4).unwrap();
        r.load(2, 102, 8, 4).expect("loads never conflict with loads");
        assert_eq!(
            r.store(3, 103, 9, 1, 0),
            Err(Hazard::Race(Conflict {
                other: None,
                offset: 9,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Load, 102)
            }))
        );
        r.barrier();
        r.store(3, 103, 9, 1, 0).expect("a barrier separates them");
        r.load(1, 101, 0, 4).expect("the store to 0..4 was in the previous epoch");
        assert_eq!(
            r.store(2, 102, 0, 1, 0),
            Err(Hazard::Race(Conflict {
                other: Some(1),
                offset: 0,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Load, 101)
            }))
        );
    }

    #[test]
    fn a_warp_sync_orders_the_accesses_of_its_warp_only() {
        let mut r = RaceTracker::default();
        r.reset(16, 64, &races_only(false));
        r.store(3, 103, 0, 4, 0).unwrap();
        r.store(40, 140, 8, 4, 0).unwrap();
        for t in 0..64 {
            r.warp_sync(t);
        }
        r.load(5, 105, 0, 4).expect("thread 3 stored before the warp sync both passed");
        assert_eq!(
            r.load(7, 107, 8, 4),
            Err(Hazard::Race(Conflict {
                other: Some(40),
                offset: 8,
                stored: false,
                global: false,
                earlier: earlier(AccessKind::Store, 140)
            })),
            "another warp"
        );
        r.store(6, 106, 0, 4, 0).expect_err("thread 5 loaded it after the sync");
    }

    #[test]
    fn atomics_conflict_with_plain_stores_only() {
        let mut r = RaceTracker::default();
        r.reset(16, 64, &races_only(false));
        r.atomic(1, 101, 0, 4, true).unwrap();
        r.atomic(2, 102, 0, 4, true).expect("atomics of several threads on one word are fine");
        r.load(3, 103, 0, 4).expect("a plain load beside atomics (a CAS loop's first read)");
        r.atomic(6, 106, 0, 4, true).expect("an atomic after another thread's plain load");
        // A store conflicts with the load (thread 3, checked first) and the atomics.
        assert_eq!(
            r.store(7, 107, 0, 4, 0),
            Err(Hazard::Race(Conflict {
                other: Some(3),
                offset: 0,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Load, 103)
            }))
        );
        r.store(4, 104, 8, 4, 0).unwrap();
        assert_eq!(
            r.atomic(5, 105, 8, 4, true),
            Err(Hazard::Race(Conflict {
                other: Some(4),
                offset: 8,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Store, 104)
            }))
        );
        r.barrier();
        r.load(3, 103, 0, 4).expect("after a barrier");
    }

    #[test]
    fn rewrites_conflict_with_loads_and_atomics_not_stores() {
        // A u32 then a u16: the bytes that equal what memory holds, in order.
        assert_eq!(rewrites(4, [(0x1122_3344, 0x1122_3399)].into_iter()), 0b1110);
        assert_eq!(rewrites(2, [(0xaaaa, 0xaaaa), (0x00ff, 0x01ff)].into_iter()), 0b0111);
        let mut r = RaceTracker::default();
        r.reset(16, 64, &races_only(false));
        r.store(0, 100, 0, 4, 0).unwrap();
        r.store(1, 101, 0, 4, 0b1111).expect("the value thread 0 stored, again");
        assert_eq!(
            r.store(2, 102, 0, 4, 0b0111),
            Err(Hazard::Race(Conflict {
                other: Some(1),
                offset: 3,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Store, 101)
            })),
            "byte 3 differs"
        );
        r.load(3, 103, 8, 4).unwrap();
        assert_eq!(
            r.store(4, 104, 8, 4, 0b1111),
            Err(Hazard::Race(Conflict {
                other: Some(3),
                offset: 8,
                stored: true,
                global: false,
                earlier: earlier(AccessKind::Load, 103)
            })),
            "a rewrite is exempt from other threads' stores only"
        );
        r.atomic(5, 105, 12, 4, true).unwrap();
        r.store(6, 106, 12, 4, 0b1111).expect_err("an atomic");
    }

    #[test]
    fn global_memory_is_checked_only_when_asked() {
        let mut r = RaceTracker::default();
        r.reset(0, 64, &races_only(false));
        r.touch_global(Kind::Store(0), 1, 101, 0x1000, 4).unwrap();
        r.touch_global(Kind::Store(0), 2, 102, 0x1000, 4).expect("not checked");
        r.reset(0, 64, &races_only(true));
        r.touch_global(Kind::Store(0), 1, 101, 0x1000, 4).unwrap();
        r.touch_global(Kind::Load, 1, 101, 0x1002, 4).expect("its own store");
        assert_eq!(
            r.touch_global(Kind::Load, 2, 102, 0x1003, 1),
            Err(Conflict {
                other: Some(1),
                offset: 0x1003,
                stored: false,
                global: true,
                earlier: earlier(AccessKind::Store, 101)
            })
        );
        r.touch_global(Kind::Atomic, 3, 103, 0x2000, 4).unwrap();
        r.touch_global(Kind::Atomic, 4, 104, 0x2000, 4).expect("atomics with atomics");
        r.barrier();
        r.touch_global(Kind::Store(0), 2, 102, 0x1000, 4).expect("a barrier separates them");
        r.reset(0, 64, &races_only(true));
        r.touch_global(Kind::Load, 5, 105, 0x1000, 4).expect("a new block starts afresh");
    }

    #[test]
    fn loads_and_atomics_of_never_written_bytes_are_refused_when_checked() {
        let mut r = RaceTracker::default();
        r.reset(16, 64, &SimOptions::default());
        assert_eq!(r.load(0, 100, 0, 4), Err(Hazard::Unwritten(0)));
        assert_eq!(r.atomic(1, 101, 4, 4, true), Err(Hazard::Unwritten(4)));
        r.store(2, 102, 0, 2, 0).unwrap();
        assert_eq!(r.load(2, 102, 0, 4), Err(Hazard::Unwritten(2)), "the first byte not stored to");
        r.store(3, 103, 2, 2, 0).unwrap();
        r.barrier();
        r.load(5, 105, 0, 4).expect("two threads wrote it, before the barrier");
        r.atomic(6, 106, 0, 4, true).expect("an atomic of written bytes");
        r.store(7, 107, 8, 8, 0).unwrap();
        r.atomic(7, 107, 8, 8, true).expect("its own store");
        r.reset(16, 64, &SimOptions::default());
        assert_eq!(r.load(5, 105, 0, 4), Err(Hazard::Unwritten(0)), "a new block starts unwritten");
        r.reset(16, 64, &races_only(false));
        r.load(5, 105, 0, 4).expect("not checked");
    }

    #[test]
    fn an_exchange_writes_bytes_never_written_and_they_read_afterwards() {
        let mut r = RaceTracker::default();
        r.reset(16, 64, &SimOptions::default());
        r.atomic(0, 100, 4, 4, false).expect("an exchange needs no old value");
        r.barrier();
        r.load(1, 101, 4, 4).expect("the exchange wrote them");
        r.atomic(2, 102, 4, 4, true).expect("so can an add");
        assert_eq!(r.load(1, 101, 8, 4), Err(Hazard::Unwritten(8)), "bytes beside it stay unwritten");
    }
}
