//! Levels on disk (`--memory`): tables built a block at a time are byte-identical to
//! the builds in memory, stopped and resumed anywhere, and bad input is refused.

use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use antipode::StopToken;
use antipode::driver::Control;
use antipode::engine::{BlockStep, Direction, EngineError, Observer};
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::blocks::{BlockPuzzle, library};
use antipode::puzzles::kpuzzle::library::{Twisty, open_any};
use antipode::store::Encoding;
use antipode::table::{self, BuildOptions, TableError};
use antipode::{Analyze, Puzzle};

use crate::common::{antipode, assert_error};

/// Builds `puzzle`'s table at `path` in memory (`memory` `None`) or in `memory` bytes.
fn build<P: Puzzle>(
    puzzle: &P,
    path: &Path,
    encoding: Encoding,
    memory: Option<u64>,
    control: &Control<'_>,
) -> Result<table::Built, TableError> {
    let options = BuildOptions {
        encoding,
        memory,
        ..Default::default()
    };
    table::build(puzzle, path, &options, control)
}

/// Records the directions of the levels a build ran.
#[derive(Default)]
struct Directions(std::sync::Mutex<Vec<Direction>>);

impl Observer for Directions {
    fn level_started(&self, _: u32, direction: Direction, _: u64) {
        self.0.lock().unwrap().push(direction);
    }
}

/// A build on disk hands over its last level's states (ascending), so that the report
/// need not read the whole table again: each at God's number in the table at
/// `reference`.
fn assert_last_level<P: Puzzle>(puzzle: &P, built: &table::Built, reference: &Path) {
    let histogram = &built.header.histogram;
    let gods_number = histogram.len() as u32 - 1;
    let last = built.last_level.as_ref().expect("the last level's states");
    assert_eq!(last.len() as u64, histogram[gods_number as usize]);
    assert!(last.windows(2).all(|pair| pair[0] < pair[1]));
    let table = table::Table::open(reference).unwrap();
    for &index in last {
        assert_eq!(table.distance_of_index(puzzle, index).unwrap(), gods_number);
    }
}

/// The table of `puzzle` built in a quarter and in a sixteenth of its size (at least
/// 16 KiB) is the in-memory build's, byte for byte, in both encodings. Returns whether
/// every build on disk ran a bottom-up level.
fn same_on_disk<P: Puzzle>(puzzle: &P) -> bool {
    let mut bottom_up = true;
    let dir = tempfile::tempdir().unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let whole = dir.path().join(format!("memory-{encoding:?}"));
        let reference = build(puzzle, &whole, encoding, None, &Control::default()).unwrap();
        let payload = reference.header.payload_bytes;
        let expected = std::fs::read(&whole).unwrap();
        for share in [4, 16] {
            let memory = (payload / share).max(16 << 10);
            assert!(
                memory < payload,
                "{}: the table fits {memory} bytes",
                puzzle.name()
            );
            let path = dir.path().join(format!("disk-{share}-{encoding:?}"));
            let directions = Directions::default();
            let control = Control::new(&directions, None);
            let built = build(puzzle, &path, encoding, Some(memory), &control).unwrap();
            assert_eq!(built.header.histogram, reference.header.histogram);
            assert_last_level(puzzle, &built, &whole);
            let directions = directions.0.into_inner().unwrap();
            assert_eq!(directions.first(), Some(&Direction::TopDown));
            bottom_up &= directions.contains(&Direction::BottomUp);
            assert!(
                std::fs::read(&path).unwrap() == expected,
                "{} {encoding:?}, a 1/{share} share: the tables differ",
                puzzle.name()
            );
            assert!(
                !dir.path()
                    .join(format!("disk-{share}-{encoding:?}.buckets"))
                    .exists()
            );
        }
    }
    bottom_up
}

#[test]
fn sliding_boards_on_disk_are_byte_identical() {
    // Their last levels bottom-up: questions between blocks.
    assert!(same_on_disk(&SlidingPuzzle::new(3, 3).unwrap()));
    assert!(same_on_disk(&SlidingPuzzle::new(2, 5).unwrap()));
}

#[test]
fn the_goat_on_disk_is_byte_identical() {
    let (file, text) = library::shipped("goat").unwrap();
    same_on_disk(&BlockPuzzle::from_text(file, text).unwrap());
}

