//! Depth tables as files: a 4096-byte header (see [`header`] and `tables/README.md`)
//! followed by the payload, the depth array exactly as the search leaves it in memory.
//!
//! Writing ([`build`], in `writer`) is crash-safe and has one writer at a time
//! ([`lock`]): at a checkpoint the payload is made durable first, then the header
//! that records the completed levels; only when the search is over is the payload
//! checksummed and the header marked complete. A file that does not say "complete" is
//! never used for answers, and running the same analysis again resumes it from its
//! last checkpoint. Readers take no lock.
//!
//! ```
//! use antipode::{Notation, Puzzle, driver::Control, puzzles::SlidingPuzzle, store::Encoding};
//! use antipode::table::{self, Table};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("8puzzle.table");
//! let eight = SlidingPuzzle::new(3, 3).unwrap();
//! let options = table::BuildOptions { encoding: Encoding::Mod3, ..Default::default() };
//! table::build(&eight, &path, &options, &Control::default()).unwrap();
//!
//! let table = Table::open(&path).unwrap();
//! let position = eight.parse("867254301").unwrap();
//! assert_eq!(table.distance(&eight, &position).unwrap(), 31);
//! assert_eq!(table.histogram().len(), 32);
//! ```

mod blocks;
mod copies;
mod disk_build;
pub mod disk_rate;
pub mod header;
pub mod lock;
mod shard_build;
pub mod shards;
mod verify;
mod writer;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use memmap2::MmapOptions;

use crate::descent::{self, DescentError};
use crate::engine::EngineError;
use crate::puzzle::{Puzzle, Step};
use crate::store::{DepthRead, Depths};
use crate::with_depths;
pub use blocks::{BLOCK_LOG2, BlockSums};
pub use header::{HEADER_BYTES, Header, HeaderError, definition_digest};
pub use shard_build::{BuiltShard, build_sharded};
pub use verify::{Check, verify, verify_observed};
pub use writer::{BuildOptions, Built};

/// Builds (or resumes) the table of `puzzle` at `path`: the search runs on the
/// current rayon pool, reports to `control.observer`, saves checkpoints at
/// `control`'s pacing, and `control.stop` interrupts it between work items. The file
/// is locked against other writers for the whole run. A table larger than
/// `options.memory` runs its levels on disk ([`crate::engine::OnDisk`]), as an
/// unfinished table begun that way does; the others run in memory.
///
/// # Errors
/// [`TableError`] if the file cannot be placed, created or resumed, a checkpoint or the
/// finished table cannot be written, or the stop token ends the run
/// ([`crate::engine::EngineError::Interrupted`] inside: the file keeps the complete
/// levels).
pub fn build<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    options: &BuildOptions,
    control: &crate::driver::Control<'_>,
) -> Result<Built, TableError> {
    let payload = options.encoding.payload_bytes(puzzle.index_count());
    match disk_build::memory_on_disk(path, payload, options) {
        Some(memory) => disk_build::build(puzzle, path, options, memory, control),
        None => writer::build_in_memory(puzzle, path, options, control),
    }
}

