//! Depth tables as files: a 4096-byte header (see [`header`] and `tables/README.md`)
//! followed by the payload, the depth array exactly as the search leaves it in memory.
//!
//! Writing is crash-safe: after every level the payload is flushed first, then the
//! header records the completed levels and is flushed; only when the search is over is
//! the payload checksummed and the header marked complete. A file that does not say
//! "complete" is never used for answers, and running the same analysis again resumes
//! it from its last completed level.
//!
//! ```
//! use antipode::{Puzzle, engine::Silent, puzzles::SlidingPuzzle, store::Encoding};
//! use antipode::table::{self, Table};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("8puzzle.table");
//! let eight = SlidingPuzzle::new(3, 3).unwrap();
//! let options = table::BuildOptions { encoding: Encoding::Mod3, ..Default::default() };
//! table::build(&eight, &path, &options, &Silent, None).unwrap();
//!
//! let table = Table::open(&path).unwrap();
//! let position = eight.parse("867254301").unwrap();
//! assert_eq!(table.distance(&eight, &position).unwrap(), 31);
//! assert_eq!(table.histogram().len(), 32);
//! ```

mod copies;
pub mod header;
mod verify;

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use memmap2::{MmapMut, MmapOptions};
use rayon::prelude::*;

use crate::descent::{self, DescentError};
use crate::engine::{self, EngineError, Histogram, Observer, SearchOptions};
use crate::puzzle::{Puzzle, Step};
use crate::store::{Depths, Encoding};
use crate::with_depths;
pub use header::{HEADER_BYTES, Header, HeaderError, definition_digest};
pub use verify::{Check, verify};

/// What can go wrong with a table file.
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
    #[error("{path}: this is a pattern database, not a depth table (solve uses it with --pdb)")]
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
        "{path}: the table needs {} on disk while it is built (two copies of its \
         entries), only {} are free",
        crate::units::human_bytes(*needed as f64),
        crate::units::human_bytes(*available as f64)
    )]
    NoSpace {
        /// The file.
        path: PathBuf,
        /// Header and two copies of the payload.
        needed: u64,
        /// Free space on the file system, as far as it is known.
        available: u64,
    },
    /// Refusing to overwrite a finished table.
    #[error("{path}: a complete table of {puzzle} is already there (use --force to overwrite it)")]
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
    /// The names do not fit in the header.
    #[error("the puzzle name or goal is too long for a table header")]
    NameTooLong,
    /// The search failed or was interrupted.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A distance or solution could not be read out.
    #[error("{0}")]
    Descent(#[from] DescentError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |cause| TableError::Io {
        path: path.to_owned(),
        cause,
    }
}

/// How a table names its puzzle.
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
        name: puzzle.name(),
        goal: header::fit_text(&puzzle.goal_summary()),
        digest: definition_digest(&puzzle.definition()),
    }
}

impl Identity {
    /// Whether a table with `header` was built for this puzzle: the same definition
    /// digest (version 2), or the same name and goal (version 1).
    pub fn matches(&self, header: &Header) -> bool {
        match &header.definition_sha256 {
            Some(digest) => *digest == self.digest,
            None => header.puzzle == self.name && header.goal == self.goal,
        }
    }
}

/// CRC-32 of a payload, computed in parallel slices and combined.
pub fn payload_crc32(payload: &[u8]) -> u32 {
    const SLICE: usize = 1 << 22;
    let parts: Vec<crc32fast::Hasher> = payload
        .par_chunks(SLICE)
        .map(|chunk| {
            let mut h = crc32fast::Hasher::new();
            h.update(chunk);
            h
        })
        .collect();
    let mut total = crc32fast::Hasher::new();
    for part in &parts {
        total.combine(part);
    }
    total.finalize()
}

/// A complete table, mapped read-only (copy-on-write: nothing is ever written back).
pub struct Table {
    path: PathBuf,
    header: Header,
    depths: Depths,
}

impl Table {
    /// Opens a complete table: checks the header, the file size and the payload's
    /// checksum.
    pub fn open(path: impl AsRef<Path>) -> Result<Table, TableError> {
        Self::open_checked(path.as_ref(), true)
    }

    /// Opens a complete table without checking the payload's checksum (for
    /// [`verify`], which reports it).
    pub fn open_unverified(path: impl AsRef<Path>) -> Result<Table, TableError> {
        Self::open_checked(path.as_ref(), false)
    }

