//! `antipode verify` as a library call: every check of a table file or a pattern
//! database.

use std::path::{Path, PathBuf};

use crate::engine::{Observer, Silent};
use crate::pdb::{Pattern, Pdb, PdbError, tile_list};
use crate::pool::{self, PoolError};
use crate::puzzles::{self, CatalogError, Metric};
use crate::table::{self, Check, Header, Table, TableError};
use crate::with_puzzle;

/// What [`verify_file`] needs beyond the file: the puzzle when its name alone does not
/// find it, the metric and goal the table was built with if not the usual ones.
///
/// ```
/// use antipode::{Analyze, puzzles::SlidingPuzzle};
/// use antipode::jobs::{VerifyOptions, verify_file};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// Analyze::new(&SlidingPuzzle::new(2, 3).unwrap()).table(&path).run().unwrap();
/// let one_thread = VerifyOptions { threads: Some(1), ..VerifyOptions::default() };
/// assert!(verify_file(&path, &one_thread).unwrap().iter().all(|check| check.ok));
/// ```
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// The puzzle's name or description file (a depth table of a sliding-block
    /// puzzle from a description).
    pub puzzle: Option<String>,
    /// The move metric the table was built with, if not the description's.
    pub metric: Option<Metric>,
    /// The goal a pattern database was built for, when its header holds it cut short.
    pub goal: Option<String>,
    /// Worker threads, `None` for all cores.
    pub threads: Option<usize>,
}

