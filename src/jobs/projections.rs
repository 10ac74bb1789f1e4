//! `antipode pdb PUZZLE --orbits ...` and `solve PUZZLE --pdb ...` on twisty puzzles
//! as library calls: the pattern databases of a KPuzzle are the depth tables of its
//! projections (one byte per state), kept in a folder and built there where missing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Analyze, AnalyzeJobError, TABLES_DIR};
use crate::StopToken;
use crate::engine::{Observer, Silent};
use crate::puzzles::kpuzzle::{KPuzzle, KPuzzleError};
use crate::solvers::kpuzzle::Database;
use crate::store::Encoding;
use crate::table::{Table, TableError};

/// Why the databases of a twisty puzzle could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ProjectionsError {
    /// A projection that does not fit the puzzle.
    #[error(transparent)]
    Puzzle(#[from] KPuzzleError),
    /// Building a database.
    #[error(transparent)]
    Build(#[from] AnalyzeJobError),
    /// Opening one.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A database that cannot bound the search.
    #[error(transparent)]
    Database(#[from] crate::solvers::kpuzzle::KSearchError),
    /// The file a database would have holds another table.
    #[error(
        "{}: holds a table of {table}, not the database of {wanted}: move it away, or keep \
         the databases in another folder (--dir DIR)",
        path.display()
    )]
    Occupied {
        /// The file.
        path: PathBuf,
        /// Whose table it holds.
        table: String,
        /// The projection asked for.
        wanted: String,
    },
    /// No projection was named.
    #[error("name the projections, e.g. corners,edges6a,edges6b or CORNERS,EDGES:0-5")]
    Empty,
}

/// The pattern databases of some projections of a twisty puzzle, as table files in a
/// folder (`tables/` unless [`Projections::dir`] says otherwise), named
/// `PUZZLE-pdb-PROJECTION-8bit.table`. [`Projections::open`] opens those present and
/// builds the others (an interrupted build resumes).
///
/// ```
/// use antipode::jobs::Projections;
/// use antipode::puzzles::kpuzzle::library::open;
///
/// let cube = open("2x2x2").unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let databases = Projections::new(&cube, "CORNERS:0-3").dir(dir.path()).open().unwrap();
/// assert_eq!(databases[0].table().header().indices, 7 * 6 * 5 * 4 * 81);
/// ```
pub struct Projections<'a> {
    puzzle: &'a KPuzzle,
    specs: Vec<String>,
    dir: PathBuf,
    threads: Option<usize>,
    observer: &'a dyn Observer,
    stop: Option<StopToken>,
    checkpoint_every: Option<Duration>,
}

impl<'a> Projections<'a> {
    /// The databases of `puzzle`'s projections `specs` (comma-separated: a name from
    /// the definition, `ORBIT`, `ORBIT:PIECES`, joined by `+`).
    pub fn new(puzzle: &'a KPuzzle, specs: &str) -> Self {
        Projections {
            puzzle,
            specs: specs
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
            dir: PathBuf::from(TABLES_DIR),
            threads: None,
            observer: &Silent,
            stop: None,
            checkpoint_every: None,
        }
    }

