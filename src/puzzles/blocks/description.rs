//! The description file of a sliding-block puzzle: TOML with the board drawn inside.
//!
//! ```toml
//! name = "klotski"
//! title = "Klotski (横刀立马)"
//! source = "where the layout comes from"
//! board = """
//! ABBC
//! ABBC
//! DEEF
//! DGHF
//! I..J
//! """
//! identical = "shape"        # or a list of groups, e.g. ["GHIJ"]; default: none
//! goal = { piece = "B", row = 3, col = 1 }   # or a list of such, or a whole drawing
//! metric = "path"            # step | line | path; default step
//! ```
//!
//! The board is drawn one character per cell: `.` an empty cell, `#` a wall, any other
//! character a piece, whose cells share the character and must be connected. The
//! drawing is also the start position. Every problem found is reported with the line
//! of the file it is on.
#![deny(clippy::cast_possible_truncation)]

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;

use super::Metric;
pub use crate::puzzles::description::DescriptionError;
use crate::puzzles::description::{checked_name, drawing_lines, line_of, read_toml};

/// The most cells a board may have (walls included).
pub const MAX_CELLS: usize = 64;

/// Which pieces are interchangeable.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Identical {
    /// `"shape"`: pieces of the same shape are identical (the Klotski convention);
    /// `"none"`: every piece is distinct.
    Rule(String),
    /// Groups of characters naming interchangeable pieces.
    Groups(Vec<String>),
}

/// One goal condition: piece `piece` with the top-left cell of its bounding box at
/// (`row`, `col`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlacedRaw {
    piece: String,
    row: usize,
    col: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum GoalRaw {
    Drawing(String),
    One(PlacedRaw),
    All(Vec<PlacedRaw>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: toml::Spanned<String>,
    title: Option<String>,
    source: Option<String>,
    board: toml::Spanned<String>,
    identical: Option<toml::Spanned<Identical>>,
    goal: toml::Spanned<GoalRaw>,
    metric: Option<toml::Spanned<String>>,
}

/// A piece as drawn: its character and its cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnPiece {
    /// Its character in the drawing.
    pub glyph: char,
    /// Its cells (row-major numbers), ascending.
    pub cells: Vec<usize>,
}

/// The goal of a puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Goal {
    /// One whole position (a drawing with the same pieces).
    Position(Vec<DrawnPiece>),
    /// Pieces whose bounding box has its top-left cell at the given cell: any layout
    /// that has them there is a goal (a goal set).
    Placed(Vec<(char, usize)>),
}

/// A checked description.
#[derive(Debug, Clone)]
pub struct Description {
    /// The command-line name.
    pub name: String,
    /// A readable title.
    pub title: String,
    /// Where the layout comes from.
    pub source: String,
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// Wall cells.
    pub walls: Vec<usize>,
    /// The pieces, in the order they first appear (row-major), at the start position.
    pub pieces: Vec<DrawnPiece>,
    /// Groups of interchangeable pieces (indices into `pieces`), each of one shape.
    pub groups: Vec<Vec<usize>>,
    /// The goal.
    pub goal: Goal,
    /// The move metric.
    pub metric: Metric,
}

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
}

impl Reader<'_> {
    fn error(&self, span: Range<usize>, message: impl Into<String>) -> DescriptionError {
        DescriptionError {
            file: self.file.into(),
            line: line_of(self.text, span.start),
            message: message.into(),
        }
    }

    fn error_at_line(&self, line: usize, message: impl Into<String>) -> DescriptionError {
        DescriptionError {
            file: self.file.into(),
            line,
            message: message.into(),
        }
    }
}

/// The rows of a drawing with their line numbers in the file. A multi-line string
/// starting right after `"""` begins on the line after the opening quotes.
fn drawing_rows(reader: &Reader<'_>, text: &str, span: &Range<usize>) -> Vec<(usize, String)> {
    drawing_lines(reader.text, text, span)
        .into_iter()
        .map(|(line, row)| (line, row.trim_start().to_string()))
        .collect()
}

