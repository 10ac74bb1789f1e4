//! Pattern databases: admissible and consistent against the exact depth tables, the
//! same optimal lengths and solution sets as Manhattan IDA*, Korf's positions.

use std::path::Path;
use std::process::Output;

use crate::common::{antipode_with_input, assert_error, python_read_table};

use antipode::Notation;
use antipode::driver::Control;
use antipode::driver::Interrupted;
use antipode::pdb::{BuildError, BuildSettings, Partition, PartitionEvent, PdbError};
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::sliding::BoardShape;
use antipode::search::SearchSpace;
use antipode::solvers::sliding::search::SlidingSpace;
use antipode::table::HEADER_BYTES;
use antipode::{Puzzle, Successor};

/// Korf's goal: the blank top-left.
const KORF_GOAL: &str = "0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15";

/// Runs the binary in `dir` (where its `tables/` folder is) with `stdin` as input,
/// and asserts that it succeeded.
fn antipode_in(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let output = antipode_with_input(Some(dir), args, stdin);
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The databases of partition `sizes` of `puzzle`'s tiles, built into `dir`.
fn built_partition(dir: &Path, puzzle: &SlidingPuzzle, sizes: &str) -> Partition {
    let board = BoardShape::of(puzzle);
    let patterns = Partition::split(board.rows(), board.cols(), board.goal(), sizes).unwrap();
    Partition::open_or_build(
        dir,
        &board,
        &patterns,
        &BuildSettings::default(),
        &mut |_| {},
    )
    .unwrap()
}

/// Checks every state of `puzzle`: the partition's bound is at most the exact
/// distance, and returns the largest difference between neighbours' bounds.
///
/// The databases keep, per placement, the fewest pattern moves over every place of
/// the blank; a real move keeps the blank's region, so a neighbour's bound can drop by
/// more than one (the bound is admissible, not consistent): IDA* needs only the first.
fn assert_admissible(puzzle: &SlidingPuzzle, sizes: &str) -> u32 {
    let dir = tempfile::tempdir().unwrap();
    let partition = built_partition(dir.path(), puzzle, sizes);
    let (depths, _) = antipode::analysis::search(puzzle, &Control::default()).unwrap();
    let mut next: Vec<Successor<_, _>> = Vec::new();
    let manhattan = SlidingSpace::new(puzzle, true);
    let mut largest_step = 0;
    for index in 0..puzzle.index_count() {
        let board = puzzle.unrank(index);
        let h = partition.estimate(board.cells());
        let distance = depths.depth(index).unwrap();
        assert!(h <= distance, "{sizes}: index {index}: {h} > {distance}");
        // Each pattern's entry is at least its tiles' Manhattan distance.
        let md = manhattan.bound(&manhattan.node(&board));
        assert!(h >= md, "{sizes}: index {index}: {h} below Manhattan {md}");
        next.clear();
        puzzle.successors(&board, &mut next);
        for s in &next {
            let h2 = partition.estimate(s.state.cells());
            largest_step = largest_step.max(h.abs_diff(h2));
        }
    }
    largest_step
}

#[test]
fn additive_databases_are_admissible_on_the_8_puzzle() {
    let eight = SlidingPuzzle::new(3, 3).unwrap();
    assert!(assert_admissible(&eight, "4-4") >= 1);
    assert_admissible(&eight, "2-3-3");
    // Korf's kind of goal, symmetric about the diagonal: the reflection counts too.
    let korf = eight.clone().with_goal(eight.parse("012/345/678").unwrap());
    assert_admissible(&korf, "4-4");
}

#[test]
fn additive_databases_are_admissible_on_2x5() {
    let board = SlidingPuzzle::new(2, 5).unwrap();
    assert_admissible(&board, "4-5");
    assert_admissible(&board, "3-3-3");
}

/// Korf's positions, in order.
fn korf100() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/korf100.txt"
    ))
    .expect("tests/data/korf100.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Lengths from a batch's text lines.
fn lengths(output: &Output) -> Vec<u32> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn korf_positions_with_databases_match_manhattan_ida() {
    let positions = korf100();
    assert_eq!(positions.len(), 100);
    let dir = tempfile::tempdir().unwrap();
    let all: String = positions.iter().map(|p| format!("{p}\n")).collect();
    let with_pdb = antipode_in(
        dir.path(),
        &["solve", "15puzzle", "--goal", KORF_GOAL, "--pdb", "5-5-5"],
        &all,
    );
    let pdb_lengths = lengths(&with_pdb);
    assert_eq!(pdb_lengths.len(), 100);
    // Korf (1985), Table 1: the first three optimal lengths, and 53.05 on average.
    assert_eq!(pdb_lengths[..3], [57, 55, 59]);
    assert_eq!(pdb_lengths.iter().sum::<u32>(), 5305);
    // The ten that the databases solve with the fewest nodes, solved again by plain
    // Manhattan IDA* (a second method): the same lengths.
    let nodes: Vec<u64> = String::from_utf8_lossy(&with_pdb.stdout)
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    let mut order: Vec<usize> = (0..100).collect();
    order.sort_by_key(|&i| nodes[i]);
    let easiest: Vec<usize> = order[..10].to_vec();
    let input: String = easiest
        .iter()
        .map(|&i| format!("{}\n", positions[i]))
        .collect();
    let manhattan = antipode_in(
        dir.path(),
        &["solve", "15puzzle", "--goal", KORF_GOAL],
        &input,
    );
    let expected: Vec<u32> = easiest.iter().map(|&i| pdb_lengths[i]).collect();
    assert_eq!(lengths(&manhattan), expected);
    // JSON lines.
    let json = antipode_in(
        dir.path(),
        &[
            "solve", "15puzzle", "--goal", KORF_GOAL, "--pdb", "5-5-5", "--format", "json",
        ],
        &input,
    );
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&json.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["length"], expected[0]);
    assert!(first["nodes"].as_u64().unwrap() > 0);
}

