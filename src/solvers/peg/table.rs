//! Peg solitaire tables: for every peg count, the bit set of the boards from which the
//! goal can still be reached, so a player's program (or a solver's pruning) asks "can
//! this board still be solved?" with one bit (format: `tables/README.md`, kind 2).
//!
//! The sets are found backwards from the goal boards by reversed jumps, one peg count
//! at a time ([`super::levels`]). The file is built as `PATH.partial` under a write
//! lock: each finished level is written and synced before the header that counts it,
//! so a run stopped or killed anywhere resumes from its last level, and the complete
//! file appears under `PATH` by one rename.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::level_set::LevelSet;
use super::levels::Backward;
use crate::driver::{self, Control, Interrupted, Start};
use crate::puzzles::peg::{PegBoard, PegError};
use crate::rank::halves::Halves;
use crate::rank::subsets::SubsetRanker;
use crate::table::header::{
    self, BITS_AT, COMPLETE_AT, DIGEST_AT, DIGEST_BYTES, GOAL_AT, HEADER_BYTES, HEADER_CRC_AT,
    HISTOGRAM_AT, INDICES_AT, KIND_AT, LEVELS_AT, NAME_AT, PAYLOAD_BYTES_AT, PAYLOAD_CRC_AT,
    PEG_KIND,
};
use crate::table::lock::WriteLock;
use crate::table::{Check, TableError};

/// Why a peg table could not be built or read.
#[derive(Debug, thiserror::Error)]
pub enum PegTableError {
    /// The file (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The search.
    #[error(transparent)]
    Search(#[from] PegError),
}

impl From<Interrupted> for PegTableError {
    fn from(stopped: Interrupted) -> Self {
        PegTableError::Search(PegError::Interrupted(stopped))
    }
}

/// What a peg table's header records.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PegHeader {
    /// The board's command-line name.
    pub puzzle: String,
    /// The goal in words.
    pub goal: String,
    /// SHA-256 of the board's definition, as hex.
    pub definition_sha256: String,
    /// Holes of the board.
    pub holes: usize,
    /// True once every level is written and the checksum set.
    pub complete: bool,
    /// Solvable boards per peg count, for the levels written (0, 1, 2, ... pegs).
    pub histogram: Vec<u64>,
    /// CRC-32 of the payload (0 until complete).
    pub payload_crc32: u32,
}

/// Byte offset in the payload of every peg count's bit set, and the payload's size:
/// each level is `ceil(C(holes, pegs) / 64)` little-endian u64 words.
#[must_use]
pub fn level_offsets(holes: usize) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(holes + 1);
    let mut at = 0u64;
    for pegs in 0..=holes {
        offsets.push(at);
        at += crate::rank::binomial(holes, pegs).div_ceil(64) * 8;
    }
    (offsets, at)
}

impl PegHeader {
    fn encode(&self) -> Vec<u8> {
        let mut block = header::new_block();
        header::put_text(&mut block, NAME_AT, &self.puzzle);
        header::put_text(&mut block, GOAL_AT, &self.goal);
        header::put_u64(&mut block, INDICES_AT, 1u64 << self.holes);
        block[BITS_AT] = 1;
        block[COMPLETE_AT] = self.complete as u8;
        block[KIND_AT] = PEG_KIND;
        header::put_u32(&mut block, LEVELS_AT, self.histogram.len() as u32);
        let payload = level_offsets(self.holes).1;
        header::put_u64(&mut block, PAYLOAD_BYTES_AT, payload);
        header::put_u64(&mut block, PAYLOAD_CRC_AT, self.payload_crc32 as u64);
        if let Some(digest) = header::from_hex(&self.definition_sha256) {
            block[DIGEST_AT..DIGEST_AT + DIGEST_BYTES].copy_from_slice(&digest);
        }
        for (p, &count) in self.histogram.iter().enumerate() {
            let at = HISTOGRAM_AT + 8 * p;
            header::put_u64(&mut block, at, count);
        }
        header::seal(&mut block);
        block
    }

