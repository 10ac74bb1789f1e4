//! Checksums per block of a complete depth table's payload (format version 3), so that
//! a table of any size answers only from checked bytes without reading it whole at
//! open.
//!
//! The payload is cut into blocks of 2^k bytes (1 MiB, k = 20); the CRC-32 of every
//! block follows the payload in the file, as a list of little-endian u32, and the
//! header records k and the list's own CRC-32 (`tables/README.md`). A reader loads the
//! list at open (a 10 GB table: 40 KB) and checks a block the first time an answer
//! reads one of its entries ([`Guard`]); a block that does not match makes that
//! answer an error, never a value.

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};

use rayon::prelude::*;

use super::{HEADER_BYTES, Header, TableError, io_error};
use crate::store::{DepthRead, Wanted};

/// log2 of the block size antipode writes: 1 MiB.
pub const BLOCK_LOG2: u8 = 20;
/// The smallest and largest block sizes (log2) a header may record.
pub(crate) const BLOCK_LOG2_RANGE: Range<u8> = 12..31;

/// What a version-3 header says of the block checksums after the payload.
///
/// ```
/// use antipode::table::BlockSums;
///
/// let sums = BlockSums { block_log2: 20, list_crc32: 0 };
/// // A payload of 2.5 MiB has three blocks of 1 MiB, listed in 12 bytes.
/// let payload = 5 << 19;
/// assert_eq!((sums.blocks(payload), sums.list_bytes(payload)), (3, 12));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct BlockSums {
    /// log2 of the block size in bytes.
    pub block_log2: u8,
    /// CRC-32 of the list of block checksums (its bytes as stored).
    pub list_crc32: u32,
}

impl BlockSums {
    /// Bytes per block.
    #[must_use]
    pub fn block_bytes(&self) -> u64 {
        1 << self.block_log2
    }

    /// The number of blocks of a payload of `payload_bytes`.
    #[must_use]
    pub fn blocks(&self, payload_bytes: u64) -> u64 {
        payload_bytes.div_ceil(self.block_bytes())
    }

    /// Bytes of the list that follows a payload of `payload_bytes`.
    #[must_use]
    pub fn list_bytes(&self, payload_bytes: u64) -> u64 {
        4 * self.blocks(payload_bytes)
    }
}

/// The checksum of every `2^block_log2`-byte block of `payload` and of the whole
/// payload (combined from the blocks', so the payload is read once, in parallel).
pub(crate) fn checksums(payload: &[u8], block_log2: u8) -> (Vec<u32>, u32) {
    let hashers: Vec<crc32fast::Hasher> = payload
        .par_chunks(1 << block_log2)
        .map(|block| {
            let mut h = crc32fast::Hasher::new();
            h.update(block);
            h
        })
        .collect();
    let mut whole = crc32fast::Hasher::new();
    for h in &hashers {
        whole.combine(h);
    }
    let list = hashers.into_iter().map(|h| h.finalize()).collect();
    (list, whole.finalize())
}

/// The bytes of a list of block checksums, as the file stores them.
pub(crate) fn list_bytes(list: &[u32]) -> Vec<u8> {
    list.iter().flat_map(|c| c.to_le_bytes()).collect()
}

/// Reads and checks the list of block checksums of the complete table `file` whose
/// header is `header` (`None` for a table without one: versions 1 and 2, pattern
/// databases).
pub(crate) fn read_list(
    path: &Path,
    file: &File,
    header: &Header,
) -> Result<Option<Vec<u32>>, TableError> {
    let Some(sums) = header.block_sums else {
        return Ok(None);
    };
    let mut bytes = vec![0u8; sums.list_bytes(header.payload_bytes) as usize];
    file.read_exact_at(&mut bytes, HEADER_BYTES as u64 + header.payload_bytes)
        .map_err(io_error(path))?;
    let found = crc32fast::hash(&bytes);
    if found != sums.list_crc32 {
        return Err(TableError::Header {
            path: path.to_owned(),
            cause: super::HeaderError::Field(format!(
                "the list of block checksums after the payload is corrupted (checksum \
                 {found:08x}, header says {:08x})",
                sums.list_crc32
            )),
        });
    }
    Ok(Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect(),
    ))
}

