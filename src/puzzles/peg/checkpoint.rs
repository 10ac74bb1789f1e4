//! The checkpoint of a forward peg solitaire analysis: the level about to be expanded
//! and the counts so far, so that an interrupted `analyze` goes on from there.
//!
//! The file (`tables/NAME-reachable.checkpoint` from the command line) is private to
//! the machine that wrote it: `ANTIPEG1`, the SHA-256 of the board's definition, its
//! start and whether symmetry classes are counted, the level's peg count, whether the
//! goal was reached, the counts per jump (and per class), the level's words, and a
//! CRC-32 of all of it, little-endian. It is written to `PATH.tmp`, synced and renamed
//! over `PATH`, so a kill at any moment leaves the previous checkpoint or the new one.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::PegBoard;
use super::levels::LevelSet;
use crate::rank::subsets::SubsetRanker;

const MAGIC: &[u8; 8] = b"ANTIPEG1";

/// What a checkpoint holds besides the level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Boards per jump, for the levels before the saved one.
    pub jumps: Vec<u64>,
    /// Classes of boards per jump (empty without symmetry).
    pub classes: Vec<u64>,
    /// Whether a goal board was among them.
    pub goal_reachable: bool,
}

/// A forward analysis's checkpoint file.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    path: PathBuf,
    digest: [u8; 32],
}

/// Why a checkpoint could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: writing the checkpoint failed: {cause}")]
pub struct CheckpointError {
    /// The checkpoint file.
    pub path: PathBuf,
    /// The system's reason.
    pub cause: std::io::Error,
}