    /// Reads a peg table's header block.
    ///
    /// # Errors
    /// [`crate::table::header::HeaderError`] if the block is not a peg table header or
    /// its checksum fails.
    pub fn decode(block: &[u8]) -> Result<PegHeader, header::HeaderError> {
        use header::HeaderError;
        if !header::has_magic(block) {
            return Err(HeaderError::Magic);
        }
        if header::u64_at(block, HEADER_CRC_AT) != header::header_crc(block) as u64 {
            return Err(HeaderError::Checksum);
        }
        if block[KIND_AT] != PEG_KIND || block[BITS_AT] != 1 {
            return Err(HeaderError::Field(
                "not a peg solitaire table (a depth table or pattern database)".into(),
            ));
        }
        let indices = header::u64_at(block, INDICES_AT);
        if !indices.is_power_of_two() || indices.trailing_zeros() > 63 {
            return Err(HeaderError::Field(format!("{indices} boards")));
        }
        let holes = indices.trailing_zeros() as usize;
        if !(1..=MAX_TABLE_HOLES).contains(&holes) {
            return Err(HeaderError::Field(format!(
                "{holes} holes (peg tables have 1 to {MAX_TABLE_HOLES})"
            )));
        }
        let levels = header::u32_at(block, LEVELS_AT) as usize;
        if levels > holes + 1 {
            return Err(HeaderError::Field(format!("{levels} levels")));
        }
        if header::u64_at(block, PAYLOAD_BYTES_AT) != level_offsets(holes).1 {
            return Err(HeaderError::Field("payload size".into()));
        }
        Ok(PegHeader {
            puzzle: header::get_text(block, NAME_AT)?,
            goal: header::get_text(block, GOAL_AT)?,
            definition_sha256: header::to_hex(&block[DIGEST_AT..DIGEST_AT + DIGEST_BYTES]),
            holes,
            complete: block[COMPLETE_AT] == 1,
            histogram: (0..levels)
                .map(|p| header::u64_at(block, HISTOGRAM_AT + 8 * p))
                .collect(),
            payload_crc32: header::u64_at(block, PAYLOAD_CRC_AT) as u32,
        })
    }
}

/// The most holes a peg table may have (2^40 bits, 128 GiB).
pub const MAX_TABLE_HOLES: usize = 40;

/// `tables/NAME-solvable.table`.
#[must_use]
pub fn default_path(board: &PegBoard) -> PathBuf {
    PathBuf::from(crate::persist::TABLES_DIR).join(format!("{}-solvable.table", board.name()))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TableError + '_ {
    move |cause| TableError::Io {
        path: path.to_owned(),
        cause,
    }
}

fn header_for(board: &PegBoard) -> PegHeader {
    PegHeader {
        puzzle: board.name().into(),
        goal: header::fit_text(&board.goal_text()),
        definition_sha256: header::definition_digest(&board.definition()),
        holes: board.holes(),
        complete: false,
        histogram: Vec::new(),
        payload_crc32: 0,
    }
}

/// The header of the file at `path` if it is a peg table.
///
/// # Errors
/// [`TableError`] if the file cannot be read or its header is not a peg table's.
pub fn read_header(path: &Path) -> Result<PegHeader, TableError> {
    let mut block = vec![0u8; HEADER_BYTES];
    crate::persist::open_regular(path)
        .and_then(|mut f| f.read_exact(&mut block))
        .map_err(io(path))?;
    PegHeader::decode(&block).map_err(|cause| TableError::Header {
        path: path.to_owned(),
        cause,
    })
}