/// Reads a drawing into its size, walls and pieces.
fn read_drawing(
    reader: &Reader<'_>,
    rows_of_text: &[(usize, String)],
    what: &str,
    fallback_line: usize,
) -> Result<(usize, usize, Vec<usize>, Vec<DrawnPiece>), DescriptionError> {
    let Some((first_line, first)) = rows_of_text.first() else {
        return Err(reader.error_at_line(fallback_line, format!("the {what} is empty")));
    };
    let cols = first.chars().count();
    for (line, row) in rows_of_text {
        let found = row.chars().count();
        if found != cols {
            return Err(reader.error_at_line(
                *line,
                format!(
                    "ragged {what}: this row has {found} cells, the first row (line {first_line}) has {cols}"
                ),
            ));
        }
    }
    let rows = rows_of_text.len();
    if rows * cols > MAX_CELLS {
        return Err(reader.error_at_line(
            *first_line,
            format!(
                "the {what} has {} cells; at most {MAX_CELLS} are supported",
                rows * cols
            ),
        ));
    }
    let mut walls = Vec::new();
    let mut by_glyph: BTreeMap<char, (usize, Vec<usize>)> = BTreeMap::new();
    for (r, (line, row)) in rows_of_text.iter().enumerate() {
        for (c, glyph) in row.chars().enumerate() {
            let cell = r * cols + c;
            match glyph {
                '.' => {}
                '#' => walls.push(cell),
                g if g.is_whitespace() => {
                    return Err(reader.error_at_line(
                        *line,
                        format!("a space inside the {what}: use `.` for an empty cell"),
                    ));
                }
                g => by_glyph
                    .entry(g)
                    .or_insert((*line, Vec::new()))
                    .1
                    .push(cell),
            }
        }
    }
    let mut pieces: Vec<(usize, DrawnPiece)> = Vec::new();
    for (glyph, (line, cells)) in by_glyph {
        if !connected(&cells, cols) {
            return Err(reader.error_at_line(
                line,
                format!("piece `{glyph}`: its cells are not connected (one character per piece)"),
            ));
        }
        pieces.push((line, DrawnPiece { glyph, cells }));
    }
    pieces.sort_by_key(|(_, p)| p.cells[0]);
    Ok((
        rows,
        cols,
        walls,
        pieces.into_iter().map(|(_, p)| p).collect(),
    ))
}

/// Whether `cells` (ascending) form one edge-connected region.
pub(super) fn connected(cells: &[usize], cols: usize) -> bool {
    components(cells, cols).len() == 1
}

/// The edge-connected regions of `cells` (ascending), each ascending, in the order of
/// their first cells.
pub(super) fn components(cells: &[usize], cols: usize) -> Vec<Vec<usize>> {
    let adjacent =
        |a: usize, b: usize| (a / cols == b / cols && a.abs_diff(b) == 1) || a.abs_diff(b) == cols;
    let mut regions: Vec<Vec<usize>> = Vec::new();
    let mut assigned = vec![false; cells.len()];
    for start in 0..cells.len() {
        if assigned[start] {
            continue;
        }
        assigned[start] = true;
        let mut region = vec![cells[start]];
        let mut k = 0;
        while k < region.len() {
            let at = region[k];
            for (j, &other) in cells.iter().enumerate() {
                if !assigned[j] && adjacent(at, other) {
                    assigned[j] = true;
                    region.push(other);
                }
            }
            k += 1;
        }
        region.sort_unstable();
        regions.push(region);
    }
    regions
}

