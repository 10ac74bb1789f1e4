//! The boards of a peg solitaire board level by level, one level per jump: each level
//! is a bit set over the boards with its number of pegs, in the order of their ranks
//! ([`SubsetRanker`]). Forward from the start the levels are the reachable boards;
//! backward from the goal (reversed jumps) they are the boards that can still reach it.
//!
//! A level is expanded in parallel: tasks take runs of high halves of the boards
//! ([`Halves`]: each high half is a run of consecutive ranks), turn each set bit back
//! into a board by one table lookup, and mark the boards one jump away in the next
//! level (ranked by two lookups) with an atomic OR, after a plain load has shown the
//! bit clear (most children are found more than once). Two levels are in memory at a
//! time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::checkpoint::{PegCheckpoint, Progress};
use super::level_set::LevelSet;
use crate::driver::{self, Control, Next, Start};
use crate::puzzles::peg::symmetry::Symmetries;
use crate::puzzles::peg::{PegBoard, PegError, two_levels_bytes};
use crate::rank::halves::Halves;
use crate::rank::subsets::SubsetRanker;

/// Which way a level is expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// By jumps: the next level has one peg fewer.
    Forward,
    /// By reversed jumps: the next level has one peg more.
    Backward,
}

/// The boards one jump (or one reversed jump) from the boards of `level`.
#[must_use]
pub fn expand(
    board: &PegBoard,
    ranker: &SubsetRanker,
    halves: &Halves,
    level: &LevelSet,
    direction: Direction,
) -> LevelSet {
    let pegs = match direction {
        Direction::Forward => level.pegs() - 1,
        Direction::Backward => level.pegs() + 1,
    };
    let next = LevelSet::empty(ranker, pegs);
    let bases = halves.bases(pegs);
    level.for_each_board(
        halves,
        || (),
        |_, b| match direction {
            Direction::Forward => {
                board.for_each_jump(b, |child| next.insert(halves.rank(&bases, child)))
            }
            Direction::Backward => {
                board.for_each_unjump(b, |parent| next.insert(halves.rank(&bases, parent)))
            }
        },
    );
    next
}

/// Per peg count, the boards of a search: what pruning looks boards up in.
#[derive(Debug)]
pub struct BoardSets {
    ranker: SubsetRanker,
    /// `levels[p]`: the boards with `p` pegs, if that level was computed.
    levels: Vec<Option<LevelSet>>,
}

impl BoardSets {
    /// Whether `board` is in its level (false for a level not computed).
    #[inline]
    #[must_use]
    pub fn contains(&self, board: u64) -> bool {
        match &self.levels[board.count_ones() as usize] {
            Some(level) => level.has(self.ranker.rank(board)),
            None => false,
        }
    }
}

impl super::moves::SolvableBoards for BoardSets {
    fn can_reach_goal(&self, board: u64) -> bool {
        self.contains(board)
    }
}

/// The most holes a board searched level by level may have ([`Halves`]' tables).
pub const MAX_SEARCH_HOLES: usize = 48;

/// Refuses a search whose bit sets (`bytes`) would not fit in memory, or whose board
/// has more holes than the rank tables take.
pub(super) fn check_memory(board: &PegBoard, bytes: u64, what: &str) -> Result<(), PegError> {
    if board.holes() > MAX_SEARCH_HOLES {
        return Err(PegError::TooLarge(format!(
            "{}: {what} is for boards of at most {MAX_SEARCH_HOLES} holes, not {}",
            board.name(),
            board.holes()
        )));
    }
    if let Some(available) = crate::sys::available_memory_bytes()
        && bytes > available
    {
        return Err(PegError::TooLarge(format!(
            "{}: {what} needs {:.1} GiB of bit sets; this process can have {:.1} GiB",
            board.name(),
            bytes as f64 / (1u64 << 30) as f64,
            available as f64 / (1u64 << 30) as f64
        )));
    }
    Ok(())
}