/// Builds (or resumes) the table of `board` at `path`: every peg count's boards that
/// can reach the goal, by the backward sweep of [`super::levels::solvable_sets`],
/// each level written as it is found. Returns how many boards can.
/// `control.observer` hears of every level found (level `d` has the goal's pegs
/// plus `d`); `control.stop` ends the run after a level, resumable.
///
/// # Errors
/// [`PegTableError`] if the file cannot be placed, created, resumed or written, the
/// board is too large, or the stop token ends the run.
pub fn build(
    board: &PegBoard,
    path: &Path,
    force: bool,
    control: &Control<'_>,
) -> Result<u64, PegTableError> {
    if board.holes() > MAX_TABLE_HOLES {
        return Err(TableError::Place {
            path: path.to_owned(),
            reason: format!(
                "a table of {} holes would take 2^{} bits; tables go up to {MAX_TABLE_HOLES} holes",
                board.holes(),
                board.holes()
            ),
        }
        .into());
    }
    // Two levels' bit sets are held at once; refused before any file is made.
    let two_levels = crate::puzzles::peg::two_levels_bytes(board.holes(), 0, board.holes() as u32);
    super::levels::check_memory(board, two_levels, "its table")?;
    if path.exists() && !force {
        match read_header(path) {
            Ok(h) if h.complete => {
                return Err(TableError::Exists {
                    path: path.to_owned(),
                    puzzle: h.puzzle,
                }
                .into());
            }
            _ => {
                return Err(TableError::NotResumable {
                    path: path.to_owned(),
                    reason: "not a complete peg table".into(),
                }
                .into());
            }
        }
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let partial = crate::persist::sibling(path, ".partial");
    let lock = WriteLock::acquire(&partial)?;
    let (offsets, payload) = level_offsets(board.holes());
    if let Some(free) = crate::sys::available_bytes(&partial)
        && free < payload + HEADER_BYTES as u64
        && lock.created()
    {
        let _ = std::fs::remove_file(&partial);
        return Err(TableError::NoSpace {
            path: path.to_owned(),
            needed: payload + HEADER_BYTES as u64,
            available: free,
        }
        .into());
    }
    let file = lock.file();
    let ranker = SubsetRanker::new(board.holes());
    let (mut head, level, resumed) = resume_or_start(board, &partial, file, &offsets, &ranker)?;
    let levels = head.histogram[board.goal_pegs() as usize..].to_vec();
    let start = match resumed {
        true => Start::resumed(levels),
        false => Start::fresh(levels[0]),
    };
    let holes = board.holes() as u32;
    let write = |next: &LevelSet| -> Result<(), PegTableError> {
        Ok(write_level(&partial, file, &offsets, next, &mut head)?)
    };
    let mut backward = Backward::new(board, &ranker, level, start, holes, write);
    match driver::run(&mut backward, control) {
        Err(PegTableError::Search(PegError::Interrupted(stopped))) => {
            let checkpoint = Some(partial.clone());
            let stopped = Interrupted {
                checkpoint,
                ..stopped
            };
            return Err(PegError::Interrupted(stopped).into());
        }
        other => other?,
    };
    drop(backward);
    finish(path, &partial, file, payload, &mut head)?;
    drop(lock);
    Ok(head.histogram.iter().sum())
}

/// Sets the payload's checksum and the complete flag, syncs, and renames `partial` to
/// `path`.
fn finish(
    path: &Path,
    partial: &Path,
    mut file: &File,
    payload: u64,
    head: &mut PegHeader,
) -> Result<(), TableError> {
    // The checksum of the payload, then the complete header, then the name.
    let mut crc = crc32fast::Hasher::new();
    let mut buffer = vec![0u8; 1 << 20];
    file.seek(SeekFrom::Start(HEADER_BYTES as u64))
        .map_err(io(partial))?;
    let mut left = payload;
    while left > 0 {
        let take = left.min(buffer.len() as u64) as usize;
        file.read_exact(&mut buffer[..take]).map_err(io(partial))?;
        crc.update(&buffer[..take]);
        left -= take as u64;
    }
    head.payload_crc32 = crc.finalize();
    head.complete = true;
    write_header(partial, file, head, "the complete header")?;
    crate::persist::publish(file, partial, path).map_err(io(path))
}

/// The header and last level of a previous run of this board in `partial` (and
/// true), or (when there is none) a fresh file with the goal's level written.
fn resume_or_start(
    board: &PegBoard,
    partial: &Path,
    mut file: &File,
    offsets: &[u64],
    ranker: &SubsetRanker,
) -> Result<(PegHeader, LevelSet, bool), TableError> {
    let wanted = header_for(board);
    let payload = level_offsets(board.holes()).1;
    let mut head = match read_header(partial) {
        Ok(h) if h.definition_sha256 == wanted.definition_sha256 && !h.histogram.is_empty() => h,
        _ => {
            file.set_len(0).map_err(io(partial))?;
            file.set_len(HEADER_BYTES as u64 + payload)
                .map_err(io(partial))?;
            wanted.clone()
        }
    };
    let low = board.goal_pegs();
    let resumed = head.histogram.len() as u32 > low;
    let level = if resumed {
        let pegs = head.histogram.len() as u32 - 1;
        let mut bytes = vec![0u8; (offsets[pegs as usize + 1] - offsets[pegs as usize]) as usize];
        file.seek(SeekFrom::Start(
            HEADER_BYTES as u64 + offsets[pegs as usize],
        ))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(io(partial))?;
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        LevelSet::from_words(ranker, pegs, &words)
    } else {
        head.histogram = vec![0; low as usize];
        let first = super::levels::goal_level(board, ranker);
        write_level(partial, file, offsets, &first, &mut head)?;
        first
    };
    Ok((head, level, resumed))
}

fn write_failed(
    path: &Path,
    what: &'static str,
    head: &PegHeader,
) -> impl Fn(std::io::Error) -> TableError {
    let (path, levels) = (path.to_owned(), head.histogram.len());
    move |cause| TableError::WriteFailed {
        path: path.clone(),
        what,
        levels,
        cause,
    }
}

fn write_header(
    path: &Path,
    mut file: &File,
    head: &PegHeader,
    what: &'static str,
) -> Result<(), TableError> {
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.write_all(&head.encode()))
        .and_then(|_| file.sync_data())
        .map_err(write_failed(path, what, head))
}