/// A piece's shape: its cells relative to its bounding box's top-left corner.
#[must_use]
pub fn shape_of(cells: &[usize], cols: usize) -> Vec<(usize, usize)> {
    let top = cells.iter().map(|c| c / cols).min().unwrap_or(0);
    let left = cells.iter().map(|c| c % cols).min().unwrap_or(0);
    let mut shape: Vec<(usize, usize)> = cells
        .iter()
        .map(|c| (c / cols - top, c % cols - left))
        .collect();
    shape.sort_unstable();
    shape
}

/// The top-left corner of a piece's bounding box.
#[must_use]
pub fn corner_of(cells: &[usize], cols: usize) -> (usize, usize) {
    (
        cells.iter().map(|c| c / cols).min().unwrap_or(0),
        cells.iter().map(|c| c % cols).min().unwrap_or(0),
    )
}

/// Reads and checks a description; `file` names it in errors.
///
/// # Errors
/// [`DescriptionError`] naming the line of the first thing that is not valid.
pub fn parse(file: &str, text: &str) -> Result<Description, DescriptionError> {
    let reader = Reader { file, text };
    let raw: Raw = read_toml(file, text)?;
    let name = checked_name(file, text, &raw.name)?;
    let board_span = raw.board.span();
    let board_rows = drawing_rows(&reader, raw.board.get_ref(), &board_span);
    let (rows, cols, walls, pieces) = read_drawing(
        &reader,
        &board_rows,
        "board",
        line_of(text, board_span.start),
    )?;
    if pieces.is_empty() {
        return Err(reader.error(board_span, "the board has no piece"));
    }
    let empty = rows * cols - walls.len() - pieces.iter().map(|p| p.cells.len()).sum::<usize>();
    if empty == 0 {
        return Err(reader.error(board_span, "the board has no empty cell: nothing can move"));
    }
    let shapes: Vec<Vec<(usize, usize)>> =
        pieces.iter().map(|p| shape_of(&p.cells, cols)).collect();
    let groups = interchangeable(&reader, raw.identical.as_ref(), &pieces, &shapes)?;
    let metric = match raw.metric.as_ref() {
        None => Metric::Step,
        Some(m) => Metric::from_name(m.get_ref()).ok_or_else(|| {
            reader.error(
                m.span(),
                format!("metric = \"{}\": use step, line or path", m.get_ref()),
            )
        })?,
    };

    let geometry = Geometry {
        pieces: &pieces,
        shapes: &shapes,
        rows,
        cols,
        walls: &walls,
    };
    let goal = read_goal(&reader, &raw.goal, &geometry)?;

    Ok(Description {
        title: raw.title.unwrap_or_else(|| name.clone()),
        source: raw.source.unwrap_or_default(),
        name,
        rows,
        cols,
        walls,
        pieces,
        groups,
        goal,
        metric,
    })
}

