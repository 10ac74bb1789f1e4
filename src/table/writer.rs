//! Writing a depth table: the file is created (or an unfinished one resumed) under a
//! writer's lock ([`lock`](super::lock)), the search runs in memory, and the file
//! receives the whole array at checkpoints and at the end ([`copies`](super::copies)).
//!
//! The order of writes that makes a crash at any moment safe (`tables/README.md` says
//! the same for readers of the format):
//!
//! 1. before anything is written: the path is checked (a file in an existing folder)
//!    and the disk's free space, then the lock is taken and every block of the file is
//!    allocated (`posix_fallocate`), so that on a file system that writes in place a
//!    disk that fills up later cannot fail a write;
//! 2. a fresh file gets an incomplete header with no level, synced (at the spare
//!    header's place, then at offset 0);
//! 3. a checkpoint writes the array to the copy the header does not name and syncs
//!    it, then the header naming that copy and its levels to the spare place, synced,
//!    then at offset 0, synced: the copy a header on disk names always holds exactly
//!    the levels it lists, and if a power cut tears the header at offset 0 (its
//!    checksum then fails), the spare is whole and just as new;
//! 4. the end writes copy 0 (first copying to copy 1 if the header names copy 0) and
//!    the header naming copy 0 (spare, then offset 0), cuts the spare copy and header
//!    off, then writes the header with the payload's checksum and the complete flag.
//!    That last write changes only bytes of the header's first 512-byte sector.
//!
//! A write that fails (a full disk on a copy-on-write file system, an I/O error)
//! stops the run with [`TableError::WriteFailed`]: the file still holds its last
//! checkpoint, and the same build resumes from it.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use memmap2::MmapMut;

use super::lock::WriteLock;
use super::{
    HEADER_BYTES, Header, Identity, TableError, blocks, check_size, copies, header, identity,
    io_error, not_depths, read_header,
};
use crate::driver::{self, Control, Next, Start};
use crate::engine::{Bfs, Histogram};
use crate::puzzle::Puzzle;
use crate::store::{Depths, Encoding};
use crate::with_depths;

/// The file side of a table being built.
pub(super) struct Writer {
    pub(super) lock: WriteLock,
    pub(super) copies: copies::Copies,
    /// The header as it is on disk.
    pub(super) header: Header,
    /// The file holds one copy of the payload, written in place (levels on disk),
    /// not two written at checkpoints.
    pub(super) single_copy: bool,
}

impl Writer {
    pub(super) fn path(&self) -> &Path {
        self.lock.path()
    }

    pub(super) fn file(&self) -> &File {
        self.lock.file()
    }

    /// Writes `header` where it counts, at offset 0, and syncs it.
    pub(super) fn write_header(&self, header: &Header) -> std::io::Result<()> {
        self.file().write_all_at(&header.encode(), 0)?;
        self.file().sync_data()
    }

    /// Writes `header` to the spare place first, syncs it, then to offset 0: if a
    /// power cut tears the write at offset 0, the spare is whole and just as new.
    pub(super) fn write_headers(&self, header: &Header) -> std::io::Result<()> {
        let spare = if self.single_copy {
            copies::single_spare_header_offset(header.payload_bytes)
        } else {
            copies::spare_header_offset(header.payload_bytes)
        };
        self.file().write_all_at(&header.encode(), spare)?;
        self.file().sync_data()?;
        self.write_header(header)
    }

    /// Makes the completed levels durable: the array goes to the copy the header does
    /// not point at, then the header points at it. On failure the header on disk (and
    /// [`Writer::header`]) still names the last checkpoint.
    fn checkpoint(&mut self, map: &MmapMut, histogram: &[u64]) -> std::io::Result<()> {
        self.write_spare_copy(map)?;
        self.point_at_spare_copy(histogram)
    }

    /// The first half of a checkpoint: the array to the copy the header does not
    /// name, synced. The header still names the last checkpoint.
    pub(super) fn write_spare_copy(&mut self, map: &MmapMut) -> std::io::Result<()> {
        let payload = self.header.payload_bytes;
        let target = 1 - self.header.checkpoint_slot;
        self.copies
            .write(&map[..payload as usize], copies::offset(payload, target))
    }

