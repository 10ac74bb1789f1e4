//! The table file header: a fixed 4096-byte block, little-endian, documented byte by
//! byte in `tables/README.md`.
//!
//! Version 2 identifies the puzzle by the SHA-256 digest of its canonical definition
//! ([`crate::Puzzle::definition`]), which can describe a whole puzzle (a goal set, a
//! description file), beside a readable name and goal. Version 3 adds checksums per
//! block of a complete depth table's payload ([`super::BlockSums`]). Files of versions 1
//! (name and goal only) and 2 are still read.

use super::blocks::{BLOCK_LOG2_RANGE, BlockSums};
use crate::store::Encoding;

/// "ANTIPODE": the first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"ANTIPODE";
/// The format version this code writes.
pub const VERSION: u32 = 3;
/// The oldest version this code reads.
pub const OLDEST_VERSION: u32 = 1;
/// Header size; the payload starts at this offset (page-aligned).
pub const HEADER_BYTES: usize = 4096;
/// The kind byte of a peg solitaire table (`crate::solvers::peg::table`).
pub const PEG_KIND: u8 = 2;
/// Most depths the histogram area holds.
pub const MAX_LEVELS: usize = 256;

/// The format version, after the 8-byte magic.
pub(crate) const VERSION_AT: usize = 8;
/// The header's size in bytes.
pub(crate) const HEADER_SIZE_AT: usize = 12;
pub(crate) const NAME_AT: usize = 16;
pub(crate) const GOAL_AT: usize = 80;
const TEXT_BYTES: usize = 64;
pub(crate) const INDICES_AT: usize = 144;
pub(crate) const BITS_AT: usize = 152;
pub(crate) const COMPLETE_AT: usize = 153;
pub(crate) const LEVELS_AT: usize = 156;
pub(crate) const PAYLOAD_BYTES_AT: usize = 160;
pub(crate) const PAYLOAD_CRC_AT: usize = 168;
pub(crate) const HEADER_CRC_AT: usize = 176;
pub(crate) const DIGEST_AT: usize = 184;
pub(crate) const KIND_AT: usize = 154;
const BASE_AT: usize = 155;
const TILE_COUNT_AT: usize = 216;
const TILES_AT: usize = 217;
/// Most tiles a pattern database's header lists.
pub const MAX_PATTERN_TILES: usize = 32;
/// Bytes of the definition digest (SHA-256).
pub const DIGEST_BYTES: usize = 32;
const SLOT_AT: usize = 256;
const RANGE_START_AT: usize = 264;
const RANGE_END_AT: usize = 272;
const BLOCK_LOG2_AT: usize = 280;
const BLOCK_LIST_CRC_AT: usize = 284;
pub(crate) const HISTOGRAM_AT: usize = 2048;

/// Why a header could not be read.
///
/// ```
/// use antipode::table::{HEADER_BYTES, Header, HeaderError};
///
/// let zeros = vec![0u8; HEADER_BYTES];
/// assert_eq!(Header::decode(&zeros), Err(HeaderError::Magic));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The file does not start with the magic bytes.
    #[error("not an antipode table (bad magic bytes)")]
    Magic,
    /// A version this code does not read.
    #[error(
        "table format version {0} is not supported (this antipode reads versions \
         {OLDEST_VERSION} to {VERSION})"
    )]
    Version(u32),
    /// The header's own checksum does not match.
    #[error("the header is corrupted (checksum mismatch)")]
    Checksum,
    /// The file is a peg solitaire table (kind 2), which has a header of its own.
    #[error(
        "a peg solitaire table of the boards that can still be solved: ask it with \
         `antipode lookup BOARD --table FILE POSITION...` or `antipode solve BOARD --table \
         FILE` (`antipode info FILE` names its BOARD)"
    )]
    PegTable,
    /// A field holds an impossible value.
    #[error("the header is corrupted: {0}")]
    Field(String),
}

