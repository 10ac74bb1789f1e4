//! A sliding board's shape and goal, up to [`MAX_SHAPE_CELLS`] cells: what pattern
//! databases need, without the full ranking of [`SlidingPuzzle`], which stops at
//! [`MAX_CELLS`] cells (the 24-puzzle has 25!/2, about 7.8e24, states).
//!
//! ```
//! use antipode::puzzles::sliding::BoardShape;
//!
//! let shape = BoardShape::new(5, 5).unwrap();
//! assert_eq!(shape.name(), "24puzzle");
//! let korf = shape.parse("0 1 2 3 4/5 6 7 8 9/10 11 12 13 14/15 16 17 18 19/20 21 22 23 24");
//! assert_eq!(korf.unwrap()[..3], [0, 1, 2]);
//! ```

use super::{MAX_CELLS, SizeError, SlidingPuzzle};
use crate::PositionError;
use crate::puzzles::notation;
use crate::rank::permutation;

/// The most cells a board shape may have (pattern databases index up to this many:
/// `crate::solvers::sliding` checks that they agree).
pub const MAX_SHAPE_CELLS: usize = 32;

/// A board's rows, columns and goal (row-major tile numbers, 0 for the blank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardShape {
    rows: usize,
    cols: usize,
    goal: Vec<u8>,
}

/// The name of the `rows` x `cols` board: `8puzzle`, `11puzzle`, `15puzzle`,
/// `24puzzle`, else `sliding:RxC`.
#[must_use]
pub fn board_name(rows: usize, cols: usize) -> String {
    match (rows, cols) {
        (3, 3) => "8puzzle".into(),
        (3, 4) => "11puzzle".into(),
        (4, 4) => "15puzzle".into(),
        (5, 5) => "24puzzle".into(),
        (r, c) => format!("sliding:{r}x{c}"),
    }
}

/// A board's notation: positions as row-major tile numbers, which must reach the goal.
impl crate::puzzle::Notation for BoardShape {
    type State = Vec<u8>;
    fn name(&self) -> String {
        BoardShape::name(self)
    }
    fn start(&self) -> Option<Vec<u8>> {
        None
    }
    fn parse(&self, text: &str) -> Result<Vec<u8>, PositionError> {
        self.parse_position(text)
    }
    fn format_line(&self, cells: &Vec<u8>) -> String {
        BoardShape::format_line(self, cells)
    }
    fn render_board(&self, cells: &Vec<u8>) -> String {
        self.render(cells)
    }
    fn notation(&self) -> String {
        "rows separated by `/`, tiles by spaces (single digits without spaces on boards \
         of at most 10 cells), `0` the blank"
            .into()
    }
}

impl BoardShape {
    /// The `rows` x `cols` board with the usual goal: tiles in order, blank last.
    ///
    /// # Errors
    /// [`SizeError`] if the board has fewer than two cells or more than fit a
    /// position's cell bytes.
    pub fn new(rows: usize, cols: usize) -> Result<BoardShape, SizeError> {
        if rows < 2 || cols < 2 {
            return Err(SizeError::TooNarrow { rows, cols });
        }
        let cells = rows * cols;
        if cells > MAX_SHAPE_CELLS {
            return Err(SizeError::TooManyCells {
                rows,
                cols,
                cells,
                max: MAX_SHAPE_CELLS,
            });
        }
        Ok(BoardShape {
            rows,
            cols,
            goal: (1..cells as u8).chain([0]).collect(),
        })
    }

    /// The shape and goal of an indexed puzzle.
    #[must_use]
    pub fn of(puzzle: &SlidingPuzzle) -> BoardShape {
        BoardShape {
            rows: puzzle.rows(),
            cols: puzzle.cols(),
            goal: puzzle.goal().cells().to_vec(),
        }
    }

    /// The same board with the goal `text` (any arrangement of its tiles).
    ///
    /// # Errors
    /// [`PositionError`] if the goal is not an arrangement of this board's tiles.
    pub fn with_goal(mut self, text: &str) -> Result<BoardShape, PositionError> {
        self.goal = self.parse(text)?;
        Ok(self)
    }

    /// Rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The goal, row-major.
    #[must_use]
    pub fn goal(&self) -> &[u8] {
        &self.goal
    }

    /// The board's name ([`board_name`]).
    #[must_use]
    pub fn name(&self) -> String {
        board_name(self.rows, self.cols)
    }

    /// Reads an arrangement (rows separated by `/`, tiles by spaces, or single digits
    /// on boards of at most 10 cells; `0` or `.` the blank), without a solvability
    /// check.
    ///
    /// # Errors
    /// [`PositionError`] if the text is not a position of this board or cannot reach
    /// its goal.
    pub fn parse(&self, text: &str) -> Result<Vec<u8>, PositionError> {
        parse_cells(self.rows, self.cols, text)
    }