    /// The second half: the header names the copy just written, with `histogram`.
    pub(super) fn point_at_spare_copy(&mut self, histogram: &[u64]) -> std::io::Result<()> {
        let next = Header {
            histogram: histogram.to_vec(),
            checkpoint_slot: 1 - self.header.checkpoint_slot,
            ..self.header.clone()
        };
        self.write_headers(&next)?;
        self.header = next;
        Ok(())
    }

    /// Writes the header naming copy 0 (the payload at 4096) with the levels
    /// `histogram` (spare place, then offset 0).
    pub(super) fn name_copy_zero(&mut self, histogram: &[u64]) -> std::io::Result<()> {
        let named = Header {
            histogram: histogram.to_vec(),
            checkpoint_slot: 0,
            ..self.header.clone()
        };
        self.write_headers(&named)?;
        self.header = named;
        Ok(())
    }

    /// The error for a failed write of `what`.
    pub(super) fn failed(
        &self,
        what: &'static str,
    ) -> impl FnOnce(std::io::Error) -> TableError + '_ {
        move |cause| TableError::WriteFailed {
            path: self.path().to_owned(),
            what,
            levels: self.header.histogram.len(),
            cause,
        }
    }
}

/// Opens `path` to resume an unfinished table of the same puzzle and encoding, or
/// creates it. Returns the writer, the depth array (in memory, with the levels done
/// loaded), and the levels done. Refuses a bad place or a disk too small before it
/// touches a file, and leaves no file behind when it fails.
fn create_or_resume<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    encoding: Encoding,
    force: bool,
) -> Result<(Writer, Depths, Option<Vec<u64>>), TableError> {
    let (mut writer, needed, resume) = open_writer(puzzle, path, encoding, force, false)?;
    match prepare(&mut writer, needed, resume.is_some(), puzzle.index_count()) {
        Ok(depths) => Ok((writer, depths, resume)),
        Err(e) => Err(abandon(writer.lock, resume.is_none(), e)),
    }
}

/// The writer of the table of `puzzle` at `path`, under its lock: an unfinished table
/// of the same puzzle and encoding there is resumed (its levels returned), anything
/// else replaced (a complete table only with `force`). `single_copy`: the file of a
/// build with its levels on disk, one copy of the payload; an unfinished table begun
/// with two is refused. Returns the writer, the file's length while it is built and
/// the levels done. Refuses a bad place or a disk too small before it touches a file.
pub(super) fn open_writer<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    encoding: Encoding,
    force: bool,
    single_copy: bool,
) -> Result<(Writer, u64, Option<Vec<u64>>), TableError> {
    let identity = identity(puzzle);
    let indices = puzzle.index_count();
    let fresh = fresh_header(&identity, indices, 0..indices, encoding);
    if !fresh.fits() {
        return Err(TableError::NameTooLong);
    }
    check_place(path)?;
    let payload = fresh.payload_bytes;
    let needed = if single_copy {
        copies::single_building_len(payload)
    } else {
        copies::building_len(payload)
    };
    check_room(path, needed)?;
    let mut lock = WriteLock::acquire(path)?;
    let existing = lock.file().metadata().map_err(io_error(path))?.len();
    let resumed = match existing {
        0 => None,
        _ if force => None,
        _ if single_copy && existing == copies::building_len(payload) => {
            return Err(TableError::NotResumable {
                path: path.to_owned(),
                reason: "it was begun with its levels in memory: resume it without --memory \
                         or with more"
                    .into(),
            });
        }
        _ => to_resume(path, &identity, &fresh)?,
    };
    if resumed.is_none() && existing > 0 {
        lock = replace(lock)?;
    }
    let resume = resumed.as_ref().map(|h| h.histogram.clone());
    let header = match resumed {
        Some(found) => Header {
            histogram: found.histogram,
            checkpoint_slot: found.checkpoint_slot,
            ..fresh
        },
        None => fresh,
    };
    let copies = match copies::Copies::new(path, lock.file()) {
        Ok(copies) => copies,
        Err(cause) => return Err(abandon(lock, resume.is_none(), io_error(path)(cause))),
    };
    let writer = Writer {
        lock,
        copies,
        header,
        single_copy,
    };
    Ok((writer, needed, resume))
}