/// The groups of interchangeable pieces the `identical` entry names (every piece in
/// a group of its own when it names none).
fn interchangeable(
    reader: &Reader<'_>,
    identical: Option<&toml::Spanned<Identical>>,
    pieces: &[DrawnPiece],
    shapes: &[Vec<(usize, usize)>],
) -> Result<Vec<Vec<usize>>, DescriptionError> {
    let glyph_index = |g: char| pieces.iter().position(|p| p.glyph == g);
    let mut group_of: Vec<Option<usize>> = vec![None; pieces.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    match identical.map(|s| (s.get_ref(), s.span())) {
        None => {}
        Some((Identical::Rule(rule), span)) => match rule.as_str() {
            "none" => {}
            "shape" => {
                for (k, shape) in shapes.iter().enumerate() {
                    if group_of[k].is_some() {
                        continue;
                    }
                    let members: Vec<usize> =
                        (k..pieces.len()).filter(|&j| shapes[j] == *shape).collect();
                    for &j in &members {
                        group_of[j] = Some(groups.len());
                    }
                    groups.push(members);
                }
            }
            other => {
                return Err(reader.error(
                    span,
                    format!(
                        "identical = \"{other}\": use \"shape\", \"none\" or a list of groups such as [\"GHIJ\"]"
                    ),
                ));
            }
        },
        Some((Identical::Groups(list), span)) => {
            for group in list {
                let span = span.clone();
                let mut members = Vec::new();
                for g in group.chars() {
                    let Some(k) = glyph_index(g) else {
                        return Err(
                            reader.error(span, format!("identical: no piece `{g}` on the board"))
                        );
                    };
                    if group_of[k].is_some() || members.contains(&k) {
                        return Err(
                            reader.error(span, format!("identical: piece `{g}` is named twice"))
                        );
                    }
                    if shapes[k] != shapes[members.first().copied().unwrap_or(k)] {
                        return Err(reader.error(
                            span,
                            format!(
                                "identical: piece `{g}` has another shape than `{}`",
                                pieces[members[0]].glyph
                            ),
                        ));
                    }
                    members.push(k);
                }
                for &k in &members {
                    group_of[k] = Some(groups.len());
                }
                groups.push(members);
            }
        }
    }
    for (k, group) in group_of.iter_mut().enumerate() {
        if group.is_none() {
            *group = Some(groups.len());
            groups.push(vec![k]);
        }
    }

    Ok(groups)
}

/// The goal: a drawing of the same pieces, or pieces placed at cells.
fn read_goal(
    reader: &Reader<'_>,
    goal: &toml::Spanned<GoalRaw>,
    geometry: &Geometry<'_>,
) -> Result<Goal, DescriptionError> {
    let goal_span = goal.span();
    Ok(match goal.get_ref() {
        GoalRaw::Drawing(drawing) => {
            let goal_rows = drawing_rows(reader, drawing, &goal_span);
            let (goal_r, goal_c, goal_walls, goal_pieces) = read_drawing(
                reader,
                &goal_rows,
                "goal",
                line_of(reader.text, goal_span.start),
            )?;
            if (goal_r, goal_c) != (geometry.rows, geometry.cols) || goal_walls != geometry.walls {
                return Err(reader.error(
                    goal_span,
                    format!(
                        "the goal is drawn on a {goal_r}x{goal_c} board with other walls; the board is {}x{}", geometry.rows, geometry.cols
                    ),
                ));
            }
            if let Some(problem) = same_pieces(geometry.pieces, &goal_pieces, geometry.cols) {
                return Err(reader.error(goal_span, format!("the goal drawing: {problem}")));
            }
            Goal::Position(goal_pieces)
        }
        GoalRaw::One(placed) => {
            Goal::Placed(vec![geometry.check_placed(reader, &goal_span, placed)?])
        }
        GoalRaw::All(list) => {
            if list.is_empty() {
                return Err(reader.error(goal_span, "the goal names no piece"));
            }
            let mut placed = Vec::new();
            for p in list {
                placed.push(geometry.check_placed(reader, &goal_span, p)?);
            }
            Goal::Placed(placed)
        }
    })
}

/// The board's size, walls and pieces, for checking goal conditions.
struct Geometry<'a> {
    pieces: &'a [DrawnPiece],
    shapes: &'a [Vec<(usize, usize)>],
    rows: usize,
    cols: usize,
    walls: &'a [usize],
}

impl Geometry<'_> {
    /// A goal condition names a piece of the board and a place where it fits.
    fn check_placed(
        &self,
        reader: &Reader<'_>,
        span: &Range<usize>,
        placed: &PlacedRaw,
    ) -> Result<(char, usize), DescriptionError> {
        let mut chars = placed.piece.chars();
        let (Some(glyph), None) = (chars.next(), chars.next()) else {
            return Err(reader.error(
                span.clone(),
                format!(
                    "goal piece `{}`: name one piece by its character",
                    placed.piece
                ),
            ));
        };
        let Some(k) = self.pieces.iter().position(|p| p.glyph == glyph) else {
            return Err(reader.error(
                span.clone(),
                format!("the goal names piece `{glyph}`, which is not on the board"),
            ));
        };
        let fits = self.shapes[k].iter().all(|&(dr, dc)| {
            let (r, c) = (placed.row + dr, placed.col + dc);
            r < self.rows && c < self.cols && !self.walls.contains(&(r * self.cols + c))
        });
        if !fits {
            return Err(reader.error(
                span.clone(),
                format!(
                    "goal: piece `{glyph}` cannot stand with its top-left corner at row {}, \
                     column {} (rows and columns count from 0)",
                    placed.row, placed.col
                ),
            ));
        }
        Ok((glyph, placed.row * self.cols + placed.col))
    }
}