/// What can go wrong with a table file.
///
/// ```
/// use antipode::table::{Table, TableError};
///
/// let missing = Table::open("no-such.table");
/// assert!(matches!(missing, Err(TableError::Io { .. })));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Reading or writing the file failed.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        cause: std::io::Error,
    },
    /// The header is unreadable.
    #[error("{path}: {cause}")]
    Header {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        cause: HeaderError,
    },
    /// The file is shorter or longer than its header says.
    #[error("{path}: truncated or resized: expected {expected} bytes, found {found}")]
    Size {
        /// The file.
        path: PathBuf,
        /// Header plus payload.
        expected: u64,
        /// Actual length.
        found: u64,
    },
    /// The payload does not match its checksum.
    #[error("{path}: the payload is corrupted (checksum {found:08x}, header says {expected:08x})")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// From the header.
        expected: u32,
        /// Computed now.
        found: u32,
    },
    /// A block of the payload does not match its checksum (format version 3).
    #[error(
        "{path}: the payload is corrupted: block {block} (bytes {}..{} of the payload) has \
         checksum {found:08x}, the file says {expected:08x}",
        bytes.start, bytes.end
    )]
    BlockChecksum {
        /// The file.
        path: PathBuf,
        /// The block's number.
        block: u64,
        /// Its bytes in the file's payload.
        bytes: std::ops::Range<u64>,
        /// From the file's list of block checksums.
        expected: u32,
        /// Computed now.
        found: u32,
    },
    /// The search that writes the table has not finished.
    #[error(
        "{path}: the table is incomplete ({levels} level(s) done); run `antipode analyze` \
         with this table again to finish it"
    )]
    Incomplete {
        /// The file.
        path: PathBuf,
        /// Completed levels.
        levels: usize,
    },
    /// The file is a pattern database where a depth table was wanted.
    #[error("{path}: this is a pattern database, not a depth table (a heuristic for solving)")]
    PatternDatabase {
        /// The file.
        path: PathBuf,
    },
    /// The table belongs to another puzzle (or goal, or encoding).
    #[error("{path}: this table is for {table}, not {wanted}")]
    OtherPuzzle {
        /// The file.
        path: PathBuf,
        /// The table's puzzle.
        table: String,
        /// The puzzle asked for.
        wanted: String,
    },
    /// The depth array cannot be given memory.
    #[error(transparent)]
    Memory(#[from] crate::store::StoreError),
    /// The disk cannot hold the table.
    #[error(
        "{path}: the table needs {} on disk while it is built, only {} are free",
        crate::units::human_bytes(*needed as f64),
        crate::units::human_bytes(*available as f64)
    )]
    NoSpace {
        /// The file.
        path: PathBuf,
        /// The file's length while it is built (in memory: header and two copies of
        /// the payload; levels on disk: one).
        needed: u64,
        /// Free space on the file system, as far as it is known.
        available: u64,
    },
    /// Refusing to overwrite a finished table.
    #[error(
        "{path}: a complete table of {puzzle} is already there (the force option overwrites it)"
    )]
    Exists {
        /// The file.
        path: PathBuf,
        /// The puzzle of the table there.
        puzzle: String,
    },
    /// The file is not a table this run can continue.
    #[error(
        "{path}: exists and is not an unfinished table of this puzzle ({reason}); \
         use --force to overwrite it"
    )]
    NotResumable {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The path cannot hold a table.
    #[error("{path}: {reason}")]
    Place {
        /// The path.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// Writing the table failed part-way; the file keeps its last checkpoint.
    #[error(
        "{path}: writing {what} failed: {cause}; the file keeps its last checkpoint \
         ({levels} complete level(s)): run the same command again to resume from it"
    )]
    WriteFailed {
        /// The file.
        path: PathBuf,
        /// What was being written.
        what: &'static str,
        /// The levels the file holds durably.
        levels: usize,
        /// The system's reason.
        cause: std::io::Error,
    },
    /// Another writer holds the file.
    #[error(
        "{path}: another {} is writing this file; wait until it ends (or stop it) and run \
         this command again",
        holder.as_ref().map_or("process".to_owned(), ToString::to_string)
    )]
    Busy {
        /// The file.
        path: PathBuf,
        /// Who holds it, where the system says.
        holder: Option<lock::Holder>,
    },
    /// The names do not fit in the header.
    #[error("the puzzle name or goal is too long for a table header")]
    NameTooLong,
    /// A table in shards: its manifest, or a shard against its manifest, is wrong.
    #[error("{path}: {reason}")]
    Shards {
        /// The manifest, or the shard file at fault.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A table in shards is resumed by another number of ranks than built it.
    #[error(
        "{path}: this table is built by {built} ranks, not {ranks}: resume it with \
         `mpirun -np {built}` (or use --force to start it over with {ranks})"
    )]
    RankCount {
        /// The manifest.
        path: PathBuf,
        /// The ranks the manifest records.
        built: usize,
        /// The ranks of this run.
        ranks: usize,
    },
    /// A partitioned build was given a stop token: its ranks would have to agree on
    /// the level to stop at. Stopping the job stops every rank, and the table resumes
    /// from its last checkpoint.
    #[error(
        "a partitioned build takes no stop token: stop the job (every rank), and it resumes from its last checkpoint"
    )]
    PartitionedStop,
    /// Another rank of a partitioned build failed (it says why).
    #[error("{path}: rank {rank} failed (its message says why); this rank stopped too")]
    OtherRank {
        /// The table's folder.
        path: PathBuf,
        /// The first rank that failed.
        rank: usize,
    },
    /// The search failed or was interrupted.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A distance or solution could not be read out.
    #[error("{0}")]
    Descent(#[from] DescentError),
}

