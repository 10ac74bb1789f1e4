//! The neighbours a level on disk found for blocks that were not in memory: one
//! bucket per block of the index space, held in memory up to a budget and appended to
//! a file of the block's own past it, then applied when the block is in memory
//! ([`super::OnDisk`]).
//!
//! A neighbour is its offset into its block (one 32-bit word: a block holds at most
//! 2^32 indices). A file is a sequence of *runs*, one per spill: the bucket sorted,
//! without repeats (marking a neighbour twice changes nothing), delta-coded in LEB128
//! (`encode_run`: about a byte a neighbour where a level is dense), after a head of
//! three little-endian words, the run's word count, its bytes and their CRC-32. A run
//! whose checksum fails, whose bytes do not decode to its count, or which the file
//! ends inside is damaged: it is never applied ([`BucketError::Damaged`]). Buckets live for one level: they are empty between
//! levels, and a run stopped in the middle of a level leaves files that the level,
//! redone from the last checkpoint, rebuilds (`Buckets::clear`).

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// Why the buckets of a level could not be kept or read back.
#[derive(Debug, thiserror::Error)]
pub enum BucketError {
    /// A bucket file could not be created, written or read.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        cause: std::io::Error,
    },
    /// A run of a bucket file fails its checksum or is cut short.
    #[error(
        "{}: a run of neighbours fails its checksum (damaged on disk); it is not applied, \
         and the level is redone from the last checkpoint when the build is run again",
        path.display()
    )]
    Damaged {
        /// The file.
        path: PathBuf,
    },
}

/// The buckets of every block, and the bytes they moved.
pub(super) struct Buckets {
    folder: PathBuf,
    pending: Vec<Vec<u32>>,
    /// Words held in `pending` over every block.
    held: usize,
    /// Words held in memory before every bucket is spilled to its file.
    limit: usize,
    files: Vec<Option<File>>,
    /// Slots of a block: every neighbour's slot is below it.
    slots: u64,
    /// Whether dense buckets are sorted through a bitmap (it fits the memory).
    dense: bool,
    /// A bit per slot for the dense buckets' sort, kept zero between drains (made at
    /// the first).
    bitmap: Vec<u64>,
    /// Bytes written to and read from the files since the last [`Buckets::traffic`].
    written: u64,
    read: u64,
}

impl Buckets {
    /// Buckets for `blocks` blocks of slots below `slots` in `folder` (created if
    /// missing), keeping at most `memory` bytes of neighbours in memory.
    pub(super) fn new(
        folder: &Path,
        blocks: usize,
        slots: u64,
        memory: u64,
    ) -> Result<Buckets, BucketError> {
        Self::with_sort(folder, blocks, slots, memory, true)
    }

    /// [`Buckets::new`] whose drains sort by comparison only: no bitmap of the slots
    /// (the questions of a bottom-up level, whose memory is the answers' too).
    pub(super) fn without_bitmap(
        folder: &Path,
        blocks: usize,
        slots: u64,
        memory: u64,
    ) -> Result<Buckets, BucketError> {
        Self::with_sort(folder, blocks, slots, memory, false)
    }

    fn with_sort(
        folder: &Path,
        blocks: usize,
        slots: u64,
        memory: u64,
        bitmap: bool,
    ) -> Result<Buckets, BucketError> {
        std::fs::create_dir_all(folder).map_err(|cause| BucketError::Io {
            path: folder.to_owned(),
            cause,
        })?;
        // A bitmap of the slots for dense buckets where it takes at most a quarter of
        // the memory; the words held take the rest.
        let bitmap_bytes = slots.div_ceil(64) * 8;
        let dense = bitmap && bitmap_bytes <= memory / 4;
        let words_memory = memory - if dense { bitmap_bytes } else { 0 };
        Ok(Buckets {
            folder: folder.to_owned(),
            pending: vec![Vec::new(); blocks],
            slots,
            dense,
            bitmap: Vec::new(),
            held: 0,
            limit: (words_memory / 4).max(1 << 12) as usize,
            files: (0..blocks).map(|_| None).collect(),
            written: 0,
            read: 0,
        })
    }