/// What differs between a drawing's pieces and the board's, if anything.
pub(super) fn same_pieces(
    pieces: &[DrawnPiece],
    drawn: &[DrawnPiece],
    cols: usize,
) -> Option<String> {
    for d in drawn {
        let Some(p) = pieces.iter().find(|p| p.glyph == d.glyph) else {
            return Some(format!("unknown piece `{}`", d.glyph));
        };
        if shape_of(&p.cells, cols) != shape_of(&d.cells, cols) {
            return Some(format!(
                "piece `{}` has another shape than on the board",
                d.glyph
            ));
        }
    }
    pieces
        .iter()
        .find(|p| !drawn.iter().any(|d| d.glyph == p.glyph))
        .map(|p| format!("piece `{}` is missing", p.glyph))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KLOTSKI: &str = r#"name = "klotski"
board = """
ABBC
ABBC
DEEF
DGHF
I..J
"""
identical = "shape"
goal = { piece = "B", row = 3, col = 1 }
metric = "path"
"#;

    #[test]
    fn reads_klotski() {
        let d = parse("klotski.toml", KLOTSKI).unwrap();
        assert_eq!((d.rows, d.cols), (5, 4));
        assert_eq!(d.pieces.len(), 10);
        assert_eq!(d.pieces[0].glyph, 'A');
        // 2x2, one horizontal 2x1, four vertical, four 1x1.
        let mut sizes: Vec<usize> = d.groups.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, [1, 1, 4, 4]);
        assert_eq!(d.goal, Goal::Placed(vec![('B', 13)]));
        assert_eq!(d.metric, Metric::Path);
    }

    fn error(text: &str) -> DescriptionError {
        parse("p.toml", text).unwrap_err()
    }

    #[test]
    fn errors_name_the_line() {
        let ragged = KLOTSKI.replace("DGHF\n", "DGH\n");
        let e = error(&ragged);
        assert_eq!(e.line, 6, "{e}");
        assert!(e.message.contains("ragged"), "{e}");
        let split = KLOTSKI.replace("I..J", "I..A");
        let e = error(&split);
        assert!(
            e.message.contains("piece `A`") && e.message.contains("not connected"),
            "{e}"
        );
        assert_eq!(e.line, 3);
        let e = error(&KLOTSKI.replace("piece = \"B\"", "piece = \"Z\""));
        assert!(e.message.contains("`Z`, which is not on the board"), "{e}");
        assert_eq!(e.line, 10);
        let e = error(&KLOTSKI.replace("row = 3", "row = 4"));
        assert!(e.message.contains("cannot stand"), "{e}");
        let e = error("name = \"x\"\nboard = [1,\n");
        assert!(e.to_string().starts_with("p.toml:"), "{e}");
        assert!(e.message.contains("not a valid description"), "{e}");
        let e = error(&KLOTSKI.replace("metric = \"path\"", "metric = \"fly\""));
        assert_eq!(e.line, 11);
        let e = error(&KLOTSKI.replace("identical = \"shape\"", "identical = [\"AE\"]"));
        assert!(e.message.contains("another shape"), "{e}");
        let e = error(&KLOTSKI.replace("I..J", "IXXJ"));
        assert!(e.message.contains("no empty cell"), "{e}");
    }
}
