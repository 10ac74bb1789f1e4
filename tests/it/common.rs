//! Helpers shared by the integration tests that run the binary.

use std::process::{Command, Output};

/// Runs the real binary with `args`.
pub fn antipode(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antipode"))
        .args(args)
        .output()
        .expect("the binary runs")
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