/// Why a file could not be verified (a check that fails is not an error: it is in the
/// list [`verify_file`] returns).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The file cannot be read, or its header or payload checksum is wrong.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The pattern database cannot be opened.
    #[error(transparent)]
    Pdb(#[from] PdbError),
    /// The puzzle (or the goal, or the metric) given.
    #[error("{}: {cause}", path.display())]
    Puzzle {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: String,
    },
    /// The worker threads.
    #[error(transparent)]
    Threads(#[from] PoolError),
}

/// Checks a table file: for a depth table the descent property of every entry, the
/// counts per level and the checksum; for a pattern database its payload, definition
/// and every entry. Returns the checks in order, each saying whether it holds.
///
/// # Errors
/// [`VerifyError`] if the file cannot be opened or is of no known kind.
///
/// ```
/// use antipode::{Analyze, jobs::{VerifyOptions, verify_file}, puzzles::SlidingPuzzle};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// Analyze::new(&SlidingPuzzle::new(2, 3).unwrap()).table(&path).run().unwrap();
/// let checks = verify_file(&path, &VerifyOptions::default()).unwrap();
/// assert!(checks.iter().all(|check| check.ok));
/// ```
pub fn verify_file(path: &Path, options: &VerifyOptions) -> Result<Vec<Check>, VerifyError> {
    verify_file_observed(path, options, &Silent)
}

/// [`verify_file`], telling `observer` of its progress: the check of every entry is
/// one level of work (`level_started` with the entries, then `work_done` as they are
/// checked).
///
/// # Errors
/// [`VerifyError`] if the file cannot be opened or is of no known kind.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use antipode::engine::Observer;
/// use antipode::jobs::{VerifyOptions, verify_file_observed};
/// use antipode::{Analyze, puzzles::SlidingPuzzle};
///
/// #[derive(Default)]
/// struct Checked(AtomicU64);
/// impl Observer for Checked {
///     fn work_done(&self, units: u64) {
///         self.0.fetch_add(units, Ordering::Relaxed);
///     }
/// }
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// Analyze::new(&SlidingPuzzle::new(2, 3).unwrap()).table(&path).run().unwrap();
/// let checked = Checked::default();
/// let checks = verify_file_observed(&path, &VerifyOptions::default(), &checked).unwrap();
/// assert!(checks.iter().all(|check| check.ok));
/// assert_eq!(checked.0.load(Ordering::Relaxed), 360);
/// ```
pub fn verify_file_observed(
    path: &Path,
    options: &VerifyOptions,
    observer: &dyn Observer,
) -> Result<Vec<Check>, VerifyError> {
    let header = match table::read_header_of(path) {
        Err(TableError::Header {
            cause: table::HeaderError::PegTable,
            ..
        }) => return pool::run_on(options.threads, || verify_peg(path, options, observer))?,
        other => other?,
    };
    if header.pattern.is_some() {
        return pool::run_on(options.threads, || {
            verify_pdb(path, &header, options, observer)
        })?;
    }
    let refuse = |cause: String| VerifyError::Puzzle {
        path: path.to_owned(),
        cause,
    };
    if options.goal.is_some() {
        return Err(refuse(
            "another goal is for pattern databases; a depth table's puzzle has its goal".into(),
        ));
    }
    let table = Table::open_unverified(path)?;
    let header = table.header();
    let puzzle = match &options.puzzle {
        Some(name) => puzzles::lookup(name).map_err(|e| refuse(e.to_string()))?,
        None => super::puzzle_from_identity(&header.puzzle, &header.goal).map_err(|e| {
            refuse(format!(
                "cannot find the puzzle `{}` by name (give its description file): {e}",
                header.puzzle
            ))
        })?,
    };
    let puzzle = match options.metric {
        Some(metric) => puzzle
            .with_metric(metric)
            .map_err(|e: CatalogError| refuse(e.to_string()))?,
        None => puzzle,
    };
    Ok(pool::run_on(
        options.threads,
        || with_puzzle!(&puzzle, p => table::verify_observed(&table, p, observer)),
    )?)
}

/// Checks a peg solitaire table ([`crate::solvers::peg::table::verify`]) of the board
/// its header names (or `--puzzle`, with `--goal` if it was built for another goal).
fn verify_peg(
    path: &Path,
    options: &VerifyOptions,
    observer: &dyn Observer,
) -> Result<Vec<Check>, VerifyError> {
    use crate::solvers::peg::table::{SolvableTable, verify_observed};
    let table = SolvableTable::open(path)?;
    let refuse = |cause: String| VerifyError::Puzzle {
        path: path.to_owned(),
        cause,
    };
    let name = options.puzzle.as_deref().unwrap_or(&table.header().puzzle);
    let board = match puzzles::open_with(name, options.goal.as_deref(), options.metric) {
        Ok(puzzles::Opened::Peg(board)) => board,
        Ok(_) => return Err(refuse(format!("{name} is not a peg solitaire board"))),
        Err(e) => {
            return Err(refuse(format!(
                "cannot find the board `{name}` (give its description file): {e}"
            )));
        }
    };
    table.check_board(&board)?;
    Ok(verify_observed(&table, &board, observer))
}

/// Checks a pattern database: opening it checks its payload and definition (a
/// failure there is the error), then every entry.
fn verify_pdb(
    path: &Path,
    header: &Header,
    options: &VerifyOptions,
    observer: &dyn Observer,
) -> Result<Vec<Check>, VerifyError> {
    let refuse = |cause: String| VerifyError::Puzzle {
        path: path.to_owned(),
        cause,
    };
    if options.puzzle.is_some() || options.metric.is_some() {
        return Err(refuse(
            "a pattern database names its board and goal itself: no puzzle description or metric"
                .into(),
        ));
    }
    let Some(info) = header.pattern.as_ref() else {
        return Err(refuse("not a pattern database".into()));
    };
    let shape = match puzzles::board_shape(&header.puzzle) {
        Some(shape) => shape.map_err(|e| refuse(e.to_string()))?,
        None => {
            return Err(refuse(format!(
                "`{}` is not a sliding board",
                header.puzzle
            )));
        }
    };
    let goal = match &options.goal {
        Some(goal) => shape
            .parse(goal)
            .map_err(|e| refuse(format!("the goal: {e}")))?,
        None if header.goal.ends_with('…') => {
            return Err(refuse(format!(
                "the header holds the goal cut short ({}): give the goal",
                header.goal
            )));
        }
        None => shape
            .parse(&header.goal)
            .map_err(|e| refuse(format!("its goal: {e}")))?,
    };
    let pattern = Pattern::new(shape.rows(), shape.cols(), &goal, &info.tiles)?;
    let pdb = Pdb::open(path, &pattern, &goal)?;
    let mut checks = vec![
        Check {
            name: "payload checksum".into(),
            ok: true,
            detail: format!("{:08x}", header.payload_crc32),
        },
        Check {
            name: "definition".into(),
            ok: true,
            detail: format!(
                "tiles {} of {} (goal {})",
                tile_list(&info.tiles),
                header.puzzle,
                header.goal
            ),
        },
    ];
    checks.extend(crate::pdb::verify::verify_observed(&pdb, observer));
    Ok(checks)
}
