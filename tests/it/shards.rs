//! Tables in shards: built by in-process ranks through the library (the same code an
//! MPI job runs, `scripts/mpi-check.sh` runs it under `mpirun`), read by the binary
//! from one process through the manifest.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use antipode::driver::Control;

use antipode::engine::{InProcessRanks, LevelStats, Observer, Silent};
use antipode::puzzles::SlidingPuzzle;
use antipode::store::Encoding;
use antipode::table::{self, BuildOptions, Table, TableError};
use antipode::{Puzzle, analysis};

use crate::common::{assert_error, run_ok};
use antipode::Notation;

/// Runs the sharded build of `puzzle` into `dir` on `ranks` in-process ranks, each
/// with the observer `observe(rank)` gives; every rank's outcome, in rank order.
fn build<P: Puzzle>(
    puzzle: &P,
    dir: &Path,
    ranks: usize,
    options: &BuildOptions,
    observe: impl Fn(usize) -> Box<dyn Observer + Send> + Sync,
) -> Vec<Result<analysis::Analysis, analysis::AnalyzeError>> {
    let transport = InProcessRanks::new(ranks);
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..ranks)
            .map(|r| {
                let (rank, observe) = (transport.rank(r), &observe);
                scope.spawn(move || {
                    let observer = observe(r);
                    let control = Control::new(&*observer, None).every(Duration::ZERO);
                    analysis::analyze_partitioned_table(puzzle, dir, options, &rank, 0, &control)
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    })
}

fn silent(_: usize) -> Box<dyn Observer + Send> {
    Box::new(Silent)
}

fn options(encoding: Encoding) -> BuildOptions {
    BuildOptions {
        encoding,
        ..Default::default()
    }
}

/// The single process's table of `puzzle` in `dir`.
fn single<P: Puzzle>(puzzle: &P, dir: &Path, encoding: Encoding) -> PathBuf {
    let name = puzzle.name().replace(':', "-");
    let path = dir.join(format!("single-{name}-{}.table", encoding.bits()));
    table::build(
        puzzle,
        &path,
        &options(encoding),
        &Control::default().every(Duration::ZERO),
    )
    .unwrap();
    path
}

#[test]
fn shards_read_through_their_manifest_are_the_single_process_table() {
    let dir = tempfile::tempdir().unwrap();
    // 2x5 over 3 ranks: slices on page boundaries, mapped side by side; the 8-puzzle
    // over 2: small slices, read into memory.
    let cases = [
        (SlidingPuzzle::new(2, 5).unwrap(), 3),
        (SlidingPuzzle::new(3, 3).unwrap(), 2),
    ];
    for (puzzle, ranks) in &cases {
        for encoding in [Encoding::Byte, Encoding::Mod3] {
            let folder = dir
                .path()
                .join(format!("{}-{}", puzzle.name(), encoding.bits()));
            let reports = build(puzzle, &folder, *ranks, &options(encoding), silent);
            let single_path = single(puzzle, dir.path(), encoding);
            let single = Table::open(&single_path).unwrap();
            let sharded = Table::open(&folder).unwrap();
            assert_eq!(sharded.histogram(), single.histogram());
            assert_eq!(
                sharded.header().payload_crc32,
                single.header().payload_crc32
            );
            assert!(
                sharded.depths().map()[..] == single.depths().map()[..],
                "{} {encoding:?}: entries differ",
                puzzle.name()
            );
            for report in reports {
                let report = report.unwrap();
                assert_eq!(report.histogram, single.histogram());
            }
            // Every shard is an ordinary table file covering its slice.
            let slices = antipode::engine::Slices::new(puzzle.index_count(), *ranks);
            for rank in 0..*ranks {
                let shard = folder.join(table::shards::shard_name(rank, *ranks));
                let header = table::read_header_of(&shard).unwrap();
                assert_eq!(header.index_range, slices.range(rank));
                assert!(header.complete);
            }
        }
    }
}

/// Copies a rank's shard (and the manifest) into `snapshot` when its level `at`
/// is reported finished, that is, made durable: the files a rank killed then leaves.
struct Snapshot {
    shard: PathBuf,
    folder: PathBuf,
    snapshot: PathBuf,
    at: u32,
    taken: Mutex<bool>,
}

impl Observer for Snapshot {
    fn level_finished(&self, stats: &LevelStats) {
        if stats.depth == self.at {
            let name = self.shard.file_name().unwrap();
            std::fs::copy(&self.shard, self.snapshot.join(name)).unwrap();
            let manifest = self.folder.join(table::shards::MANIFEST);
            std::fs::copy(&manifest, self.snapshot.join(table::shards::MANIFEST)).unwrap();
            *self.taken.lock().unwrap() = true;
        }
    }
}

/// Builds `puzzle` on two ranks, leaving in `snapshot` the files of a run killed
/// when rank r had made level `at[r]` durable.
fn killed_run<P: Puzzle>(dir: &Path, puzzle: &P, encoding: Encoding, at: [u32; 2]) -> PathBuf {
    let folder = dir.join("building");
    let snapshot = dir.join(format!("killed-{}-{}-{}", encoding.bits(), at[0], at[1]));
    std::fs::create_dir(&snapshot).unwrap();
    let _ = std::fs::remove_dir_all(&folder);
    let reports = build(puzzle, &folder, 2, &options(encoding), |rank| {
        Box::new(Snapshot {
            shard: folder.join(table::shards::shard_name(rank, 2)),
            folder: folder.clone(),
            snapshot: snapshot.clone(),
            at: at[rank],
            taken: Mutex::new(false),
        })
    });
    assert!(reports.iter().all(Result::is_ok));
    snapshot
}

/// Zeroes the copy of the payload the header of the unfinished table at `path` names.
fn wipe_named_copy(path: &Path) {
    use std::os::unix::fs::FileExt;
    let header = table::read_header_of(path).unwrap();
    assert!(!header.complete && !header.histogram.is_empty());
    let at = match header.checkpoint_slot {
        0 => 4096,
        _ => 4096 + header.payload_bytes.next_multiple_of(4096),
    };
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.write_all_at(&vec![0; header.payload_bytes as usize], at)
        .unwrap();
}

/// Asserts that both ranks' shards and the manifest in `folder` are byte for byte
/// the ones in `whole`.
fn assert_same_files(folder: &Path, whole: &Path, context: &str) {
    let files = [0, 1].map(|rank| table::shards::shard_name(rank, 2));
    for file in files
        .into_iter()
        .chain([table::shards::MANIFEST.to_string()])
    {
        let resumed = std::fs::read(folder.join(&file)).unwrap();
        assert!(
            resumed == std::fs::read(whole.join(&file)).unwrap(),
            "{context}: {file} differs"
        );
    }
}

#[test]
fn a_build_killed_part_way_resumes_to_the_same_shards() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = SlidingPuzzle::new(2, 5).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let whole = dir.path().join(format!("whole-{}", encoding.bits()));
        build(&puzzle, &whole, 2, &options(encoding), silent);
        // Both shards at level 20; and one shard a checkpoint ahead of the other (the
        // ranks died between the two halves of a checkpoint).
        for at in [[20, 20], [20, 21], [50, 49]] {
            let killed = killed_run(dir.path(), &puzzle, encoding, at);
            if at[0] != at[1] {
                // The shard ahead must go back to its other copy: the one its header
                // names is wiped, so that using it would give other entries.
                let ahead = if at[0] > at[1] { 0 } else { 1 };
                wipe_named_copy(&killed.join(table::shards::shard_name(ahead, 2)));
            }
            let reports = build(&puzzle, &killed, 2, &options(encoding), silent);
            for report in reports {
                assert_eq!(report.unwrap().gods_number, 55);
            }
            assert_same_files(&killed, &whole, &format!("{encoding:?} {at:?}"));
        }
    }
}

