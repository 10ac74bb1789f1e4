//! `antipode analyze` as a library call: the whole search and its report, in memory
//! or into a table file that survives interruption.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::analysis::{self, Analysis, AnalyzeError};
use crate::driver::{Control, Interrupted};
use crate::engine::{EngineError, Histogram, Observer, Silent};
use crate::pool::{self, PoolError};
use crate::puzzle::{Puzzle, Rooted};
use crate::puzzles::AnyPuzzle;
use crate::store::Encoding;
use crate::table::{self, TableError};
use crate::{Notation, StopToken, puzzles, with_depths, with_puzzle};

pub use crate::persist::TABLES_DIR;

/// Why an [`Analyze`] job failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeJobError {
    /// The search itself (in memory).
    #[error(transparent)]
    Analyze(#[from] AnalyzeError),
    /// The table file.
    #[error(transparent)]
    Table(TableError),
    /// The stop token was set: the table holds every complete level, and the same job
    /// resumes from there.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// The worker threads.
    #[error(transparent)]
    Threads(#[from] PoolError),
    /// A search from the puzzle's own start ([`Analyze::from`] `"start"`) of a puzzle
    /// that has none.
    #[error("{0} has no start position of its own")]
    NoStart(String),
}

/// A table file an [`Analyze`] job wrote.
///
/// ```
/// use antipode::{Analyze, puzzles::SlidingPuzzle};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let (_, first) = Analyze::new(&board).table(&path).run_with_table().unwrap();
/// let written = first.expect("a table was asked for");
/// assert_eq!((written.bits, written.already_complete), (8, false));
/// // Run again: the complete table is read, not built again.
/// let (_, again) = Analyze::new(&board).table(&path).run_with_table().unwrap();
/// assert!(again.unwrap().already_complete);
/// ```
#[derive(Debug, Clone)]
pub struct TableWritten {
    /// Its path.
    pub path: PathBuf,
    /// Bits per entry.
    pub bits: u32,
    /// CRC-32 of its payload.
    pub crc32: u32,
    /// Levels that were already in the file when the job started (0: a fresh table).
    pub resumed_levels: usize,
    /// The table was already complete: nothing was written, the report was read from it.
    pub already_complete: bool,
}

/// Where an analysis keeps its depths.
enum Target {
    Memory,
    /// The table file at [`default_table_path`] (which depends on the encoding).
    DefaultTable,
    Table(PathBuf),
}

/// One analysis to run: the puzzle, where its depths go, the threads, who hears of
/// progress and what can stop it. [`Analyze::run`] returns the report.
///
/// In memory (the default) the depth array is anonymous memory of one byte per index;
/// with a table ([`Analyze::table`] or [`Analyze::default_table`]) the search runs in
/// memory too, the file (locked against other writers) receives the array at
/// checkpoints, and an unfinished table of the same puzzle at that path is resumed.
///
/// ```
/// use antipode::{Analyze, puzzles::SlidingPuzzle, store::Encoding};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let report = Analyze::new(&eight).threads(2).run().unwrap();
/// assert_eq!((report.gods_number, report.antipode_count), (31, 2));
///
/// // The same into a 2-bit table file (resumed if it was interrupted).
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("8puzzle-2bit.table");
/// let (report, table) = Analyze::new(&eight)
///     .table(&path)
///     .encoding(Encoding::Mod3)
///     .run_with_table()
///     .unwrap();
/// assert_eq!(report.antipodes, ["647/850/321", "867/254/301"]);
/// assert_eq!(table.unwrap().bits, 2);
/// ```
pub struct Analyze<'a, P> {
    puzzle: &'a P,
    /// A position to search from instead of the goal ([`Analyze::from`]; any puzzle).
    from: Option<String>,
    target: Target,
    encoding: Encoding,
    force: bool,
    checkpoint_every: Option<Duration>,
    threads: Option<usize>,
    observer: &'a dyn Observer,
    stop: Option<StopToken>,
    boards: usize,
    memory: Option<u64>,
}