/// Gives up on a file: a fresh one is removed while still locked.
pub(super) fn abandon(lock: WriteLock, fresh: bool, error: TableError) -> TableError {
    if fresh {
        let _ = lock.remove();
    }
    error
}

/// Overwriting: the old file goes and the table is built in a new one, so that
/// readers of the old one (a complete table another program has mapped) keep it.
pub(super) fn replace(old: WriteLock) -> Result<WriteLock, TableError> {
    let path = old.path().to_owned();
    std::fs::remove_file(&path).map_err(io_error(&path))?;
    // The old lock is held until the new one is, so no other writer slips in.
    WriteLock::acquire(&path)
}

/// Sizes the file, allocates its blocks, writes a fresh file's header, and returns
/// the depth array with the resumed levels loaded.
pub(super) fn prepare(
    writer: &mut Writer,
    needed: u64,
    resuming: bool,
    entries: u64,
) -> Result<Depths, TableError> {
    let path = writer.path().to_owned();
    let io = io_error(&path);
    if writer.file().metadata().map_err(io)?.len() < needed {
        writer.file().set_len(needed).map_err(io_error(&path))?;
    }
    reserve_blocks(writer.file(), &path, needed)?;
    if !resuming {
        writer
            .write_headers(&writer.header)
            .map_err(io_error(&path))?;
    }
    // The search runs in memory; the file gets the array at checkpoints.
    let encoding = writer.header.encoding;
    let mut depths = Depths::anonymous(encoding, entries)?.ok_or_else(|| not_depths(&path))?;
    if resuming {
        let payload = writer.header.payload_bytes;
        let at = copies::offset(payload, writer.header.checkpoint_slot);
        writer
            .copies
            .read(&mut depths.map_mut()[..payload as usize], at)
            .map_err(io_error(&path))?;
    }
    Ok(depths)
}

/// The header of a new, empty table of the puzzle `identity` names, covering the
/// indices `range` of `indices`.
pub(super) fn fresh_header(
    identity: &Identity,
    indices: u64,
    range: std::ops::Range<u64>,
    encoding: Encoding,
) -> Header {
    Header {
        version: header::VERSION,
        puzzle: identity.name.clone(),
        goal: identity.goal.clone(),
        definition_sha256: Some(identity.digest.clone()),
        indices,
        encoding,
        complete: false,
        histogram: Vec::new(),
        payload_bytes: encoding.payload_bytes(range.end - range.start),
        index_range: range,
        payload_crc32: 0,
        pattern: None,
        checkpoint_slot: 0,
        block_sums: None,
    }
}

