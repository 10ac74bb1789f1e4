//! Table files: building, resuming after an interruption, reading, and refusing bad
//! files and bad positions.

use crate::common::{antipode, antipode_with_input, assert_error, run_ok};
use antipode::driver::Control;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use antipode::Notation;
use antipode::StopToken;
use antipode::engine::{EngineError, LevelStats, Observer};
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::blocks::{BlockPuzzle, library};
use antipode::store::Encoding;
use antipode::table::{self, BuildOptions, HEADER_BYTES, Header, Table, TableError};
use antipode::{Puzzle, analysis};

fn options(encoding: Encoding) -> BuildOptions {
    BuildOptions {
        encoding,
        ..Default::default()
    }
}

/// A checkpoint after every level.
fn every_level() -> Control<'static> {
    Control::default().every(Duration::ZERO)
}

/// Requests a stop once a given level is finished.
struct StopAfter<'a> {
    level: u32,
    stop: &'a StopToken,
}

impl Observer for StopAfter<'_> {
    fn level_finished(&self, stats: &LevelStats) {
        if stats.depth == self.level {
            self.stop.stop();
        }
    }
}

/// Requests a stop in the middle of a level: once `units` of its work items are done
/// (the others are skipped, so the level is left partly written).
struct StopWithin<'a> {
    level: u32,
    units: u64,
    current: std::sync::atomic::AtomicU32,
    done: std::sync::atomic::AtomicU64,
    stop: &'a StopToken,
}

impl<'a> StopWithin<'a> {
    /// Stops level `level` once `units` of its work items are done.
    fn new(level: u32, units: u64, stop: &'a StopToken) -> Self {
        StopWithin {
            level,
            units,
            current: Default::default(),
            done: Default::default(),
            stop,
        }
    }
}

impl Observer for StopWithin<'_> {
    fn level_started(&self, depth: u32, _: antipode::engine::Direction, _: u64) {
        self.current.store(depth, Ordering::Relaxed);
    }

    fn work_done(&self, units: u64) {
        if self.current.load(Ordering::Relaxed) == self.level
            && self.done.fetch_add(units, Ordering::Relaxed) + units >= self.units
        {
            self.stop.stop();
        }
    }
}

fn interrupted_then_resumed<P: Puzzle>(puzzle: &P, encoding: Encoding, level: u32) {
    let stop = StopToken::new();
    let observer = StopAfter { level, stop: &stop };
    interrupted_by_then_resumed(puzzle, encoding, &observer, &stop, level);
}

/// Stops a build in the middle of level `level + 1`, resumes it, and compares it
/// with an uninterrupted build.
fn interrupted_within_then_resumed<P: Puzzle>(
    puzzle: &P,
    encoding: Encoding,
    level: u32,
    units: u64,
) {
    let stop = StopToken::new();
    let observer = StopWithin::new(level + 1, units, &stop);
    interrupted_by_then_resumed(puzzle, encoding, &observer, &stop, level);
}

fn interrupted_by_then_resumed<P: Puzzle>(
    puzzle: &P,
    encoding: Encoding,
    observer: &dyn Observer,
    stop: &StopToken,
    level: u32,
) {
    let dir = tempfile::tempdir().unwrap();
    let (whole, resumed) = (dir.path().join("whole"), dir.path().join("resumed"));
    let reference = table::build(puzzle, &whole, &options(encoding), &every_level()).unwrap();

    let result = table::build(
        puzzle,
        &resumed,
        &options(encoding),
        &Control::new(observer, Some(stop)).every(Duration::ZERO),
    );
    assert!(matches!(
        result,
        Err(TableError::Engine(EngineError::Interrupted { .. }))
    ));
    let partial = table::read_header_of(&resumed).unwrap();
    assert!(!partial.complete);
    assert_eq!(partial.histogram.len() as u32, level + 1);
    assert_eq!(
        partial.histogram[..],
        reference.header.histogram[..=level as usize]
    );
    assert!(matches!(
        Table::open(&resumed),
        Err(TableError::Incomplete { .. })
    ));
    tear_the_other_copy(&resumed, &partial);

    let built = table::build(puzzle, &resumed, &options(encoding), &every_level()).unwrap();
    assert_eq!(built.resumed_levels as u32, level + 1);
    assert_eq!(built.header, reference.header, "{}", puzzle.name());
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&resumed).unwrap()
    );
}