    fn path(&self, block: usize) -> PathBuf {
        self.folder.join(format!("block-{block}"))
    }

    /// Adds the neighbours at `offsets` of `block`; spills every bucket once the
    /// memory's share is full.
    pub(super) fn extend(&mut self, block: usize, offsets: &[u32]) -> Result<(), BucketError> {
        self.pending[block].extend_from_slice(offsets);
        self.held += offsets.len();
        if self.held >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Whether `block` has neighbours waiting.
    pub(super) fn holds(&self, block: usize) -> bool {
        !self.pending[block].is_empty() || self.files[block].is_some()
    }

    /// Appends every bucket held in memory to its file, as one run: sorted, without
    /// repeats, delta-coded (the buckets sorted on the pool).
    pub(super) fn spill(&mut self) -> Result<(), BucketError> {
        if self.held == 0 {
            return Ok(());
        }
        let encoded: Vec<Option<(u32, Vec<u8>)>> = self
            .pending
            .par_iter_mut()
            .map(|words| {
                if words.is_empty() {
                    return None;
                }
                words.sort_unstable();
                words.dedup();
                let bytes = encode_run(words);
                words.clear();
                Some(bytes)
            })
            .collect();
        for (block, run) in encoded.into_iter().enumerate() {
            let Some((count, bytes)) = run else { continue };
            let path = self.path(block);
            let io = |cause| BucketError::Io {
                path: path.clone(),
                cause,
            };
            if self.files[block].is_none() {
                let file = File::options()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)
                    .map_err(io)?;
                self.files[block] = Some(file);
            }
            let mut head = [0u8; RUN_HEAD];
            head[..4].copy_from_slice(&count.to_le_bytes());
            head[4..8].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
            head[8..].copy_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
            let file = self.files[block].as_mut().expect("opened above");
            file.write_all(&head).map_err(io)?;
            file.write_all(&bytes).map_err(io)?;
            self.written += (head.len() + bytes.len()) as u64;
        }
        self.held = 0;
        Ok(())
    }

    /// Hands every neighbour of `block` to `apply`, a run of distinct slots at a time
    /// (the file's runs, each checked, then what memory holds, sorted and without
    /// repeats), and empties the bucket.
    pub(super) fn drain(
        &mut self,
        block: usize,
        mut apply: impl FnMut(&[u32]),
    ) -> Result<(), BucketError> {
        if let Some(file) = self.files[block].take() {
            let path = self.path(block);
            self.read += read_runs(&file, &path, &mut apply)?;
            drop(file);
            std::fs::remove_file(&path).map_err(|cause| BucketError::Io { path, cause })?;
        }
        let mut words = std::mem::take(&mut self.pending[block]);
        self.held -= words.len();
        // Through the bitmap where the bucket holds a word for every 256 slots or
        // more: a pass over the bitmap where a sort would compare each word about
        // twenty times.
        if self.dense && words.len() as u64 * 256 >= self.slots {
            sort_dense(&mut words, &mut self.bitmap, self.slots);
        } else {
            words.par_sort_unstable();
            words.dedup();
        }
        apply(&words);
        self.pending[block] = words;
        self.pending[block].clear();
        Ok(())
    }

    /// Forgets every neighbour (a level stopped half-way: the level is redone).
    pub(super) fn clear(&mut self) {
        for block in 0..self.pending.len() {
            self.pending[block].clear();
            if self.files[block].take().is_some() {
                let _ = std::fs::remove_file(self.path(block));
            }
        }
        self.held = 0;
    }

    /// The bytes written to and read from disk since the last [`Buckets::traffic`],
    /// which this leaves counting.
    pub(super) fn moved(&self) -> (u64, u64) {
        (self.written, self.read)
    }

    /// The bytes written to and read from disk since the last call.
    pub(super) fn traffic(&mut self) -> (u64, u64) {
        let moved = (self.written, self.read);
        (self.written, self.read) = (0, 0);
        moved
    }

    /// Removes the folder (the search is over).
    pub(super) fn remove(mut self) {
        self.clear();
        let _ = std::fs::remove_dir(&self.folder);
    }
}