/// Everything the header records.
///
/// ```
/// use antipode::{driver::Control, puzzles::SlidingPuzzle, store::Encoding};
/// use antipode::table::{self, BuildOptions, Header};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// table::build(&board, &path, &BuildOptions::default(), &Control::default()).unwrap();
/// let header = table::read_header_of(&path).unwrap();
/// assert_eq!((header.indices, header.encoding, header.complete), (360, Encoding::Byte, true));
/// // The header block encodes and decodes to itself.
/// assert_eq!(Header::decode(&header.encode()).unwrap(), header);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Header {
    /// The format version of the file (this code writes [`VERSION`]).
    pub version: u32,
    /// The puzzle's command-line name.
    pub puzzle: String,
    /// The goal in the puzzle's one-line form, or a summary of a goal set.
    pub goal: String,
    /// SHA-256 of the puzzle's canonical definition, as hex (version 2 on; `None` in
    /// version-1 files).
    pub definition_sha256: Option<String>,
    /// Entries in the payload (the puzzle's index count).
    pub indices: u64,
    /// How entries are encoded.
    pub encoding: Encoding,
    /// True once the search finished and payload and header were flushed.
    pub complete: bool,
    /// States per depth for every completed level.
    pub histogram: Vec<u64>,
    /// The indices whose entries the payload holds, `0..indices` for a whole table; a
    /// table in shards is a set of files, each covering a slice.
    pub index_range: std::ops::Range<u64>,
    /// Payload size in bytes.
    pub payload_bytes: u64,
    /// CRC-32 (IEEE) of the payload; 0 until complete.
    pub payload_crc32: u32,
    /// For a pattern database (`None` for a depth table): its tiles and entries.
    pub pattern: Option<PatternInfo>,
    /// While the table is incomplete: which copy of the payload holds the levels of
    /// [`Header::histogram`] (0 the payload at 4096, 1 the spare copy after it; see
    /// `tables/README.md`). Always 0 in a complete table.
    #[serde(skip)]
    pub checkpoint_slot: u8,
    /// A complete depth table of version 3: the checksums per payload block that
    /// follow the payload (`None` before completion, in older files and in other
    /// kinds of table).
    pub block_sums: Option<super::blocks::BlockSums>,
}

/// What a pattern database's header says beyond a depth table's.
///
/// ```
/// use antipode::table::header::{EntryBase, PatternInfo};
///
/// // The database of tiles 1, 2 and 3, entries counted from their Manhattan distance.
/// let info = PatternInfo { tiles: vec![1, 2, 3], base: EntryBase::Manhattan };
/// assert_eq!(info.tiles.len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PatternInfo {
    /// The pattern's tiles, in the order of a placement's places.
    pub tiles: Vec<u8>,
    /// How an entry gives the distance.
    pub base: EntryBase,
}

/// What a pattern database's entries count from.
///
/// ```
/// use antipode::table::header::EntryBase;
///
/// // An entry e of a database counted from zero is the distance e - 1.
/// let (base, entry) = (EntryBase::Zero, 5u8);
/// assert_eq!((base, entry - 1), (EntryBase::Zero, 4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryBase {
    /// An entry is the distance plus one.
    Zero,
    /// An entry is the distance minus the pattern tiles' Manhattan distance to their
    /// goal cells, plus one (which is what lets most patterns fit 4 bits).
    Manhattan,
}

/// A header block of [`HEADER_BYTES`] that starts as every table's does: the magic,
/// this version ([`VERSION_AT`]) and the header's size ([`HEADER_SIZE_AT`]).
pub(crate) fn new_block() -> Vec<u8> {
    let mut block = vec![0u8; HEADER_BYTES];
    block[..MAGIC.len()].copy_from_slice(&MAGIC);
    put_u32(&mut block, VERSION_AT, VERSION);
    put_u32(&mut block, HEADER_SIZE_AT, HEADER_BYTES as u32);
    block
}

/// Whether `block` starts with the magic of a table file.
pub(crate) fn has_magic(block: &[u8]) -> bool {
    block.len() >= HEADER_BYTES && block[..MAGIC.len()] == MAGIC
}