    /// Reads a position that can reach the goal: [`BoardShape::parse`], then the
    /// parity check (a move swaps the blank with a tile and changes the blank's
    /// colour, so the permutation from the position to the goal, blank included,
    /// has the parity of the blank's distance to its goal cell).
    ///
    /// # Errors
    /// [`PositionError`] if the text is not an arrangement of this board's tiles.
    ///
    /// ```
    /// use antipode::puzzles::sliding::BoardShape;
    ///
    /// let shape = BoardShape::new(5, 5).unwrap();
    /// let near = "1 2 3 4 5/6 7 8 9 10/11 12 13 14 15/16 17 18 19 20/21 22 23 0 24";
    /// assert!(shape.parse_position(near).is_ok());
    /// let swapped = "2 1 3 4 5/6 7 8 9 10/11 12 13 14 15/16 17 18 19 20/21 22 23 24 0";
    /// assert!(shape.parse_position(swapped).is_err());
    /// ```
    pub fn parse_position(&self, text: &str) -> Result<Vec<u8>, PositionError> {
        let cells = self.parse(text)?;
        if !self.reaches_goal(&cells) {
            return Err(wrong_parity(self.rows, self.cols, &cells, &self.goal));
        }
        Ok(cells)
    }

    /// Checks a position given as cells (row by row, the tile in each, 0 the blank),
    /// as other programs hold it: the board's size, every tile once, and the parity
    /// check of [`BoardShape::parse_position`].
    ///
    /// # Errors
    /// [`PositionError`] if the cells are not an arrangement of this board's tiles.
    ///
    /// ```
    /// use antipode::puzzles::sliding::BoardShape;
    ///
    /// let shape = BoardShape::new(3, 3).unwrap();
    /// assert!(shape.check_cells(&[1, 2, 3, 4, 5, 6, 7, 0, 8]).is_ok());
    /// let error = shape.check_cells(&[1, 1, 3, 4, 5, 6, 7, 0, 8]).unwrap_err();
    /// assert_eq!(error.to_string(), "piece `1` appears too often");
    /// ```
    pub fn check_cells(&self, cells: &[u8]) -> Result<(), PositionError> {
        let n = self.cells();
        if cells.len() != n {
            return Err(PositionError::WrongSize {
                expected: format!("{n} cells"),
                found: format!("{} cells", cells.len()),
            });
        }
        let mut seen = [false; MAX_SHAPE_CELLS];
        for &tile in cells {
            if tile as usize >= n {
                return Err(PositionError::UnknownPiece(tile.to_string()));
            }
            if std::mem::replace(&mut seen[tile as usize], true) {
                return Err(PositionError::Duplicate(tile.to_string()));
            }
        }
        if !self.reaches_goal(cells) {
            return Err(wrong_parity(self.rows, self.cols, cells, &self.goal));
        }
        Ok(())
    }

    /// Whether `cells` (an arrangement of this board's tiles) can reach the goal.
    #[must_use]
    pub fn reaches_goal(&self, cells: &[u8]) -> bool {
        let n = self.cells();
        let mut home = [0u8; MAX_SHAPE_CELLS];
        for (cell, &tile) in self.goal.iter().enumerate() {
            home[tile as usize] = cell as u8;
        }
        let mut moved = [0u8; MAX_SHAPE_CELLS];
        for (cell, &tile) in cells.iter().enumerate() {
            moved[cell] = home[tile as usize];
        }
        permutation::parity(&moved[..n])
            == self.colour(blank_cell(cells)) ^ self.colour(blank_cell(&self.goal))
    }

    /// A cell's colour on a chess-board colouring; every move flips the blank's.
    #[must_use]
    pub fn colour(&self, cell: usize) -> u8 {
        colour(self.cols, cell)
    }

    /// One line: rows separated by `/`, tiles by spaces (none on boards of at most
    /// 10 cells).
    #[must_use]
    pub fn format_line(&self, cells: &[u8]) -> String {
        format_cells(self.rows, self.cols, cells)
    }

    /// The board drawn row by row, `.` for the blank.
    #[must_use]
    pub fn render(&self, cells: &[u8]) -> String {
        render_cells(self.cols, cells)
    }

    /// Whether the full ranking ([`SlidingPuzzle`]) takes this board.
    #[must_use]
    pub fn indexable(&self) -> bool {
        self.cells() <= MAX_CELLS
    }
}

/// [`BoardShape::parse`] for a `rows` x `cols` board.
pub(super) fn parse_cells(rows: usize, cols: usize, text: &str) -> Result<Vec<u8>, PositionError> {
    let n = rows * cols;
    let tokens = notation::tokenize(text, n <= 10)?;
    let tokens = notation::cells_of_shape(tokens, rows, cols)?;
    let mut seen = [false; MAX_SHAPE_CELLS];
    let mut cells = Vec::with_capacity(n);
    for token in &tokens {
        let tile = match *token {
            "." => 0,
            t => match t.parse::<usize>() {
                Ok(v) if v < n => v,
                _ => return Err(PositionError::UnknownPiece(token.to_string())),
            },
        };
        if seen[tile] {
            return Err(PositionError::Duplicate(token.to_string()));
        }
        seen[tile] = true;
        cells.push(tile as u8);
    }
    Ok(cells)
}

