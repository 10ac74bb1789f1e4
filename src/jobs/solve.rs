//! `antipode solve` as a library call: optimal solutions of one position or a batch,
//! by search (IDA*, IDDFS, bidirectional BFS), by descending a table, or by IDA*
//! bounded by pattern databases.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::PositionError;
use crate::pdb::Partition;
use crate::pool::{self, PoolError};
use crate::puzzle::Notation;
use crate::puzzles::kpuzzle::KPuzzle;
use crate::puzzles::kpuzzle::definition::Pattern;
use crate::puzzles::sliding::BoardShape;
use crate::search::{self, Found, SearchError, Solvable, ida};
use crate::solvers::kpuzzle::{Database, KSearch, KSearchError};
use crate::solvers::sliding::pdb_search::PdbSpace;
use crate::table::{Table, TableError};

/// The longest solution searched for unless the caller says otherwise.
pub const MAX_LENGTH: u32 = 120;

/// The same on boards of more than 16 cells (the 24-puzzle's diameter is unknown; its
/// hardest known positions take 152 moves).
pub const MAX_LENGTH_BIG_BOARDS: u32 = 300;

/// How [`Solve`] finds solutions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// IDA* with the puzzle's lower bound.
    Ida,
    /// Plain iterative deepening.
    Iddfs,
    /// Bidirectional breadth-first search (one solution).
    Bibfs,
}

/// Why a solve job failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// No solution within the length limit.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The table does not belong to the puzzle, or its descent failed.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Bidirectional search was asked for every solution.
    #[error("every solution needs ida or iddfs: bidirectional search finds one")]
    AllBidirectional,
    /// A table was asked for every solution.
    #[error("every solution needs a search method, not a table")]
    AllFromTable,
    /// The position is in another component than the goal.
    #[error("the goal cannot be reached from this position")]
    Unreachable,
    /// The worker threads.
    #[error(transparent)]
    Threads(#[from] PoolError),
}

/// What solving one position found: each solution as its moves (in the puzzle's
/// notation) and the positions after them.
///
/// ```
/// use antipode::{Notation, Puzzle, jobs::Solve, puzzles::SlidingPuzzle};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let solution = Solve::new(&board).solve(&board.parse("450/123").unwrap()).unwrap();
/// assert_eq!(solution.length(), 21);
/// // The last position of the path is the goal.
/// assert!(board.is_goal(solution.paths[0].last().unwrap()));
/// ```
#[derive(Debug, Clone)]
pub struct Solution<S> {
    /// One or (with `all`) every optimal solution, as the moved pieces.
    pub moves: Vec<Vec<String>>,
    /// The positions after each move of each solution.
    pub paths: Vec<Vec<S>>,
    /// Nodes the search expanded or generated (0 for a table's descent).
    pub nodes: u64,
}

impl<S> Solution<S> {
    /// The solutions' length (0 for a position already solved).
    pub fn length(&self) -> usize {
        self.moves.first().map_or(0, Vec::len)
    }

    fn found<M: std::fmt::Display, N>(found: Found<M, N>, state: impl Fn(&N) -> S) -> Self {
        Solution {
            moves: found
                .solutions
                .iter()
                .map(|moves| moves.iter().map(M::to_string).collect())
                .collect(),
            paths: found
                .paths
                .iter()
                .map(|nodes| nodes.iter().map(&state).collect())
                .collect(),
            nodes: found.nodes,
        }
    }

    fn steps<M: std::fmt::Display>(steps: Vec<crate::Successor<S, M>>, nodes: u64) -> Self {
        Solution {
            moves: vec![steps.iter().map(|s| s.moved.to_string()).collect()],
            paths: vec![steps.into_iter().map(|s| s.state).collect()],
            nodes,
        }
    }
}

/// Solving positions of one puzzle: by search (IDA* by default, bidirectional BFS for
/// puzzles whose bound is weak) or by descending a table.
///
/// ```
/// use antipode::{Notation, Puzzle, jobs::{Limits, Solve}, puzzles::SlidingPuzzle};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let start = eight.parse("867254301").unwrap();
/// let every = Limits { all: true, ..Limits::default() };
/// let solution = Solve::new(&eight).limits(every).solve(&start).unwrap();
/// assert_eq!((solution.length(), solution.moves.len()), (31, 40));
/// ```
pub struct Solve<'a, P: Solvable> {
    puzzle: &'a P,
    table: Option<&'a Table>,
    method: Option<Method>,
    limits: Limits,
}

