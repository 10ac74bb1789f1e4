//! Building a table larger than the memory a run may use (`--memory`): the levels run
//! on the file itself ([`crate::engine::OnDisk`]), a block of the index space in
//! memory at a time, the neighbours for other blocks in bucket files beside the table
//! (`TABLE.buckets/`, removed at the end).
//!
//! The file holds one copy of the payload (copy 0, where the finished table has it),
//! mapped shared, and the spare header in the page after it. A checkpoint syncs the
//! mapping and then writes the header naming the levels done: the payload holds those
//! and maybe states of later levels, found by the run since (with depths mod 3, every
//! level is a checkpoint: at most one level part-written). The resumed run redoes the
//! levels after the header's, counting them by scans ([`crate::engine::OnDisk`]). The end
//! writes the block checksums over the payload read a window at a time (half the
//! memory), cuts the spare header off and marks the table complete: the same bytes as
//! a build in memory. The last level's states go to the report, so that it does not
//! read the whole table again: kept by the search where its marks tell new states
//! (depths mod 3), found by the checksums' pass where the depths are exact.

use std::ops::Range;
use std::path::{Path, PathBuf};

use memmap2::{Advice, MmapMut, MmapOptions, UncheckedAdvice};

use super::writer::{TableLevels, Writer, abandon, complete, open_writer, reserve_blocks};
use super::{BuildOptions, Built, HEADER_BYTES, TableError, blocks, copies, io_error, not_depths};
use crate::driver::{self, Control};
use crate::engine::{Bfs, CAPTURE_LIMIT, EngineError, Histogram, OnDisk, Residency};
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, Depths, Encoding, Wanted};
use crate::with_depths;

/// The least memory a level on disk runs in: a block, its group of frontier states
/// and the buckets' share.
pub const MIN_MEMORY: u64 = 16 << 10;

/// Bytes of payload read at a time for the block checksums at the end, at most.
const CHECKSUM_WINDOW: usize = 64 << 20;

/// Bytes of payload the checksums' pass reads at a time in `memory`: the block share
/// of it (half), whole checksum blocks, at most [`CHECKSUM_WINDOW`].
fn checksum_window(memory: u64) -> usize {
    let block = 1usize << blocks::BLOCK_LOG2;
    let share = usize::try_from(memory / 2).unwrap_or(usize::MAX);
    (share / block * block).clamp(block, CHECKSUM_WINDOW)
}

/// How a run's memory is shared: half for the block in memory, a quarter for the
/// buckets, a quarter for a group of frontier states and their far neighbours.
struct Shares {
    block_entries: u64,
    bucket_bytes: u64,
}

impl Shares {
    fn of(memory: u64, encoding: Encoding) -> Shares {
        Shares {
            block_entries: memory / 2 * 8 / u64::from(encoding.bits()),
            bucket_bytes: memory / 4,
        }
    }
}

/// The payload mapped shared: a block's pages are dropped from the process when the
/// search is done with them (their content is in the file, and comes back on the next
/// access).
struct MappedPayload<'a> {
    map: &'a MmapMut,
    bits: u64,
}

impl MappedPayload<'_> {
    /// Drops the pages of `bytes` from the process (rounded out to whole pages).
    fn drop_pages(&self, bytes: Range<usize>) {
        const PAGE: usize = 4096;
        let start = bytes.start / PAGE * PAGE;
        let end = bytes.end.next_multiple_of(PAGE).min(self.map.len());
        if start >= end {
            return;
        }
        // SAFETY: the mapping is a shared mapping of the table file: MADV_DONTNEED
        // only unmaps this process's pages of it; their content stays in the file's
        // pages (dirty ones are written back first or kept in the page cache) and is
        // read back on the next access, so no reference into the mapping ever sees a
        // change. A failure leaves the pages mapped: only memory is at stake.
        let _ = unsafe {
            self.map
                .unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}

impl Residency for MappedPayload<'_> {
    fn release(&self, indices: Range<u64>) {
        let start = (indices.start * self.bits / 8) as usize;
        let end = (indices.end * self.bits).div_ceil(8) as usize;
        self.drop_pages(start..end);
    }
}