impl<'a, P> Analyze<'a, P> {
    /// An in-memory analysis of `puzzle` on all cores, silent, drawing no boards.
    pub fn new(puzzle: &'a P) -> Self {
        Analyze {
            puzzle,
            from: None,
            target: Target::Memory,
            encoding: Encoding::Byte,
            force: false,
            checkpoint_every: None,
            threads: None,
            observer: &Silent,
            stop: None,
            boards: 0,
            memory: None,
        }
    }

    /// Writes the depths into the table file at `path` (resuming an unfinished one).
    #[must_use]
    pub fn table(mut self, path: impl AsRef<Path>) -> Self {
        self.target = Target::Table(path.as_ref().to_owned());
        self
    }

    /// Writes the depths into the table file at [`default_table_path`] (its folder,
    /// `tables/`, is made if missing; a path given to [`Analyze::table`] must be in an
    /// existing folder).
    #[must_use]
    pub fn default_table(mut self) -> Self {
        self.target = Target::DefaultTable;
        self
    }

    /// Entries of the table: one byte of exact depth (the default) or depths mod 3 in
    /// two bits. In memory the depths are always bytes.
    #[must_use]
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The memory a table build may use (default: this machine's): a table larger
    /// than that runs its levels on disk, a block of it in memory at a time, the
    /// neighbours for other blocks in bucket files beside it
    /// ([`crate::engine::OnDisk`]).
    ///
    /// ```
    /// use antipode::{Analyze, puzzles::SlidingPuzzle};
    ///
    /// // The 8-puzzle's table (181,440 bytes) in 64 KiB: six blocks of 32 KiB.
    /// let eight = SlidingPuzzle::new(3, 3).unwrap();
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("8puzzle.table");
    /// let (report, _) = Analyze::new(&eight).table(&path).memory(64 << 10).run_with_table().unwrap();
    /// assert_eq!((report.gods_number, report.antipode_count), (31, 2));
    /// ```
    #[must_use]
    pub fn memory(mut self, bytes: u64) -> Self {
        self.memory = Some(bytes);
        self
    }

    /// Overwrite a complete table (or another puzzle's file) at the table path.
    #[must_use]
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// Record progress in the table at most this often (default: every 2 s, and no
    /// more often than keeps checkpoints to about 3% of the run); zero: every level.
    #[must_use]
    pub fn checkpoint_every(mut self, every: Duration) -> Self {
        self.checkpoint_every = Some(every);
        self
    }

    /// Worker threads (default: all cores).
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Worker threads, `None` for all cores.
    #[must_use]
    pub fn threads_or_all(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }

    /// Receives the levels as they finish.
    #[must_use]
    pub fn observer(mut self, observer: &'a dyn Observer) -> Self {
        self.observer = observer;
        self
    }

    /// Stops the search between work items once `token` is stopped, in memory as into
    /// a table ([`AnalyzeJobError::Interrupted`]); a table keeps its complete levels.
    ///
    /// ```
    /// use antipode::{Analyze, StopToken, jobs::AnalyzeJobError, puzzles::SlidingPuzzle};
    ///
    /// let board = SlidingPuzzle::new(3, 4).unwrap();
    /// let stop = StopToken::new();
    /// stop.stop();
    /// let stopped = Analyze::new(&board).stop(&stop).run();
    /// assert!(matches!(stopped, Err(AnalyzeJobError::Interrupted(_))));
    /// ```
    #[must_use]
    pub fn stop(mut self, token: &StopToken) -> Self {
        self.stop = Some(token.clone());
        self
    }

    /// Draw the first `boards` antipodes as boards in the report.
    #[must_use]
    pub fn boards(mut self, boards: usize) -> Self {
        self.boards = boards;
        self
    }

    /// The same job on another puzzle (`from` is taken over by the caller).
    fn on<'b, Q>(self, puzzle: &'b Q) -> Analyze<'b, Q>
    where
        'a: 'b,
    {
        Analyze {
            puzzle,
            from: None,
            target: self.target,
            encoding: self.encoding,
            force: self.force,
            checkpoint_every: self.checkpoint_every,
            threads: self.threads,
            observer: self.observer,
            stop: self.stop,
            boards: self.boards,
            memory: self.memory,
        }
    }
}