/// A run killed after any level, the goal level too, resumes to shards and a
/// manifest byte-identical to an uninterrupted run's (2x4: 37 levels).
#[test]
fn a_build_killed_after_every_level_resumes_to_the_same_shards() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = SlidingPuzzle::new(2, 4).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let whole = dir.path().join(format!("whole-{}", encoding.bits()));
        build(&puzzle, &whole, 2, &options(encoding), silent);
        for level in 0..36 {
            let killed = killed_run(dir.path(), &puzzle, encoding, [level, level]);
            for report in build(&puzzle, &killed, 2, &options(encoding), silent) {
                assert_eq!(report.unwrap().gods_number, 36);
            }
            let context = format!("{encoding:?}, killed after level {level}");
            assert_same_files(&killed, &whole, &context);
        }
    }
}

/// A table of classes in shards: every rank's report gives the positions behind the
/// classes as one process does, fresh or resumed after any level (the depths of the
/// classes smaller than the group are read back from the finished shards).
#[test]
fn sharded_classes_report_the_positions_per_depth() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = antipode::puzzles::lookup("2x2x2 --symmetry").unwrap();
    antipode::with_puzzle!(&puzzle, p => {
        let one = analysis::analyze(p, 0, &Control::default()).unwrap();
        let counts = one.classes.clone().unwrap();
        assert_eq!(counts.positions, 3_674_160);
        for encoding in [Encoding::Byte, Encoding::Mod3] {
            let fresh = dir.path().join(format!("fresh-{}", encoding.bits()));
            for report in build(p, &fresh, 3, &options(encoding), silent) {
                assert_eq!(report.unwrap().classes.as_ref(), Some(&counts), "{encoding:?}");
            }
            for level in [0, 5] {
                let killed = killed_run(dir.path(), p, encoding, [level, level]);
                for report in build(p, &killed, 2, &options(encoding), silent) {
                    let report = report.unwrap();
                    assert_eq!(report.classes.as_ref(), Some(&counts), "{encoding:?} {level}");
                }
            }
        }
    });
}

