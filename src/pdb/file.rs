//! Pattern databases as table files: the depth tables' header (kind 1, the pattern's
//! tiles, the entry base; `tables/README.md`) over 4- or 8-bit entries, one per
//! placement in rank order.

use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapOptions};
use rayon::prelude::*;

use super::PdbError;
use super::build::Entries;
use super::pattern::Pattern;
use crate::grid::Grid;
use crate::store::Encoding;
use crate::table::header::{self, EntryBase, HEADER_BYTES, Header, PatternInfo};
use crate::table::lock::WriteLock;
use crate::table::{self, TableError};

/// The canonical definition of a pattern database, whose SHA-256 the header keeps: the
/// board, its goal (tile per cell, row-major) and the pattern's tiles.
#[must_use]
pub fn definition(pattern: &Pattern, goal: &[u8]) -> String {
    format!(
        "pattern database\nboard {}x{}\ngoal {}\ntiles {}\n",
        pattern.rows(),
        pattern.cols(),
        super::tile_list(goal),
        super::tile_list(pattern.tiles())
    )
}

/// The Manhattan distance of each pattern tile on each cell to its goal cell.
fn manhattan_table(pattern: &Pattern) -> Vec<[u8; 32]> {
    let grid = Grid::new(pattern.rows(), pattern.cols());
    pattern
        .homes()
        .iter()
        .map(|&home| {
            let mut row = [0u8; 32];
            for (cell, d) in row.iter_mut().enumerate().take(grid.cells()) {
                *d = grid.manhattan(cell, home as usize) as u8;
            }
            row
        })
        .collect()
}

/// The pattern tiles' Manhattan distance in placement `places`.
#[inline(always)]
fn manhattan(table: &[[u8; 32]], places: &[u8]) -> u32 {
    places
        .iter()
        .zip(table)
        .map(|(&p, row)| row[p as usize % 32] as u32)
        .sum()
}

/// Writes a built database to `path` through `partial` (`path.partial`, locked by
/// this build, renamed when complete, so that no file at `path` is ever unfinished),
/// choosing the smallest entries: 4 bits of the distance, or 4 bits of the distance
/// over the pattern tiles' Manhattan distance, or 8 bits. If writing fails, the
/// partial file is removed.
///
/// # Errors
/// [`PdbError`] if the file cannot be written or renamed into place.
pub fn write(
    partial: WriteLock,
    path: &Path,
    pattern: &Pattern,
    puzzle: &str,
    goal_text: &str,
    goal: &[u8],
    built: &Entries,
) -> Result<Header, PdbError> {
    // Entries hold distance + 1: the largest is the number of levels.
    let fits_nibbles = built.histogram.len() <= 15;
    let table = manhattan_table(pattern);
    let over_manhattan = if fits_nibbles {
        None
    } else {
        over_manhattan_nibbles(pattern, &table, built)
    };
    let (encoding, base, payload) = match over_manhattan {
        Some(payload) => (Encoding::Nibble, EntryBase::Manhattan, payload),
        None if fits_nibbles => (
            Encoding::Nibble,
            EntryBase::Zero,
            pack_nibbles(built.entries.len(), |rank, _| Some(built.entries[rank]))
                .unwrap_or_default(),
        ),
        None => (Encoding::Byte, EntryBase::Zero, Vec::new()),
    };
    let payload: &[u8] = if encoding == Encoding::Byte {
        &built.entries
    } else {
        &payload
    };
    let header = Header {
        version: header::VERSION,
        puzzle: puzzle.into(),
        goal: header::fit_text(goal_text),
        definition_sha256: Some(header::definition_digest(&definition(pattern, goal))),
        indices: pattern.placements().count(),
        encoding,
        complete: true,
        histogram: built.histogram.clone(),
        index_range: 0..pattern.placements().count(),
        payload_bytes: payload.len() as u64,
        payload_crc32: table::payload_crc32(payload),
        pattern: Some(PatternInfo {
            tiles: pattern.tiles().to_vec(),
            base,
        }),
        checkpoint_slot: 0,
        block_sums: None,
    };
    let written = (|| {
        let mut file = partial.file();
        file.set_len(0)?;
        file.write_all(&header.encode())?;
        file.write_all(payload)?;
        crate::persist::publish(file, partial.path(), path)
    })();
    match written {
        Ok(()) => Ok(header),
        Err(cause) => {
            let error = PdbError::Io {
                path: partial.path().to_owned(),
                cause,
            };
            let _ = partial.remove();
            Err(error)
        }
    }
}

/// Where a database is written before it is complete.
#[must_use]
pub fn partial_path(path: &Path) -> PathBuf {
    crate::persist::sibling(path, ".partial")
}

