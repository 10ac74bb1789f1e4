//! A database build's progress on disk, so that an interrupted build resumes from its
//! last checkpoint instead of from the goal.
//!
//! A checkpoint is taken after a level's expansion and before its sweep: the region
//! words then hold every region seen (low half) and the regions first reached by the
//! level (high half), the entries every distance up to the level, and the histogram
//! the placements per distance. That is the whole state of the search: resuming runs
//! the sweep over every chunk and goes on.
//!
//! The file (`NAME.table.checkpoint` beside the database) is private to this machine:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `APDBCKP1` |
//! | 64 | the database's definition digest (SHA-256, hex) |
//! | 4 | bytes per region word (2, 4 or 8), little-endian |
//! | 4 | the level expanded last, little-endian |
//! | 8 | placements, little-endian |
//! | 4 | CRC-32 of the entries and words |
//! | 4 | `0x01020304` in native byte order (the words are native) |
//! | 4 | distances in the histogram, little-endian |
//! | 8 each | the histogram, little-endian |
//! | placements | the entries (distance + 1, 0 for unreached) |
//! | placements x word | the region words, native byte order |
//!
//! It is written to `NAME.table.checkpoint.tmp` and renamed over the last one, without
//! waiting for the disk: it survives the process being killed, and one lost with the
//! machine fails its checksum, so the build starts over. Nothing else reads it.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::file::with_suffix;

const MAGIC: &[u8; 8] = b"APDBCKP1";
const BYTE_ORDER: u32 = 0x0102_0304;
const FIXED: usize = 8 + 64 + 4 + 4 + 8 + 4 + 4 + 4;

/// Where a build's progress is kept: checkpoints of the database at `path`.
#[derive(Debug, Clone)]
pub struct CheckpointFile {
    path: PathBuf,
    digest: String,
}

/// A build's state as saved: the level expanded last and the placements per distance
/// up to it (the entries and words go straight into the build's arrays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The level whose expansion the words hold.
    pub depth: u32,
    /// Placements per distance, levels `0..=depth`.
    pub histogram: Vec<u64>,
}

impl CheckpointFile {
    /// Checkpoints of the database at `database` whose definition digest is `digest`.
    pub fn beside(database: &Path, digest: &str) -> CheckpointFile {
        CheckpointFile {
            path: with_suffix(database, ".checkpoint"),
            digest: digest.to_owned(),
        }
    }

