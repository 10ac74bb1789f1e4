//! Goal sets of twisty puzzles (`--goal`, `antipode.goals`, `.tws` `Goal` blocks): the
//! distance to a set is the least distance to its patterns; the 3x3x3's cross and
//! cross with a pair; IDA* to a projection's goal; goal sets under `--symmetry`; bad
//! goals refused in one line.

use antipode::analysis::analyze;
use antipode::driver::Control;
use antipode::puzzles::kpuzzle::KPuzzle;
use antipode::puzzles::kpuzzle::library::{Twisty, open, open_any};
use antipode::store::{ByteDepths, DepthRead};
use antipode::{Notation, Puzzle};

use crate::common::{assert_error, run_ok};

/// Every index's exact depth, from a search into bytes.
fn depths(puzzle: &KPuzzle) -> ByteDepths {
    let store = ByteDepths::anonymous(puzzle.index_count()).unwrap();
    antipode::engine::search(puzzle, &store, &Control::default()).unwrap();
    store
}

/// The 2x2x2's layers that do not hold its fixed corner (DLB), each solved.
const LAYERS: [&str; 3] = [
    "CORNERS: 0 1 2 3 ? ? ? ? / 0 0 0 0 ? ? ? ?",
    "CORNERS: 0 1 ? ? 4 ? ? 7 / 0 0 ? ? 0 ? ? 0",
    "CORNERS: 0 ? ? 3 4 5 ? ? / 0 ? ? 0 0 0 ? ?",
];

#[test]
fn the_distance_to_a_goal_set_is_the_least_over_its_patterns() {
    let set = open(&format!("2x2x2 --goal {}", LAYERS.join(" | "))).unwrap();
    // The three layers name seven corners: the whole 2x2x2 (DLB never moves).
    assert_eq!(set.index_count(), 3_674_160);
    // Each layer leaves 3! places and 3^2 twists to the others (the last twist
    // follows); the three share only the solved cube: 3 x 54 - 2.
    assert_eq!(set.goal_indices().len(), 160);
    let members: Vec<KPuzzle> = LAYERS
        .iter()
        .map(|layer| open(&format!("2x2x2 --goal {layer}")).unwrap())
        .collect();
    for member in &members {
        // Four corners tracked among seven places: 7·6·5·4 placements, 3^4 twists.
        assert_eq!(member.index_count(), 7 * 6 * 5 * 4 * 81);
        assert_eq!(member.goal_indices().len(), 1);
    }
    let (set_depths, member_depths): (ByteDepths, Vec<ByteDepths>) =
        (depths(&set), members.iter().map(depths).collect());
    let mut histogram = [0u64; 12];
    for index in 0..set.index_count() {
        let position = set.unrank(index);
        let depth = set_depths.value(index).expect("every position is reached");
        let least = members
            .iter()
            .zip(&member_depths)
            .map(|(member, d)| {
                let seen = member.project_pattern(&position);
                d.value(member.rank(&seen)).unwrap()
            })
            .min()
            .unwrap();
        assert_eq!(depth, least, "{}", set.format_line(&position));
        histogram[depth as usize] += 1;
    }
    let report = analyze(&set, 0, &Control::default()).unwrap();
    assert_eq!(report.histogram, histogram[..report.histogram.len()]);
    assert_eq!(report.histogram[0], 160);
    assert_eq!(report.gods_number, 8);
}

/// Each face's corners of the 3x3x3, solved (the moves' cycles: U 0-3, D 4-7, R 0 1 4
/// 7, L 2 3 5 6, F 0 3 4 5, B 1 2 6 7).
const CORNER_LAYERS: [&str; 6] = [
    "CORNERS: 0 1 2 3 ? ? ? ? / 0 0 0 0 ? ? ? ?",
    "CORNERS: ? ? ? ? 4 5 6 7 / ? ? ? ? 0 0 0 0",
    "CORNERS: 0 1 ? ? 4 ? ? 7 / 0 0 ? ? 0 ? ? 0",
    "CORNERS: ? ? 2 3 ? 5 6 ? / ? ? 0 0 ? 0 0 ?",
    "CORNERS: 0 ? ? 3 4 5 ? ? / 0 ? ? 0 0 0 ? ?",
    "CORNERS: ? 1 2 ? ? ? 6 7 / ? 0 0 ? ? ? 0 0",
];

