//! Level-synchronous breadth-first search from the goal over a [`DepthStore`].
//!
//! The engine knows levels, storage and threads, nothing about any particular puzzle:
//! it hands the puzzle ascending runs of indices ([`Puzzle::expand_sorted`]) and reads
//! or writes the neighbours it gets back.
//!
//! Each level runs in one of two directions (direction-optimizing BFS, Beamer et al.
//! 2012): **top-down** expands the frontier and marks its unseen neighbours; once the
//! frontier outgrows the unseen states of the next level's colour, **bottom-up** scans
//! those unseen states instead and keeps the ones that have a neighbour in the frontier
//! (a puzzle whose neighbours are costly, classes, weighs its frontier by
//! [`Puzzle::bottom_up_gain`]: a question stops at its first hit).
//! Work is split into chunks of `2^CHUNK_SHIFT` indices that run in parallel on rayon's
//! pool. Per chunk the engine remembers the last level written into it, so sparse early
//! levels only visit the chunks that hold frontier states.
//!
//! A top-down level that a scan counts afterwards (over the byte store, or a dense
//! level over depths mod 3, below) marks in two steps. The scan that finds a work
//! item's frontier also marks the puzzle's *translated* neighbours
//! ([`Puzzle::translations`]: on a sliding board the blank's sideways moves, which add
//! one block to the index), 64 at a time in the byte store, 256 in the packed one (a
//! locked OR per 32-entry word; [`DepthStore::collect_translating_exclusive`]); the
//! rest of the expansion
//! ([`Puzzle::expand_untranslated_fold`]) marks each neighbour at once or prefetched a
//! few dozen neighbours ahead, whichever each thread times faster on the first work
//! items of each segment of the level (`marking`).
//!
//! Over depths mod 3 ([`crate::store::PackedDepths`]) a frontier scan would also find
//! every older level of the frontier's code; *recent marks*, one bit per group of four
//! entries, tell it which groups the newest level wrote (their protocol has one owner,
//! `recent`, which both executors hold). Sparse levels mark as they write, and count
//! their new states as they write (the first writer of an entry knows). A dense
//! top-down level marks ahead, in one pass over what it may write, the groups that
//! hold an unseen entry, so that its writes mark nothing or few
//! ([`crate::store::PackedMarks::mark_recent_ahead`]); it then marks as the byte store
//! does, uncounted ([`DepthStore::mark_unseen`]: a field test and, where unseen, a
//! locked OR of the entry's 64-bit word), and translates. On a pool of one thread the
//! level is the only writer, and each mark reads and writes its word back without a
//! branch ([`crate::store::PackedMarks::mark_unseen_alone`]). On more, where the
//! puzzle's moves keep to lanes ([`Puzzle::lane`]: a sliding board's blank columns),
//! each lane goes to one thread at a time, the even lanes and then the odd ones, and
//! that thread marks the same way (`lanes`).
//!
//! Which of these a level does is decided once per level, in one place: `strategy`
//! (its module doc is the decision table, condition -> strategy -> why), and
//! `levels::top_down` and `levels::bottom_up` dispatch on the value it returns.
//!
//! A search is a [`Bfs`] value, one build of the level-loop driver ([`crate::driver`],
//! which owns stopping, progress and checkpoints): it starts from the whole goal set at
//! depth 0 (a multi-source BFS) or from the levels a table file already holds
//! ([`Bfs::resume`]), and each level is planned (a [`LevelPlan`]: depth, direction,
//! classes), run and counted.
//!
//! ## Executors
//!
//! The level loop does no work on the store itself: it hands every plan to an
//! [`Executor`], which owns the indices it covers, runs the level over them, counts it
//! and combines its counts with those of the other executors of the search. [`Threads`]
//! is the executor of one process: every index, its work items on rayon's pool, and
//! per chunk the last level written there.
//!
//! [`Partitioned`] is the executor of one rank of several (MPI processes, or threads
//! in tests): it holds only its slice `[start, end)` of the indices ([`Slices`]: the
//! owner of an index is a formula every rank knows) and changes the two places where a
//! level touches an entry it may not hold:
//!
//! - **marking a neighbour** (top-down): a neighbour outside the slice is not marked
//!   but appended to the outgoing batch of its owner; after every batch of frontier
//!   states ([`batch_states`]) all ranks exchange their batches
//!   ([`Transport::exchange`]) and mark what they receive in their own slices. The
//!   level ends with the first round in which no rank had frontier left;
//!   [`Executor::combine`] then sums the new states (an all-reduce).
//! - **asking whether a neighbour is in the frontier** (bottom-up): every rank sets
//!   its frontier's bits in one bit per index and the ranks share their parts
//!   ([`Transport::share`]) before the level; each looks its unseen states'
//!   neighbours up there. Where that bit set would take more
//!   than half the memory of a slice's own entries, levels run top-down throughout
//!   ([`Executor::top_down_only`]).
//!
//! The transports are [`InProcessRanks`] (threads at a barrier: `cargo test` runs the
//! partitioned search without MPI) and, with the `mpi` cargo feature, `mpi::Mpi`
//! (rsmpi over the system's MPI library); [`crate::analysis::analyze_partitioned`]
//! runs one rank's part and returns the same report on every rank.
//!
//! Everything else (the plan, the direction rule, the histogram) is computed
//! identically by every executor from the combined counts, so all of them take the
//! same decisions level after level. The table of a partitioned search is one
//! ordinary file per slice, the header recording the index range a file covers
//! ([`crate::table::Header::index_range`]), and a manifest naming them
//! ([`crate::table::shards`]); its checkpoints are collective
//! ([`crate::table::build_sharded`]).
//!
//! Indices that are legal states but never reached (other components of the state
//! graph) stay unseen. They cost nothing on top-down levels, which only visit the
//! frontier; a bottom-up level scans every unseen state, reachable or not, so the
//! direction rule compares the frontier with all unseen states (exactly what a
//! bottom-up level would expand). The test `sparse_reachability` in
//! `tests/it/figures.rs` measures a space where 15/16 of the indices are unreachable.

