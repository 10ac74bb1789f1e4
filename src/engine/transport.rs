//! What the ranks of a partitioned search say to each other: batches of indices for
//! their owners, and sums. MPI carries them between processes (the `antipode-mpi`
//! binary's `Mpi`); [`InProcess`] carries them between threads of one
//! process, so that the partitioned search is tested by `cargo test` alone.

use std::ops::Range;
use std::sync::{Condvar, Mutex};

/// The collective operations of a partitioned search. Every rank calls the same
/// operations in the same order (they block until all ranks have called them).
///
/// ```
/// use antipode::engine::{Alone, Transport};
///
/// // One rank: every collective is the rank's own value.
/// assert_eq!((Alone.rank(), Alone.ranks(), Alone.sum(7)), (0, 1, 7));
/// assert_eq!(Alone.gather(&[1, 2]), [1, 2]);
/// ```
pub trait Transport {
    /// This rank's number, `0..ranks()`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn ranks(&self) -> usize;
    /// Sends `outboxes[r]` to rank `r` (this rank's own outbox is empty) and replaces
    /// `inbox` with everything the ranks sent to this one, in rank order; `more` says
    /// whether this rank has frontier left for another round, and the answer whether
    /// any rank has (told with the batches' sizes, so a round needs no sum of its
    /// own). A batch is 32-bit words: offsets into the receiver's slice, one or two
    /// words each ([`super::Partitioned`]).
    fn exchange(&self, outboxes: &[Vec<u32>], inbox: &mut Vec<u32>, more: bool) -> bool;
    /// The sum of `local` over every rank.
    fn sum(&self, local: u64) -> u64;
    /// Every rank's `local`, concatenated in rank order, at every rank.
    fn gather(&self, local: &[u64]) -> Vec<u64>;
    /// Every rank's part of `words` to every rank: `parts[r]` is rank `r`'s part (the
    /// same `parts` on every rank: adjacent ranges in rank order that cover `words`);
    /// afterwards every rank's `words[parts[r]]` holds rank `r`'s.
    fn share(&self, words: &mut [u64], parts: &[Range<usize>]);
}

/// The transport of a search that is not partitioned: one rank, nothing to send.
///
/// ```
/// use antipode::engine::{Alone, Transport};
///
/// let mut inbox = vec![9];
/// assert!(!Alone.exchange(&[Vec::new()], &mut inbox, false));
/// assert!(inbox.is_empty());
/// ```
pub struct Alone;

impl Transport for Alone {
    fn rank(&self) -> usize {
        0
    }

    fn ranks(&self) -> usize {
        1
    }

    fn exchange(&self, _outboxes: &[Vec<u32>], inbox: &mut Vec<u32>, more: bool) -> bool {
        inbox.clear();
        more
    }

    fn sum(&self, local: u64) -> u64 {
        local
    }

    fn gather(&self, local: &[u64]) -> Vec<u64> {
        local.to_vec()
    }

    fn share(&self, _words: &mut [u64], _parts: &[Range<usize>]) {}
}

/// Ranks that are threads of one process, meeting at a barrier: the tests' stand-in
/// for MPI ranks. Make one [`InProcessRanks`] and give each thread its
/// [`InProcessRanks::rank`]. A rank whose thread panics makes every other rank panic
/// at its next meeting instead of waiting for it forever (as `mpirun` ends a job when
/// a rank dies).
///
/// ```
/// use antipode::engine::{InProcessRanks, Transport};
///
/// // Three ranks as threads: each adds its number, and all get the sum.
/// let ranks = InProcessRanks::new(3);
/// let sums: Vec<u64> = std::thread::scope(|scope| {
///     let runs: Vec<_> = (0..3)
///         .map(|r| {
///             let rank = ranks.rank(r);
///             scope.spawn(move || rank.sum(r as u64))
///         })
///         .collect();
///     runs.into_iter().map(|run| run.join().unwrap()).collect()
/// });
/// assert_eq!(sums, [3, 3, 3]);
/// ```
pub struct InProcessRanks {
    ranks: usize,
    barrier: Meeting,
    /// `mail[to][from]`: the batch in transit.
    mail: Mutex<Vec<Vec<Vec<u32>>>>,
    /// Per rank, whether it has frontier left after the batch in transit.
    more: Mutex<Vec<bool>>,
    /// One slot per rank for sums and gathers.
    posted: Mutex<Vec<Vec<u64>>>,
}