/// What a solve job looks for and with what: every optimal solution or one, the
/// longest solution tried, the worker threads.
///
/// ```
/// use antipode::jobs::{Limits, Solve, SolveError};
/// use antipode::{Notation, Puzzle, puzzles::SlidingPuzzle, search::ida::SearchError};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let start = board.parse("450/123").unwrap();
/// // The 2x3 board's antipode needs 21 moves: a limit of 20 finds nothing.
/// let short = Limits { max_length: Some(20), threads: Some(1), ..Limits::default() };
/// let refused = Solve::new(&board).limits(short).solve(&start);
/// assert!(matches!(refused, Err(SolveError::Search(SearchError::TooDeep(20)))));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// Every optimal solution, not just one (IDA*, IDDFS, pattern databases).
    pub all: bool,
    /// Give up beyond this many moves (default [`MAX_LENGTH`]; on boards too large to
    /// rank [`MAX_LENGTH_BIG_BOARDS`]).
    pub max_length: Option<u32>,
    /// Worker threads, `None` for all cores.
    pub threads: Option<usize>,
}

impl<'a, P: Solvable> Solve<'a, P> {
    /// One optimal solution by the puzzle's preferred search, up to [`MAX_LENGTH`]
    /// moves, on all cores.
    pub fn new(puzzle: &'a P) -> Self {
        Solve {
            puzzle,
            table: None,
            method: None,
            limits: Limits::default(),
        }
    }

    /// Descend this table instead of searching.
    #[must_use]
    pub fn table(mut self, table: &'a Table) -> Self {
        self.table = Some(table);
        self
    }

    /// The search method.
    #[must_use]
    pub fn method(mut self, method: Method) -> Self {
        self.method = Some(method);
        self
    }

    /// What to look for, and with how many threads.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The method a search uses: the one asked for, else bidirectional BFS where the
    /// puzzle prefers it and one solution is wanted, else IDA*.
    #[must_use]
    pub fn chosen_method(&self) -> Method {
        self.method
            .unwrap_or(if P::PREFERS_BIDIRECTIONAL && !self.limits.all {
                Method::Bibfs
            } else {
                Method::Ida
            })
    }

    /// The optimal solutions from `start`.
    ///
    /// # Errors
    /// [`SolveError`] if the position is not the puzzle's, a table cannot be read, no
    /// solution is within the limits, or no worker threads can start.
    pub fn solve(&self, start: &P::State) -> Result<Solution<P::State>, SolveError> {
        let Limits {
            all,
            max_length,
            threads,
        } = self.limits;
        if let Some(table) = self.table {
            if all {
                return Err(SolveError::AllFromTable);
            }
            return Ok(Solution::steps(table.solve(self.puzzle, start)?, 0));
        }
        let method = match self.chosen_method() {
            Method::Ida => search::Method::Ida,
            Method::Iddfs => search::Method::Iddfs,
            Method::Bibfs => {
                if all {
                    return Err(SolveError::AllBidirectional);
                }
                let (steps, nodes) =
                    pool::run_on(threads, || search::bibfs::solve(self.puzzle, start))?
                        .ok_or(SolveError::Unreachable)?;
                return Ok(Solution::steps(steps, nodes));
            }
        };
        let max_length = max_length.unwrap_or(MAX_LENGTH);
        let found = pool::run_on(threads, || {
            search::solve(self.puzzle, start, method, all, max_length)
        })??;
        Ok(Solution::found(found, P::State::clone))
    }
}

/// Solving positions of a sliding board (up to 32 cells, the 24-puzzle too) by IDA*
/// bounded by the pattern databases of a partition ([`super::Databases`]).
///
/// ```
/// use antipode::jobs::{Databases, SolvePdb};
/// use antipode::puzzles::sliding::BoardShape;
///
/// let board = BoardShape::new(3, 3).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let partition = Databases::partition(&board, "4-4").unwrap().dir(dir.path()).open().unwrap();
/// let start = board.parse_position("8 6 7/2 5 4/3 0 1").unwrap();
/// let solution = SolvePdb::new(&board, &partition).solve(&start).unwrap();
/// assert_eq!(solution.length(), 31);
/// ```
pub struct SolvePdb<'a> {
    board: &'a BoardShape,
    space: PdbSpace<'a>,
    limits: Limits,
}