#[test]
fn the_cube_corners_by_class_on_disk_are_byte_identical() {
    let Twisty::Classes(corners) = open_any("3x3x3-corners --symmetry").unwrap() else {
        panic!("no classes");
    };
    assert!(same_on_disk(&*corners));
}

/// The directions of the levels of `puzzle`'s 2-bit table built in `memory` bytes (in
/// memory with `None`), from level 1.
fn directions<P: Puzzle>(puzzle: &P, memory: Option<u64>) -> Vec<Direction> {
    let dir = tempfile::tempdir().unwrap();
    let directions = Directions::default();
    let control = Control::new(&directions, None);
    build(
        puzzle,
        &dir.path().join("t"),
        Encoding::Mod3,
        memory,
        &control,
    )
    .unwrap();
    directions.0.into_inner().unwrap()
}

/// On disk a bottom-up level asks each far neighbour of an unseen state, and an
/// asked frontier state is expanded whole: the corners' level 10 (316,616 classes
/// found from 947,300), bottom-up in memory, runs top-down on disk, where most
/// neighbours lie in other blocks; the last level (1,450 classes) still bottom-up.
#[test]
fn a_level_on_disk_goes_bottom_up_only_where_its_questions_pay() {
    let Twisty::Classes(corners) = open_any("3x3x3-corners --symmetry").unwrap() else {
        panic!("no classes");
    };
    let in_memory = directions(&*corners, None);
    let on_disk = directions(&*corners, Some(128 << 10));
    assert_eq!(in_memory.len(), 11);
    assert_eq!(on_disk.len(), 11);
    assert_eq!(in_memory[9..], [Direction::BottomUp, Direction::BottomUp]);
    assert_eq!(on_disk[9..], [Direction::TopDown, Direction::BottomUp]);
}

/// What a level on disk told its observer.
struct LevelSteps {
    direction: Direction,
    steps: Vec<BlockStep>,
    /// At its end: its blocks and bucket bytes out and in.
    moved: Option<(usize, u64, u64)>,
}

/// Records each level on disk's steps.
#[derive(Default)]
struct BlockSteps(std::sync::Mutex<Vec<LevelSteps>>);

impl Observer for BlockSteps {
    fn level_started(&self, _: u32, direction: Direction, _: u64) {
        let level = LevelSteps {
            direction,
            steps: Vec::new(),
            moved: None,
        };
        self.0.lock().unwrap().push(level);
    }
    fn block_started(&self, step: &BlockStep) {
        self.0.lock().unwrap().last_mut().unwrap().steps.push(*step);
    }
    fn blocks_moved(&self, blocks: usize, written: u64, read: u64) {
        self.0.lock().unwrap().last_mut().unwrap().moved = Some((blocks, written, read));
    }
}

/// Progress on disk: each pass of a level turns to every block in order, and says the
/// bucket bytes moved so far, which grow to the level's totals.
#[test]
fn a_level_on_disk_tells_its_block_and_the_bytes_moved() {
    let Twisty::Classes(corners) = open_any("3x3x3-corners --symmetry").unwrap() else {
        panic!("no classes");
    };
    let dir = tempfile::tempdir().unwrap();
    let steps = BlockSteps::default();
    let path = dir.path().join("t");
    let control = Control::new(&steps, None);
    build(&*corners, &path, Encoding::Mod3, Some(128 << 10), &control).unwrap();
    let levels = steps.0.into_inner().unwrap();
    assert_eq!(levels.len(), 11);
    let (mut wrote, mut read_back) = (false, false);
    for LevelSteps {
        direction,
        steps,
        moved,
    } in levels
    {
        let (blocks, written, read) = moved.expect("the level's bucket bytes");
        assert!(blocks > 1, "{blocks} block(s)");
        let passes = match direction {
            Direction::TopDown => 2,
            Direction::BottomUp => 3,
        };
        let expected: Vec<(usize, usize)> = (1..=passes)
            .flat_map(|pass| (0..blocks).map(move |block| (pass, block)))
            .collect();
        let seen: Vec<(usize, usize)> = steps.iter().map(|s| (s.pass, s.block)).collect();
        assert_eq!(seen, expected);
        assert!(
            steps
                .iter()
                .all(|s| s.passes == passes && s.blocks == blocks)
        );
        for pair in steps.windows(2) {
            assert!(pair[0].written <= pair[1].written && pair[0].read <= pair[1].read);
        }
        let last = steps.last().unwrap();
        assert!(last.written <= written && last.read <= read);
        wrote |= last.written > 0;
        read_back |= last.read > 0;
    }
    assert!(wrote && read_back, "no level moved buckets");
}

