//! Peg solitaire boards from description files: the triangle's published fewest moves,
//! description errors, tables of the boards that can still be solved.

use crate::common::{assert_error, run_ok};

/// A start of the 15-hole triangle with hole `vacant` empty.
fn triangle_start(vacant: usize) -> String {
    (0..15)
        .map(|h| if h == vacant { '0' } else { '1' })
        .collect()
}

/// G. I. Bell's catalog of the 15-hole triangle's single-vacancy problems
/// (gibell.net/pegsolitaire/Catalogs/Triangular15; "Solving Triangular Peg
/// Solitaire", JIS 11, 2008): (vacated hole, finishing hole, fewest moves or
/// impossible). Bell's a1 = 0, b3 = 4, a4 = 6, d4 = 9, c5 = 12 here.
const BELL_TRIANGLE15: [(usize, usize, Option<u64>); 17] = [
    (0, 0, Some(10)),
    (4, 0, None),
    (6, 0, Some(10)),
    (12, 0, Some(9)),
    (0, 4, None),
    (4, 4, None),
    (6, 4, None),
    (12, 4, Some(10)),
    (0, 12, Some(10)),
    (4, 12, Some(11)),
    (6, 12, Some(10)),
    (12, 12, Some(9)),
    (0, 6, Some(11)),
    (4, 6, None),
    (6, 6, Some(11)),
    (9, 6, Some(11)),
    (12, 6, Some(10)),
];

#[test]
fn triangle15_fewest_moves_as_bell_publishes_them() {
    for (vacant, finish, moves) in BELL_TRIANGLE15 {
        let start = triangle_start(vacant);
        let goal = finish.to_string();
        let args = [
            "solve",
            "triangle15",
            start.as_str(),
            "--goal",
            goal.as_str(),
            "--format",
            "json",
        ];
        match moves {
            Some(moves) => {
                let (out, _) = run_ok(&args);
                let json: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert_eq!(json["length"], moves, "{vacant} -> {finish}");
            }
            None => assert_error(&args, "cannot be reached from this board"),
        }
    }
    // The shortest solution of any single-vacancy problem takes 9 moves (OEIS A127500).
    let (out, _) = run_ok(&["solve", "triangle15", &triangle_start(12), "--goal", "12"]);
    assert_eq!(out.lines().next().unwrap().matches('[').count(), 9);
}

#[test]
fn triangle15_by_jumps_with_its_symmetries() {
    let (out, _) = run_ok(&[
        "analyze",
        "triangle15",
        "--symmetry",
        "-q",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    // The apex start is fixed by the mirror through the apex.
    assert_eq!(json["classes"]["symmetries"], 2);
    let finishes: Vec<u64> = json["one_peg_finishes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_u64().unwrap())
        .collect();
    // Bell: from a1 one peg can finish at a1, a4, d4 (its mirror) and c5, not b3.
    for hole in [0, 6, 9, 12] {
        assert!(finishes.contains(&hole), "{finishes:?}");
    }
    assert!(!finishes.contains(&4));
    let by_jumps = json["classes"]["positions_by_depth"].as_array().unwrap();
    assert_eq!(by_jumps.len(), 14);
    assert_eq!(by_jumps[0], 1);
    // Two first jumps, into the apex, mirror images of each other: one class.
    assert_eq!(by_jumps[1], 2);
    assert_eq!(json["jumps_histogram"][1], 1);
    // The search ran over classes: the same boards as without --symmetry.
    let (plain, _) = run_ok(&["analyze", "triangle15", "-q", "--format", "json"]);
    let plain: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(
        plain["jumps_histogram"],
        json["classes"]["positions_by_depth"]
    );
    assert_eq!(plain["reachable"], json["classes"]["positions"]);
    assert_eq!(plain["one_peg_finishes"], json["one_peg_finishes"]);
    // From another start.
    let (out, _) = run_ok(&[
        "analyze",
        "triangle15",
        "--from",
        &triangle_start(4),
        "-q",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["start"], triangle_start(4));
    assert!(
        !json["one_peg_finishes"]
            .as_array()
            .unwrap()
            .contains(&4.into())
    );
}

#[test]
fn description_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"\"\"\nooo\noxo\n\"\"\"\n",
            "bad.toml:5: unknown character `x` in the board",
        ),
        (
            "name = \"x\"\nlattice = \"hex\"\nboard = \"ooo.\"\n",
            "bad.toml:2: unknown lattice `hex`",
        ),
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"   \"\n",
            "bad.toml:3: the board has no hole",
        ),
        (
            &format!(
                "name = \"x\"\nlattice = \"square\"\nboard = \"{}\"\n",
                "o".repeat(65)
            ),
            "bad.toml:3: the board has 65 holes; at most 64",
        ),
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"ooo.\"\ngoal = { hole = 4 }\n",
            "bad.toml:4: goal hole 4 is not a hole",
        ),
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"\"\"\n o\nooo\n\"\"\"\ngoal = { row = 0, col = 0 }\n",
            "bad.toml:7: goal place row 0, col 0 (from 0) is not a hole",
        ),
        (
            "name = \"x\"\nlattice = \"square\"\ndirections = [[1, 0]]\nboard = \"oo.\"\n",
            "bad.toml:3: give `lattice` or `directions`, not both",
        ),
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"...\"\n",
            "bad.toml:3: the board has no peg",
        ),
        // abs() of the smallest i64 is itself: the step wrapped to [0, 1].
        (
            "name = \"x\"\ndirections = [[-9223372036854775808, 1]]\nboard = \"oo.\"\n",
            "bad.toml:2: a direction is two steps",
        ),
        // An array was read as the fields of { hole = 1 }.
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"oo.\"\ngoal = [1]\n",
            "bad.toml:4: a goal is \"one-peg\", a drawing of the board, { hole = N }",
        ),
        (
            "name = \"x\"\nlattice = \"square\"\nboard = \"oo.\"\ngoal = { hole = 1, x = 2 }\n",
            "bad.toml:4: a goal is",
        ),
    ];
    for (text, expected) in cases {
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, text).unwrap();
        assert_error(&["analyze", path.to_str().unwrap()], expected);
    }
    // A board of its own: five holes in a row, solved by one peg's two jumps.
    let path = dir.path().join("row.toml");
    std::fs::write(
        &path,
        "name = \"row\"\nlattice = \"square\"\nboard = \"oo.o.\"\ngoal = \"one-peg\"\n",
    )
    .unwrap();
    let (out, _) = run_ok(&["solve", path.to_str().unwrap()]);
    assert_eq!(out, "[0,2,4]\n");
    assert_error(
        &["solve", path.to_str().unwrap(), "oo.o"],
        "wrong size: expected 5 holes",
    );
    assert_error(&["solve", "hoppers", "1111"], "expected 13 holes");
    // Thirteen zeros are Hoppers' empty board, not hole 0.
    assert_error(
        &["solve", "hoppers", "--goal", "0000000000000"],
        "a goal needs a peg",
    );
}

