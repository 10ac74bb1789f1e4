//! Histogram plots: `analyze --plot`, `plot TABLE`, `plot REPORT REPORT`.

use crate::common::{assert_error, run_ok};

/// The bars of an SVG file, after checking that it parses as XML.
fn bars(path: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let svg = roxmltree::Document::parse(&text).expect("the SVG parses");
    assert_eq!(svg.root_element().tag_name().name(), "svg");
    svg.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("bar"))
        .count()
}

#[test]
fn analyze_plots_one_bar_per_depth_in_both_panels() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("8puzzle.svg");
    let plot = plot.to_str().unwrap();
    run_ok(&["analyze", "8puzzle", "-q", "--plot", plot]);
    // Depths 0..=31, a linear and a log panel.
    assert_eq!(bars(std::path::Path::new(plot)), 2 * 32);
    let text = std::fs::read_to_string(plot).unwrap();
    assert!(text.contains("number 31, 2 antipodes"), "{text}");
    assert!(text.contains("181,440 states"));
}

#[test]
fn plot_reads_tables_and_reports_and_overlays_them() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("8puzzle.table");
    let table = table.to_str().unwrap();
    run_ok(&["analyze", "8puzzle", "-q", "--table", table]);
    let from_table = dir.path().join("table.svg");
    run_ok(&["plot", table, "--out", from_table.to_str().unwrap()]);
    assert_eq!(bars(&from_table), 2 * 32);

    let (report, _) = run_ok(&["analyze", "sliding:2x4", "-q", "--format", "json"]);
    let report_path = dir.path().join("2x4.json");
    std::fs::write(&report_path, report).unwrap();
    let overlaid = dir.path().join("cmp.svg");
    run_ok(&[
        "plot",
        table,
        report_path.to_str().unwrap(),
        "-o",
        overlaid.to_str().unwrap(),
    ]);
    // 2x4: depths 0..=36.
    assert_eq!(bars(&overlaid), 2 * (32 + 37));
    assert!(
        std::fs::read_to_string(&overlaid)
            .unwrap()
            .contains("fraction of each puzzle")
    );
}

#[test]
fn bad_plot_requests_are_one_line_errors_and_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    assert_error(
        &["analyze", "8puzzle", "-q", "--plot", folder],
        "is a directory",
    );
    let missing = dir.path().join("no/such/folder/x.svg");
    assert_error(
        &[
            "analyze",
            "8puzzle",
            "-q",
            "--plot",
            missing.to_str().unwrap(),
        ],
        "cannot write",
    );
    let not_a_table = dir.path().join("notes.txt");
    std::fs::write(&not_a_table, "hello").unwrap();
    let out = dir.path().join("x.svg");
    assert_error(
        &[
            "plot",
            not_a_table.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "neither a table file nor a JSON report",
    );
    assert_error(
        &["analyze", "english33", "--plot", out.to_str().unwrap()],
        "searched forward",
    );
    // A damaged table is reported as one, not as "neither".
    let table = dir.path().join("8puzzle.table");
    run_ok(&[
        "analyze",
        "8puzzle",
        "-q",
        "--table",
        table.to_str().unwrap(),
    ]);
    let mut bytes = std::fs::read(&table).unwrap();
    bytes[2048 + 40] ^= 1;
    std::fs::write(&table, bytes).unwrap();
    assert_error(
        &[
            "plot",
            table.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "header is corrupted",
    );
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "only notes.txt and the table"
    );
}
