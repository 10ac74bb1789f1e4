//! How a top-down level marks the neighbours of a work item's frontier when it does
//! not count as it marks (the byte store; the packed store's dense levels, whose
//! recent marks were set ahead): each at once, or each prefetched and marked
//! [`AHEAD`] neighbours later. Which is faster depends on where the neighbours lie:
//! far apart (most moves of 2x6), the misses of prefetched marks overlap; close
//! together (a 3x4 blank's vertical moves that rotate tiles of the leading digits
//! only, in dense levels), the hardware's own prefetcher serves them and the queue is
//! pure overhead (`scripts/EXPERIMENTS.md`, "Ahead of the C BFS: translated moves in
//! the scan, prefetched marks where they pay", has the measurements). That differs
//! from segment to segment (blank cell to blank cell) and from level to level, so
//! every worker thread times both ways on its first work items of each segment of a
//! level and then keeps the faster one ([`Choice`]). A level on one worker thread,
//! and a thread that holds a lane alone (`lanes`), marks with
//! [`PackedMarks::mark_unseen_alone`] (no other writer: no atomic read-modify-write,
//! no branch); other threads with [`DepthStore::mark_unseen`].

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::lanes::Writer;
use super::strategy::{Stream, Translations};
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, PackedMarks};

/// How many neighbours a prefetched mark waits: enough to cover a memory latency with
/// the work of a few states, few enough to stay in the first-level cache.
const AHEAD: usize = 32;
/// Work items each way a thread times per segment of a level before it chooses.
const TRIALS: u32 = 2;
/// Work items with fewer states are not timed (a scan of a sparse item outweighs its
/// marks); they use the choice so far.
const TIMED_MIN: usize = 512;
/// Choices a thread keeps at once (segments share slots modulo this).
const SLOTS: usize = 64;

/// A number for each top-down level, so that a thread tells a new level from the last
/// one (two searches may run levels of the same depth).
static LEVELS: AtomicU64 = AtomicU64::new(0);

/// A fresh level number ([`mark_frontier`] keeps its timings per level).
pub(super) fn new_level() -> u64 {
    LEVELS.fetch_add(1, Ordering::Relaxed)
}

/// The work items of a level marked each way, the record of its timed choices.
#[derive(Debug, Default)]
pub(super) struct Streamed {
    at_once: AtomicU64,
    prefetched: AtomicU64,
}

impl Streamed {
    /// Work items marked at once and prefetched.
    pub fn counts(&self) -> [u64; 2] {
        [
            self.at_once.load(Ordering::Relaxed),
            self.prefetched.load(Ordering::Relaxed),
        ]
    }
}

/// Where a work item's marks belong, and what its expansion leaves out.
#[derive(Debug, Clone, Copy)]
pub(super) struct Way<'a> {
    /// How the level streams its marks.
    pub stream: Stream,
    /// Where the level records how its items were marked.
    pub streamed: &'a Streamed,
    /// The level's number ([`new_level`]).
    pub level: u64,
    /// The work item's segment.
    pub segment: usize,
    /// Whether the scan marked the puzzle's translated moves (the expansion then
    /// leaves them out).
    pub translations: Translations,
    /// Who else writes where the marks land.
    pub writer: Writer,
}

/// One thread's timings of the two ways on one segment of one level.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Choice {
    key: Option<(u64, usize)>,
    /// Per way (at once, prefetched): work items timed, nanoseconds, states.
    trials: [u32; 2],
    nanos: [u64; 2],
    states: [u64; 2],
}

impl Choice {
    /// Whether to prefetch the next work item of `segment` in `level` (`states`
    /// states), and whether to time it.
    fn choose(&mut self, level: u64, segment: usize, states: usize) -> (bool, bool) {
        if self.key != Some((level, segment)) {
            *self = Choice {
                key: Some((level, segment)),
                ..Choice::default()
            };
        }
        let timed = states >= TIMED_MIN;
        if timed && self.trials.iter().any(|&t| t < TRIALS) {
            // Alternate, prefetching first.
            return (self.trials[1] <= self.trials[0], true);
        }
        (self.prefetch_is_faster(), false)
    }

    /// Records a timed work item.
    fn record(&mut self, prefetched: bool, nanos: u64, states: usize) {
        let way = usize::from(prefetched);
        self.trials[way] += 1;
        self.nanos[way] += nanos;
        self.states[way] += states as u64;
    }

    /// Prefetching unless the items marked at once took less time per state (also
    /// before any were timed: sparse items gain most from it).
    fn prefetch_is_faster(&self) -> bool {
        // nanos[0] / states[0] < nanos[1] / states[1], without division.
        let at_once = u128::from(self.nanos[0]) * u128::from(self.states[1]);
        let prefetched = u128::from(self.nanos[1]) * u128::from(self.states[0]);
        self.trials[0] == 0 || prefetched <= at_once
    }
}

thread_local! {
    static CHOICES: RefCell<[Choice; SLOTS]> = const { RefCell::new([Choice {
        key: None,
        trials: [0; 2],
        nanos: [0; 2],
        states: [0; 2],
    }; SLOTS]) };
}

/// Expands `frontier` (ascending) and marks every neighbour with `next` where unseen,
/// at once or prefetched, as this thread's timings of the segment in the level say.
pub(super) fn mark_frontier<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    frontier: &[u64],
    next: u32,
    way: Way<'_>,
) {
    match (way.writer, store.packed()) {
        (Writer::Alone, Some(packed)) => {
            mark_frontier_with(puzzle, store, frontier, way, |n| {
                packed.mark_unseen_alone(n, next)
            });
        }
        _ => mark_frontier_with(puzzle, store, frontier, way, |n| store.mark_unseen(n, next)),
    }
}