#[test]
fn a_build_killed_while_its_shards_were_finished_completes_them() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = SlidingPuzzle::new(2, 5).unwrap();
    for encoding in [Encoding::Byte, Encoding::Mod3] {
        let whole = dir.path().join(format!("whole-{}", encoding.bits()));
        build(&puzzle, &whole, 2, &options(encoding), silent);
        // Rank 0 had marked its shard complete, rank 1 had not yet: its shard holds
        // every level (55 is the last) but is not complete, nor is the manifest.
        let killed = killed_run(dir.path(), &puzzle, encoding, [55, 55]);
        let name = |rank| table::shards::shard_name(rank, 2);
        std::fs::copy(whole.join(name(0)), killed.join(name(0))).unwrap();
        assert!(
            !table::read_header_of(killed.join(name(1)))
                .unwrap()
                .complete
        );
        let modified = |rank| {
            let metadata = std::fs::metadata(killed.join(name(rank))).unwrap();
            let inode = std::os::unix::fs::MetadataExt::ino(&metadata);
            (metadata.modified().unwrap(), inode)
        };
        let complete_before = modified(0);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let reports = build(&puzzle, &killed, 2, &options(encoding), silent);
        // The complete shard took part from its payload, untouched.
        assert_eq!(modified(0), complete_before);
        for report in reports {
            let report = report.unwrap();
            assert_eq!((report.gods_number, report.reachable), (55, 1_814_400));
        }
        assert_same_files(&killed, &whole, &format!("{encoding:?}"));
    }
}