impl<'a> SolvePdb<'a> {
    /// One optimal solution, up to [`MAX_LENGTH`] moves ([`MAX_LENGTH_BIG_BOARDS`] on
    /// boards too large to rank), on all cores.
    #[must_use]
    pub fn new(board: &'a BoardShape, partition: &'a Partition) -> Self {
        SolvePdb {
            board,
            space: PdbSpace::new(board, partition),
            limits: Limits::default(),
        }
    }

    /// What to look for, and with how many threads.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The board.
    #[must_use]
    pub fn board(&self) -> &BoardShape {
        self.board
    }

    /// The optimal solutions from `start` (row-major tile numbers).
    ///
    /// # Errors
    /// [`SolveError`] if the position is not the board's, the databases do not match
    /// it, no solution is within the limits, or no worker threads can start.
    pub fn solve(&self, start: &[u8]) -> Result<Solution<Vec<u8>>, SolveError> {
        pool::run_on(self.limits.threads, || self.solve_on_pool(start))?
    }

    /// [`SolvePdb::solve`] on the current rayon pool.
    fn solve_on_pool(&self, start: &[u8]) -> Result<Solution<Vec<u8>>, SolveError> {
        let node = self.space.node(start);
        let default_length = if self.board.indexable() {
            MAX_LENGTH
        } else {
            MAX_LENGTH_BIG_BOARDS
        };
        let max_length = self.limits.max_length.unwrap_or(default_length);
        let found = ida::search(&self.space, &node, self.limits.all, max_length)?;
        Ok(Solution::found(found, |node| {
            self.space.position(node).to_vec()
        }))
    }

