//! One writer at a time, and places a table cannot go: a second writer of a table or a
//! pattern database is refused before it writes a byte; a bad path is refused before
//! any search work, leaving nothing behind; an overwrite leaves readers of the old
//! table their file. (Full disks, read-only file systems and the kill loop need a file
//! system made for the test: `scripts/table-safety.sh`.)

use crate::common::{antipode, assert_error, listing, run_ok};

use std::path::Path;
use std::time::Duration;

use antipode::Notation;
use antipode::driver::Control;
use antipode::puzzles::SlidingPuzzle;
use antipode::store::Encoding;
use antipode::table::lock::WriteLock;
use antipode::table::{self, BuildOptions, Table, TableError};

#[test]
fn a_second_writer_of_a_table_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("8puzzle.table");
    let text = path.to_str().unwrap();
    // An unfinished table another writer holds (this test process).
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let options = BuildOptions {
        encoding: Encoding::Byte,
        ..Default::default()
    };
    table::build(&eight, &path, &options, &every_level()).unwrap();
    let before = std::fs::read(&path).unwrap();
    let held = WriteLock::acquire(&path).unwrap();
    let me = format!("another process {} (", std::process::id());
    // A complete table is only read: its report comes from it, as a reader's would.
    let (report, _) = run_ok(&["analyze", "8puzzle", "--table", text]);
    assert!(report.contains("god's number    31"), "{report}");
    for args in [
        vec!["analyze", "8puzzle", "--table", text, "--force"],
        vec![
            "analyze", "8puzzle", "--table", text, "--bits", "2", "--force",
        ],
    ] {
        assert_error(&args, &me);
        assert_error(&args, "is writing this file");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Readers are not blocked.
    let out = antipode(&["lookup", "8puzzle", "--table", text, "867254301"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "31 867/254/301"
    );
    drop(held);
    // With the lock gone, the overwrite goes ahead.
    let out = antipode(&["analyze", "8puzzle", "--table", text, "--force", "-q"]);
    assert!(out.status.success());
}

#[test]
fn a_second_builder_of_a_pattern_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let args = [
        "pdb",
        "8puzzle",
        "--pattern",
        "1,2,3,4",
        "--dir",
        folder,
        "-q",
    ];
    // The database's partial file, held as a running build would hold it.
    let name = "8puzzle-pdb-1.2.3.4-";
    let out = antipode(&args);
    assert!(out.status.success());
    let built: Vec<String> = listing(dir.path());
    let [file] = &built[..] else {
        panic!("one database expected: {built:?}")
    };
    assert!(file.starts_with(name), "{file}");
    std::fs::remove_file(dir.path().join(file)).unwrap();
    let partial = dir.path().join(format!("{file}.partial"));
    let held = WriteLock::acquire(&partial).unwrap();
    assert_error(&args, "is writing this file");
    assert_error(&args, &format!("{file}.partial"));
    assert_eq!(listing(dir.path()), vec![format!("{file}.partial")]);
    drop(held);
    let out = antipode(&args);
    assert!(out.status.success());
    assert_eq!(listing(dir.path()), vec![file.clone()]);
}

#[test]
fn bad_places_are_refused_before_any_work_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let inside = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    assert_error(
        &["analyze", "11puzzle", "--table", &inside("no/such/x.table")],
        "does not exist",
    );
    assert_error(
        &[
            "analyze",
            "11puzzle",
            "--table",
            dir.path().to_str().unwrap(),
        ],
        "is a folder",
    );
    assert!(listing(dir.path()).is_empty());
    // The default folder is made on first use.
    let out = crate::common::antipode_with_input(
        Some(dir.path()),
        &["analyze", "8puzzle", "--table", "--bits", "2", "-q"],
        "",
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        listing(&dir.path().join("tables")),
        vec!["8puzzle-2bit.table"]
    );
}

#[test]
fn an_overwrite_leaves_readers_their_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.table");
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let mut options = BuildOptions::default();
    table::build(&eight, &path, &options, &every_level()).unwrap();
    let reader = Table::open(&path).unwrap();
    let before = reader.depths().map()[..].to_vec();
    // Another puzzle's table over it.
    let other = SlidingPuzzle::new(2, 4).unwrap();
    options.force = true;
    table::build(&other, &path, &options, &every_level()).unwrap();
    assert_eq!(reader.depths().map()[..], before[..]);
    let position = eight.parse("867254301").unwrap();
    assert_eq!(reader.distance(&eight, &position).unwrap(), 31);
    assert!(matches!(
        Table::open(&path).unwrap().check_puzzle(&eight),
        Err(TableError::OtherPuzzle { .. })
    ));
}

/// Stops a build once a level is finished (the stop comes with a checkpoint).
struct StopAfter<'a>(u32, &'a antipode::StopToken);

impl antipode::engine::Observer for StopAfter<'_> {
    fn level_finished(&self, stats: &antipode::engine::LevelStats) {
        if stats.depth == self.0 {
            self.1.stop();
        }
    }
}

#[test]
fn a_header_torn_by_a_power_cut_resumes_from_its_spare() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let (whole, torn) = (dir.path().join("whole"), dir.path().join("torn"));
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let options = BuildOptions {
            encoding,
            force: true,
            ..Default::default()
        };
        table::build(&eight, &whole, &options, &every_level()).unwrap();
        let options = BuildOptions {
            force: false,
            ..options
        };
        let _ = std::fs::remove_file(&torn);
        let stop = antipode::StopToken::new();
        let stopped = table::build(
            &eight,
            &torn,
            &options,
            &Control::new(&StopAfter(20, &stop), Some(&stop)).every(Duration::ZERO),
        );
        assert!(stopped.is_err());
        // The last header write torn: its histogram's sectors never reached the disk.
        let file = std::fs::OpenOptions::new().write(true).open(&torn).unwrap();
        file.write_all_at(&[0u8; 2048], 2048).unwrap();
        assert!(table::read_header_of(&torn).is_err());
        let built = table::build(&eight, &torn, &options, &every_level()).unwrap();
        assert_eq!(built.resumed_levels, 21);
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&torn).unwrap()
        );
        // Both headers gone: refused with one line, not resumed from nothing.
        let _ = std::fs::remove_file(&torn);
        let stop = antipode::StopToken::new();
        assert!(
            table::build(
                &eight,
                &torn,
                &options,
                &Control::new(&StopAfter(20, &stop), Some(&stop)).every(Duration::ZERO)
            )
            .is_err()
        );
        let len = file_len(&torn);
        let file = std::fs::OpenOptions::new().write(true).open(&torn).unwrap();
        file.write_all_at(&[0u8; 2048], 2048).unwrap();
        file.write_all_at(&[0u8; 2048], len - 2048).unwrap();
        assert!(matches!(
            table::build(&eight, &torn, &options, &every_level()),
            Err(TableError::NotResumable { .. })
        ));
    }
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

/// A checkpoint after every level.
fn every_level() -> Control<'static> {
    Control::default().every(Duration::ZERO)
}
