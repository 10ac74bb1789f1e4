//! Helpers shared by the integration tests that run the binary.

use std::process::{Command, Output};

/// Runs the real binary with `args`.
pub fn antipode(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antipode"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the real binary with `args` in `dir` (the current folder when `None`), with
/// `input` on its standard input.
pub fn antipode_with_input(dir: Option<&std::path::Path>, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut command = Command::new(env!("CARGO_BIN_EXE_antipode"));
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("the binary reads its input");
    child.wait_with_output().expect("the binary ends")
}

/// Asserts a clean failure: non-zero exit, one line on stderr naming the problem.
pub fn assert_error(args: &[&str], expected: &str) {
    let output = antipode(args);
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(!output.status.success(), "{args:?} succeeded");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.starts_with("antipode: error: "),
        "{args:?}: {stderr}"
    );
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
}

/// Runs the binary, asserts that it succeeded, and returns its standard output and the
/// wall time the run took as seen from outside (an upper bound of any time it reports).
pub fn run_ok(args: &[&str]) -> (String, f64) {
    let started = std::time::Instant::now();
    let output = antipode(args);
    let wall = started.elapsed().as_secs_f64();
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (String::from_utf8(output.stdout).unwrap(), wall)
}

/// Asserts that a reported duration is a real measurement of the run: positive and
/// within the wall time seen from outside.
pub fn assert_measured(seconds: &serde_json::Value, wall: f64) {
    let seconds = seconds.as_f64().expect("seconds is a number");
    assert!(
        seconds > 0.0 && seconds <= wall,
        "{seconds} s reported, {wall} s wall"
    );
}

/// Runs the stdlib-only Python reader `scripts/read_table.py` (with `--verify`: the
/// payload's checksum too) on a table with these indices and returns its header
/// (JSON) and one line per index.
pub fn python_read_table(
    path: &std::path::Path,
    indices: &[String],
) -> (serde_json::Value, Vec<String>) {
    let output = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/read_table.py"
        ))
        .arg("--verify")
        .arg(path)
        .args(indices)
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines().map(str::to_string);
    let header = serde_json::from_str(&lines.next().unwrap()).unwrap();
    (header, lines.collect())
}

/// The names of the entries of a folder, sorted.
pub fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