/// What a crash in the middle of a checkpoint leaves: the copy of the payload the
/// header does not name half overwritten (here with bytes no search writes).
fn tear_the_other_copy(path: &Path, header: &Header) {
    use std::io::{Seek, SeekFrom, Write};
    let payload = header.payload_bytes;
    let other = match header.checkpoint_slot {
        0 => HEADER_BYTES as u64 + payload.next_multiple_of(4096),
        _ => HEADER_BYTES as u64,
    };
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    assert!(file.metadata().unwrap().len() >= other + payload);
    file.seek(SeekFrom::Start(other)).unwrap();
    file.write_all(&vec![0xA5; payload.div_ceil(2) as usize])
        .unwrap();
}

#[test]
fn resume_gives_a_byte_identical_table() {
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let (file, text) = library::shipped("goat").unwrap();
    let goat = BlockPuzzle::from_text(file, text).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        interrupted_then_resumed(&eight, encoding, 12);
        interrupted_then_resumed(&eight, encoding, 27);
        interrupted_then_resumed(&goat, encoding, 30);
    }
}

/// A stop in the middle of a level leaves some of the next level's entries written
/// and others not; the resumed build redoes that level and must find every state of
/// it, wherever the interrupted run had already marked them.
#[test]
fn a_level_stopped_half_way_is_redone_whole() {
    let two_by_five = SlidingPuzzle::new(2, 5).unwrap();
    let (file, text) = library::shipped("goat").unwrap();
    let goat = BlockPuzzle::from_text(file, text).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        for (level, units) in [(14, 3), (20, 5), (27, 8), (33, 2)] {
            interrupted_within_then_resumed(&two_by_five, encoding, level, units);
        }
        interrupted_within_then_resumed(&goat, encoding, 30, 2);
    }
}

/// Every level of two small puzzles stopped after its first unit of work (the goal
/// level's successors too, where only the goal level is complete): each resumed table
/// is byte-identical to an uninterrupted one, in both encodings.
#[test]
fn every_level_stopped_after_its_first_work_unit_resumes_byte_identical() {
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let (file, text) = library::shipped("klotski").unwrap();
    let klotski = BlockPuzzle::from_text(file, text).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        every_level_stopped_and_resumed(&eight, encoding);
        every_level_stopped_and_resumed(&klotski, encoding);
    }
}

/// Stops a build of `puzzle` within each of its levels in turn and resumes it. Only
/// the stop writes a checkpoint, so that a hundred builds take seconds.
fn every_level_stopped_and_resumed<P: Puzzle>(puzzle: &P, encoding: Encoding) {
    let dir = tempfile::tempdir().unwrap();
    let rarely = Control::default().every(Duration::from_secs(3600));
    let whole = dir.path().join("whole");
    let reference = table::build(puzzle, &whole, &options(encoding), &rarely).unwrap();
    let whole = std::fs::read(&whole).unwrap();
    let levels = reference.header.histogram.len() as u32;
    for level in 1..levels {
        let stop = StopToken::new();
        let observer = StopWithin::new(level, 1, &stop);
        let path = dir.path().join(format!("stopped-in-{level}"));
        let result = table::build(
            puzzle,
            &path,
            &options(encoding),
            &Control::new(&observer, Some(&stop)).every(rarely.checkpoint_every),
        );
        assert!(
            matches!(
                result,
                Err(TableError::Engine(EngineError::Interrupted { .. }))
            ),
            "{} {encoding:?}: level {level} was not stopped",
            puzzle.name()
        );
        let partial = table::read_header_of(&path).unwrap();
        assert_eq!(partial.histogram.len() as u32, level);
        let built = table::build(puzzle, &path, &options(encoding), &rarely).unwrap();
        assert_eq!(
            built.header.histogram,
            reference.header.histogram,
            "{} {encoding:?}: stopped in level {level}",
            puzzle.name()
        );
        assert!(std::fs::read(&path).unwrap() == whole);
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn both_encodings_give_the_published_distances() {
    let dir = tempfile::tempdir().unwrap();
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let (_, histogram) = analysis::search(&eight, &Control::default()).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let path = dir.path().join(format!("{encoding:?}"));
        table::build(&eight, &path, &options(encoding), &every_level()).unwrap();
        let table = Table::open(&path).unwrap();
        assert_eq!(table.histogram(), histogram.0.as_slice());
        let far = eight.parse("867254301").unwrap();
        assert_eq!(table.distance(&eight, &far).unwrap(), 31);
        assert_eq!(table.solve(&eight, &far).unwrap().len(), 31);
        let checks = table::verify(&table, &eight);
        assert!(checks.iter().all(|c| c.ok), "{checks:?}");
        // The header, the payload and one block checksum (the payload is one block).
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            HEADER_BYTES as u64 + encoding.payload_bytes(181_440) + 4
        );
    }
}

