//! The executor of one process: the whole index space, its work items run on rayon's
//! pool (the first implementation of [`Executor`]).

use std::ops::Range;
use std::sync::atomic::Ordering;

use super::layout::{self, ChunkLevels, Layout, WorkItem};
use super::levels::{self, LevelContext};
use super::{CHUNK_SHIFT, Direction, Executor, LevelOutcome, LevelPlan};
use crate::driver::Control;
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, Wanted, WriteMarks};

/// A top-down level whose frontier holds more than 1/DENSE_FRACTION of its colour is
/// "dense": it writes without tracking which chunks it touched.
const DENSE_FRACTION: u64 = 64;

/// A dense level marks ahead the groups that hold both an unseen entry and older
/// entries of its code (*shared* groups) too, so that no write marks, if it writes
/// at least [`SHARED_MARKS_FROM`] entries and the shared groups are at most
/// 1/SHARED_LIMIT of its frontier. The older entries of a shared group the level does
/// not write to cost an expansion each at the next level; every write spares a
/// scattered access to the marks (3x4 and 2x6, shared groups 9-31% of the frontier:
/// 13-17% faster; Goat, 2x5: see [`SHARED_MARKS_FROM`]).
const SHARED_LIMIT: u64 = 2;
/// The entries a dense level must write to mark shared groups ahead: 2^25, whose
/// marks (one bit per four) fill a core's second-level cache (1 MiB). Below it the
/// scattered marks mostly hit the cache and cost little against the expansions that
/// shared groups add (2x5: 6% faster, 10% more states expanded; Goat, whose shared
/// groups hold more older entries than 4/5 of its frontier: 13% slower), so small
/// spaces keep the frontier that a mark per write gives.
const SHARED_MARKS_FROM: u64 = 1 << 25;

/// Every index of one store, computed by this process's threads. Per chunk of
/// `2^CHUNK_SHIFT` indices it remembers the last level written there, so sparse
/// levels visit only the chunks that hold their frontier.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::engine::{Bfs, Threads};
/// use antipode::{Puzzle, puzzles::SlidingPuzzle, store::PackedDepths};
///
/// // Two bits per state (depth mod 3) on this process's cores.
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = PackedDepths::anonymous(board.index_count()).unwrap();
/// let threads = Threads::new(&board, &store, board.goal_indices());
/// let bfs = Bfs::with_executor(Box::new(threads));
/// assert_eq!(bfs.run(&Control::default()).unwrap().gods_number(), 21);
/// ```
pub struct Threads<'a, P: Puzzle, S: DepthStore> {
    puzzle: &'a P,
    store: &'a S,
    layout: Layout,
    chunks: ChunkLevels,
    goals: Vec<u64>,
    /// The store keeps recent marks (see [`DepthStore::track_recent`]).
    tracks_recent: bool,
    /// Per recent slot ([`Threads::recent_slot`]): its marks cover exactly the groups
    /// its newest level wrote.
    recent_valid: [bool; 2],
    /// The next level is the one an interrupted run left partly written: its states
    /// may lie in chunks this run will not write to.
    redoing: bool,
    /// [`SHARED_MARKS_FROM`] (tests lower it).
    shared_marks_from: u64,
    /// The levels that marked shared groups ahead.
    shared_levels: u32,
}

impl<'a, P: Puzzle, S: DepthStore> Threads<'a, P, S> {
    /// The executor of `puzzle` over `store` (one entry per index), for the goal
    /// indices `goals` (ascending). Each level checks its control's stop between
    /// work items.
    pub fn new(puzzle: &'a P, store: &'a S, goals: Vec<u64>) -> Self {
        let mut layout = Layout::new(&puzzle.segments(), &goals);
        layout.leave_out(puzzle.never_reached());
        // Codes mod p do not tell the frontier from older levels of its class; recent
        // marks do: one generation when each level's writes stay in the other class,
        // two (alternating by level) when levels write where their frontier lies.
        let generations = if layout.bipartite() { 1 } else { 2 };
        let tracks_recent = store.period().is_some() && store.track_recent(generations);
        Threads {
            puzzle,
            store,
            layout,
            chunks: ChunkLevels::new(puzzle.index_count()),
            goals,
            tracks_recent,
            recent_valid: [false; 2],
            redoing: false,
            shared_marks_from: SHARED_MARKS_FROM,
            shared_levels: 0,
        }
    }

    /// Where level `level`'s recent marks are kept track of: its colour class in a
    /// bipartite layout (one generation of marks, the classes apart), else its parity
    /// (two generations).
    fn recent_slot(&self, level: u32) -> usize {
        if self.layout.bipartite() {
            self.layout.class_of(level)
        } else {
            (level % 2) as usize
        }
    }

