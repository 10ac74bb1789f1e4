//! Building a table in shards ([`shards`](super::shards)): every rank of a partitioned
//! search writes its own shard with the single-file writer's crash-safe steps, and the
//! steps that make levels durable are collective.
//!
//! - **Checkpoints** have two phases with an agreement after each: every shard writes
//!   its array to the copy its header does not name and syncs it; once all have, every
//!   shard's header names that copy. Whenever ranks die, the shards' headers name the
//!   same levels or, if they died between the phases' agreements, two checkpoints
//!   that follow each other, and a shard whose header names the later one still holds
//!   the earlier in its other copy.
//! - **Resuming**, the ranks take the levels every shard holds: a shard ahead by one
//!   checkpoint falls back to its other copy (and its header says so before the
//!   search goes on). A different rank count than the manifest's is refused.
//! - **Finishing**: a last collective checkpoint holds the whole histogram on every
//!   shard before any shard is marked complete; then each shard is finished as a
//!   single table is, and rank 0 writes the manifest with every shard's checksum. A
//!   run that died while shards were being finished resumes to that end: complete
//!   shards take part in the (empty) last level from their payloads, the others finish.
//!
//! The manifest is written only by rank 0, under a lock on `manifest.lock` in the
//! folder that also keeps a second build of the same folder out.

use std::ops::Range;
use std::path::Path;

use super::lock::WriteLock;
use super::shards::{MANIFEST, Manifest, shard_name};
use super::writer::{
    BuildOptions, TableLevels, Writer, abandon, check_room, finish, fresh_header, prepare,
    read_building_header, replace,
};
use super::{HEADER_BYTES, Header, Identity, TableError, check_size, copies, identity, io_error};
use crate::driver::{self, Control};
use crate::engine::{self, Bfs, Histogram, Partitioned, Slices, Transport};
use crate::puzzle::Puzzle;
use crate::store::Depths;
use crate::with_depths;

/// What one rank's part of [`build_sharded`] produced.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::engine::InProcessRanks;
/// use antipode::puzzles::SlidingPuzzle;
/// use antipode::table::{self, BuildOptions};
///
/// // Two ranks (threads here; MPI processes with the mpi feature) build one shard each.
/// let dir = tempfile::tempdir().unwrap();
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let ranks = InProcessRanks::new(2);
/// let shards: Vec<_> = std::thread::scope(|scope| {
///     let runs: Vec<_> = (0..2)
///         .map(|r| {
///             let (transport, board, dir) = (ranks.rank(r), &board, dir.path());
///             scope.spawn(move || {
///                 let options = BuildOptions::default();
///                 let control = Control::default();
///                 table::build_sharded(board, dir, &options, &transport, &control, 10).unwrap()
///             })
///         })
///         .collect();
///     runs.into_iter().map(|run| run.join().unwrap()).collect()
/// });
/// assert_eq!(shards[0].histogram.reachable(), 360);
/// assert_eq!(shards[0].header.index_range, 0..180);
/// ```
pub struct BuiltShard {
    /// The whole search's histogram (the same on every rank).
    pub histogram: engine::Histogram,
    /// This rank's shard's final header.
    pub header: Header,
    /// Levels every shard already held when the run started (0 for a fresh table).
    pub resumed_levels: usize,
    /// The states of the last level in this rank's slice: how many, and the first
    /// `limit` of them (see [`Partitioned::last_level_indices`]).
    pub last_level: (u64, Vec<u64>),
    /// Bytes this rank sent per level computed.
    pub bytes_sent: Vec<u64>,
}