/// The entries of `built` less their placements' Manhattan distance, four bits each,
/// or `None` if one does not fit.
fn over_manhattan_nibbles(
    pattern: &Pattern,
    table: &[[u8; 32]],
    built: &Entries,
) -> Option<Vec<u8>> {
    let k = pattern.tiles().len();
    let placements = pattern.placements();
    pack_nibbles(built.entries.len(), |rank, places| {
        placements.unrank(rank as u64, &mut places[..k]);
        match built.entries[rank] {
            // A placement no solvable position has stays 0 over any base.
            0 => Some(0),
            entry => entry
                .checked_sub(manhattan(table, &places[..k]) as u8)
                .filter(|&e| e <= 15),
        }
    })
}

/// `count` entries `value(rank, scratch)`, packed two to a byte (the first in the low
/// half), or `None` as soon as one is `None`.
fn pack_nibbles(
    count: usize,
    value: impl Fn(usize, &mut [u8; 32]) -> Option<u8> + Sync,
) -> Option<Vec<u8>> {
    let mut payload = vec![0u8; count.div_ceil(2)];
    let packed = payload
        .par_chunks_mut(1 << 15)
        .enumerate()
        .all(|(chunk, bytes)| {
            let mut places = [0u8; 32];
            for (offset, byte) in bytes.iter_mut().enumerate() {
                let first = 2 * ((chunk << 15) + offset);
                let Some(low) = value(first, &mut places) else {
                    return false;
                };
                let high = if first + 1 < count {
                    match value(first + 1, &mut places) {
                        Some(high) => high,
                        None => return false,
                    }
                } else {
                    0
                };
                *byte = low | high << 4;
            }
            true
        });
    packed.then_some(payload)
}

/// Where a placement's entry lies in a [`Pdb`], and the Manhattan base it is stored
/// over ([`Pdb::locate`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct EntryRef {
    rank: usize,
    base: u32,
}

impl EntryRef {
    /// The entry of the placement of rank `rank` whose Manhattan base is `base` (the
    /// sum of [`Pdb::base_of`] over its items).
    #[must_use]
    pub fn new(rank: u64, base: u32) -> EntryRef {
        EntryRef {
            rank: rank as usize,
            base,
        }
    }
}

/// A pattern database read from its file (memory-mapped): the fewest moves of the
/// pattern's tiles from any placement to the goal.
pub struct Pdb {
    path: PathBuf,
    pattern: Pattern,
    header: Header,
    map: Mmap,
    nibbles: bool,
    over_manhattan: bool,
    manhattan: Vec<[u8; 32]>,
}