/// A goal set under `--symmetry` keeps the symmetries that map it onto itself: any
/// face's corners solved, all 48; the U or the D face's, the 16 that keep the U-D axis.
/// Its classes' positions per depth are the plain search's, and Burnside's count is the
/// classes the search finds.
#[test]
fn goal_sets_under_symmetry_keep_the_symmetries_that_map_them_onto_themselves() {
    let any_face = CORNER_LAYERS.join(" | ");
    let up_or_down = CORNER_LAYERS[..2].join(" | ");
    for (goal, symmetries, gods_number) in [(any_face, 48, 7), (up_or_down, 16, 7)] {
        let plain = open(&format!("3x3x3-corners --goal {goal}")).unwrap();
        let Twisty::Classes(classes) =
            open_any(&format!("3x3x3-corners --goal {goal} --symmetry")).unwrap()
        else {
            panic!("no classes");
        };
        assert_eq!(classes.symmetry_count(), symmetries);
        let by_positions = analyze(&plain, 0, &Control::default()).unwrap();
        let by_classes = analyze(classes.as_ref(), 0, &Control::default()).unwrap();
        let counts = by_classes.classes.as_ref().unwrap();
        let expected: Vec<u128> = by_positions.histogram.iter().map(|&n| n as u128).collect();
        assert_eq!(counts.positions_by_depth, expected, "{goal}");
        assert_eq!(counts.burnside_classes, by_classes.reachable as u128);
        assert_eq!(
            (by_positions.gods_number, by_classes.gods_number),
            (gods_number, gods_number)
        );
        // The goal's classes hold the goal positions and no other.
        let goals = classes.goal_indices();
        assert_eq!(
            counts.positions_by_depth[0],
            by_positions.histogram[0] as u128
        );
        for &index in &goals {
            assert!(classes.is_goal(&classes.unrank(index)));
        }
    }
}

/// The cross with the front-right pair (`3x3x3 --goal cross-pair`): positions per
/// depth, 72,990,720 in all (8·3 corner places and twists, 12·11·10·9·8 edge places,
/// 2^5 flips). The average, 7.976 moves, and the worst case, 10, are those Johannes
/// Laire (Johannes91) published for the colour-fixed XCross on speedsolving.com
/// ("2x2x2, X-cross and 3x2x2 move count?", May 2009).
const XCROSS: [u64; 11] = [
    1, 15, 172, 1_950, 21_535, 220_368, 1_989_591, 13_431_990, 40_963_892, 16_325_184, 36_022,
];

#[test]
fn the_cross_and_the_cross_with_a_pair() {
    let cross = open("3x3x3 --goal cross").unwrap();
    let a = analyze(&cross, 0, &Control::default()).unwrap();
    let projection = analyze(
        &open("3x3x3 --orbits cross").unwrap(),
        0,
        &Control::default(),
    );
    assert_eq!(a.histogram, projection.unwrap().histogram);
    assert_eq!(a.gods_number, 8);
    let pair = open("3x3x3 --goal cross-pair").unwrap();
    assert_eq!(pair.index_count(), 72_990_720);
    let a = analyze(&pair, 0, &Control::default()).unwrap();
    assert_eq!(a.histogram, XCROSS);
    assert_eq!(a.histogram.iter().sum::<u64>(), 72_990_720);
    let moves: u64 = XCROSS.iter().enumerate().map(|(d, &n)| d as u64 * n).sum();
    assert_eq!(format!("{:.3}", moves as f64 / 72_990_720.0), "7.976");
    // The colour-neutral cross names all twelve edges: its space is the edges' whole
    // 980,995,276,800 positions, told by the census; a table of it does not fit here.
    let (census, _) = run_ok(&[
        "analyze",
        "3x3x3",
        "--goal",
        "colour-neutral-cross",
        "--count",
    ]);
    assert!(census.contains("980,995,276,800"), "{census}");
}

#[test]
fn the_colour_neutral_cross_is_the_nearest_of_six_crosses() {
    // Its table would be the edges' whole space; a search answers near positions.
    let neutral = open("3x3x3 --goal colour-neutral-cross").unwrap();
    assert_eq!(neutral.goal_patterns().unwrap().len(), 6);
    let crosses: Vec<(KPuzzle, ByteDepths)> = neutral
        .goal_patterns()
        .unwrap()
        .iter()
        .map(|pattern| {
            let text =
                antipode::puzzles::kpuzzle::definition::goal_text(neutral.kdefinition(), pattern);
            let cross = open(&format!("3x3x3 --goal {text}")).unwrap();
            assert_eq!(cross.index_count(), 190_080);
            let d = depths(&cross);
            (cross, d)
        })
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let faces = ["U", "D", "R", "L", "F", "B"];
    let mut depths_seen = [0u32; 6];
    for _ in 0..24 {
        let scramble: Vec<String> = (0..5)
            .map(|_| {
                format!(
                    "{}{}",
                    faces[(next() % 6) as usize],
                    ["", "2", "'"][(next() % 3) as usize]
                )
            })
            .collect();
        let scramble = scramble.join(" ");
        let position = neutral.parse(&scramble).unwrap();
        let least = crosses
            .iter()
            .map(|(cross, d)| {
                d.value(cross.rank(&cross.project_pattern(&position)))
                    .unwrap()
            })
            .min()
            .unwrap();
        let found =
            antipode::search::solve(&neutral, &position, antipode::search::Method::Ida, false, 8)
                .unwrap();
        assert_eq!(found.length, least, "{scramble}");
        depths_seen[least as usize] += 1;
    }
    // The sample is not all at one distance.
    assert!(
        depths_seen.iter().filter(|&&n| n > 0).count() >= 2,
        "{depths_seen:?}"
    );
}

