//! The executor of one process: the whole index space, its work items run on rayon's
//! pool (the first implementation of [`Executor`]).

use std::ops::Range;
use std::sync::atomic::Ordering;

use super::lanes::Lanes;
use super::layout::{self, ChunkLevels, Layout, WorkItem};
use super::levels::{self, LevelContext};
use super::recent::{RecentMarks, Written};
use super::strategy::{self, Capture, Chunks, Facts, Recent, Strategy};
use super::{Direction, EngineError, Executor, LevelOutcome, LevelPlan};
use crate::driver::Control;
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, Wanted};

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
    /// The store's recent marks, if it keeps them (depths mod 3).
    recent: Option<RecentMarks<'a, S::Packed>>,
    /// The next level is the one an interrupted run left partly written: its states
    /// may lie in chunks this run will not write to.
    redoing: bool,
    /// Per level run (from level 1), the work items whose marks were streamed at
    /// once and prefetched: the record of the timed choices ([`Threads::streamed`]).
    streamed: Vec<[u64; 2]>,
    /// A way of streaming marks that replaces the timed choice (tests pin each).
    #[cfg(test)]
    stream: Option<strategy::Stream>,
}

impl<'a, P: Puzzle, S: DepthStore> Threads<'a, P, S> {
    /// The executor of `puzzle` over `store` (one entry per index), for the goal
    /// indices `goals` (ascending). Each level checks its control's stop between
    /// work items.
    pub fn new(puzzle: &'a P, store: &'a S, goals: Vec<u64>) -> Self {
        let mut layout = Layout::new(&puzzle.segments(), &goals);
        layout.leave_out(puzzle.never_reached());
        layout.bottom_up_gain = puzzle.bottom_up_gain();
        let recent = RecentMarks::of(store, layout.bipartite());
        Threads {
            puzzle,
            store,
            layout,
            chunks: ChunkLevels::new(puzzle.index_count()),
            goals,
            recent,
            redoing: false,
            streamed: Vec::new(),
            #[cfg(test)]
            stream: None,
        }
    }

