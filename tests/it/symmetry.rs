//! Symmetry classes of twisty puzzles (`--symmetry`): the published histograms
//! counted in positions from classes, Burnside's count of classes against a count by
//! brute force, the class index's invariants, tables of classes, and bad input.

use antipode::Puzzle;
use antipode::analysis::analyze;
use antipode::driver::Control;
use antipode::puzzles::kpuzzle::classes::KClasses;
use antipode::puzzles::kpuzzle::library::{Twisty, open, open_any};
use proptest::prelude::*;

use crate::common::{assert_error, run_ok};
use antipode::Notation;

/// The 3x3x3's corners in the half-turn metric, positions by distance (Korf 1997;
/// Jaap Scherphuis's "Pocket Cube" page, 8! 3^7 positions with all six faces).
const CORNERS: [u128; 12] = [
    1, 18, 243, 2_874, 28_000, 205_416, 1_168_516, 5_402_628, 20_776_176, 45_391_616, 15_139_616,
    64_736,
];

/// The puzzles the property tests draw positions of, opened once.
fn shared() -> &'static [KClasses] {
    static SHARED: std::sync::OnceLock<Vec<KClasses>> = std::sync::OnceLock::new();
    SHARED.get_or_init(|| {
        [
            "3x3x3-corners --symmetry",
            "pyraminx --symmetry",
            "2x2x2 --moves U,D,R,L,F,B --up-to-rotation --symmetry",
        ]
        .iter()
        .map(|name| classes(name))
        .collect()
    })
}

fn classes(name: &str) -> KClasses {
    match open_any(name).unwrap() {
        Twisty::Classes(c) => *c,
        Twisty::Plain(_) => panic!("{name}: no classes"),
    }
}

#[test]
fn cube3_corners_by_depth_with_and_without_symmetry() {
    let plain = analyze(&open("3x3x3-corners").unwrap(), 0, &Control::default()).unwrap();
    let as_u128: Vec<u128> = plain.histogram.iter().map(|&c| c as u128).collect();
    assert_eq!(as_u128, CORNERS);
    // The cube's 48 symmetries: 24 rotations and 24 mirrors.
    let corners = classes("3x3x3-corners --symmetry");
    assert_eq!(corners.symmetry_count(), 48);
    let a = analyze(&corners, 0, &Control::default()).unwrap();
    let c = a.classes.as_ref().expect("class counts");
    assert_eq!(c.positions_by_depth, CORNERS);
    assert_eq!(c.positions, 88_179_840);
    assert_eq!(c.positions_by_depth.iter().sum::<u128>(), 88_179_840);
    assert_eq!(c.antipode_positions, 64_736);
    assert_eq!(c.burnside_classes, a.reachable as u128);
    assert_eq!(a.gods_number, 11);
    // One slot per class and a little: at most a twentieth of the plain table.
    assert!(a.indices * 20 <= plain.indices, "{} slots", a.indices);
    let sizes: u64 = c.antipode_class_sizes.iter().sum();
    assert!(sizes > 0 && c.antipode_class_sizes.iter().all(|&s| 48 % s == 0));
}

/// Burnside by brute force: the average over the symmetries of the positions each
/// fixes, every position visited.
fn burnside_by_brute_force(name: &str) -> u128 {
    let plain = open(name).unwrap();
    let sym = classes(&format!("{name} --symmetry"));
    let g = sym.symmetry_count();
    let mut fixed = 0u128;
    for index in 0..plain.index_count() {
        let p = plain.unrank(index);
        fixed += (0..g).filter(|&s| sym.conjugate(&p, s) == p).count() as u128;
    }
    fixed / g as u128
}