impl<'a, P: Puzzle> Analyze<'a, P> {
    /// The table file the job writes, if any.
    #[must_use]
    pub fn table_path(&self) -> Option<PathBuf> {
        match &self.target {
            Target::Memory => None,
            Target::DefaultTable => Some(default_table_path(self.puzzle, self.encoding)),
            Target::Table(path) => Some(path.clone()),
        }
    }

    /// Runs the analysis and returns its report.
    ///
    /// # Errors
    /// [`AnalyzeJobError`] if the depths cannot be allocated, the table cannot be
    /// written or resumed, the stop token ends the run
    /// ([`AnalyzeJobError::Interrupted`]), or no worker threads can start.
    pub fn run(self) -> Result<Analysis, AnalyzeJobError> {
        self.run_with_table().map(|(report, _)| report)
    }

    /// Runs the analysis and returns its report and, with a table, what was written.
    ///
    /// # Errors
    /// [`AnalyzeJobError`] as [`Analyze::run`].
    pub fn run_with_table(self) -> Result<(Analysis, Option<TableWritten>), AnalyzeJobError> {
        let threads = self.threads;
        pool::run_on(threads, || match &self.table_path() {
            None => {
                let control = Control::new(self.observer, self.stop.as_ref());
                match analysis::analyze(self.puzzle, self.boards, &control) {
                    Err(AnalyzeError::Engine(EngineError::Interrupted(stopped))) => {
                        Err(stopped.into())
                    }
                    other => Ok((other?, None)),
                }
            }
            Some(path) => self
                .build_table(path)
                .map(|(report, table)| (report, Some(table))),
        })?
    }

    fn build_table(&self, path: &Path) -> Result<(Analysis, TableWritten), AnalyzeJobError> {
        let started = Instant::now();
        if matches!(self.target, Target::DefaultTable) {
            // The default folder is made on first use; a path given is taken as it is.
            std::fs::create_dir_all(TABLES_DIR).map_err(|cause| {
                AnalyzeJobError::Table(TableError::Io {
                    path: TABLES_DIR.into(),
                    cause,
                })
            })?;
        }
        if !self.force
            && let Some(done) = self.complete_table(path, started)?
        {
            return Ok(done);
        }
        let options = table::BuildOptions {
            encoding: self.encoding,
            force: self.force,
            memory: self.memory.or_else(crate::sys::total_memory_bytes),
        };
        let mut control = Control::new(self.observer, self.stop.as_ref());
        if let Some(every) = self.checkpoint_every {
            control = control.every(every);
        }
        let built = match table::build(self.puzzle, path, &options, &control) {
            Err(TableError::Engine(EngineError::Interrupted(stopped))) => {
                return Err(stopped.into());
            }
            other => other.map_err(AnalyzeJobError::Table)?,
        };
        let written = TableWritten {
            path: path.to_owned(),
            bits: built.header.encoding.bits(),
            crc32: built.header.payload_crc32,
            resumed_levels: built.resumed_levels,
            already_complete: false,
        };
        let histogram = Histogram(built.header.histogram.clone());
        let last_level = built.last_level;
        let mut depths = built.depths;
        let report = with_depths!(&mut depths, s => {
            analysis::summarize(self.puzzle, s, histogram, last_level, self.boards, started)
        });
        Ok((report, written))
    }
}

impl<P: Puzzle> Analyze<'_, P> {
    /// The report of a complete table of this puzzle and encoding at `path`, read from
    /// it (its whole payload checked first); `None` when there is none, and the build
    /// decides (a fresh file, a resume, or a refusal of another puzzle's table).
    fn complete_table(
        &self,
        path: &Path,
        started: Instant,
    ) -> Result<Option<(Analysis, TableWritten)>, AnalyzeJobError> {
        let complete = matches!(
            table::read_header_of(path),
            Ok(header) if header.complete && header.encoding == self.encoding && header.pattern.is_none()
        );
        if !complete {
            return Ok(None);
        }
        let table = table::Table::open(path).map_err(AnalyzeJobError::Table)?;
        if table.check_puzzle(self.puzzle).is_err() {
            return Ok(None);
        }
        table::check_file(path, true).map_err(AnalyzeJobError::Table)?;
        let header = table.header().clone();
        let mut depths = table.into_depths();
        let histogram = Histogram(header.histogram.clone());
        let report = with_depths!(&mut depths, s => {
            analysis::summarize(self.puzzle, s, histogram, None, self.boards, started)
        });
        let written = TableWritten {
            path: path.to_owned(),
            bits: header.encoding.bits(),
            crc32: header.payload_crc32,
            resumed_levels: header.histogram.len(),
            already_complete: true,
        };
        Ok(Some((report, written)))
    }
}

