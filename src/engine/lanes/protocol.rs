//! The lanes' protocol on its own: lanes of work items (of any type) taken by threads,
//! a plain writer alone in its lane, a helper that joins only once the owner has turned
//! atomic. It uses nothing of the crate, so that `loom/` (the model checker's crate)
//! compiles this very file with loom's atomics (`--cfg loom`) without the library.

// Under `--cfg loom` the atomics are loom's, whose model checker runs every
// interleaving of the protocol (`loom/`).
#[cfg(loom)]
use loom::{
    hint::spin_loop,
    sync::atomic::{AtomicBool, AtomicUsize, Ordering},
};
#[cfg(not(loom))]
use std::{
    hint::spin_loop,
    sync::atomic::{AtomicBool, AtomicUsize, Ordering},
};

/// Who else writes where a work item's marks land.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// Nobody: the marks may read and write plainly
    /// (`PackedMarks::mark_unseen_alone`).
    Alone,
    /// Other threads too: atomic marks.
    Shared,
}

/// One lane's work items, and who works on them.
pub struct Lane<'a, T> {
    items: Vec<&'a T>,
    /// The next item to take.
    next: AtomicUsize,
    /// A thread took the lane.
    owned: AtomicBool,
    /// A helper asked to join: the owner marks atomically from its next item on.
    shared: AtomicBool,
    /// The owner marks plainly no more (it saw `shared`, or ran out of items).
    settled: AtomicBool,
}

impl<'a, T> Lane<'a, T> {
    fn new(items: Vec<&'a T>) -> Lane<'a, T> {
        Lane {
            items,
            next: AtomicUsize::new(0),
            owned: AtomicBool::new(false),
            shared: AtomicBool::new(false),
            settled: AtomicBool::new(false),
        }
    }

    /// The next work item, if any is left.
    fn take(&self) -> Option<&'a T> {
        self.items
            .get(self.next.fetch_add(1, Ordering::Relaxed))
            .copied()
    }

    /// Work items nobody has taken yet.
    fn left(&self) -> usize {
        self.items
            .len()
            .saturating_sub(self.next.load(Ordering::Relaxed))
    }
}

/// The lanes whose work items `by_lane` lists, lane by lane, as two halves: the even
/// lanes and the odd ones, each biggest first. While the lanes of one half run, no two
/// neighbouring lanes run at once.
#[must_use]
pub fn halves<T>(by_lane: Vec<Vec<&T>>) -> [Vec<Lane<'_, T>>; 2] {
    let mut halves = [Vec::new(), Vec::new()];
    for (lane, items) in by_lane.into_iter().enumerate() {
        if !items.is_empty() {
            halves[lane % 2].push(items);
        }
    }
    halves.map(|mut lanes| {
        lanes.sort_by_key(|items| std::cmp::Reverse(items.len()));
        lanes.into_iter().map(Lane::new).collect()
    })
}

/// Sets its flag when dropped (Release: what the thread did before happens before
/// what a thread that reads the flag with Acquire does after).
struct Settle<'a>(&'a AtomicBool);

impl Drop for Settle<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// One thread's part of a half: lanes of its own while there are free ones, then help.
/// Every thread of the half calls it; `work(item, writer)` runs every item once, items
/// taken after `stopped` returns true excepted.
pub fn run_half<T>(lanes: &[Lane<'_, T>], stopped: &impl Fn() -> bool, work: &impl Fn(&T, Writer)) {
    while let Some(lane) = lanes.iter().find(|lane| {
        !lane.owned.load(Ordering::Relaxed) && !lane.owned.swap(true, Ordering::Relaxed)
    }) {
        // The owner settles when it leaves, also by a panic: a helper never waits on
        // a thread that is gone.
        let _settle = Settle(&lane.settled);
        loop {
            // Checked before each item: an item taken after the helper's word runs
            // atomically.
            let writer = if lane.shared.load(Ordering::Acquire) {
                Writer::Shared
            } else {
                Writer::Alone
            };
            if writer == Writer::Shared {
                // Release: the plain marks of the items before happen before the
                // helper's first mark.
                lane.settled.store(true, Ordering::Release);
            }
            let Some(item) = lane.take() else { break };
            if !stopped() {
                work(item, writer);
            }
        }
    }
    while let Some(lane) = lanes
        .iter()
        .filter(|lane| lane.left() > 0)
        .max_by_key(|lane| lane.left())
    {
        lane.shared.store(true, Ordering::Release);
        while !lane.settled.load(Ordering::Acquire) {
            spin_loop();
        }
        while let Some(item) = lane.take() {
            if !stopped() {
                work(item, Writer::Shared);
            }
        }
    }
}