/// Builds the 8-puzzle table with the binary in a fresh directory.
fn eight_table(dir: &Path, bits: &str) -> PathBuf {
    let path = dir.join(format!("eight-{bits}.table"));
    let output = antipode(&[
        "analyze",
        "8puzzle",
        "--table",
        path.to_str().unwrap(),
        "--bits",
        bits,
        "-q",
    ]);
    assert!(output.status.success(), "{output:?}");
    path
}

/// `info` shows the header of a file that does not match it, but says so and exits
/// non-zero; `plot` refuses it (both exited 0 on a table cut short).
#[test]
fn info_and_plot_refuse_a_file_that_does_not_match_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = eight_table(dir.path(), "8");
    let bytes = std::fs::read(&path).unwrap();
    let svg = dir.path().join("p.svg");
    let short = dir.path().join("short.table");
    std::fs::write(&short, &bytes[..bytes.len() - 1000]).unwrap();
    let mut flipped = bytes.clone();
    flipped[HEADER_BYTES + 500] ^= 1;
    let damaged = dir.path().join("damaged.table");
    std::fs::write(&damaged, &flipped).unwrap();
    for (file, expected) in [(&short, "truncated or resized"), (&damaged, "corrupted")] {
        let file = file.to_str().unwrap();
        let output = antipode(&["info", file]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "info {file}: {stderr}");
        assert!(String::from_utf8_lossy(&output.stdout).contains("8puzzle"));
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("does not match the header shown"),
            "{stderr}"
        );
        assert!(stderr.contains(expected), "{stderr}");
    }
    assert_error(
        &["plot", short.to_str().unwrap(), "-o", svg.to_str().unwrap()],
        "truncated or resized",
    );
    run_ok(&["info", path.to_str().unwrap()]);
}

#[test]
fn lookup_solve_info_verify_from_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    for bits in ["8", "2"] {
        let path = eight_table(dir.path(), bits);
        let table = path.to_str().unwrap();
        let output = antipode(&[
            "lookup",
            "8puzzle",
            "--table",
            table,
            "867254301",
            "8 6 7/2 5 4/3 0 1",
            "123456780",
        ]);
        assert!(output.status.success());
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            "31 867/254/301\n31 867/254/301\n0 123/456/780\n"
        );
        let (moves, _) = run_ok(&["solve", "8puzzle", "867254301", "--table", table]);
        assert_eq!(moves.lines().count(), 1);
        assert_eq!(moves.split_whitespace().count(), 31);
        let (out, _) = run_ok(&[
            "solve",
            "8puzzle",
            "867254301",
            "--table",
            table,
            "--format",
            "json",
        ]);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(json["length"], 31);
        assert_eq!(json["start"], "867/254/301");
        assert_eq!(json["solutions"][0].as_array().unwrap().len(), 31);
        let (out, _) = run_ok(&["info", table, "--format", "json"]);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(json["complete"], true);
        assert_eq!(json["version"], 3);
        assert_eq!(json["histogram"].as_array().unwrap().len(), 32);
        let digest = json["definition_sha256"].as_str().unwrap();
        assert_eq!(
            digest,
            antipode::table::definition_digest("puzzle 8puzzle\ngoal 123/456/780\n")
        );
        let (report, _) = run_ok(&["verify", table]);
        assert_eq!(report.lines().count(), 7, "{report}");
        assert!(report.lines().all(|l| l.starts_with("ok  ")), "{report}");
    }
}