    /// The generation of recent marks that level `level` writes.
    fn recent_generation(&self, level: u32) -> usize {
        if self.layout.bipartite() {
            0
        } else {
            (level % 2) as usize
        }
    }

    /// The work items a level visits: top-down, the frontier's chunks; bottom-up, the
    /// new level's class except the items already exhausted.
    fn items_for(&self, plan: &LevelPlan) -> Vec<&WorkItem> {
        let items = self.layout.items.iter();
        match plan.direction {
            Direction::TopDown => items
                .filter(|i| i.class == plan.source && self.chunks.get(i.chunk) == plan.depth)
                .collect(),
            Direction::BottomUp => items
                .filter(|i| i.class == plan.target && !i.exhausted.load(Ordering::Relaxed))
                .collect(),
        }
    }

    /// Records that level `level` may have written anywhere in class `class`.
    fn mark_written(&self, class: usize, level: u32) {
        for item in self.layout.items.iter().filter(|i| i.class == class) {
            self.chunks.set(item.chunk, level);
        }
    }

    /// Readies the recent marks the new level will write to. A dense top-down level
    /// sets them ahead over every item it may write, in one pass: the groups with an
    /// unseen entry and none of its code, and then its writes into groups that held
    /// its code mark them (the frontier that marks per write give); or, on large
    /// spaces whose shared groups hold few older entries, the shared groups too, and
    /// no write marks ([`SHARED_LIMIT`]). Any other level clears the marks and marks
    /// as it writes. Returns how the level's writes mark.
    fn prepare_recent(&mut self, plan: &LevelPlan, dense_top_down: bool) -> WriteMarks {
        let (next, generation) = (plan.depth + 1, self.recent_generation(plan.depth + 1));
        if !dense_top_down {
            self.forget_recent(plan);
            self.store.write_recent_to(generation, WriteMarks::Every);
            return WriteMarks::Every;
        }
        let bipartite = self.layout.bipartite();
        let written: Vec<&WorkItem> = self
            .layout
            .items
            .iter()
            .filter(|i| !bipartite || i.class == plan.target)
            .collect();
        let entries: u64 = written.iter().map(|i| i.range.end - i.range.start).sum();
        // One pass, two if marking the shared groups turns out not to pay.
        let shared_pays = entries >= self.shared_marks_from && {
            // SAFETY: between levels nobody else touches the store.
            let shared =
                unsafe { levels::mark_recent_ahead(self.store, &written, generation, next, true) };
            shared * SHARED_LIMIT <= plan.frontier
        };
        let marks = if shared_pays {
            self.shared_levels += 1;
            WriteMarks::None
        } else {
            // SAFETY: between levels nobody else touches the store.
            unsafe { levels::mark_recent_ahead(self.store, &written, generation, next, false) };
            WriteMarks::WhereCodeWas(next)
        };
        self.store.write_recent_to(generation, marks);
        marks
    }

    /// Clears the recent marks the new level will write to. They were set by the
    /// previous level of its slot (depth - 1: the target class's, or the same
    /// parity's) and only where that level wrote: chunks last written then or later.
    fn forget_recent(&self, plan: &LevelPlan) {
        let since = plan.depth.saturating_sub(1);
        let generation = self.recent_generation(plan.depth + 1);
        let target: Vec<&WorkItem> = self
            .layout
            .items
            .iter()
            .filter(|i| {
                let written = self.chunks.get(i.chunk);
                i.class == plan.target && written != layout::NEVER && written >= since
            })
            .collect();
        // SAFETY: between levels nobody else touches the store.
        unsafe { levels::forget_recent(self.store, &target, generation) };
    }
}