/// Builds (or resumes) rank `transport.rank()`'s shard of the table of `puzzle` in the
/// folder `dir` (created if missing), as one rank of a partitioned search: every rank
/// of `transport` calls it with the same arguments. `control` gives the observer and
/// the checkpoints' pacing (the ranks agree on each checkpoint); it has no stop
/// token. `limit` bounds the last level's indices kept. Every rank returns an error if
/// any fails: its own, or [`TableError::OtherRank`].
///
/// # Errors
/// [`TableError`] if a shard or the manifest cannot be created, resumed or written, or
/// the ranks disagree; [`TableError::PartitionedStop`] if `control` has a stop token.
pub fn build_sharded<P: Puzzle>(
    puzzle: &P,
    dir: &Path,
    options: &BuildOptions,
    transport: &dyn Transport,
    control: &Control<'_>,
    limit: usize,
) -> Result<BuiltShard, TableError> {
    if control.stop.is_some() {
        return Err(TableError::PartitionedStop);
    }
    let (rank, ranks) = (transport.rank(), transport.ranks());
    let slices = Slices::new(puzzle.index_count(), ranks);
    let identity = identity(puzzle);
    let folder = match rank {
        0 => open_folder(dir, &identity, puzzle.index_count(), options, &slices),
        _ => Ok(None),
    };
    let folder_lock = agree(transport, dir, folder)?;
    let path = dir.join(shard_name(rank, ranks));
    let opened = open_shard(
        &path,
        &identity,
        puzzle.index_count(),
        slices.range(rank),
        options,
    );
    let shard = agree(transport, dir, opened)?;
    let plan = agree(transport, dir, plan_resume(transport, dir, &shard))?;
    let started = start(shard, &plan);
    let run = agree(transport, dir, started)?;
    let ranks_of = RanksOf { transport, dir };
    let built = search(puzzle, run, &plan, ranks_of, control, limit)?;
    // Every shard is complete: the manifest records their checksums.
    let checksums = transport.gather(&[built.header.payload_crc32 as u64]);
    let manifest = match folder_lock {
        Some(lock) => {
            let mut manifest =
                Manifest::new(&identity, puzzle.index_count(), options.encoding, &slices);
            manifest.complete = true;
            for (shard, crc) in manifest.shards.iter_mut().zip(&checksums) {
                shard.payload_crc32 = Some(format!("{crc:08x}"));
            }
            manifest
                .write(&dir.join(MANIFEST))
                .and_then(|()| lock.remove().map_err(io_error(dir)))
        }
        None => Ok(()),
    };
    agree(transport, dir, manifest)?;
    Ok(built)
}

/// Every rank's outcome of a step: each rank's own error, or, where only other ranks
/// failed, [`TableError::OtherRank`] naming the first of them.
fn agree<T>(
    transport: &dyn Transport,
    dir: &Path,
    local: Result<T, TableError>,
) -> Result<T, TableError> {
    let failed = transport.gather(&[local.is_err() as u64]);
    match local {
        Err(e) => Err(e),
        Ok(value) => match failed.iter().position(|&f| f == 1) {
            Some(rank) => Err(TableError::OtherRank {
                path: dir.to_owned(),
                rank,
            }),
            None => Ok(value),
        },
    }
}