/// The boards from which the goal can be reached, for every peg count from the goal's
/// up to `up_to_pegs`: backward from the goal boards by reversed jumps, all levels
/// kept. `control.stop` ends the search early ([`PegError::Interrupted`]);
/// `control.observer` hears of the work as one level of boards (every board of each
/// peg count above the goal's, `work_done` as each is done) and of every level found.
///
/// # Errors
/// [`PegError::TooLarge`] if the level sets would not fit in memory;
/// [`PegError::Interrupted`] on a stop.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::puzzles::peg::PegBoard;
/// use antipode::solvers::peg::levels;
///
/// let hoppers = PegBoard::shipped("hoppers").unwrap();
/// let sets = levels::solvable_sets(&hoppers, 12, &Control::default()).unwrap();
/// assert!(sets.contains(hoppers.start()));
/// ```
pub fn solvable_sets(
    board: &PegBoard,
    up_to_pegs: u32,
    control: &Control<'_>,
) -> Result<BoardSets, PegError> {
    let ranker = SubsetRanker::new(board.holes());
    let low = board.goal_pegs();
    let bytes: u64 = (low..=up_to_pegs.max(low))
        .map(|p| ranker.count(p as usize).div_ceil(64) * 8)
        .sum();
    check_memory(board, bytes, "finding the boards that can still be solved")?;
    let first = goal_level(board, &ranker);
    let start = Start::fresh(first.count());
    let nothing_more = |_: &LevelSet| Ok::<(), PegError>(());
    let mut backward = Backward::new(board, &ranker, first, start, up_to_pegs, nothing_more);
    backward.keep_all = true;
    driver::run(&mut backward, control)?;
    let mut levels: Vec<Option<LevelSet>> = (0..=board.holes()).map(|_| None).collect();
    for level in backward.levels {
        let pegs = level.pegs() as usize;
        levels[pegs] = Some(level);
    }
    Ok(BoardSets { ranker, levels })
}

/// The goal boards, as a level.
pub(super) fn goal_level(board: &PegBoard, ranker: &SubsetRanker) -> LevelSet {
    let first = LevelSet::empty(ranker, board.goal_pegs());
    for goal in board.goal_boards() {
        first.insert(ranker.rank(goal));
    }
    first
}

/// The backward sweep from the goal boards by reversed jumps, as a build of the
/// level-loop driver: each level is handed to `found` as it is found (the table
/// build writes it to its file) and kept in memory if `keep_all` (the solver's
/// pruning), else only until the next one.
pub(super) struct Backward<'a, F> {
    board: &'a PegBoard,
    ranker: &'a SubsetRanker,
    halves: Halves,
    /// The levels kept, the last one found last.
    pub(super) levels: Vec<LevelSet>,
    pub(super) keep_all: bool,
    start: Option<Start>,
    up_to_pegs: u32,
    found: F,
}

impl<'a, F> Backward<'a, F> {
    /// A sweep from `first` (the goal boards, or the last level of a resumed run,
    /// which `start` describes) up to `up_to_pegs` pegs.
    pub(super) fn new(
        board: &'a PegBoard,
        ranker: &'a SubsetRanker,
        first: LevelSet,
        start: Start,
        up_to_pegs: u32,
        found: F,
    ) -> Self {
        Backward {
            board,
            ranker,
            halves: Halves::new(board.holes()),
            levels: vec![first],
            keep_all: false,
            start: Some(start),
            up_to_pegs,
            found,
        }
    }

    fn last(&self) -> &LevelSet {
        self.levels.last().expect("a sweep holds its first level")
    }
}

impl<F, E> driver::Levels for Backward<'_, F>
where
    F: FnMut(&LevelSet) -> Result<(), E>,
    E: From<crate::driver::Interrupted>,
{
    type Error = E;

    fn start(&mut self, control: &Control<'_>) -> Result<Start, E> {
        let boards = |pegs: u32| self.ranker.count(pegs as usize);
        let work = (self.last().pegs()..self.up_to_pegs)
            .map(|p| boards(p + 1))
            .sum();
        control
            .observer
            .level_started(0, crate::engine::Direction::TopDown, work);
        Ok(self
            .start
            .take()
            .unwrap_or_else(|| Start::fresh(self.last().count())))
    }

    fn next_level(&mut self, control: &Control<'_>) -> Result<Next, E> {
        if self.last().pegs() >= self.up_to_pegs {
            return Ok(Next::Done);
        }
        let next = expand(
            self.board,
            self.ranker,
            &self.halves,
            self.last(),
            Direction::Backward,
        );
        (self.found)(&next)?;
        let count = next.count();
        control
            .observer
            .work_done(self.ranker.count(next.pegs() as usize));
        if !self.keep_all {
            self.levels.clear();
        }
        self.levels.push(next);
        Ok(Next::found(count))
    }
}