impl Pdb {
    /// Opens the database of `pattern` for a board whose goal is `goal`: refused if
    /// the file is another pattern's or goal's, unfinished, or damaged (the payload's
    /// checksum is checked).
    ///
    /// # Errors
    /// [`PdbError`] if the file is not a complete database, is damaged, or is another
    /// board's.
    pub fn open(path: &Path, pattern: &Pattern, goal: &[u8]) -> Result<Pdb, PdbError> {
        let header = table::read_header_of(path)?;
        let table_error = PdbError::Table;
        let info = header.pattern.clone().ok_or_else(|| {
            PdbError::Other(format!(
                "{}: a depth table, not a pattern database",
                path.display()
            ))
        })?;
        let digest = header::definition_digest(&definition(pattern, goal));
        if header.definition_sha256.as_deref() != Some(digest.as_str()) {
            return Err(PdbError::Other(format!(
                "{}: this database is for tiles {:?} of {} (goal {}), not this pattern",
                path.display(),
                info.tiles,
                header.puzzle,
                header.goal
            )));
        }
        if !header.complete {
            return Err(PdbError::Other(format!("{}: unfinished", path.display())));
        }
        let file = crate::persist::open_regular(path).map_err(|cause| PdbError::Io {
            path: path.to_owned(),
            cause,
        })?;
        let length = file.metadata().map(|m| m.len()).unwrap_or(0);
        if length != HEADER_BYTES as u64 + header.payload_bytes {
            return Err(table_error(TableError::Size {
                path: path.to_owned(),
                expected: HEADER_BYTES as u64 + header.payload_bytes,
                found: length,
            }));
        }
        // SAFETY: a read-only mapping of a finished file: another process that
        // truncated or rewrote it could change what is read, which the checksum
        // checked below guards against for files as antipode writes them.
        let map = unsafe {
            MmapOptions::new()
                .offset(HEADER_BYTES as u64)
                .len(header.payload_bytes as usize)
                .map(&file)
        }
        .map_err(|cause| PdbError::Io {
            path: path.to_owned(),
            cause,
        })?;
        crate::sys::advise_huge_pages(&map);
        let nibbles = header.encoding == Encoding::Nibble;
        let (found, largest) = crc32_and_largest_entry(&map, nibbles);
        if found != header.payload_crc32 {
            return Err(table_error(TableError::Checksum {
                path: path.to_owned(),
                expected: header.payload_crc32,
                found,
            }));
        }
        let pdb = Pdb {
            path: path.to_owned(),
            pattern: pattern.clone(),
            nibbles,
            over_manhattan: info.base == EntryBase::Manhattan,
            manhattan: manhattan_table(pattern),
            header,
            map,
        };
        // A search over entries no build writes could run without end: an entry
        // (distance + 1, less the Manhattan base) beyond the header's levels, or a goal
        // placement not at distance 0.
        let levels = pdb.header.histogram.len();
        let damaged =
            |what: String| PdbError::Other(format!("{}: damaged: {what}", path.display()));
        if largest as usize > levels {
            return Err(damaged(format!(
                "an entry of {largest} where the header lists {levels} levels"
            )));
        }
        let homes = pattern.homes();
        let goal_entry = pdb.distance_at(pattern.placements().rank(homes), homes);
        if goal_entry != Some(0) {
            return Err(damaged(format!(
                "the goal placement's entry is {goal_entry:?}, not distance 0"
            )));
        }
        Ok(pdb)
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pattern.
    #[must_use]
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    /// The file's header.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The fewest pattern moves from placement `places` (`places[i]` the cell of the
    /// pattern's `i`-th tile) to the goal.
    #[inline(always)]
    #[must_use]
    pub fn distance(&self, places: &[u8]) -> u32 {
        self.distance_of(self.locate(places))
    }

    /// Where the entry of placement `places` lies, for [`prefetch`](Self::prefetch)
    /// and [`distance_of`](Self::distance_of): a search that asks for the entries of
    /// all its children before it reads one has their memory latencies overlap.
    #[inline(always)]
    #[must_use]
    pub fn locate(&self, places: &[u8]) -> EntryRef {
        EntryRef {
            rank: self.pattern.placements().rank(places) as usize,
            base: self.base(places),
        }
    }

    /// What the pattern's `item`-th tile on `place` adds to the base its entries are
    /// stored over: its Manhattan distance where they are stored over the Manhattan
    /// distance, else 0. A search that ranks its moves incrementally keeps the base
    /// the same way ([`EntryRef::new`]).
    #[inline(always)]
    #[must_use]
    pub fn base_of(&self, item: usize, place: u8) -> u32 {
        if self.over_manhattan {
            self.manhattan[item][place as usize % 32] as u32
        } else {
            0
        }
    }

    /// Asks the processor to fetch `entry` into its caches.
    #[inline(always)]
    pub fn prefetch(&self, entry: EntryRef) {
        if let Some(byte) = self.map.get(self.byte_of(entry.rank)) {
            crate::cpu::prefetch(byte);
        }
    }

    /// The fewest pattern moves from the placement of `entry` to the goal.
    #[inline(always)]
    #[must_use]
    pub fn distance_of(&self, entry: EntryRef) -> u32 {
        match self.stored(entry.rank) {
            0 => 0,
            stored => stored + entry.base - 1,
        }
    }

    /// The distance of the placement of rank `rank`, whose places are `places`; `None`
    /// for a placement no solvable position has (stored as 0).
    #[inline(always)]
    #[must_use]
    pub fn distance_at(&self, rank: u64, places: &[u8]) -> Option<u32> {
        let stored = self.stored(rank as usize);
        (stored != 0).then(|| stored + self.base(places) - 1)
    }

    /// What placement `places` adds to its stored entry: the pattern tiles' Manhattan
    /// distance where entries are stored over it, else 0.
    #[inline(always)]
    fn base(&self, places: &[u8]) -> u32 {
        if self.over_manhattan {
            manhattan(&self.manhattan, places)
        } else {
            0
        }
    }

    /// The byte holding the entry of rank `rank`.
    #[inline(always)]
    fn byte_of(&self, rank: usize) -> usize {
        if self.nibbles { rank / 2 } else { rank }
    }

    /// The entry of rank `rank` as stored: distance + 1 (over the Manhattan base), 0
    /// for no solvable position (and for a rank beyond the table, which no placement
    /// has).
    #[inline(always)]
    fn stored(&self, rank: usize) -> u32 {
        let byte = self.map.get(self.byte_of(rank)).copied().unwrap_or(0);
        if self.nibbles {
            (byte >> (4 * (rank % 2)) & 15) as u32
        } else {
            byte as u32
        }
    }

    /// The pattern tiles' Manhattan distance in `places`: a lower bound of every
    /// entry.
    #[must_use]
    pub fn manhattan(&self, places: &[u8]) -> u32 {
        manhattan(&self.manhattan, places)
    }
}

/// The payload's CRC-32 ([`table::payload_crc32`]) and its largest entry, in one
/// parallel pass over slices that stay in cache between the two.
fn crc32_and_largest_entry(payload: &[u8], nibbles: bool) -> (u32, u8) {
    use rayon::prelude::*;
    const SLICE: usize = 1 << 16;
    let parts: Vec<(crc32fast::Hasher, u8)> = payload
        .par_chunks(table::CRC_SLICE)
        .map(|part| {
            let mut h = crc32fast::Hasher::new();
            let mut largest = 0u8;
            for chunk in part.chunks(SLICE) {
                h.update(chunk);
                let (high, low) = chunk
                    .iter()
                    .fold((0u8, 0u8), |(hi, lo), &b| (hi.max(b), lo.max(b & 15)));
                largest = largest.max(if nibbles { (high >> 4).max(low) } else { high });
            }
            (h, largest)
        })
        .collect();
    let mut total = crc32fast::Hasher::new();
    let mut largest = 0;
    for (part, l) in &parts {
        total.combine(part);
        largest = largest.max(*l);
    }
    (total.finalize(), largest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::Silent;
    use crate::pdb::build::build;

    #[test]
    fn a_written_database_reads_back() {
        let goal: Vec<u8> = (1..12).chain([0]).collect();
        let pattern = Pattern::new(3, 4, &goal, &[1, 2, 3, 5, 6]).unwrap();
        let built = build(&pattern, &Silent).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.table");
        let partial = WriteLock::acquire(&partial_path(&path)).unwrap();
        let header = write(
            partial,
            &path,
            &pattern,
            "11puzzle",
            "1 2 3 4/5 6 7 8/9 10 11 0",
            &goal,
            &built,
        )
        .unwrap();
        assert_eq!(header.encoding, Encoding::Nibble);
        assert!(!partial_path(&path).exists());
        let pdb = Pdb::open(&path, &pattern, &goal).unwrap();
        let mut places = [0u8; 5];
        for rank in 0..pattern.placements().count() {
            pattern.placements().unrank(rank, &mut places);
            assert_eq!(
                pdb.distance(&places),
                built.entries[rank as usize] as u32 - 1
            );
        }
        // Another pattern, or another goal, is refused.
        let other = Pattern::new(3, 4, &goal, &[1, 2, 3, 5, 7]).unwrap();
        assert!(Pdb::open(&path, &other, &goal).is_err());
        let mut moved_goal = goal.clone();
        moved_goal.rotate_right(1);
        let moved = Pattern::new(3, 4, &moved_goal, &[1, 2, 3, 5, 6]).unwrap();
        assert!(Pdb::open(&path, &moved, &moved_goal).is_err());
        // Entries no build writes, with every checksum right: refused at open (all
        // 0xff made `solve --pdb` search without end).
        drop(pdb);
        let original = std::fs::read(&path).unwrap();
        let levels = table::read_header_of(&path).unwrap().histogram.len();
        let opened_after = |change: &dyn Fn(&mut [u8])| {
            let mut bytes = original.clone();
            change(&mut bytes[HEADER_BYTES..]);
            let mut head = Header::decode(&original).unwrap();
            head.payload_crc32 = table::payload_crc32(&bytes[HEADER_BYTES..]);
            bytes[..HEADER_BYTES].copy_from_slice(&head.encode());
            std::fs::write(&path, &bytes).unwrap();
            Pdb::open(&path, &pattern, &goal)
                .err()
                .map(|e| e.to_string())
        };
        let all_ff = opened_after(&|payload| payload.fill(0xff)).unwrap();
        assert!(all_ff.contains(": damaged: "), "{all_ff}");
        // A header that lists fewer levels than the entries reach.
        assert!(levels > 2);
        let mut fewer = Header::decode(&original).unwrap();
        fewer.histogram.truncate(2);
        let beyond = {
            let mut bytes = original.clone();
            bytes[..HEADER_BYTES].copy_from_slice(&fewer.encode());
            std::fs::write(&path, &bytes).unwrap();
            Pdb::open(&path, &pattern, &goal).err().unwrap().to_string()
        };
        assert!(
            beyond.contains("where the header lists 2 levels"),
            "{beyond}"
        );
        let goal_rank = pattern.placements().rank(pattern.homes()) as usize;
        let goal_moved = opened_after(&|payload| payload[goal_rank / 2] = 0x22).unwrap();
        assert!(
            goal_moved.contains("the goal placement's entry is Some(1)"),
            "{goal_moved}"
        );
        assert_eq!(opened_after(&|_| {}), None);
    }
}
