//! README.md as a test: every shell example runs, in order, in a scratch folder with a
//! fresh `tables/`, as a new user would type it; what a comment quotes in backticks
//! must be in the command's output. Commands marked `(long)` take minutes and are
//! skipped (`scripts/bench.sh` measures them) unless `README_LONG=1` is set. The Rust
//! example is a doc test (`src/lib.rs` includes the README).

use std::path::Path;
use std::process::Command;

/// One command of a `sh` block.
struct Example {
    /// Its line in README.md (1-based).
    line: usize,
    /// The command, as typed.
    command: String,
    /// What its comment quotes in backticks.
    quoted: Vec<String>,
    /// Marked `(long)`: minutes.
    long: bool,
}

/// Commands that set up a machine or need what the default build does not have; each
/// is covered by CI elsewhere (`.ci/run`: the tests, the MPI and the bindings' checks).
const NOT_HERE: &[&str] = &[
    "cargo test",
    "cargo install",
    "cargo build",
    "mpirun",
    "pip ",
];

/// The examples of README.md's `sh` blocks, long ones left out unless `long`;
/// `cargo run --release --` is the binary.
fn examples(readme: &str, long: bool) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for (k, line) in readme.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh || trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (command, comment) = split_comment(trimmed);
        let marked = comment.contains("(long)");
        if (marked && !long) || NOT_HERE.iter().any(|p| command.starts_with(p)) {
            continue;
        }
        out.push(Example {
            line: k + 1,
            command: command.replacen("cargo run --release -- ", "antipode ", 1),
            quoted: comment
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect(),
            long: marked,
        });
    }
    out
}

/// The command and its comment: the text after the first ` #` outside quotes.
fn split_comment(line: &str) -> (String, String) {
    let (mut single, mut double) = (false, false);
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'#' if !single && !double && i > 0 && bytes[i - 1] == b' ' => {
                return (
                    line[..i].trim().to_string(),
                    line[i + 1..].trim().to_string(),
                );
            }
            _ => {}
        }
    }
    (line.trim().to_string(), String::new())
}

/// Runs of white space as one space, so that a quote matches aligned columns.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A scratch folder that looks like a fresh clone: the repository's files (linked),
/// and no `tables/` yet.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["README.md", "scripts", "src", "tests", "bindings"] {
        std::os::unix::fs::symlink(repo.join(name), dir.path().join(name)).unwrap();
    }
    let bin = dir.path().join(".bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_antipode"), bin.join("antipode")).unwrap();
    dir
}

#[test]
fn the_readme_runs_as_written() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let examples = examples(&readme, std::env::var_os("README_LONG").is_some());
    assert!(examples.len() > 30, "{} examples", examples.len());
    let dir = scratch();
    let path = format!(
        "{}:{}",
        dir.path().join(".bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // Assignments (`GOAL="..."`) hold for the commands after them.
    let mut assignments = String::new();
    for example in &examples {
        let started = std::time::Instant::now();
        let output = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "set -euo pipefail\n{assignments}{}",
                example.command
            ))
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "README.md:{}: `{}` failed ({}):\n{stderr}",
            example.line,
            example.command,
            output.status
        );
        let seen = squeezed(&format!("{stdout}\n{stderr}"));
        for quote in &example.quoted {
            assert!(
                seen.contains(&squeezed(quote)),
                "README.md:{}: `{}` does not print `{quote}`:\n{stdout}\n{stderr}",
                example.line,
                example.command
            );
        }
        assert!(
            example.long || started.elapsed().as_secs() < 60,
            "README.md:{}: `{}` took {:.0} s: mark it (long)",
            example.line,
            example.command,
            started.elapsed().as_secs_f64()
        );
        if is_assignment(&example.command) {
            assignments.push_str(&example.command);
            assignments.push('\n');
        }
    }
}

/// `NAME=value`, a shell variable for the commands after it.
fn is_assignment(command: &str) -> bool {
    command.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

#[test]
fn comments_split_outside_quotes() {
    assert_eq!(
        split_comment(r#"antipode solve x "a # b" --all  # `53` moves"#),
        (
            r#"antipode solve x "a # b" --all"#.to_string(),
            "`53` moves".to_string()
        )
    );
    assert!(is_assignment(r#"GOAL="0 1 2""#));
    assert!(!is_assignment("antipode analyze x --goal=y"));
}
