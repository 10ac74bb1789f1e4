//! `analyze` and `lookup` on peg solitaire boards as jobs: the forward count of the
//! reachable boards (resumable from its checkpoint), the table of the boards that
//! can still reach the goal, and answers from that table.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::StopToken;
use crate::driver::{Control, Observer, Silent};
use crate::persist::TABLES_DIR;
use crate::pool::{self, PoolError};
use crate::puzzle::PositionError;
use crate::puzzles::peg::{PegBoard, PegError};
use crate::solvers::peg::checkpoint::PegCheckpoint;
use crate::solvers::peg::levels::{self, PegAnalysis};
use crate::solvers::peg::table::{self, PegTableError, SolvableTable};

/// Why a peg solitaire job did not finish.
#[derive(Debug, thiserror::Error)]
pub enum PegJobError {
    /// The forward count.
    #[error(transparent)]
    Search(#[from] PegError),
    /// The table of the boards that can still reach the goal.
    #[error(transparent)]
    Table(#[from] PegTableError),
    /// The worker threads.
    #[error(transparent)]
    Threads(#[from] PoolError),
}

/// What [`AnalyzePeg`] found: the forward analysis and, if one was asked for, the
/// table written.
#[derive(Debug, Clone)]
pub struct PegAnalyzed {
    /// The boards reachable by jumps, per peg count.
    pub analysis: PegAnalysis,
    /// The table written and how many boards can reach the goal.
    pub table: Option<(PathBuf, u64)>,
}

/// `antipode analyze` on a peg solitaire board: the boards reachable from the start,
/// one level per jump (over symmetry classes if asked), and optionally the table of
/// every board that can still reach the goal. Both resume: the forward count from
/// its checkpoint (`tables/NAME-reachable.checkpoint`), the table from its partial
/// file.
///
/// ```
/// use antipode::jobs::AnalyzePeg;
/// use antipode::puzzles::peg::PegBoard;
///
/// let hoppers = PegBoard::shipped("hoppers").unwrap();
/// let done = AnalyzePeg::new(&hoppers).symmetry(true).run().unwrap();
/// let classes = done.analysis.classes.expect("over classes");
/// assert_eq!(classes.positions_by_depth[..3], [1, 4, 12]);
/// assert!(done.analysis.goal_reachable && done.table.is_none());
/// ```
pub struct AnalyzePeg<'a> {
    board: &'a PegBoard,
    symmetry: bool,
    table: Option<Option<PathBuf>>,
    force: bool,
    checkpoint: Option<PathBuf>,
    checkpoint_every: Duration,
    threads: Option<usize>,
    observer: &'a dyn Observer,
    table_observer: &'a dyn Observer,
    stop: Option<StopToken>,
}

/// The forward count saves its checkpoint this often (and when stopped).
const CHECKPOINT_EVERY: Duration = Duration::from_secs(60);

impl<'a> AnalyzePeg<'a> {
    /// The forward count of `board`, on all cores, silent, without a checkpoint or a
    /// table.
    #[must_use]
    pub fn new(board: &'a PegBoard) -> Self {
        AnalyzePeg {
            board,
            symmetry: false,
            table: None,
            force: false,
            checkpoint: None,
            checkpoint_every: CHECKPOINT_EVERY,
            threads: None,
            observer: &Silent,
            table_observer: &Silent,
            stop: None,
        }
    }

    /// Counts classes of boards under the symmetries that fix the start.
    #[must_use]
    pub fn symmetry(mut self, symmetry: bool) -> Self {
        self.symmetry = symmetry;
        self
    }

    /// Also builds the table of the boards that can reach the goal at `path` (`None`:
    /// its default path in `tables/`).
    #[must_use]
    pub fn table(mut self, path: Option<PathBuf>) -> Self {
        self.table = Some(path);
        self
    }

    /// Overwrite a complete table at the table path.
    #[must_use]
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// Saves the forward count's progress at `tables/NAME-reachable.checkpoint`.
    #[must_use]
    pub fn default_checkpoint(mut self) -> Self {
        let name = format!("{}-reachable.checkpoint", self.board.name());
        self.checkpoint = Some(PathBuf::from(TABLES_DIR).join(name));
        self
    }

    /// Saves the forward count's progress at `path` (and resumes from it).
    #[must_use]
    pub fn checkpoint(mut self, path: impl AsRef<Path>) -> Self {
        self.checkpoint = Some(path.as_ref().to_owned());
        self
    }

    /// The forward count's checkpoints at most this often (default 60 s).
    #[must_use]
    pub fn checkpoint_every(mut self, every: Duration) -> Self {
        self.checkpoint_every = every;
        self
    }

    /// Worker threads, `None` for all cores.
    #[must_use]
    pub fn threads_or_all(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }

    /// Receives the forward levels (level `d`: `d` jumps from the start) and, with
    /// `table_observer`, the table's levels (level `d`: the goal's pegs plus `d`).
    #[must_use]
    pub fn observers(mut self, forward: &'a dyn Observer, table: &'a dyn Observer) -> Self {
        self.observer = forward;
        self.table_observer = table;
        self
    }

    /// Stops after the current level once `token` is stopped, with the progress saved.
    #[must_use]
    pub fn stop(mut self, token: &StopToken) -> Self {
        self.stop = Some(token.clone());
        self
    }

    /// Runs the table (if asked) and the forward count.
    ///
    /// # Errors
    /// A board too large for memory or the rank tables, a table that cannot be
    /// written, a stop ([`crate::driver::Interrupted`] inside either error), no
    /// threads.
    pub fn run(self) -> Result<PegAnalyzed, PegJobError> {
        let started = Instant::now();
        let board = self.board;
        let stop = self.stop.as_ref();
        let table = match &self.table {
            None => None,
            Some(path) => {
                let path = path.clone().unwrap_or_else(|| table::default_path(board));
                let control = Control::new(self.table_observer, stop);
                let force = self.force;
                let solvable =
                    pool::run_on(self.threads, || table::build(board, &path, force, &control))??;
                Some((path, solvable))
            }
        };
        let checkpoint = self
            .checkpoint
            .as_ref()
            .map(|path| PegCheckpoint::new(path, board, self.symmetry));
        let control = Control::new(self.observer, stop).every(self.checkpoint_every);
        let mut analysis = pool::run_on(self.threads, || {
            levels::analyze(board, self.symmetry, checkpoint.as_ref(), &control)
        })??;
        // The whole job: the table's backward pass too.
        analysis.seconds = started.elapsed().as_secs_f64();
        Ok(PegAnalyzed { analysis, table })
    }
}

/// `antipode lookup` on a peg solitaire board: its table, checked against the board,
/// answering whether a board can still reach the goal.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::jobs::PegLookup;
/// use antipode::puzzles::peg::PegBoard;
/// use antipode::solvers::peg::table;
///
/// let hoppers = PegBoard::shipped("hoppers").unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("hoppers.table");
/// table::build(&hoppers, &path, false, &Control::default()).unwrap();
/// let lookup = PegLookup::open(&path, &hoppers).unwrap();
/// let start = hoppers.format(hoppers.start());
/// assert_eq!(lookup.solvable(&start).unwrap(), (start.clone(), true));
/// assert!(lookup.solvable("not a board").is_err());
/// ```
pub struct PegLookup<'a> {
    board: &'a PegBoard,
    table: SolvableTable,
}

impl<'a> PegLookup<'a> {
    /// Opens the table at `path` and checks that it is `board`'s.
    ///
    /// # Errors
    /// A file that is not a complete peg table, or another board's.
    pub fn open(path: impl AsRef<Path>, board: &'a PegBoard) -> Result<Self, PegTableError> {
        let table = SolvableTable::open(path)?;
        table.check_board(board)?;
        Ok(PegLookup { board, table })
    }

    /// The board `line` describes, in the board's notation, and whether it can still
    /// reach the goal.
    ///
    /// # Errors
    /// A line that is not a board of this puzzle.
    pub fn solvable(&self, line: &str) -> Result<(String, bool), PositionError> {
        let position = self.board.parse(line)?;
        Ok((self.board.format(position), self.table.solvable(position)))
    }
}