/// Every optimal solution, sorted, and the length.
fn all_solutions(dir: &Path, args: &[&str]) -> (u64, Vec<String>) {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--all", "--format", "json"]);
    let output = antipode_in(dir, &all, "");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut list: Vec<String> = json["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.to_string())
        .collect();
    list.sort();
    (json["length"].as_u64().unwrap(), list)
}

/// `verify` passes on a database as built, and fails on one whose entry was changed
/// under a checksum made to match.
fn assert_database_verifies(dir: &Path, file: &Path) {
    let path = file.to_str().unwrap();
    let output = antipode_in(dir, &["verify", path], "");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}");
    assert_eq!(
        report.lines().filter(|l| l.starts_with("ok  ")).count(),
        7,
        "{report}"
    );
    let mut bytes = std::fs::read(file).unwrap();
    let payload = HEADER_BYTES..bytes.len();
    let middle = payload.start + payload.len() / 2;
    bytes[middle] = if bytes[middle] == 0x11 { 0x22 } else { 0x11 };
    let mut header = antipode::table::read_header_of(file).unwrap();
    header.payload_crc32 = antipode::table::payload_crc32(&bytes[payload]);
    bytes[..HEADER_BYTES].copy_from_slice(&header.encode());
    let damaged = dir.join("damaged.table");
    std::fs::write(&damaged, &bytes).unwrap();
    let output = antipode_with_input(Some(dir), &["verify", damaged.to_str().unwrap()], "");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{report}");
    assert!(report.contains("FAIL placements per distance"), "{report}");
}