/// What a forward analysis of a peg solitaire board finds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PegAnalysis {
    /// The board's name.
    pub puzzle: String,
    /// Its holes.
    pub holes: usize,
    /// The start, one mark per hole.
    pub start: String,
    /// The goal in words.
    pub goal: String,
    /// Boards reachable from the start (with symmetry: classes of boards).
    pub reachable: u64,
    /// Boards per number of jumps from the start (level k has k pegs fewer; with
    /// symmetry, classes of boards).
    pub jumps_histogram: Vec<u64>,
    /// With symmetry: the boards the classes hold.
    pub classes: Option<PegClasses>,
    /// The holes where a single peg can be left.
    pub one_peg_finishes: Vec<u8>,
    /// Whether a goal board is reachable.
    pub goal_reachable: bool,
    /// Boards per fewest number of moves (boards up to
    /// [`super::moves::MOVE_LEVELS_MAX_HOLES`] holes).
    pub moves_histogram: Option<Vec<u64>>,
    /// The fewest moves to the goal (boards up to [`super::moves::MOVE_LEVELS_MAX_HOLES`]
    /// holes; `solve` finds them on larger boards).
    pub goal_moves: Option<u32>,
    /// The largest two levels' bit sets, in bytes (the search's memory).
    pub level_bytes: u64,
    /// Wall time.
    pub seconds: f64,
}

/// What a search over classes of boards (`--symmetry`) counts besides the classes,
/// under the same JSON keys as a twisty puzzle's classes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PegClasses {
    /// The board's symmetries that fix the start (the identity included).
    pub symmetries: usize,
    /// The boards the reachable classes hold.
    pub positions: u64,
    /// Boards per number of jumps.
    pub positions_by_depth: Vec<u64>,
}

/// Counts the boards reachable from the start, one level per jump, with two levels
/// in memory, through the level-loop driver. With `symmetry`, the search runs over
/// classes of boards under the board's symmetries that fix the start, as
/// `--symmetry` does on every puzzle: a level holds and expands one board per class
/// (the least of its images), and the boards per level are the classes' sizes summed.
/// `control.observer` hears of every finished level (its number of jumps and its
/// boards). With a `checkpoint`, the last level counted is saved as
/// `control.checkpoint_every` paces it and when `control.stop` ends the run, and a
/// saved one of the same analysis is resumed (the file goes when it completes).
///
/// # Errors
/// [`PegError::TooLarge`] if two levels would not fit in memory;
/// [`PegError::Checkpoint`] if a checkpoint cannot be written;
/// [`PegError::Interrupted`] on a stop.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::puzzles::peg::PegBoard;
/// use antipode::solvers::peg::levels;
///
/// let hoppers = PegBoard::shipped("hoppers").unwrap();
/// let a = levels::analyze(&hoppers, false, None, &Control::default()).unwrap();
/// assert_eq!(a.jumps_histogram[..3], [1, 4, 12]);
/// // Over classes: the same boards, fewer entries.
/// let s = levels::analyze(&hoppers, true, None, &Control::default()).unwrap();
/// let classes = s.classes.expect("a search over classes");
/// assert_eq!(classes.positions_by_depth, a.jumps_histogram);
/// assert!(s.reachable < a.reachable);
/// assert!(a.goal_reachable);
/// ```
pub fn analyze(
    board: &PegBoard,
    symmetry: bool,
    checkpoint: Option<&PegCheckpoint>,
    control: &Control<'_>,
) -> Result<PegAnalysis, PegError> {
    let started = Instant::now();
    let ranker = SubsetRanker::new(board.holes());
    let start_pegs = board.start().count_ones();
    let level_bytes = two_levels_bytes(board.holes(), 1, start_pegs);
    check_memory(board, level_bytes, "counting the reachable boards")?;
    let group = symmetry.then(|| Symmetries::of(board).fixing(board.start()));
    let mut forward = Forward {
        board,
        level: LevelSet::empty(&ranker, start_pegs),
        ranker: &ranker,
        halves: Halves::new(board.holes()),
        group: group.as_ref(),
        checkpoint,
        counted: Progress::default(),
        finishes: Vec::new(),
    };
    driver::run(&mut forward, control)?;
    if let Some(checkpoint) = checkpoint {
        checkpoint.remove();
    }
    let Forward {
        counted, finishes, ..
    } = forward;
    Ok(assemble(
        board,
        group.as_ref(),
        counted,
        finishes,
        level_bytes,
        started,
    ))
}

