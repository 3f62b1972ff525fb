//! The shared-memory race checker. Between two barriers, the threads of a block may run in
//! any order on a GPU; two accesses of one shared byte by different threads there, at least
//! one a store, give a result that depends on that order (a data race), unless both are
//! atomics. For every byte the checker remembers, per barrier interval ("epoch"), the last
//! thread that stored to it and the thread (or threads) that loaded it, and reports the first
//! access that conflicts with another thread's. Warp shuffles and votes do not separate
//! epochs: like CUDA since Volta, the lanes of a warp are not in lockstep between them.

/// A conflicting access: the other thread (`None`: several threads loaded the byte), the
/// byte's offset in the block's shared memory, and whether the access was a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub other: Option<u32>,
    pub offset: usize,
    pub stored: bool,
}

/// A thread index that stands for "more than one thread loaded it".
const SEVERAL: u32 = u32::MAX;

/// Per-byte records for one block, stamped with the epoch they were made in.
#[derive(Debug, Default)]
pub(crate) struct RaceTracker {
    epoch: u32,
    /// `(epoch << 32) | thread` of the last store to each byte.
    stored: Vec<u64>,
    /// `(epoch << 32) | thread` of the loads of each byte (`SEVERAL` for more than one).
    loaded: Vec<u64>,
}

fn stamp(epoch: u32, thread: u32) -> u64 {
    (u64::from(epoch) << 32) | u64::from(thread)
}

impl RaceTracker {
    /// Starts a block with `bytes` bytes of shared memory: nothing accessed yet.
    pub(crate) fn reset(&mut self, bytes: usize) {
        self.epoch = 1;
        self.stored.clear();
        self.stored.resize(bytes, 0);
        self.loaded.clear();
        self.loaded.resize(bytes, 0);
    }

    /// Every thread of the block passed a barrier: a new epoch.
    pub(crate) fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// The other thread of the current epoch in `record`, if it is not `thread`.
    fn other(&self, record: u64, thread: u32) -> Option<u32> {
        let (epoch, who) = ((record >> 32) as u32, record as u32);
        (epoch == self.epoch && who != thread).then_some(who)
    }

    /// Thread `thread` stores bytes `at..at + len`.
    pub(crate) fn store(&mut self, thread: u32, at: usize, len: usize) -> Result<(), Conflict> {
        for b in at..(at + len).min(self.stored.len()) {
            if let Some(other) = self.other(self.stored[b], thread) {
                return Err(Conflict { other: Some(other), offset: b, stored: true });
            }
            if let Some(other) = self.other(self.loaded[b], thread) {
                let other = (other != SEVERAL).then_some(other);
                return Err(Conflict { other, offset: b, stored: true });
            }
            self.stored[b] = stamp(self.epoch, thread);
        }
        Ok(())
    }

    /// Thread `thread` loads bytes `at..at + len`.
    pub(crate) fn load(&mut self, thread: u32, at: usize, len: usize) -> Result<(), Conflict> {
        for b in at..(at + len).min(self.stored.len()) {
            if let Some(other) = self.other(self.stored[b], thread) {
                return Err(Conflict { other: Some(other), offset: b, stored: false });
            }
            self.loaded[b] = match self.other(self.loaded[b], thread) {
                Some(_) => stamp(self.epoch, SEVERAL),
                None => stamp(self.epoch, thread),
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicts_are_between_threads_within_an_epoch() {
        let mut r = RaceTracker::default();
        r.reset(16);
        r.store(0, 0, 4).unwrap();
        r.load(0, 0, 4).unwrap();
        r.store(0, 0, 4).expect("a thread's own accesses never conflict");
        assert_eq!(r.load(1, 2, 4), Err(Conflict { other: Some(0), offset: 2, stored: false }));
        r.load(1, 8, 4).unwrap();
        r.load(2, 8, 4).expect("loads never conflict with loads");
        assert_eq!(r.store(3, 9, 1), Err(Conflict { other: None, offset: 9, stored: true }));
        r.barrier();
        r.store(3, 9, 1).expect("a barrier separates them");
        r.load(1, 0, 4).expect("the store to 0..4 was in the previous epoch");
        assert_eq!(r.store(2, 0, 1), Err(Conflict { other: Some(1), offset: 0, stored: true }));
    }
}