/// The header of the unfinished table of the same puzzle and encoding at `path`,
/// naming the levels it holds and their copy (`None` if it holds no level yet);
/// refuses a complete table and any other file.
fn to_resume(
    path: &Path,
    identity: &Identity,
    fresh: &Header,
) -> Result<Option<Header>, TableError> {
    let existing = read_building_header(path)
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
            Ok((!header.histogram.is_empty()).then_some(header))
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

/// The header of a table file, or, where the one at offset 0 does not decode (a
/// write torn by a power cut), the spare header of an unfinished table: the last page
/// of a file exactly as long as a table being built.
pub(super) fn read_building_header(path: &Path) -> Result<(File, Header), TableError> {
    let primary = match read_header(path) {
        Err(e @ TableError::Header { .. }) => e,
        other => return other,
    };
    let spare = || {
        let file = crate::persist::open_regular(path).ok()?;
        let len = file.metadata().ok()?.len();
        let mut block = vec![0u8; HEADER_BYTES];
        file.read_exact_at(&mut block, len.checked_sub(HEADER_BYTES as u64)?)
            .ok()?;
        let header = Header::decode(&block).ok()?;
        let payload = header.payload_bytes;
        let fits = !header.complete
            && (len == copies::building_len(payload)
                || len == copies::single_building_len(payload));
        fits.then_some((file, header))
    };
    spare().ok_or(primary)
}

/// Refuses a path that cannot be a table file: a folder, or a file in a folder that
/// does not exist (a build creates no folders).
pub(super) fn check_place(path: &Path) -> Result<(), TableError> {
    let refuse = |reason: String| {
        Err(TableError::Place {
            path: path.to_owned(),
            reason,
        })
    };
    if path.is_dir() {
        return refuse("is a folder: name a file for the table".into());
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return refuse(format!("the folder {} does not exist", folder.display()));
    }
    Ok(())
}

/// Refuses a file system without `needed` bytes for the table at `path`. Blocks the
/// file holds already count as free: they are kept on resume and freed by an
/// overwrite.
pub(super) fn check_room(path: &Path, needed: u64) -> Result<(), TableError> {
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

/// Allocates every block of the file now, so that a disk filling up during the run
/// cannot fail a write on a file system that writes in place.
pub(super) fn reserve_blocks(file: &File, path: &Path, needed: u64) -> Result<(), TableError> {
    let Err(cause) = crate::sys::reserve(file, needed) else {
        return Ok(());
    };
    if cause.kind() != std::io::ErrorKind::StorageFull {
        return Err(io_error(path)(cause));
    }
    Err(TableError::NoSpace {
        path: path.to_owned(),
        needed,
        available: crate::sys::available_bytes(path).unwrap_or(0),
    })
}

/// What [`super::build`] produced.
///
/// ```
/// use antipode::{driver::Control, puzzles::SlidingPuzzle};
/// use antipode::table::{self, BuildOptions};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let built = table::build(&board, &path, &BuildOptions::default(), &Control::default()).unwrap();
/// assert_eq!((built.resumed_levels, built.header.histogram.len()), (0, 22));
/// assert_eq!(built.last_level.map(|level| level.len()), Some(1));
/// ```
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

/// A table build as a build of the level-loop driver: the engine's levels, and
/// checkpoints that `save` writes (the whole array to the copy the header does not
/// name; on every shard at once in a partitioned build, when all ranks `agree`).
pub(super) struct TableLevels<'a, S, A> {
    pub(super) bfs: Bfs<'a>,
    pub(super) save: S,
    pub(super) agree: A,
    /// The table file, for the interrupted error.
    pub(super) path: std::path::PathBuf,
}

impl<S, A> driver::Levels for TableLevels<'_, S, A>
where
    S: FnMut(&[u64]) -> Result<u64, TableError>,
    A: FnMut(bool) -> bool,
{
    type Error = TableError;

    fn start(&mut self, control: &Control<'_>) -> Result<Start, TableError> {
        Ok(self.bfs.start(control)?)
    }

    fn next_level(&mut self, control: &Control<'_>) -> Result<Next, TableError> {
        Ok(self.bfs.next_level(control)?)
    }

    fn saves(&self) -> bool {
        true
    }

    fn agree_to_save(&mut self, due: bool) -> bool {
        (self.agree)(due)
    }

    fn save(&mut self, levels: &[u64]) -> Result<u64, TableError> {
        (self.save)(levels)
    }

    fn checkpoint_path(&self) -> Option<std::path::PathBuf> {
        Some(self.path.clone())
    }
}

/// How [`super::build`] writes a table.
///
/// ```
/// use std::time::Duration;
/// use antipode::{driver::Control, puzzles::SlidingPuzzle, store::Encoding};
/// use antipode::table::{self, BuildOptions};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// // Two bits per state, a checkpoint after every level.
/// let options = BuildOptions { encoding: Encoding::Mod3, ..Default::default() };
/// let control = Control::default().every(Duration::ZERO);
/// let built = table::build(&board, &path, &options, &control).unwrap();
/// assert_eq!(built.header.encoding, Encoding::Mod3);
/// ```
///
/// How often it saves its progress, its observer and its stop are the run's
/// [`Control`]: checkpoints at most every `control.checkpoint_every` (and at the
/// end), and no more often than keeps them to about 3% of the run
/// ([`driver::Pacing`]): each one writes the whole array and waits for the disk.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Entry encoding.
    pub encoding: Encoding,
    /// Overwrite a complete table or another puzzle's file at the path.
    pub force: bool,
    /// The memory the search may use: a table larger than this runs its levels on
    /// disk, a block of it in memory at a time (`None`: in memory).
    pub memory: Option<u64>,
}

