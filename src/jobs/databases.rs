//! `antipode pdb` as a library call: open the pattern databases of a partition of a
//! sliding board's tiles, building (or resuming) the missing ones first.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::TABLES_DIR;
use crate::StopToken;
use crate::driver::Interrupted;
use crate::pdb::{BuildError, BuildSettings, Partition, PartitionEvent, PdbError};
use crate::pool::{self, PoolError};
use crate::puzzles::sliding::BoardShape;

/// Why a [`Databases`] job failed.
#[derive(Debug, thiserror::Error)]
pub enum DatabasesError {
    /// A pattern, a file or a build.
    #[error(transparent)]
    Pdb(#[from] PdbError),
    /// A tile list that is not numbers.
    #[error("`{0}` is not a tile number")]
    TileNumber(String),
    /// Neither a partition nor patterns were given.
    #[error("a partition into tile sets (e.g. 7-8) or a pattern of tiles is needed")]
    NoPatterns,
    /// The stop token was set: the build saved its progress, and the same job resumes.
    #[error(
        "interrupted: the build of {} is saved up to distance {} in {}; run the same \
         command again to resume",
        path.display(),
        stopped.levels.len().saturating_sub(1),
        stopped.checkpoint.as_deref().unwrap_or(std::path::Path::new("?")).display()
    )]
    Interrupted {
        /// The database being built.
        path: PathBuf,
        /// Its complete levels and its checkpoint file.
        stopped: Interrupted,
    },
    /// The worker threads.
    #[error(transparent)]
    Threads(#[from] PoolError),
}

/// The pattern databases of one partition of a board's tiles, kept as table files in a
/// folder (`tables/` unless [`Databases::dir`] says otherwise). [`Databases::open`]
/// opens those present and builds the others, resuming an interrupted build from its
/// checkpoint; the [`Partition`] it returns is the admissible heuristic `solve --pdb`
/// searches with.
///
/// ```
/// use antipode::jobs::Databases;
/// use antipode::puzzles::sliding::BoardShape;
///
/// let board = BoardShape::new(3, 3).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let partition = Databases::partition(&board, "4-4").unwrap().dir(dir.path()).open().unwrap();
/// assert_eq!(partition.databases().len(), 2);
/// let far = board.parse_position("8 6 7/2 5 4/3 0 1").unwrap();
/// assert!(partition.estimate(&far) <= 31);
/// ```
pub struct Databases<'a> {
    board: &'a BoardShape,
    patterns: Vec<Vec<u8>>,
    dir: PathBuf,
    threads: Option<usize>,
    stop: Option<StopToken>,
    checkpoint_every: Option<Duration>,
    events: Option<Box<dyn FnMut(PartitionEvent) + Send + 'a>>,
}

impl<'a> Databases<'a> {
    /// The board's tiles in the order of their goal cells, cut into patterns of the
    /// sizes `sizes` gives (`7-8`, `6-6-3`, `5-5-5`, `6-6-6-6`).
    ///
    /// # Errors
    /// [`DatabasesError`] if the sizes are not a partition of the board's tiles.
    pub fn partition(board: &'a BoardShape, sizes: &str) -> Result<Self, DatabasesError> {
        let patterns = Partition::split(board.rows(), board.cols(), board.goal(), sizes)?;
        Ok(Self::patterns(board, patterns))
    }

    /// Patterns given tile by tile.
    #[must_use]
    pub fn patterns(board: &'a BoardShape, patterns: Vec<Vec<u8>>) -> Self {
        Databases {
            board,
            patterns,
            dir: PathBuf::from(TABLES_DIR),
            threads: None,
            stop: None,
            checkpoint_every: BuildSettings::default().checkpoint_every,
            events: None,
        }
    }

    /// Patterns as comma-separated tile lists (`1,2,3,4,5,6,7`), at least one.
    ///
    /// # Errors
    /// [`DatabasesError`] if a list names something that is not a tile of the board, or
    /// a tile twice.
    pub fn tile_lists(board: &'a BoardShape, lists: &[String]) -> Result<Self, DatabasesError> {
        if lists.is_empty() {
            return Err(DatabasesError::NoPatterns);
        }
        let patterns = lists
            .iter()
            .map(|list| {
                list.split(',')
                    .map(|t| {
                        let t = t.trim();
                        t.parse::<u8>()
                            .map_err(|_| DatabasesError::TileNumber(t.into()))
                    })
                    .collect()
            })
            .collect::<Result<_, _>>()?;
        Ok(Self::patterns(board, patterns))
    }

    /// The folder of the database files.
    #[must_use]
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = dir.as_ref().to_owned();
        self
    }

    /// Worker threads of the builds, `None` for all cores.
    #[must_use]
    pub fn threads_or_all(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }

    /// A build stops after its current level once `token` is stopped, saving its
    /// progress ([`DatabasesError::Interrupted`]).
    #[must_use]
    pub fn stop(mut self, token: &StopToken) -> Self {
        self.stop = Some(token.clone());
        self
    }

    /// Builds save their progress at most this often (default 30 s, and no more often
    /// than keeps checkpoints to about 3% of a build); zero: after every level.
    #[must_use]
    pub fn checkpoint_every(mut self, every: Duration) -> Self {
        self.checkpoint_every = Some(every);
        self
    }

    /// Receives what happens: databases opened, builds started, levels, builds done.
    #[must_use]
    pub fn events(mut self, events: impl FnMut(PartitionEvent) + Send + 'a) -> Self {
        self.events = Some(Box::new(events));
        self
    }

    /// The patterns' tiles.
    #[must_use]
    pub fn pattern_tiles(&self) -> &[Vec<u8>] {
        &self.patterns
    }

    /// Opens the databases, building the missing ones.
    ///
    /// # Errors
    /// [`DatabasesError`] if a database cannot be read, built or written, the stop
    /// token ends a build ([`DatabasesError::Interrupted`]), or no worker threads can
    /// start.
    pub fn open(self) -> Result<Partition, DatabasesError> {
        let settings = BuildSettings {
            stop: self.stop.as_ref(),
            checkpoint_every: self.checkpoint_every,
        };
        let mut events = self.events.unwrap_or_else(|| Box::new(|_| {}));
        let (board, dir, patterns) = (self.board, &self.dir, &self.patterns);
        let opened = pool::run_on(self.threads, || {
            Partition::open_or_build(dir, board, patterns, &settings, &mut *events)
        })?;
        match opened {
            Err(PdbError::Build {
                cause: BuildError::Interrupted(stopped),
                path,
            }) if stopped.checkpoint.is_some() => {
                Err(DatabasesError::Interrupted { path, stopped })
            }
            other => Ok(other?),
        }
    }
}