#[test]
fn every_optimal_solution_is_found_with_databases_too() {
    let dir = tempfile::tempdir().unwrap();
    // The 8-puzzle's farthest position: 40 optimal solutions of 31 moves (seed 000).
    let eight = ["solve", "8puzzle", "867254301"];
    let (length, manhattan) = all_solutions(dir.path(), &eight);
    assert_eq!((length, manhattan.len()), (31, 40));
    for sizes in ["4-4", "2-3-3"] {
        let with_pdb = all_solutions(dir.path(), &[&eight[..], &["--pdb", sizes]].concat());
        assert_eq!(with_pdb, (31, manhattan.clone()), "{sizes}");
    }
    // `info` says what a database file holds, `verify` checks every entry, `lookup`
    // refuses it.
    let file = std::fs::read_dir(dir.path().join("tables"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("8puzzle-pdb-1.2.3.4-"))
        .expect("the 4-4 database of tiles 1-4");
    let info = antipode_in(dir.path(), &["info", file.to_str().unwrap()], "");
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("pattern database of tiles 1,2,3,4"), "{info}");
    assert!(info.contains("covers          the whole table"), "{info}");
    assert!(info.contains("indices         3,024"), "{info}");
    assert_database_verifies(dir.path(), &file);
    assert_error(
        &[
            "lookup",
            "8puzzle",
            "--table",
            file.to_str().unwrap(),
            "123456780",
        ],
        "is a pattern database",
    );
    // A 3x4 position with two optimal solutions.
    let eleven = ["solve", "11puzzle", "6 1 3 4/9 5 2 7/10 11 0 8"];
    let (length, manhattan) = all_solutions(dir.path(), &eleven);
    assert_eq!((length, manhattan.len()), (19, 2));
    for sizes in ["5-6", "3-4-4"] {
        let with_pdb = all_solutions(dir.path(), &[&eleven[..], &["--pdb", sizes]].concat());
        assert_eq!(with_pdb, (19, manhattan.clone()), "{sizes}");
    }
}

/// The 24-puzzle, too large for a full table, has pattern databases: here a small
/// one with Korf's goal (blank top-left), whose text the header holds cut short.
#[test]
fn the_24_puzzle_has_databases() {
    let dir = tempfile::tempdir().unwrap();
    let korf = "0 1 2 3 4/5 6 7 8 9/10 11 12 13 14/15 16 17 18 19/20 21 22 23 24";
    let output = antipode_in(
        dir.path(),
        &[
            "pdb",
            "24puzzle",
            "--goal",
            korf,
            "--pattern",
            "1,2,5",
            "-q",
        ],
        "",
    );
    let text = String::from_utf8_lossy(&output.stdout);
    // 25 * 24 * 23 placements.
    assert!(
        text.contains("tiles 1,2,5") && text.contains("13,800 placements"),
        "{text}"
    );
    let file = std::fs::read_dir(dir.path().join("tables"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("24puzzle-pdb-1.2.5-"))
        .expect("the database of tiles 1, 2 and 5");
    let path = file.to_str().unwrap();
    assert_error(&["verify", path], "give the goal");
    let output = antipode_in(dir.path(), &["verify", path, "--goal", korf], "");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.lines().all(|l| l.starts_with("ok  ")), "{report}");
    assert_error(&["analyze", "24puzzle"], "at most 16 are supported");
    assert_error(&["pdb", "sliding:6x6", "--partition", "35"], "at most 32");
}

/// Every 24-puzzle position within `radius` moves of the usual goal (blank last), with
/// its exact distance: a plain breadth-first search, the second method the database
/// search is checked against on a board too large for a table.
fn ball_of_24_puzzle(radius: u32) -> Vec<([u8; 25], u32)> {
    let goal: [u8; 25] = std::array::from_fn(|cell| ((cell + 1) % 25) as u8);
    let mut seen = std::collections::HashSet::from([goal]);
    let mut ball = vec![(goal, 0)];
    let mut frontier = vec![goal];
    for depth in 1..=radius {
        let mut next = Vec::new();
        for board in &frontier {
            let blank = board.iter().position(|&t| t == 0).unwrap();
            let (row, col) = (blank / 5, blank % 5);
            let around = [
                (row > 0).then(|| blank - 5),
                (row < 4).then(|| blank + 5),
                (col > 0).then(|| blank - 1),
                (col < 4).then(|| blank + 1),
            ];
            for from in around.into_iter().flatten() {
                let mut child = *board;
                child.swap(blank, from);
                if seen.insert(child) {
                    next.push(child);
                    ball.push((child, depth));
                }
            }
        }
        frontier = next;
    }
    ball
}

