//! The checkpoint of a forward peg solitaire analysis: the last level found and the
//! counts so far, so that an interrupted `analyze` goes on from there.
//!
//! The file (`tables/NAME-reachable.checkpoint` from the command line) is the kit's
//! format ([`crate::persist::checkpoint`], kind `peg`), identified by the board's
//! definition, its start and whether symmetry classes are counted. Its fields are the
//! level's peg count, whether the goal was reached and the counts per jump (and per
//! class); its one section is the level's words.

use std::path::{Path, PathBuf};

use super::level_set::LevelSet;
use crate::persist::checkpoint::{Checkpoint as Saved, Section};
use crate::puzzles::peg::PegBoard;
use crate::rank::subsets::SubsetRanker;

/// The version of the `peg` checkpoint's fields; the symmetric search's levels hold one
/// board per class since version 2; the counts include the saved level since
/// version 3.
const VERSION: u32 = 3;

/// What a checkpoint holds besides the level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Boards per jump, of every level found (the saved one included).
    pub jumps: Vec<u64>,
    /// Classes of boards per jump (empty without symmetry).
    pub classes: Vec<u64>,
    /// Whether a goal board was among them.
    pub goal_reachable: bool,
}

/// A forward analysis's checkpoint file.
#[derive(Debug, Clone)]
pub struct PegCheckpoint {
    saved: Saved,
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

impl PegCheckpoint {
    /// The checkpoint at `path` of the analysis of `board` from its start.
    pub fn new(path: impl Into<PathBuf>, board: &PegBoard, symmetry: bool) -> PegCheckpoint {
        let identity = format!(
            "{}start {}\nsymmetry {symmetry}\n",
            board.definition(),
            board.format(board.start())
        );
        PegCheckpoint {
            saved: Saved::new(path, "peg", VERSION, identity.as_bytes()),
        }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.saved.path()
    }

    /// Saves `level` and `progress`.
    ///
    /// # Errors
    /// [`CheckpointError`] if the file cannot be written (the previous one is kept).
    pub fn save(&self, level: &LevelSet, progress: &Progress) -> Result<(), CheckpointError> {
        let mut fields =
            Vec::with_capacity(13 + 8 * (progress.jumps.len() + progress.classes.len()));
        fields.extend_from_slice(&level.pegs().to_le_bytes());
        fields.push(u8::from(progress.goal_reachable));
        fields.extend_from_slice(&(progress.jumps.len() as u32).to_le_bytes());
        fields.extend_from_slice(&(progress.classes.len() as u32).to_le_bytes());
        for count in progress.jumps.iter().chain(&progress.classes) {
            fields.extend_from_slice(&count.to_le_bytes());
        }
        self.saved
            .save(&fields, &[Section::AtomicWords(level.atomic_words())])
            .map_err(|cause| CheckpointError {
                path: self.path().to_owned(),
                cause,
            })
    }

    /// The saved level and progress, if the file is this analysis's and intact.
    #[must_use]
    pub fn load(&self, ranker: &SubsetRanker) -> Option<(LevelSet, Progress)> {
        let loaded = self.saved.load(|fields, sections| {
            let u32_at =
                |at: usize| Some(u32::from_le_bytes(fields.get(at..at + 4)?.try_into().ok()?));
            let (pegs, goal_reachable) = (u32_at(0)?, *fields.get(4)? == 1);
            let (jumps, classes) = (u32_at(5)? as usize, u32_at(9)? as usize);
            if pegs as usize > ranker.places() || fields.len() != 13 + 8 * (jumps + classes) {
                return None;
            }
            let counts: Vec<u64> = fields[13..]
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            let level = LevelSet::empty(ranker, pegs);
            sections.read_atomic_words(level.atomic_words())?;
            let progress = Progress {
                jumps: counts[..jumps].to_vec(),
                classes: counts[jumps..].to_vec(),
                goal_reachable,
            };
            Some((level, progress))
        });
        loaded.ok().flatten()
    }

    /// Removes the file (the analysis is complete).
    pub fn remove(&self) {
        let _ = self.saved.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Control, LevelStats, Observer};
    use crate::solvers::peg::levels::analyze;
    use std::sync::Mutex;
    use std::time::Duration;

    /// Hears the pegs of every level found, and stops the run at `stop_at` pegs.
    struct Pegs<'a> {
        start: u32,
        heard: Mutex<Vec<u32>>,
        stop_at: Option<(u32, &'a crate::StopToken)>,
    }

    impl Observer for Pegs<'_> {
        fn level_finished(&self, stats: &LevelStats) {
            let pegs = self.start - stats.depth;
            self.heard.lock().unwrap().push(pegs);
            if let Some((at, stop)) = self.stop_at
                && at == pegs
            {
                stop.stop();
            }
        }
    }

    #[test]
    fn an_analysis_stopped_midway_goes_on_from_its_checkpoint() {
        let board = PegBoard::shipped("hoppers").unwrap();
        let whole = analyze(&board, true, None, &Control::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let checkpoint = PegCheckpoint::new(dir.path().join("h.checkpoint"), &board, true);
        let stop = crate::StopToken::new();
        let pegs = Pegs {
            start: 12,
            heard: Mutex::new(Vec::new()),
            stop_at: Some((7, &stop)),
        };
        // No checkpoint on the way (the pacing never comes due): only the stop's.
        let control = Control::new(&pegs, Some(&stop)).every(Duration::from_secs(3600));
        let stopped = analyze(&board, true, Some(&checkpoint), &control);
        assert!(matches!(
            stopped,
            Err(crate::puzzles::peg::PegError::Interrupted(ref i)) if i.levels.len() == 6
        ));
        let ranker = SubsetRanker::new(13);
        let (level, progress) = checkpoint.load(&ranker).expect("a checkpoint");
        assert_eq!(level.pegs(), 7);
        let boards = &whole.classes.as_ref().expect("classes").positions_by_depth;
        assert_eq!(progress.jumps, boards[..6]);
        assert_eq!(progress.classes, whole.jumps_histogram[..6]);
        // Another analysis (without symmetry) does not take it.
        assert!(
            PegCheckpoint::new(checkpoint.path(), &board, false)
                .load(&ranker)
                .is_none()
        );
        let pegs = Pegs {
            start: 12,
            heard: Mutex::new(Vec::new()),
            stop_at: None,
        };
        let resumed = analyze(&board, true, Some(&checkpoint), &Control::new(&pegs, None)).unwrap();
        let heard = pegs.heard.into_inner().unwrap();
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
