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
    /// `distance[tile][cell]`: Manhattan distance of `tile` on `cell` to its goal cell
    /// (0 for plain iterative deepening).
    distance: Vec<[u8; MAX_CELLS]>,
    /// For each cell, the cells next to it.
    around: Vec<Vec<usize>>,
    /// Whether the bound is the Manhattan distance (else 0: plain IDDFS).
    manhattan: bool,
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
        let mut distance = vec![[0u8; MAX_CELLS]; n];
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
        let around = (0..n).map(|cell| grid.neighbours(cell).collect()).collect();
        SlidingSpace {
            rows,
            cols,
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
        node.cells[..self.cells()] == *self.goal.cells()
    }

    fn expand(&self, node: &SlidingNode, last: Option<u8>, out: &mut Vec<(u8, SlidingNode, u32)>) {
        let blank = node.blank as usize;
        for &from in &self.around[blank] {
            let tile = node.cells[from];
            if Some(tile) == last {
                continue;
            }
            let mut child = node.clone();
            child.cells[blank] = tile;
            child.cells[from] = 0;
            child.blank = from as u8;
            let d = &self.distance[tile as usize];
            child.bound = node.bound + d[blank] - d[from];
            let bound = child.bound as u32;
            out.push((tile, child, bound));
        }
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
