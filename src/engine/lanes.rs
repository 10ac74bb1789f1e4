//! A dense top-down level on several threads, over a store where one writer's marks
//! save atomics ([`PackedMarks`]: 32 entries share a word of depths mod 3), gives each
//! lane of the puzzle ([`Puzzle::lane`]: a sliding
//! board's blank column) to one thread at a time.
//!
//! Untranslated moves stay in their lane and translated ones go to an adjacent lane.
//! So while the even lanes run, each of them gets marks from its owner only, which
//! reads and writes its words plainly ([`PackedMarks::mark_unseen_alone`]), and the
//! odd lanes get only the translations' locked ORs; then the other way round. Within
//! a half, threads take whole lanes, the biggest first; a thread that finds none left
//! joins the lane with the most work items left: it says so, the owner marks
//! atomically from its next work item on and answers, and only then does the helper
//! start (also atomically). A mark is never lost, so the level's table is the same as
//! on one thread.
//!
//! [`PackedMarks`]: crate::store::PackedMarks
//! [`PackedMarks::mark_unseen_alone`]: crate::store::PackedMarks::mark_unseen_alone
//! [`Puzzle::lane`]: crate::Puzzle::lane

// Under `--cfg loom` the lanes' atomics are loom's, whose model checker runs every
// interleaving of the protocol (the `model` tests below).
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

use super::layout::WorkItem;
use crate::puzzle::Puzzle;

/// Who else writes where a work item's marks land.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Writer {
    /// Nobody: the marks may read and write plainly
    /// ([`crate::store::PackedMarks::mark_unseen_alone`]).
    Alone,
    /// Other threads too: atomic marks.
    Shared,
}

/// The work items of one level by lane: the even lanes, then the odd ones.
pub(super) struct Lanes<'a> {
    halves: [Vec<Lane<'a>>; 2],
}

/// One lane's work items, and who works on them.
struct Lane<'a> {
    items: Vec<&'a WorkItem>,
    /// The next item to take.
    next: AtomicUsize,
    /// A thread took the lane.
    owned: AtomicBool,
    /// A helper asked to join: the owner marks atomically from its next item on.
    shared: AtomicBool,
    /// The owner marks plainly no more (it saw `shared`, or ran out of items).
    settled: AtomicBool,
}

