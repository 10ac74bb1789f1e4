//! The engine's executor seam, driven from outside the crate: an executor that wraps
//! the threads executor and records what the level loop asks of it.

use std::cell::Cell;
use std::ops::Range;

use antipode::engine::{Bfs, Executor, LevelOutcome, LevelPlan, Silent, Threads};
use antipode::puzzles::SlidingPuzzle;
use antipode::store::ByteDepths;
use antipode::{Puzzle, analysis};

/// Delegates to [`Threads`] and counts the levels it ran and the counts it combined.
struct Recording<'a, E> {
    inner: E,
    levels: &'a Cell<u32>,
    combined: &'a Cell<u64>,
}

impl<E: Executor> Executor for Recording<'_, E> {
    fn indices(&self) -> Range<u64> {
        self.inner.indices()
    }
    fn class_of(&self, depth: u32) -> usize {
        self.inner.class_of(depth)
    }
    fn class_sizes(&self) -> [u64; 2] {
        self.inner.class_sizes()
    }
    fn max_depth(&self) -> u32 {
        self.inner.max_depth()
    }
    fn period(&self) -> Option<u32> {
        self.inner.period()
    }
    fn seed(&mut self) -> u64 {
        self.inner.seed()
    }
    fn resume(&mut self, levels: usize) {
        self.inner.resume(levels)
    }
    fn frontier_is_exact(&self, depth: u32) -> bool {
        self.inner.frontier_is_exact(depth)
    }
    fn work_units(&self, plan: &LevelPlan) -> u64 {
        self.inner.work_units(plan)
    }
    fn run_level(&mut self, plan: &LevelPlan, capture: bool) -> LevelOutcome {
        self.levels.set(self.levels.get() + 1);
        self.inner.run_level(plan, capture)
    }
    fn count_level(&self, plan: &LevelPlan) -> u64 {
        self.inner.count_level(plan)
    }
    fn combine(&self, local: u64) -> u64 {
        self.combined.set(self.combined.get() + local);
        self.inner.combine(local)
    }
}

#[test]
fn a_level_loop_over_another_executor_finds_the_same_histogram() {
    let puzzle = SlidingPuzzle::new(3, 3).unwrap();
    let store = ByteDepths::anonymous(puzzle.index_count()).unwrap();
    let (levels, combined) = (Cell::new(0), Cell::new(0));
    let threads = Threads::new(&puzzle, &store, puzzle.goal_indices(), &Silent, None);
    assert_eq!(threads.indices(), 0..181_440);
    let recording = Recording {
        inner: threads,
        levels: &levels,
        combined: &combined,
    };
    let mut bfs = Bfs::with_executor(Box::new(recording), &Silent, None);
    bfs.seed();
    let histogram = bfs.run(None, None).unwrap();
    let (_, expected) = analysis::search(&puzzle, &Silent).unwrap();
    assert_eq!(histogram, expected);
    assert_eq!(histogram.gods_number(), 31);
    // Every level of depth 1 to 31 ran; the loop then stops when the class is full
    // or a level finds nothing. Every state but the goal passed through `combine`.
    assert!(levels.get() >= 31);
    assert_eq!(combined.get(), 181_440 - 1);
}