/// One file's payload inside the array a reader maps: a whole table's, or a shard's.
struct MappedPayload {
    path: PathBuf,
    /// Where the file's payload lies in the array, in bytes.
    bytes: Range<u64>,
    block_log2: u8,
    expected: Vec<u32>,
    /// Per block: 0 not checked yet, 1 good, 2 corrupted.
    state: Vec<AtomicU8>,
    /// Per block found corrupted, the checksum it has (answers after the first
    /// need no hash again).
    found: Vec<AtomicU32>,
    /// Blocks hashed (tests count them).
    #[cfg(test)]
    hashed: std::sync::atomic::AtomicU64,
}

const UNCHECKED: u8 = 0;
const GOOD: u8 = 1;
const BAD: u8 = 2;

/// A payload block whose checksum does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadBlock {
    /// The file that holds it.
    pub path: PathBuf,
    /// Its number in that file's payload.
    pub block: u64,
    /// Its bytes in that file's payload.
    pub bytes: Range<u64>,
    /// From the file's list.
    pub expected: u32,
    /// Computed now.
    pub found: u32,
}

impl From<BadBlock> for TableError {
    fn from(bad: BadBlock) -> TableError {
        TableError::BlockChecksum {
            path: bad.path,
            block: bad.block,
            bytes: bad.bytes,
            expected: bad.expected,
            found: bad.found,
        }
    }
}

/// Checks the blocks of a mapped payload the first time they are read. A guard with
/// no segments checks nothing (tables of versions 1 and 2, checked whole at open).
#[derive(Default)]
pub(crate) struct Guard {
    /// Ordered by their place in the array, not overlapping.
    segments: Vec<MappedPayload>,
}

impl Guard {
    /// Adds the blocks of the file at `path`, whose payload lies at `at` (bytes) in
    /// the array, with its checked list `expected`.
    pub(crate) fn add(&mut self, path: &Path, at: u64, header: &Header, expected: Vec<u32>) {
        let Some(sums) = header.block_sums else {
            return;
        };
        self.segments.push(MappedPayload {
            path: path.to_owned(),
            bytes: at..at + header.payload_bytes,
            block_log2: sums.block_log2,
            state: expected.iter().map(|_| AtomicU8::new(UNCHECKED)).collect(),
            found: expected.iter().map(|_| AtomicU32::new(0)).collect(),
            expected,
            #[cfg(test)]
            hashed: Default::default(),
        });
        self.segments.sort_by_key(|s| s.bytes.start);
    }

    /// Whether it checks anything.
    pub(crate) fn is_active(&self) -> bool {
        !self.segments.is_empty()
    }

    /// Checks the block that holds byte `byte` of `payload` (the array), once.
    #[inline]
    pub(crate) fn check_byte(&self, payload: &[u8], byte: u64) -> Result<(), BadBlock> {
        if self.segments.is_empty() {
            return Ok(());
        }
        let k = self.segments.partition_point(|s| s.bytes.end <= byte);
        let Some(segment) = self.segments.get(k).filter(|s| s.bytes.contains(&byte)) else {
            return Ok(());
        };
        let block = (byte - segment.bytes.start) >> segment.block_log2;
        segment.outcome(payload, block)
    }

    /// Checks every block not checked yet, in parallel: for readers of the whole array.
    pub(crate) fn check_all(&self, payload: &[u8]) -> Result<(), BadBlock> {
        self.segments.iter().try_for_each(|segment| {
            (0..segment.expected.len() as u64)
                .into_par_iter()
                .try_for_each(|block| segment.outcome(payload, block))
        })
    }
}

impl MappedPayload {
    /// Whether block `block` is good: known, or checked now.
    #[inline]
    fn outcome(&self, payload: &[u8], block: u64) -> Result<(), BadBlock> {
        match self.state[block as usize].load(Ordering::Acquire) {
            GOOD => Ok(()),
            BAD => Err(self.bad(block, self.found[block as usize].load(Ordering::Relaxed))),
            _ => self.check(payload, block),
        }
    }

