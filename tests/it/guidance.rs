//! What guides a newcomer: the list, suggestions for mistyped names, help with
//! examples, the hints toward pattern databases, solve's figures and batches, peg
//! boards drawn, plots that say where they went, one line on Ctrl-C.

use crate::common::{antipode, antipode_with_input, assert_error, run_ok};

#[test]
fn list_shows_what_works_for_each_puzzle() {
    let (list, _) = run_ok(&["list"]);
    let line = |name: &str| {
        list.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in:\n{list}"))
            .to_string()
    };
    assert!(line("24puzzle").contains("pdb"), "{list}");
    assert!(line("15puzzle").contains("`pdb`, `solve --pdb`"), "{list}");
    assert!(line("3x3x3").contains("pdb"), "{list}");
    assert!(
        line("english33").contains("analyze needs 278.2 MiB"),
        "{list}"
    );
    // The 41-hole diamond's bit sets (62.7 GiB) fit no machine of this size.
    let diamond = line("diamond41");
    assert!(diamond.contains("62.7 GiB"), "{diamond}");
}

#[test]
fn mistyped_names_get_a_suggestion_and_large_boards_a_way_on() {
    assert_error(&["analyze", "11puzle"], "did you mean `11puzzle`?");
    assert_error(&["solve", "klotsky"], "did you mean `klotski`?");
    assert_error(&["analyze", "8-puzzle"], "did you mean `8puzzle`?");
    assert_error(
        &["analyze", "15puzzle"],
        "`antipode pdb 15puzzle --partition 7-8`, then `antipode solve 15puzzle --pdb 7-8 POSITION`",
    );
    assert_error(
        &["analyze", "24puzzle"],
        "`antipode pdb 24puzzle --partition 6-6-6-6`",
    );
}

#[test]
fn help_gives_examples_and_the_puzzles_each_command_takes() {
    for command in [
        "list", "analyze", "lookup", "solve", "pdb", "verify", "info", "plot",
    ] {
        let (help, _) = run_ok(&["help", command]);
        assert!(help.contains("Example"), "{command}:\n{help}");
    }
    let (solve, _) = run_ok(&["help", "solve"]);
    assert!(solve.contains("LENGTH NODES SECONDS POSITION"), "{solve}");
    let (pdb, _) = run_ok(&["help", "pdb"]);
    assert!(!pdb.contains("goat") && !pdb.contains("klotski"), "{pdb}");
    let (analyze, _) = run_ok(&["help", "analyze"]);
    assert!(
        analyze.contains("the default"),
        "--bits names its default: {analyze}"
    );
}

#[test]
fn solve_gives_its_figures_and_batches_their_moves() {
    let out = antipode(&["solve", "8puzzle", "867254301", "--all"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("31 moves, 40 optimal solutions"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 40);
    let out = antipode_with_input(
        None,
        &["solve", "8puzzle", "-", "--with-moves"],
        "867254301\n123456708\n",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[1].ends_with("123/456/708  8"), "{text}");
    assert_eq!(lines[0].split_whitespace().count(), 4 + 31, "{text}");
    assert_error(
        &["solve", "8puzzle", "867254301", "--with-moves"],
        "--with-moves adds the moves to a batch's lines",
    );
}

#[test]
fn lookup_in_text_answers_the_lines_before_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("8.table");
    let table = table.to_str().unwrap();
    run_ok(&["analyze", "8puzzle", "--table", table, "-q"]);
    let out = antipode_with_input(
        None,
        &["lookup", "8puzzle", "--table", table],
        "867254301\n12x\n123456780\n",
    );
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "31 867/254/301\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
}

#[test]
fn peg_boards_are_drawn_with_their_hole_numbers() {
    let (text, _) = run_ok(&["solve", "hoppers", "--first", "0-6", "--boards"]);
    assert!(
        text.contains("holes\n  0     1     2\n     3     4\n"),
        "{text}"
    );
    assert!(text.contains("start\no o o\n o o\no . o\n"), "{text}");
    assert!(text.contains("\n7 move ["), "seven moves drawn: {text}");
    // The last board: one peg, in the centre.
    assert!(
        text.trim_end().ends_with(". . .\n . .\n. o .\n . .\n. . ."),
        "{text}"
    );
}

#[test]
fn reports_name_the_goal_and_plots_say_where_they_went() {
    let (report, _) = run_ok(&["analyze", "8puzzle", "-q"]);
    assert!(report.contains("goal            123/456/780"), "{report}");
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("h.svg");
    let svg = svg.to_str().unwrap();
    let out = antipode(&["analyze", "sliding:2x3", "--plot", svg]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("plot {svg}: the depth histogram drawn")),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_during_a_search_ends_with_one_line() {
    use std::process::{Command, Stdio};
    let child = Command::new(env!("CARGO_BIN_EXE_antipode"))
        .args(["solve", "english33"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: kill(2) on the child's own process id; no memory is touched.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim(), "antipode: interrupted", "{stderr}");
}