impl From<crate::driver::Interrupted> for TableError {
    fn from(stopped: crate::driver::Interrupted) -> Self {
        TableError::Engine(EngineError::Interrupted(stopped))
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |cause| TableError::Io {
        path: path.to_owned(),
        cause,
    }
}

/// How a table names its puzzle.
///
/// ```
/// use antipode::puzzles::SlidingPuzzle;
/// use antipode::table;
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let identity = table::identity(&board);
/// assert_eq!((identity.name.as_str(), identity.goal.as_str()), ("sliding:2x3", "123/450"));
/// assert_eq!(identity.digest.len(), 64);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The command-line name.
    pub name: String,
    /// The goal's one-line form, or `N goal states` for a goal set.
    pub goal: String,
    /// SHA-256 (hex) of the puzzle's canonical definition: what is compared.
    pub digest: String,
}

/// The identity a table of `puzzle` records.
pub fn identity<P: Puzzle>(puzzle: &P) -> Identity {
    Identity {
        // Names cut to the header's field, as goals are: the definition's digest
        // tells puzzles apart (a search from a twisty position has a long name).
        name: header::fit_text(&puzzle.name()),
        goal: header::fit_text(&puzzle.goal_summary()),
        digest: definition_digest(&puzzle.definition()),
    }
}

impl Identity {
    /// Whether a table with `header` was built for this puzzle: the same definition
    /// digest (version 2), or the same name and goal (version 1).
    #[must_use]
    pub fn matches(&self, header: &Header) -> bool {
        match &header.definition_sha256 {
            Some(digest) => *digest == self.digest,
            None => header.puzzle == self.name && header.goal == self.goal,
        }
    }
}

/// The slices [`payload_crc32`] hashes in parallel.
pub(crate) const CRC_SLICE: usize = 1 << 22;

/// CRC-32 of a payload, computed in parallel slices and combined.
#[must_use]
pub fn payload_crc32(payload: &[u8]) -> u32 {
    blocks::checksums(payload, CRC_SLICE.trailing_zeros() as u8).1
}

/// A complete table, mapped read-only (copy-on-write: nothing is ever written back).
///
/// ```
/// use antipode::{Notation, Puzzle, driver::Control, puzzles::SlidingPuzzle};
/// use antipode::table::{self, BuildOptions, Table};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// table::build(&board, &path, &BuildOptions::default(), &Control::default()).unwrap();
/// let table = Table::open(&path).unwrap();
/// assert!(table.header().complete);
/// assert_eq!(table.histogram().iter().sum::<u64>(), 360);
/// assert_eq!(table.distance(&board, &board.parse("450/123").unwrap()).unwrap(), 21);
/// ```
pub struct Table {
    path: PathBuf,
    header: Header,
    depths: Depths,
    /// Checks the payload's blocks as answers read them (format version 3).
    guard: blocks::Guard,
}

impl Table {
    /// Opens a complete table: checks the header and the file size; then every answer
    /// ([`Table::distance`], [`Table::solve`], [`PuzzleTable`]) reads only checked
    /// bytes. A table of format version 3 has a checksum per 1 MiB block of its payload,
    /// and a block is checked the first time an answer reads it (so opening a table of
    /// any size reads only its header and that list); an older table's payload is
    /// checked whole here.
    ///
    /// # Errors
    /// [`TableError`] if the file cannot be read, is not a complete table, or its
    /// checksum fails.
    pub fn open(path: impl AsRef<Path>) -> Result<Table, TableError> {
        Self::open_checked(path.as_ref(), true)
    }

    /// Opens a complete table without checking an older table's payload (for
    /// [`verify`], which reports it, and for readers that accept the risk). A table of
    /// format version 3 still checks each block as answers read it.
    ///
    /// # Errors
    /// [`TableError`] if the file cannot be read or is not a complete table.
    pub fn open_unverified(path: impl AsRef<Path>) -> Result<Table, TableError> {
        Self::open_checked(path.as_ref(), false)
    }