#[test]
fn searches_stop_at_a_goal_whatever_the_blanks_show() {
    // The cross is 3 moves away (L' D' F2); a goal test that compared the twists of
    // the pieces the projection does not keep would wait for them (8 moves).
    for method in ["ida", "iddfs", "bibfs"] {
        let (out, _) = run_ok(&[
            "solve",
            "3x3x3 --orbits cross",
            "--method",
            method,
            "R U R' F2 D L",
        ]);
        assert_eq!(
            out.lines().next().unwrap().split(' ').count(),
            3,
            "{method}: {out}"
        );
    }
    // By search and by the goal set's table alike: the cross with a pair.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("xcross.table");
    let table = table.to_str().unwrap();
    run_ok(&[
        "analyze",
        "3x3x3",
        "--goal",
        "cross-pair",
        "--table",
        table,
        "-q",
    ]);
    let scramble = "R U R' F2 D L B2 U' F";
    let (by_table, _) = run_ok(&[
        "solve",
        "--table",
        table,
        "3x3x3 --goal cross-pair",
        scramble,
    ]);
    let (by_search, _) = run_ok(&["solve", "3x3x3", "--goal", "cross-pair", scramble]);
    assert_eq!(by_table.split_whitespace().count(), 7, "{by_table}");
    assert_eq!(
        by_search.lines().next().unwrap().split(' ').count(),
        7,
        "{by_search}"
    );
    let (distance, _) = run_ok(&[
        "lookup",
        "--table",
        table,
        "3x3x3 --goal cross-pair",
        scramble,
    ]);
    assert!(distance.starts_with("7 "), "{distance}");
}

/// A ring of four pieces that flip, turned by one move and flipped in pairs by another.
const RING: &str = "Name Ring\nSet P 4 2\nSolved\nP\n1 2 3 4\nEnd\n\
                    Move A\nP\n2 3 4 1\nEnd\nMove B\nP\n1 2 3 4\n1 1 0 0\nEnd\n";

#[test]
fn goal_sets_in_definition_files() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // Two `Goal` blocks of one name are one set: piece 1 home and unflipped, or piece
    // 2 home in either flip.
    let tws = write(
        "ring.tws",
        &format!(
            "{RING}Goal near\nP\n1 ? ? ?\n0 ? ? ?\nEnd\nGoal near\nP\n? 2 ? ?\n? ? ? ?\nEnd\n"
        ),
    );
    let (report, _) = run_ok(&["analyze", &tws, "--goal", "near", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    // Pieces 1 and 2 are tracked, the others blanks; several positions match.
    let plain = open(&format!("{tws} --goal near")).unwrap();
    assert_eq!(report["indices"], plain.index_count());
    assert_eq!(report["histogram"][0], plain.goal_indices().len());
    assert!(plain.goal_indices().len() > 1);
    // The same set in JSON, as `antipode.goals`.
    let json = write(
        "ring.kpuzzle.json",
        r#"{ "name": "ring",
  "orbits": [{ "orbitName": "P", "numPieces": 4, "numOrientations": 2 }],
  "defaultPattern": { "P": { "pieces": [0, 1, 2, 3], "orientation": [0, 0, 0, 0] } },
  "moves": { "A": { "P": { "permutation": [1, 2, 3, 0], "orientationDelta": [0, 0, 0, 0] } },
             "B": { "P": { "permutation": [0, 1, 2, 3], "orientationDelta": [1, 1, 0, 0] } } },
  "antipode": { "goals": { "near": ["P: 0 ? ? ? / 0 ? ? ?", "P: ? 1 ? ? / ? ? ? ?"] } } }"#,
    );
    let (again, _) = run_ok(&["analyze", &json, "--goal", "near", "--format", "json"]);
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again["histogram"], report["histogram"]);
    // Bad goals in files: the file and line (or key) named, in one line.
    let cases = [
        (
            "Goal near\nP\n1 1 ? ?\nEnd\n",
            "ring.tws: line 16: P: piece 0 is named 2 times but the orbit holds 1",
        ),
        (
            "Goal near\nP\n1 ? ?\nEnd\n",
            "ring.tws: line 18: 3 entries for a set of 4 pieces",
        ),
        (
            "Goal near\nQ\n1 ? ? ?\nEnd\n",
            "ring.tws: line 17: `Q` is not a set",
        ),
        (
            "Goal near\nP\n5 ? ? ?\nEnd\n",
            "ring.tws: line 18: `5` is not a piece of `P`",
        ),
        // One flip alone: every move flips two.
        (
            "Goal near\nP\n1 2 3 4\n1 0 0 0\nEnd\n",
            "ring.tws: line 16: the moves A, B do not reach this goal pattern",
        ),
    ];
    for (block, expected) in cases {
        let path = write("ring.tws", &format!("{RING}{block}"));
        assert_error(&["analyze", &path, "--goal", "near"], expected);
    }
    let bad_json = std::fs::read_to_string(&json)
        .unwrap()
        .replace(r#"["P: 0 ? ? ? / 0 ? ? ?", "P: ? 1 ? ? / ? ? ? ?"]"#, "[]");
    let path = write("bad.kpuzzle.json", &bad_json);
    assert_error(
        &["analyze", &path],
        "bad.kpuzzle.json: antipode.goals.near: an empty goal set",
    );
}