/// `words` (each below `slots`) sorted without repeats through `bits`, a bitmap of the
/// slots (zero, or empty and then made; zero again after): one pass over each, where a
/// sort compares every word many times.
fn sort_dense(words: &mut Vec<u32>, bits: &mut Vec<u64>, slots: u64) {
    bits.resize(slots.div_ceil(64) as usize, 0);
    for &word in words.iter() {
        bits[(word >> 6) as usize] |= 1 << (word & 63);
    }
    // At most as many distinct words as there were: the pushes stay in capacity.
    words.clear();
    for (k, bitmap) in bits.iter_mut().enumerate() {
        let mut rest = std::mem::take(bitmap);
        while rest != 0 {
            words.push(((k as u32) << 6) | rest.trailing_zeros());
            rest &= rest - 1;
        }
    }
}

/// Bytes before a run's words: its word count, its bytes and their CRC-32.
const RUN_HEAD: usize = 12;

/// `words` (ascending, distinct) as the first word and then each difference to the
/// word before, in LEB128 (seven bits a byte, low first, the high bit set on every
/// byte but a number's last): neighbours of one block sorted lie close together, so
/// most differences take a byte. Returns the word count and the bytes.
fn encode_run(words: &[u32]) -> (u32, Vec<u8>) {
    let mut bytes = Vec::with_capacity(words.len() + words.len() / 2);
    let mut before = 0u32;
    for (k, &word) in words.iter().enumerate() {
        let mut value = if k == 0 { word } else { word - before };
        before = word;
        while value >= 0x80 {
            bytes.push((value as u8) | 0x80);
            value >>= 7;
        }
        bytes.push(value as u8);
    }
    (words.len() as u32, bytes)
}

/// The words of a run [`encode_run`] wrote, into `words`; `None` if the bytes do not
/// hold exactly `count` words.
fn decode_run(bytes: &[u8], count: usize, words: &mut Vec<u32>) -> Option<()> {
    words.clear();
    words.reserve(count);
    let (mut value, mut shift, mut before) = (0u32, 0u32, 0u32);
    for &byte in bytes {
        if shift > 28 {
            return None;
        }
        value |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            let word = if words.is_empty() {
                value
            } else {
                before.checked_add(value)?
            };
            words.push(word);
            before = word;
            (value, shift) = (0, 0);
        } else {
            shift += 7;
        }
    }
    (shift == 0 && words.len() == count).then_some(())
}

/// Reads the runs of a bucket file from its start, checking each; returns the bytes
/// read.
fn read_runs(file: &File, path: &Path, apply: &mut impl FnMut(&[u32])) -> Result<u64, BucketError> {
    use std::io::Seek;
    let io = |cause| BucketError::Io {
        path: path.to_owned(),
        cause,
    };
    let damaged = || BucketError::Damaged {
        path: path.to_owned(),
    };
    let mut handle = file;
    handle.seek(std::io::SeekFrom::Start(0)).map_err(io)?;
    let mut reader = BufReader::with_capacity(1 << 20, handle);
    let (mut bytes, mut words, mut read) = (Vec::new(), Vec::new(), 0u64);
    loop {
        let mut head = [0u8; RUN_HEAD];
        match read_full(&mut reader, &mut head).map_err(io)? {
            0 => return Ok(read),
            RUN_HEAD => {}
            _ => return Err(damaged()),
        }
        let field = |at: usize| u32::from_le_bytes(head[at..at + 4].try_into().expect("4 bytes"));
        let (count, length, sum) = (field(0) as usize, field(4) as usize, field(8));
        // The run is checked whole before any of it is applied.
        bytes.resize(length, 0);
        if read_full(&mut reader, &mut bytes).map_err(io)? != length
            || crc32fast::hash(&bytes) != sum
        {
            return Err(damaged());
        }
        decode_run(&bytes, count, &mut words).ok_or_else(damaged)?;
        apply(&words);
        read += (RUN_HEAD + length) as u64;
    }
}