/// The memory a build of a `payload_bytes` table at `path` runs its levels on disk
/// in, or `None` for a build in memory: on disk where the table is larger than
/// `options.memory`, and always where an unfinished table begun on disk is there (its
/// payload may hold levels past its checkpoint, which only a build on disk redoes).
pub(super) fn memory_on_disk(
    path: &Path,
    payload_bytes: u64,
    options: &BuildOptions,
) -> Option<u64> {
    let begun_on_disk = !options.force
        && std::fs::metadata(path)
            .is_ok_and(|m| m.len() == copies::single_building_len(payload_bytes));
    match options.memory {
        Some(memory) if begun_on_disk || payload_bytes > memory => Some(memory),
        None if begun_on_disk => Some(crate::sys::total_memory_bytes().unwrap_or(payload_bytes)),
        _ => None,
    }
}

/// The folder of the buckets of the table at `path`.
fn buckets_folder(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".buckets");
    path.with_file_name(name)
}

/// Builds (or resumes) the table of `puzzle` at `path` with its levels on disk, in
/// `memory` bytes: [`super::build`] for tables larger than the memory.
pub(super) fn build<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    options: &BuildOptions,
    memory: u64,
    control: &Control<'_>,
) -> Result<Built, TableError> {
    if memory < MIN_MEMORY {
        return Err(TableError::Place {
            path: path.to_owned(),
            reason: format!(
                "--memory {} is below the {} a level on disk needs (a block of entries, \
                 its buckets and a group of frontier states)",
                crate::units::human_bytes(memory as f64),
                crate::units::human_bytes(MIN_MEMORY as f64)
            ),
        });
    }
    let (mut writer, map, resume) = create_or_resume(puzzle, path, options)?;
    let resumed_levels = resume.as_ref().map_or(0, Vec::len);
    let encoding = options.encoding;
    let entries = puzzle.index_count();
    let depths = Depths::from_map(encoding, map, entries).ok_or_else(|| not_depths(path))?;
    let residency = MappedPayload {
        map: depths.map(),
        bits: u64::from(encoding.bits()),
    };
    let shares = Shares::of(memory, encoding);
    let folder = buckets_folder(path);
    let histogram = with_depths!(&depths, s => {
        if puzzle.goal_indices().is_empty() {
            return Err(EngineError::NoGoal.into());
        }
        let mut executor = OnDisk::new(
            puzzle,
            s,
            &residency,
            shares.block_entries,
            &folder,
            shares.bucket_bytes,
        )
        .map_err(EngineError::from)?;
        let mut bfs = Bfs::with_executor(Box::new(&mut executor));
        bfs.resume(resume.unwrap_or_default());
        bfs.capture_last_level();
        let map = depths.map();
        let save = |levels: &[u64]| {
            map.flush().map_err(writer.failed("a checkpoint"))?;
            writer.name_copy_zero(levels).map_err(writer.failed("a checkpoint"))?;
            Ok(0)
        };
        // A checkpoint syncs the pages the levels wrote since the last one. With depths
        // mod 3 every level is saved: a resume must find at most one level
        // part-written, whose codes cannot be taken for its frontier's. Exact depths
        // are saved at the usual pace: a resumed run scans for the levels the file
        // holds beyond its header ([`OnDisk`]).
        let every_level = encoding == Encoding::Mod3;
        let agree = |due: bool| due || every_level;
        let mut build = TableLevels { bfs, save, agree, path: path.to_owned() };
        let histogram = driver::run(&mut build, control);
        let last_level = build.bfs.take_last_level().unwrap_or_default();
        drop(build);
        executor.finish();
        (Histogram(histogram?), last_level)
    });
    let (histogram, captured) = histogram;
    let window = checksum_window(memory);
    let last_level = finish(&mut writer, &depths, &residency, &histogram, window)
        .map_err(writer.failed("the finished table"))?;
    // The search keeps the last level's states where its marks tell them (packed
    // entries); byte entries are found by the checksums' pass.
    let last_level = if captured.is_empty() {
        last_level
    } else {
        captured
    };
    Ok(Built {
        header: writer.header,
        depths,
        resumed_levels,
        last_level: (!last_level.is_empty()).then_some(last_level),
    })
}

