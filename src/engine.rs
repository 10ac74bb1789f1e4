//! Level-synchronous breadth-first search from the goal over a [`DepthStore`].
//!
//! The engine knows levels, storage and threads, nothing about any particular puzzle:
//! it hands the puzzle ascending runs of indices ([`Puzzle::expand_sorted`]) and reads
//! or writes the neighbours it gets back.
//!
//! Each level runs in one of two directions (direction-optimizing BFS, Beamer et al.
//! 2012): **top-down** expands the frontier and marks its unseen neighbours; once the
//! frontier outgrows the unseen states of the next level's colour, **bottom-up** scans
//! those unseen states instead and keeps the ones that have a neighbour in the frontier.
//! Work is split into chunks of `2^CHUNK_SHIFT` indices that run in parallel on rayon's
//! pool. Per chunk the engine remembers the last level written into it, so sparse early
//! levels only visit the chunks that hold frontier states.
//!
//! A search is a [`Bfs`] value: [`Bfs::seed`] puts the whole goal set at depth 0 (a
//! multi-source BFS), [`Bfs::resume`] takes the levels a table file already holds, and
//! each level is planned ([`Bfs::choose_direction`]), run ([`Bfs::run_level`], the one
//! place that dispatches work to threads) and counted ([`Bfs::count_level`]).
//!
//! Indices that are legal states but never reached (other components of the state
//! graph) stay unseen. They cost nothing on top-down levels, which only visit the
//! frontier; a bottom-up level scans every unseen state, reachable or not, so the
//! direction rule compares the frontier with all unseen states (exactly what a
//! bottom-up level would expand). The test `sparse_reachability` in
//! `tests/it/figures.rs` measures a space where 15/16 of the indices are unreachable.

mod finished;
mod layout;
mod levels;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::puzzle::Puzzle;
use crate::store::{DepthStore, Wanted};
pub use finished::Finished;
pub use layout::CHUNK_SHIFT;
use layout::{ChunkLevels, Layout, WorkItem};
use levels::LevelContext;

/// A top-down level whose frontier holds more than 1/DENSE_FRACTION of its colour is
/// "dense": it writes without tracking which chunks it touched.
const DENSE_FRACTION: u64 = 64;

/// How one level was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// The frontier's neighbours were marked.
    TopDown,
    /// Unseen states looked for a neighbour in the frontier.
    BottomUp,
}

/// What one finished level found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelStats {
    /// The depth of the states found.
    pub depth: u32,
    /// How many states have this depth.
    pub new_states: u64,
    /// How many states have this depth or less.
    pub cumulative: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// How the level was computed (`None` for the goal itself).
    pub direction: Option<Direction>,
}

/// Receives progress from a running search. Called from worker threads, hence `Sync`.
/// The library never prints; a front end renders these events.
pub trait Observer: Sync {
    /// A level starts; `work_units` calls of [`Observer::work_done`] will follow in total.
    fn level_started(&self, _depth: u32, _direction: Direction, _work_units: u64) {}
    /// Some units of the current level are done.
    fn work_done(&self, _units: u64) {}
    /// A level is finished.
    fn level_finished(&self, _stats: &LevelStats) {}
    /// The completed levels (`levels` of them) were made durable: `bytes` written in
    /// `took`. Called before the last of those levels is reported finished.
    fn checkpoint_written(&self, _levels: usize, _bytes: u64, _took: Duration) {}
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {}

/// Why a search stopped early.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The store cannot hold the depths this puzzle reaches.
    #[error("depth {depth} exceeds what the depth encoding can record ({max})")]
    DepthOverflow {
        /// The depth that did not fit.
        depth: u32,
        /// The encoding's largest depth.
        max: u32,
    },
    /// A stop was requested; the levels before the interrupted one are complete.
    #[error("interrupted after {} complete level(s)", histogram.len())]
    Interrupted {
        /// The states per depth of the levels that are complete in the store.
        histogram: Vec<u64>,
    },
    /// The checkpoint callback failed.
    #[error("cannot record progress: {0}")]
    Checkpoint(std::io::Error),
    /// The puzzle has no goal state.
    #[error("the puzzle has no goal state")]
    NoGoal,
    /// The store and the puzzle disagree on the number of indices.
    #[error("the depth store has {store} entries but the puzzle has {puzzle} indices")]
    SizeMismatch {
        /// Entries in the store.
        store: u64,
        /// Indices of the puzzle.
        puzzle: u64,
    },
}

/// The result of a complete search: `histogram[d]` states at distance `d` from the goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram(pub Vec<u64>);

