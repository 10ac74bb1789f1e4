//! A database build's progress on disk, so that an interrupted build resumes from its
//! last checkpoint instead of from the goal.
//!
//! A checkpoint is taken after a level's expansion and before its sweep: the region
//! words then hold every region seen (low half) and the regions first reached by the
//! level (high half), the entries every distance up to the level, and the histogram
//! the placements per distance. That is the whole state of the search: resuming runs
//! the sweep over every chunk and goes on.
//!
//! The checkpoint (`NAME.table.checkpoint` beside the database) is the kit's format
//! ([`crate::persist::checkpoint`], kind `pdb`), identified by the database's definition
//! digest; its fields are the bytes per region word, the level expanded last and the
//! histogram, and its sections the entries (distance + 1, 0 for unreached) and the
//! region words (native byte order).

use std::path::Path;

use crate::persist::checkpoint::{Checkpoint, Section};

/// The version of the `pdb` checkpoint's fields.
const VERSION: u32 = 2;

/// Where a build's progress is kept: checkpoints of the database at `path`.
#[derive(Debug, Clone)]
pub struct CheckpointFile {
    checkpoint: Checkpoint,
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
    #[must_use]
    pub fn beside(database: &Path, digest: &str) -> CheckpointFile {
        CheckpointFile {
            checkpoint: Checkpoint::beside(database, "pdb", VERSION, digest.as_bytes()),
        }
    }

    /// The checkpoint file.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.checkpoint.path()
    }

    /// Saves a build's state.
    ///
    /// # Errors
    /// The system's error if the file cannot be written (the previous checkpoint is
    /// kept).
    pub fn save(
        &self,
        saved: &Saved,
        word_bytes: usize,
        entries: &[u8],
        words: &[u8],
    ) -> std::io::Result<()> {
        let mut fields = Vec::with_capacity(8 + 8 * saved.histogram.len());
        fields.extend_from_slice(&(word_bytes as u32).to_le_bytes());
        fields.extend_from_slice(&saved.depth.to_le_bytes());
        for count in &saved.histogram {
            fields.extend_from_slice(&count.to_le_bytes());
        }
        self.checkpoint
            .save(&fields, &[Section::Bytes(entries), Section::Bytes(words)])
    }

    /// Loads the saved state into `entries` and `words` if there is a checkpoint of
    /// this database with arrays of these sizes and an intact checksum; `None` (and
    /// the arrays untouched or to be cleared by the caller) otherwise.
    ///
    /// # Errors
    /// The system's error other than a missing file; a checkpoint of another build, or
    /// a damaged one, is `Ok(None)`.
    pub fn load(
        &self,
        word_bytes: usize,
        entries: &mut [u8],
        words: &mut [u8],
    ) -> std::io::Result<Option<Saved>> {
        self.checkpoint.load(|fields, sections| {
            let u32_at =
                |at: usize| Some(u32::from_le_bytes(fields.get(at..at + 4)?.try_into().ok()?));
            let (saved_word_bytes, depth) = (u32_at(0)?, u32_at(4)?);
            let histogram: Vec<u64> = fields[8..]
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect();
            if saved_word_bytes as usize != word_bytes
                || fields.len() != 8 + 8 * histogram.len()
                || histogram.len() != depth as usize + 1
            {
                return None;
            }
            sections.read_bytes(entries)?;
            sections.read_bytes(words)?;
            Some(Saved { depth, histogram })
        })
    }

    /// Removes the checkpoint (the database is complete, or the checkpoint is stale).
    ///
    /// # Errors
    /// The system's error if the file exists and cannot be removed.
    pub fn remove(&self) -> std::io::Result<()> {
        self.checkpoint.remove()
    }
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