/// A 24-puzzle position written as the command line reads it.
fn line_of_24_puzzle(cells: &[u8]) -> String {
    cells
        .chunks(5)
        .map(|row| row.iter().map(u8::to_string).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("/")
}

/// Published lengths of the 24-puzzle, solved with the 4-4-4-4-4-4 databases.
#[test]
fn the_24_puzzle_matches_published_lengths() {
    let line = line_of_24_puzzle;
    let dir = tempfile::tempdir().unwrap();
    // Published lengths: the 24-puzzle examples of the `puzzle` test of the Nit
    // language (nitlang/nit, tests/sav/puzzle.res), "easy (55)" to "harder (80)",
    // written there in letters (a-x the tiles 1-24, `.` the blank).
    let published = [
        ("giabcjekmdhrtflqsownpuv.x", 55),
        ("giabcjekmdrtwulhs.vnqofpx", 75),
        ("giabcjekmdrtw.uhsvnlqofpx", 79),
        ("giabcjekmdrt.wuhsvnlqofpx", 80),
    ];
    let input: String = published
        .iter()
        .map(|(letters, _)| {
            let cells: Vec<u8> = letters
                .bytes()
                .map(|b| if b == b'.' { 0 } else { b - b'a' + 1 })
                .collect();
            line(&cells) + "\n"
        })
        .collect();
    let args = ["solve", "24puzzle", "--pdb", "4-4-4-4-4-4"];
    let output = antipode_in(dir.path(), &args, &input);
    let lengths: Vec<u32> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(lengths, [55, 75, 79, 80]);
}

/// The 24-puzzle, too large for a full table, is solved with databases: the lengths
/// found with two partitions equal the exact distances of a breadth-first search, and
/// each solution, played from its position, reaches the goal in that many moves.
#[test]
fn the_24_puzzle_is_solved_with_databases() {
    let ball = ball_of_24_puzzle(16);
    assert_eq!(ball.len(), 1_103_683, "positions within 16 moves");
    // 40 positions spread over the ball, the last at the largest distance.
    let picked: Vec<&([u8; 25], u32)> = ball.iter().step_by(ball.len() / 39).collect();
    assert_eq!(picked.last().unwrap().1, 16);
    let line = line_of_24_puzzle;
    let input: String = picked.iter().map(|(cells, _)| line(cells) + "\n").collect();
    let dir = tempfile::tempdir().unwrap();
    for sizes in ["4-4-4-4-4-4", "3-3-3-3-3-3-3-3"] {
        let args = ["solve", "24puzzle", "--pdb", sizes, "--format", "json"];
        let output = antipode_in(dir.path(), &args, &input);
        let text = String::from_utf8_lossy(&output.stdout);
        let lengths: Vec<u32> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["length"]
                    .as_u64()
                    .unwrap() as u32
            })
            .collect();
        let exact: Vec<u32> = picked.iter().map(|(_, d)| *d).collect();
        assert_eq!(lengths, exact, "{sizes}");
    }
    // One solution in full, replayed.
    let (start, distance) = picked[picked.len() - 1];
    let args = [
        "solve",
        "24puzzle",
        "--pdb",
        "4-4-4-4-4-4",
        "--format",
        "json",
    ];
    let output = antipode_in(dir.path(), &[&args[..], &[&line(start)]].concat(), "");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let moves = json["solutions"][0].as_array().unwrap();
    assert_eq!(moves.len() as u32, *distance);
    let mut board = *start;
    for tile in moves {
        let tile: u8 = tile.as_str().unwrap().parse().unwrap();
        let (blank, from) = (
            board.iter().position(|&t| t == 0).unwrap(),
            board.iter().position(|&t| t == tile).unwrap(),
        );
        let adjacent =
            (blank / 5 == from / 5 && blank.abs_diff(from) == 1) || blank.abs_diff(from) == 5;
        assert!(adjacent, "tile {tile} is not next to the blank");
        board.swap(blank, from);
    }
    assert_eq!(board, ball[0].0, "the solution ends on the goal");
    // Boards drawn, positions that cannot reach the goal, positions of another size.
    let boards = antipode_in(
        dir.path(),
        &[&args[..4], &[&line(start), "--boards"]].concat(),
        "",
    );
    let text = String::from_utf8_lossy(&boards.stdout);
    assert!(text.contains(&format!("{distance} move ")), "{text}");
    assert!(text.contains(" 1  2  3  4  5\n"), "{text}");
    let mut swapped = ball[0].0;
    swapped.swap(0, 1);
    assert_error(
        &[
            "solve",
            "24puzzle",
            "--pdb",
            "3-3-3-3-3-3-3-3",
            &line(&swapped),
        ],
        "wrong parity",
    );
    assert_error(
        &[
            "solve",
            "24puzzle",
            "--pdb",
            "3-3-3-3-3-3-3-3",
            "1 2 3/4 5 6/7 8 0",
        ],
        "wrong size",
    );
}