/// Rank 0: the folder (created if missing, its parent must exist) and the manifest of
/// an unfinished table of this puzzle over these ranks, under the folder's lock.
/// Refuses a complete table, another puzzle's, or another rank count (unless
/// `options.force`).
fn open_folder(
    dir: &Path,
    identity: &Identity,
    indices: u64,
    options: &BuildOptions,
    slices: &Slices,
) -> Result<Option<WriteLock>, TableError> {
    let place = |reason: String| TableError::Place {
        path: dir.to_owned(),
        reason,
    };
    if dir.exists() && !dir.is_dir() {
        return Err(place(
            "is a file: a table in shards is a folder (name a new or existing folder)".into(),
        ));
    }
    if !dir.exists() {
        std::fs::create_dir(dir).map_err(|cause| match cause.kind() {
            std::io::ErrorKind::NotFound => place(format!(
                "the folder {} does not exist",
                dir.parent().map_or("?".into(), |p| p.display().to_string())
            )),
            _ => io_error(dir)(cause),
        })?;
    }
    let lock = WriteLock::acquire(&dir.join("manifest.lock"))?;
    let path = dir.join(MANIFEST);
    let wanted = Manifest::new(identity, indices, options.encoding, slices);
    if path.exists() && !options.force {
        let found = Manifest::read(&path)?;
        if !found.is_for(identity) || found.entry_bits != wanted.entry_bits {
            return Err(TableError::NotResumable {
                path: path.clone(),
                reason: format!(
                    "it is for {} with {}-bit entries",
                    found.puzzle, found.entry_bits
                ),
            });
        }
        if found.complete {
            return Err(TableError::Exists {
                path: dir.to_owned(),
                puzzle: found.puzzle,
            });
        }
        if found.ranks != wanted.ranks {
            return Err(TableError::RankCount {
                path: path.clone(),
                built: found.ranks,
                ranks: wanted.ranks,
            });
        }
    }
    if options.force {
        remove_other_shards(dir, slices.ranks())?;
    }
    wanted.write(&path)?;
    Ok(Some(lock))
}

/// Removes the shards of other rank counts from `dir` (a build started over).
fn remove_other_shards(dir: &Path, ranks: usize) -> Result<(), TableError> {
    let entries = std::fs::read_dir(dir).map_err(io_error(dir))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let of = name
            .strip_prefix("shard-")
            .and_then(|n| n.strip_suffix(".table"))
            .and_then(|n| n.split_once("-of-"))
            .and_then(|(_, of)| of.parse::<usize>().ok());
        if of.is_some_and(|of| of != ranks) {
            std::fs::remove_file(entry.path()).map_err(io_error(&entry.path()))?;
        }
    }
    Ok(())
}

/// What a shard file held when its rank opened it.
enum Found {
    /// Nothing to resume: a new file, or no level yet.
    Nothing,
    /// An unfinished shard of this puzzle with these levels.
    Levels(Header),
    /// A complete shard (its run died while the shards were finished).
    Complete(Header),
}

/// A rank's shard, locked.
struct OpenShard {
    lock: WriteLock,
    fresh: Header,
    found: Found,
}

impl OpenShard {
    fn levels(&self) -> &[u64] {
        match &self.found {
            Found::Nothing => &[],
            Found::Levels(h) | Found::Complete(h) => &h.histogram,
        }
    }
}

/// Opens (locks) this rank's shard and reads what it holds.
fn open_shard(
    path: &Path,
    identity: &Identity,
    indices: u64,
    range: Range<u64>,
    options: &BuildOptions,
) -> Result<OpenShard, TableError> {
    let fresh = fresh_header(identity, indices, range, options.encoding);
    if !fresh.fits() {
        return Err(TableError::NameTooLong);
    }
    check_room(path, copies::building_len(fresh.payload_bytes))?;
    let mut lock = WriteLock::acquire(path)?;
    let existing = lock.file().metadata().map_err(io_error(path))?.len();
    let found = if existing == 0 || options.force {
        Found::Nothing
    } else {
        let (file, header) = read_building_header(path).map_err(|e| not_resumable(path, e))?;
        check_size(path, &file, &header).map_err(|e| not_resumable(path, e))?;
        let same = identity.matches(&header)
            && header.encoding == fresh.encoding
            && header.indices == fresh.indices
            && header.index_range == fresh.index_range;
        match header {
            _ if !same => {
                return Err(TableError::NotResumable {
                    path: path.to_owned(),
                    reason: format!(
                        "it is a shard of {} with {}-bit entries covering {}..{}",
                        header.puzzle,
                        header.encoding.bits(),
                        header.index_range.start,
                        header.index_range.end
                    ),
                });
            }
            h if h.complete => Found::Complete(h),
            h if h.histogram.is_empty() => Found::Nothing,
            h => Found::Levels(h),
        }
    };
    if options.force && existing > 0 {
        lock = replace(lock)?;
    }
    Ok(OpenShard { lock, fresh, found })
}