#[test]
fn small_puzzles_count_the_same_positions_and_burnsides_classes() {
    for (name, symmetries, brute_force) in [
        // Those fixing the held corner: 3 rotations and 3 mirrors.
        ("2x2x2", 6, true),
        // The tetrahedron's 12 rotations and 12 mirrors.
        ("pyraminx", 24, true),
        ("skewb", 6, false),
    ] {
        let plain = analyze(&open(name).unwrap(), 0, &Control::default()).unwrap();
        let p = classes(&format!("{name} --symmetry"));
        assert_eq!(p.symmetry_count(), symmetries, "{name}");
        let a = analyze(&p, 0, &Control::default()).unwrap();
        let c = a.classes.as_ref().unwrap();
        let expected: Vec<u128> = plain.histogram.iter().map(|&n| n as u128).collect();
        assert_eq!(c.positions_by_depth, expected, "{name}");
        assert_eq!(c.burnside_classes, a.reachable as u128, "{name}");
        if brute_force {
            assert_eq!(burnside_by_brute_force(name), a.reachable as u128, "{name}");
        }
    }
}

#[test]
fn positions_up_to_rotation() {
    // All six faces of the 2x2x2 with a corner held home: the same space as U, R, F.
    let held = open("2x2x2 --moves U,D,R,L,F,B --up-to-rotation").unwrap();
    let a = analyze(&held, 0, &Control::default()).unwrap();
    let urf = analyze(&open("2x2x2").unwrap(), 0, &Control::default()).unwrap();
    assert_eq!(a.histogram, urf.histogram);
    // With the cube's 48 symmetries on top.
    let p = &shared()[2];
    assert_eq!(p.symmetry_count(), 48);
    let a = analyze(p, 0, &Control::default()).unwrap();
    let c = a.classes.unwrap();
    let expected: Vec<u128> = urf.histogram.iter().map(|&n| n as u128).collect();
    assert_eq!(c.positions_by_depth, expected);
    assert_eq!(c.burnside_classes, a.reachable as u128);
}

fn scramble(p: &KClasses, turns: &[usize]) -> antipode::puzzles::kpuzzle::definition::Pattern {
    let base = p.base();
    let mut pattern = base.goal().clone();
    for &t in turns {
        pattern = base.apply(&pattern, t % base.turns().len());
    }
    pattern
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every symmetry's conjugate has the class's index; the index's representative
    /// ranks to it; the class holds |group| / |stabiliser| positions, the distinct
    /// conjugates.
    #[test]
    fn conjugates_share_the_index(turns in proptest::collection::vec(0usize..64, 0..40)) {
        for p in shared() {
            let name = p.name();
            let x = scramble(p, &turns);
            let index = p.rank(&x);
            let mut distinct = std::collections::HashSet::new();
            for s in 0..p.symmetry_count() {
                let y = p.conjugate(&x, s);
                prop_assert_eq!(p.rank(&y), index, "{} symmetry {}", name, s);
                distinct.insert(y);
            }
            prop_assert_eq!(p.rank(&p.unrank(index)), index);
            prop_assert_eq!(distinct.len() as u64, p.class_size(&x));
            prop_assert_eq!(p.symmetry_count() as u64 % p.class_size(&x), 0);
        }
    }
}