/// 3x4 at 8 bits in a quarter and a sixteenth of its 228 MiB table, and in 16 MiB:
/// the published figures (God's number 53, 18 antipodes) and the in-memory table's
/// bytes.
#[test]
fn eleven_puzzle_on_disk_is_byte_identical() {
    let board = SlidingPuzzle::new(3, 4).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (memory, disk) = (dir.path().join("memory"), dir.path().join("disk"));
    build(&board, &memory, Encoding::Byte, None, &Control::default()).unwrap();
    let payload = board.index_count();
    for size in [payload / 4, payload / 16, 16 << 20] {
        let built = build(
            &board,
            &disk,
            Encoding::Byte,
            Some(size),
            &Control::default(),
        )
        .unwrap();
        assert_eq!(built.header.histogram.len(), 54);
        assert_eq!(built.header.histogram[53], 18);
        assert_last_level(&board, &built, &memory);
        assert!(std::fs::read(&disk).unwrap() == std::fs::read(&memory).unwrap());
        std::fs::remove_file(&disk).unwrap();
    }
}

/// Stops the level that finds depth `level` once `numerator / denominator` of its work
/// is done (at least one unit).
struct StopWithin<'a> {
    level: u32,
    numerator: u64,
    denominator: u64,
    current: AtomicU32,
    at: AtomicU64,
    done: AtomicU64,
    stop: &'a StopToken,
    /// The direction of the level stopped.
    direction: std::sync::Mutex<Option<Direction>>,
}

impl<'a> StopWithin<'a> {
    fn new(level: u32, numerator: u64, denominator: u64, stop: &'a StopToken) -> Self {
        StopWithin {
            level,
            numerator,
            denominator,
            current: AtomicU32::new(0),
            at: AtomicU64::new(0),
            done: AtomicU64::new(0),
            stop,
            direction: std::sync::Mutex::new(None),
        }
    }
}