impl Default for BuildOptions {
    /// One byte per state; a complete table is kept.
    fn default() -> Self {
        BuildOptions {
            encoding: Encoding::Byte,
            force: false,
            memory: None,
        }
    }
}

/// [`super::build`] with the search in memory: the file receives the whole array at
/// checkpoints and at the end.
pub(super) fn build_in_memory<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    options: &BuildOptions,
    control: &Control<'_>,
) -> Result<Built, TableError> {
    let (mut writer, depths, resume) =
        create_or_resume(puzzle, path, options.encoding, options.force)?;
    let resumed_levels = resume.as_ref().map_or(0, Vec::len);
    let (histogram, last_level) = with_depths!(&depths, s => {
        let mut bfs = Bfs::new(puzzle, s)?;
        bfs.resume(resume.unwrap_or_default());
        bfs.capture_last_level();
        let (map, path) = (depths.map(), writer.path().to_owned());
        let save = |levels: &[u64]| {
            writer.checkpoint(map, levels).map_err(writer.failed("a checkpoint"))?;
            Ok(writer.header.payload_bytes)
        };
        let mut build = TableLevels { bfs, save, agree: |due| due, path };
        let histogram = driver::run(&mut build, control)?;
        (Histogram(histogram), build.bfs.take_last_level().unwrap_or_default())
    });
    finish(&mut writer, &depths, &histogram).map_err(writer.failed("the finished table"))?;
    Ok(Built {
        header: writer.header,
        depths,
        resumed_levels,
        last_level: (!last_level.is_empty()).then_some(last_level),
    })
}

/// Writes the finished array to copy 0, cuts the spare copy off, writes the block
/// checksums after the payload and marks the table complete. Copy 0 is overwritten
/// only while the header points at copy 1.
pub(super) fn finish(
    writer: &mut Writer,
    depths: &Depths,
    histogram: &Histogram,
) -> std::io::Result<()> {
    let payload = writer.header.payload_bytes;
    let map = depths.map();
    if writer.header.checkpoint_slot == 0 {
        writer.checkpoint(map, &histogram.0)?;
    }
    writer
        .copies
        .write(&map[..payload as usize], copies::offset(payload, 0))?;
    writer.name_copy_zero(&histogram.0)?;
    let (list, whole) = blocks::checksums(&map[..payload as usize], blocks::BLOCK_LOG2);
    complete(writer, &list, whole)
}

/// The last steps of a build, the payload in copy 0 and the header naming it: the file
/// cut to the payload and the block checksums `list` (the spare copy and header go),
/// the list written and synced, then the header with the complete flag, the payload's
/// checksum `whole` and the list's, at offset 0 only.
pub(super) fn complete(writer: &mut Writer, list: &[u32], whole: u32) -> std::io::Result<()> {
    let payload = writer.header.payload_bytes;
    let list = blocks::list_bytes(list);
    writer
        .file()
        .set_len(HEADER_BYTES as u64 + payload + list.len() as u64)?;
    writer
        .file()
        .write_all_at(&list, HEADER_BYTES as u64 + payload)?;
    writer.file().sync_data()?;
    let complete = Header {
        payload_crc32: whole,
        complete: true,
        block_sums: Some(blocks::BlockSums {
            block_log2: blocks::BLOCK_LOG2,
            list_crc32: crc32fast::hash(&list),
        }),
        ..writer.header.clone()
    };
    writer.write_header(&complete)?;
    writer.header = complete;
    Ok(())
}