impl Histogram {
    /// The number of states reached.
    pub fn reachable(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The largest distance (God's number).
    pub fn gods_number(&self) -> u32 {
        self.0.len().saturating_sub(1) as u32
    }
}

/// Called after each completed level with the histogram so far.
pub type Checkpoint<'a> = dyn FnMut(&[u64]) -> std::io::Result<()> + 'a;

/// Options of [`search_with`]: resuming, checkpointing and stopping.
#[derive(Default)]
pub struct SearchOptions<'a> {
    /// The histogram of the levels the store already holds completely (a resumed
    /// run). Entries of the level after them may be partly written; they are redone.
    pub resume: Option<Vec<u64>>,
    /// Called after every completed level with the histogram so far, e.g. to make
    /// the store durable and record progress. An error stops the search.
    pub checkpoint: Option<&'a mut Checkpoint<'a>>,
    /// Checked between work items: once set, the search stops within the current
    /// level and returns [`EngineError::Interrupted`].
    pub stop: Option<&'a AtomicBool>,
    /// If given, receives the indices (ascending) of the last level when it held at
    /// most [`CAPTURE_LIMIT`] states and the store tells new states apart (bottom-up
    /// levels, or top-down on a store that marks exactly once); left empty otherwise.
    /// With depths mod 3 this is how the antipodes are found.
    pub last_level: Option<&'a mut Vec<u64>>,
}

/// Most states a captured last level may hold.
pub const CAPTURE_LIMIT: usize = 1 << 20;

/// Runs the search from the goal set until a level finds nothing new, filling `store`
/// (which must be fresh: every entry unseen). Runs on the current rayon pool.
///
/// ```
/// use antipode::{engine::{self, Silent}, puzzles::SlidingPuzzle, store::ByteDepths};
/// use antipode::Puzzle;
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let store = ByteDepths::anonymous(eight.index_count()).unwrap();
/// let histogram = engine::search(&eight, &store, &Silent).unwrap();
/// assert_eq!(histogram.gods_number(), 31);
/// assert_eq!(histogram.reachable(), 181_440);
/// ```
pub fn search<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    observer: &dyn Observer,
) -> Result<Histogram, EngineError> {
    search_with(puzzle, store, observer, SearchOptions::default())
}

/// [`search`] with options: resume from completed levels, checkpoint after each level,
/// stop on request.
pub fn search_with<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    observer: &dyn Observer,
    mut options: SearchOptions<'_>,
) -> Result<Histogram, EngineError> {
    let mut bfs = Bfs::new(puzzle, store, observer)?;
    if let Some(flag) = options.stop {
        bfs = bfs.stop_when(flag);
    }
    match options.resume.take().filter(|h| !h.is_empty()) {
        Some(histogram) => bfs.resume(histogram),
        None => {
            bfs.seed();
            if let Some(checkpoint) = options.checkpoint.as_mut() {
                checkpoint(&bfs.histogram).map_err(EngineError::Checkpoint)?;
            }
        }
    }
    bfs.run(options.checkpoint, options.last_level)
}

/// One level about to be computed.
#[derive(Debug, Clone, Copy)]
pub struct LevelPlan {
    /// The frontier's depth; the level finds the states at `depth + 1`.
    pub depth: u32,
    /// States in the frontier.
    pub frontier: u64,
    /// Unseen states of the new level's class (reachable or not).
    pub unseen: u64,
    /// How the level will be computed.
    pub direction: Direction,
    /// The class of the frontier's states and of the new level's.
    source: usize,
    target: usize,
}

/// What running a level found, as far as the direction could tell.
struct LevelOutcome {
    /// The new states, if the direction counted them (bottom-up does).
    found: Option<u64>,
    /// The new states' indices, if captured.
    captured: Option<Vec<u64>>,
}

/// A level-synchronous BFS over one store, from the goal set of one puzzle.
///
/// The three places later extensions plug in: [`Bfs::seed`] (what depth 0 holds),
/// [`Bfs::run_level`] (how a level's work is executed: one process's threads today;
/// a slice of the index space per process, or zero-cost moves closed within the
/// level, would be other executors there), and [`Bfs::count_level`].
pub struct Bfs<'a, P: Puzzle, S: DepthStore> {
    puzzle: &'a P,
    store: &'a S,
    observer: &'a dyn Observer,
    stop: Option<&'a AtomicBool>,
    layout: Layout,
    chunks: ChunkLevels,
    goals: Vec<u64>,
    started: Instant,
    /// States per depth of the completed levels.
    histogram: Vec<u64>,
    /// States reached per class.
    seen: [u64; 2],
    /// The next level must be counted by a full scan (after a resume).
    recount: bool,
    /// The store keeps recent marks (see [`DepthStore::track_recent`]).
    tracks_recent: bool,
    /// Per recent slot ([`Bfs::recent_slot`]): its marks cover exactly the groups its
    /// newest level wrote.
    recent_valid: [bool; 2],
}

