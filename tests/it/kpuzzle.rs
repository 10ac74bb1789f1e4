//! Twisty puzzles from KPuzzle definitions: the published figures of the 2x2x2, the
//! Pyraminx, the Skewb and the 3x3x3's corners and edges; tables that verify; optimal
//! 3x3x3 solutions from pattern databases; bad definitions and positions refused.

use antipode::Puzzle;
use antipode::analysis::analyze;
use antipode::driver::Control;
use antipode::puzzles::kpuzzle::library::open;

use crate::common::{assert_error, run_ok};
use antipode::Notation;

/// The 2x2x2 in the half-turn metric, moves U, R, F (one corner fixed): positions by
/// distance (Jaap Scherphuis's puzzle pages, "Pocket Cube"; the count is 7! 3^6).
const CUBE2_HTM: [u64; 12] = [
    1, 9, 54, 321, 1_847, 9_992, 50_136, 227_536, 870_072, 1_887_748, 623_800, 2_644,
];

/// The same in the quarter-turn metric.
const CUBE2_QTM: [u64; 15] = [
    1, 6, 27, 120, 534, 2_256, 8_969, 33_058, 114_149, 360_508, 930_588, 1_350_852, 782_536,
    90_280, 276,
];

#[test]
fn cube2_histograms_in_both_metrics() {
    let cube = open("2x2x2").unwrap();
    assert_eq!(cube.index_count(), 3_674_160);
    assert_eq!(cube.group_order(), 3_674_160);
    let a = analyze(&cube, 0, &Control::default()).unwrap();
    assert_eq!(a.histogram, CUBE2_HTM);
    assert_eq!(a.gods_number, 11);
    assert_eq!(a.group_order, Some(3_674_160));
    let quarter = open("2x2x2 --metric quarter").unwrap();
    let a = analyze(&quarter, 0, &Control::default()).unwrap();
    assert_eq!(a.histogram, CUBE2_QTM);
    assert_eq!(a.gods_number, 14);
}

#[test]
fn pyraminx_and_skewb() {
    // Pyraminx without tips: 6!/2 edge permutations, 2^5 flips, 3^4 twists.
    let pyraminx = open("pyraminx").unwrap();
    assert_eq!(pyraminx.index_count(), 933_120);
    let a = analyze(&pyraminx, 0, &Control::default()).unwrap();
    assert_eq!((a.reachable, a.gods_number), (933_120, 11));
    // Skewb: orbit by orbit 28,343,520 arrangements hold the 3,149,280 states its
    // moves reach (Schreier-Sims); the stabiliser-chain ranking numbers exactly those.
    let skewb = open("skewb").unwrap();
    assert_eq!(skewb.group_order(), 3_149_280);
    assert!(skewb.chain_ranking().is_some());
    let a = analyze(&skewb, 0, &Control::default()).unwrap();
    assert_eq!((a.reachable, a.gods_number), (3_149_280, 11));
    assert_eq!(a.indices, a.reachable);
    assert_eq!(a.histogram[11], 90);
}

#[test]
fn cube3_corners_and_six_edges() {
    // Korf 1997: the corners take at most 11 moves, six edges at most 10.
    let corners = open("3x3x3-corners").unwrap();
    let a = analyze(&corners, 0, &Control::default()).unwrap();
    assert_eq!(
        (a.indices, a.reachable, a.gods_number),
        (88_179_840, 88_179_840, 11)
    );
    assert_eq!(a.histogram[11], 64_736);
    // The same states as the projection of the whole cube on its corners.
    let projection = open("3x3x3 --orbits corners").unwrap();
    assert_eq!(projection.index_count(), 88_179_840);
    let edges = open("3x3x3 --orbits EDGES:0-5").unwrap();
    let a = analyze(&edges, 0, &Control::default()).unwrap();
    assert_eq!(
        (a.indices, a.reachable, a.gods_number),
        (42_577_920, 42_577_920, 10)
    );
    // The cross (the four D edges, the definition's projection `cross`): 12·11·10·9
    // placements times 2^4 flips, God's number 8 in face turns.
    let cross = open("3x3x3 --orbits cross").unwrap();
    let a = analyze(&cross, 0, &Control::default()).unwrap();
    assert_eq!((a.reachable, a.gods_number), (11_880 * 16, 8));
    assert_eq!(
        a.histogram,
        [1, 15, 158, 1_394, 9_809, 46_381, 97_254, 34_966, 102]
    );
    // The whole cube: indices beyond 64 bits, the group order exact.
    let cube = open("3x3x3").unwrap();
    assert_eq!(cube.index_count_wide(), Some(43_252_003_274_489_856_000));
    assert_eq!(cube.group_order(), 43_252_003_274_489_856_000);
}