/// Opens `path` to resume an unfinished table built on disk of the same puzzle and
/// encoding, or creates it; returns the writer, the payload mapped shared, and the
/// levels done. Refuses a bad place, a disk too small, or an unfinished table begun in
/// memory, before it touches a file.
fn create_or_resume<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    options: &BuildOptions,
) -> Result<(Writer, MmapMut, Option<Vec<u64>>), TableError> {
    let (writer, needed, resume) =
        open_writer(puzzle, path, options.encoding, options.force, true)?;
    match prepare(&writer, needed, resume.is_some()) {
        Ok(map) => Ok((writer, map, resume)),
        Err(e) => Err(abandon(writer.lock, resume.is_none(), e)),
    }
}

/// Sizes the file, allocates its blocks, writes a fresh file's header (its payload is
/// zero: every entry unseen), and maps the payload.
fn prepare(writer: &Writer, needed: u64, resuming: bool) -> Result<MmapMut, TableError> {
    let path = writer.path().to_owned();
    let io = io_error(&path);
    let file = writer.file();
    if resuming && file.metadata().map_err(io_error(&path))?.len() != needed {
        return Err(TableError::NotResumable {
            path: path.clone(),
            reason: "its length is not that of a table built on disk".into(),
        });
    }
    if !resuming {
        file.set_len(0).map_err(io_error(&path))?;
    }
    file.set_len(needed).map_err(io_error(&path))?;
    reserve_blocks(file, &path, needed)?;
    if !resuming {
        writer
            .write_headers(&writer.header)
            .map_err(io_error(&path))?;
    }
    let payload = writer.header.payload_bytes;
    // SAFETY: the file is locked against other writers for the whole build, and its
    // length is fixed until the mapping is dropped (the end cuts only the spare header
    // past the payload).
    let map = unsafe {
        MmapOptions::new()
            .offset(HEADER_BYTES as u64)
            .len(payload.max(1) as usize)
            .map_mut(file)
    }
    .map_err(io)?;
    // No read-ahead on faults: a level's marks land on scattered pages of a block,
    // and each fault would otherwise read (or, in a fresh file, zero) a window of
    // pages around its own. Only speed is at stake if the advice fails.
    let _ = map.advise(Advice::Random);
    Ok(map)
}

/// Syncs the payload, writes the block checksums (the payload read `window` bytes at
/// a time), cuts the spare header off and marks the table complete. Returns the
/// last level's states, found in the same pass, where the entries are exact depths
/// and they are at most [`CAPTURE_LIMIT`] (else none: the report finds them).
fn finish(
    writer: &mut Writer,
    depths: &Depths,
    residency: &MappedPayload<'_>,
    histogram: &Histogram,
    window: usize,
) -> std::io::Result<Vec<u64>> {
    let map = depths.map();
    let payload = writer.header.payload_bytes as usize;
    map.flush()?;
    writer.name_copy_zero(&histogram.0)?;
    let last = histogram.0.len().checked_sub(1);
    let exact = writer.header.encoding == Encoding::Byte;
    let wanted =
        last.filter(|_| exact && histogram.0[histogram.0.len() - 1] as usize <= CAPTURE_LIMIT);
    let mut last_level = Vec::new();
    let (mut list, mut whole) = (Vec::new(), crc32fast::Hasher::new());
    let mut at = 0;
    while at < payload {
        let end = (at + window).min(payload);
        if let Some(depth) = wanted {
            // One byte an entry: the window's bytes are its indices.
            let indices = at as u64..end as u64;
            with_depths!(depths, s => {
                // SAFETY: the levels are done; nothing writes the store any more.
                unsafe { s.collect_exclusive(indices, Wanted::Depth(depth as u32), &mut last_level) }
            });
        }
        let (sums, crc) = blocks::checksums(&map[at..end], blocks::BLOCK_LOG2);
        list.extend(sums);
        whole.combine(&crc32fast::Hasher::new_with_initial_len(
            crc,
            (end - at) as u64,
        ));
        residency.drop_pages(at..end);
        at = end;
    }
    complete(writer, &list, whole.finalize())?;
    Ok(last_level)
}