impl Observer for StopWithin<'_> {
    fn level_started(&self, depth: u32, direction: Direction, units: u64) {
        self.current.store(depth, Ordering::Relaxed);
        if depth == self.level {
            *self.direction.lock().unwrap() = Some(direction);
        }
        let at = (units * self.numerator / self.denominator).max(1);
        self.at.store(at, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    fn work_done(&self, units: u64) {
        if self.current.load(Ordering::Relaxed) == self.level
            && self.done.fetch_add(units, Ordering::Relaxed) + units
                >= self.at.load(Ordering::Relaxed)
        {
            self.stop.stop();
        }
    }
}

/// Levels of 2x5 (the last bottom-up) stopped a quarter of the way through (in the expansion, or the ask
/// pass of a bottom-up level) and three quarters (in the apply pass), in 64 KiB,
/// resume to the in-memory table's bytes, in both encodings.
#[test]
fn a_run_on_disk_stopped_anywhere_resumes_byte_identical() {
    let board = SlidingPuzzle::new(2, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rarely = Control::default().every(Duration::from_secs(3600));
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let whole = dir.path().join(format!("whole-{encoding:?}"));
        let reference = build(&board, &whole, encoding, None, &rarely).unwrap();
        let expected = std::fs::read(&whole).unwrap();
        let memory = Some(64 << 10);
        let mut bottom_up = 0;
        // Levels from 46 (bytes) and 39 (mod 3) on run bottom-up.
        for level in [1, 9, 20, 27, 34, 50] {
            for quarters in [1, 3] {
                let stop = StopToken::new();
                let observer = StopWithin::new(level, quarters, 4, &stop);
                let path = dir
                    .path()
                    .join(format!("stopped-{level}-{quarters}-{encoding:?}"));
                let control = Control::new(&observer, Some(&stop)).every(rarely.checkpoint_every);
                let stopped = build(&board, &path, encoding, memory, &control);
                assert!(
                    matches!(
                        stopped,
                        Err(TableError::Engine(EngineError::Interrupted(_)))
                    ),
                    "{encoding:?}: level {level} was not stopped"
                );
                if *observer.direction.lock().unwrap() == Some(Direction::BottomUp) {
                    bottom_up += 1;
                }
                assert_eq!(
                    table::read_header_of(&path).unwrap().histogram.len() as u32,
                    level
                );
                let built = build(&board, &path, encoding, memory, &rarely).unwrap();
                assert_eq!(built.header.histogram, reference.header.histogram);
                assert!(
                    std::fs::read(&path).unwrap() == expected,
                    "{encoding:?}: stopped in level {level} at {quarters}/4"
                );
            }
        }
        assert!(bottom_up >= 2, "{encoding:?}: no bottom-up level stopped");
    }
}

/// Exact depths are saved at the usual pace, so a crash can leave a file holding
/// many levels past its header's: the header of an early checkpoint over the payload
/// of a run stopped much later resumes to the same table, also when the resumed run
/// is not given a memory size.
#[test]
fn a_file_levels_ahead_of_its_checkpoint_resumes_byte_identical() {
    let board = SlidingPuzzle::new(2, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let reference = build(&board, &whole, Encoding::Byte, None, &Control::default()).unwrap();
    let memory = Some(256 << 10);
    // A checkpoint after every level up to level 10, then a run stopped in level 30.
    let stopped_in = |level: u32, path: &Path| {
        let stop = StopToken::new();
        let observer = StopWithin::new(level, 1, 2, &stop);
        let control = Control::new(&observer, Some(&stop)).every(Duration::ZERO);
        let stopped = build(&board, path, Encoding::Byte, memory, &control);
        assert!(matches!(
            stopped,
            Err(TableError::Engine(EngineError::Interrupted(_)))
        ));
        assert_eq!(
            table::read_header_of(path).unwrap().histogram.len() as u32,
            level
        );
    };
    let (early, late) = (dir.path().join("early"), dir.path().join("late"));
    stopped_in(10, &early);
    std::fs::copy(&early, &late).unwrap();
    stopped_in(30, &late);
    // The header (the first page) of the early file over the late payload.
    let mut stitched = std::fs::read(&late).unwrap();
    let header = std::fs::read(&early).unwrap();
    stitched[..4096].copy_from_slice(&header[..4096]);
    let spare = stitched.len() - 4096;
    stitched[spare..].copy_from_slice(&header[header.len() - 4096..]);
    std::fs::write(&late, &stitched).unwrap();
    assert_eq!(table::read_header_of(&late).unwrap().histogram.len(), 10);
    // Resumed without a memory size: a table begun on disk goes on on disk.
    let built = build(&board, &late, Encoding::Byte, None, &Control::default()).unwrap();
    assert_eq!(built.header.histogram, reference.header.histogram);
    assert!(std::fs::read(&late).unwrap() == std::fs::read(&whole).unwrap());
}

/// The job as the command line runs it, and its refusals, one line each.
#[test]
fn memory_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.table");
    let table = path.to_str().unwrap();
    let output = antipode(&["analyze", "8puzzle", "--table", table, "--memory", "100KiB"]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("god's number    31"), "{stdout}");
    let report = Analyze::new(&SlidingPuzzle::new(3, 3).unwrap())
        .run()
        .unwrap();
    assert_eq!(report.gods_number, 31);
    for (args, expected) in [
        (vec!["--memory", "lots"], "`lots` is not a size"),
        (
            vec!["--memory", "1KiB", "--force"],
            "is below the 16.0 KiB a level on disk needs",
        ),
    ] {
        let mut all = vec!["analyze", "8puzzle", "--table", table];
        all.extend(args);
        assert_error(&all, expected);
    }
    assert_error(&["analyze", "8puzzle", "--memory", "1MiB"], "--table");
    assert_error(
        &["analyze", "english33", "--table", table, "--memory", "1MiB"],
        "no --memory",
    );
    assert_error(
        &[
            "analyze",
            "8puzzle",
            "--distributed",
            "--table",
            table,
            "--memory",
            "1MiB",
        ],
        "--memory",
    );
}