mod buckets;
mod disk_blocks;
mod finished;
mod lanes;
mod layout;
mod levels;
mod marking;
mod on_disk;
mod partitioned;
mod recent;
mod slices;
mod strategy;
mod threads;
mod transport;

use crate::driver::{self, Control, Interrupted, Next, Start};
pub use crate::driver::{BlockStep, Direction, LevelStats, Observer, Silent};

use crate::puzzle::Puzzle;
use crate::store::DepthStore;
pub use buckets::BucketError;
pub use finished::Finished;
pub use layout::CHUNK_SHIFT;
pub use on_disk::{OnDisk, Residency, Traffic};
pub use partitioned::{BATCH_STATES, MIN_BATCH_STATES, Partitioned, WORD_BYTES, batch_states};
pub use slices::Slices;
pub use strategy::Capture;
pub use threads::Threads;
pub use transport::{Alone, InProcess, InProcessRanks, Transport};

/// Why a search stopped early.
///
/// ```
/// use antipode::engine::{self, EngineError};
/// use antipode::{driver::Control, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// // A store of the wrong size is refused before anything runs.
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = ByteDepths::anonymous(10).unwrap();
/// let refused = engine::search(&board, &store, &Control::default());
/// assert!(matches!(refused, Err(EngineError::SizeMismatch { store: 10, puzzle: 360 })));
/// ```
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
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// The checkpoint callback failed.
    #[error("cannot record progress: {0}")]
    Checkpoint(std::io::Error),
    /// The puzzle has no goal state.
    #[error("the puzzle has no goal state")]
    NoGoal,
    /// The neighbours a level on disk keeps for other blocks ([`OnDisk`]); the table
    /// keeps its last checkpoint.
    #[error(
        "a level on disk failed: {0}; the table keeps its last checkpoint (run the same \
         command again to resume from it)"
    )]
    Buckets(BucketError),
    /// The store and the puzzle disagree on the number of indices.
    #[error("the depth store has {store} entries but the puzzle has {puzzle} indices")]
    SizeMismatch {
        /// Entries in the store.
        store: u64,
        /// Indices of the puzzle.
        puzzle: u64,
    },
}

impl From<BucketError> for EngineError {
    fn from(error: BucketError) -> EngineError {
        EngineError::Buckets(error)
    }
}

/// The result of a complete search: `histogram[d]` states at distance `d` from the goal.
///
/// ```
/// use antipode::engine::Histogram;
///
/// let histogram = Histogram(vec![1, 2, 3, 1]);
/// assert_eq!((histogram.reachable(), histogram.gods_number()), (7, 3));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram(pub Vec<u64>);

