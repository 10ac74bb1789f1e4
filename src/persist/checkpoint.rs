//! The one checkpoint format: what a resumable build saves between levels (a pattern
//! database's arrays, a peg analysis's level), so that an interrupted run goes on from
//! its last checkpoint.
//!
//! A checkpoint is private to the machine that wrote it and read by nothing else:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `ANTICKPT` |
//! | 8 | the kind of build, ASCII, zero-padded (`pdb`, `peg`) |
//! | 4 | the kind's version, little-endian |
//! | 32 | SHA-256 of the build's identity (what it builds, from what) |
//! | 4 | `0x01020304` in native byte order (a section may hold native words) |
//! | 4 | M, little-endian |
//! | M | the kind's fields (its level, counts) |
//! | 4 | S, the number of sections, little-endian |
//! | 8 each | the sections' lengths in bytes, little-endian |
//! | ... | the sections (arrays) |
//! | 4 | CRC-32 of every byte before it |
//!
//! It is written with [`super::replace`] (a `.tmp` sibling, synced, renamed, the folder
//! synced), so a kill or a crash leaves the last checkpoint or the new one. A file of
//! another kind, version, identity or byte order, cut short or with a failed checksum,
//! loads as `None`: the build starts over.
//!
//! ```
//! use antipode::persist::checkpoint::{Checkpoint, Section};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let checkpoint = Checkpoint::new(dir.path().join("run.checkpoint"), "demo", 1, b"puzzle X");
//! let words = [7u64, 1 << 40];
//! checkpoint.save(&3u32.to_le_bytes(), &[Section::Bytes(b"abc"), Section::Words(&words)])?;
//! let loaded = checkpoint.load(|fields, sections| {
//!     let level = u32::from_le_bytes(fields.try_into().ok()?);
//!     let mut bytes = vec![0u8; usize::try_from(sections.lengths()[0]).ok()?];
//!     sections.read_bytes(&mut bytes)?;
//!     let mut words = [0u64; 2];
//!     sections.read_words(&mut words)?;
//!     Some((level, bytes, words))
//! })?;
//! assert_eq!(loaded, Some((3, b"abc".to_vec(), words)));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{remove_if_present, replace, sibling};

const MAGIC: &[u8; 8] = b"ANTICKPT";
const BYTE_ORDER: u32 = 0x0102_0304;

/// One array of a checkpoint.
#[derive(Debug, Clone, Copy)]
pub enum Section<'a> {
    /// Bytes as they are.
    Bytes(&'a [u8]),
    /// 64-bit words, written little-endian.
    Words(&'a [u64]),
    /// 64-bit words shared between threads (a level's bit set), written
    /// little-endian; nothing may change them while they are saved.
    AtomicWords(&'a [AtomicU64]),
}

impl Section<'_> {
    fn len_bytes(&self) -> u64 {
        match self {
            Section::Bytes(bytes) => bytes.len() as u64,
            Section::Words(words) => 8 * words.len() as u64,
            Section::AtomicWords(words) => 8 * words.len() as u64,
        }
    }
}

/// A build's checkpoint file: where it is and which build it belongs to.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    path: PathBuf,
    kind: [u8; 8],
    version: u32,
    identity: [u8; 32],
}

impl Checkpoint {
    /// The checkpoint at `path` of a build of `kind` (at most 8 ASCII bytes), format
    /// `version`, whose `identity` (hashed) names what it builds: a checkpoint saved
    /// under another kind, version or identity does not load.
    pub fn new(path: impl Into<PathBuf>, kind: &str, version: u32, identity: &[u8]) -> Checkpoint {
        use sha2::Digest;
        let mut tag = [0u8; 8];
        let n = kind.len().min(8);
        tag[..n].copy_from_slice(&kind.as_bytes()[..n]);
        Checkpoint {
            path: path.into(),
            kind: tag,
            version,
            identity: sha2::Sha256::digest(identity).into(),
        }
    }

    /// The checkpoint beside the file `built` (`built.checkpoint`).
    #[must_use]
    pub fn beside(built: &Path, kind: &str, version: u32, identity: &[u8]) -> Checkpoint {
        Checkpoint::new(sibling(built, ".checkpoint"), kind, version, identity)
    }

