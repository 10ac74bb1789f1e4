//! Features compose or refuse: every combination of {plain, `--symmetry`} x {the goal,
//! `--from POSITION`} x {in memory, `--table` 8-bit, `--table` 2-bit} x {1, 2 threads}
//! on a small puzzle of each ranked family, run on the real binary. Positions per
//! depth equal the plain in-memory run's from the same start, tables are
//! byte-identical across thread counts, and a combination that is not supported is
//! refused with one line.

use serde_json::Value;

use crate::common::{antipode, assert_error, run_ok};

/// Where the depths go.
#[derive(Clone, Copy, Debug)]
enum Storage {
    Memory,
    Table(&'static str),
}

/// Positions per depth of a JSON report: the classes' positions where the indices
/// are classes, else the histogram.
fn positions_per_depth(report: &Value) -> Vec<u64> {
    let per_depth = match report.get("classes") {
        Some(classes) => &classes["positions_by_depth"],
        None => &report["histogram"],
    };
    per_depth
        .as_array()
        .expect("a list per depth")
        .iter()
        .map(|n| n.as_u64().expect("a count"))
        .collect()
}

/// The arguments of one combination.
fn arguments(
    puzzle: &str,
    symmetry: bool,
    from: Option<&str>,
    storage: Storage,
    threads: usize,
    table: &std::path::Path,
) -> Vec<String> {
    let mut args: Vec<String> = ["analyze", puzzle, "--format", "json", "-q", "--show", "0"]
        .map(String::from)
        .to_vec();
    args.extend(["--threads".into(), threads.to_string()]);
    if symmetry {
        args.push("--symmetry".into());
    }
    if let Some(from) = from {
        args.extend(["--from".into(), from.into()]);
    }
    if let Storage::Table(bits) = storage {
        args.extend([
            "--table".into(),
            table.display().to_string(),
            "--bits".into(),
            bits.into(),
        ]);
    }
    args
}

/// Runs every combination on `puzzle`, whose `--symmetry` is supported or not, from
/// its goal and from each of `starts` (plus its first antipode).
fn every_combination(puzzle: &str, symmetric: bool, starts: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let (goal_run, _) = run_ok(&["analyze", puzzle, "--format", "json", "-q", "--show", "0"]);
    let goal_run: Value = serde_json::from_str(&goal_run).unwrap();
    let antipode = goal_run["antipodes"][0].as_str().unwrap().to_string();
    let mut froms: Vec<Option<String>> = vec![None, Some(antipode)];
    froms.extend(starts.iter().map(|s| Some(s.to_string())));
    let mut runs = 0;
    for from in &froms {
        let from = from.as_deref();
        let mut plain = vec!["analyze", puzzle, "--format", "json", "-q", "--show", "0"];
        plain.extend(from.map(|f| ["--from", f]).into_iter().flatten());
        let expected = positions_per_depth(&serde_json::from_str(&run_ok(&plain).0).unwrap());
        for symmetry in [false, true] {
            for storage in [Storage::Memory, Storage::Table("8"), Storage::Table("2")] {
                let mut tables = Vec::new();
                for threads in [1, 2] {
                    runs += 1;
                    let table = dir.path().join(format!("{runs}.table"));
                    let args = arguments(puzzle, symmetry, from, storage, threads, &table);
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    if symmetry && !symmetric {
                        assert_error(&args, "is not a twisty puzzle");
                        assert!(!table.exists(), "{args:?} left a table");
                        continue;
                    }
                    let (out, _) = run_ok(&args);
                    let report: Value = serde_json::from_str(&out).unwrap();
                    assert_eq!(positions_per_depth(&report), expected, "{args:?}");
                    if symmetry && from.is_none() {
                        assert!(report["classes"].is_object(), "{args:?}");
                    }
                    if let Storage::Table(_) = storage {
                        tables.push(std::fs::read(&table).unwrap());
                    }
                }
                if let [one, two] = tables.as_slice() {
                    assert!(
                        one == two,
                        "{puzzle} {symmetry} {from:?} {storage:?}: tables differ"
                    );
                }
            }
        }
    }
}

#[test]
fn sliding_tiles_compose() {
    every_combination("sliding:2x4", false, &[]);
}

#[test]
fn sliding_blocks_compose() {
    every_combination("dads", false, &[]);
}

#[test]
fn oshidori_composes() {
    every_combination("oshidori:3", false, &[]);
}

#[test]
fn twisty_puzzles_compose() {
    // U is fixed by 3 of the Pyraminx's 24 symmetries, U L by the identity alone.
    every_combination("pyraminx", true, &["U", "U L"]);
}

/// The 3x3x3's corners from R2, under the 8 of 48 symmetries that fix it: the
/// plain search's positions per depth, God's number 11, every position reached.
#[test]
fn corners_by_classes_from_a_position_measure_the_distance_to_it() {
    let args = [
        "analyze",
        "3x3x3-corners",
        "--from",
        "R2",
        "--format",
        "json",
        "-q",
    ];
    let plain: Value = serde_json::from_str(&run_ok(&args).0).unwrap();
    let mut with_symmetry = args.to_vec();
    with_symmetry.push("--symmetry");
    let classes: Value = serde_json::from_str(&run_ok(&with_symmetry).0).unwrap();
    assert_eq!(classes["classes"]["symmetries"], 8);
    assert_eq!(classes["classes"]["puzzle_symmetries"], 48);
    assert_eq!(classes["gods_number"], 11);
    assert_eq!(positions_per_depth(&classes), positions_per_depth(&plain));
    assert_eq!(plain["reachable"], 88_179_840);
    let slots = classes["indices"].as_u64().unwrap();
    let used = classes["reachable"].as_u64().unwrap() + classes["unused_slots"].as_u64().unwrap();
    assert_eq!(slots, used, "every class reached");
    let (text, _) = run_ok(&[
        "analyze",
        "3x3x3-corners",
        "--from",
        "R2",
        "--symmetry",
        "-q",
    ]);
    assert!(!text.contains("unreachable"), "{text}");
    assert!(
        text.contains("symmetries      8 of 48, those fixing the --from position"),
        "{text}"
    );
}

/// A position fixed by the identity alone is searched position by position, and
/// says so; the report is the plain one.
#[test]
fn symmetry_from_a_position_fixed_by_no_symmetry_searches_positions() {
    let output = antipode(&[
        "analyze",
        "3x3x3-corners",
        "--symmetry",
        "--from",
        "R U",
        "--show",
        "0",
    ]);
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("no symmetry but the identity fixes the --from position"),
        "{stderr}"
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("god's number    11\n"), "{stdout}");
    assert!(stdout.contains("antipodes       64,736\n"), "{stdout}");
    assert!(!stdout.contains("unreachable"), "{stdout}");
}