    /// Solves a batch: the worker threads take positions in order, several at once
    /// (a search is split across threads only once it is big, see
    /// [`ida::SPLIT_AFTER_NODES`]), and `solved(index, result, time)` gets each
    /// position's result in input order, as soon as it and those before it are done,
    /// with the wall time of its own search. When `solved` returns false no further
    /// result is handed over and the threads start no new position.
    ///
    /// # Errors
    /// [`PoolError`] if no worker threads can start.
    ///
    /// ```
    /// use antipode::jobs::{Databases, SolvePdb};
    /// use antipode::puzzles::sliding::BoardShape;
    ///
    /// let board = BoardShape::new(3, 3).unwrap();
    /// let dir = tempfile::tempdir().unwrap();
    /// let partition = Databases::partition(&board, "4-4").unwrap().dir(dir.path()).open().unwrap();
    /// // The 8-puzzle's two antipodes.
    /// let starts = ["8 6 7/2 5 4/3 0 1", "6 4 7/8 5 0/3 2 1"]
    ///     .map(|text| board.parse_position(text).unwrap());
    /// let mut lengths = Vec::new();
    /// SolvePdb::new(&board, &partition)
    ///     .solve_batch(&starts, |index, result, _| {
    ///         lengths.push((index, result.unwrap().length()));
    ///         true
    ///     })
    ///     .unwrap();
    /// assert_eq!(lengths, [(0, 31), (1, 31)]);
    /// ```
    pub fn solve_batch(
        &self,
        starts: &[Vec<u8>],
        mut solved: impl FnMut(usize, Result<Solution<Vec<u8>>, SolveError>, Duration) -> bool,
    ) -> Result<(), PoolError> {
        let next = AtomicUsize::new(0);
        let (sender, receiver) = mpsc::channel();
        std::thread::scope(|scope| {
            let workers = scope.spawn(|| {
                pool::run_on(self.limits.threads, || {
                    let threads = rayon::current_num_threads();
                    (0..threads)
                        .into_par_iter()
                        .for_each_with(sender, |sender, _| {
                            loop {
                                let index = next.fetch_add(1, Ordering::Relaxed);
                                let Some(start) = starts.get(index) else {
                                    return;
                                };
                                let started = Instant::now();
                                let result = self.solve_on_pool(start);
                                // A closed channel: the caller wants no more.
                                if sender.send((index, result, started.elapsed())).is_err() {
                                    return;
                                }
                            }
                        })
                })
            });
            let mut waiting = BTreeMap::new();
            let mut wanted = 0;
            'received: for (index, result, time) in receiver {
                waiting.insert(index, (result, time));
                while let Some((result, time)) = waiting.remove(&wanted) {
                    wanted += 1;
                    if !solved(wanted - 1, result, time) {
                        // Positions not yet taken are never started.
                        next.store(starts.len(), Ordering::Relaxed);
                        break 'received;
                    }
                }
            }
            match workers.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    }
}

/// Why positions could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PositionsError {
    /// The input could not be read.
    #[error("cannot read the positions: {0}")]
    Read(#[from] std::io::Error),
    /// A line is not a position of the puzzle.
    #[error("line {line}: {cause}")]
    Position {
        /// Its number, from 1.
        line: usize,
        /// Why.
        cause: PositionError,
    },
    /// No line held a position.
    #[error("no positions (one per line; blank lines and lines starting with # are skipped)")]
    Empty,
}

/// The positions of a batch, one per line of `input` (blank lines and lines starting
/// with `#` skipped), all read before any is solved.
///
/// # Errors
/// [`PositionsError`] if the input cannot be read, or a line is not a position (the
/// error names it).
///
/// ```
/// use antipode::{jobs::read_positions, puzzles::SlidingPuzzle};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let input = "# two positions\n867254301\n\n123456780\n";
/// assert_eq!(read_positions(&eight, input.as_bytes()).unwrap().len(), 2);
/// assert!(read_positions(&eight, "123456788\n".as_bytes()).is_err());
/// ```
pub fn read_positions<N: Notation>(
    puzzle: &N,
    input: impl BufRead,
) -> Result<Vec<N::State>, PositionsError> {
    let mut positions = Vec::new();
    for (number, line) in input.lines().enumerate() {
        let line = line?;
        let text = line.trim();
        if !text.is_empty() && !text.starts_with('#') {
            let position = puzzle
                .parse(text)
                .map_err(|cause| PositionsError::Position {
                    line: number + 1,
                    cause,
                })?;
            positions.push(position);
        }
    }
    if positions.is_empty() {
        return Err(PositionsError::Empty);
    }
    Ok(positions)
}

/// `solve PUZZLE --pdb PROJECTIONS` on a twisty puzzle: IDA* bounded by the largest
/// distance its projections' databases give ([`crate::jobs::Projections`]), with the
/// cubing solvers' move pruning.
///
/// ```
/// use antipode::{Notation, Puzzle};
/// use antipode::jobs::{Projections, SolveTwisty};
/// use antipode::puzzles::kpuzzle::library::open;
///
/// let cube = open("2x2x2").unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let databases = Projections::new(&cube, "CORNERS:0-3").dir(dir.path()).open().unwrap();
/// let job = SolveTwisty::new(&cube, databases).unwrap();
/// let solution = job.solve(&cube.parse("R U F").unwrap()).unwrap();
/// assert_eq!(solution.length(), 3);
/// ```
pub struct SolveTwisty<'a> {
    puzzle: &'a KPuzzle,
    space: KSearch,
    limits: Limits,
}

impl<'a> SolveTwisty<'a> {
    /// One optimal solution, up to [`MAX_LENGTH`] moves, on all cores.
    ///
    /// # Errors
    /// [`KSearchError`] if the projections do not belong to the puzzle or a position is
    /// too large for the search.
    pub fn new(puzzle: &'a KPuzzle, databases: Vec<Database>) -> Result<Self, KSearchError> {
        Ok(SolveTwisty {
            puzzle,
            space: KSearch::new(puzzle, databases)?,
            limits: Limits::default(),
        })
    }

    /// What to look for, and with how many threads.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The puzzle.
    #[must_use]
    pub fn puzzle(&self) -> &KPuzzle {
        self.puzzle
    }

    /// The optimal solutions from `start`.
    ///
    /// # Errors
    /// [`SolveError`] if no solution is within the limits or no worker threads can
    /// start.
    pub fn solve(&self, start: &Pattern) -> Result<Solution<Pattern>, SolveError> {
        let node = self.space.node_of(start);
        let max_length = self.limits.max_length.unwrap_or(MAX_LENGTH);
        let found = pool::run_on(self.limits.threads, || {
            ida::search(&self.space, &node, self.limits.all, max_length)
        })??;
        Ok(Solution::found(found, |node| self.space.pattern_of(node)))
    }
}