/// A build stopped part-way (as Ctrl-C stops it) leaves a checkpoint and no database;
/// the same command run again resumes from it, and the database is byte-identical to
/// an uninterrupted build's.
#[test]
fn an_interrupted_database_build_resumes() {
    let (stopped, whole) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let board = BoardShape::new(4, 4).unwrap();
    let patterns = vec![vec![1, 2, 3, 5, 6]];
    let stop = antipode::StopToken::new();
    let settings = BuildSettings {
        stop: Some(&stop),
        ..BuildSettings::default()
    };
    let tables = stopped.path().join("tables");
    let result = Partition::open_or_build(&tables, &board, &patterns, &settings, &mut |event| {
        if let PartitionEvent::Level { depth: 12, .. } = event {
            stop.stop();
        }
    });
    assert!(
        matches!(
            result,
            Err(PdbError::Build {
                cause: BuildError::Interrupted(Interrupted { ref levels, .. }),
                ..
            }) if levels.len() == 13
        ),
        "{:?}",
        result.err()
    );
    let left = crate::common::listing(&tables);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].ends_with(".table.checkpoint"), "{left:?}");
    let args = ["pdb", "15puzzle", "--pattern", "1,2,3,5,6"];
    let resumed = antipode_in(stopped.path(), &args, "");
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(stderr.contains("resuming from"), "{stderr}");
    assert!(stderr.contains("distances up to 12 done"), "{stderr}");
    antipode_in(whole.path(), &args, "");
    let built = crate::common::listing(&tables);
    assert_eq!(built, crate::common::listing(&whole.path().join("tables")));
    assert!(
        built.len() == 1 && built[0].ends_with(".table"),
        "{built:?}"
    );
    assert!(
        std::fs::read(tables.join(&built[0])).unwrap()
            == std::fs::read(whole.path().join("tables").join(&built[0])).unwrap(),
        "the resumed database differs"
    );
}