    /// The checkpoint file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn temporary(&self) -> PathBuf {
        with_suffix(&self.path, ".tmp")
    }

    /// Saves a build's state.
    pub fn save(
        &self,
        saved: &Saved,
        word_bytes: usize,
        entries: &[u8],
        words: &[u8],
    ) -> std::io::Result<()> {
        let mut crc = crc32fast::Hasher::new();
        crc.update(entries);
        crc.update(words);
        let mut head = Vec::with_capacity(FIXED + 8 * saved.histogram.len());
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&digest_bytes(&self.digest));
        head.extend_from_slice(&(word_bytes as u32).to_le_bytes());
        head.extend_from_slice(&saved.depth.to_le_bytes());
        head.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        head.extend_from_slice(&crc.finalize().to_le_bytes());
        head.extend_from_slice(&BYTE_ORDER.to_ne_bytes());
        head.extend_from_slice(&(saved.histogram.len() as u32).to_le_bytes());
        for count in &saved.histogram {
            head.extend_from_slice(&count.to_le_bytes());
        }
        let temporary = self.temporary();
        let written = (|| {
            let mut file = BufWriter::with_capacity(1 << 20, File::create(&temporary)?);
            file.write_all(&head)?;
            file.write_all(entries)?;
            file.write_all(words)?;
            file.into_inner().map_err(|e| e.into_error())?;
            std::fs::rename(&temporary, &self.path)
        })();
        if written.is_err() {
            // What was written of it goes (a full disk gets its room back); the last
            // checkpoint is untouched.
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }

    /// Loads the saved state into `entries` and `words` if there is a checkpoint of
    /// this database with arrays of these sizes and an intact checksum; `None` (and
    /// the arrays untouched or to be cleared by the caller) otherwise.
    pub fn load(
        &self,
        word_bytes: usize,
        entries: &mut [u8],
        words: &mut [u8],
    ) -> std::io::Result<Option<Saved>> {
        let mut file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut head = [0u8; FIXED];
        if file.read_exact(&mut head).is_err() {
            return Ok(None);
        }
        let u32_at = |at: usize| u32::from_le_bytes(head[at..at + 4].try_into().unwrap());
        let matches = &head[..8] == MAGIC
            && head[8..72] == digest_bytes(&self.digest)
            && u32_at(72) as usize == word_bytes
            && u64::from_le_bytes(head[80..88].try_into().unwrap()) == entries.len() as u64
            && u32::from_ne_bytes(head[92..96].try_into().unwrap()) == BYTE_ORDER;
        let (depth, crc, levels) = (u32_at(76), u32_at(88), u32_at(96) as usize);
        if !matches || levels != depth as usize + 1 {
            return Ok(None);
        }
        let mut histogram = vec![0u8; 8 * levels];
        if file.read_exact(&mut histogram).is_err()
            || file.read_exact(entries).is_err()
            || file.read_exact(words).is_err()
        {
            return Ok(None);
        }
        let mut check = crc32fast::Hasher::new();
        check.update(entries);
        check.update(words);
        if check.finalize() != crc {
            return Ok(None);
        }
        Ok(Some(Saved {
            depth,
            histogram: histogram
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        }))
    }

    /// Removes the checkpoint (the database is complete, or the checkpoint is stale).
    pub fn remove(&self) -> std::io::Result<()> {
        for path in [self.path.clone(), self.temporary()] {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}

/// The digest as 64 bytes (hex text, zero-padded).
fn digest_bytes(digest: &str) -> [u8; 64] {
    let mut bytes = [0u8; 64];
    let text = digest.as_bytes();
    let n = text.len().min(64);
    bytes[..n].copy_from_slice(&text[..n]);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_loads_back_and_refuses_what_differs() {
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile::beside(&dir.path().join("db.table"), "abc");
        let saved = Saved {
            depth: 2,
            histogram: vec![1, 4, 9],
        };
        let entries: Vec<u8> = (0..100).collect();
        let words: Vec<u8> = (0..200).map(|i| (i * 7) as u8).collect();
        file.save(&saved, 2, &entries, &words).unwrap();
        let (mut e, mut w) = (vec![0u8; 100], vec![0u8; 200]);
        assert_eq!(file.load(2, &mut e, &mut w).unwrap(), Some(saved.clone()));
        assert_eq!((e, w), (entries.clone(), words.clone()));
        // Another word size, size or digest: not this build's.
        let (mut e, mut w) = (vec![0u8; 100], vec![0u8; 400]);
        assert_eq!(file.load(4, &mut e, &mut w).unwrap(), None);
        let (mut e, mut w) = (vec![0u8; 99], vec![0u8; 198]);
        assert_eq!(file.load(2, &mut e, &mut w).unwrap(), None);
        let other = CheckpointFile::beside(&dir.path().join("db.table"), "abd");
        let (mut e, mut w) = (vec![0u8; 100], vec![0u8; 200]);
        assert_eq!(other.load(2, &mut e, &mut w).unwrap(), None);
        // A damaged byte fails the checksum; a cut file is not read.
        let mut bytes = std::fs::read(file.path()).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(file.path(), &bytes).unwrap();
        assert_eq!(file.load(2, &mut e, &mut w).unwrap(), None);
        std::fs::write(file.path(), &bytes[..last]).unwrap();
        assert_eq!(file.load(2, &mut e, &mut w).unwrap(), None);
        file.remove().unwrap();
        assert!(!file.path().exists());
        file.remove().unwrap();
    }
}