/// The cell of the blank (tile 0) among `cells`, 0 if there is none.
pub(crate) fn blank_cell(cells: &[u8]) -> usize {
    cells.iter().position(|&t| t == 0).unwrap_or(0)
}

/// The colour of `cell` on a chess-board colouring of a board of `cols` columns.
pub(super) fn colour(cols: usize, cell: usize) -> u8 {
    ((cell / cols + cell % cols) & 1) as u8
}

/// The refusal of a position of the other parity than `goal`'s.
pub(super) fn wrong_parity(rows: usize, cols: usize, cells: &[u8], goal: &[u8]) -> PositionError {
    PositionError::Unsolvable(format!(
        "`{}` has the wrong parity: it cannot reach the goal `{}` \
         (swap two tiles to make it solvable)",
        format_cells(rows, cols, cells),
        format_cells(rows, cols, goal)
    ))
}

/// [`BoardShape::format_line`] for a `rows` x `cols` board.
pub(super) fn format_cells(rows: usize, cols: usize, cells: &[u8]) -> String {
    let bare = rows * cols <= 10;
    cells
        .chunks(cols)
        .map(|row| {
            let tiles: Vec<String> = row.iter().map(|t| t.to_string()).collect();
            tiles.join(if bare { "" } else { " " })
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// [`BoardShape::render`] for a board of `cols` columns.
pub(super) fn render_cells(cols: usize, cells: &[u8]) -> String {
    let width = if cells.len() > 10 { 2 } else { 1 };
    let mut text = String::new();
    for row in cells.chunks(cols) {
        let line: Vec<String> = row
            .iter()
            .map(|&t| match t {
                0 => format!("{:>width$}", "."),
                t => format!("{t:>width$}"),
            })
            .collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text
}

impl SlidingPuzzle {
    /// The indexed puzzle of a shape of at most [`MAX_CELLS`] cells.
    ///
    /// # Errors
    /// [`SizeError`] if the shape is not `RxC` of a size [`BoardShape::new`] takes.
    pub fn of_shape(shape: &BoardShape) -> Result<SlidingPuzzle, SizeError> {
        let puzzle = SlidingPuzzle::new(shape.rows, shape.cols)?;
        let goal = super::Board::from_cells(&shape.goal);
        Ok(puzzle.with_goal(goal))
    }
}

/// Keeps the puzzle's and the shape's names, notation and solvability the same.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::Notation;
    use proptest::prelude::*;

    /// A permutation of `0..n` from a seed.
    fn shuffled(n: usize, mut seed: u64) -> Vec<u8> {
        let mut cells: Vec<u8> = (0..n as u8).collect();
        for i in (1..n).rev() {
            cells.swap(i, (seed % (i as u64 + 1)) as usize);
            seed = seed.rotate_left(7) ^ (seed / (i as u64 + 1));
        }
        cells
    }

    proptest! {
        /// The parity rule of a shape agrees with the indexed puzzle's, whose index
        /// space is exactly the goal's half, for any goal.
        #[test]
        fn shapes_and_puzzles_agree_on_solvability(
            (rows, cols) in prop::sample::select(vec![(2, 2), (2, 3), (3, 3), (2, 5), (3, 4), (4, 4)]),
            goal_seed in any::<u64>(),
            seed in any::<u64>(),
        ) {
            let goal = shuffled(rows * cols, goal_seed);
            let shape = BoardShape::new(rows, cols).unwrap();
            let shape = shape.clone().with_goal(&shape.format_line(&goal)).unwrap();
            let puzzle = SlidingPuzzle::of_shape(&shape).unwrap();
            prop_assert!(shape.reaches_goal(&goal));
            let cells = shuffled(rows * cols, seed);
            let line = shape.format_line(&cells);
            let reaches = puzzle.parse(&line).is_ok();
            prop_assert_eq!(shape.reaches_goal(&cells), reaches);
            prop_assert_eq!(shape.parse_position(&line).is_ok(), reaches);
        }
    }

    #[test]
    fn shapes_read_and_write_like_the_indexed_puzzle() {
        for (rows, cols) in [(3, 3), (2, 5), (3, 4), (4, 4)] {
            let puzzle = SlidingPuzzle::new(rows, cols).unwrap();
            let shape = BoardShape::of(&puzzle);
            assert_eq!(shape, BoardShape::new(rows, cols).unwrap());
            assert_eq!(shape.name(), puzzle.name());
            let goal = puzzle.goal();
            let line = puzzle.format_line(&goal);
            assert_eq!(shape.format_line(goal.cells()), line);
            assert_eq!(shape.parse(&line).unwrap(), goal.cells());
        }
        let big = BoardShape::new(5, 5).unwrap();
        assert!(!big.indexable());
        assert_eq!(big.goal().len(), 25);
        assert!(matches!(
            BoardShape::new(6, 6),
            Err(SizeError::TooManyCells { cells: 36, .. })
        ));
        assert!(big.parse("1 2 3/4 5 6").is_err());
    }
}