impl Histogram {
    /// The number of states reached.
    #[must_use]
    pub fn reachable(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The largest distance (God's number).
    #[must_use]
    pub fn gods_number(&self) -> u32 {
        self.0.len().saturating_sub(1) as u32
    }
}

/// Most states a captured last level may hold.
pub const CAPTURE_LIMIT: usize = 1 << 20;

/// Runs the search from the goal set until a level finds nothing new, filling `store`
/// (which must be fresh: every entry unseen). Runs on the current rayon pool; progress
/// goes to `control`'s observer, and its stop token ends the search within a level.
///
/// # Errors
/// [`EngineError`] if the store does not fit the puzzle, the puzzle has no goal, or a
/// depth exceeds the store's encoding; [`EngineError::Interrupted`] on a stop.
///
/// ```
/// use antipode::{driver::Control, engine::{self, EngineError}, puzzles::SlidingPuzzle};
/// use antipode::{Puzzle, store::ByteDepths};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let store = ByteDepths::anonymous(eight.index_count()).unwrap();
/// let histogram = engine::search(&eight, &store, &Control::default()).unwrap();
/// assert_eq!(histogram.gods_number(), 31);
/// assert_eq!(histogram.reachable(), 181_440);
///
/// // A stop requested before the start: the search ends after the goal's level.
/// let stop = antipode::StopToken::new();
/// stop.stop();
/// let fresh = ByteDepths::anonymous(eight.index_count()).unwrap();
/// let stopped = engine::search(&eight, &fresh, &Control { stop: Some(&stop), ..Control::default() });
/// assert!(matches!(stopped, Err(EngineError::Interrupted { .. })));
/// ```
pub fn search<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    control: &Control<'_>,
) -> Result<Histogram, EngineError> {
    Bfs::new(puzzle, store)?.run(control)
}

/// One level about to be computed.
///
/// ```
/// use antipode::engine::{Direction, LevelPlan};
///
/// // The plan of the level that finds the states at depth 5 from a frontier at depth 4.
/// let plan = LevelPlan { depth: 4, frontier: 12, unseen: 300, direction: Direction::TopDown, source: 0, target: 1 };
/// assert_eq!(plan.depth + 1, 5);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LevelPlan {
    /// The frontier's depth; the level finds the states at `depth + 1`.
    pub depth: u32,
    /// States in the frontier (over every executor).
    pub frontier: u64,
    /// Unseen states of the new level's class (reachable or not).
    pub unseen: u64,
    /// How the level will be computed.
    pub direction: Direction,
    /// The class of the frontier's states.
    pub source: usize,
    /// The class of the new level's states.
    pub target: usize,
}

/// What running a level found on one executor, as far as the direction could tell.
///
/// ```
/// use antipode::engine::LevelOutcome;
///
/// // A top-down level on a store that cannot tell new marks apart counts nothing itself.
/// let outcome = LevelOutcome::default();
/// assert_eq!((outcome.found, outcome.captured), (None, None));
/// ```
#[derive(Debug, Default)]
pub struct LevelOutcome {
    /// The new states among the executor's indices, if the direction counted them
    /// (bottom-up does; top-down does on stores that mark exactly once).
    pub found: Option<u64>,
    /// The new states' indices (ascending), if captured.
    pub captured: Option<Vec<u64>>,
}