/// Writes a level's bits at its offset and syncs them, then the header that counts it.
fn write_level(
    path: &Path,
    mut file: &File,
    offsets: &[u64],
    level: &LevelSet,
    head: &mut PegHeader,
) -> Result<(), TableError> {
    let pegs = level.pegs() as usize;
    let mut bytes = Vec::with_capacity(level.bytes() as usize);
    for word in level.words() {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    file.seek(SeekFrom::Start(HEADER_BYTES as u64 + offsets[pegs]))
        .and_then(|_| file.write_all(&bytes))
        .and_then(|_| file.sync_data())
        .map_err(write_failed(path, "a level", head))?;
    head.histogram.truncate(pegs);
    head.histogram.resize(pegs, 0);
    head.histogram.push(level.count());
    write_header(path, file, head, "the header")
}

/// A complete peg table, mapped: one bit per board.
#[derive(Debug)]
pub struct SolvableTable {
    path: PathBuf,
    header: PegHeader,
    map: Mmap,
    offsets: Vec<u64>,
    ranker: SubsetRanker,
}

impl SolvableTable {
    /// Opens and checks a complete peg table (its header, size and checksum).
    ///
    /// # Errors
    /// [`TableError`] if the file cannot be read, is not a complete peg table, or its
    /// checksum fails.
    pub fn open(path: impl AsRef<Path>) -> Result<SolvableTable, TableError> {
        let path = path.as_ref();
        let header = read_header(path)?;
        if !header.complete {
            return Err(TableError::Incomplete {
                path: path.to_owned(),
                levels: header.histogram.len(),
            });
        }
        let file = crate::persist::open_regular(path).map_err(io(path))?;
        // SAFETY: the map is read-only; a writer replaces a table by renaming a new
        // file over it (never by writing into it), so the mapped bytes do not change.
        let map = unsafe { Mmap::map(&file) }.map_err(io(path))?;
        let (offsets, payload) = level_offsets(header.holes);
        let expected = HEADER_BYTES as u64 + payload;
        if map.len() as u64 != expected {
            return Err(TableError::Size {
                path: path.to_owned(),
                expected,
                found: map.len() as u64,
            });
        }
        let found = crc32fast::hash(&map[HEADER_BYTES..]);
        if found != header.payload_crc32 {
            return Err(TableError::Checksum {
                path: path.to_owned(),
                expected: header.payload_crc32,
                found,
            });
        }
        Ok(SolvableTable {
            path: path.to_owned(),
            ranker: SubsetRanker::new(header.holes),
            header,
            map,
            offsets,
        })
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> &PegHeader {
        &self.header
    }

    /// Refuses a table of another board or goal: its definition's digest and every
    /// field of its header that the board implies (its holes) must be the board's.
    ///
    /// # Errors
    /// [`TableError`] if the table was built for another board or goal.
    pub fn check_board(&self, board: &PegBoard) -> Result<(), TableError> {
        let digest = header::definition_digest(&board.definition());
        if self.header.definition_sha256 == digest && self.header.holes == board.holes() {
            Ok(())
        } else {
            // The holes are named where they differ (a header of another size).
            let differ = self.header.holes != board.holes();
            let of = |name: &str, goal: &str, holes: usize| match differ {
                true => format!("{name} (goal: {goal}, {holes} holes)"),
                false => format!("{name} (goal: {goal})"),
            };
            Err(TableError::OtherPuzzle {
                path: self.path.clone(),
                table: of(&self.header.puzzle, &self.header.goal, self.header.holes),
                wanted: of(board.name(), &board.goal_text(), board.holes()),
            })
        }
    }

    /// Whether the goal can be reached from `board`.
    #[must_use]
    pub fn solvable(&self, board: u64) -> bool {
        let pegs = board.count_ones() as usize;
        let bit = self.ranker.rank(board);
        let byte = HEADER_BYTES as u64 + self.offsets[pegs] + bit / 8;
        self.map[byte as usize] >> (bit % 8) & 1 == 1
    }
}

impl super::moves::SolvableBoards for SolvableTable {
    fn can_reach_goal(&self, board: u64) -> bool {
        self.solvable(board)
    }
}

/// Checks a peg table against the definition of its boards, independently of how it
/// was built: its goal boards are marked; every marked board that is not a goal has a
/// marked board one jump on (so every marked board can reach the goal); every board
/// one reversed jump before a marked board is marked (so, the goal boards being
/// marked, every board that can reach the goal is); the header's counts are the
/// levels'. Opening it has checked the header, the size and the checksum.
#[must_use]
pub fn verify(table: &SolvableTable, board: &PegBoard) -> Vec<Check> {
    verify_observed(table, board, &crate::engine::Silent)
}

/// [`verify`], telling `observer` of its progress: one level of work, in boards of
/// every peg count (`work_done` after each peg count).
pub fn verify_observed(
    table: &SolvableTable,
    board: &PegBoard,
    observer: &dyn crate::engine::Observer,
) -> Vec<Check> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let holes = board.holes();
    let all_boards: u64 = (0..=holes).map(|p| table.ranker.count(p)).sum();
    observer.level_started(0, crate::engine::Direction::TopDown, all_boards);
    let halves = Halves::new(holes);
    let goals_marked = board.goal_boards().iter().all(|&g| table.solvable(g));
    let (unproven, missing) = (AtomicU64::new(0), AtomicU64::new(0));
    let mut counts = Vec::with_capacity(holes + 1);
    for pegs in 0..=holes as u32 {
        let start = HEADER_BYTES + table.offsets[pegs as usize] as usize;
        let words: Vec<u64> = table.map[start..]
            .chunks_exact(8)
            .take(table.ranker.count(pegs as usize).div_ceil(64) as usize)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        let level = LevelSet::from_words(&table.ranker, pegs, &words);
        counts.push(level.count());
        level.for_each_board(
            &halves,
            || (),
            |_, b| {
                let mut next = board.is_goal(b);
                board.for_each_jump(b, |child| next |= table.solvable(child));
                if !next {
                    unproven.fetch_add(1, Ordering::Relaxed);
                }
                board.for_each_unjump(b, |parent| {
                    if !table.solvable(parent) {
                        missing.fetch_add(1, Ordering::Relaxed);
                    }
                });
            },
        );
        observer.work_done(table.ranker.count(pegs as usize));
    }
    let (unproven, missing) = (unproven.into_inner(), missing.into_inner());
    let check = |name: &str, ok: bool, detail: String| Check {
        name: name.into(),
        ok,
        detail,
    };
    vec![
        check(
            "header, size and checksum",
            true,
            format!("crc32 {:08x}", table.header.payload_crc32),
        ),
        check("goal boards marked", goals_marked, board.goal_text()),
        check(
            "every marked board has a marked board one jump on",
            unproven == 0,
            match unproven {
                0 => "holds for every marked board".into(),
                n => format!("{n} without"),
            },
        ),
        check(
            "every board a reversed jump before a marked one is marked",
            missing == 0,
            match missing {
                0 => "holds for every marked board".into(),
                n => format!("{n} missing"),
            },
        ),
        check(
            "counts per peg count",
            counts == table.header.histogram,
            format!(
                "{} boards can reach the goal",
                crate::units::thousands(counts.iter().sum::<u64>())
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_answers_like_the_search_and_resumes() {
        let board = PegBoard::shipped("hoppers").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hoppers.table");
        // A stop after the first level leaves a resumable partial file.
        let stop = crate::StopToken::new();
        stop.stop();
        let stopping = Control::new(&crate::driver::Silent, Some(&stop));
        assert!(matches!(
            build(&board, &path, false, &stopping),
            Err(PegTableError::Search(PegError::Interrupted(Interrupted { ref levels, .. })))
                if levels == &[1]
        ));
        assert!(!path.exists());
        let solvable = build(&board, &path, false, &Control::default()).unwrap();
        let table = SolvableTable::open(&path).unwrap();
        table.check_board(&board).unwrap();
        let sets =
            crate::solvers::peg::levels::solvable_sets(&board, 13, &Control::default()).unwrap();
        let mut count = 0;
        for b in 0u64..1 << 13 {
            assert_eq!(table.solvable(b), sets.contains(b), "{b:013b}");
            count += table.solvable(b) as u64;
        }
        assert_eq!(count, solvable);
        assert_eq!(table.header().histogram.iter().sum::<u64>(), solvable);
        // A second build refuses to overwrite; another goal is another board.
        assert!(matches!(
            build(&board, &path, false, &Control::default()),
            Err(PegTableError::Table(TableError::Exists { .. }))
        ));
        let other = board
            .clone()
            .with_goal(crate::puzzles::peg::PegGoal::OnePeg);
        assert!(table.check_board(&other).is_err());
        assert!(verify(&table, &board).iter().all(|c| c.ok));
        // A table that misses a solvable board, with its checksum made to match, fails.
        drop(table);
        let mut bytes = std::fs::read(&path).unwrap();
        let (offsets, _) = level_offsets(13);
        let at = HEADER_BYTES + offsets[12] as usize;
        let rank = SubsetRanker::new(13).rank(board.start()) as usize;
        bytes[at + rank / 8] &= !(1 << (rank % 8));
        let mut head = PegHeader::decode(&bytes).unwrap();
        head.payload_crc32 = crc32fast::hash(&bytes[HEADER_BYTES..]);
        bytes[..HEADER_BYTES].copy_from_slice(&head.encode());
        std::fs::write(&path, &bytes).unwrap();
        let table = SolvableTable::open(&path).unwrap();
        let failed: Vec<String> = verify(&table, &board)
            .into_iter()
            .filter(|c| !c.ok)
            .map(|c| c.name)
            .collect();
        assert_eq!(
            failed,
            [
                "every board a reversed jump before a marked one is marked",
                "counts per peg count"
            ]
        );
    }

    /// Writes a table at `path` whose header says `holes`, with the board's digest,
    /// a payload of the size that implies and every checksum right.
    fn crafted(board: &PegBoard, path: &Path, holes: usize) {
        let mut head = header_for(board);
        head.holes = holes;
        head.complete = true;
        let payload = vec![0xffu8; level_offsets(holes).1 as usize];
        head.payload_crc32 = crc32fast::hash(&payload);
        let mut bytes = head.encode();
        bytes.extend_from_slice(&payload);
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn a_header_of_another_size_is_refused() {
        let board = PegBoard::shipped("hoppers").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crafted.table");
        for holes in [12, 14, 20] {
            crafted(&board, &path, holes);
            let table = SolvableTable::open(&path).unwrap();
            let error = table.check_board(&board).unwrap_err().to_string();
            assert!(error.contains(&format!("{holes} holes")), "{error}");
            assert!(error.contains("13 holes"), "{error}");
        }
        // No ranker for these: refused when the header is read.
        for holes in [0, 41, 63] {
            let mut head = header_for(&board);
            head.holes = holes;
            let block = head.encode();
            let error = PegHeader::decode(&block).unwrap_err().to_string();
            assert!(error.contains(&format!("{holes} holes")), "{error}");
        }
    }
}