#[test]
fn bad_database_requests_are_refused() {
    assert_error(&["pdb", "8puzzle", "--partition", "3-3"], "add up to 6");
    assert_error(&["pdb", "8puzzle", "--partition", "4-x"], "sizes such as");
    assert_error(&["pdb", "goat", "--partition", "4-4"], "sliding boards");
    assert_error(&["pdb", "8puzzle", "--pattern", "1,1"], "twice");
    assert_error(&["pdb", "8puzzle", "--pattern", "1,9"], "no tile 9");
    assert_error(&["pdb", "8puzzle"], "--partition");
    // 16!/4! placements: far more memory than any machine here has; refused before
    // anything is allocated or written.
    assert_error(
        &[
            "pdb",
            "15puzzle",
            "--pattern",
            "1,2,3,4,5,6,7,8,9,10,11,12",
            "--dir",
            "/nonexistent/x",
        ],
        "of memory",
    );
    assert_error(
        &[
            "solve",
            "8puzzle",
            "--pdb",
            "4-4",
            "--table",
            "t.table",
            "123456780",
        ],
        "one of them",
    );
    assert_error(&["solve", "goat", "--pdb", "7-8"], "sliding boards");
    assert_error(
        &["solve", "8puzzle", "--pdb", "4-4", "687254301"],
        "wrong parity",
    );
}

/// The stdlib-only Python reader in `scripts/` reads pattern databases too: every
/// placement's distance, from the 4-bit entries over the Manhattan distance of the
/// 2x5 board's databases, and the 8-bit and plain 4-bit ones of the 3x3 board's 7-1
/// partition.
#[test]
fn python_reads_pattern_databases() {
    for (puzzle, sizes) in [
        (SlidingPuzzle::new(2, 5).unwrap(), "4-5"),
        (SlidingPuzzle::new(3, 3).unwrap(), "7-1"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let partition = built_partition(dir.path(), &puzzle, sizes);
        let mut unreached = 0;
        for db in partition.databases() {
            let placements = db.pattern().placements();
            // At most about 3,000 ranks on one command line, spread over the range.
            let step = placements.count() / 3000 + 1;
            let ranks: Vec<u64> = (0..placements.count()).step_by(step as usize).collect();
            let arguments: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
            let (header, lines) = python_read_table(db.path(), &arguments);
            assert_eq!(header["kind"], 1);
            assert_eq!(
                header["tiles"].as_array().unwrap().len(),
                db.pattern().tiles().len()
            );
            let mut places = vec![0u8; db.pattern().tiles().len()];
            assert_eq!(lines.len(), ranks.len());
            for (&rank, line) in ranks.iter().zip(lines) {
                placements.unrank(rank, &mut places);
                let value = line.split_once(' ').unwrap().1;
                if value == "-" {
                    // Leaving out only the blank and one tile fixes the parity: half
                    // the placements are never reached (entry 0).
                    let left_out = puzzle.rows() * puzzle.cols() - places.len();
                    assert_eq!(left_out, 2, "{sizes}: rank {rank} unreached");
                    unreached += 1;
                    continue;
                }
                assert_eq!(
                    value.parse::<u32>().unwrap(),
                    db.distance(&places),
                    "{sizes}: rank {rank}"
                );
            }
        }
        // Only the 7-tile pattern of the 3x3 board leaves out a single tile.
        assert_eq!(
            unreached > 0,
            sizes == "7-1",
            "{sizes}: {unreached} unreached"
        );
    }
}

/// A batch is solved several positions at once, but printed in input order; a
/// position that fails ends it there: the lines before it, one error line, exit 1,
/// and no line of the positions after it.
#[test]
fn a_batch_prints_in_order_and_stops_at_the_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    // 8 and 31 moves, then one that takes 31 moves again.
    let positions = "1 2 3/4 5 6/7 8 0\n8 6 7/2 5 4/3 0 1\n6 4 7/8 5 0/3 2 1\n";
    let solve = ["solve", "8puzzle", "--pdb", "4-4", "--threads", "2"];
    let whole = antipode_in(dir.path(), &solve, positions);
    let first = lengths(&whole)[0];
    assert_eq!(lengths(&whole), [first, 31, 31]);
    let mut limited = solve.to_vec();
    limited.extend(["--max-length", "30"]);
    let cut = antipode_with_input(Some(dir.path()), &limited, positions);
    assert_eq!(cut.status.code(), Some(1));
    assert_eq!(lengths(&cut), [first]);
    let stderr = String::from_utf8_lossy(&cut.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("antipode: error: "), "{stderr}");
}