/// Writes `value` little-endian at byte `at`.
pub(crate) fn put_u32(block: &mut [u8], at: usize, value: u32) {
    block[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Writes `value` little-endian at byte `at`.
pub(crate) fn put_u64(block: &mut [u8], at: usize, value: u64) {
    block[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Writes the checksum of the finished `block` into it: the last step of an encoding.
pub(crate) fn seal(block: &mut [u8]) {
    let crc = header_crc(block) as u64;
    put_u64(block, HEADER_CRC_AT, crc);
}

pub(crate) fn put_text(block: &mut [u8], at: usize, text: &str) {
    let bytes = text.as_bytes();
    block[at..at + bytes.len().min(TEXT_BYTES - 1)]
        .copy_from_slice(&bytes[..bytes.len().min(TEXT_BYTES - 1)]);
}

pub(crate) fn get_text(block: &[u8], at: usize) -> Result<String, HeaderError> {
    let raw = &block[at..at + TEXT_BYTES];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(TEXT_BYTES);
    String::from_utf8(raw[..end].to_vec())
        .map_err(|_| HeaderError::Field("text is not UTF-8".into()))
}

pub(crate) fn u32_at(block: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(block[at..at + 4].try_into().expect("4 bytes"))
}

pub(crate) fn u64_at(block: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(block[at..at + 8].try_into().expect("8 bytes"))
}

pub(crate) fn header_crc(block: &[u8]) -> u32 {
    let mut copy = block[..HEADER_BYTES].to_vec();
    copy[HEADER_CRC_AT..HEADER_CRC_AT + 8].fill(0);
    crc32fast::hash(&copy)
}

/// `text` cut to the 63 bytes a header text field holds (at a character boundary,
/// ending with `…` when cut). Only the name must fit whole: the goal text is for
/// reading, the definition's digest identifies the puzzle.
#[must_use]
pub fn fit_text(text: &str) -> String {
    if text.len() < TEXT_BYTES {
        return text.to_string();
    }
    let mut end = TEXT_BYTES - 1 - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Lower-case hex of `bytes`.
#[must_use]
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The 32 bytes of a 64-digit hex digest.
pub(crate) fn from_hex(text: &str) -> Option<[u8; DIGEST_BYTES]> {
    let mut out = [0u8; DIGEST_BYTES];
    if text.len() != 2 * DIGEST_BYTES {
        return None;
    }
    for (k, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * k..2 * k + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The SHA-256 digest of a puzzle definition, as hex.
#[must_use]
pub fn definition_digest(definition: &str) -> String {
    use sha2::Digest;
    to_hex(&sha2::Sha256::digest(definition.as_bytes()))
}

/// Tile numbers as the files and messages write them: `1,2,3`.
pub fn tile_list(tiles: &[u8]) -> String {
    tiles
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

impl Header {
    /// What an entry holds, in words: `exact depth`, `depth mod 3`, or for a pattern
    /// database its tiles and base.
    #[must_use]
    pub fn entries_meaning(&self) -> String {
        match (&self.pattern, self.encoding) {
            (Some(pattern), _) => format!(
                "pattern database of tiles {}: fewest pattern moves{}",
                tile_list(&pattern.tiles),
                match pattern.base {
                    EntryBase::Zero => "",
                    EntryBase::Manhattan => " over their Manhattan distance",
                }
            ),
            (None, Encoding::Byte) => "exact depth".into(),
            (None, _) => "depth mod 3".into(),
        }
    }

    /// Whether the text fields fit (they are stored in 63 bytes each).
    #[must_use]
    pub fn fits(&self) -> bool {
        self.puzzle.len() < TEXT_BYTES
            && self.goal.len() < TEXT_BYTES
            && self.histogram.len() <= MAX_LEVELS
    }

    /// The 4096-byte block.
    pub fn encode(&self) -> Vec<u8> {
        let mut block = new_block();
        if let Some(digest) = self.definition_sha256.as_deref().and_then(from_hex) {
            block[DIGEST_AT..DIGEST_AT + DIGEST_BYTES].copy_from_slice(&digest);
        }
        put_text(&mut block, NAME_AT, &self.puzzle);
        put_text(&mut block, GOAL_AT, &self.goal);
        put_u64(&mut block, INDICES_AT, self.indices);
        block[BITS_AT] = self.encoding.bits() as u8;
        if let Some(pattern) = &self.pattern {
            block[KIND_AT] = 1;
            block[BASE_AT] = match pattern.base {
                EntryBase::Zero => 0,
                EntryBase::Manhattan => 1,
            };
            let tiles = &pattern.tiles[..pattern.tiles.len().min(MAX_PATTERN_TILES)];
            block[TILE_COUNT_AT] = tiles.len() as u8;
            block[TILES_AT..TILES_AT + tiles.len()].copy_from_slice(tiles);
        }
        block[COMPLETE_AT] = self.complete as u8;
        block[SLOT_AT] = self.checkpoint_slot;
        put_u64(&mut block, RANGE_START_AT, self.index_range.start);
        put_u64(&mut block, RANGE_END_AT, self.index_range.end);
        if let Some(sums) = self.block_sums {
            block[BLOCK_LOG2_AT] = sums.block_log2;
            put_u32(&mut block, BLOCK_LIST_CRC_AT, sums.list_crc32);
        }
        put_u32(&mut block, LEVELS_AT, self.histogram.len() as u32);
        put_u64(&mut block, PAYLOAD_BYTES_AT, self.payload_bytes);
        put_u64(&mut block, PAYLOAD_CRC_AT, self.payload_crc32 as u64);
        for (d, &count) in self.histogram.iter().enumerate().take(MAX_LEVELS) {
            let at = HISTOGRAM_AT + 8 * d;
            put_u64(&mut block, at, count);
        }
        seal(&mut block);
        block
    }

    /// Reads and checks a header block (at least 4096 bytes).
    ///
    /// # Errors
    /// [`HeaderError`] if the block is not a table header of a version this library
    /// reads, or its checksum fails.
    pub fn decode(block: &[u8]) -> Result<Header, HeaderError> {
        if !has_magic(block) {
            return Err(HeaderError::Magic);
        }
        let version = u32_at(block, VERSION_AT);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(HeaderError::Version(version));
        }
        if u64_at(block, HEADER_CRC_AT) != header_crc(block) as u64 {
            return Err(HeaderError::Checksum);
        }
        if u32_at(block, HEADER_SIZE_AT) as usize != HEADER_BYTES {
            return Err(HeaderError::Field("header size".into()));
        }
        let pattern = decode_pattern(block)?;
        let encoding = match (block[BITS_AT], &pattern) {
            (8, _) => Encoding::Byte,
            (2, None) => Encoding::Mod3,
            (4, Some(_)) => Encoding::Nibble,
            (bits, _) => return Err(HeaderError::Field(format!("{bits} bits per entry"))),
        };
        let levels = u32_at(block, LEVELS_AT) as usize;
        if levels > MAX_LEVELS {
            return Err(HeaderError::Field(format!("{levels} levels")));
        }
        let indices = u64_at(block, INDICES_AT);
        let payload_bytes = u64_at(block, PAYLOAD_BYTES_AT);
        // Files written before the field hold zeros there: they are whole tables.
        let index_range = match (u64_at(block, RANGE_START_AT), u64_at(block, RANGE_END_AT)) {
            (0, 0) => 0..indices,
            (start, end) if start < end && end <= indices => start..end,
            (start, end) => {
                return Err(HeaderError::Field(format!(
                    "index range {start}..{end} of {indices} indices"
                )));
            }
        };
        if payload_bytes != encoding.payload_bytes(index_range.end - index_range.start) {
            return Err(HeaderError::Field(
                "payload size does not match the index range".into(),
            ));
        }
        // Bytes of a depth table hold depths 0 to 254 (255: unreached), so at most
        // 255 levels; no histogram counts more states than there are indices.
        if encoding == Encoding::Byte && pattern.is_none() && levels > 255 {
            return Err(HeaderError::Field(format!(
                "{levels} levels (8-bit entries hold depths 0 to 254)"
            )));
        }
        let histogram: Vec<u64> = (0..levels)
            .map(|d| u64_at(block, HISTOGRAM_AT + 8 * d))
            .collect();
        let reached = histogram
            .iter()
            .try_fold(0u64, |sum, &n| sum.checked_add(n));
        if reached.is_none_or(|r| r > indices) {
            return Err(HeaderError::Field(format!(
                "a histogram of more states than its {indices} indices"
            )));
        }
        let definition_sha256 =
            (version >= 2).then(|| to_hex(&block[DIGEST_AT..DIGEST_AT + DIGEST_BYTES]));
        let complete = block[COMPLETE_AT] == 1;
        let block_sums = decode_block_sums(block, version, pattern.is_none(), complete)?;
        Ok(Header {
            version,
            puzzle: get_text(block, NAME_AT)?,
            goal: get_text(block, GOAL_AT)?,
            definition_sha256,
            indices,
            encoding,
            complete,
            histogram,
            index_range,
            payload_bytes,
            payload_crc32: u64_at(block, PAYLOAD_CRC_AT) as u32,
            pattern,
            checkpoint_slot: match block[SLOT_AT] {
                slot @ (0 | 1) => slot,
                other => return Err(HeaderError::Field(format!("checkpoint copy {other}"))),
            },
            block_sums,
        })
    }
}

/// A pattern database's fields (kind 1), `None` for a depth table (kind 0).
fn decode_pattern(block: &[u8]) -> Result<Option<PatternInfo>, HeaderError> {
    Ok(match block[KIND_AT] {
        0 => None,
        1 => {
            let base = match block[BASE_AT] {
                0 => EntryBase::Zero,
                1 => EntryBase::Manhattan,
                other => return Err(HeaderError::Field(format!("entry base {other}"))),
            };
            let count = block[TILE_COUNT_AT] as usize;
            if count == 0 || count > MAX_PATTERN_TILES {
                return Err(HeaderError::Field(format!("{count} pattern tiles")));
            }
            Some(PatternInfo {
                tiles: block[TILES_AT..TILES_AT + count].to_vec(),
                base,
            })
        }
        PEG_KIND => return Err(HeaderError::PegTable),
        kind => return Err(HeaderError::Field(format!("table kind {kind}"))),
    })
}

/// The block checksums a complete depth table of version 3 records (offsets 280-287).
fn decode_block_sums(
    block: &[u8],
    version: u32,
    depth_table: bool,
    complete: bool,
) -> Result<Option<BlockSums>, HeaderError> {
    Ok(match block[BLOCK_LOG2_AT] {
        0 => None,
        _ if version < 3 => None,
        log2 if depth_table && complete && BLOCK_LOG2_RANGE.contains(&log2) => Some(BlockSums {
            block_log2: log2,
            list_crc32: u32_at(block, BLOCK_LIST_CRC_AT),
        }),
        log2 => {
            return Err(HeaderError::Field(format!(
                "blocks of 2^{log2} bytes (block checksums are for complete depth \
                 tables, blocks of 2^{} to 2^{} bytes)",
                BLOCK_LOG2_RANGE.start,
                BLOCK_LOG2_RANGE.end - 1
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_ranges_round_trip_and_old_files_cover_everything() {
        let shard = Header {
            version: VERSION,
            puzzle: "8puzzle".into(),
            goal: "123/456/780".into(),
            definition_sha256: Some(definition_digest("puzzle 8puzzle\ngoal 123/456/780\n")),
            indices: 181_440,
            encoding: Encoding::Byte,
            complete: false,
            histogram: vec![1],
            index_range: 60_480..120_960,
            payload_bytes: 60_480,
            payload_crc32: 0,
            pattern: None,
            checkpoint_slot: 0,
            block_sums: None,
        };
        assert_eq!(Header::decode(&shard.encode()).unwrap(), shard);
        // A header written before the field: zeros there, a whole table.
        let whole = Header {
            index_range: 0..181_440,
            payload_bytes: 181_440,
            ..shard.clone()
        };
        let mut block = whole.encode();
        block[RANGE_START_AT..RANGE_END_AT + 8].fill(0);
        seal(&mut block);
        assert_eq!(Header::decode(&block).unwrap(), whole);
        // A range past the index count, or one the payload does not match.
        for (range, payload) in [(0..200_000, 200_000), (0..181_440, 60_480)] {
            let bad = Header {
                index_range: range,
                payload_bytes: payload,
                ..shard.clone()
            };
            assert!(matches!(
                Header::decode(&bad.encode()),
                Err(HeaderError::Field(_))
            ));
        }
    }

    #[test]
    fn round_trip_and_corruption() {
        let header = Header {
            version: VERSION,
            puzzle: "8puzzle".into(),
            goal: "123/456/780".into(),
            definition_sha256: Some(definition_digest("puzzle 8puzzle\ngoal 123/456/780\n")),
            indices: 181_440,
            encoding: Encoding::Mod3,
            complete: true,
            histogram: vec![1, 2, 4],
            index_range: 0..181_440,
            payload_bytes: 45_360,
            payload_crc32: 0xdead_beef,
            pattern: None,
            checkpoint_slot: 0,
            block_sums: None,
        };
        let block = header.encode();
        assert_eq!(block.len(), HEADER_BYTES);
        assert_eq!(Header::decode(&block).unwrap(), header);
        // Histograms no build writes, with the header's checksum right: 256 levels
        // of 8-bit entries (passed `verify`), more states than indices.
        let bytes = Header {
            encoding: Encoding::Byte,
            payload_bytes: 181_440,
            histogram: vec![0; 256],
            ..header.clone()
        };
        assert_eq!(
            Header::decode(&bytes.encode()),
            Err(HeaderError::Field(
                "256 levels (8-bit entries hold depths 0 to 254)".into()
            ))
        );
        let over = Header {
            histogram: vec![181_440, 1],
            ..header.clone()
        };
        assert!(matches!(
            Header::decode(&over.encode()),
            Err(HeaderError::Field(_))
        ));
        let wrapping = Header {
            histogram: vec![u64::MAX, 2],
            ..header.clone()
        };
        assert!(matches!(
            Header::decode(&wrapping.encode()),
            Err(HeaderError::Field(_))
        ));
        let mut flipped = block.clone();
        flipped[2050] ^= 1;
        assert_eq!(Header::decode(&flipped), Err(HeaderError::Checksum));
        let mut wrong = block.clone();
        wrong[0] = b'X';
        assert_eq!(Header::decode(&wrong), Err(HeaderError::Magic));
        let mut future = block;
        future[8] = 4;
        assert_eq!(Header::decode(&future), Err(HeaderError::Version(4)));
    }

    #[test]
    fn version_one_headers_are_read() {
        let v1 = Header {
            version: 1,
            definition_sha256: None,
            puzzle: "8puzzle".into(),
            goal: "123/456/780".into(),
            indices: 181_440,
            encoding: Encoding::Byte,
            complete: true,
            histogram: vec![1, 2],
            index_range: 0..181_440,
            payload_bytes: 181_440,
            payload_crc32: 7,
            pattern: None,
            checkpoint_slot: 0,
            block_sums: None,
        };
        // A version-1 block: the same layout without the digest, version 1, its own CRC.
        let mut block = v1.encode();
        put_u32(&mut block, VERSION_AT, 1);
        block[DIGEST_AT..DIGEST_AT + DIGEST_BYTES].fill(0);
        seal(&mut block);
        assert_eq!(Header::decode(&block).unwrap(), v1);
    }

    #[test]
    fn pattern_database_headers_round_trip() {
        let header = Header {
            version: VERSION,
            puzzle: "15puzzle".into(),
            goal: "0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15".into(),
            definition_sha256: Some(definition_digest("pattern")),
            indices: 57_657_600,
            encoding: Encoding::Nibble,
            complete: true,
            histogram: vec![1, 2, 6],
            index_range: 0..57_657_600,
            payload_bytes: 28_828_800,
            payload_crc32: 1,
            pattern: Some(PatternInfo {
                tiles: vec![1, 2, 3, 4, 5, 6, 7],
                base: EntryBase::Manhattan,
            }),
            checkpoint_slot: 0,
            block_sums: None,
        };
        let block = header.encode();
        assert_eq!(block[KIND_AT], 1);
        assert_eq!(block[BITS_AT], 4);
        assert_eq!(Header::decode(&block).unwrap(), header);
        // Four-bit entries belong to pattern databases only.
        let depth_table = Header {
            pattern: None,
            checkpoint_slot: 0,
            block_sums: None,
            ..header
        };
        assert!(matches!(
            Header::decode(&depth_table.encode()),
            Err(HeaderError::Field(_))
        ));
    }

    #[test]
    fn long_goal_texts_are_cut_to_fit() {
        assert_eq!(fit_text("123/456/780"), "123/456/780");
        let long = "横".repeat(40);
        let cut = fit_text(&long);
        assert!(cut.len() < TEXT_BYTES && cut.ends_with('…'), "{cut}");
    }

    #[test]
    fn digests_are_sha256() {
        // The SHA-256 test vector of "abc" (FIPS 180-2).
        assert_eq!(
            definition_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            from_hex(&definition_digest("abc")).map(|d| d[0]),
            Some(0xba)
        );
    }
}