    fn open_checked(path: &Path, check_payload: bool) -> Result<Table, TableError> {
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
        // SAFETY: a private (copy-on-write) mapping: writes by others to the file may
        // show through, which the checksum below and the complete flag guard against
        // for tables written by antipode; this process never writes it.
        let map = unsafe {
            MmapOptions::new()
                .offset(HEADER_BYTES as u64)
                .len(header.payload_bytes as usize)
                .map_copy(&file)
        }
        .map_err(io_error(path))?;
        let found = if check_payload {
            payload_crc32(&map)
        } else {
            header.payload_crc32
        };
        if found != header.payload_crc32 {
            return Err(TableError::Checksum {
                path: path.to_owned(),
                expected: header.payload_crc32,
                found,
            });
        }
        let depths = Depths::from_map(header.encoding, map, header.indices)
            .ok_or_else(|| not_depths(path))?;
        Ok(Table {
            path: path.to_owned(),
            header,
            depths,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// States per distance.
    pub fn histogram(&self) -> &[u64] {
        &self.header.histogram
    }

    /// The depth array.
    pub fn depths(&self) -> &Depths {
        &self.depths
    }

    /// Fails unless the table was built for exactly this puzzle and goal set.
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

    /// The exact distance of `position` from the goal.
    pub fn distance<P: Puzzle>(&self, puzzle: &P, position: &P::State) -> Result<u32, TableError> {
        self.for_puzzle(puzzle)?.distance(position)
    }

    /// An optimal solution from `position`, by descent.
    pub fn solve<P: Puzzle>(
        &self,
        puzzle: &P,
        position: &P::State,
    ) -> Result<Vec<Step<P>>, TableError> {
        self.for_puzzle(puzzle)?.solve(position)
    }
}

/// A [`Table`] known to belong to a puzzle ([`Table::for_puzzle`]).
pub struct PuzzleTable<'a, P: Puzzle> {
    table: &'a Table,
    puzzle: &'a P,
}

impl<P: Puzzle> PuzzleTable<'_, P> {
    /// The exact distance of `position` from the goal.
    pub fn distance(&self, position: &P::State) -> Result<u32, TableError> {
        let index = self.puzzle.rank(position);
        Ok(with_depths!(&self.table.depths, s => descent::distance(self.puzzle, s, index))?)
    }

    /// An optimal solution from `position`, by descent.
    pub fn solve(&self, position: &P::State) -> Result<Vec<Step<P>>, TableError> {
        Ok(with_depths!(&self.table.depths, s => descent::solve(self.puzzle, s, position))?)
    }
}

/// The header of the table at `path`, whatever its state (for `antipode info`).
pub fn read_header_of(path: impl AsRef<Path>) -> Result<Header, TableError> {
    read_header(path.as_ref()).map(|(_, header)| header)
}

fn read_header(path: &Path) -> Result<(File, Header), TableError> {
    let mut file = File::open(path).map_err(io_error(path))?;
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

fn check_size(path: &Path, file: &File, header: &Header) -> Result<(), TableError> {
    let expected = HEADER_BYTES as u64 + header.payload_bytes;
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

/// The file side of a table being built.
struct Writer {
    path: PathBuf,
    file: File,
    copies: copies::Copies,
    header: Header,
    /// How long the last checkpoint took.
    last_cost: std::time::Duration,
}

impl Writer {
    fn write_header(&mut self) -> std::io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(&self.header.encode())?;
        self.file.sync_data()
    }

    /// Makes the completed levels durable: the array goes to the copy the header does
    /// not point at, then the header points at it.
    fn checkpoint(&mut self, map: &MmapMut, histogram: &[u64]) -> std::io::Result<()> {
        let started = std::time::Instant::now();
        let payload = self.header.payload_bytes;
        let target = 1 - self.header.checkpoint_slot;
        self.copies
            .write(&map[..payload as usize], copies::offset(payload, target))?;
        self.header.histogram = histogram.to_vec();
        self.header.checkpoint_slot = target;
        self.write_header()?;
        self.last_cost = started.elapsed();
        Ok(())
    }
}

/// Opens `path` to resume an unfinished table of the same puzzle and encoding, or
/// creates it. Returns the writer, the depth array (in memory, with the levels done
/// loaded), and the levels done.
fn create_or_resume<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    encoding: Encoding,
    force: bool,
) -> Result<(Writer, Depths, Option<Vec<u64>>), TableError> {
    let identity = identity(puzzle);
    let fresh = fresh_header(&identity, puzzle.index_count(), encoding);
    if !fresh.fits() {
        return Err(TableError::NameTooLong);
    }
    let resume = if path.exists() && !force {
        levels_to_resume(path, &identity, &fresh)?
    } else {
        None
    };
    // Refuse a disk too small before touching any file.
    let needed = copies::building_len(fresh.payload_bytes);
    check_room(path, needed)?;
    let mut writer = open_writer(path, fresh, resume.as_deref())?;
    if writer.file.metadata().map_err(io_error(path))?.len() < needed {
        writer.file.set_len(needed).map_err(io_error(path))?;
        writer.file.sync_all().map_err(io_error(path))?;
    }
    reserve_blocks(&writer, needed, resume.is_none())?;
    // The search runs in memory; the file gets the array at checkpoints.
    let mut depths =
        Depths::anonymous(encoding, puzzle.index_count())?.ok_or_else(|| not_depths(path))?;
    if resume.is_some() {
        let payload = writer.header.payload_bytes;
        let at = copies::offset(payload, writer.header.checkpoint_slot);
        writer
            .copies
            .read(&mut depths.map_mut()[..payload as usize], at)
            .map_err(io_error(path))?;
    }
    Ok((writer, depths, resume))
}

/// The header of a new, empty table of the puzzle `identity` names.
fn fresh_header(identity: &Identity, indices: u64, encoding: Encoding) -> Header {
    Header {
        version: header::VERSION,
        puzzle: identity.name.clone(),
        goal: identity.goal.clone(),
        definition_sha256: Some(identity.digest.clone()),
        indices,
        encoding,
        complete: false,
        histogram: Vec::new(),
        index_range: 0..indices,
        payload_bytes: encoding.payload_bytes(indices),
        payload_crc32: 0,
        pattern: None,
        checkpoint_slot: 0,
    }
}

/// The levels an unfinished table of the same puzzle and encoding at `path` holds
/// (`None` if it holds none yet); refuses a complete table and any other file.
fn levels_to_resume(
    path: &Path,
    identity: &Identity,
    fresh: &Header,
) -> Result<Option<Vec<u64>>, TableError> {
    let existing = read_header(path)
        .and_then(|(file, header)| check_size(path, &file, &header).map(|()| header));
    match existing {
        Ok(header) if header.complete => {
            let puzzle = if identity.matches(&header) {
                header.puzzle
            } else {
                format!(
                    "{} (goal {}), not of this puzzle or definition,",
                    header.puzzle, header.goal
                )
            };
            Err(TableError::Exists {
                path: path.to_owned(),
                puzzle,
            })
        }
        Ok(header)
            if identity.matches(&header)
                && header.encoding == fresh.encoding
                && header.indices == fresh.indices
                && header.index_range == fresh.index_range =>
        {
            Ok((!header.histogram.is_empty()).then_some(header.histogram))
        }
        Ok(header) => Err(TableError::NotResumable {
            path: path.to_owned(),
            reason: format!(
                "it is for {} with {}-bit entries",
                header.puzzle,
                header.encoding.bits()
            ),
        }),
        Err(e) => Err(TableError::NotResumable {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// Refuses a file system without `needed` bytes for the table at `path`. Blocks the
/// file holds already count as free: they are kept on resume and freed by an
/// overwrite.
fn check_room(path: &Path, needed: u64) -> Result<(), TableError> {
    let held = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).map_or(0, |m| m.blocks() * 512)
    };
    match crate::sys::available_bytes(path).filter(|&a| held + a < needed) {
        Some(available) => Err(TableError::NoSpace {
            path: path.to_owned(),
            needed,
            available,
        }),
        None => Ok(()),
    }
}

/// Opens (creating folders and a fresh file as needed) the table file for writing;
/// a fresh file gets its header first (incomplete, no level).
fn open_writer(path: &Path, fresh: Header, resume: Option<&[u64]>) -> Result<Writer, TableError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(resume.is_none())
        .open(path)
        .map_err(io_error(path))?;
    let checkpoint_slot = match resume {
        Some(_) => read_header(path)?.1.checkpoint_slot,
        None => 0,
    };
    let mut writer = Writer {
        path: path.to_owned(),
        copies: copies::Copies::new(path, &file).map_err(io_error(path))?,
        file,
        header: Header {
            histogram: resume.map(<[u64]>::to_vec).unwrap_or_default(),
            checkpoint_slot,
            ..fresh
        },
        last_cost: std::time::Duration::ZERO,
    };
    if resume.is_none() {
        writer.write_header().map_err(io_error(path))?;
    }
    Ok(writer)
}

/// Allocates every block of the file now: a disk that fills up under a memory map
/// kills the process with SIGBUS instead of returning an error. A fresh file that
/// does not fit is removed.
fn reserve_blocks(writer: &Writer, needed: u64, fresh: bool) -> Result<(), TableError> {
    let path = &writer.path;
    let Err(cause) = crate::sys::reserve(&writer.file, needed) else {
        return Ok(());
    };
    if cause.kind() != std::io::ErrorKind::StorageFull {
        return Err(io_error(path)(cause));
    }
    if fresh {
        let _ = std::fs::remove_file(path);
    }
    Err(TableError::NoSpace {
        path: path.to_owned(),
        needed,
        available: crate::sys::available_bytes(path).unwrap_or(0),
    })
}

/// The error for a depth table asked to hold 4-bit entries.
fn not_depths(path: &Path) -> TableError {
    TableError::Header {
        path: path.to_owned(),
        cause: HeaderError::Field("4-bit entries hold pattern databases, not depths".into()),
    }
}

/// What [`build`] produced.
pub struct Built {
    /// The table's final header.
    pub header: Header,
    /// The depth array (still mapped), for reports.
    pub depths: Depths,
    /// Levels that were already done when the run started (0 for a fresh table).
    pub resumed_levels: usize,
    /// The indices of the deepest level, when the engine could capture them.
    pub last_level: Option<Vec<u64>>,
}

/// Checkpoints wait at least this many times as long as the last one took: writing
/// them takes at most about 1/(1 + CHECKPOINT_SHARE) of a run (3%), and a crash loses
/// at most that many times a checkpoint's time (about two minutes for 2x7's 10.9 GB).
const CHECKPOINT_SHARE: u32 = 30;

/// How [`build`] writes a table.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Entry encoding.
    pub encoding: Encoding,
    /// Overwrite a complete table or another puzzle's file at the path.
    pub force: bool,
    /// Progress is recorded at most this often (and at the end), and no more often
    /// than keeps checkpoints to about 3% of the run: each one writes the whole array
    /// and waits for the disk. Zero: after every level.
    pub checkpoint_every: std::time::Duration,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            encoding: Encoding::Byte,
            force: false,
            checkpoint_every: std::time::Duration::from_secs(2),
        }
    }
}