    /// The checkpoint file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Saves the kind's `fields` and its `sections`, replacing the last checkpoint
    /// whole (its folder made if missing). On an error the last checkpoint is untouched.
    ///
    /// # Errors
    /// The system's error if the file cannot be written (the previous one is kept).
    pub fn save(&self, fields: &[u8], sections: &[Section]) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        replace(&self.path, |out| {
            let mut out = CrcWriter {
                inner: out,
                crc: crc32fast::Hasher::new(),
            };
            out.write_all(MAGIC)?;
            out.write_all(&self.kind)?;
            out.write_all(&self.version.to_le_bytes())?;
            out.write_all(&self.identity)?;
            out.write_all(&BYTE_ORDER.to_ne_bytes())?;
            out.write_all(&length32(fields.len())?.to_le_bytes())?;
            out.write_all(fields)?;
            out.write_all(&length32(sections.len())?.to_le_bytes())?;
            for section in sections {
                out.write_all(&section.len_bytes().to_le_bytes())?;
            }
            let mut buffer = Vec::with_capacity(1 << 16);
            for section in sections {
                match section {
                    Section::Bytes(bytes) => out.write_all(bytes)?,
                    Section::Words(words) => {
                        for chunk in words.chunks(1 << 13) {
                            buffer.clear();
                            buffer.extend(chunk.iter().flat_map(|w| w.to_le_bytes()));
                            out.write_all(&buffer)?;
                        }
                    }
                    Section::AtomicWords(words) => {
                        for chunk in words.chunks(1 << 13) {
                            buffer.clear();
                            let le = |w: &AtomicU64| w.load(Ordering::Relaxed).to_le_bytes();
                            buffer.extend(chunk.iter().flat_map(le));
                            out.write_all(&buffer)?;
                        }
                    }
                }
            }
            let crc = out.crc.finalize();
            out.inner.write_all(&crc.to_le_bytes())
        })
    }

    /// Loads the checkpoint if there is one of this build: `read` gets the kind's fields
    /// and the sections to read in order, and returns `None` when they do not fit (the
    /// checkpoint is then ignored). A section read into a buffer of the wrong length
    /// fails. The result is `None` too when the file is another build's, cut short,
    /// longer than written or fails its checksum (then the buffers may hold part of it).
    ///
    /// # Errors
    /// An error of the system other than a missing file; a file of another kind,
    /// version or build, or a damaged one, is `Ok(None)`.
    pub fn load<T>(
        &self,
        read: impl FnOnce(&[u8], &mut Sections) -> Option<T>,
    ) -> std::io::Result<Option<T>> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let length = file.metadata()?.len();
        let mut sections = Sections {
            input: BufReader::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            lengths: Vec::new(),
            next: 0,
            read: 0,
        };
        Ok(sections.open(self, length).and_then(|fields| {
            let value = read(&fields, &mut sections)?;
            sections.finish(length).then_some(value)
        }))
    }

    /// Removes the checkpoint and any unfinished write of it (the build is complete, or
    /// the checkpoint is another build's).
    ///
    /// # Errors
    /// The system's error other than a missing file.
    pub fn remove(&self) -> std::io::Result<()> {
        remove_if_present(&self.path)?;
        remove_if_present(&sibling(&self.path, ".tmp"))
    }
}

/// The sections of a checkpoint being loaded, read in order into the caller's arrays.
#[derive(Debug)]
pub struct Sections {
    input: BufReader<File>,
    crc: crc32fast::Hasher,
    lengths: Vec<u64>,
    next: usize,
    read: u64,
}

impl Sections {
    /// Every section's length in bytes.
    #[must_use]
    pub fn lengths(&self) -> &[u64] {
        &self.lengths
    }

    /// Reads the next section into `buffer`, which must be its length.
    pub fn read_bytes(&mut self, buffer: &mut [u8]) -> Option<()> {
        self.expect(buffer.len() as u64)?;
        self.take(buffer)
    }

    /// Reads the next section, little-endian words, into `words`, which must be its
    /// length.
    pub fn read_words(&mut self, words: &mut [u64]) -> Option<()> {
        self.read_words_with(words.len(), |i, word| words[i] = word)
    }

    /// Reads the next section, little-endian words, into shared `words`, which must be
    /// its length.
    pub fn read_atomic_words(&mut self, words: &[AtomicU64]) -> Option<()> {
        self.read_words_with(words.len(), |i, word| {
            words[i].store(word, Ordering::Relaxed);
        })
    }

    fn read_words_with(&mut self, len: usize, mut set: impl FnMut(usize, u64)) -> Option<()> {
        self.expect(8 * len as u64)?;
        let mut buffer = vec![0u8; 8 << 13];
        for start in (0..len).step_by(1 << 13) {
            let bytes = &mut buffer[..8 * (len - start).min(1 << 13)];
            self.take(bytes)?;
            for (i, le) in bytes.chunks_exact(8).enumerate() {
                set(
                    start + i,
                    u64::from_le_bytes(le.try_into().expect("8 bytes")),
                );
            }
        }
        Some(())
    }

    fn expect(&mut self, bytes: u64) -> Option<()> {
        let length = *self.lengths.get(self.next)?;
        self.next += 1;
        (length == bytes).then_some(())
    }

    fn take(&mut self, buffer: &mut [u8]) -> Option<()> {
        self.input.read_exact(buffer).ok()?;
        self.crc.update(buffer);
        self.read += buffer.len() as u64;
        Some(())
    }

    fn take_u32(&mut self) -> Option<u32> {
        let mut bytes = [0u8; 4];
        self.take(&mut bytes)?;
        Some(u32::from_le_bytes(bytes))
    }