    fn open_checked(path: &Path, check_payload: bool) -> Result<Table, TableError> {
        if let Some(manifest) = shards::manifest_path(path) {
            let (header, depths, guard) = shards::open(&manifest, check_payload)?;
            return Ok(Table {
                path: path.to_owned(),
                header,
                depths,
                guard,
            });
        }
        let (file, header) = read_header(path)?;
        if header.pattern.is_some() {
            return Err(TableError::PatternDatabase {
                path: path.to_owned(),
            });
        }
        check_size(path, &file, &header)?;
        if header.index_range != (0..header.indices) {
            return Err(TableError::Header {
                path: path.to_owned(),
                cause: HeaderError::Field(format!(
                    "a shard of a table (indices {}..{} of {}): open the whole table",
                    header.index_range.start, header.index_range.end, header.indices
                )),
            });
        }
        if !header.complete {
            return Err(TableError::Incomplete {
                path: path.to_owned(),
                levels: header.histogram.len(),
            });
        }
        let mut guard = blocks::Guard::default();
        if let Some(list) = blocks::read_list(path, &file, &header)? {
            guard.add(path, 0, &header, list);
        }
        // SAFETY: a private (copy-on-write) mapping: writes by others to the file may
        // show through, which the checksums and the complete flag guard against for
        // tables written by antipode; this process never writes it.
        let map = unsafe {
            MmapOptions::new()
                .offset(HEADER_BYTES as u64)
                .len(header.payload_bytes as usize)
                .map_copy(&file)
        }
        .map_err(io_error(path))?;
        crate::sys::advise_huge_pages(&map);
        if check_payload && !guard.is_active() {
            check_payload_crc32(path, &header, &map)?;
        }
        let depths = Depths::from_map(header.encoding, map, header.indices)
            .ok_or_else(|| not_depths(path))?;
        Ok(Table {
            path: path.to_owned(),
            header,
            depths,
            guard,
        })
    }

    /// The depth array, for a whole pass over it (a report of a complete table); the
    /// blocks' checksums are no longer checked as it is read, so check the file first
    /// ([`check_file`]).
    pub(crate) fn into_depths(self) -> Depths {
        self.depths
    }

    /// The file it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// States per distance.
    pub fn histogram(&self) -> &[u64] {
        &self.header.histogram
    }

    /// The depth array as mapped, unchecked: for a reader of the whole array, after
    /// [`Table::check_all`].
    pub fn depths(&self) -> &Depths {
        &self.depths
    }

    /// Checks every block of the payload not checked yet (version 3; in parallel): for
    /// readers of the whole array ([`Table::depths`]).
    ///
    /// # Errors
    /// [`TableError`] if a block's checksum fails.
    pub fn check_all(&self) -> Result<(), TableError> {
        Ok(self.guard.check_all(self.depths.map())?)
    }

    /// Whether the payload has checksums per block (format version 3), checked as
    /// answers read them.
    pub fn checks_blocks(&self) -> bool {
        self.guard.is_active()
    }

    /// Runs `read` on the depth array as answers see it: an entry of a block that does
    /// not match its checksum reads as unreached, and then the answer is that error.
    fn checked<T>(
        &self,
        read: impl FnOnce(&dyn DepthRead) -> Result<T, DescentError>,
    ) -> Result<T, TableError> {
        let payload = self.depths.map();
        let bits = self.header.encoding.bits();
        with_depths!(&self.depths, s => {
            let checked = blocks::Checked::new(s, &self.guard, payload, bits);
            let answer = read(&checked);
            match checked.failure() {
                Some(bad) => Err(bad.into()),
                None => Ok(answer?),
            }
        })
    }

    /// Fails unless the table was built for exactly this puzzle and goal set.
    ///
    /// # Errors
    /// [`TableError`] if the table was built for another puzzle.
    pub fn check_puzzle<P: Puzzle>(&self, puzzle: &P) -> Result<(), TableError> {
        let identity = identity(puzzle);
        if !identity.matches(&self.header) || puzzle.index_count() != self.header.indices {
            let same_words =
                identity.name == self.header.puzzle && identity.goal == self.header.goal;
            return Err(TableError::OtherPuzzle {
                path: self.path.clone(),
                table: format!("{} (goal {})", self.header.puzzle, self.header.goal),
                wanted: if same_words {
                    format!(
                        "{} (goal {}) as defined now: the definitions differ (another move \
                         metric, description or numbering)",
                        identity.name, identity.goal
                    )
                } else {
                    format!("{} (goal {})", identity.name, identity.goal)
                },
            });
        }
        Ok(())
    }

