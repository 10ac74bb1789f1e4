//! Rectangular grids of cells numbered row by row: neighbours and Manhattan distance.
//!
//! Every board puzzle (sliding tiles, the IDA* spaces) enumerates a cell's
//! neighbours in the same order, up, down, left, right, so that successors, and with
//! them the solutions printed, come out in one documented order.

/// A `rows` x `cols` grid; cell `r * cols + c` is row `r`, column `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
}

/// The four directions a piece can move in, in the order [`Grid::neighbours`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// One row up.
    Up,
    /// One row down.
    Down,
    /// One column left.
    Left,
    /// One column right.
    Right,
}

impl Direction {
    /// All four, in neighbour order.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// The row and column step.
    pub fn delta(self) -> (isize, isize) {
        match self {
            Direction::Up => (-1, 0),
            Direction::Down => (1, 0),
            Direction::Left => (0, -1),
            Direction::Right => (0, 1),
        }
    }
}

impl Grid {
    /// A grid of `rows` x `cols` cells.
    pub const fn new(rows: usize, cols: usize) -> Grid {
        Grid { rows, cols }
    }

    /// The number of cells.
    pub const fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// Row and column of a cell.
    pub const fn row_col(&self, cell: usize) -> (usize, usize) {
        (cell / self.cols, cell % self.cols)
    }

    /// The cell one step from `cell` in `direction`, if it is on the grid.
    pub fn step(&self, cell: usize, direction: Direction) -> Option<usize> {
        let (r, c) = self.row_col(cell);
        let (dr, dc) = direction.delta();
        let r = r.checked_add_signed(dr).filter(|&r| r < self.rows)?;
        let c = c.checked_add_signed(dc).filter(|&c| c < self.cols)?;
        Some(r * self.cols + c)
    }

    /// The cells next to `cell`: up, down, left, right (those on the grid).
    pub fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + use<> {
        let grid = *self;
        Direction::ALL
            .into_iter()
            .filter_map(move |d| grid.step(cell, d))
    }

    /// The Manhattan distance between two cells.
    pub fn manhattan(&self, a: usize, b: usize) -> usize {
        let (ra, ca) = self.row_col(a);
        let (rb, cb) = self.row_col(b);
        ra.abs_diff(rb) + ca.abs_diff(cb)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn neighbours_in_direction_order() {
        let grid = Grid::new(3, 4);
        assert_eq!(grid.neighbours(0).collect::<Vec<_>>(), [4, 1]);
        assert_eq!(grid.neighbours(5).collect::<Vec<_>>(), [1, 9, 4, 6]);
    }
    use super::*;

    #[test]
    fn neighbours_are_symmetric_and_one_apart() {
        let grid = Grid::new(3, 4);
        for a in 0..grid.cells() {
            for b in grid.neighbours(a) {
                assert_eq!(grid.manhattan(a, b), 1);
                assert!(grid.neighbours(b).any(|x| x == a));
            }
            let count = grid.neighbours(a).count();
            let (r, c) = grid.row_col(a);
            let border =
                (r == 0) as usize + (r == 2) as usize + (c == 0) as usize + (c == 3) as usize;
            assert_eq!(count, 4 - border);
        }
        assert_eq!(grid.manhattan(0, 11), 5);
        assert_eq!(grid.step(3, Direction::Right), None);
        assert_eq!(grid.step(3, Direction::Down), Some(7));
    }
}