/// The work of a level, as the level loop ([`Bfs::run`]) sees it: which indices an
/// executor covers, running a planned level over them, counting it, and combining
/// counts with the other executors of the same search. See the module docs for how
/// an executor that owns only part of the indices would implement it.
///
/// Every executor of a search is called with the same plans in the same order, and
/// answers the questions about classes, periods and exactness alike.
///
/// ```
/// use antipode::engine::{Bfs, Executor, Threads};
/// use antipode::{Puzzle, driver::Control, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = ByteDepths::anonymous(board.index_count()).unwrap();
/// let threads = Threads::new(&board, &store, board.goal_indices());
/// assert_eq!(threads.indices(), 0..360);
/// let bfs = Bfs::with_executor(Box::new(threads));
/// assert_eq!(bfs.run(&Control::default()).unwrap().gods_number(), 21);
/// ```
pub trait Executor {
    /// The indices whose entries this executor holds and computes (all of them for
    /// one process).
    fn indices(&self) -> std::ops::Range<u64>;
    /// The colour class (0 or 1) of the states at `depth`.
    fn class_of(&self, depth: u32) -> usize;
    /// States per class over the whole index space (less the indices the puzzle
    /// never reaches, [`Puzzle::never_reached`]).
    fn class_sizes(&self) -> [u64; 2];
    /// The indices the puzzle never reaches that a bottom-up level still scans at a
    /// cost ([`Puzzle::never_reached_unchecked`]).
    fn never_reached_unchecked(&self) -> u64 {
        0
    }
    /// The puzzle's [`crate::Puzzle::bottom_up_gain`].
    fn bottom_up_gain(&self) -> u64 {
        1
    }
    /// What a bottom-up level costs per unseen state, in expansions of a frontier
    /// state, as `(numerator, denominator)`: one where every neighbour is looked up
    /// at once; more where a neighbour held elsewhere is a question, whose answer may
    /// cost an expansion of its own.
    fn bottom_up_cost(&self) -> (u64, u64) {
        (1, 1)
    }
    /// The largest depth the store can record.
    fn max_depth(&self) -> u32;
    /// `Some(p)` if the store records depths mod `p`, `None` if exactly.
    fn period(&self) -> Option<u32>;
    /// Puts the goals it owns at depth 0 in a fresh store; returns how many over
    /// every executor.
    fn seed(&mut self) -> u64;
    /// The store holds `levels` complete levels and maybe part of the next, written
    /// anywhere in its class by the interrupted run: the level that redoes it must
    /// not assume its states lie only where it writes itself (tests/it/tables.rs,
    /// `a_level_stopped_half_way_is_redone_whole`).
    fn resume(&mut self, levels: usize);
    /// Whether every level must run top-down (an executor that cannot answer
    /// "is this neighbour in the frontier?" for neighbours it does not hold).
    fn top_down_only(&self) -> bool {
        false
    }
    /// Whether a top-down level from `depth` would expand exactly its frontier (codes
    /// are exact, or recent marks tell the frontier from older levels of its code).
    fn frontier_is_exact(&self, depth: u32) -> bool;
    /// How many units of work (calls of [`Observer::work_done`]) the level will take.
    fn work_units(&self, plan: &LevelPlan) -> u64;
    /// Computes the level over this executor's indices, telling `control`'s observer
    /// of its work and stopping between work items once `control` is stopped.
    ///
    /// # Errors
    /// What keeps the level from being computed (an executor on disk: its buckets).
    fn run_level(
        &mut self,
        plan: &LevelPlan,
        capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError>;
    /// The entries of this executor's indices that hold the new level's code, counted
    /// by a scan (with codes mod p, older levels of that code are included).
    fn count_level(&self, plan: &LevelPlan) -> u64;
    /// The sum of `local` over every executor of the search (one process: itself).
    fn combine(&self, local: u64) -> u64 {
        local
    }
}

/// An executor lent to a search, so that its owner can ask it more afterwards.
impl<E: Executor + ?Sized> Executor for &mut E {
    fn indices(&self) -> std::ops::Range<u64> {
        (**self).indices()
    }
    fn class_of(&self, depth: u32) -> usize {
        (**self).class_of(depth)
    }
    fn class_sizes(&self) -> [u64; 2] {
        (**self).class_sizes()
    }
    fn never_reached_unchecked(&self) -> u64 {
        (**self).never_reached_unchecked()
    }
    fn bottom_up_gain(&self) -> u64 {
        (**self).bottom_up_gain()
    }
    fn bottom_up_cost(&self) -> (u64, u64) {
        (**self).bottom_up_cost()
    }
    fn max_depth(&self) -> u32 {
        (**self).max_depth()
    }
    fn period(&self) -> Option<u32> {
        (**self).period()
    }
    fn seed(&mut self) -> u64 {
        (**self).seed()
    }
    fn resume(&mut self, levels: usize) {
        (**self).resume(levels)
    }
    fn top_down_only(&self) -> bool {
        (**self).top_down_only()
    }
    fn frontier_is_exact(&self, depth: u32) -> bool {
        (**self).frontier_is_exact(depth)
    }
    fn work_units(&self, plan: &LevelPlan) -> u64 {
        (**self).work_units(plan)
    }
    fn run_level(
        &mut self,
        plan: &LevelPlan,
        capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError> {
        (**self).run_level(plan, capture, control)
    }
    fn count_level(&self, plan: &LevelPlan) -> u64 {
        (**self).count_level(plan)
    }
    fn combine(&self, local: u64) -> u64 {
        (**self).combine(local)
    }
}

/// A level-synchronous BFS from the goal set of one puzzle, whose levels an
/// [`Executor`] computes: one build of the level-loop driver ([`driver::Levels`]),
/// run by [`Bfs::run`] or, with checkpoints, by a table build.
///
/// The places later extensions plug in: the executor's seed (what depth 0 holds), the
/// executor (how a level's work is done: [`Threads`] on one process's cores,
/// [`Partitioned`] one rank's slice), and [`Bfs::choose_direction`].
///
/// ```
/// use antipode::{driver::Control, engine::Bfs};
/// use antipode::{Puzzle, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let store = ByteDepths::anonymous(board.index_count()).unwrap();
/// let bfs = Bfs::new(&board, &store).unwrap();
/// let histogram = bfs.run(&Control::default()).unwrap();
/// assert_eq!((histogram.reachable(), histogram.gods_number()), (360, 21));
/// ```
pub struct Bfs<'a> {
    executor: Box<dyn Executor + 'a>,
    /// States per depth of the completed levels.
    histogram: Vec<u64>,
    /// States reached per class.
    seen: [u64; 2],
    /// The next level must be counted by a full scan (after a resume).
    recount: bool,
    /// The indices of the last level found, when asked for.
    last_level: Option<Vec<u64>>,
}

impl<'a> Bfs<'a> {
    /// A search of `puzzle` into `store` (one entry per index) on this process's
    /// threads.
    ///
    /// # Errors
    /// [`EngineError::SizeMismatch`] if the store and the puzzle differ in size,
    /// [`EngineError::NoGoal`] if the puzzle has no goal.
    pub fn new<P: Puzzle, S: DepthStore>(puzzle: &'a P, store: &'a S) -> Result<Self, EngineError> {
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
        let executor = Threads::new(puzzle, store, goals);
        Ok(Self::with_executor(Box::new(executor)))
    }

