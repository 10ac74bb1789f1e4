//! The position syntax shared by all boards: rows separated by `/`, cells by spaces or
//! commas; boards whose pieces are single characters also accept bare characters
//! (`867254301`, `867/254/301`, `67BB/4528/0831`).

use crate::puzzle::PositionError;

/// Splits a position into rows of tokens.
///
/// A row with no space or comma is split into single characters when `bare` is true
/// (and is one token otherwise). A text with no `/` is one row; the caller may
/// reshape it when it has as many tokens as the board has cells.
///
/// # Errors
/// [`PositionError`] if a token is not a number.
pub fn tokenize(text: &str, bare: bool) -> Result<Vec<Vec<&str>>, PositionError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(PositionError::Malformed("empty position".into()));
    }
    text.split('/')
        .map(|row| {
            let row = row.trim();
            if row.is_empty() {
                return Err(PositionError::Malformed(format!(
                    "empty row in `{text}` (rows are separated by `/`)"
                )));
            }
            let separated = row.contains(|c: char| c.is_whitespace() || c == ',');
            Ok(if separated {
                row.split(|c: char| c.is_whitespace() || c == ',')
                    .filter(|t| !t.is_empty())
                    .collect()
            } else if bare {
                row.char_indices()
                    .map(|(i, c)| &row[i..i + c.len_utf8()])
                    .collect()
            } else {
                vec![row]
            })
        })
        .collect()
}

/// Flattens rows into `rows * cols` cells, accepting either exactly `rows` rows of
/// `cols` tokens or one row of `rows * cols` tokens.
///
/// # Errors
/// [`PositionError`] if the text does not have the board's shape.
pub fn cells_of_shape(
    rows_of_tokens: Vec<Vec<&str>>,
    rows: usize,
    cols: usize,
) -> Result<Vec<&str>, PositionError> {
    let shape_ok = rows_of_tokens.len() == rows && rows_of_tokens.iter().all(|r| r.len() == cols);
    let single_row_ok = rows_of_tokens.len() == 1 && rows_of_tokens[0].len() == rows * cols;
    if shape_ok || single_row_ok {
        return Ok(rows_of_tokens.into_iter().flatten().collect());
    }
    let total: usize = rows_of_tokens.iter().map(Vec::len).sum();
    if rows == 1 {
        return Err(PositionError::WrongSize {
            expected: format!("{cols} cells"),
            found: format!("{total}"),
        });
    }
    let found = rows_of_tokens
        .iter()
        .map(|r| r.len().to_string())
        .collect::<Vec<_>>()
        .join("/");
    Err(PositionError::WrongSize {
        expected: format!("{rows} rows of {cols} cells ({} cells)", rows * cols),
        found: format!(
            "{} row(s) of {found} cells ({total} cells)",
            rows_of_tokens.len()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let t = tokenize("0 3 2 1 / 8 7 6 5 / 4 11 10 9", false).unwrap();
        assert_eq!(t[2], vec!["4", "11", "10", "9"]);
        let t = tokenize("867/254/301", true).unwrap();
        assert_eq!(t.len(), 3);
        let t = tokenize("8,6,7,2,5,4,3,0,1", true).unwrap();
        assert_eq!(t[0].len(), 9);
        assert!(tokenize("  ", true).is_err());
        assert!(tokenize("12//3", true).is_err());
        assert!(cells_of_shape(tokenize("1234/5678", true).unwrap(), 3, 3).is_err());
        assert_eq!(
            cells_of_shape(tokenize("867254301", true).unwrap(), 3, 3)
                .unwrap()
                .len(),
            9
        );
    }
}