impl<P: Puzzle, S: DepthStore> Executor for Threads<'_, P, S> {
    fn indices(&self) -> Range<u64> {
        0..self.store.len()
    }

    fn class_of(&self, depth: u32) -> usize {
        self.layout.class_of(depth)
    }

    fn class_sizes(&self) -> [u64; 2] {
        self.layout.class_size
    }

    fn never_reached(&self) -> u64 {
        self.layout.left_out
    }

    fn max_depth(&self) -> u32 {
        self.store.max_depth()
    }

    fn period(&self) -> Option<u32> {
        self.store.period()
    }

    fn seed(&mut self) -> u64 {
        for &goal in &self.goals {
            self.store.set(goal, 0);
            self.chunks.set((goal >> CHUNK_SHIFT) as usize, 0);
        }
        // A fresh store: no marks but the goals' (class 1 holds nothing yet).
        self.recent_valid = [true; 2];
        self.goals.len() as u64
    }

    fn resume(&mut self, levels: usize) {
        // Where the last level lies is unknown: every chunk may hold it.
        self.chunks.set_all(levels as u32 - 1);
        self.redoing = true;
    }

    fn frontier_is_exact(&self, depth: u32) -> bool {
        self.store.period().is_none()
            || (self.tracks_recent && self.recent_valid[self.recent_slot(depth)])
    }

    fn work_units(&self, plan: &LevelPlan) -> u64 {
        self.items_for(plan).len() as u64
    }

    fn run_level(
        &mut self,
        plan: &LevelPlan,
        capture: bool,
        control: &Control<'_>,
    ) -> LevelOutcome {
        // The interrupted run's marks of this level are where it left them: any chunk
        // of the class may hold some, and the recent marks know none of them.
        let redoing = std::mem::take(&mut self.redoing);
        // A dense frontier touches every chunk anyway: skip the per-write bookkeeping
        // (chunks and recent marks) and mark ahead or afterwards.
        let dense = plan.direction == Direction::TopDown
            && plan.frontier * DENSE_FRACTION > self.layout.class_size[plan.source];
        let marked_ahead =
            self.tracks_recent && self.prepare_recent(plan, dense) != WriteMarks::Every;
        let ctx = LevelContext {
            puzzle: self.puzzle,
            store: self.store,
            observer: control.observer,
            stop: control.stop,
            items: self.items_for(plan),
            chunks: &self.chunks,
            depth: plan.depth,
            bipartite: self.layout.bipartite(),
            recent: (self.tracks_recent && self.recent_valid[self.recent_slot(plan.depth)])
                .then(|| self.recent_generation(plan.depth)),
            marked_ahead,
        };
        let outcome = match plan.direction {
            Direction::BottomUp => {
                let (found, captured) = levels::bottom_up(&ctx, capture);
                if redoing {
                    self.mark_written(plan.target, plan.depth + 1);
                }
                LevelOutcome {
                    found: Some(found),
                    captured,
                }
            }
            Direction::TopDown => {
                let (found, captured) = levels::top_down(&ctx, !dense, capture);
                if dense || redoing {
                    self.mark_written(plan.target, plan.depth + 1);
                }
                LevelOutcome { found, captured }
            }
        };
        if self.tracks_recent {
            // A redone level's recent marks miss what the interrupted run marked.
            let slot = self.recent_slot(plan.depth + 1);
            self.recent_valid[slot] = !redoing;
        }
        outcome
    }

    fn count_level(&self, plan: &LevelPlan) -> u64 {
        let next = plan.depth + 1;
        let exact = self.store.period().is_none();
        let items: Vec<&WorkItem> = self
            .layout
            .items
            .iter()
            .filter(|i| i.class == plan.target && (!exact || self.chunks.get(i.chunk) == next))
            .collect();
        // SAFETY: the level is over (its parallel loops have joined); nothing writes
        // the store until the next level starts.
        unsafe { levels::count_matching(self.store, &items, Wanted::Depth(next)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::Control;
    use crate::engine::{self, Bfs};
    use crate::puzzles::{SlidingPuzzle, kpuzzle::library};
    use crate::store::{ByteDepths, DepthRead, PackedDepths};

    /// With shared groups marked ahead on small spaces too, two bits per state still
    /// hold every depth of the 8-bit search mod 3: on a board with colour classes
    /// and on a puzzle without, on one worker thread (the single writer's marks) and
    /// on two.
    #[test]
    fn shared_marks_ahead_keep_every_depth() {
        for threads in [1, 2] {
            crate::pool::run_on(Some(threads), || {
                for_every_index_mod_3(&SlidingPuzzle::new(2, 5).unwrap());
                for_every_index_mod_3(&library::open("2x2x2").unwrap());
            })
            .unwrap();
        }
    }

    fn for_every_index_mod_3<P: Puzzle>(puzzle: &P) {
        let n = puzzle.index_count();
        let exact = ByteDepths::anonymous(n).unwrap();
        let histogram = engine::search(puzzle, &exact, &Control::default()).unwrap();
        let packed = PackedDepths::anonymous(n).unwrap();
        let mut threads = Threads::new(puzzle, &packed, puzzle.goal_indices());
        threads.shared_marks_from = 0;
        let bfs = Bfs::with_executor(Box::new(&mut threads));
        assert_eq!(bfs.run(&Control::default()).unwrap().0, histogram.0);
        assert!(threads.shared_levels > 0, "no level marked shared groups");
        for i in 0..n {
            assert_eq!(packed.value(i), exact.value(i).map(|d| d % 3), "index {i}");
        }
    }
}