/// Builds (or resumes) the table of `puzzle` at `path`: the search runs on the
/// current rayon pool over the file's mapping; `stop` interrupts it between work items.
pub fn build<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    options: &BuildOptions,
    observer: &dyn Observer,
    stop: Option<&AtomicBool>,
) -> Result<Built, TableError> {
    let (mut writer, depths, resume) =
        create_or_resume(puzzle, path, options.encoding, options.force)?;
    let resumed_levels = resume.as_ref().map_or(0, Vec::len);
    let mut last_level = Vec::new();
    let histogram = {
        let map = depths.map();
        let mut last_checkpoint = std::time::Instant::now();
        let mut checkpoint = |h: &[u64]| {
            let interval = match options.checkpoint_every {
                every if every.is_zero() => every,
                every => every.max(writer.last_cost * CHECKPOINT_SHARE),
            };
            // The goal level alone is not worth a write of the whole array: it is
            // redone in no time (the set-up before it can take longer than the interval).
            let only_the_goal = h.len() == 1 && !interval.is_zero();
            if only_the_goal || last_checkpoint.elapsed() < interval {
                return Ok(());
            }
            writer.checkpoint(map, h)?;
            observer.checkpoint_written(h.len(), writer.header.payload_bytes, writer.last_cost);
            last_checkpoint = std::time::Instant::now();
            Ok(())
        };
        let search = SearchOptions {
            resume,
            checkpoint: Some(&mut checkpoint),
            stop,
            last_level: Some(&mut last_level),
        };
        match with_depths!(&depths, s => engine::search_with(puzzle, s, observer, search)) {
            Err(EngineError::Interrupted { histogram }) => {
                // Record every level that is complete, so that a resume skips them.
                writer
                    .checkpoint(depths.map(), &histogram)
                    .map_err(io_error(path))?;
                return Err(EngineError::Interrupted { histogram }.into());
            }
            other => other?,
        }
    };
    finish(&mut writer, &depths, &histogram)?;
    Ok(Built {
        header: writer.header,
        depths,
        resumed_levels,
        last_level: (!last_level.is_empty()).then_some(last_level),
    })
}

/// Writes the finished array to copy 0, cuts the spare copy off and marks the table
/// complete. Copy 0 is overwritten only while the header points at copy 1.
fn finish(writer: &mut Writer, depths: &Depths, histogram: &Histogram) -> Result<(), TableError> {
    let path = writer.path.clone();
    let payload = writer.header.payload_bytes;
    let map = depths.map();
    if writer.header.checkpoint_slot == 0 {
        writer
            .checkpoint(map, &histogram.0)
            .map_err(io_error(&path))?;
    }
    writer
        .copies
        .write(&map[..payload as usize], copies::offset(payload, 0))
        .map_err(io_error(&path))?;
    writer.header.histogram = histogram.0.clone();
    writer.header.checkpoint_slot = 0;
    writer.write_header().map_err(io_error(&path))?;
    writer
        .file
        .set_len(HEADER_BYTES as u64 + payload)
        .map_err(io_error(&path))?;
    writer.header.payload_crc32 = payload_crc32(&map[..payload as usize]);
    writer.header.complete = true;
    writer.write_header().map_err(io_error(&path))
}