/// The forward sweep as a build of the level-loop driver: the level in memory is
/// the last one counted.
struct Forward<'a> {
    board: &'a PegBoard,
    ranker: &'a SubsetRanker,
    halves: Halves,
    group: Option<&'a Symmetries>,
    checkpoint: Option<&'a PegCheckpoint>,
    /// The last level found.
    level: LevelSet,
    /// The counts of every level found, the last one's included.
    counted: Progress,
    /// The holes where a single peg can be left.
    finishes: Vec<u8>,
}

impl Forward<'_> {
    /// The board a level holds for `board`: the least of its images over classes.
    fn canonical(group: Option<&Symmetries>, board: u64) -> u64 {
        group.map_or(board, |g| g.least(board))
    }

    /// What the last level found shows: whether it holds a goal board, and where a
    /// single peg can be left.
    fn look_at_level(&mut self) {
        let (board, level, ranker, group) = (self.board, &self.level, self.ranker, self.group);
        let has = |b: u64| level.has(ranker.rank(Self::canonical(group, b)));
        if level.pegs() == board.goal_pegs() {
            self.counted.goal_reachable = board.goal_boards().iter().any(|&g| has(g));
        }
        if level.pegs() == 1 {
            self.finishes = (0..board.holes() as u8).filter(|&h| has(1 << h)).collect();
        }
    }

    /// Counts the last level found (boards, and classes with symmetry); returns the
    /// boards.
    fn count_level(&mut self) -> u64 {
        let count = self.level.count();
        let boards = match self.group {
            Some(group) => count_boards(&self.halves, &self.level, group),
            None => count,
        };
        self.counted.jumps.push(boards);
        if self.group.is_some() {
            self.counted.classes.push(count);
        }
        self.look_at_level();
        boards
    }
}

impl driver::Levels for Forward<'_> {
    type Error = PegError;

    fn start(&mut self, _: &Control<'_>) -> Result<Start, PegError> {
        if let Some((level, counted)) = self.checkpoint.and_then(|c| c.load(self.ranker)) {
            self.level = level;
            self.counted = counted;
            self.look_at_level();
            return Ok(Start::resumed(self.counted.jumps.clone()));
        }
        let start = Self::canonical(self.group, self.board.start());
        self.level.insert(self.ranker.rank(start));
        Ok(Start::fresh(self.count_level()))
    }

    fn next_level(&mut self, _: &Control<'_>) -> Result<Next, PegError> {
        if self.level.pegs() <= 1 {
            return Ok(Next::Done);
        }
        let (board, ranker, halves) = (self.board, self.ranker, &self.halves);
        self.level = match self.group {
            Some(group) => expand_classes(board, ranker, halves, &self.level, group),
            None => expand(board, ranker, halves, &self.level, Direction::Forward),
        };
        if self.level.count() == 0 {
            return Ok(Next::Done);
        }
        Ok(Next::found(self.count_level()))
    }

    fn saves(&self) -> bool {
        self.checkpoint.is_some()
    }

    fn save(&mut self, _: &[u64]) -> Result<u64, PegError> {
        let Some(checkpoint) = self.checkpoint else {
            return Ok(0);
        };
        checkpoint
            .save(&self.level, &self.counted)
            .map_err(|e| PegError::Checkpoint(e.to_string()))?;
        Ok(self.level.bytes())
    }

    fn checkpoint_path(&self) -> Option<std::path::PathBuf> {
        self.checkpoint.map(|c| c.path().to_owned())
    }
}