#[test]
fn lookup_reads_positions_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let path = eight_table(dir.path(), "8");
    let output = antipode_with_input(
        None,
        &["lookup", "8puzzle", "--table", path.to_str().unwrap()],
        "647/850/321\n\n123456708\n",
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "31 647/850/321\n1 123/456/708\n"
    );
}

#[test]
fn a_complete_table_is_read_again_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = eight_table(dir.path(), "8");
    let table = path.to_str().unwrap();
    // A complete table: the report is read from it (byte for byte the same file),
    // --force builds it again; an unwritable path, another puzzle's table.
    let before = std::fs::read(table).unwrap();
    let again = antipode(&["analyze", "8puzzle", "--table", table]);
    assert!(again.status.success());
    let (report, notice) = (
        String::from_utf8_lossy(&again.stdout),
        String::from_utf8_lossy(&again.stderr),
    );
    assert!(report.contains("god's number    31"), "{report}");
    assert!(
        notice.contains("was already complete: the report is read from it"),
        "{notice}"
    );
    assert_eq!(std::fs::read(table).unwrap(), before);
    assert!(
        antipode(&["analyze", "8puzzle", "--table", table, "--force", "-q"])
            .status
            .success()
    );
    assert_error(
        &[
            "analyze",
            "8puzzle",
            "--table",
            "/proc/antipode.table",
            "-q",
        ],
        "/proc/antipode.table",
    );
    assert_error(
        &["analyze", "sliding:2x4", "--table", table, "-q"],
        "complete table of 8puzzle",
    );
    let text = dir.path().join("text.table");
    std::fs::write(&text, "hello\n".repeat(1000)).unwrap();
    assert_error(
        &[
            "analyze",
            "sliding:2x4",
            "--table",
            text.to_str().unwrap(),
            "-q",
        ],
        "not an unfinished table of this puzzle",
    );
    assert_error(
        &["lookup", "8puzzle", "--table", "/nonexistent/t.table", "1"],
        "No such file",
    );
}