#[test]
fn bad_goals_are_refused_in_one_line() {
    let cross = "EDGES: ? ? ? ? 4 5 6 7 ? ? ? ? / ? ? ? ? 0 0 0 0 ? ? ? ?";
    let cases: [(&str, &str); 8] = [
        ("", "--goal: an empty goal set"),
        (
            "nope",
            "3x3x3 has no goal set `nope` (its goal sets: cross, cross-pair",
        ),
        (
            "EDGES: 0 0 ? ? 4 5 6 7 ? ? ? ? / ? ? ? ? 0 0 0 0 ? ? ? ?",
            "EDGES: piece 0 is named 2 times but the orbit holds 1: its wildcards have no piece to spare",
        ),
        (
            "EDGES: 1 0 2 3 4 5 6 7 8 9 10 11 / 0 0 0 0 0 0 0 0 0 0 0 0; \
             CORNERS: 0 1 2 3 4 5 6 7 / 0 0 0 0 0 0 0 0",
            "--goal: the moves U, D, R, L, F, B do not reach this goal pattern",
        ),
        (
            "EDGES: ? ? ? ? 4 5 6 7 ? ? ? ? / 0 ? ? ? 0 0 0 0 ? ? ? ?",
            "EDGES position 0 is a wildcard with an orientation",
        ),
        (
            "EDGES: ? ? ? ? ? ? ? ? ? ? ? ? / ? ? ? ? ? ? ? ? ? ? ? ?",
            "the goal names no piece",
        ),
        (
            "EDGES: 4 5 6 7",
            "--goal: EDGES: 4 pieces for an orbit of 12",
        ),
        ("FOO: 1", "no orbit `FOO` (orbits: EDGES, CORNERS)"),
    ];
    for (goal, expected) in cases {
        assert_error(&["analyze", "3x3x3", "--goal", goal], expected);
    }
    assert_error(
        &["analyze", "3x3x3", "--goal", &format!("{cross} |")],
        "--goal: pattern 2: an empty pattern",
    );
    assert_error(
        &[
            "analyze",
            "3x3x3-corners",
            "--symmetry",
            "--goal",
            "CORNERS: 0 ? ? ? ? ? ? ? / 0 ? ? ? ? ? ? ?",
        ],
        "--goal with --symmetry: symmetries need whole orbits: the projection keeps part of \
         CORNERS",
    );
    // A position no symmetry but the identity fixes: the set of it alone.
    let corners = open("3x3x3-corners").unwrap();
    let scrambled = corners.format_line(&corners.parse("R U F' D").unwrap());
    assert_error(
        &[
            "analyze",
            "3x3x3-corners",
            "--symmetry",
            "--goal",
            &scrambled,
        ],
        "--goal with --symmetry: no symmetry but the identity maps the goal set onto itself",
    );
    assert_error(
        &["analyze", "3x3x3", "--up-to-rotation", "--goal", "cross"],
        "--goal with --up-to-rotation: a goal set's rotations are not searched for",
    );
    assert_error(
        &[
            "solve", "3x3x3", "--goal", "cross", "--pdb", "corners", "R U",
        ],
        "--goal with pattern databases",
    );
    assert_error(
        &["analyze", "3x3x3", "--goal", "colour-neutral-cross"],
        "913.6 GiB",
    );
}
