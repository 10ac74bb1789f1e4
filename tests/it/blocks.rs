//! Sliding-block puzzles from description files: the published move counts of the
//! shipped layouts, Goat's figures (seed 001) from its description, and clear errors
//! for bad descriptions.

use antipode::analysis;
use antipode::driver::Control;
use antipode::puzzles::blocks::{BlockPuzzle, Metric, library};
use antipode::{Puzzle, analysis::analyze};

use crate::common::{antipode_with_input, assert_error, run_ok};
use antipode::Notation;

fn shipped(name: &str, metric: Metric) -> BlockPuzzle {
    let (file, text) = library::shipped(name).unwrap();
    BlockPuzzle::from_text(file, text)
        .unwrap()
        .with_metric(metric)
}

/// The distance from the puzzle's start to its goal set, by a full BFS from the goal.
fn start_distance(p: &BlockPuzzle) -> u32 {
    let (depths, _) = analysis::search(p, &Control::default()).unwrap();
    depths.depth(p.rank(&p.start().unwrap())).unwrap()
}

#[test]
fn klotski_116_steps_81_moves() {
    assert_eq!(shipped("klotski", Metric::Path).index_count(), 65_880);
    assert_eq!(start_distance(&shipped("klotski", Metric::Step)), 116);
    assert_eq!(start_distance(&shipped("klotski", Metric::Path)), 81);
}

#[test]
fn century_99_path_111_line() {
    assert_eq!(start_distance(&shipped("century", Metric::Path)), 99);
    assert_eq!(start_distance(&shipped("century", Metric::Line)), 111);
}

#[test]
fn super_century_138_path_150_line() {
    assert_eq!(start_distance(&shipped("super-century", Metric::Path)), 138);
    assert_eq!(start_distance(&shipped("super-century", Metric::Line)), 150);
    // The layout circulating with the bottom lying piece one cell to the left is one
    // move closer: it is not Dogon's start.
    let p = shipped("super-century", Metric::Path);
    let off = p.parse("Aabc/AB11/CB11/CEEd/.GG.").unwrap();
    let (depths, _) = analysis::search(&p, &Control::default()).unwrap();
    assert_eq!(depths.depth(p.rank(&off)), Some(137));
}

#[test]
fn dads_puzzle_59_moves() {
    assert_eq!(start_distance(&shipped("dads", Metric::Path)), 59);
}

#[test]
fn ma_puzzle_23_path_26_line() {
    assert_eq!(start_distance(&shipped("ma", Metric::Path)), 23);
    assert_eq!(start_distance(&shipped("ma", Metric::Line)), 26);
    // The same block one row lower is also 23 moves away in the path metric, but 28 in
    // the line metric: only the block in the top right corner gives both of Hordern's
    // figures.
    let (file, text) = library::shipped("ma").unwrap();
    let lower = text.replace(
        r#"goal = [{ piece = "B", row = 0, col = 3 }, { piece = "E", row = 1, col = 3 }]"#,
        r#"goal = [{ piece = "B", row = 1, col = 3 }, { piece = "E", row = 2, col = 3 }]"#,
    );
    assert_ne!(lower, text);
    let lower = BlockPuzzle::from_text(file, &lower).unwrap();
    assert_eq!(start_distance(&lower.clone().with_metric(Metric::Path)), 23);
    assert_eq!(start_distance(&lower.with_metric(Metric::Line)), 28);
}