    /// The folder of the database files.
    #[must_use]
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = dir.as_ref().to_owned();
        self
    }

    /// Worker threads of a build (default: all cores).
    #[must_use]
    pub fn threads_or_all(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }

    /// Receives a build's progress.
    #[must_use]
    pub fn observer(mut self, observer: &'a dyn Observer) -> Self {
        self.observer = observer;
        self
    }

    /// Stops a build (resumable) when the token is set.
    #[must_use]
    pub fn stop(mut self, token: &StopToken) -> Self {
        self.stop = Some(token.clone());
        self
    }

    /// Each table's build records its progress at most this often (default: every
    /// 2 s, and no more often than keeps checkpoints to about 3% of the run); zero:
    /// every level.
    #[must_use]
    pub fn checkpoint_every(mut self, every: Duration) -> Self {
        self.checkpoint_every = Some(every);
        self
    }

    /// The projected puzzles and the files of their databases, without opening them.
    ///
    /// # Errors
    /// [`ProjectionsError`] if the orbits asked for are not the puzzle's or a
    /// projection cannot be ranked.
    pub fn plan(&self) -> Result<Vec<(KPuzzle, PathBuf)>, ProjectionsError> {
        if self.specs.is_empty() {
            return Err(ProjectionsError::Empty);
        }
        self.specs
            .iter()
            .map(|spec| {
                let projection = self.puzzle.projection(spec)?;
                projection.layout()?;
                let path = self.dir.join(file_name(&projection));
                Ok((projection, path))
            })
            .collect()
    }

    /// Builds the missing databases (resuming unfinished ones) and opens every one
    /// as a table, checked against its projection; `building` is told of each build
    /// before it starts. [`Projections::open_with`] also readies them for a search.
    ///
    /// # Errors
    /// [`ProjectionsError`] if a table cannot be opened or built, the stop token ends a
    /// build, or no worker threads can start.
    pub fn tables_with(
        &self,
        mut building: impl FnMut(&KPuzzle, &Path),
    ) -> Result<Vec<(KPuzzle, Table)>, ProjectionsError> {
        let mut out = Vec::new();
        for (projection, path) in self.plan()? {
            // Missing, or unfinished (the build resumes it).
            let complete = match crate::table::read_header_of(&path) {
                Ok(header) => header.complete,
                Err(_) if !path.exists() => false,
                Err(e) => return Err(e.into()),
            };
            if !complete {
                building(&projection, &path);
                std::fs::create_dir_all(&self.dir).map_err(|cause| TableError::Io {
                    path: self.dir.clone(),
                    cause,
                })?;
                let mut job = Analyze::new(&projection)
                    .table(&path)
                    .encoding(Encoding::Byte)
                    .threads_or_all(self.threads)
                    .observer(self.observer);
                if let Some(stop) = &self.stop {
                    job = job.stop(stop);
                }
                if let Some(every) = self.checkpoint_every {
                    job = job.checkpoint_every(every);
                }
                job.run_with_table()?;
            }
            let table = Table::open(&path)?;
            match table.check_puzzle(&projection) {
                Err(TableError::OtherPuzzle {
                    path,
                    table,
                    wanted,
                }) => {
                    return Err(ProjectionsError::Occupied {
                        path,
                        table,
                        wanted,
                    });
                }
                other => other?,
            }
            out.push((projection, table));
        }
        Ok(out)
    }

    /// Opens every database for a search, building the missing ones first;
    /// `building` is told of each build before it starts.
    ///
    /// # Errors
    /// [`ProjectionsError`] as [`Projections::tables_with`].
    pub fn open_with(
        self,
        building: impl FnMut(&KPuzzle, &Path),
    ) -> Result<Vec<Database>, ProjectionsError> {
        self.tables_with(building)?
            .into_iter()
            .map(|(projection, table)| Ok(Database::new(projection, table)?))
            .collect()
    }

    /// Opens every database, building the missing ones first.
    ///
    /// # Errors
    /// [`ProjectionsError`] as [`Projections::tables_with`].
    pub fn open(self) -> Result<Vec<Database>, ProjectionsError> {
        self.open_with(|_, _| {})
    }
}

/// `PUZZLE-pdb-PROJECTION-8bit.table`, made safe for a file name: the `pdb` keeps it
/// apart from the default table of a puzzle named `PUZZLE-PROJECTION` (the
/// `3x3x3-corners` puzzle's `3x3x3-corners-8bit.table`).
fn file_name(projection: &KPuzzle) -> String {
    let spec = projection.variant().projection.clone().unwrap_or_default();
    let base = Path::new(projection.base_name())
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("kpuzzle")
        .trim_end_matches(".json")
        .trim_end_matches(".kpuzzle");
    let mut name = format!("{base}-pdb-{spec}");
    let suffix = projection.variant().suffix();
    if projection.variant().moves.is_some() {
        name.push_str(&format!(
            "-moves-{}",
            projection.generator_names().join("-")
        ));
    }
    if suffix.contains("--metric quarter") {
        name.push_str("-quarter");
    }
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{safe}-8bit.table")
}