#[test]
fn identical_pieces_are_ranked_as_kinds() {
    // The 4x4x4's centres with U and D one colour and the rest another: the places
    // of the eight U/D centres among 24, every one reachable.
    let centres = open("4x4x4-centres").unwrap();
    assert_eq!(centres.index_count(), 735_471);
    let a = analyze(&centres, 0, &Control::default()).unwrap();
    assert_eq!(a.reachable, 735_471);
}

#[test]
fn tables_verify_and_answer_scrambles() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("cube2.table");
    let table = table.to_str().unwrap();
    let (report, _) = run_ok(&["analyze", "2x2x2", "--table", table, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["gods_number"], 11);
    assert_eq!(report["group_order"], 3_674_160);
    let (checks, _) = run_ok(&["verify", table]);
    assert!(checks.lines().all(|l| l.starts_with("ok")), "{checks}");
    let (answer, _) = run_ok(&["lookup", "2x2x2", "--table", table, "R U R' U'"]);
    assert!(answer.starts_with("4 CORNERS: "), "{answer}");
    // A scramble and its solution by descent give back the solved cube.
    let (solution, _) = run_ok(&["solve", "2x2x2", "--table", table, "R U2 F' R"]);
    let undo = format!("R U2 F' R {}", solution.trim());
    let (answer, _) = run_ok(&["lookup", "2x2x2", "--table", table, &undo]);
    assert!(answer.starts_with("0 "), "{undo}: {answer}");
    // The table of another metric is not this one's.
    assert_error(
        &[
            "lookup", "2x2x2", "--metric", "quarter", "--table", table, "R",
        ],
        "this table is for 2x2x2",
    );
}