/// The analysis from the counts of a finished search (`counted.jumps` boards per
/// jump, `counted.classes` classes per jump with a `group`).
fn assemble(
    board: &PegBoard,
    group: Option<&Symmetries>,
    counted: Progress,
    finishes: Vec<u8>,
    level_bytes: u64,
    started: Instant,
) -> PegAnalysis {
    let Progress {
        jumps,
        classes,
        goal_reachable,
    } = counted;
    let small = board.holes() <= super::moves::MOVE_LEVELS_MAX_HOLES;
    let (moves_histogram, goal_moves) = if small {
        let (histogram, goal) = board.moves_histogram();
        (Some(histogram), goal)
    } else {
        (None, None)
    };
    let (histogram, classes) = match group {
        Some(group) => (
            classes,
            Some(PegClasses {
                symmetries: group.len(),
                positions: jumps.iter().sum(),
                positions_by_depth: jumps,
            }),
        ),
        None => (jumps, None),
    };
    PegAnalysis {
        puzzle: board.name().into(),
        holes: board.holes(),
        start: board.format(board.start()),
        goal: board.goal_text(),
        reachable: histogram.iter().sum(),
        jumps_histogram: histogram,
        classes,
        one_peg_finishes: finishes,
        goal_reachable,
        moves_histogram,
        goal_moves,
        level_bytes,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The boards the classes of `level` hold (one board per class in the level).
fn count_boards(halves: &Halves, level: &LevelSet, group: &Symmetries) -> u64 {
    let total = AtomicU64::new(0);
    level.for_each_board(
        halves,
        || Counter(0, &total),
        |counter, b| counter.0 += group.class_size(b),
    );
    total.into_inner()
}

/// The next level of a search over classes: every jump from the level's boards (one
/// per class), each result replaced by the least of its images.
fn expand_classes(
    board: &PegBoard,
    ranker: &SubsetRanker,
    halves: &Halves,
    level: &LevelSet,
    group: &Symmetries,
) -> LevelSet {
    let next = LevelSet::empty(ranker, level.pegs() - 1);
    let bases = halves.bases(level.pegs() - 1);
    level.for_each_board(
        halves,
        || (),
        |_, b| {
            board.for_each_jump(b, |child| {
                next.insert(halves.rank(&bases, group.least(child)))
            })
        },
    );
    next
}

/// A task's count, added to the total when the task ends.
struct Counter<'a>(u64, &'a AtomicU64);

impl Drop for Counter<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(self.0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_beyond_the_rank_tables_is_refused() {
        let text = format!(
            "name = \"wide\"\nlattice = \"square\"\nboard = \"oo.{}\"\n",
            ".".repeat(47)
        );
        let wide = PegBoard::from_text("wide.toml", &text).unwrap();
        assert!(matches!(
            analyze(&wide, false, None, &Control::default()),
            Err(PegError::TooLarge(_))
        ));
        assert!(matches!(
            crate::solvers::peg::solutions(&wide, wide.start(), None, false, 5),
            Err(PegError::TooLarge(_))
        ));
    }

    #[test]
    fn a_level_lists_its_boards_in_rank_order_once() {
        let ranker = SubsetRanker::new(14);
        let halves = Halves::new(14);
        let level = LevelSet::empty(&ranker, 5);
        let picked: Vec<u64> = (0..ranker.count(5)).filter(|i| i % 7 == 3).collect();
        for &i in &picked {
            level.insert(i);
        }
        let found = std::sync::Mutex::new(Vec::new());
        level.for_each_board(
            &halves,
            || (),
            |_, b| found.lock().unwrap().push(ranker.rank(b)),
        );
        let mut found = found.into_inner().unwrap();
        found.sort_unstable();
        assert_eq!(found, picked);
    }

    #[test]
    fn hoppers_levels_agree_with_a_plain_search() {
        let b = PegBoard::shipped("hoppers").unwrap();
        let a = analyze(&b, false, None, &Control::default()).unwrap();
        // A plain search over sets of boards.
        let mut level = std::collections::BTreeSet::from([b.start()]);
        let mut counts = Vec::new();
        while !level.is_empty() {
            counts.push(level.len() as u64);
            let mut next = std::collections::BTreeSet::new();
            for &board in &level {
                b.for_each_jump(board, |c| {
                    next.insert(c);
                });
            }
            level = next;
        }
        assert_eq!(a.jumps_histogram, counts);
        assert_eq!(a.reachable, a.moves_histogram.unwrap().iter().sum::<u64>());
        assert_eq!(a.goal_moves, Some(7));
    }

    #[test]
    fn solvable_boards_are_those_that_reach_the_goal() {
        let b = PegBoard::shipped("hoppers").unwrap();
        let sets = solvable_sets(&b, 12, &Control::default()).unwrap();
        // Brute force: a board can reach the goal if it is the goal or a jump leads to
        // one that can.
        let mut can = vec![false; 1 << 13];
        // Boards by increasing peg count: a jump's result has one peg fewer.
        let mut order: Vec<u64> = (0..1u64 << 13).collect();
        order.sort_by_key(|b| b.count_ones());
        for board in order {
            let mut ok = b.is_goal(board);
            b.for_each_jump(board, |c| ok |= can[c as usize]);
            can[board as usize] = ok;
        }
        for board in 0u64..1 << 13 {
            let expected = can[board as usize] && board.count_ones() <= 12;
            assert_eq!(sets.contains(board), expected, "{board:013b}");
        }
    }
}