#[test]
fn bad_positions_and_bad_tables_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = eight_table(dir.path(), "8");
    let table = path.to_str().unwrap();
    let lookup = |position: &str, expected: &str| {
        assert_error(&["lookup", "8puzzle", "--table", table, position], expected)
    };
    lookup("86725430", "wrong size");
    lookup("867254311", "appears too often");
    lookup("867254391", "unknown piece `9`");
    lookup("8a7254301", "unknown piece `a`");
    lookup("687254301", "wrong parity");
    assert_error(
        &["solve", "8puzzle", "687254301", "--table", table],
        "wrong parity",
    );

    // Another puzzle's table.
    assert_error(
        &["lookup", "sliding:2x4", "--table", table, "1234/5670"],
        "not sliding:2x4",
    );

    // A lookup in a damaged file fails with one line naming the damage.
    let lookup_fails = |file: &std::path::Path, expected: &str| {
        let file = file.to_str().unwrap();
        assert_error(
            &["lookup", "8puzzle", "--table", file, "123456780"],
            expected,
        );
    };

    // Truncated.
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.table");
    std::fs::write(&cut, &bytes[..bytes.len() - 1000]).unwrap();
    lookup_fails(&cut, "truncated");
    assert_error(&["verify", cut.to_str().unwrap()], "truncated");
    let stub = dir.path().join("stub.table");
    std::fs::write(&stub, &bytes[..100]).unwrap();
    assert_error(&["info", stub.to_str().unwrap()], "truncated");

    // One flipped byte in the payload, then in the header.
    let mut flipped = bytes.clone();
    flipped[HEADER_BYTES + 12345] ^= 0x10;
    let payload = dir.path().join("payload.table");
    std::fs::write(&payload, &flipped).unwrap();
    lookup_fails(&payload, "corrupted");
    assert_error(
        &["verify", payload.to_str().unwrap()],
        "verification failed",
    );
    let mut flipped = bytes.clone();
    flipped[2048 + 8 * 5] ^= 0x01;
    let header = dir.path().join("header.table");
    std::fs::write(&header, &flipped).unwrap();
    lookup_fails(&header, "header is corrupted");
    assert_error(&["verify", header.to_str().unwrap()], "header is corrupted");

    // Not a table at all.
    let text = dir.path().join("text.table");
    std::fs::write(&text, "hello\n".repeat(1000)).unwrap();
    assert_error(&["info", text.to_str().unwrap()], "not an antipode table");

    // Incomplete.
    let mut block = Header::decode(&bytes[..HEADER_BYTES]).unwrap();
    block.complete = false;
    block.block_sums = None;
    let mut unfinished = block.encode();
    unfinished.extend_from_slice(&bytes[HEADER_BYTES..]);
    let partial = dir.path().join("partial.table");
    std::fs::write(&partial, &unfinished).unwrap();
    lookup_fails(&partial, "incomplete");
    assert_error(
        &[
            "solve",
            "8puzzle",
            "123456780",
            "--table",
            partial.to_str().unwrap(),
        ],
        "incomplete",
    );
}

/// A program in another language reads the documented format: the stdlib-only Python
/// reader in `scripts/` must agree with antipode on every entry.
#[test]
fn python_reads_the_documented_format() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = SlidingPuzzle::new(2, 4).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let path = dir.path().join(format!("{encoding:?}.table"));
        table::build(&puzzle, &path, &options(encoding), &every_level()).unwrap();
        let table = Table::open(&path).unwrap();
        let indices: Vec<String> = (0..puzzle.index_count()).map(|i| i.to_string()).collect();
        let (header, lines) = crate::common::python_read_table(&path, &indices);
        assert_eq!(header["puzzle"], "sliding:2x4");
        assert_eq!(header["version"], 3);
        assert_eq!(
            header["definition_sha256"],
            table.header().definition_sha256.clone().unwrap()
        );
        assert_eq!(header["bits"], encoding.bits());
        assert_eq!(header["index_range"], serde_json::json!([0, 20_160]));
        assert_eq!(
            header["histogram"].as_array().unwrap().len(),
            table.histogram().len()
        );
        for (index, line) in lines.iter().enumerate() {
            let value: u32 = line.split_once(' ').unwrap().1.parse().unwrap();
            let distance = table
                .distance(&puzzle, &puzzle.unrank(index as u64))
                .unwrap();
            let expected = match encoding {
                Encoding::Byte => distance,
                Encoding::Mod3 => distance % 3,
                Encoding::Nibble => unreachable!("depth tables have no 4-bit entries"),
            };
            assert_eq!(value, expected, "index {index}");
        }
    }
}

/// Tables written by the version-1 format (kept in `tests/data`, made by the release
/// before format 2) are still read: matched by name and goal, looked up, verified.
#[test]
fn version_one_tables_are_still_read() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    let exact = format!("{data}sliding-2x3-v1.table");
    let table = Table::open(&exact).unwrap();
    assert_eq!(table.header().version, 1);
    assert_eq!(table.header().definition_sha256, None);
    let board = SlidingPuzzle::new(2, 3).unwrap();
    let (exact_depths, histogram) =
        antipode::analysis::search(&board, &Control::default()).unwrap();
    assert_eq!(table.histogram(), histogram.0);
    for index in 0..board.index_count() {
        let state = board.unrank(index);
        assert_eq!(
            table.distance(&board, &state).unwrap(),
            exact_depths.depth(index).unwrap()
        );
    }
    let (report, _) = run_ok(&["verify", &exact]);
    assert!(report.lines().all(|l| l.starts_with("ok  ")), "{report}");
    let packed = format!("{data}sliding-2x4-2bit-v1.table");
    let (out, _) = run_ok(&["lookup", "sliding:2x4", "--table", &packed, "0765/4321"]);
    assert_eq!(out, "28 0765/4321\n");
    assert_error(
        &["lookup", "8puzzle", "--table", &exact, "123456780"],
        "this table is for sliding:2x3 (goal 123/450), not 8puzzle",
    );
}