    /// A search whose levels `executor` computes.
    #[must_use]
    pub fn with_executor(executor: Box<dyn Executor + 'a>) -> Self {
        Bfs {
            executor,
            histogram: Vec::new(),
            seen: [0; 2],
            recount: false,
            last_level: None,
        }
    }

    /// Continues from a store that holds the levels of `histogram` completely (and
    /// maybe part of the next one, which is redone and counted by a full scan, even
    /// when only the goal level is complete: an interrupted level 1 is saved too).
    /// An empty histogram leaves a fresh search, which starts from the goal set.
    pub fn resume(&mut self, histogram: Vec<u64>) {
        if histogram.is_empty() {
            return;
        }
        for (d, &count) in histogram.iter().enumerate() {
            self.seen[self.executor.class_of(d as u32)] += count;
        }
        self.executor.resume(histogram.len());
        self.recount = true;
        self.histogram = histogram;
    }

    /// Asks for the indices of the last level ([`Bfs::take_last_level`]).
    pub fn capture_last_level(&mut self) {
        self.last_level = Some(Vec::new());
    }

    /// The indices (ascending) of the last level found, if asked for with
    /// [`Bfs::capture_last_level`]; empty unless that level held at most
    /// [`CAPTURE_LIMIT`] states and the store told them apart (bottom-up levels, or
    /// top-down on a store that marks exactly once).
    pub fn take_last_level(&mut self) -> Option<Vec<u64>> {
        self.last_level.take()
    }

    /// Runs levels until one finds nothing new, through the level-loop driver, which
    /// hands `control` (progress, stop) to every level.
    ///
    /// # Errors
    /// [`EngineError::Interrupted`] once the stop token is set; a depth the store
    /// cannot record.
    pub fn run(mut self, control: &Control<'_>) -> Result<Histogram, EngineError> {
        driver::run(&mut self, control).map(Histogram)
    }

    /// The next level, or `None` when every state of its class has been reached.
    fn plan(&self) -> Result<Option<LevelPlan>, EngineError> {
        let depth = self.histogram.len() as u32 - 1;
        let max = self.executor.max_depth();
        if depth + 1 > max {
            return Err(EngineError::DepthOverflow {
                depth: depth + 1,
                max,
            });
        }
        let (source, target) = (
            self.executor.class_of(depth),
            self.executor.class_of(depth + 1),
        );
        let frontier = self.histogram[depth as usize];
        let unseen = self.executor.class_sizes()[target] - self.seen[target];
        if unseen == 0 {
            return Ok(None);
        }
        let candidates = self.frontier_candidates(depth);
        let (cost, per) = self.executor.bottom_up_cost();
        let weighted = u128::from(unseen) * u128::from(cost) / u128::from(per.max(1));
        Ok(Some(LevelPlan {
            depth,
            frontier,
            unseen,
            direction: if self.executor.top_down_only() {
                Direction::TopDown
            } else {
                Self::choose_direction(
                    candidates.saturating_mul(self.executor.bottom_up_gain()),
                    u64::try_from(weighted).unwrap_or(u64::MAX),
                    unseen + self.executor.never_reached_unchecked(),
                )
            },
            source,
            target,
        }))
    }