#[test]
fn a_partitioned_build_refuses_a_stop_token_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("stoppable");
    let puzzle = SlidingPuzzle::new(2, 3).unwrap();
    let stop = antipode::StopToken::new();
    let control = Control::new(&Silent, Some(&stop));
    let ranks = InProcessRanks::new(1);
    let refused = table::build_sharded(
        &puzzle,
        &folder,
        &options(Encoding::Byte),
        &ranks.rank(0),
        &control,
        1,
    );
    assert!(matches!(refused, Err(TableError::PartitionedStop)));
    assert!(!folder.exists());
}

#[test]
fn a_build_refuses_another_rank_count_a_complete_table_and_another_puzzle() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = SlidingPuzzle::new(2, 5).unwrap();
    let killed = killed_run(dir.path(), &puzzle, Encoding::Mod3, [10, 10]);
    let reports = build(&puzzle, &killed, 3, &options(Encoding::Mod3), silent);
    let messages: Vec<String> = reports
        .into_iter()
        .map(|r| r.unwrap_err().to_string())
        .collect();
    assert!(
        messages[0]
            .contains("this table is built by 2 ranks, not 3: resume it with `mpirun -np 2`"),
        "{messages:?}"
    );
    assert!(messages[1].contains("rank 0 failed"), "{messages:?}");
    // The same ranks finish it; then it is complete.
    build(&puzzle, &killed, 2, &options(Encoding::Mod3), silent);
    let again = build(&puzzle, &killed, 2, &options(Encoding::Mod3), silent);
    assert!(
        again[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("a complete table of sliding:2x5 is already there")
    );
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let other = build(
        &eight,
        &killed,
        2,
        &BuildOptions {
            force: false,
            ..options(Encoding::Mod3)
        },
        silent,
    );
    assert!(
        other[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("is not an unfinished table of this puzzle"),
        "{:?}",
        other[0].as_ref().err()
    );
    // --force starts over with another rank count.
    let forced = BuildOptions {
        force: true,
        ..options(Encoding::Mod3)
    };
    let reports = build(&eight, &killed, 3, &forced, silent);
    assert!(reports.iter().all(Result::is_ok));
    let names = crate::common::listing(&killed);
    assert!(!names.iter().any(|n| n.contains("-of-2")), "{names:?}");
    assert_eq!(Table::open(&killed).unwrap().histogram().len(), 32);
}

/// A complete 2-bit 2x5 table in three shards, and its single-process twin.
fn sharded_2x5(dir: &Path) -> (PathBuf, PathBuf) {
    let puzzle = SlidingPuzzle::new(2, 5).unwrap();
    let folder = dir.join("2x5");
    build(&puzzle, &folder, 3, &options(Encoding::Mod3), silent);
    (folder, single(&puzzle, dir, Encoding::Mod3))
}

#[test]
fn lookup_solve_verify_info_and_plot_read_a_manifest_like_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, single) = sharded_2x5(dir.path());
    let (folder, single) = (folder.to_str().unwrap(), single.to_str().unwrap());
    let manifest = format!("{folder}/{}", table::shards::MANIFEST);
    let antipode = "05321/94876";
    for table in [folder, &manifest] {
        let (sharded, _) = run_ok(&[
            "lookup",
            "sliding:2x5",
            "--table",
            table,
            antipode,
            "12345/67890",
        ]);
        let (whole, _) = run_ok(&[
            "lookup",
            "sliding:2x5",
            "--table",
            single,
            antipode,
            "12345/67890",
        ]);
        assert_eq!(sharded, whole);
        assert!(sharded.starts_with("55 "), "{sharded}");
    }
    let (solution, _) = run_ok(&["solve", "sliding:2x5", antipode, "--table", folder]);
    assert_eq!(solution.split_whitespace().count(), 55, "{solution}");
    let (report, _) = run_ok(&["verify", folder]);
    assert!(report.lines().all(|l| l.starts_with("ok  ")), "{report}");
    let (info, _) = run_ok(&["info", folder]);
    assert!(info.contains("shards          3 (manifest.toml"), "{info}");
    assert!(info.contains("state           complete"), "{info}");
    let (whole_info, _) = run_ok(&["info", single]);
    let crc = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("crc32"))
            .unwrap()
            .to_owned()
    };
    assert_eq!(crc(&info), crc(&whole_info));
    // The plain-Python reader answers from the shards as from the single file.
    let indices: Vec<String> = [0u64, 606_207, 606_208, 1_212_415, 1_212_416, 1_814_399]
        .iter()
        .map(u64::to_string)
        .collect();
    let (manifest_json, from_shards) =
        crate::common::python_read_table(Path::new(folder), &indices);
    let (_, from_single) = crate::common::python_read_table(Path::new(single), &indices);
    assert_eq!(from_shards, from_single);
    assert_eq!(manifest_json["ranks"], 3);
    let svg = dir.path().join("2x5.svg");
    run_ok(&["plot", folder, "-o", svg.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}

#[test]
fn a_bad_shard_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, _) = sharded_2x5(dir.path());
    let shard = |rank| folder.join(table::shards::shard_name(rank, 3));
    let lookup = |expected: &str| {
        assert_error(
            &[
                "lookup",
                "sliding:2x5",
                "--table",
                folder.to_str().unwrap(),
                "12345/67890",
            ],
            expected,
        )
    };
    let keep = std::fs::read(shard(1)).unwrap();
    // Missing.
    std::fs::remove_file(shard(1)).unwrap();
    lookup("shard-1-of-3.table: No such file");
    // `info` too: a complete table's missing shard is not a build in progress.
    assert_error(
        &["info", folder.to_str().unwrap()],
        "shard-1-of-3.table: No such file",
    );
    // Truncated.
    std::fs::write(shard(1), &keep[..keep.len() - 1000]).unwrap();
    lookup("shard-1-of-3.table: truncated or resized");
    // A byte of the payload changed: a lookup that reads that block fails with the
    // block's checksum (one in another shard still answers), info and verify too.
    let mut corrupted = keep.clone();
    corrupted[5000] ^= 0x10;
    std::fs::write(shard(1), &corrupted).unwrap();
    let board = SlidingPuzzle::new(2, 5).unwrap();
    let in_shard_1 = board.format_line(&board.unrank(700_000));
    assert_error(
        &[
            "lookup",
            "sliding:2x5",
            "--table",
            folder.to_str().unwrap(),
            &in_shard_1,
        ],
        "shard-1-of-3.table: the payload is corrupted: block 0",
    );
    assert_error(
        &["info", folder.to_str().unwrap()],
        "shard-1-of-3.table: the payload is corrupted",
    );
    assert_error(&["verify", folder.to_str().unwrap()], "verification failed");
    // Another puzzle's table under a shard's name.
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    let other = single(&eight, dir.path(), Encoding::Mod3);
    std::fs::copy(&other, shard(1)).unwrap();
    lookup("shard-1-of-3.table: this table is for 8puzzle");
    // Another shard of the same table in its place.
    std::fs::copy(shard(2), shard(1)).unwrap();
    lookup("shard-1-of-3.table: covers indices");
    std::fs::write(shard(1), &keep).unwrap();
    // A manifest that is not one.
    let manifest = folder.join(table::shards::MANIFEST);
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("ranks = 3", "ranks = 2")).unwrap();
    lookup("2 ranks but 3 shards listed");
    std::fs::write(&manifest, "puzzle = 1").unwrap();
    lookup("not a table manifest");
    std::fs::write(&manifest, &text).unwrap();
    run_ok(&[
        "lookup",
        "sliding:2x5",
        "--table",
        folder.to_str().unwrap(),
        "12345/67890",
    ]);
    assert_error(
        &[
            "lookup",
            "sliding:2x5",
            "--table",
            dir.path().to_str().unwrap(),
            "12345/67890",
        ],
        "manifest.toml: not found: a folder is a table only with the manifest",
    );
    let error = Table::open(folder.join("nothing-here")).err().unwrap();
    assert!(matches!(error, TableError::Io { .. }), "{error}");
}
