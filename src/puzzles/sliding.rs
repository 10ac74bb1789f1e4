//! Sliding-tile boards: tiles `1..n-1` and one blank on an R x C board (4 <= n <= 16).
//!
//! **Index** = `blank cell * H + r`, where `r` ranks the tile order (tiles read in
//! row-major order, blank skipped) among the `H = (n-1)!/2` orders of the parity the
//! blank's row allows. Half of all arrangements are reachable, so the hash is minimal:
//! `n!/2` indices, no holes.
//!
//! That layout makes moves cheap: a horizontal move keeps the tile order (index +- H);
//! a vertical move rotates C consecutive entries of it, which changes only C Lehmer
//! digits. `expand` uses this to expand runs of consecutive indices incrementally.

mod expand;
mod shape;

pub(crate) use shape::blank_cell;
pub use shape::{BoardShape, MAX_SHAPE_CELLS, board_name};

use crate::grid::Grid;
use crate::puzzle::{Notation, PositionError, Puzzle, Segment, Successor, Translations};
use crate::rank::{factorial, permutation};

/// The most cells a board may have.
pub const MAX_CELLS: usize = 16;

/// A position: `cells[i]` is the tile on cell `i` (row-major), 0 for the blank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [u8; MAX_CELLS],
    len: u8,
}

impl Board {
    /// A board from its cells (tile numbers, 0 for the blank). Not validated.
    #[must_use]
    pub fn from_cells(cells: &[u8]) -> Board {
        let mut board = Board {
            cells: [0; MAX_CELLS],
            len: cells.len() as u8,
        };
        board.cells[..cells.len()].copy_from_slice(cells);
        board
    }

    /// The cells, row-major.
    #[must_use]
    pub fn cells(&self) -> &[u8] {
        &self.cells[..self.len as usize]
    }

    /// The blank's cell.
    #[must_use]
    pub fn blank(&self) -> usize {
        shape::blank_cell(self.cells())
    }
}

/// `10^log10` written like `1.551e25`.
fn scientific(log10: f64) -> String {
    let exponent = log10.floor();
    format!("{:.3}e{exponent}", 10f64.powf(log10 - exponent))
}

/// Why a board size is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SizeError {
    /// Rows or columns below 2: tiles could not change order.
    #[error("board {rows}x{cols}: rows and columns must both be at least 2")]
    TooNarrow {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// More cells than the ranking supports.
    #[error(
        "board {rows}x{cols} has {cells} cells, at most 16 are supported \
         (a full table would need {} bytes, one per state)",
        scientific(*states_log10)
    )]
    TooLarge {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
        /// rows * cols.
        cells: usize,
        /// log10 of cells!/2, the number of reachable states (the number itself
        /// overflows a float beyond 170 cells).
        states_log10: f64,
    },
    /// More cells than even a board shape (pattern databases) supports.
    #[error("board {rows}x{cols} has {cells} cells, at most {max} are supported")]
    TooManyCells {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
        /// rows * cols.
        cells: usize,
        /// The most cells.
        max: usize,
    },
}

/// A sliding-tile puzzle of a given shape and goal.
#[derive(Debug, Clone)]
pub struct SlidingPuzzle {
    rows: usize,
    cols: usize,
    goal: Board,
    /// Parity of the tile order required when the blank is on row 0 (see `required_parity`).
    parity_base: u8,
    /// `H = (n-1)!/2`: indices per blank cell.
    block: u64,
    /// Place values for the fast expansion.
    walk: std::sync::Arc<expand::WalkTables>,
}

impl SlidingPuzzle {
    /// The board `rows` x `cols` with the usual goal: tiles in order, blank last.
    ///
    /// # Errors
    /// [`SizeError`] if a side is shorter than 2 or the board has more cells than can
    /// be ranked.
    pub fn new(rows: usize, cols: usize) -> Result<SlidingPuzzle, SizeError> {
        let n = rows * cols;
        if rows >= 2 && cols >= 2 && n > MAX_CELLS {
            let states_log10 = (1..=n).map(|k| (k as f64).log10()).sum::<f64>() - 2f64.log10();
            return Err(SizeError::TooLarge {
                rows,
                cols,
                cells: n,
                states_log10,
            });
        }
        let shape = BoardShape::new(rows, cols)?;
        let mut puzzle = SlidingPuzzle {
            rows,
            cols,
            goal: Board::from_cells(shape.goal()),
            parity_base: 0,
            block: factorial(n - 1) / 2,
            walk: std::sync::Arc::new(expand::WalkTables::new(rows, cols)),
        };
        puzzle.parity_base = puzzle.class_base(&puzzle.goal);
        Ok(puzzle)
    }

    /// The same board with another goal (e.g. blank first, Korf's convention). The
    /// index space becomes the half of the arrangements that can reach `goal`.
    #[must_use]
    pub fn with_goal(mut self, goal: Board) -> SlidingPuzzle {
        self.parity_base = self.class_base(&goal);
        self.goal = goal;
        self
    }

