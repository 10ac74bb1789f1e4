//! The description file of a peg solitaire board: TOML with the board drawn inside.
//!
//! ```toml
//! name = "english33"
//! title = "English peg solitaire, 33 holes"
//! source = "where the board comes from"
//! lattice = "square"     # square | square-diagonal | triangular
//! board = """
//!   ooo
//!   ooo
//! ooooooo
//! ooo.ooo
//! ooooooo
//!   ooo
//!   ooo
//! """
//! goal = { hole = 16 }   # or { row = 3, col = 3 }, "one-peg", or a drawing
//! ```
//!
//! The board is drawn one character per place: `o` a hole with a peg, `.` an empty
//! hole, a space or `#` no hole. The drawing is also the start. Holes are numbered
//! row by row from 0 (the numbers solutions and `--first` use). A jump goes from a
//! hole over a neighbour to the hole beyond, along the lattice's directions in the
//! drawing: `square` along rows and columns, `square-diagonal` also along both
//! diagonals, `triangular` along a row (holes drawn two columns apart, as `o o o`) and
//! both diagonals (the next row drawn one column to the side). Any other lattice
//! is given as `directions = [[rows, columns], ...]`, one step per line of jumps (its
//! opposite is implied): Hoppers' holes are drawn on a 5 x 5 grid's alternate places,
//! so its steps are `[1, 1]`, `[1, -1]`, `[0, 2]` and `[2, 0]`. Every problem found is
//! reported with the line of the file it is on.
#![deny(clippy::cast_possible_truncation)]

use crate::puzzles::description::byte;
use std::collections::BTreeSet;
use std::ops::Range;

use serde::Deserialize;

use super::{PegBoard, PegGoal};
use crate::puzzles::description::{
    DescriptionError, checked_name, drawing_lines, line_of, read_toml,
};

/// The most holes a board may have (a board is a 64-bit mask).
pub const MAX_HOLES: usize = 64;

/// The goal as written: read from the TOML value by [`goal_raw`], so that an array
/// (`goal = [1]`) is refused instead of read as the fields of `{ hole = 1 }`.
enum GoalRaw {
    Text(String),
    Hole(i64),
    Place(i64, i64),
}

/// The forms a goal may take, or `None`.
fn goal_raw(value: &toml::Value) -> Option<GoalRaw> {
    use toml::Value;
    match value {
        Value::String(text) => Some(GoalRaw::Text(text.clone())),
        Value::Table(table) => {
            let int = |key: &str| table.get(key).and_then(Value::as_integer);
            match table.len() {
                1 => int("hole").map(GoalRaw::Hole),
                2 => Some(GoalRaw::Place(int("row")?, int("col")?)),
                _ => None,
            }
        }
        _ => None,
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: toml::Spanned<String>,
    title: Option<String>,
    source: Option<String>,
    lattice: Option<toml::Spanned<String>>,
    directions: Option<toml::Spanned<Vec<Vec<i64>>>>,
    board: toml::Spanned<String>,
    goal: Option<toml::Spanned<toml::Value>>,
}

/// The steps of a named lattice, in drawing coordinates (rows, columns).
#[must_use]
pub fn lattice_steps(lattice: &str) -> Option<Vec<(i32, i32)>> {
    Some(match lattice {
        "square" => vec![(0, 1), (1, 0)],
        "square-diagonal" => vec![(0, 1), (1, 0), (1, 1), (1, -1)],
        "triangular" => vec![(0, 2), (1, 1), (1, -1)],
        _ => return None,
    })
}

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
}

impl Reader<'_> {
    fn at_line(&self, line: usize, message: impl Into<String>) -> DescriptionError {
        DescriptionError {
            file: self.file.into(),
            line,
            message: message.into(),
        }
    }

    fn at(&self, span: Range<usize>, message: impl Into<String>) -> DescriptionError {
        self.at_line(line_of(self.text, span.start), message)
    }
}

/// A drawing read into the (row, column) of every hole, row by row, and the board of
/// its pegs (hole `i` is bit `i`; holes past the 64th carry no bit, the caller refuses
/// such a board).
fn read_drawing(
    reader: &Reader<'_>,
    value: &str,
    span: &Range<usize>,
    what: &str,
) -> Result<(Vec<(i32, i32)>, u64), DescriptionError> {
    let mut holes = Vec::new();
    let mut pegs = 0u64;
    for (r, (line, row)) in drawing_lines(reader.text, value, span).iter().enumerate() {
        for (c, mark) in row.chars().enumerate() {
            let peg = match mark {
                'o' => true,
                '.' => false,
                ' ' | '#' => continue,
                other => {
                    return Err(reader.at_line(
                        *line,
                        format!(
                            "unknown character `{other}` in the {what}: `o` a peg, `.` an \
                             empty hole, a space or `#` no hole"
                        ),
                    ));
                }
            };
            if peg && holes.len() < MAX_HOLES {
                pegs |= 1 << holes.len();
            }
            let (Ok(r), Ok(c)) = (i32::try_from(r), i32::try_from(c)) else {
                return Err(reader.at_line(*line, "the drawing is too large"));
            };
            holes.push((r, c));
        }
    }
    Ok((holes, pegs))
}