#[test]
fn the_command_line_reports_classes_and_positions() {
    let (out, _) = run_ok(&["analyze", "pyraminx", "--symmetry", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["puzzle"], "pyraminx --symmetry");
    assert_eq!(json["classes"]["symmetries"], 24);
    assert_eq!(json["classes"]["positions"], 933_120);
    assert_eq!(json["classes"]["antipode_positions"], 32);
    assert_eq!(json["reachable"], json["classes"]["burnside_classes"]);
    let (text, _) = run_ok(&["analyze", "pyraminx", "--symmetry", "--show", "1"]);
    assert!(text.contains("symmetries      24"), "{text}");
    assert!(text.contains("positions       933,120"), "{text}");
    assert!(text.contains("(a class of "), "{text}");
}

#[test]
fn tables_of_classes_verify_and_answer() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("corners.table");
    let table = table.to_str().unwrap();
    run_ok(&[
        "analyze",
        "3x3x3-corners",
        "--symmetry",
        "--table",
        table,
        "-q",
    ]);
    let (out, _) = run_ok(&["verify", table]);
    assert!(out.contains("ok"), "{out}");
    // Two positions three moves away, each looked up through its class.
    let (out, _) = run_ok(&[
        "lookup",
        "--table",
        table,
        "3x3x3-corners --symmetry",
        "R U F'",
        "U R F'",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines.iter().all(|l| l.starts_with("3 ")), "{out}");
    let (out, _) = run_ok(&[
        "solve",
        "3x3x3-corners --symmetry",
        "R U2 F' L D2",
        "--table",
        table,
    ]);
    // Optimal by descent through the classes' table: five moves.
    assert_eq!(out.split_whitespace().count(), 5, "{out}");
}

#[test]
fn bad_symmetries_and_definitions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_error(
        &["analyze", "8puzzle", "--symmetry"],
        "8puzzle is not a twisty puzzle",
    );
    // A rotation that is no symmetry of the moves.
    let tws = dir.path().join("bad-rotation.tws");
    std::fs::write(
        &tws,
        "Name Tri\nSet P 4 1\nSolved\nP\n1 2 3 4\nEnd\nMove A\nP\n2 3 1 4\nEnd\n\
         Rotation X\nP\n1 2 4 3\nEnd\n",
    )
    .unwrap();
    let path = tws.to_str().unwrap();
    assert_error(
        &["analyze", path, "--symmetry"],
        "rotation `X` is not a symmetry",
    );
    // A block with a bad line names the file and the line.
    let tws = dir.path().join("bad-block.tws");
    std::fs::write(
        &tws,
        "Set P 3 1\nSolved\nP\n1 2 3\nEnd\nMove A\nP\n1 2\nEnd\n",
    )
    .unwrap();
    let path = tws.to_str().unwrap();
    assert_error(
        &["analyze", path],
        "line 8: 2 entries for a set of 3 pieces",
    );
    // One piece twisted by one move: no transformation maps the twist to its inverse
    // (twisting every piece alike commutes with the move), but the mirror does, which
    // turns every twist the other way.
    let tws = dir.path().join("twist.tws");
    std::fs::write(
        &tws,
        "Set P 2 3\nSolved\nP\n1 2\nEnd\nMove A\nP\n1 2\n1 0\nEnd\n",
    )
    .unwrap();
    let (out, _) = run_ok(&[
        "analyze",
        tws.to_str().unwrap(),
        "--symmetry",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["classes"]["symmetries"], 2, "{out}");
    assert_eq!(json["classes"]["positions"], 3, "{out}");
    assert_eq!(json["reachable"], 2, "{out}");
    // Two pieces swapped: the swap commutes with itself, and with no orientations a
    // mirror is no other action: no symmetry.
    let swap = dir.path().join("swap.tws");
    std::fs::write(
        &swap,
        "Set P 2 1\nSolved\nP\n1 2\nEnd\nMove A\nP\n2 1\nEnd\n",
    )
    .unwrap();
    assert_error(
        &["analyze", swap.to_str().unwrap(), "--symmetry"],
        "has no symmetry but the identity",
    );
}

/// `antipode.symmetries` in a KPuzzle definition names rotations in the form of moves:
/// the group they generate is the one `--symmetry` uses, and one that is no symmetry
/// is refused by name.
#[test]
fn a_definition_names_its_symmetries() {
    let shipped: serde_json::Value = serde_json::from_str(include_str!(
        "../../src/puzzles/kpuzzle/library/3x3x3-corners.kpuzzle.json"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let with = |name: &str, corners: serde_json::Value| {
        let mut definition = shipped.clone();
        definition["antipode"]["symmetries"] = serde_json::json!({ name: { "CORNERS": corners } });
        let path = dir.path().join(format!("{name}.kpuzzle.json"));
        std::fs::write(&path, definition.to_string()).unwrap();
        path.to_str().unwrap().to_string()
    };
    // y, the quarter turn of the whole cube about U and D (U D' on the corners): its
    // powers are 4 symmetries.
    let y = with(
        "y",
        serde_json::json!({ "permutation": [1, 2, 3, 0, 7, 4, 5, 6],
                            "orientationDelta": [0, 0, 0, 0, 0, 0, 0, 0] }),
    );
    let (out, _) = run_ok(&["analyze", &y, "--symmetry", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["classes"]["symmetries"], 4);
    let by_depth: Vec<u128> = json["classes"]["positions_by_depth"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u128)
        .collect();
    assert_eq!(by_depth, CORNERS);
    assert_eq!(json["reachable"], json["classes"]["burnside_classes"]);
    // U alone is a move, not a symmetry (conjugating R by it gives no move); a
    // malformed one is refused with its key.
    for (name, permutation, expected) in [
        (
            "u",
            [1, 2, 3, 0, 4, 5, 6, 7],
            "rotation `u` is not a symmetry of the puzzle",
        ),
        (
            "b",
            [1, 1, 3, 0, 4, 5, 6, 7],
            "antipode.symmetries.b.CORNERS.permutation",
        ),
    ] {
        let untwisted = [0u8; 8];
        let path = with(
            name,
            serde_json::json!({ "permutation": permutation, "orientationDelta": untwisted }),
        );
        assert_error(&["analyze", &path, "--symmetry"], expected);
    }
}

/// Each antipode drawn comes with moves that reach it from the goal: as many as God's
/// number, and they lead to a position of the antipode's class.
#[test]
fn antipodes_are_reached_from_the_goal_by_their_moves() {
    for (name, gods_number) in [("2x2x2 --symmetry", 11), ("pyraminx --symmetry", 11)] {
        let p = classes(name);
        let a = analyze(&p, 5, &Control::default()).unwrap();
        assert_eq!(a.gods_number, gods_number, "{name}");
        assert_eq!(a.antipode_moves.len(), a.antipodes.len().min(5), "{name}");
        for (moves, antipode) in a.antipode_moves.iter().zip(&a.antipodes) {
            assert_eq!(
                moves.split(' ').count(),
                gods_number as usize,
                "{name}: {moves}"
            );
            let reached = p.parse(moves).unwrap();
            assert_eq!(
                p.rank(&reached),
                p.rank(&p.parse(antipode).unwrap()),
                "{name}: {moves}"
            );
        }
    }
}

/// `analyze --count`: the census without a search, on the binary.
#[test]
fn census_counts_classes_without_a_search() {
    // The 3x3x3 up to its 48 symmetries: 901,083,404,981,813,616 (Jerry Bryan, 2003;
    // OEIS A005452), too many positions for any index here.
    let (out, seconds) = run_ok(&[
        "analyze",
        "3x3x3",
        "--symmetry",
        "--count",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["positions"], "43252003274489856000");
    assert_eq!(json["symmetries"], 48);
    assert_eq!(json["classes"], "901083404981813616");
    assert_eq!(json["classes_counted_by"], "orbits");
    assert!(json["indices"].is_null());
    assert!(
        json["no_index"].as_str().unwrap().contains("no split"),
        "{out}"
    );
    assert!(seconds < 30.0, "{seconds} s");
    // The corners: the classes the search numbers, and the index's slots. One orbit
    // too large to enumerate: its permutations ranked, within 1.2x of its classes (the
    // 3x3x3's edges; and with any face's cross as the goal, whose six patterns every
    // symmetry maps onto each other).
    let corners = [
        "positions       88,179,840",
        "classes         1,841,970 (Burnside; counted by orbits)",
        "indices         2,152,008 (1.168x the classes)",
        "table           2.1 MiB at 8 bits, 525.4 KiB at 2 bits",
    ];
    let edges = [
        "positions       980,995,276,800",
        "symmetries      48",
        "classes         20,437,847,376 (Burnside; counted by orbits)",
        "indices         20,451,262,464 (1.001x the classes)",
    ];
    for (name, lines) in [
        ("3x3x3-corners --symmetry", corners),
        ("3x3x3-edges --symmetry", edges),
        ("3x3x3 --goal colour-neutral-cross --symmetry", edges),
    ] {
        let (out, _) = run_ok(&["analyze", name, "--count"]);
        for line in lines {
            assert!(out.contains(line), "{line}\n{out}");
        }
    }
    // Up to rotation, counted from the class index: the search's classes.
    let name = "2x2x2 --moves U,D,R,L,F,B --up-to-rotation --symmetry";
    let (counted, _) = run_ok(&["analyze", name, "--count", "--format", "json"]);
    let (searched, _) = run_ok(&["analyze", name, "--format", "json"]);
    let counted: serde_json::Value = serde_json::from_str(&counted).unwrap();
    let searched: serde_json::Value = serde_json::from_str(&searched).unwrap();
    assert_eq!(counted["classes_counted_by"], "class index");
    assert_eq!(counted["classes"], searched["reachable"].to_string());
    // Other puzzles: their indices; peg solitaire has none.
    let (out, _) = run_ok(&["analyze", "goat", "--count"]);
    assert!(out.contains("indices         16,329,600"), "{out}");
    assert_error(&["analyze", "english33", "--count"], "searched by jumps");
    assert_error(
        &["analyze", "english33", "--symmetry", "--count"],
        "searched by jumps",
    );
    assert_error(
        &["analyze", "goat", "--symmetry", "--count"],
        "not a twisty puzzle",
    );
    assert_error(&["analyze", "goat", "--count", "--table"], "--table");
    // The whole 3x3x3 has no table; a CSV row for scripts.
    let (out, _) = run_ok(&["analyze", "3x3x3", "--count"]);
    assert!(
        out.contains("indices         none: more than 2^64"),
        "{out}"
    );
    let (out, _) = run_ok(&[
        "analyze",
        "pyraminx --symmetry",
        "--count",
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    let column = lines[0].split(',').position(|c| c == "positions").unwrap();
    assert_eq!(lines[1].split(',').nth(column), Some("933120"), "{out}");
}

/// Identical pieces under symmetry: a goal whose pieces look alike has the symmetries
/// that map it onto itself with its kinds relabelled. The 4x4x4's centres (two
/// colours, 735,471 patterns) by class count the plain search's positions per depth.
#[test]
fn identical_pieces_by_class_count_the_plain_positions() {
    let plain = analyze(&open("4x4x4-centres").unwrap(), 0, &Control::default()).unwrap();
    assert_eq!(plain.histogram.iter().sum::<u64>(), 735_471);
    let Twisty::Plain(centres) = open_any("4x4x4-centres --symmetry").unwrap() else {
        panic!("4x4x4-centres --symmetry: classes of patterns are a KPuzzle's indices")
    };
    let symmetries = centres.pattern_classes().unwrap().symmetry_count();
    let a = analyze(&*centres, 0, &Control::default()).unwrap();
    let c = a.classes.as_ref().expect("class counts");
    let positions: Vec<u128> = plain.histogram.iter().map(|&n| n as u128).collect();
    assert_eq!(c.positions_by_depth, positions);
    assert_eq!((a.gods_number, c.antipode_positions), (8, 1_328));
    assert_eq!(c.burnside_classes, a.reachable as u128);
    // A tight index: every slot a class (the classes numbered densely).
    assert_eq!(
        (a.indices, a.reachable, a.unused_slots),
        (23_715, 23_715, 0)
    );
    assert!(
        c.antipode_class_sizes
            .iter()
            .all(|&s| (symmetries as u64).is_multiple_of(s))
    );
    // From a position: the symmetries that fix it, the plain search's positions again.
    let (out, _) = run_ok(&[
        "analyze",
        "4x4x4-centres --symmetry",
        "--from",
        "U 2R",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (plain_out, _) = run_ok(&[
        "analyze",
        "4x4x4-centres",
        "--from",
        "U 2R",
        "--format",
        "json",
    ]);
    let plain_json: serde_json::Value = serde_json::from_str(&plain_out).unwrap();
    let by_depth: Vec<String> = json["classes"]["positions_by_depth"]
        .as_array()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    let plain_by_depth: Vec<String> = plain_json["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(by_depth, plain_by_depth, "{out}");
    assert!(json["classes"]["symmetries"].as_u64().unwrap() < symmetries as u64);
}

/// Corners of two kinds that twist (the 2x2x2 with the 3-colour cube's colours, all
/// six faces turning): the cube's rotations swap the kinds, and the classes still
/// count the plain search's positions.
#[test]
fn kinds_that_twist_and_swap_under_symmetry() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two-kinds.kpuzzle.json");
    let text = include_str!("../../src/puzzles/kpuzzle/library/2x2x2.kpuzzle.json")
        .replace("[0, 1, 2, 3, 4, 5, 6, 7]", "[0, 1, 0, 1, 1, 0, 1, 0]");
    std::fs::write(&path, text).unwrap();
    let name = format!("{} --moves U,D,R,L,F,B", path.display());
    let plain = analyze(&open(&name).unwrap(), 0, &Control::default()).unwrap();
    assert_eq!(plain.reachable, 70 * 3u64.pow(7));
    let Twisty::Plain(classes) = open_any(&format!("{name} --symmetry")).unwrap() else {
        panic!("classes of patterns ride on the plain ranking")
    };
    assert_eq!(classes.pattern_classes().unwrap().symmetry_count(), 48);
    let a = analyze(&*classes, 0, &Control::default()).unwrap();
    let c = a.classes.as_ref().unwrap();
    let positions: Vec<u128> = plain.histogram.iter().map(|&n| n as u128).collect();
    assert_eq!(c.positions_by_depth, positions);
    assert_eq!(c.burnside_classes, a.reachable as u128);
}

/// The 3-colour cube (opposite faces one colour): B. Norskog's census (2011),
/// 10,863,756,288,000 positions and 226,331,259,372 classes under the 48 symmetries,
/// from the binary in well under a minute; a rotation that splits a kind is refused.
#[test]
fn the_three_colour_cube_census_and_kinds_a_rotation_splits() {
    let (out, seconds) = run_ok(&[
        "analyze",
        "3x3x3-three-colour --symmetry",
        "--count",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["positions"], "10863756288000");
    assert_eq!(json["group_order"], "43252003274489856000");
    assert_eq!(json["symmetries"], 48);
    assert_eq!(json["classes"], "226331259372");
    assert!(seconds < 60.0, "{seconds} s");
    // twips #113: the positions of identical pieces are the patterns; a
    // projection's, those of the pieces it keeps.
    let (out, _) = run_ok(&["analyze", "4x4x4-centres", "--count"]);
    assert!(out.contains("positions       735,471\n"), "{out}");
    let (out, _) = run_ok(&["analyze", "3x3x3 --orbits CORNERS", "--count"]);
    assert!(out.contains("positions       88,179,840\n"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let ring = |goal: &str| {
        format!(
            "Name Ring\nSet P 4 1\nSolved\nP\n{goal}\nEnd\nMove A\nP\n2 1 3 4\nEnd\n\
             Move B\nP\n1 3 2 4\nEnd\nMove C\nP\n1 2 4 3\nEnd\nMove D\nP\n4 2 3 1\nEnd\n\
             Rotation turn\nP\n2 3 4 1\nEnd\n"
        )
    };
    let split = dir.path().join("split.tws");
    std::fs::write(&split, ring("1 1 2 2")).unwrap();
    assert_error(
        &["analyze", split.to_str().unwrap(), "--symmetry"],
        "split.tws: line 23: rotation `turn` is not a symmetry of the puzzle: it maps the \
         pieces of kind 0 onto two kinds",
    );
    // Alternate colours: the turn swaps them, a symmetry; 6 patterns in 3 classes.
    let swap = dir.path().join("swap.tws");
    std::fs::write(&swap, ring("1 2 1 2")).unwrap();
    let (out, _) = run_ok(&[
        "analyze",
        swap.to_str().unwrap(),
        "--symmetry",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["reachable"], 3, "{out}");
    assert_eq!(json["classes"]["positions"], 6, "{out}");
    // Up to rotation the named turn keeps the colours, whatever the goal's kinds:
    // two colours side by side or alternating, one move apart.
    let (out, _) = run_ok(&[
        "analyze",
        split.to_str().unwrap(),
        "--up-to-rotation",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["histogram"], serde_json::json!([1, 1]), "{out}");
    // Two rings of one shape (as the FTO's two orbits of triangles), each with its
    // four swaps of neighbours, and the rotation that turns both: positions up to
    // rotation are the classes of the rotations within orbits (one exchanging the
    // rings would put each ring's pieces where the moves never take them). 36
    // positions; up to rotation (36 + 4) / 4 = 10 by Burnside's count (a half turn
    // fixes the alternating arrangements, 2 per ring).
    let twin = dir.path().join("twin.tws");
    let mut text =
        String::from("Name Twin\nSet P 4 1\nSet Q 4 1\nSolved\nP\n1 1 2 2\nQ\n1 1 2 2\nEnd\n");
    let swaps = ["2 1 3 4", "1 3 2 4", "1 2 4 3", "4 2 3 1"];
    for (k, swap) in swaps.iter().enumerate() {
        let still = "1 2 3 4";
        text += &format!("Move P{k}\nP\n{swap}\nQ\n{still}\nEnd\n");
        text += &format!("Move Q{k}\nP\n{still}\nQ\n{swap}\nEnd\n");
    }
    text += "Rotation turn\nP\n2 3 4 1\nQ\n2 3 4 1\nEnd\n";
    std::fs::write(&twin, text).unwrap();
    let histogram = |options: &[&str]| {
        let mut args = vec!["analyze", twin.to_str().unwrap(), "--format", "json"];
        args.extend(options);
        let (out, _) = run_ok(&args);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["histogram"].clone()
    };
    assert_eq!(
        histogram(&["--up-to-rotation"]),
        serde_json::json!([1, 4, 5])
    );
    assert_eq!(histogram(&[]), serde_json::json!([1, 4, 10, 12, 9]));
}

/// Up to rotation a descent may end at a rotation of the goal: with depths mod 3 it
/// knows it is there (the goal's class is at distance 0), and the moves written for
/// each antipode reach its class from the goal itself.
#[test]
fn antipodes_up_to_rotation_from_a_two_bit_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("centres.table");
    let name = "4x4x4-centres --up-to-rotation";
    let (out, _) = run_ok(&[
        "analyze",
        name,
        "--bits",
        "2",
        "--table",
        table.to_str().unwrap(),
        "--show",
        "18",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let Twisty::Plain(centres) = open_any(name).unwrap() else {
        panic!("{name}: pattern classes")
    };
    let antipodes = json["antipodes"].as_array().unwrap();
    let moves = json["antipode_moves"].as_array().unwrap();
    assert_eq!((antipodes.len(), moves.len()), (18, 18), "{out}");
    for (antipode, moves) in antipodes.iter().zip(moves) {
        let moves = moves.as_str().unwrap();
        let reached = centres
            .parse(moves)
            .unwrap_or_else(|e| panic!("{moves}: {e}"));
        let antipode = centres.parse(antipode.as_str().unwrap()).unwrap();
        assert_eq!(centres.rank(&reached), centres.rank(&antipode), "{moves}");
        assert_eq!(moves.split(' ').count(), 8, "{moves}");
    }
}

/// A search up to rotation stops at any rotation of the goal: after a whole-cube turn
/// (`R 2R 2L' L'`) and one slice, one move, as the table says (the goal itself is three
/// away), by IDA*, IDDFS and bidirectional BFS alike.
#[test]
fn searches_up_to_rotation_stop_at_any_rotation_of_the_goal() {
    let name = "4x4x4-centres --up-to-rotation";
    for method in ["ida", "iddfs", "bibfs"] {
        let (out, _) = run_ok(&["solve", name, "R 2R 2L' L' 2U", "--method", method]);
        assert_eq!(out.trim(), "2U", "{method}");
        let (out, _) = run_ok(&["solve", name, "R 2R 2L' L'", "--method", method]);
        assert_eq!(out.trim(), "", "{method}");
    }
}