    /// Computes block `block`'s checksum and records the outcome (two threads may both
    /// compute it; they record the same).
    fn check(&self, payload: &[u8], block: u64) -> Result<(), BadBlock> {
        #[cfg(test)]
        self.hashed.fetch_add(1, Ordering::Relaxed);
        let bytes = self.block_bytes(block);
        let at = self.bytes.start as usize;
        let found = crc32fast::hash(&payload[at + bytes.start as usize..at + bytes.end as usize]);
        if found == self.expected[block as usize] {
            self.state[block as usize].store(GOOD, Ordering::Relaxed);
            return Ok(());
        }
        // Release: the checksum found is there for whoever reads BAD (Acquire).
        self.found[block as usize].store(found, Ordering::Relaxed);
        self.state[block as usize].store(BAD, Ordering::Release);
        Err(self.bad(block, found))
    }

    /// Block `block`'s bytes in the file's payload.
    fn block_bytes(&self, block: u64) -> Range<u64> {
        let start = block << self.block_log2;
        start..((block + 1) << self.block_log2).min(self.bytes.end - self.bytes.start)
    }

    /// The failure of block `block`, whose bytes hash to `found`.
    fn bad(&self, block: u64, found: u32) -> BadBlock {
        BadBlock {
            path: self.path.clone(),
            block,
            bytes: self.block_bytes(block),
            expected: self.expected[block as usize],
            found,
        }
    }
}

/// A depth array read through a [`Guard`]: an entry of a corrupted block reads as
/// unreached, and the first such block is kept for [`Checked::failure`], which every
/// answer read through it must consult before it is given.
pub(crate) struct Checked<'a, R> {
    store: &'a R,
    guard: &'a Guard,
    payload: &'a [u8],
    bits: u64,
    bad: OnceLock<BadBlock>,
}

impl<'a, R: DepthRead> Checked<'a, R> {
    /// `store` over `payload` (its bytes), `bits` per entry.
    pub(crate) fn new(store: &'a R, guard: &'a Guard, payload: &'a [u8], bits: u32) -> Self {
        Checked {
            store,
            guard,
            payload,
            bits: bits as u64,
            bad: OnceLock::new(),
        }
    }

    /// The first corrupted block an entry was read from, if any.
    pub(crate) fn failure(&self) -> Option<BadBlock> {
        self.bad.get().cloned()
    }

    #[inline]
    fn good(&self, index: u64) -> bool {
        match self.guard.check_byte(self.payload, index * self.bits / 8) {
            Ok(()) => true,
            Err(bad) => {
                let _ = self.bad.set(bad);
                false
            }
        }
    }
}

impl<R: DepthRead> DepthRead for Checked<'_, R> {
    fn len(&self) -> u64 {
        self.store.len()
    }

    fn max_depth(&self) -> u32 {
        self.store.max_depth()
    }

    fn period(&self) -> Option<u32> {
        self.store.period()
    }

    #[inline]
    fn value(&self, index: u64) -> Option<u32> {
        if self.good(index) {
            self.store.value(index)
        } else {
            None
        }
    }

    #[inline]
    fn matches(&self, index: u64, wanted: Wanted) -> bool {
        self.good(index) && self.store.matches(index, wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_checksums_combine_to_the_payload_checksum() {
        let payload: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let (list, whole) = checksums(&payload, 12);
        assert_eq!(list.len(), 3);
        assert_eq!(whole, crc32fast::hash(&payload));
        assert_eq!(list[2], crc32fast::hash(&payload[8192..]));
    }

    /// A block found corrupted stays so without being hashed again: later reads of it
    /// give the same failure from what the first check recorded.
    #[test]
    fn a_bad_block_is_hashed_once() {
        let mut payload: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let (expected, _) = checksums(&payload, 12);
        payload[5000] ^= 1;
        let segment = MappedPayload {
            path: PathBuf::from("t.table"),
            bytes: 0..10_000,
            block_log2: 12,
            state: expected.iter().map(|_| AtomicU8::new(UNCHECKED)).collect(),
            found: expected.iter().map(|_| AtomicU32::new(0)).collect(),
            expected,
            hashed: Default::default(),
        };
        let first = segment.outcome(&payload, 1).unwrap_err();
        assert_eq!((first.block, first.bytes.clone()), (1, 4096..8192));
        assert_eq!(first.found, crc32fast::hash(&payload[4096..8192]));
        assert_eq!(segment.outcome(&payload, 1), Err(first));
        assert!(segment.outcome(&payload, 0).is_ok() && segment.outcome(&payload, 0).is_ok());
        assert_eq!(segment.hashed.load(Ordering::Relaxed), 2);
    }
}