/// [`mark_frontier`] with `mark` for each neighbour.
#[inline(always)]
fn mark_frontier_with<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    frontier: &[u64],
    way: Way<'_>,
    mark: impl Fn(u64) + Copy,
) {
    let slot = way.segment % SLOTS;
    let (prefetch, timed) = match way.stream {
        Stream::AtOnce => (false, false),
        Stream::Prefetched => (true, false),
        Stream::Timed => CHOICES.with_borrow_mut(|choices| {
            choices[slot].choose(way.level, way.segment, frontier.len())
        }),
    };
    let count = if prefetch {
        &way.streamed.prefetched
    } else {
        &way.streamed.at_once
    };
    count.fetch_add(1, Ordering::Relaxed);
    let started = timed.then(Instant::now);
    if prefetch {
        mark_prefetched(puzzle, store, frontier, way.translations, mark);
    } else {
        let visit = move |(), _, neighbours: &[u64]| neighbours.iter().for_each(|&n| mark(n));
        expand_fold(puzzle, frontier, way.translations, (), visit);
    }
    if let Some(started) = started {
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        CHOICES.with_borrow_mut(|choices| choices[slot].record(prefetch, nanos, frontier.len()));
    }
}

/// Neighbours on their way to a mark: each is prefetched as it comes and marked
/// [`AHEAD`] neighbours later, so that the misses of scattered marks (a class index's
/// neighbours land anywhere in a table of gigabytes) overlap. Marks are idempotent, so
/// their order changes nothing written; [`Ahead::finish`] marks the last ones.
pub(super) struct Ahead<F> {
    pending: [u64; AHEAD],
    queued: usize,
    mark: F,
}

impl<F: FnMut(u64)> Ahead<F> {
    const EMPTY: u64 = u64::MAX;

    pub(super) fn new(mark: F) -> Ahead<F> {
        Ahead {
            pending: [Self::EMPTY; AHEAD],
            queued: 0,
            mark,
        }
    }

    /// Prefetches `n` and marks the neighbour that came [`AHEAD`] before it.
    #[inline(always)]
    pub(super) fn push<S: DepthStore>(&mut self, store: &S, n: u64) {
        store.prefetch(n);
        let due = std::mem::replace(&mut self.pending[self.queued % AHEAD], n);
        self.queued += 1;
        if due != Self::EMPTY {
            (self.mark)(due);
        }
    }

    /// Marks the neighbours still waiting.
    pub(super) fn finish(mut self) {
        for due in self.pending {
            if due != Self::EMPTY {
                (self.mark)(due);
            }
        }
    }
}

/// [`mark_frontier`] with each neighbour prefetched and marked (`mark`) [`AHEAD`]
/// neighbours later, through a ring of pending indices.
fn mark_prefetched<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    frontier: &[u64],
    translations: Translations,
    mark: impl Fn(u64) + Copy,
) {
    const EMPTY: u64 = u64::MAX;
    let mut pending = [EMPTY; AHEAD];
    let visit = |mut queued: usize, _, neighbours: &[u64]| {
        for &n in neighbours {
            store.prefetch(n);
            let due = std::mem::replace(&mut pending[queued % AHEAD], n);
            if due != EMPTY {
                mark(due);
            }
            queued += 1;
        }
        queued
    };
    expand_fold(puzzle, frontier, translations, 0, visit);
    for &due in &pending {
        if due != EMPTY {
            mark(due);
        }
    }
}

/// Expands `frontier` with `visit`, without the puzzle's translated moves if the
/// scan marked them.
#[inline(always)]
fn expand_fold<P: Puzzle, A: Default>(
    puzzle: &P,
    frontier: &[u64],
    translations: Translations,
    init: A,
    visit: impl FnMut(A, u64, &[u64]) -> A,
) -> A {
    match translations {
        Translations::InScan => puzzle.expand_untranslated_fold(frontier, init, visit),
        Translations::InExpansion => puzzle.expand_sorted_fold(frontier, init, visit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_times_both_ways_then_keeps_the_faster() {
        let mut choice = Choice::default();
        // Small items are not timed, and prefetch before anything is known.
        assert_eq!(choice.choose(7, 3, 10), (true, false));
        let mut ways = Vec::new();
        for _ in 0..2 * TRIALS {
            let (prefetch, timed) = choice.choose(7, 3, 1000);
            assert!(timed);
            ways.push(prefetch);
            // Marking at once is twice as fast here.
            choice.record(prefetch, if prefetch { 2000 } else { 1000 }, 1000);
        }
        assert_eq!(ways, [true, false, true, false]);
        assert_eq!(choice.choose(7, 3, 1000), (false, false));
        assert_eq!(choice.choose(7, 3, 10), (false, false));
        // A new level, or another segment, starts over.
        assert_eq!(choice.choose(8, 3, 1000), (true, true));
        choice.record(true, 1000, 1000);
        assert_eq!(choice.choose(8, 4, 1000), (true, true));
    }

    #[test]
    fn prefetching_wins_a_tie_and_a_faster_time_per_state() {
        let mut choice = Choice::default();
        choice.choose(1, 0, 1000);
        choice.record(false, 1000, 1000);
        choice.record(true, 1900, 2000);
        assert!(choice.prefetch_is_faster());
        choice.record(true, 200, 0);
        assert!(!choice.prefetch_is_faster());
    }
}