    /// The goal board.
    #[must_use]
    pub fn goal(&self) -> Board {
        self.goal
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The tile order of a board: tiles minus one, row-major, blank skipped.
    fn tile_order(board: &Board, out: &mut [u8]) {
        let mut k = 0;
        for &c in board.cells() {
            if c != 0 {
                out[k] = c - 1;
                k += 1;
            }
        }
    }

    /// The row-0-equivalent parity of a board: its tile-order parity, corrected by the
    /// blank's row on boards with an even number of columns (where a vertical move,
    /// a rotation of C entries, flips the parity).
    fn class_base(&self, board: &Board) -> u8 {
        let mut order = [0u8; MAX_CELLS];
        Self::tile_order(board, &mut order);
        let p = permutation::parity(&order[..self.cells() - 1]);
        p ^ self.row_parity(board.blank())
    }

    #[inline(always)]
    fn row_parity(&self, cell: usize) -> u8 {
        if self.cols.is_multiple_of(2) {
            ((cell / self.cols) & 1) as u8
        } else {
            0
        }
    }

    /// The parity the tile order must have when the blank is on `cell`.
    #[inline(always)]
    fn required_parity(&self, cell: usize) -> u8 {
        self.parity_base ^ self.row_parity(cell)
    }

    /// The blank's colour on a chess-board colouring; every move flips it.
    #[must_use]
    pub fn colour(&self, cell: usize) -> u8 {
        shape::colour(self.cols, cell)
    }

    /// Parses a goal or position without checking solvability.
    fn parse_unchecked(&self, text: &str) -> Result<Board, PositionError> {
        Ok(Board::from_cells(&shape::parse_cells(
            self.rows, self.cols, text,
        )?))
    }

    /// Parses a board to use as the goal (any arrangement is a valid goal).
    ///
    /// # Errors
    /// [`PositionError`] if the goal is not an arrangement of this board's tiles.
    pub fn parse_goal(&self, text: &str) -> Result<Board, PositionError> {
        self.parse_unchecked(text)
    }
}

impl Notation for SlidingPuzzle {
    type State = Board;

    fn name(&self) -> String {
        board_name(self.rows, self.cols)
    }

    fn parse(&self, text: &str) -> Result<Board, PositionError> {
        let board = self.parse_unchecked(text)?;
        if self.class_base(&board) != self.parity_base {
            return Err(shape::wrong_parity(
                self.rows,
                self.cols,
                board.cells(),
                self.goal.cells(),
            ));
        }
        Ok(board)
    }

    fn format_line(&self, board: &Board) -> String {
        shape::format_cells(self.rows, self.cols, board.cells())
    }

    fn render_board(&self, board: &Board) -> String {
        shape::render_cells(self.cols, board.cells())
    }
}

impl Puzzle for SlidingPuzzle {
    type Move = u8;

    fn index_count(&self) -> u64 {
        self.block * self.cells() as u64
    }

    fn max_neighbours(&self) -> usize {
        4
    }

    fn goals(&self) -> Vec<Board> {
        vec![self.goal]
    }

    fn is_goal(&self, board: &Board) -> bool {
        *board == self.goal
    }

    fn rank(&self, board: &Board) -> u64 {
        let mut order = [0u8; MAX_CELLS];
        Self::tile_order(board, &mut order);
        board.blank() as u64 * self.block
            + permutation::rank_within_parity(&order[..self.cells() - 1])
    }

    fn unrank(&self, index: u64) -> Board {
        let blank = (index / self.block) as usize;
        let mut order = [0u8; MAX_CELLS];
        let m = self.cells() - 1;
        permutation::unrank_within_parity(
            index % self.block,
            self.required_parity(blank),
            &mut order[..m],
        );
        let mut board = Board {
            cells: [0; MAX_CELLS],
            len: self.cells() as u8,
        };
        let mut k = 0;
        for (cell, slot) in board.cells[..=m].iter_mut().enumerate() {
            if cell != blank {
                *slot = order[k] + 1;
                k += 1;
            }
        }
        board
    }

    fn successors(&self, board: &Board, out: &mut Vec<Successor<Board, u8>>) {
        let blank = board.blank();
        for from in Grid::new(self.rows, self.cols).neighbours(blank) {
            let mut next = *board;
            next.cells.swap(blank, from);
            out.push(Successor {
                moved: board.cells[from],
                state: next,
            });
        }
    }

    fn segments(&self) -> Vec<Segment> {
        (0..self.cells())
            .map(|cell| Segment {
                indices: cell as u64 * self.block..(cell as u64 + 1) * self.block,
                colour: Some(self.colour(cell)),
            })
            .collect()
    }

    fn expand_sorted(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        // `move`: the visit itself, not a reference to it, so that what it holds
        // stays in registers (see `Puzzle::expand_sorted_fold`).
        expand::expand_sorted(self, indices, true, (), move |(), index, neighbours| {
            visit(index, neighbours)
        });
    }