/// Searches larger than the process's address-space limit (`ulimit -v`) are refused
/// with one line before anything is allocated or written: they aborted ("memory
/// allocation failed") when only the machine's free memory was looked at.
#[test]
fn searches_beyond_the_address_space_limit_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("e.table");
    let limited = |args: &str| {
        let script = format!(
            "ulimit -v 300000; exec {} {args}",
            env!("CARGO_BIN_EXE_antipode")
        );
        std::process::Command::new("bash")
            .args(["-c", &script])
            .output()
            .unwrap()
    };
    for args in [
        "solve english33".to_string(),
        format!("analyze english33 --table {}", table.display()),
    ] {
        let output = limited(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args}: {stderr}");
        assert!(
            stderr.contains("GiB of bit sets; this process can have"),
            "{args}: {stderr}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_table_says_which_boards_can_still_be_solved() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("hoppers.table");
    let table = table.to_str().unwrap();
    let (out, _) = run_ok(&["analyze", "hoppers", "-q", "--table", table]);
    assert!(out.contains("boards can reach the goal"), "{out}");
    // The start can; after the first jump 1 over 3 to 5 it still can? Ask the table and
    // compare with the solver.
    let boards = [
        "1111110111111",
        "0000000000001",
        "0000001000000",
        "1001000000000",
    ];
    let mut args = vec!["lookup", "hoppers", "--table", table];
    args.extend(boards);
    let (out, _) = run_ok(&args);
    assert_eq!(
        out,
        "solvable 1111110111111\nunsolvable 0000000000001\nsolvable 0000001000000\n\
         solvable 1001000000000\n"
    );
    // solve takes the boards that can still be solved from the table: the same
    // solutions as when it finds them itself.
    let (own, _) = run_ok(&["solve", "hoppers", "--all", "--first", "0-6"]);
    let (with_table, _) = run_ok(&[
        "solve", "hoppers", "--all", "--first", "0-6", "--table", table,
    ]);
    assert_eq!(with_table, own);
    assert_eq!(own.lines().count(), 18);
    // Another goal is another table.
    assert_error(
        &[
            "lookup",
            "hoppers",
            "--goal",
            "one-peg",
            "--table",
            table,
            "1111110111111",
        ],
        "this table is for hoppers (goal: one peg in hole 6), not hoppers (goal: one peg)",
    );
    assert_error(
        &["analyze", "hoppers", "-q", "--table", table],
        "a complete table of hoppers is already there",
    );
    assert_error(
        &["solve", "hoppers", "--goal", "one-peg", "--table", table],
        "this table is for hoppers (goal: one peg in hole 6)",
    );
    let (out, _) = run_ok(&["info", table]);
    assert!(out.contains("kind            peg solitaire"), "{out}");
    let (out, _) = run_ok(&["verify", table]);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok")).count(),
        5,
        "{out}"
    );
}