impl Checkpoint {
    /// The checkpoint at `path` of the analysis of `board` from its start.
    pub fn new(path: impl Into<PathBuf>, board: &PegBoard, symmetry: bool) -> Checkpoint {
        use sha2::Digest;
        // Version 2 of the symmetric search: its levels hold one board per class.
        let symmetry = if symmetry { "classes 2" } else { "false" };
        let identity = format!(
            "{}start {}\nsymmetry {symmetry}\n",
            board.definition(),
            board.format(board.start())
        );
        Checkpoint {
            path: path.into(),
            digest: sha2::Sha256::digest(identity.as_bytes()).into(),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Saves `level` and `progress`.
    pub fn save(&self, level: &LevelSet, progress: &Progress) -> Result<(), CheckpointError> {
        let tmp = PathBuf::from(format!("{}.tmp", self.path.display()));
        let failed = |cause| CheckpointError {
            path: self.path.clone(),
            cause,
        };
        let written = (|| {
            if let Some(dir) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let file = File::create(&tmp)?;
            let mut out = CrcWriter {
                inner: BufWriter::with_capacity(1 << 20, &file),
                crc: crc32fast::Hasher::new(),
            };
            out.write_all(MAGIC)?;
            out.write_all(&self.digest)?;
            out.write_all(&level.pegs().to_le_bytes())?;
            out.write_all(&[progress.goal_reachable as u8])?;
            out.write_all(&(progress.jumps.len() as u32).to_le_bytes())?;
            out.write_all(&(progress.classes.len() as u32).to_le_bytes())?;
            for count in progress.jumps.iter().chain(&progress.classes) {
                out.write_all(&count.to_le_bytes())?;
            }
            for word in level.words() {
                out.write_all(&word.to_le_bytes())?;
            }
            let crc = out.crc.clone().finalize();
            out.inner.write_all(&crc.to_le_bytes())?;
            out.inner.flush()?;
            drop(out);
            file.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        written.map_err(|cause| {
            let _ = std::fs::remove_file(&tmp);
            failed(cause)
        })
    }

    /// The saved level and progress, if the file is this analysis's and intact.
    pub fn load(&self, ranker: &SubsetRanker) -> Option<(LevelSet, Progress)> {
        let file = File::open(&self.path).ok()?;
        let length = file.metadata().ok()?.len();
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut crc = crc32fast::Hasher::new();
        let mut take = |bytes: usize| -> Option<Vec<u8>> {
            let mut buffer = vec![0u8; bytes];
            input.read_exact(&mut buffer).ok()?;
            crc.update(&buffer);
            Some(buffer)
        };
        let u32_of = |b: Vec<u8>| u32::from_le_bytes(b.try_into().expect("4 bytes"));
        if take(8)? != MAGIC || take(32)? != self.digest {
            return None;
        }
        let pegs = u32_of(take(4)?);
        let goal_reachable = take(1)?[0] == 1;
        let (jumps, classes) = (u32_of(take(4)?) as usize, u32_of(take(4)?) as usize);
        let words = ranker.count(pegs as usize).div_ceil(64);
        let expected = 8 + 32 + 4 + 1 + 8 + 8 * (jumps + classes) as u64 + 8 * words + 4;
        if pegs as usize > ranker.places() || length != expected {
            return None;
        }
        let counts: Vec<u64> = take(8 * (jumps + classes))?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let mut level_words = Vec::with_capacity(words as usize);
        for _ in 0..words.div_ceil(1 << 16) {
            let chunk = (words - level_words.len() as u64).min(1 << 16) as usize;
            let bytes = take(8 * chunk)?;
            level_words.extend(
                bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
            );
        }
        let found = crc.finalize();
        let mut stored = [0u8; 4];
        input.read_exact(&mut stored).ok()?;
        if u32::from_le_bytes(stored) != found {
            return None;
        }
        let progress = Progress {
            jumps: counts[..jumps].to_vec(),
            classes: counts[jumps..].to_vec(),
            goal_reachable,
        };
        Some((LevelSet::from_words(ranker, pegs, &level_words), progress))
    }

    /// Removes the file (the analysis is complete).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A writer that keeps the CRC-32 of what passes through it.
struct CrcWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.crc.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::levels::analyze;
    use super::*;

    #[test]
    fn an_analysis_stopped_midway_goes_on_from_its_checkpoint() {
        let board = PegBoard::shipped("hoppers").unwrap();
        let whole = analyze(&board, true, None, None, |_, _| {}).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let checkpoint = Checkpoint::new(dir.path().join("h.checkpoint"), &board, true);
        let stop = crate::StopToken::new();
        let stopped = analyze(&board, true, Some(&stop), Some(&checkpoint), |pegs, _| {
            if pegs == 7 {
                stop.stop();
            }
        });
        assert!(matches!(stopped, Err(super::super::PegError::Stopped)));
        let ranker = SubsetRanker::new(13);
        let (level, progress) = checkpoint.load(&ranker).expect("a checkpoint");
        assert_eq!(level.pegs(), 6);
        let boards = &whole.classes.as_ref().expect("classes").positions_by_depth;
        assert_eq!(progress.jumps, boards[..6]);
        assert_eq!(progress.classes, whole.jumps_histogram[..6]);
        // Another analysis (without symmetry) does not take it.
        assert!(
            Checkpoint::new(checkpoint.path(), &board, false)
                .load(&ranker)
                .is_none()
        );
        let mut heard = Vec::new();
        let resumed = analyze(&board, true, None, Some(&checkpoint), |pegs, _| {
            heard.push(pegs)
        })
        .unwrap();
        assert_eq!(heard, (1..=6).rev().collect::<Vec<u32>>());
        assert_eq!(resumed.jumps_histogram, whole.jumps_histogram);
        assert_eq!(resumed.classes, whole.classes);
        assert_eq!(resumed.one_peg_finishes, whole.one_peg_finishes);
        assert_eq!(resumed.goal_reachable, whole.goal_reachable);
        assert!(!checkpoint.path().exists());
        // A damaged checkpoint is ignored.
        checkpoint.save(&level, &progress).unwrap();
        let mut bytes = std::fs::read(checkpoint.path()).unwrap();
        let last = bytes.len() - 10;
        bytes[last] ^= 1;
        std::fs::write(checkpoint.path(), bytes).unwrap();
        assert!(checkpoint.load(&ranker).is_none());
    }
}
