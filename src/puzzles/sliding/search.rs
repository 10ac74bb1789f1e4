//! IDA* for sliding boards (seed 000): Manhattan distance updated per move, the blank
//! never moved straight back, and the depth limit stepped by 2, because the blank's
//! colour on a chess-board colouring fixes the parity of every solution's length.

use crate::grid::Grid;
use crate::puzzles::sliding::{Board, MAX_CELLS, SlidingPuzzle};
use crate::solve::{SearchSpace, Solvable};

/// A sliding board as a search space.
pub struct SlidingSpace {
    rows: usize,
    cols: usize,
    goal: Board,
    /// The goal's cells padded with zeros, compared whole (no call to `memcmp`).
    goal_cells: [u8; MAX_CELLS],
    /// `distance[tile][cell]`: Manhattan distance of `tile` on `cell` to its goal cell
    /// (0 for plain iterative deepening).
    /// Fixed-size tables indexed by a cell or tile masked to `CELL_MASK`, so that the
    /// hot loop needs no bounds checks.
    distance: [[u8; MAX_CELLS]; MAX_CELLS],
    /// For each cell, the cells next to it.
    around: [Around; MAX_CELLS],
    /// Whether the bound is the Manhattan distance (else 0: plain IDDFS).
    manhattan: bool,
}

/// Masks a cell or tile number into the tables' range (a no-op on valid numbers).
const CELL_MASK: usize = MAX_CELLS - 1;
const _: () = assert!(MAX_CELLS.is_power_of_two());

/// The cells next to a cell, inline (no pointer to follow per node).
#[derive(Debug, Clone, Copy, Default)]
struct Around {
    cells: [u8; 4],
    count: u8,
}

/// A board with its blank and bound.
#[derive(Debug, Clone)]
pub struct SlidingNode {
    cells: [u8; MAX_CELLS],
    blank: u8,
    bound: u8,
}

impl SlidingSpace {
    /// The space of `puzzle`; `manhattan` false gives the plain iterative deepening.
    pub fn new(puzzle: &SlidingPuzzle, manhattan: bool) -> SlidingSpace {
        let (rows, cols) = (puzzle.rows(), puzzle.cols());
        let grid = Grid::new(rows, cols);
        let n = grid.cells();
        let goal = puzzle.goal();
        let mut distance = [[0u8; MAX_CELLS]; MAX_CELLS];
        if manhattan {
            for (home, &tile) in goal.cells().iter().enumerate() {
                if tile == 0 {
                    continue;
                }
                for (cell, d) in distance[tile as usize].iter_mut().enumerate().take(n) {
                    *d = grid.manhattan(cell, home) as u8;
                }
            }
        }
        let mut around = [Around::default(); MAX_CELLS];
        for (cell, around) in around.iter_mut().enumerate().take(n) {
            // In increasing cell order, as the seeds' adjacency lists.
            let mut next_cells: Vec<usize> = grid.neighbours(cell).collect();
            next_cells.sort_unstable();
            for next in next_cells {
                around.cells[around.count as usize] = next as u8;
                around.count += 1;
            }
        }
        SlidingSpace {
            rows,
            cols,
            goal_cells: {
                let mut cells = [0u8; MAX_CELLS];
                cells[..n].copy_from_slice(goal.cells());
                cells
            },
            goal,
            distance,
            around,
            manhattan,
        }
    }

    /// The node of a board.
    pub fn node(&self, board: &Board) -> SlidingNode {
        let mut cells = [0u8; MAX_CELLS];
        cells[..board.cells().len()].copy_from_slice(board.cells());
        let bound = board
            .cells()
            .iter()
            .enumerate()
            .map(|(cell, &t)| self.distance[t as usize][cell] as u32)
            .sum::<u32>();
        SlidingNode {
            cells,
            blank: board.blank() as u8,
            bound: bound as u8,
        }
    }

    /// The board of a node.
    pub fn board(&self, node: &SlidingNode) -> Board {
        Board::from_cells(&node.cells[..self.cells()])
    }

    /// The Manhattan distance of a board (the sum over tiles).
    pub fn manhattan(puzzle: &SlidingPuzzle, board: &Board) -> u32 {
        let space = SlidingSpace::new(puzzle, true);
        space.node(board).bound as u32
    }

    fn cells(&self) -> usize {
        self.rows * self.cols
    }
}

impl SearchSpace for SlidingSpace {
    type Node = SlidingNode;
    type Move = u8;

    fn bound(&self, node: &SlidingNode) -> u32 {
        node.bound as u32
    }

    fn is_goal(&self, node: &SlidingNode) -> bool {
        node.cells == self.goal_cells
    }

    #[inline(always)]
    fn for_each_child(
        &self,
        node: &mut SlidingNode,
        last: Option<u8>,
        mut visit: impl FnMut(u8, &mut SlidingNode, u32) -> bool,
    ) -> bool {
        let blank = node.blank as usize & CELL_MASK;
        let (bound, around) = (node.bound, &self.around[blank]);
        for &from in &around.cells[..around.count as usize] {
            let from = from as usize & CELL_MASK;
            let tile = node.cells[from];
            if Some(tile) == last {
                continue;
            }
            let d = &self.distance[tile as usize & CELL_MASK];
            node.cells[blank] = tile;
            node.cells[from] = 0;
            node.blank = from as u8;
            node.bound = bound + d[blank] - d[from];
            let done = visit(tile, node, node.bound as u32);
            node.cells[from] = tile;
            node.cells[blank] = 0;
            node.blank = blank as u8;
            node.bound = bound;
            if done {
                return true;
            }
        }
        false
    }

    fn first_limit(&self, node: &SlidingNode) -> u32 {
        if self.manhattan {
            return node.bound as u32;
        }
        // Without a bound, start at the parity every solution has: whether the blank
        // stands on the goal's colour.
        let colour = |cell: usize| (cell / self.cols + cell % self.cols) & 1;
        (colour(node.blank as usize) ^ colour(self.goal.blank())) as u32
    }

    fn limit_step(&self) -> u32 {
        2
    }
}

impl Solvable for SlidingPuzzle {
    type Space = SlidingSpace;

    fn search_space(&self, bounded: bool) -> SlidingSpace {
        SlidingSpace::new(self, bounded)
    }

    fn node(space: &SlidingSpace, state: &Board) -> SlidingNode {
        space.node(state)
    }

    fn state(space: &SlidingSpace, node: &SlidingNode) -> Board {
        space.board(node)
    }
}