/// Reads until `buffer` is full or the file ends; returns the bytes read.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What goes in comes out, from memory and from spilled runs alike, and a bucket
    /// is empty after it is drained.
    #[test]
    fn neighbours_come_back_from_memory_and_disk() {
        let dir = tempfile::tempdir().unwrap();
        // 16 KiB of memory: 4,096 words, then a spill.
        let mut buckets = Buckets::new(dir.path(), 3, 1 << 20, 16 << 10).unwrap();
        for i in 0..10_000u32 {
            buckets.extend((i % 3) as usize, &[i]).unwrap();
        }
        assert!(buckets.traffic().0 > 0, "nothing spilled");
        for block in 0..3 {
            assert!(buckets.holds(block));
            let mut got = Vec::new();
            buckets.drain(block, |w| got.extend_from_slice(w)).unwrap();
            got.sort_unstable();
            let wanted: Vec<u32> = (0..10_000).filter(|i| i % 3 == block as u32).collect();
            assert_eq!(got, wanted);
            assert!(!buckets.holds(block));
        }
        buckets.remove();
        assert!(!dir.path().exists() || std::fs::read_dir(dir.path()).unwrap().count() == 0);
    }

    proptest::proptest! {
        /// Any ascending distinct words come back from their run, and a run decodes
        /// to its own count only.
        #[test]
        fn runs_decode_to_their_words(
            mut words in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..300)
        ) {
            words.sort_unstable();
            words.dedup();
            let (count, bytes) = encode_run(&words);
            let mut back = Vec::new();
            proptest::prop_assert!(decode_run(&bytes, count as usize, &mut back).is_some());
            proptest::prop_assert_eq!(&back, &words);
            proptest::prop_assert!(decode_run(&bytes, count as usize + 1, &mut back).is_none());
        }

        /// A bucket drained from memory hands over its words sorted and distinct, dense
        /// (through the bitmap) or sparse (sorted) alike.
        #[test]
        fn drained_words_are_sorted_and_distinct(
            slots in 1u64..5_000,
            picks in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..2_000),
        ) {
            let words: Vec<u32> = picks.iter().map(|&p| p % slots as u32).collect();
            let mut wanted = words.clone();
            wanted.sort_unstable();
            wanted.dedup();
            let (mut dense, mut bits) = (words.clone(), Vec::new());
            sort_dense(&mut dense, &mut bits, slots);
            proptest::prop_assert_eq!(&dense, &wanted);
            // The bitmap is left zero for the next bucket.
            proptest::prop_assert!(bits.iter().all(|&b| b == 0));
            sort_dense(&mut dense, &mut bits, slots);
            proptest::prop_assert_eq!(&dense, &wanted);
            let dir = tempfile::tempdir().unwrap();
            let mut buckets = Buckets::new(dir.path(), 1, slots, 1 << 20).unwrap();
            buckets.extend(0, &words).unwrap();
            let mut got = Vec::new();
            buckets.drain(0, |w| got.extend_from_slice(w)).unwrap();
            proptest::prop_assert_eq!(got, wanted);
        }
    }

    /// A flipped byte or a file cut inside a run is found by the check and nothing
    /// of the run is applied.
    #[test]
    fn damaged_runs_are_never_applied() {
        for damage in ["flip", "cut"] {
            let dir = tempfile::tempdir().unwrap();
            let mut buckets = Buckets::new(dir.path(), 1, 1 << 20, 0).unwrap();
            for i in 0..5_000u32 {
                buckets.extend(0, &[i]).unwrap();
            }
            let path = buckets.path(0);
            let mut bytes = std::fs::read(&path).unwrap();
            match damage {
                "flip" => bytes[RUN_HEAD + 100] ^= 1,
                _ => bytes.truncate(bytes.len() - 3),
            }
            std::fs::write(&path, &bytes).unwrap();
            let mut applied = 0;
            let error = buckets.drain(0, |w| applied += w.len()).unwrap_err();
            assert!(matches!(error, BucketError::Damaged { .. }), "{damage}");
            assert!(error.to_string().contains("checksum"), "{error}");
            // The file's one run (4,096 words) is damaged: nothing of it is applied.
            assert_eq!(applied, 0, "{damage}");
        }
    }
}