impl<'a> Lane<'a> {
    fn new(items: Vec<&'a WorkItem>) -> Lane<'a> {
        Lane {
            items,
            next: AtomicUsize::new(0),
            owned: AtomicBool::new(false),
            shared: AtomicBool::new(false),
            settled: AtomicBool::new(false),
        }
    }

    /// The next work item, if any is left.
    fn take(&self) -> Option<&'a WorkItem> {
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

impl<'a> Lanes<'a> {
    /// The lanes of `items`, if the puzzle has lanes.
    pub fn new<P: Puzzle>(puzzle: &P, items: &[&'a WorkItem]) -> Option<Lanes<'a>> {
        let mut by_lane: Vec<Vec<&'a WorkItem>> = Vec::new();
        for &item in items {
            // A work item lies in one segment, and a segment in one lane. Lanes meet
            // only at multiples of 64 entries, so no byte or word of a store holds
            // entries of two lanes.
            let (start, end) = (item.range.start, item.range.end);
            if !start.is_multiple_of(64) || !(end.is_multiple_of(64) || end == puzzle.index_count())
            {
                return None;
            }
            let lane = puzzle.lane(start)?;
            if by_lane.len() <= lane {
                by_lane.resize_with(lane + 1, Vec::new);
            }
            by_lane[lane].push(item);
        }
        Some(Lanes::from_lanes(by_lane))
    }

    /// The lanes whose work items `by_lane` lists, lane by lane.
    fn from_lanes(by_lane: Vec<Vec<&'a WorkItem>>) -> Lanes<'a> {
        let mut halves = [Vec::new(), Vec::new()];
        for (lane, items) in by_lane.into_iter().enumerate() {
            if !items.is_empty() {
                halves[lane % 2].push(items);
            }
        }
        Lanes {
            halves: halves.map(|mut lanes| {
                lanes.sort_by_key(|items| std::cmp::Reverse(items.len()));
                lanes.into_iter().map(Lane::new).collect()
            }),
        }
    }

    /// Calls `work(item, writer)` for every work item, on every thread of the current
    /// pool: the even lanes, then the odd ones. [`Writer::Alone`] says that no other
    /// thread writes the item's lane meanwhile, so its marks may read and write
    /// plainly. Items taken after `stopped` returns true are skipped.
    pub fn run(&self, stopped: impl Fn() -> bool + Sync, work: impl Fn(&WorkItem, Writer) + Sync) {
        for half in &self.halves {
            rayon::broadcast(|_| run_half(half, &stopped, &work));
        }
    }
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
fn run_half(lanes: &[Lane], stopped: &impl Fn() -> bool, work: &impl Fn(&WorkItem, Writer)) {
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

/// Work items for the tests.
#[cfg(test)]
mod fixtures {
    use crate::engine::layout::WorkItem;
    use std::sync::atomic::AtomicBool;

    /// `counts[k]` work items of 64 entries in lane `k` (its number in `segment`).
    pub(super) fn items(counts: &[usize]) -> Vec<WorkItem> {
        let lanes = counts
            .iter()
            .enumerate()
            .flat_map(|(lane, &n)| vec![lane; n]);
        lanes
            .enumerate()
            .map(|(i, lane)| WorkItem {
                range: 64 * i as u64..64 * (i as u64 + 1),
                chunk: i,
                class: 0,
                segment: lane,
                exhausted: AtomicBool::new(false),
            })
            .collect()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::fixtures::items;
    use super::{Lanes, Writer};
    use crate::engine::layout::WorkItem;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    /// Runs the lanes of `counts` on `threads` threads, each item taking a while,
    /// and checks as they run that a plain writer is its lane's only one and that no
    /// lane runs beside a neighbour; returns how many items ran alone and how many
    /// shared.
    fn run_checked(counts: &[usize], threads: usize) -> (usize, usize) {
        let all = items(counts);
        let mut by_lane = vec![Vec::new(); counts.len()];
        for item in &all {
            by_lane[item.segment].push(item);
        }
        let lanes = Lanes::from_lanes(by_lane);
        let active: Vec<AtomicUsize> = counts.iter().map(|_| AtomicUsize::new(0)).collect();
        let plain: Vec<AtomicBool> = counts.iter().map(|_| AtomicBool::new(false)).collect();
        let runs: Vec<AtomicUsize> = all.iter().map(|_| AtomicUsize::new(0)).collect();
        let ways = [AtomicUsize::new(0), AtomicUsize::new(0)];
        crate::pool::run_on(Some(threads), || {
            lanes.run(
                || false,
                |item, writer| {
                    let alone = writer == Writer::Alone;
                    let lane = item.segment;
                    let before = active[lane].fetch_add(1, Ordering::SeqCst);
                    if alone {
                        assert_eq!(before, 0, "lane {lane}: a plain writer beside another");
                        plain[lane].store(true, Ordering::SeqCst);
                    } else {
                        assert!(
                            !plain[lane].load(Ordering::SeqCst),
                            "lane {lane}: joined a plain writer"
                        );
                    }
                    for other in [lane.wrapping_sub(1), lane + 1] {
                        if let Some(other) = active.get(other) {
                            assert_eq!(
                                other.load(Ordering::SeqCst),
                                0,
                                "lane {lane} beside a neighbour"
                            );
                        }
                    }
                    std::thread::sleep(Duration::from_micros(100));
                    if alone {
                        plain[lane].store(false, Ordering::SeqCst);
                    }
                    active[lane].fetch_sub(1, Ordering::SeqCst);
                    runs[item.chunk].fetch_add(1, Ordering::SeqCst);
                    ways[usize::from(alone)].fetch_add(1, Ordering::SeqCst);
                },
            );
        })
        .unwrap();
        for (item, runs) in all.iter().zip(&runs) {
            assert_eq!(runs.load(Ordering::SeqCst), 1, "item {:?}", item.range);
        }
        let [shared, alone] = ways.map(AtomicUsize::into_inner);
        (alone, shared)
    }

    #[test]
    fn every_item_runs_once_and_a_plain_writer_runs_alone() {
        for threads in [2, 3, 4] {
            let (alone, shared) = run_checked(&[40, 3, 25, 7, 60, 1, 9], threads);
            assert_eq!(alone + shared, 145);
            assert!(alone > 0);
        }
    }

    #[test]
    fn a_thread_without_a_lane_helps_and_the_owner_turns_atomic() {
        // One lane, two threads: the second joins the first, which marks atomically
        // from then on.
        let (alone, shared) = run_checked(&[200], 2);
        assert!(alone > 0 && shared > 0, "{alone} alone, {shared} shared");
    }

    #[test]
    fn a_panic_of_the_owner_reaches_the_caller_and_no_helper_waits_for_ever() {
        let all = items(&[20]);
        let lanes = Lanes::from_lanes(vec![all.iter().collect()]);
        let run = std::panic::catch_unwind(|| {
            crate::pool::run_on(Some(2), || {
                lanes.run(
                    || false,
                    |item, _| {
                        // The other thread asks to join during the first item.
                        std::thread::sleep(Duration::from_millis(20));
                        assert_ne!(item.chunk, 0, "the first item fails");
                    },
                )
            })
        });
        assert!(run.is_err());
    }

    #[test]
    fn lanes_come_from_the_puzzle_and_whole_words() {
        let puzzle = crate::puzzles::SlidingPuzzle::new(2, 4).unwrap();
        let all = items(&[1, 1]);
        let refs: Vec<&WorkItem> = all.iter().collect();
        let lanes = Lanes::new(&puzzle, &refs).expect("a 2x4 board has lanes");
        assert_eq!(lanes.halves.iter().map(Vec::len).sum::<usize>(), 1);
        // A work item that ends inside a 64-entry word: no lanes.
        let odd = WorkItem {
            range: 0..100,
            ..items(&[1]).remove(0)
        };
        assert!(Lanes::new(&puzzle, &[&odd]).is_none());
        // A puzzle without lanes.
        let small = crate::puzzles::SlidingPuzzle::new(2, 3).unwrap();
        assert!(Lanes::new(&small, &refs).is_none());
    }
}

/// Every interleaving of the lanes' protocol, by loom's model checker
/// (`RUSTFLAGS="--cfg loom" cargo test --lib engine::lanes::model`). A lane's marks are
/// one word, and work item `k` sets its bit `k` as the stores do: a plain writer loads
/// the word and stores it back ([`crate::store::PackedMarks::mark_unseen_alone`]), a
/// shared one ORs atomically. A mark lost in any interleaving fails the test.
#[cfg(all(test, loom))]
mod model {
    use super::fixtures::items;
    use super::{Lanes, Writer, run_half};
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicU64, Ordering};

    /// Runs even lanes with `counts[k]` items in lane `k` on two threads, in every
    /// interleaving; each lane's word must end with every item's bit.
    fn check(counts: &'static [usize]) {
        // Interleavings with up to two preemptions: a lost mark needs one (a shared
        // OR between a plain load and its store); the whole space is too big.
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(2);
        model.check(move || {
            let all: &'static [_] = Vec::leak(items(counts));
            let mut by_lane = vec![Vec::new(); counts.len()];
            for item in all {
                by_lane[item.segment].push(item);
            }
            let lanes = Arc::new(Lanes::from_lanes(by_lane));
            let words: Arc<Vec<AtomicU64>> =
                Arc::new(counts.iter().map(|_| AtomicU64::new(0)).collect());
            let thread = |lanes: Arc<Lanes<'static>>, words: Arc<Vec<AtomicU64>>| {
                move || {
                    let mark = |item: &crate::engine::layout::WorkItem, writer| {
                        let word = &words[item.segment];
                        let bit = 1 << item.chunk;
                        match writer {
                            Writer::Alone => {
                                let before = word.load(Ordering::Relaxed);
                                word.store(before | bit, Ordering::Relaxed);
                            }
                            Writer::Shared => {
                                word.fetch_or(bit, Ordering::Relaxed);
                            }
                        }
                    };
                    // The even lanes: one half, as one `rayon::broadcast` runs it.
                    run_half(&lanes.halves[0], &|| false, &mark);
                }
            };
            let other = loom::thread::spawn(thread(lanes.clone(), words.clone()));
            thread(lanes, words.clone())();
            other.join().unwrap();
            for (lane, word) in words.iter().enumerate() {
                let wanted = all
                    .iter()
                    .filter(|item| item.segment == lane)
                    .fold(0, |w, item| w | 1 << item.chunk);
                assert_eq!(
                    word.load(Ordering::Relaxed),
                    wanted,
                    "lane {lane} lost a mark"
                );
            }
        });
    }

    #[test]
    fn one_lane_two_threads_never_lose_a_mark() {
        check(&[2]);
    }

    #[test]
    fn two_lanes_of_a_half_never_lose_a_mark() {
        check(&[1, 0, 2]);
    }
}
