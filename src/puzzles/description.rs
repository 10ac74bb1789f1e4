//! What the description files of every family share: the error that names a file's
//! line, reading TOML, the checked name, the lines of a drawn board, and the shipped
//! definitions compiled into the binary.

use std::ops::Range;

/// Why a description was refused: the line it is about and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct DescriptionError {
    /// The file (or the built-in puzzle's name).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Line (1-based) of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The non-blank lines of the drawing `value` (a TOML string at `span` of the file
/// `file_text`) with their line numbers in the file, trailing spaces cut, leading ones
/// kept. A multi-line string starting right after `"""` begins on the line after the
/// opening quotes.
pub(crate) fn drawing_lines(
    file_text: &str,
    value: &str,
    span: &Range<usize>,
) -> Vec<(usize, String)> {
    let opening_line = line_of(file_text, span.start);
    let raw = &file_text[span.clone()];
    // Multi-line basic or literal strings drop a newline right after the delimiter.
    let first_line = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        let after = &raw[3..];
        if after.starts_with('\n') || after.starts_with("\r\n") {
            opening_line + 1
        } else {
            opening_line
        }
    } else {
        opening_line
    };
    value
        .lines()
        .enumerate()
        .map(|(k, row)| (first_line + k, row.trim_end().to_string()))
        .filter(|(_, row)| !row.trim().is_empty())
        .collect()
}

/// The TOML of a description file read into `T`; a syntax error or an unknown key
/// names its line.
pub(crate) fn read_toml<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
) -> Result<T, DescriptionError> {
    toml::from_str(text).map_err(|e| DescriptionError {
        file: file.into(),
        line: e.span().map_or(1, |s| line_of(text, s.start)),
        message: format!(
            "not a valid description: {}",
            e.message().lines().next().unwrap_or("not TOML")
        ),
    })
}

/// A description's `name`, which is typed on the command line.
pub(crate) fn checked_name(
    file: &str,
    text: &str,
    name: &toml::Spanned<String>,
) -> Result<String, DescriptionError> {
    let trimmed = name.get_ref().trim();
    let typeable = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if trimmed.is_empty() || !trimmed.chars().all(typeable) {
        return Err(DescriptionError {
            file: file.into(),
            line: line_of(text, name.span().start),
            message: "the name must be letters, digits, `-` or `_` (it is typed on the \
                      command line)"
                .into(),
        });
    }
    Ok(trimmed.to_string())
}

/// Definitions compiled into the binary: `(name, file name, text)`.
pub type Shipped = [(&'static str, &'static str, &'static str)];

/// The shipped definition named `name` in `library`: its file name and text.
///
/// ```
/// use antipode::puzzles::{blocks, description::shipped};
///
/// let (file, text) = shipped(blocks::library::SHIPPED, "klotski").unwrap();
/// assert_eq!(file, "klotski.toml");
/// assert!(text.contains("name = \"klotski\""));
/// assert!(shipped(blocks::library::SHIPPED, "klotsky").is_none());
/// ```
#[must_use]
pub fn shipped(library: &Shipped, name: &str) -> Option<(&'static str, &'static str)> {
    library
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, file, text)| (file, text))
}

/// A piece, place or hole number, or an orientation count, that a definition's checks
/// kept below 256 (at most 64 places, 128 orientations), as the byte it is stored in.
#[expect(
    clippy::cast_possible_truncation,
    reason = "every caller's value was checked against a bound below 256"
)]
pub(crate) fn byte(n: u64) -> u8 {
    debug_assert!(n < 256, "{n} does not fit a byte");
    n as u8
}