/// The job on a puzzle opened by name ([`crate::puzzles::open_with`]): one call that
/// dispatches to the puzzle inside, so that the whole search is compiled once, in this
/// library, for every kind of puzzle (a command line or a binding that calls it compiles
/// none of it again).
///
/// ```
/// use antipode::{Analyze, puzzles};
///
/// let eight = puzzles::lookup("8puzzle").unwrap();
/// let report = Analyze::new(&eight).threads(2).run().unwrap();
/// assert_eq!((report.gods_number, report.antipode_count), (31, 2));
/// // From the Goat's own start instead of its goal.
/// let goat = puzzles::lookup("goat").unwrap();
/// let report = Analyze::new(&goat).from("start").run().unwrap();
/// assert_eq!(report.reachable, 5_443_200);
/// ```
impl<'a> Analyze<'a, AnyPuzzle> {
    /// Searches from `position` (in the puzzle's notation; `start`: the puzzle's own
    /// start position) instead of from the goal. Under symmetry classes the puzzle
    /// should be the one [`AnyPuzzle::fixing`] gives for it.
    #[must_use]
    pub fn from(mut self, position: &str) -> Self {
        self.from = Some(position.to_owned());
        self
    }

    /// Runs the analysis and returns its report ([`Analyze::run`] of the puzzle inside).
    ///
    /// # Errors
    /// As [`Analyze::run`]; with [`Analyze::from`], also
    /// [`AnalyzeJobError::NoStart`] and a position that does not parse or that the
    /// symmetries do not fix ([`AnalyzeError::Position`]).
    pub fn run(self) -> Result<Analysis, AnalyzeJobError> {
        self.run_with_table().map(|(report, _)| report)
    }

    /// Runs the analysis and returns its report and, with a table, what was written.
    ///
    /// # Errors
    /// As [`Analyze::run`].
    pub fn run_with_table(mut self) -> Result<(Analysis, Option<TableWritten>), AnalyzeJobError> {
        let from = self.from.take();
        let puzzle = self.puzzle;
        with_puzzle!(puzzle, p => match from.as_deref() {
            None => self.on(p).run_with_table(),
            Some(from) => {
                let root = match from {
                    "start" => p.start().ok_or_else(|| AnalyzeJobError::NoStart(p.name()))?,
                    position => p.parse(position).map_err(AnalyzeError::Position)?,
                };
                let rooted = Rooted::new(p, root).map_err(AnalyzeError::Position)?;
                self.on(&rooted).run_with_table()
            }
        })
    }
}

/// `tables/NAME-BITSbit.table`: the name made safe for a file name, with the goal in
/// it when the goal is not the puzzle's usual one, and the move metric when it is not
/// the one the puzzle's description sets.
///
/// ```
/// use antipode::{jobs::default_table_path, puzzles::SlidingPuzzle, store::Encoding};
///
/// let board = SlidingPuzzle::new(2, 6).unwrap();
/// assert_eq!(
///     default_table_path(&board, Encoding::Mod3).to_str(),
///     Some("tables/sliding-2x6-2bit.table")
/// );
/// ```
pub fn default_table_path<P: Puzzle>(puzzle: &P, encoding: Encoding) -> PathBuf {
    let name: String = puzzle
        .name()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let usual = puzzles::lookup(&puzzle.name())
        .ok()
        .map(|p| with_puzzle!(&p, q => table::identity(q)));
    let identity = table::identity(puzzle);
    let mut suffix = String::new();
    if usual.as_ref().map(|u| &u.goal) != Some(&identity.goal) {
        let cleaned: String = identity
            .goal
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        suffix.push_str(&format!("-goal-{cleaned}"));
    }
    if let Some(metric) = puzzle.metric_override() {
        suffix.push_str(&format!("-{metric}"));
    }
    PathBuf::from(TABLES_DIR).join(format!("{name}{suffix}-{}bit.table", encoding.bits()))
}