    fn expand_sorted_fold<A: Default>(
        &self,
        indices: &[u64],
        init: A,
        visit: impl FnMut(A, u64, &[u64]) -> A,
    ) -> A {
        expand::expand_sorted(self, indices, true, init, visit)
    }

    /// The blank's sideways moves, on boards the incremental walk covers (more than six
    /// cells): they keep the tile order, so the index moves by one block.
    fn translations(&self, index: u64) -> Translations {
        if self.cells() <= 6 {
            return Translations::default();
        }
        let col = (index / self.block) as usize % self.cols;
        let block = self.block as i64;
        match (col > 0, col + 1 < self.cols) {
            (true, true) => Translations::new(&[-block, block]),
            (true, false) => Translations::new(&[-block]),
            (false, true) => Translations::new(&[block]),
            (false, false) => Translations::default(),
        }
    }

    /// The blank's column where there are translations: vertical moves keep it.
    fn disk_regions(&self) -> u64 {
        self.cells() as u64
    }

    fn lane(&self, index: u64) -> Option<usize> {
        (self.cells() > 6).then(|| (index / self.block) as usize % self.cols)
    }

    fn expand_untranslated_fold<A: Default>(
        &self,
        indices: &[u64],
        init: A,
        visit: impl FnMut(A, u64, &[u64]) -> A,
    ) -> A {
        if self.cells() <= 6 {
            return self.expand_sorted_fold(indices, init, visit);
        }
        expand::expand_sorted(self, indices, false, init, visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn goal_has_rank_zero_offset_and_round_trips() {
        let p = SlidingPuzzle::new(3, 3).unwrap();
        let g = p.goal();
        assert_eq!(p.rank(&g) / p.block, 8);
        assert_eq!(p.unrank(p.rank(&g)), g);
        assert_eq!(p.index_count(), 181_440);
    }

    #[test]
    fn parity_is_checked() {
        let p = SlidingPuzzle::new(3, 3).unwrap();
        assert!(p.parse("867254301").is_ok());
        assert!(matches!(
            p.parse("687254301"),
            Err(PositionError::Unsolvable(_))
        ));
        let p = SlidingPuzzle::new(3, 4).unwrap();
        assert!(p.parse("0 3 2 1/8 7 6 5/4 11 10 9").is_ok());
        assert!(matches!(
            p.parse("0 2 3 1/8 7 6 5/4 11 10 9"),
            Err(PositionError::Unsolvable(_))
        ));
    }

    #[test]
    fn bad_positions() {
        let p = SlidingPuzzle::new(3, 3).unwrap();
        assert!(matches!(
            p.parse("86725430"),
            Err(PositionError::WrongSize { .. })
        ));
        assert!(matches!(
            p.parse("867254309"),
            Err(PositionError::UnknownPiece(_))
        ));
        assert!(matches!(
            p.parse("867254311"),
            Err(PositionError::Duplicate(_))
        ));
        assert!(matches!(
            p.parse("86x254301"),
            Err(PositionError::UnknownPiece(_))
        ));
    }

    #[test]
    fn size_errors() {
        assert!(matches!(
            SlidingPuzzle::new(1, 1),
            Err(SizeError::TooNarrow { .. })
        ));
        assert!(matches!(
            SlidingPuzzle::new(5, 5),
            Err(SizeError::TooLarge { .. })
        ));
        // 25!/2 and 198!/2 (beyond a float), in the message.
        let message = |rows, cols| SlidingPuzzle::new(rows, cols).unwrap_err().to_string();
        assert!(
            message(5, 5).contains("7.756e24 bytes"),
            "{}",
            message(5, 5)
        );
        assert!(
            message(2, 99).contains("9.908e369 bytes"),
            "{}",
            message(2, 99)
        );
    }

    fn shapes() -> impl Strategy<Value = (usize, usize)> {
        prop::sample::select(vec![
            (2, 2),
            (2, 3),
            (3, 2),
            (2, 4),
            (3, 3),
            (2, 5),
            (3, 4),
            (4, 3),
            (2, 6),
            (4, 4),
            (2, 8),
        ])
    }

    proptest! {
        #[test]
        fn ranking_moves_and_fast_expansion((rows, cols) in shapes(), seed in any::<u64>()) {
            let p = SlidingPuzzle::new(rows, cols).unwrap();
            crate::puzzle::assert_consistent_at(&p, seed % p.index_count());
        }

        #[test]
        fn other_goals((rows, cols) in shapes(), seed in any::<u64>(), seed2 in any::<u64>()) {
            let base = SlidingPuzzle::new(rows, cols).unwrap();
            let mut cells: Vec<u8> = (0..(rows * cols) as u8).collect();
            let mut s = seed;
            for i in (1..cells.len()).rev() {
                cells.swap(i, (s % (i as u64 + 1)) as usize);
                s /= i as u64 + 1;
            }
            let p = base.with_goal(Board::from_cells(&cells));
            crate::puzzle::assert_consistent_at(&p, seed2 % p.index_count());
            prop_assert!(p.rank(&p.goal()) < p.index_count());
        }
    }
}