fn not_resumable(path: &Path, error: TableError) -> TableError {
    TableError::NotResumable {
        path: path.to_owned(),
        reason: error.to_string(),
    }
}

/// What every rank resumes from.
struct ResumePlan {
    /// The levels every shard holds (empty: a fresh search).
    histogram: Vec<u64>,
}

/// Agrees on the levels to resume from: those every shard holds. The shards' lists of
/// levels must agree on them (a checksum of the list is compared).
fn plan_resume(
    transport: &dyn Transport,
    dir: &Path,
    shard: &OpenShard,
) -> Result<ResumePlan, TableError> {
    let complete = matches!(shard.found, Found::Complete(_));
    let all = transport.gather(&[shard.levels().len() as u64, complete as u64]);
    let levels = all.iter().step_by(2).copied().min().unwrap_or(0) as usize;
    let finishing = all.iter().skip(1).step_by(2).any(|&c| c == 1);
    let histogram = shard.levels()[..levels].to_vec();
    let fingerprint = crc32fast::hash(
        &histogram
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let fingerprints = transport.gather(&[fingerprint as u64]);
    let disagree = |reason: &str| {
        Err(TableError::Shards {
            path: dir.join(MANIFEST),
            reason: format!("{reason}; the force option starts the table over"),
        })
    };
    if fingerprints.iter().any(|&f| f != fingerprint as u64) {
        return disagree("the shards' levels differ: they are not of one search");
    }
    let ahead = all.iter().step_by(2).any(|&l| l as usize != levels);
    if finishing && ahead {
        return disagree("some shards are complete and others lack levels");
    }
    Ok(ResumePlan { histogram })
}

/// A shard ready for the search: its writer and its array, with the agreed levels
/// loaded.
struct ShardRun {
    writer: Writer,
    depths: Depths,
    /// The shard was complete: nothing is written to it.
    complete: bool,
}

/// Loads the agreed levels into a new array; a shard ahead of them falls back to its
/// other copy, and its header says so at once.
fn start(shard: OpenShard, plan: &ResumePlan) -> Result<ShardRun, TableError> {
    let OpenShard { lock, fresh, found } = shard;
    let path = lock.path().to_owned();
    let copies = match copies::Copies::new(&path, lock.file()) {
        Ok(copies) => copies,
        Err(cause) => return Err(io_error(&path)(cause)),
    };
    let entries = fresh.index_range.end - fresh.index_range.start;
    let resuming = !plan.histogram.is_empty();
    let (header, complete) = match found {
        Found::Complete(h) => (h, true),
        Found::Levels(h) if resuming && h.histogram.len() == plan.histogram.len() => (h, false),
        Found::Levels(h) if resuming => {
            let slot = 1 - h.checkpoint_slot;
            let header = Header {
                histogram: plan.histogram.clone(),
                checkpoint_slot: slot,
                ..h
            };
            (header, false)
        }
        _ => (fresh, false),
    };
    let mut writer = Writer {
        lock,
        copies,
        header,
        single_copy: false,
    };
    if complete {
        let mut depths = Depths::anonymous(writer.header.encoding, entries)?
            .ok_or_else(|| super::not_depths(&path))?;
        let payload = writer.header.payload_bytes as usize;
        writer
            .copies
            .read(&mut depths.map_mut()[..payload], HEADER_BYTES as u64)
            .map_err(io_error(&path))?;
        return Ok(ShardRun {
            writer,
            depths,
            complete,
        });
    }
    let needed = copies::building_len(writer.header.payload_bytes);
    let prepared = prepare(&mut writer, needed, resuming, entries).and_then(|depths| {
        // A shard ahead of the agreed levels names its other copy from now on (the
        // others write the header they have).
        if resuming {
            writer
                .write_headers(&writer.header)
                .map_err(io_error(&path))?;
        }
        Ok(depths)
    });
    match prepared {
        Ok(depths) => Ok(ShardRun {
            writer,
            depths,
            complete,
        }),
        Err(e) => Err(abandon(writer.lock, !resuming, e)),
    }
}

/// The ranks of a build and its folder (for messages).
#[derive(Clone, Copy)]
struct RanksOf<'a> {
    transport: &'a dyn Transport,
    dir: &'a Path,
}