#[test]
fn optimal_solutions_of_fourteen_move_scrambles() {
    // Solved with Korf's databases; every solution is checked by replaying it. The
    // lengths are those of twsearch (cubing/twsearch, its C++ optimal solver) on the
    // same scrambles.
    const LENGTHS: [usize; 10] = [14, 14, 13, 12, 14, 14, 14, 14, 14, 11];
    let scrambles: Vec<&str> = include_str!("../data/3x3x3-scrambles-14.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert_eq!(scrambles.len(), 10);
    let cube = open("3x3x3").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let databases = antipode::jobs::Projections::new(&cube, "corners,edges6a,edges6b")
        .dir(dir.path())
        .open()
        .unwrap();
    let job = antipode::jobs::SolveTwisty::new(&cube, databases).unwrap();
    for (scramble, length) in scrambles.iter().zip(LENGTHS) {
        let start = cube.parse(scramble).unwrap();
        let solution = job.solve(&start).unwrap();
        assert_eq!(solution.length(), length, "{scramble}");
        let replay = format!("{scramble} {}", solution.moves[0].join(" "));
        assert!(cube.is_goal(&cube.parse(&replay).unwrap()), "{replay}");
    }
}

#[test]
fn the_command_line_solves_with_databases() {
    let dir = tempfile::tempdir().unwrap();
    let (built, _) = run_ok(&[
        "pdb",
        "2x2x2",
        "--orbits",
        "CORNERS:0-3",
        "--dir",
        dir.path().to_str().unwrap(),
        "-q",
    ]);
    assert!(built.contains("2x2x2 --orbits CORNERS:0-3"), "{built}");
    // Four of the seven corners that U, R and F move: 7·6·5·4 places, 3^4 twists.
    assert!(built.contains("68,040 states"), "{built}");
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

const SWAP: &str = r#"{
  "name": "swap",
  "orbits": [{ "orbitName": "P", "numPieces": 3, "numOrientations": 2 }],
  "defaultPattern": { "P": { "pieces": [0, 1, 2], "orientation": [0, 0, 0] } },
  "moves": {
    "A": { "P": { "permutation": [1, 0, 2], "orientationDelta": [1, 1, 0] } },
    "B": { "P": { "permutation": [0, 2, 1], "orientationDelta": [0, 0, 0] } }
  },
  "derivedMoves": { "C": "A B" }
}"#;

#[test]
fn a_definition_of_ones_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "swap.kpuzzle.json", SWAP);
    let (report, _) = run_ok(&["analyze", &path, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    // 3! arrangements times 2^2 flips (every move keeps the flip sum even), of which
    // the moves reach 6: A flips the two pieces it swaps, so the flips follow the
    // places. The stabiliser-chain ranking numbers exactly those 6.
    assert_eq!(report["indices"], 6);
    assert_eq!(report["reachable"], 6);
    assert_eq!(report["group_order"], 6);
    let (solution, _) = run_ok(&["solve", &path, "A B"]);
    assert_eq!(solution.trim(), "B A");
    let (solution, _) = run_ok(&["solve", &path, "--moves", "C,B", "C"]);
    assert_eq!(solution.trim(), "C'");
}

#[test]
fn bad_definitions_name_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            SWAP.replace("[1, 0, 2]", "[1, 1, 2]"),
            "moves.A.P.permutation: [1, 1, 2] is not a permutation of 0..3",
        ),
        (
            SWAP.replace("[1, 1, 0]", "[1, 2, 0]"),
            "moves.A.P.orientationDelta[1]: 2 is out of range 0..2",
        ),
        (
            SWAP.replace("\"A B\"", "\"A D\""),
            "derivedMoves.C: unknown move `D` in `A D`",
        ),
        (
            SWAP.replace("[0, 2, 1], \"o", "[0, 2], \"o"),
            "moves.B.P.permutation: 2 entries for an orbit of 3 pieces",
        ),
        (
            SWAP.replace("\"P\": { \"perm", "\"Q\": { \"perm"),
            "moves.A.Q: no orbit is named `Q`",
        ),
        (SWAP.replacen('}', "", 1), "bad.kpuzzle.json: line"),
        // A projection naming a missing orbit: refused when the file opens (analyze
        // accepted it; only pdb --orbits looked).
        (
            SWAP.replace(
                "\"derivedMoves\"",
                "\"antipode\": { \"projections\": { \"half\": \"Q\" } }, \"derivedMoves\"",
            ),
            "antipode.projections.half: no orbit `Q` (orbits: P",
        ),
        // Orientations are summed in a byte: 199 + 199 would wrap.
        (
            SWAP.replace("\"numOrientations\": 2", "\"numOrientations\": 200")
                .replace("[1, 1, 0]", "[199, 199, 0]"),
            "orbits[0]: numOrientations 200 is out of range 1..=128",
        ),
    ];
    for (text, expected) in cases {
        let path = write(dir.path(), "bad.kpuzzle.json", &text);
        assert_error(&["analyze", &path], expected);
        assert_error(&["analyze", &path], "bad.kpuzzle.json: ");
    }
}

#[test]
fn bad_moves_and_positions_are_refused() {
    assert_error(
        &["analyze", "2x2x2", "--moves", "U,R,X"],
        "2x2x2 has no move `X`",
    );
    assert_error(&["solve", "2x2x2", "R Q"], "unknown move `Q`");
    assert_error(
        &["solve", "2x2x2", "L U"],
        "CORNERS position 6 is not as solved, and no move changes it",
    );
    assert_error(&["analyze", "3x3x3"], "more than a table can number");
    assert_error(
        &["pdb", "3x3x3", "--orbits", "WINGS"],
        "projection `WINGS`: no orbit `WINGS`",
    );
    // The same words under `solve --pdb`, which names projections by another flag.
    assert_error(
        &["solve", "3x3x3", "--pdb", "corners,WINGS", "R U"],
        "projection `WINGS`: no orbit",
    );
    assert_error(
        &["pdb", "3x3x3", "--orbits", "EDGES:9-14"],
        "`14` is not a piece of EDGES",
    );
    assert_error(
        &["analyze", "8puzzle", "--moves", "U"],
        "8puzzle is not a twisty puzzle: generators are for twisty puzzles",
    );
    assert_error(
        &["analyze", "goat", "--metric", "quarter", "--up-to-rotation"],
        "the half and quarter metrics and positions up to rotation are for twisty puzzles",
    );
}