impl<'a, P: Puzzle, S: DepthStore> Bfs<'a, P, S> {
    /// A search of `puzzle` into `store`, which must have one entry per index.
    pub fn new(
        puzzle: &'a P,
        store: &'a S,
        observer: &'a dyn Observer,
    ) -> Result<Self, EngineError> {
        if store.len() != puzzle.index_count() {
            return Err(EngineError::SizeMismatch {
                store: store.len(),
                puzzle: puzzle.index_count(),
            });
        }
        let goals = puzzle.goal_indices();
        if goals.is_empty() {
            return Err(EngineError::NoGoal);
        }
        let layout = Layout::new(&puzzle.segments(), &goals);
        // Codes mod p do not tell the frontier from older levels of its class; recent
        // marks do: one generation when each level's writes stay in the other class,
        // two (alternating by level) when levels write where their frontier lies.
        let generations = if layout.bipartite() { 1 } else { 2 };
        let tracks_recent = store.period().is_some() && store.track_recent(generations);
        Ok(Bfs {
            puzzle,
            store,
            observer,
            stop: None,
            layout,
            chunks: ChunkLevels::new(puzzle.index_count()),
            goals,
            started: Instant::now(),
            histogram: Vec::new(),
            seen: [0; 2],
            recount: false,
            tracks_recent,
            recent_valid: [false; 2],
        })
    }