/// A metric other than the description's gets its own default table path, so the
/// two tables never meet.
#[test]
fn another_metric_gets_its_own_default_table() {
    let dir = tempfile::tempdir().unwrap();
    for metric in [None, Some("step"), Some("path")] {
        let mut args = vec!["analyze", "dads", "--table", "--bits", "2", "-q", "--force"];
        args.extend(metric.iter().flat_map(|m| ["--metric", m]));
        let output = antipode_with_input(Some(dir.path()), &args, "");
        assert!(output.status.success(), "{args:?}: {output:?}");
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("tables"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    // `--metric path` is the description's own metric: the same table as no option.
    assert_eq!(names, ["dads-2bit.table", "dads-step-2bit.table"]);
}

#[test]
fn goat_has_the_seed_figures() {
    let p = shipped("goat", Metric::Step);
    let a = analyze(&p, 0, &Control::default()).unwrap();
    // Seed 001: 5,443,200 reachable layouts (the big piece stays on the top row, so
    // two thirds of the indices are unreachable), God's number 52 with 7 antipodes,
    // START 20 moves from GOAL.
    assert_eq!(p.index_count(), 16_329_600);
    assert_eq!(a.reachable, 5_443_200);
    assert_eq!(
        a.histogram,
        [
            1, 2, 3, 7, 13, 20, 37, 57, 103, 161, 273, 414, 693, 1057, 1737, 2584, 4162, 6181,
            9774, 14242, 21637, 30774, 45069, 61806, 86121, 113434, 149621, 187650, 232743, 276099,
            321314, 360502, 392621, 413094, 417811, 409576, 382164, 346339, 297291, 247704, 194081,
            147352, 104416, 70454, 43976, 25441, 13330, 5904, 2408, 717, 194, 29, 7
        ]
    );
    assert_eq!((a.gods_number, a.antipode_count), (52, 7));
    // The seed's seven, written with 9 for the second bar and `.` for the empty cell
    // (the seed writes both bars as 8 and the empty cell as 0).
    let mut antipodes = a.antipodes.clone();
    antipodes.sort();
    assert_eq!(
        antipodes,
        [
            ".7BB/6421/5839",
            ".7BB/6428/9531",
            "67BB/4528/.931",
            "67BB/4531/.829",
            "6BB1/7528/493.",
            "76BB/451./8329",
            "76BB/4521/.839"
        ]
    );
    assert_eq!(start_distance(&p), 20);
}

#[test]
fn solve_prints_moves_with_arrows() {
    let (text, _) = run_ok(&["solve", "dads", "--method", "bibfs"]);
    let moves: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(moves.len(), 59);
    assert!(
        moves
            .iter()
            .all(|m| m.chars().skip(1).all(|c| "↑↓←→".contains(c)))
    );
    let (out, _) = run_ok(&["analyze", "klotski", "--metric", "step", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["indices"], 65_880);
    assert!(json["reachable"].as_u64().unwrap() < 65_880);
}

#[test]
fn bad_descriptions_are_one_line_errors_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let good = library::shipped("dads").unwrap().1;
    let not_toml = write("a.toml", "name = \"x\"\nboard = [\n");
    assert_error(&["analyze", &not_toml], "a.toml:");
    assert_error(&["analyze", &not_toml], "not a valid description");
    let ragged = write("b.toml", &good.replace("FGHH\n", "FGH\n"));
    assert_error(
        &["analyze", &ragged],
        "b.toml:12: ragged board: this row has 3 cells, the first row (line 9) has 4",
    );
    let split = write("c.toml", &good.replace("FGII", "FGIA"));
    assert_error(
        &["analyze", &split],
        "piece `A`: its cells are not connected",
    );
    let no_piece = write("d.toml", &good.replace("piece = \"A\"", "piece = \"Z\""));
    assert_error(
        &["analyze", &no_piece],
        "the goal names piece `Z`, which is not on the board",
    );
    let no_fit = write(
        "e.toml",
        &good.replace("row = 3, col = 0", "row = 4, col = 0"),
    );
    assert_error(
        &["analyze", &no_fit],
        "cannot stand with its top-left corner at row 4",
    );
    assert_error(&["analyze", "missing.toml"], "missing.toml: No such file");
    // Too large to index: more free cells than a 64-bit rank holds, or more
    // arrangements of the multi-cell pieces than are kept in memory.
    let smalls = write(
        "f.toml",
        "name = \"f\"\nboard = \"\"\"\nABCDEFGH\nIJKLMNOP\nQRSTUVWX\n.....\n\"\"\"\n",
    );
    assert_error(
        &["analyze", &smalls],
        "f.toml:1: not a valid description: missing field `goal`",
    );
    let smalls = write(
        "g.toml",
        "name = \"g\"\nboard = \"\"\"\nABCDEFGH\nIJKLMNOP\nQRSTUVWX\n........\n\"\"\"\n\
         goal = { piece = \"A\", row = 3, col = 0 }\n",
    );
    assert_error(
        &["analyze", &smalls],
        "fill 32 cells; at most 20 can be ranked in 64 bits",
    );
    let dominoes = write(
        "h.toml",
        "name = \"h\"\nboard = \"\"\"\nAABBCC\nDDEEFF\nGGHHII\nJJKKLL\n......\n\"\"\"\n\
         goal = { piece = \"A\", row = 4, col = 0 }\n",
    );
    assert_error(&["analyze", &dominoes], "more than 16,777,216 arrangements");
    // A position in the drawing syntax, with a piece over a wall or of the wrong size.
    assert_error(&["solve", "dads", "AABB/AACC/de../FGHH"], "wrong size");
    assert_error(
        &["solve", "dads", "AABB/AACC/dee./FGHH/FGII"],
        "piece `e` does not have its shape",
    );
    assert_error(
        &["solve", "dads", "AABB/AACC/d.../FGHH/FGII"],
        "piece `e` is missing",
    );
    assert_error(
        &["solve", "dads", "AABB/AACC/dZ../FGHH/FGII"],
        "unknown piece `Z`",
    );
    // The seed's Goat notation (0 the empty cell, both bars 8) is read where the bars
    // stand apart; two bars side by side do not split into pieces unambiguously.
    assert_error(
        &["solve", "goat", "18BB/2075/3886"],
        "malformed position: piece `8` does not have its shape (each connected region of \
         one character is one piece)",
    );
    assert_error(&["solve", "goat", "18BB/2075/3846/8"], "wrong size");
    assert_error(
        &["analyze", "klotski", "--metric", "fly"],
        "possible values",
    );
    assert_error(
        &["analyze", "8puzzle", "--metric", "path"],
        "metric is for sliding-block puzzles",
    );
}

#[test]
fn klotski_from_its_start_and_its_components() {
    // The start's component: the 25,955 layouts of 横刀立马, fewer than half the
    // 65,880 legal layouts.
    let (out, _) = run_ok(&[
        "analyze", "klotski", "--from", "start", "--format", "json", "-q",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["indices"], 65_880);
    assert_eq!(json["reachable"], 25_955);
    assert_eq!(json["goal_states"], 1);
    let (out, _) = run_ok(&["analyze", "klotski", "--components", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sizes: Vec<u64> = json["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["size"].as_u64().unwrap())
        .collect();
    assert_eq!(json["components"].as_u64().unwrap() as usize, sizes.len());
    assert_eq!(sizes.iter().sum::<u64>(), 65_880);
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "largest first");
    assert_eq!(&sizes[..2], [25_955, 25_955]);
    // Every representative parses back as a layout of the puzzle.
    let p = shipped("klotski", Metric::Path);
    for c in json["sizes"].as_array().unwrap() {
        assert!(p.parse(c["representative"].as_str().unwrap()).is_ok());
    }
    assert_error(
        &["analyze", "klotski", "--components", "--from", "start"],
        "--components",
    );
    assert_error(
        &["analyze", "8puzzle", "--from", "start"],
        "8puzzle has no start position",
    );
}

#[test]
fn tables_of_description_puzzles_record_their_definition() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("dads.table");
    let table = table.to_str().unwrap();
    run_ok(&["analyze", "dads", "--table", table, "--bits", "2", "-q"]);
    let (out, _) = run_ok(&[
        "lookup",
        "dads",
        "--table",
        table,
        "AABB/AACC/de../FGHH/FGII",
    ]);
    assert_eq!(out, "59 AABB/AACC/de../FGHH/FGII\n");
    let (out, _) = run_ok(&["solve", "dads", "--table", table]);
    assert_eq!(out.split_whitespace().count(), 59);
    let (report, _) = run_ok(&["verify", table]);
    assert!(report.lines().all(|l| l.starts_with("ok  ")), "{report}");
    // The same board counted in another metric is another table.
    assert_error(
        &[
            "lookup",
            "dads",
            "--metric",
            "step",
            "--table",
            table,
            "AABB/AACC/de../FGHH/FGII",
        ],
        "the definitions differ (another move metric",
    );
}

/// The Goat positions exactly as seed 001 writes them (0 the empty cell, both bars 8):
/// START 20 moves from GOAL, and the seven antipodes of its figure at distance 52,
/// which are all of them. Output keeps the canonical form (`.`, bars 8 and 9).
#[test]
fn goat_in_the_seeds_notation() {
    let (file, text) = library::shipped("goat").unwrap();
    let goat = BlockPuzzle::from_text(file, text).unwrap();
    let (depths, histogram) = analysis::search(&goat, &Control::default()).unwrap();
    let start = goat.parse("18BB/2075/3846").unwrap();
    assert_eq!(start, goat.start().unwrap());
    assert_eq!(goat.format_line(&start), "18BB/2.75/3946");
    assert_eq!(depths.depth(goat.rank(&start)), Some(20));
    let goal = goat.parse("18BB/2570/3846").unwrap();
    assert!(goat.is_goal(&goal));
    assert_eq!(depths.depth(goat.rank(&goal)), Some(0));
    // The figure of the seven positions at distance 52, in the seed's order.
    let seed = [
        "6BB1/7528/4830",
        "07BB/6421/5838",
        "07BB/6428/8531",
        "76BB/4510/8328",
        "76BB/4521/0838",
        "67BB/4531/0828",
        "67BB/4528/0831",
    ];
    let mut canonical: Vec<String> = seed
        .iter()
        .map(|text| {
            let position = goat.parse(text).unwrap();
            assert_eq!(depths.depth(goat.rank(&position)), Some(52), "{text}");
            goat.format_line(&position)
        })
        .collect();
    canonical.sort();
    assert_eq!(histogram.gods_number(), 52);
    let mut antipodes = analysis::analyze(&goat, 0, &Control::default())
        .unwrap()
        .antipodes;
    antipodes.sort();
    assert_eq!(canonical, antipodes);
    assert_eq!(canonical[0], ".7BB/6421/5839");

    // The command line takes the seed's START and names its notation in JSON.
    let (out, _) = run_ok(&["solve", "goat", "18BB/2075/3846", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["length"], 20);
    assert_eq!(json["start"], "18BB/2.75/3946");
    let notation = json["notation"].as_str().unwrap();
    assert!(notation.contains("interchangeable pieces 89") && notation.contains("`0`"));
}