    /// Reads and checks the head; the kind's fields, or `None` if this is not the
    /// build's checkpoint or its lengths do not add up to the file's.
    fn open(&mut self, checkpoint: &Checkpoint, length: u64) -> Option<Vec<u8>> {
        let mut head = [0u8; 8 + 8 + 4 + 32 + 4];
        self.take(&mut head)?;
        let mut expected = Vec::with_capacity(head.len());
        expected.extend_from_slice(MAGIC);
        expected.extend_from_slice(&checkpoint.kind);
        expected.extend_from_slice(&checkpoint.version.to_le_bytes());
        expected.extend_from_slice(&checkpoint.identity);
        expected.extend_from_slice(&BYTE_ORDER.to_ne_bytes());
        if head[..] != expected[..] {
            return None;
        }
        let field_bytes = u64::from(self.take_u32()?);
        if field_bytes > length {
            return None;
        }
        let mut fields = vec![0u8; field_bytes as usize];
        self.take(&mut fields)?;
        let count = u64::from(self.take_u32()?);
        if 8 * count > length {
            return None;
        }
        for _ in 0..count {
            let mut bytes = [0u8; 8];
            self.take(&mut bytes)?;
            self.lengths.push(u64::from_le_bytes(bytes));
        }
        let total = self
            .lengths
            .iter()
            .try_fold(self.read + 4, |sum, &n| sum.checked_add(n))?;
        (total == length).then_some(fields)
    }

    /// Whether every section was read and the checksum holds.
    fn finish(&mut self, length: u64) -> bool {
        let crc = self.crc.clone().finalize();
        let mut stored = [0u8; 4];
        self.next == self.lengths.len()
            && self.read + 4 == length
            && self.input.read_exact(&mut stored).is_ok()
            && u32::from_le_bytes(stored) == crc
    }
}

fn length32(n: usize) -> std::io::Result<u32> {
    u32::try_from(n).map_err(|_| std::io::Error::other("a checkpoint field is over 4 GiB"))
}

/// A writer that keeps the CRC-32 of what passes through it.
struct CrcWriter<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.crc.update(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_back(checkpoint: &Checkpoint) -> Option<(u32, Vec<u8>, Vec<u64>)> {
        checkpoint
            .load(|fields, sections| {
                let level = u32::from_le_bytes(fields.try_into().ok()?);
                let mut bytes = vec![0u8; 100];
                sections.read_bytes(&mut bytes)?;
                let mut words = vec![0u64; 30];
                sections.read_words(&mut words)?;
                Some((level, bytes, words))
            })
            .unwrap()
    }

    #[test]
    fn a_checkpoint_loads_back_and_refuses_what_differs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("db.table");
        let checkpoint = Checkpoint::beside(&path, "pdb", 2, b"tiles 1,2");
        let bytes: Vec<u8> = (0..100).collect();
        let words: Vec<u64> = (0..30).map(|i| i * 0x0101_0101_0101).collect();
        let save = |c: &Checkpoint| {
            c.save(
                &9u32.to_le_bytes(),
                &[Section::Bytes(&bytes), Section::Words(&words)],
            )
            .unwrap()
        };
        save(&checkpoint);
        assert_eq!(
            read_back(&checkpoint),
            Some((9, bytes.clone(), words.clone()))
        );
        // Another identity, kind or version does not load.
        for other in [
            Checkpoint::beside(&path, "pdb", 2, b"tiles 1,3"),
            Checkpoint::beside(&path, "peg", 2, b"tiles 1,2"),
            Checkpoint::beside(&path, "pdb", 3, b"tiles 1,2"),
        ] {
            assert_eq!(read_back(&other), None);
        }
        // Sections of other lengths, or one left unread, do not load.
        let short = checkpoint
            .load(|_, s| s.read_bytes(&mut [0u8; 99]))
            .unwrap();
        assert_eq!(short, None);
        let unread = checkpoint
            .load(|_, s| s.read_bytes(&mut [0u8; 100]))
            .unwrap();
        assert_eq!(unread, None);
        // A damaged byte fails the checksum; a cut or longer file is not read.
        let good = std::fs::read(checkpoint.path()).unwrap();
        for at in [0, 60, 70, good.len() / 2, good.len() - 1] {
            let mut damaged = good.clone();
            damaged[at] ^= 1;
            std::fs::write(checkpoint.path(), &damaged).unwrap();
            assert_eq!(read_back(&checkpoint), None, "byte {at}");
        }
        std::fs::write(checkpoint.path(), &good[..good.len() - 1]).unwrap();
        assert_eq!(read_back(&checkpoint), None);
        std::fs::write(checkpoint.path(), [&good[..], b"x"].concat()).unwrap();
        assert_eq!(read_back(&checkpoint), None);
        checkpoint.remove().unwrap();
        assert!(!checkpoint.path().exists());
        checkpoint.remove().unwrap();
        assert_eq!(read_back(&checkpoint), None);
    }
}