    /// Per level this executor ran (the first is level 1, or the first level after a
    /// resume), the work items whose marks were streamed at once and prefetched (the
    /// way each thread timed faster on its first items of each segment: see
    /// `engine::marking`); `[0, 0]` for a level that marked otherwise.
    #[must_use]
    pub fn streamed(&self) -> &[[u64; 2]] {
        &self.streamed
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

    /// The strategy of the level `plan` describes ([`strategy::decide`]).
    fn strategy(&self, plan: &LevelPlan, items: &[&'a WorkItem], capture: Capture) -> Strategy<'a> {
        let facts = Facts {
            plan,
            source_class_size: self.layout.class_size[plan.source],
            bipartite: self.layout.bipartite(),
            recent_marks: self.recent.is_some(),
            packed: self.store.packed().is_some(),
            threads: rayon::current_num_threads(),
            capture,
        };
        #[allow(unused_mut)]
        let mut strategy = strategy::decide(&facts, || Lanes::new(self.puzzle, items));
        #[cfg(test)]
        if let (Strategy::TopDown(how), Some(stream)) = (&mut strategy, self.stream) {
            how.stream = stream;
        }
        strategy
    }

    /// Readies the recent marks the level writing `next` will write, as `recent`
    /// says: ahead over every item it may write (its class, or all without colour
    /// classes), or cleared where they are stale. Those were set by the previous level
    /// of its slot (`next - 2`: the target class's, or the same parity's) and only
    /// where that level wrote: chunks last written then or later.
    fn prepare_recent(&self, plan: &LevelPlan, recent: Recent) {
        let Some(marks) = &self.recent else { return };
        let bipartite = self.layout.bipartite();
        let next = plan.depth + 1;
        let since = plan.depth.saturating_sub(1);
        let ranges: Vec<Range<u64>> = self
            .layout
            .items
            .iter()
            .filter(|i| match recent {
                Recent::Ahead => !bipartite || i.class == plan.target,
                _ => {
                    let written = self.chunks.get(i.chunk);
                    i.class == plan.target && written != layout::NEVER && written >= since
                }
            })
            .map(|i| i.range.clone())
            .collect();
        // SAFETY: between levels nobody else touches the store.
        unsafe {
            match recent {
                Recent::Ahead => marks.ahead(next, plan.frontier, &ranges),
                _ => marks.prepare(next, &ranges),
            }
        };
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

    fn never_reached_unchecked(&self) -> u64 {
        self.puzzle.never_reached_unchecked()
    }

    fn bottom_up_gain(&self) -> u64 {
        self.layout.bottom_up_gain
    }

    fn max_depth(&self) -> u32 {
        self.store.max_depth()
    }

    fn period(&self) -> Option<u32> {
        self.store.period()
    }

    fn seed(&mut self) -> u64 {
        let seeded = layout::seed(self.store, &self.chunks, &self.goals);
        if let Some(recent) = &mut self.recent {
            recent.seeded();
        }
        seeded
    }

    fn resume(&mut self, levels: usize) {
        // Where the last level lies is unknown: every chunk may hold it.
        self.chunks.set_all(levels as u32 - 1);
        self.redoing = true;
        if let Some(recent) = &mut self.recent {
            recent.resumed();
        }
    }

    fn frontier_is_exact(&self, depth: u32) -> bool {
        RecentMarks::frontier_is_exact(self.store, self.recent.as_ref(), depth)
    }

    fn work_units(&self, plan: &LevelPlan) -> u64 {
        self.items_for(plan).len() as u64
    }

    fn run_level(
        &mut self,
        plan: &LevelPlan,
        capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError> {
        // The interrupted run's marks of this level are where it left them: any chunk
        // of the class may hold some, and the recent marks know none of them.
        let redoing = std::mem::take(&mut self.redoing);
        let (puzzle, store, chunks) = (self.puzzle, self.store, &self.chunks);
        let items = self.items_for(plan);
        let strategy = self.strategy(plan, &items, capture);
        let (recent, chunks_after) = match &strategy {
            Strategy::TopDown(how) => (how.recent, how.chunks == Chunks::MarkedAfter),
            Strategy::BottomUp(_) => (Recent::Every, false),
        };
        self.prepare_recent(plan, recent);
        let ctx = LevelContext {
            puzzle,
            store,
            observer: control.observer,
            stop: control.stop,
            items,
            chunks,
            depth: plan.depth,
            recent: self
                .recent
                .as_ref()
                .and_then(|r| r.holding(plan.depth).map(|g| (r.store(), g))),
        };
        let found = match &strategy {
            Strategy::BottomUp(capture) => levels::bottom_up(&ctx, *capture),
            Strategy::TopDown(how) => levels::top_down(&ctx, how),
        };
        if chunks_after || redoing {
            self.mark_written(plan.target, plan.depth + 1);
        }
        if let Some(recent) = &mut self.recent {
            // A redone level's recent marks miss what the interrupted run marked.
            let written = if redoing {
                Written::Redone
            } else {
                Written::Whole
            };
            recent.written(plan.depth + 1, written);
        }
        self.streamed.push(found.streamed);
        Ok(LevelOutcome {
            found: found.states,
            captured: found.captured,
        })
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
    use crate::store::{ByteDepths, DepthRead, PackedDepths, PackedMarks};
    use std::sync::atomic::AtomicU32;

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
        threads.recent.as_mut().unwrap().shared_marks_from = 0;
        let bfs = Bfs::with_executor(Box::new(&mut threads));
        assert_eq!(bfs.run(&Control::default()).unwrap().0, histogram.0);
        let shared_levels = threads
            .recent
            .as_ref()
            .unwrap()
            .shared_levels
            .load(Ordering::Relaxed);
        assert!(shared_levels > 0, "no level marked shared groups");
        for i in 0..n {
            assert_eq!(packed.value(i), exact.value(i).map(|d| d % 3), "index {i}");
        }
    }

    /// The recent-marks protocol, level by level: after every level of a fresh search
    /// its slot holds the level exactly, and a scan through its marks finds every
    /// state of the level (the exact table says which), whichever way each level
    /// readied its marks (a mark per write, ahead where the code was, ahead with shared
    /// groups), with colour classes and without, on one thread and two. A mark cleared
    /// before its level has been scanned loses a frontier state here.
    #[test]
    fn recent_marks_hold_every_level_whole() {
        for threads in [1, 2] {
            crate::pool::run_on(Some(threads), || {
                for shared_marks_from in [0, u64::MAX] {
                    let board = SlidingPuzzle::new(2, 5).unwrap();
                    let cube = library::open("2x2x2").unwrap();
                    every_level_is_held(&board, shared_marks_from);
                    every_level_is_held(&cube, shared_marks_from);
                }
            })
            .unwrap();
        }
    }

    /// Runs a 2-bit search of `puzzle` and checks after each level that its recent
    /// marks hold it whole.
    fn every_level_is_held<P: Puzzle>(puzzle: &P, shared_marks_from: u64) {
        let n = puzzle.index_count();
        let exact = ByteDepths::anonymous(n).unwrap();
        let expected = engine::search(puzzle, &exact, &Control::default()).unwrap();
        let packed = PackedDepths::anonymous(n).unwrap();
        let mut threads = Threads::new(puzzle, &packed, puzzle.goal_indices());
        threads.recent.as_mut().unwrap().shared_marks_from = shared_marks_from;
        let held = LevelsHeld {
            store: &packed,
            exact: &exact,
            bipartite: threads.layout.bipartite(),
            levels: AtomicU32::new(0),
        };
        let bfs = Bfs::with_executor(Box::new(&mut threads));
        let histogram = bfs.run(&Control::new(&held, None)).unwrap();
        assert_eq!(histogram.0, expected.0, "{}", puzzle.name());
        let last = histogram.gods_number();
        // Every level, and the last one that finds nothing.
        assert_eq!(held.levels.into_inner(), last + 1, "levels checked");
        let recent = threads.recent.as_ref().unwrap();
        assert!(recent.holding(last).is_some() && recent.holding(last - 1).is_some());
    }

    /// Hears each level's end and scans the store through the recent marks of the
    /// level's generation (one in a bipartite layout, else two by parity): every state
    /// the exact table puts at that depth must be found.
    struct LevelsHeld<'a> {
        store: &'a PackedDepths,
        exact: &'a ByteDepths,
        bipartite: bool,
        levels: AtomicU32,
    }

    impl crate::driver::Observer for LevelsHeld<'_> {
        fn level_finished(&self, stats: &crate::driver::LevelStats) {
            let depth = stats.depth;
            let generation = if self.bipartite {
                0
            } else {
                depth as usize % 2
            };
            let mut found = Vec::new();
            // SAFETY: the level is over; nothing writes the store until the next one.
            unsafe {
                self.store.collect_recent_exclusive(
                    0..self.exact.len(),
                    Wanted::Depth(depth),
                    generation,
                    &mut found,
                )
            };
            let found: std::collections::HashSet<u64> = found.into_iter().collect();
            for i in 0..self.exact.len() {
                if self.exact.value(i) == Some(depth) {
                    assert!(
                        found.contains(&i),
                        "level {depth}: state {i} has no recent mark"
                    );
                }
            }
            self.levels.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Each way of streaming marks (the timed choice, at once, prefetched) writes the
    /// same tables, on one thread and on two, in both encodings; and the level records
    /// every streamed work item under one way or the other.
    #[test]
    fn every_way_of_streaming_marks_writes_the_same_table() {
        use crate::engine::strategy::Stream;
        let puzzle = SlidingPuzzle::new(3, 3).unwrap();
        let n = puzzle.index_count();
        for threads in [1, 2] {
            crate::pool::run_on(Some(threads), || {
                let tables = [Stream::Timed, Stream::AtOnce, Stream::Prefetched].map(|stream| {
                    let (bytes, packed) = (
                        ByteDepths::anonymous(n).unwrap(),
                        PackedDepths::anonymous(n).unwrap(),
                    );
                    let streamed = [
                        streamed_with(&puzzle, &bytes, stream),
                        streamed_with(&puzzle, &packed, stream),
                    ];
                    let ways = streamed.map(|levels| {
                        levels
                            .iter()
                            .fold([0, 0], |a, l| [a[0] + l[0], a[1] + l[1]])
                    });
                    match stream {
                        Stream::AtOnce => assert!(ways.iter().all(|w| w[0] > 0 && w[1] == 0)),
                        Stream::Prefetched => assert!(ways.iter().all(|w| w[0] == 0 && w[1] > 0)),
                        Stream::Timed => assert!(ways.iter().all(|w| w[0] + w[1] > 0)),
                    }
                    (bytes.as_bytes().to_vec(), packed.map()[..].to_vec())
                });
                assert!(tables.iter().all(|t| *t == tables[0]), "{threads} threads");
            })
            .unwrap();
        }
    }

    /// Runs a search of `puzzle` over `store` streaming marks as `stream` says;
    /// returns the record of the streamed work items per level.
    fn streamed_with<P: Puzzle, S: DepthStore>(
        puzzle: &P,
        store: &S,
        stream: strategy::Stream,
    ) -> Vec<[u64; 2]> {
        let mut threads = Threads::new(puzzle, store, puzzle.goal_indices());
        threads.stream = Some(stream);
        Bfs::with_executor(Box::new(&mut threads))
            .run(&Control::default())
            .unwrap();
        threads.streamed().to_vec()
    }
}