/// The lattice's steps: a named lattice's or the `directions` given.
fn steps_of(reader: &Reader<'_>, raw: &Raw) -> Result<Vec<(i32, i32)>, DescriptionError> {
    Ok(match (&raw.lattice, &raw.directions) {
        (Some(_), Some(directions)) => {
            return Err(reader.at(
                directions.span(),
                "give `lattice` or `directions`, not both",
            ));
        }
        (Some(lattice), None) => lattice_steps(lattice.get_ref()).ok_or_else(|| {
            reader.at(
                lattice.span(),
                format!(
                    "unknown lattice `{}`: square, square-diagonal or triangular (or \
                     `directions` for another)",
                    lattice.get_ref()
                ),
            )
        })?,
        (None, Some(directions)) => {
            let mut steps = Vec::new();
            // A step of at most 16 holes either way.
            let small = |d: i64| i32::try_from(d).ok().filter(|d| d.unsigned_abs() <= 16);
            for step in directions.get_ref() {
                let parsed = match step[..] {
                    [dr, dc] => small(dr).zip(small(dc)).filter(|&step| step != (0, 0)),
                    _ => None,
                };
                let Some(parsed) = parsed else {
                    return Err(reader.at(
                        directions.span(),
                        format!(
                            "a direction is two steps [rows, columns], not both zero \
                             and at most 16 each; found {step:?}"
                        ),
                    ));
                };
                steps.push(parsed);
            }
            steps
        }
        (None, None) => {
            return Err(reader.at(
                raw.name.span(),
                "no `lattice` (square, square-diagonal or triangular) or `directions`",
            ));
        }
    })
}

/// The goal: one peg anywhere (the default), in a hole, or a drawn board.
fn goal_of(
    reader: &Reader<'_>,
    raw: &Raw,
    places: &[(i32, i32)],
) -> Result<PegGoal, DescriptionError> {
    let hole_at = |r: i32, c: i32| places.iter().position(|&p| p == (r, c));
    Ok(match &raw.goal {
        None => PegGoal::OnePeg,
        Some(goal) => {
            let span = goal.span();
            let Some(raw_goal) = goal_raw(goal.get_ref()) else {
                return Err(reader.at(
                    span,
                    "a goal is \"one-peg\", a drawing of the board, { hole = N } or \
                     { row = R, col = C }",
                ));
            };
            match raw_goal {
                GoalRaw::Text(text) if text.trim() == "one-peg" => PegGoal::OnePeg,
                GoalRaw::Text(text) => {
                    let (holes, board) = read_drawing(reader, &text, &span, "goal")?;
                    if holes != places {
                        return Err(reader.at(
                            span,
                            "the goal drawing's holes are not the board's (draw the same \
                             board with the goal's pegs, or write \"one-peg\" or { hole = N })",
                        ));
                    }
                    if board == 0 {
                        return Err(reader.at(span, "the goal drawing has no peg"));
                    }
                    PegGoal::Board(board)
                }
                GoalRaw::Hole(hole) => {
                    if !(0..places.len() as i64).contains(&hole) {
                        return Err(reader.at(
                            span,
                            format!(
                                "goal hole {hole} is not a hole: the board has {} holes, \
                                 numbered 0 to {} row by row",
                                places.len(),
                                places.len() - 1
                            ),
                        ));
                    }
                    PegGoal::Hole(byte(hole.unsigned_abs()))
                }
                GoalRaw::Place(row, col) => {
                    let hole = i32::try_from(row)
                        .ok()
                        .zip(i32::try_from(col).ok())
                        .and_then(|(r, c)| hole_at(r, c));
                    match hole {
                        Some(hole) => PegGoal::Hole(byte(hole as u64)),
                        None => {
                            return Err(reader.at(
                                span,
                                format!(
                                    "goal place row {row}, col {col} (from 0) is not a hole \
                                     of the board"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    })
}

/// Reads and checks a description; `file` names it in errors.
///
/// # Errors
/// [`DescriptionError`] naming the line of the first thing that is not valid.
pub fn parse(file: &str, text: &str) -> Result<PegBoard, DescriptionError> {
    let reader = Reader { file, text };
    let raw: Raw = read_toml(file, text)?;
    let name = checked_name(file, text, &raw.name)?;
    let steps = steps_of(&reader, &raw)?;
    let board_span = raw.board.span();
    let (places, start) = read_drawing(&reader, raw.board.get_ref(), &board_span, "board")?;
    if places.is_empty() {
        return Err(reader.at(board_span, "the board has no hole"));
    }
    if places.len() > MAX_HOLES {
        return Err(reader.at(
            board_span,
            format!(
                "the board has {} holes; at most {MAX_HOLES} are supported",
                places.len()
            ),
        ));
    }
    if start == 0 {
        return Err(reader.at(board_span, "the board has no peg (`o`) to start from"));
    }
    let hole_at = |r: i32, c: i32| places.iter().position(|&p| p == (r, c));
    let goal = goal_of(&reader, &raw, &places)?;
    let mut lines: BTreeSet<(i32, i32)> = BTreeSet::new();
    for &(dr, dc) in &steps {
        // One step per line of jumps: a step and its opposite are the same line.
        let canonical = if (dr, dc) < (0, 0) {
            (-dr, -dc)
        } else {
            (dr, dc)
        };
        lines.insert(canonical);
    }
    let mut jumps = vec![Vec::new(); places.len()];
    for (from, &(r, c)) in places.iter().enumerate() {
        for &(dr, dc) in &steps {
            for sign in [1, -1] {
                let (dr, dc) = (sign * dr, sign * dc);
                if let (Some(over), Some(to)) =
                    (hole_at(r + dr, c + dc), hole_at(r + 2 * dr, c + 2 * dc))
                {
                    let jump = (byte(over as u64), byte(to as u64));
                    if !jumps[from].contains(&jump) {
                        jumps[from].push(jump);
                    }
                }
            }
        }
    }
    Ok(PegBoard {
        title: raw.title.unwrap_or_else(|| name.clone()),
        name,
        source: raw.source.unwrap_or_default(),
        places,
        lines: lines.into_iter().collect(),
        jumps,
        by_from: Vec::new(),
        by_land: Vec::new(),
        start,
        goal,
    }
    .with_jump_masks())
}