    /// The table as seen by `puzzle`, checked once to be its table: for answering
    /// many positions without repeating the check.
    ///
    /// # Errors
    /// [`TableError`] if the table was built for another puzzle.
    pub fn for_puzzle<'a, P: Puzzle>(
        &'a self,
        puzzle: &'a P,
    ) -> Result<PuzzleTable<'a, P>, TableError> {
        self.check_puzzle(puzzle)?;
        Ok(PuzzleTable {
            table: self,
            puzzle,
        })
    }

    /// The table as seen by `puzzle`, which [`Table::check_puzzle`] accepted before
    /// (not checked again: for a reader that keeps the table and its puzzle together
    /// and answers many calls, such as the Python and C bindings).
    pub fn for_checked_puzzle<'a, P: Puzzle>(&'a self, puzzle: &'a P) -> PuzzleTable<'a, P> {
        PuzzleTable {
            table: self,
            puzzle,
        }
    }

    /// The exact distance of `position` from the goal.
    ///
    /// # Errors
    /// [`TableError`] if the position is unreached or the table inconsistent.
    pub fn distance<P: Puzzle>(&self, puzzle: &P, position: &P::State) -> Result<u32, TableError> {
        self.for_puzzle(puzzle)?.distance(position)
    }

    /// The exact distance of the state with index `index` from the goal.
    ///
    /// # Errors
    /// [`TableError`] if the index is out of range or unreached, or the table
    /// inconsistent.
    pub fn distance_of_index<P: Puzzle>(&self, puzzle: &P, index: u64) -> Result<u32, TableError> {
        self.for_puzzle(puzzle)?.distance_of_index(index)
    }

    /// An optimal solution from `position`, by descent.
    ///
    /// # Errors
    /// [`TableError`] if the position is unreached or the table inconsistent.
    pub fn solve<P: Puzzle>(
        &self,
        puzzle: &P,
        position: &P::State,
    ) -> Result<Vec<Step<P>>, TableError> {
        self.for_puzzle(puzzle)?.solve(position)
    }
}

/// A [`Table`] known to belong to a puzzle ([`Table::for_puzzle`]).
///
/// ```
/// use antipode::{Notation, Puzzle, driver::Control, puzzles::SlidingPuzzle};
/// use antipode::table::{self, BuildOptions, Table};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// table::build(&board, &path, &BuildOptions::default(), &Control::default()).unwrap();
/// let table = Table::open(&path).unwrap();
/// let lookups = table.for_puzzle(&board).unwrap();
/// let start = board.parse("450/123").unwrap();
/// assert_eq!(lookups.distance(&start).unwrap(), 21);
/// // An optimal solution, by descent: one step per move.
/// assert_eq!(lookups.solve(&start).unwrap().len(), 21);
/// ```
pub struct PuzzleTable<'a, P: Puzzle> {
    table: &'a Table,
    puzzle: &'a P,
}

impl<P: Puzzle> PuzzleTable<'_, P> {
    /// The exact distance of `position` from the goal.
    ///
    /// # Errors
    /// [`TableError`] if the position is unreached or the table inconsistent.
    pub fn distance(&self, position: &P::State) -> Result<u32, TableError> {
        self.distance_of_index(self.puzzle.rank(position))
    }

    /// The exact distance of the state with index `index` (below the index count)
    /// from the goal.
    ///
    /// # Errors
    /// [`TableError`] if the index is out of range or unreached, or the table
    /// inconsistent.
    pub fn distance_of_index(&self, index: u64) -> Result<u32, TableError> {
        self.table
            .checked(|s| descent::distance(self.puzzle, s, index))
    }

    /// An optimal solution from `position`, by descent.
    ///
    /// # Errors
    /// [`TableError`] if the position is unreached or the table inconsistent.
    pub fn solve(&self, position: &P::State) -> Result<Vec<Step<P>>, TableError> {
        self.table
            .checked(|s| descent::solve(self.puzzle, s, position))
    }
}