    /// Stops the search between work items once `flag` is set.
    pub fn stop_when(mut self, flag: &'a AtomicBool) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Puts the whole goal set at depth 0 in a fresh store.
    pub fn seed(&mut self) {
        for &goal in &self.goals {
            self.store.set(goal, 0);
            self.chunks.set((goal >> CHUNK_SHIFT) as usize, 0);
            self.seen[self.layout.class_at(goal)] += 1;
        }
        self.histogram = vec![self.goals.len() as u64];
        // A fresh store: no marks but the goals' (class 1 holds nothing yet).
        self.recent_valid = [true; 2];
        self.observer.level_finished(&LevelStats {
            depth: 0,
            new_states: self.goals.len() as u64,
            cumulative: self.goals.len() as u64,
            elapsed: self.started.elapsed(),
            direction: None,
        });
    }

    /// Continues from a store that holds the levels of `histogram` completely (and
    /// maybe part of the next one, which is redone and counted by a full scan).
    pub fn resume(&mut self, histogram: Vec<u64>) {
        for (d, &count) in histogram.iter().enumerate() {
            self.seen[self.layout.class_of(d as u32)] += count;
        }
        // Where the last level lies is unknown: every chunk may hold it.
        self.chunks.set_all(histogram.len() as u32 - 1);
        self.recount = histogram.len() > 1;
        self.histogram = histogram;
    }

    /// Runs levels until one finds nothing new; `checkpoint` is called after each.
    pub fn run(
        mut self,
        mut checkpoint: Option<&mut Checkpoint<'_>>,
        mut last_level: Option<&mut Vec<u64>>,
    ) -> Result<Histogram, EngineError> {
        while let Some(plan) = self.plan()? {
            self.observer.level_started(
                plan.depth + 1,
                plan.direction,
                self.items_for(&plan).len() as u64,
            );
            let outcome = self.run_level(&plan, last_level.is_some());
            if self.tracks_recent {
                self.recent_valid[self.recent_slot(plan.depth + 1)] = true;
            }
            if self.stopped() {
                return Err(EngineError::Interrupted {
                    histogram: self.histogram,
                });
            }
            // A level redone after a resume found only what the interrupted run had
            // not marked yet: its count and its indices come from a scan.
            let (found, captured) = match outcome.found.filter(|_| !self.recount) {
                Some(found) => (found, outcome.captured),
                None => (self.count_level(&plan), None),
            };
            self.recount = false;
            if found == 0 {
                break;
            }
            if let Some(last) = last_level.as_mut() {
                **last = captured.unwrap_or_default();
            }
            self.seen[plan.target] += found;
            self.histogram.push(found);
            if let Some(checkpoint) = checkpoint.as_mut() {
                checkpoint(&self.histogram).map_err(EngineError::Checkpoint)?;
            }
            self.observer.level_finished(&LevelStats {
                depth: plan.depth + 1,
                new_states: found,
                cumulative: self.seen[0] + self.seen[1],
                elapsed: self.started.elapsed(),
                direction: Some(plan.direction),
            });
        }
        Ok(Histogram(self.histogram))
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The next level, or `None` when every state of its class has been reached.
    fn plan(&self) -> Result<Option<LevelPlan>, EngineError> {
        let depth = self.histogram.len() as u32 - 1;
        if depth + 1 > self.store.max_depth() {
            return Err(EngineError::DepthOverflow {
                depth: depth + 1,
                max: self.store.max_depth(),
            });
        }
        let (source, target) = (self.layout.class_of(depth), self.layout.class_of(depth + 1));
        let frontier = self.histogram[depth as usize];
        let unseen = self.layout.class_size[target] - self.seen[target];
        if unseen == 0 {
            return Ok(None);
        }
        let candidates = self.frontier_candidates(depth);
        Ok(Some(LevelPlan {
            depth,
            frontier,
            unseen,
            direction: Self::choose_direction(candidates, unseen),
            source,
            target,
        }))
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

    /// Whether a top-down level from `depth` finds exactly its frontier: codes are
    /// exact, or recent marks separate the frontier from older levels of its code.
    fn frontier_is_exact(&self, depth: u32) -> bool {
        self.store.period().is_none()
            || (self.tracks_recent && self.recent_valid[self.recent_slot(depth)])
    }

    /// How many states a top-down level from `depth` would expand: the frontier, or
    /// with codes mod p and no recent marks, every level of the class with its code.
    fn frontier_candidates(&self, depth: u32) -> u64 {
        let source = self.layout.class_of(depth);
        match self.store.period() {
            Some(p) if !self.frontier_is_exact(depth) => (0..=depth)
                .filter(|&d| d % p == depth % p && self.layout.class_of(d) == source)
                .map(|d| self.histogram[d as usize])
                .sum(),
            _ => self.histogram[depth as usize],
        }
    }

    /// Top-down while the states a top-down level would expand (the frontier, plus
    /// older levels a store cannot tell from it) are fewer than the unseen states of
    /// the new level's class, bottom-up after: each direction expands that many states.
    pub fn choose_direction(frontier: u64, unseen: u64) -> Direction {
        if frontier > unseen {
            Direction::BottomUp
        } else {
            Direction::TopDown
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

    /// Computes one level on the current rayon pool.
    fn run_level(&self, plan: &LevelPlan, capture: bool) -> LevelOutcome {
        if self.tracks_recent {
            // The marks this level writes to were set by the previous level of its slot
            // (depth - 1: the target class's, or the same parity's) and only where that
            // level wrote: chunks last written then or later.
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
            self.store.write_recent_to(generation);
        }
        let ctx = LevelContext {
            puzzle: self.puzzle,
            store: self.store,
            observer: self.observer,
            stop: self.stop,
            items: self.items_for(plan),
            chunks: &self.chunks,
            depth: plan.depth,
            bipartite: self.layout.bipartite(),
            recent: (self.tracks_recent && self.recent_valid[self.recent_slot(plan.depth)])
                .then(|| self.recent_generation(plan.depth)),
        };
        match plan.direction {
            Direction::BottomUp => {
                let (found, captured) = levels::bottom_up(&ctx, capture);
                LevelOutcome {
                    found: Some(found),
                    captured,
                }
            }
            Direction::TopDown => {
                // A dense frontier touches every chunk anyway: skip the per-write
                // bookkeeping and mark the new level's chunks afterwards.
                let dense = plan.frontier * DENSE_FRACTION > self.layout.class_size[plan.source];
                let (found, captured) = levels::top_down(&ctx, !dense, capture);
                if dense {
                    for item in self.layout.items.iter().filter(|i| i.class == plan.target) {
                        self.chunks.set(item.chunk, plan.depth + 1);
                    }
                }
                LevelOutcome { found, captured }
            }
        }
    }

    /// The number of states at the new depth, by scanning the chunks of its class:
    /// only those written at this level when the store is exact, all of them when it
    /// stores depths mod p (then the earlier levels with the same residue and class
    /// are subtracted).
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
        let raw = unsafe { levels::count_matching(self.store, &items, Wanted::Depth(next)) };
        match self.store.period() {
            None => raw,
            Some(p) => {
                let earlier: u64 = (0..next)
                    .filter(|&d| d % p == next % p && self.layout.class_of(d) == plan.target)
                    .map(|d| self.histogram[d as usize])
                    .sum();
                raw - earlier
            }
        }
    }
}