    /// How many states a top-down level from `depth` would expand: the frontier, or
    /// with codes mod p and no recent marks, every level of the class with its code.
    fn frontier_candidates(&self, depth: u32) -> u64 {
        let source = self.executor.class_of(depth);
        match self.executor.period() {
            Some(p) if !self.executor.frontier_is_exact(depth) => (0..=depth)
                .filter(|&d| d % p == depth % p && self.executor.class_of(d) == source)
                .map(|d| self.histogram[d as usize])
                .sum(),
            _ => self.histogram[depth as usize],
        }
    }

    /// Top-down while the states a top-down level would expand (the frontier, plus
    /// older levels a store cannot tell from it, times the puzzle's
    /// [`Puzzle::bottom_up_gain`]) are fewer than the unseen states of the new level's
    /// class (times what each costs bottom-up, [`Executor::bottom_up_cost`]),
    /// bottom-up after: each direction expands that many states.
    /// A bottom-up level also scans the indices the puzzle never reaches (`scanned`
    /// counts them with the unseen states, less those the puzzle already remembers,
    /// [`Puzzle::never_reached_unchecked`]); checking one costs about a quarter of an
    /// expansion, so they must not outweigh the frontier either.
    #[must_use]
    pub fn choose_direction(frontier: u64, unseen: u64, scanned: u64) -> Direction {
        if frontier > unseen && frontier.saturating_mul(4) > scanned {
            Direction::BottomUp
        } else {
            Direction::TopDown
        }
    }

    /// The number of states at the new depth, by scanning: the executors' counts of
    /// the new level's code, less (with codes mod p) the earlier levels with the same
    /// residue and class.
    fn count_level(&self, plan: &LevelPlan) -> u64 {
        let next = plan.depth + 1;
        let raw = self.executor.combine(self.executor.count_level(plan));
        match self.executor.period() {
            None => raw,
            Some(p) => {
                let earlier: u64 = (0..next)
                    .filter(|&d| d % p == next % p && self.executor.class_of(d) == plan.target)
                    .map(|d| self.histogram[d as usize])
                    .sum();
                raw - earlier
            }
        }
    }
}

/// The engine's search as a build of the level-loop driver: it seeds the goal set
/// (or goes on from the levels [`Bfs::resume`] was given) and computes one level per
/// call; it saves nothing itself (a table build around it does).
impl driver::Levels for Bfs<'_> {
    type Error = EngineError;

    fn start(&mut self, _: &Control<'_>) -> Result<Start, EngineError> {
        if !self.histogram.is_empty() {
            return Ok(Start::resumed(self.histogram.clone()));
        }
        let goals = self.executor.seed();
        self.seen[self.executor.class_of(0)] += goals;
        self.histogram = vec![goals];
        Ok(Start::fresh(goals))
    }

    fn next_level(&mut self, control: &Control<'_>) -> Result<Next, EngineError> {
        let Some(plan) = self.plan()? else {
            return Ok(Next::Done);
        };
        control.observer.level_started(
            plan.depth + 1,
            plan.direction,
            self.executor.work_units(&plan),
        );
        let outcome = self.executor.run_level(
            &plan,
            if self.last_level.is_some() {
                Capture::Kept
            } else {
                Capture::NotKept
            },
            control,
        )?;
        if control.stopped() {
            return Ok(Next::Stopped);
        }
        // A level redone after a resume found only what the interrupted run had
        // not marked yet: its count and its indices come from a scan.
        let (found, captured) = match outcome.found.filter(|_| !self.recount) {
            Some(found) => (self.executor.combine(found), outcome.captured),
            None => (self.count_level(&plan), None),
        };
        self.recount = false;
        if found == 0 {
            return Ok(Next::Done);
        }
        if let Some(last) = self.last_level.as_mut() {
            *last = captured.unwrap_or_default();
        }
        self.seen[plan.target] += found;
        self.histogram.push(found);
        Ok(Next::Level {
            states: found,
            direction: Some(plan.direction),
        })
    }
}