/// The header of the table at `path`, whatever its state (for `antipode info`); of
/// a table in shards (a folder or its manifest), the whole table's
/// ([`shards::read_whole_header`]).
///
/// # Errors
/// [`TableError`] if the file cannot be read or holds no table header.
pub fn read_header_of(path: impl AsRef<Path>) -> Result<Header, TableError> {
    let path = path.as_ref();
    match shards::manifest_path(path) {
        Some(manifest) => shards::read_whole_header(&manifest).map(|(_, header)| header),
        None => read_header(path).map(|(_, header)| header),
    }
}

fn read_header(path: &Path) -> Result<(File, Header), TableError> {
    let mut file = crate::persist::open_regular(path).map_err(io_error(path))?;
    let mut block = vec![0u8; HEADER_BYTES];
    let mut read = 0;
    while read < HEADER_BYTES {
        match file.read(&mut block[read..]).map_err(io_error(path))? {
            0 => break,
            n => read += n,
        }
    }
    if read < HEADER_BYTES {
        let found = file.metadata().map(|m| m.len()).unwrap_or(read as u64);
        if found >= 8 && block[..8] == header::MAGIC {
            return Err(TableError::Size {
                path: path.to_owned(),
                expected: HEADER_BYTES as u64,
                found,
            });
        }
        return Err(TableError::Header {
            path: path.to_owned(),
            cause: HeaderError::Magic,
        });
    }
    let header = Header::decode(&block).map_err(|cause| TableError::Header {
        path: path.to_owned(),
        cause,
    })?;
    Ok((file, header))
}

/// Whether the complete table, pattern database or folder of shards at `path` is the
/// file its header describes: its size and, with `check_payload`, its payload's
/// checksum and every block's (the whole payload is read).
///
/// # Errors
/// [`TableError`] if the file cannot be read or is not a table.
pub fn check_file(path: &Path, check_payload: bool) -> Result<(), TableError> {
    if let Some(manifest) = shards::manifest_path(path) {
        let (_, depths, guard) = shards::open(&manifest, check_payload)?;
        if check_payload {
            guard.check_all(depths.map())?;
        }
        return Ok(());
    }
    let (file, header) = read_header(path)?;
    check_size(path, &file, &header)?;
    if !(header.complete && check_payload) {
        return Ok(());
    }
    let list = blocks::read_list(path, &file, &header)?;
    // SAFETY: a read-only mapping read once for its checksum; a file changed by
    // another process meanwhile gives a wrong checksum, which is reported.
    let map = unsafe {
        MmapOptions::new()
            .offset(HEADER_BYTES as u64)
            .len(header.payload_bytes as usize)
            .map(&file)
    }
    .map_err(io_error(path))?;
    if let Some(list) = list {
        let mut guard = blocks::Guard::default();
        guard.add(path, 0, &header, list);
        guard.check_all(&map)?;
    }
    check_payload_crc32(path, &header, &map)
}

/// Refuses a payload whose CRC-32 is not the one its header records.
fn check_payload_crc32(path: &Path, header: &Header, payload: &[u8]) -> Result<(), TableError> {
    let found = payload_crc32(payload);
    if found != header.payload_crc32 {
        return Err(TableError::Checksum {
            path: path.to_owned(),
            expected: header.payload_crc32,
            found,
        });
    }
    Ok(())
}

fn check_size(path: &Path, file: &File, header: &Header) -> Result<(), TableError> {
    let list = header
        .block_sums
        .map_or(0, |sums| sums.list_bytes(header.payload_bytes));
    let expected = HEADER_BYTES as u64 + header.payload_bytes + list;
    let found = file.metadata().map_err(io_error(path))?.len();
    // A table under construction may also hold the spare copy of its payload.
    let fits = if header.complete {
        found == expected
    } else {
        found >= copies::offset(header.payload_bytes, header.checkpoint_slot) + header.payload_bytes
    };
    if !fits {
        return Err(TableError::Size {
            path: path.to_owned(),
            expected,
            found,
        });
    }
    Ok(())
}

/// The error for a depth table asked to hold 4-bit entries.
fn not_depths(path: &Path) -> TableError {
    TableError::Header {
        path: path.to_owned(),
        cause: HeaderError::Field("4-bit entries hold pattern databases, not depths".into()),
    }
}
