//! `cp.async`: copies from global to shared memory that a thread issues, gathers into
//! groups (`cp.async.commit_group`) and waits for (`cp.async.wait_group n`,
//! `cp.async.wait_all`), as Triton's pipelined loops use them. The PTX ISA lets a copy land
//! any time before the wait that covers it; the simulator lands it at that wait, so a
//! thread that reads the destination earlier reads what was there before (as a GPU may),
//! and the race checker sees the copy's store then, as the issuing thread's.

/// One copy in flight: `size` bytes to shared offset `dst`, the first `src_size` of them
/// from global address `src`, zeros after; `group` is the commit group it belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Copy {
    pub dst: usize,
    pub src: u64,
    pub size: u8,
    pub src_size: u8,
    group: u32,
}

/// One thread's copies in flight and the number of groups it has committed.
#[derive(Clone, Debug, Default)]
pub(crate) struct AsyncCopies {
    pending: Vec<Copy>,
    committed: u32,
}

impl AsyncCopies {
    /// Forgets every copy (a new thread starts).
    pub(crate) fn clear(&mut self) {
        self.pending.clear();
        self.committed = 0;
    }

    /// Issues a copy into the group not yet committed.
    pub(crate) fn issue(&mut self, dst: usize, src: u64, size: u8, src_size: u8) {
        self.pending.push(Copy { dst, src, size, src_size, group: self.committed });
    }

    /// `cp.async.commit_group`: the copies issued since the last commit form a group.
    pub(crate) fn commit(&mut self) {
        self.committed += 1;
    }

    /// `cp.async.wait_group n`: lands, in issue order through `land`, the copies of every
    /// committed group but the `n` most recent (copies not committed yet are not waited
    /// for). Stops at the first error `land` returns.
    pub(crate) fn wait<E>(&mut self, n: u32, mut land: impl FnMut(Copy) -> Result<(), E>) -> Result<(), E> {
        let done = self.committed.saturating_sub(n);
        let mut result = Ok(());
        self.pending.retain(|&c| {
            if c.group >= done || result.is_err() {
                return true;
            }
            result = land(c);
            false
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_group_lands_all_but_the_most_recent_groups() {
        let mut c = AsyncCopies::default();
        c.issue(0, 100, 4, 4);
        c.commit();
        c.issue(4, 104, 4, 4);
        c.issue(8, 108, 4, 0);
        c.commit();
        c.issue(12, 112, 4, 4);
        let mut landed = Vec::new();
        let mut record = |k: Copy| -> Result<(), ()> {
            landed.push(k.dst);
            Ok(())
        };
        c.wait(1, &mut record).unwrap();
        c.wait(1, &mut record).unwrap();
        c.commit();
        c.wait(0, &mut record).unwrap();
        // Group 1 is the most recent at the first two waits, and the last copy in no group.
        assert_eq!(landed, [0, 4, 8, 12]);
        c.issue(0, 100, 16, 16);
        c.commit();
        c.clear();
        c.wait(0, |_| Err("a cleared copy landed")).unwrap();
    }
}
