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
//! on one thread. The protocol itself is [`protocol`], which `loom/` checks in every
//! interleaving with loom's model checker.
//!
//! [`PackedMarks`]: crate::store::PackedMarks
//! [`PackedMarks::mark_unseen_alone`]: crate::store::PackedMarks::mark_unseen_alone
//! [`Puzzle::lane`]: crate::Puzzle::lane

mod protocol;

use super::layout::WorkItem;
use crate::puzzle::Puzzle;
use protocol::Lane;
pub(super) use protocol::Writer;

/// The work items of one level by lane: the even lanes, then the odd ones.
pub(super) struct Lanes<'a> {
    halves: [Vec<Lane<'a, WorkItem>>; 2],
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
        Lanes {
            halves: protocol::halves(by_lane),
        }
    }

    /// Calls `work(item, writer)` for every work item, on every thread of the current
    /// pool: the even lanes, then the odd ones. [`Writer::Alone`] says that no other
    /// thread writes the item's lane meanwhile, so its marks may read and write
    /// plainly. Items taken after `stopped` returns true are skipped.
    pub fn run(&self, stopped: impl Fn() -> bool + Sync, work: impl Fn(&WorkItem, Writer) + Sync) {
        for half in &self.halves {
            rayon::broadcast(|_| protocol::run_half(half, &stopped, &work));
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

#[cfg(test)]
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