/// Runs the search from the agreed levels with collective checkpoints, then makes the
/// whole histogram durable on every shard and finishes each shard.
fn search<P: Puzzle>(
    puzzle: &P,
    run: ShardRun,
    plan: &ResumePlan,
    ranks: RanksOf<'_>,
    control: &Control<'_>,
    limit: usize,
) -> Result<BuiltShard, TableError> {
    let ShardRun {
        mut writer,
        depths,
        complete,
    } = run;
    let transport = ranks.transport;
    let searched = with_depths!(&depths, s => {
        let mut executor = Partitioned::new(puzzle, s, transport);
        let histogram = {
            let mut bfs = Bfs::with_executor(Box::new(&mut executor));
            bfs.resume(plan.histogram.clone());
            // The ranks agree on every checkpoint, which each writes to its own shard
            // (a complete shard takes part, writing nothing).
            let (map, path) = (depths.map(), writer.path().to_owned());
            let save = |levels: &[u64]| {
                checkpoint_all(transport, &mut writer, map, levels, complete)
                    .map_err(writer.failed("a checkpoint"))?;
                Ok(writer.header.payload_bytes)
            };
            let agree = |due: bool| transport.sum(u64::from(due && !complete)) > 0;
            let mut build = TableLevels { bfs, save, agree, path };
            driver::run(&mut build, control)
        };
        histogram.map(|h| {
            let h = Histogram(h);
            let last = executor.last_level_indices(h.gods_number(), limit);
            (h, last, executor.bytes_sent().to_vec())
        })
    });
    let (histogram, last_level, bytes_sent) = searched?;
    // Every shard holds the whole histogram before any is marked complete.
    let behind = !complete && writer.header.histogram != histogram.0;
    if transport.sum(behind as u64) > 0 {
        checkpoint_all(transport, &mut writer, depths.map(), &histogram.0, !behind)
            .map_err(writer.failed("a checkpoint"))?;
    }
    let finished = match complete {
        true => Ok(()),
        false => {
            finish(&mut writer, &depths, &histogram).map_err(writer.failed("the finished table"))
        }
    };
    agree(transport, ranks.dir, finished)?;
    Ok(BuiltShard {
        histogram,
        header: writer.header,
        resumed_levels: plan.histogram.len(),
        last_level,
        bytes_sent,
    })
}

/// A collective checkpoint of `histogram` (every rank calls it): every shard's array
/// to its spare copy, then, once all have written theirs, every header names it. A
/// rank with `skip` writes nothing but takes part.
fn checkpoint_all(
    transport: &dyn Transport,
    writer: &mut Writer,
    map: &memmap2::MmapMut,
    histogram: &[u64],
    skip: bool,
) -> std::io::Result<()> {
    let written = match skip {
        true => Ok(()),
        false => writer.write_spare_copy(map),
    };
    all_did(transport, written, "its spare copy")?;
    let pointed = match skip {
        true => Ok(()),
        false => writer.point_at_spare_copy(histogram),
    };
    all_did(transport, pointed, "its header")
}

/// This rank's error, or an error naming the first other rank that failed to write
/// `what`.
fn all_did(
    transport: &dyn Transport,
    local: std::io::Result<()>,
    what: &str,
) -> std::io::Result<()> {
    let failed = transport.gather(&[local.is_err() as u64]);
    local?;
    match failed.iter().position(|&f| f == 1) {
        Some(rank) => Err(std::io::Error::other(format!(
            "rank {rank} could not write {what}"
        ))),
        None => Ok(()),
    }
}