impl InProcessRanks {
    /// `ranks` ranks (at least one).
    #[must_use]
    pub fn new(ranks: usize) -> InProcessRanks {
        let ranks = ranks.max(1);
        InProcessRanks {
            ranks,
            barrier: Meeting::new(ranks),
            mail: Mutex::new(vec![vec![Vec::new(); ranks]; ranks]),
            more: Mutex::new(vec![false; ranks]),
            posted: Mutex::new(vec![Vec::new(); ranks]),
        }
    }

    /// Rank `rank`'s end of the transport.
    pub fn rank(&self, rank: usize) -> InProcess<'_> {
        InProcess { shared: self, rank }
    }

    /// Posts `local` for rank `rank`, then returns every rank's post once all posted.
    fn all_posts(&self, rank: usize, local: &[u64]) -> Vec<Vec<u64>> {
        lock(&self.posted)[rank] = local.to_vec();
        self.barrier.wait();
        let all = lock(&self.posted).clone();
        self.barrier.wait();
        all
    }
}

/// A reusable barrier that fails every waiter once a rank has failed.
struct Meeting {
    ranks: usize,
    state: Mutex<Attendance>,
    met: Condvar,
}

/// Where a [`Meeting`] stands.
#[derive(Default)]
struct Attendance {
    /// Ranks arrived at the current meeting.
    arrived: usize,
    /// Meetings held.
    held: u64,
    /// A rank failed.
    failed: bool,
}

impl Meeting {
    fn new(ranks: usize) -> Meeting {
        Meeting {
            ranks,
            state: Mutex::new(Attendance::default()),
            met: Condvar::new(),
        }
    }

    /// Blocks until every rank has arrived; panics if a rank failed.
    fn wait(&self) {
        let mut state = lock(&self.state);
        let meeting = state.held;
        state.arrived += 1;
        if state.arrived == self.ranks {
            state.arrived = 0;
            state.held += 1;
            self.met.notify_all();
        }
        while state.held == meeting && !state.failed {
            state = self.met.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        assert!(!state.failed, "another in-process rank failed");
    }

    /// Records that a rank failed and wakes every waiter.
    fn fail(&self) {
        lock(&self.state).failed = true;
        self.met.notify_all();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// One rank of [`InProcessRanks`].
///
/// ```
/// use antipode::engine::{InProcessRanks, Transport};
///
/// // Each of two ranks gathers both ranks' values, in rank order.
/// let ranks = InProcessRanks::new(2);
/// std::thread::scope(|scope| {
///     for r in 0..2 {
///         let rank = ranks.rank(r);
///         scope.spawn(move || assert_eq!(rank.gather(&[r as u64 * 10]), [0, 10]));
///     }
/// });
/// ```
pub struct InProcess<'a> {
    shared: &'a InProcessRanks,
    rank: usize,
}

impl Drop for InProcess<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.shared.barrier.fail();
        }
    }
}

impl Transport for InProcess<'_> {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.shared.ranks
    }

    fn exchange(&self, outboxes: &[Vec<u32>], inbox: &mut Vec<u32>, more: bool) -> bool {
        {
            let mut mail = lock(&self.shared.mail);
            for (to, outbox) in outboxes.iter().enumerate() {
                mail[to][self.rank].clone_from(outbox);
            }
        }
        lock(&self.shared.more)[self.rank] = more;
        self.shared.barrier.wait();
        inbox.clear();
        for batch in lock(&self.shared.mail)[self.rank].iter_mut() {
            inbox.append(batch);
        }
        let any_more = lock(&self.shared.more).iter().any(|&m| m);
        self.shared.barrier.wait();
        any_more
    }

    fn sum(&self, local: u64) -> u64 {
        self.shared
            .all_posts(self.rank, &[local])
            .iter()
            .map(|post| post[0])
            .sum()
    }

    fn gather(&self, local: &[u64]) -> Vec<u64> {
        self.shared.all_posts(self.rank, local).concat()
    }

    fn share(&self, words: &mut [u64], parts: &[Range<usize>]) {
        let mine = &words[parts[self.rank].clone()];
        for (post, part) in self.shared.all_posts(self.rank, mine).iter().zip(parts) {
            words[part.clone()].copy_from_slice(post);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rank whose thread panics makes the others panic at their next meeting
    /// instead of leaving them waiting for it.
    #[test]
    fn a_failed_rank_fails_the_others() {
        let shared = InProcessRanks::new(3);
        let failed: Vec<bool> = std::thread::scope(|scope| {
            let ranks: Vec<_> = (0..3)
                .map(|r| {
                    let transport = shared.rank(r);
                    scope.spawn(move || {
                        assert_ne!(r, 1, "rank 1 fails");
                        transport.sum(1)
                    })
                })
                .collect();
            ranks.into_iter().map(|r| r.join().is_err()).collect()
        });
        assert_eq!(failed, [true, true, true]);
    }
}