#[test]
fn lookup_formats_report_every_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = eight_table(dir.path(), "2");
    let lookup = |format: &str| {
        antipode_with_input(
            None,
            &[
                "lookup",
                "8puzzle",
                "--table",
                path.to_str().unwrap(),
                "--format",
                format,
            ],
            "867254301\n12345678x\n123456780\n",
        )
    };
    let output = lookup("json");
    assert!(!output.status.success(), "a bad line makes the run fail");
    let rows: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["distance"], 31);
    assert_eq!(rows[0]["position"], "867/254/301");
    assert_eq!(rows[1]["line"], 2);
    assert_eq!(rows[1]["error"], "unknown piece `x`");
    assert_eq!(rows[2]["distance"], 0);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "antipode: error: 1 of 3 position(s) could not be looked up\n"
    );
    let output = lookup("tsv");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "position\tdistance\terror\n867/254/301\t31\t\n12345678x\t\tunknown piece `x`\n123/456/780\t0\t\n"
    );
    assert_error(
        &[
            "lookup",
            "8puzzle",
            "--table",
            path.to_str().unwrap(),
            "--format",
            "csv",
            "1",
        ],
        "possible values: text, json, tsv",
    );
}

/// A table path that is not a regular file (a FIFO, a device) is refused with one
/// line by every command that reads or writes a table, instead of waiting on it.
#[test]
fn a_table_path_that_is_not_a_regular_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.table");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let fifo = fifo.to_str().unwrap();
    for args in [
        vec!["info", fifo],
        vec!["verify", fifo],
        vec!["lookup", "--table", fifo, "8puzzle", "012345678"],
        vec!["analyze", "8puzzle", "--table", fifo, "-q"],
        vec!["analyze", "8puzzle", "--table", "/dev/null", "-q"],
        vec!["info", "/dev/zero"],
    ] {
        crate::common::assert_error(&args, "not a regular file");
    }
}

/// Stops its token when a level of the given depth is finished, and notes when.
struct StopAtLevel {
    depth: u32,
    token: StopToken,
    at: std::sync::Mutex<Option<std::time::Instant>>,
}

impl Observer for StopAtLevel {
    fn level_finished(&self, stats: &LevelStats) {
        if stats.depth == self.depth {
            *self.at.lock().unwrap() = Some(std::time::Instant::now());
            self.token.stop();
        }
    }
}

/// An analysis in memory takes its stop token as a table build does: it ends within
/// the next level with the complete levels, well before the search would.
#[test]
fn an_analysis_in_memory_stops_when_asked() {
    use antipode::jobs::AnalyzeJobError;
    let board = SlidingPuzzle::new(2, 6).unwrap();
    let observer = StopAtLevel {
        depth: 20,
        token: StopToken::new(),
        at: std::sync::Mutex::new(None),
    };
    let stopped = antipode::Analyze::new(&board)
        .observer(&observer)
        .stop(&observer.token)
        .run();
    let ended = std::time::Instant::now();
    let Err(AnalyzeJobError::Interrupted(stopped)) = stopped else {
        panic!("the analysis was not stopped: {stopped:?}");
    };
    assert_eq!(stopped.levels.len(), 21, "levels 0..=20 complete");
    assert_eq!(stopped.checkpoint, None);
    let took = ended - observer.at.lock().unwrap().unwrap();
    assert!(took < Duration::from_secs(1), "{took:?} after the stop");
}
