//! The real binary: outputs people and scripts read, and clear errors on bad input.

use crate::common::{antipode, antipode_with_input, assert_error, assert_measured, run_ok};

use std::process::Output;

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn list_names_every_puzzle_of_the_catalog() {
    let (text, _) = run_ok(&["list"]);
    let names: Vec<&str> = text
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let catalog = antipode::puzzles::catalog();
    assert_eq!(
        names,
        catalog.iter().map(|e| e.name.as_str()).collect::<Vec<_>>()
    );
    for expected in [
        "goat",
        "11puzzle",
        "15puzzle",
        "oshidori",
        "hoppers",
        "english33",
    ] {
        assert!(names.contains(&expected), "list omits {expected}: {text}");
    }
    assert!(text.contains("oshidori:1..9"), "{text}");
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap()
    };
    assert!(line("goat").contains("16,329,600"));
    // Indices, then the table at 8 and 2 bits per state.
    assert!(line("11puzzle").contains("239,500,800  228.4 MiB   57.1 MiB"));
    for family in antipode::puzzles::FAMILIES {
        assert!(
            text.contains(family.pattern),
            "list omits the family {}",
            family.pattern
        );
    }
}

#[test]
fn list_json_has_sizes_fits_and_parameter_ranges() {
    let (text, _) = run_ok(&["list", "--format", "json"]);
    let catalog: serde_json::Value = serde_json::from_str(&text).unwrap();
    let puzzles = catalog["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), antipode::puzzles::catalog().len());
    let goat = puzzles.iter().find(|p| p["name"] == "goat").unwrap();
    assert_eq!(goat["indices"], 16_329_600);
    assert_eq!(goat["table_bytes_8bit"], 16_329_600);
    assert_eq!(goat["table_bytes_2bit"], 4_082_400);
    // 16 MB fit any machine that runs the tests; 9.5 TB none.
    assert_eq!(goat["fits_memory_8bit"], true);
    let fifteen = puzzles.iter().find(|p| p["name"] == "15puzzle").unwrap();
    assert_eq!(fifteen["fits_memory_8bit"], false);
    let hoppers = puzzles.iter().find(|p| p["name"] == "hoppers").unwrap();
    assert!(hoppers["indices"].is_null());
    assert!(catalog["memory_available_bytes"].as_u64().unwrap() > 0);
    let families = catalog["families"].as_array().unwrap();
    let parameters = |pattern: &str| {
        families.iter().find(|f| f["pattern"] == pattern).unwrap()["parameters"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(parameters("sliding:RxC"), "R, C >= 2 and R*C <= 16");
    assert_eq!(
        parameters("oshidori:K"),
        format!("K = 1..{}", antipode::puzzles::oshidori::MAX_KINDS)
    );
}

/// Tables larger than memory that fit the disk get the time of a level on disk, from
/// the disk's rate measured once and kept in `tables/`; other tables get none.
#[test]
fn list_times_the_levels_on_disk_from_a_measured_rate() {
    let dir = tempfile::tempdir().unwrap();
    let list = || {
        let output = antipode_with_input(Some(dir.path()), &["list", "--format", "json"], "");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str::<serde_json::Value>(&stdout(&output)).unwrap()
    };
    let catalog = list();
    let mut on_disk = 0;
    for p in catalog["puzzles"].as_array().unwrap() {
        for bits in ["8bit", "2bit"] {
            let disk =
                p[format!("fits_memory_{bits}")] == false && p[format!("fits_disk_{bits}")] == true;
            let seconds = &p[format!("disk_level_seconds_{bits}")];
            assert_eq!(seconds.is_number(), disk, "{} at {bits}", p["name"]);
            if disk {
                on_disk += 1;
                assert!(seconds.as_f64().unwrap() > 0.0);
            }
        }
    }
    // No tables/ yet: measured beside it, nothing kept.
    let kept = dir.path().join("tables/.disk-rate.json");
    assert!(!kept.exists());
    if on_disk > 0 {
        assert!(catalog["disk_write_bytes_per_second"].as_u64().unwrap() > 0);
        assert!(catalog["disk_read_bytes_per_second"].as_u64().unwrap() > 0);
        assert_eq!(catalog["disk_rate_measured_now"], true);
        std::fs::create_dir(dir.path().join("tables")).unwrap();
        assert_eq!(list()["disk_rate_measured_now"], true);
        assert!(kept.exists());
        assert_eq!(
            list()["disk_rate_measured_now"],
            false,
            "taken from tables/"
        );
    } else {
        assert!(catalog["disk_write_bytes_per_second"].is_null());
    }
    // The probe file is gone.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains("probe"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn analyze_text_report() {
    let output = antipode(&["analyze", "8puzzle", "--show", "1", "--quiet"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("god's number    31"));
    assert!(text.contains("antipodes       2"));
    assert!(text.contains("647/850/321"));
    assert!(text.contains("   31  2"));
    assert!(output.stderr.is_empty());
}

#[test]
fn analyze_progress_goes_to_stderr() {
    let output = antipode(&["analyze", "sliding:2x3"]);
    assert!(output.status.success());
    let progress = String::from_utf8(output.stderr).unwrap();
    assert!(progress.lines().any(|l| l.starts_with("depth  21")));
    // Not a terminal: exactly one line per level (depths 0..=21), no bar.
    assert_eq!(progress.lines().count(), 22, "{progress}");
    assert!(!progress.contains('\r') && !progress.contains('\u{1b}'));
    // Short levels get no line with a guess of their time (driver::LevelClock).
    assert!(!progress.contains("guessed"), "{progress}");
    let quiet = antipode(&["analyze", "sliding:2x3", "--quiet"]);
    assert!(quiet.stderr.is_empty());
}

#[test]
fn analyze_json_has_the_stable_keys() {
    let (out, wall) = run_ok(&["analyze", "8puzzle", "--format", "json", "--threads", "1"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["puzzle"], "8puzzle");
    assert_eq!(json["indices"], 181_440);
    assert_eq!(json["reachable"], 181_440);
    assert_eq!(json["gods_number"], 31);
    assert_eq!(json["antipode_count"], 2);
    assert_eq!(json["antipodes"][1], "867/254/301");
    assert_eq!(json["histogram"].as_array().unwrap().len(), 32);
    assert_eq!(json["histogram"][24], 24047);
    assert_eq!(json["threads"], 1);
    assert_measured(&json["seconds"], wall);
    assert!(json["peak_rss_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn analyze_csv_rows() {
    let output = antipode(&["analyze", "sliding:2x5", "--format", "csv", "-q"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("puzzle,indices,reachable,gods_number,antipode_count"));
    // Header, 56 depths (0..=55), 2 antipodes.
    assert_eq!(lines.len(), 1 + 56 + 2);
    assert!(lines[56].ends_with(",55,2,"));
}

#[test]
fn goat_shows_its_seven_antipodes() {
    let output = antipode(&["analyze", "goat", "--show", "7", "-q"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("reachable       5,443,200"));
    assert!(text.contains("god's number    52"));
    assert!(text.contains("antipodes at distance 52 (7 of 7 shown)"));
    assert!(text.contains("67BB/4528/.931\nfrom the goal: "));
    assert!(text.contains("\n67BB\n4528\n.931\n"));
    // Each antipode drawn with 52 moves that reach it from the goal.
    let moves: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("from the goal: "))
        .collect();
    assert_eq!(moves.len(), 7);
    assert!(
        moves.iter().all(|m| m.split(' ').count() == 52),
        "{moves:?}"
    );
}

#[test]
fn other_goal() {
    let output = antipode(&["analyze", "8puzzle", "--goal", "0 1 2/3 4 5/6 7 8", "-q"]);
    assert!(output.status.success());
    assert!(stdout(&output).contains("god's number    31"));
}

#[test]
fn bad_input_is_a_one_line_error() {
    assert_error(&["analyze", "ninepuzzle"], "unknown puzzle `ninepuzzle`");
    // User text with a newline is echoed escaped: the error stays one line.
    assert_error(
        &["analyze", "nine\npuzzle"],
        "unknown puzzle `nine\\npuzzle`",
    );
    assert_error(&["analyze", "2x2x2", "--moves", "U\nR"], "\\n");
    assert_error(&["analyze", "sliding:1x1"], "at least 2");
    assert_error(&["analyze", "sliding:5x5"], "bytes");
    assert_error(&["analyze", "sliding:3by4"], "expected `sliding:RxC");
    assert_error(&["analyze", "15puzzle"], "TiB");
    assert_error(&["analyze", "8puzzle", "--threads", "0"], "--threads");
    assert_error(
        &["analyze", "8puzzle", "--goal", "1 2 3/4 5 6/7 8 8"],
        "appears too often",
    );
    assert_error(
        &["analyze", "8puzzle", "--goal", "1 2 3/4 5 6"],
        "wrong size",
    );
    assert_error(
        &["analyze", "goat", "--goal", "x"],
        "the goal: bad goal: another goal is only for sliding-tile boards, not goat",
    );
    assert_error(
        &["analyze", "hoppers", "--goal", "x"],
        "the goal: wrong size: expected 13 holes",
    );
    assert_error(
        &["analyze", "hoppers", "--goal", "13"],
        "hole 13: the board has 13 holes",
    );
    assert_error(
        &["solve", "english33", "111"],
        "wrong size: expected 33 holes",
    );
    assert_error(
        &["solve", "english33", "--all"],
        "english33 has more than 20 holes: it is solved by breadth-first search over moves, one solution",
    );
    assert_error(
        &[
            "lookup",
            "hoppers",
            "--table",
            "no-such.table",
            "1111110111111",
        ],
        "no-such.table: No such file",
    );
    assert_error(
        &["analyze", "8puzzle", "--format", "xml"],
        "possible values",
    );
    assert_error(&["analyze"], "<PUZZLE>");
    assert_error(&["analyze", "oshidori:8"], "TiB at one byte per state");
    assert_error(&["solve", "oshidori:10"], "must be 1 to 9");
    assert_error(
        &["solve", "oshidori:9", "1 2 3"],
        "expected 20 cells, found 3",
    );
    assert_error(
        &["solve", "oshidori:3", "1 2 3 1 2 . 3 ."],
        "blanks must be adjacent",
    );
}

#[test]
fn completion_scripts_for_three_shells() {
    for (shell, marker) in [
        ("bash", "complete -F _antipode"),
        ("zsh", "#compdef antipode"),
        ("fish", "complete -c antipode"),
    ] {
        let (script, _) = run_ok(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: {script}");
        for subcommand in ["analyze", "lookup", "solve", "verify", "info", "list"] {
            assert!(script.contains(subcommand), "{shell} misses {subcommand}");
        }
    }
    assert_error(
        &["completions", "powershell"],
        "possible values: bash, zsh, fish",
    );
}

/// The README names every command of the top-level help.
#[test]
fn readme_names_every_command_of_the_help() {
    let (help, _) = run_ok(&["--help"]);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .collect();
    assert!(commands.len() > 5, "{help}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for command in commands {
        assert!(
            readme.contains(&format!("`{command}`")),
            "README.md does not name `{command}`"
        );
    }
}
