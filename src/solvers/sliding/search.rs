//! IDA* for sliding boards (seed 000): Manhattan distance updated per move, the blank
//! never moved straight back, and the depth limit stepped by 2, because the blank's
//! colour on a chess-board colouring fixes the parity of every solution's length.

use super::packed_walk::{MAX_OWN_DEPTH, PackedBoard};
use crate::grid::Grid;
use crate::puzzles::sliding::{Board, BoardShape, MAX_CELLS, SlidingPuzzle};
use crate::search::ida::WalkState;
use crate::search::{SearchSpace, Solvable};

/// A sliding board as a search space.
pub struct SlidingSpace {
    moves: BoardMoves<MAX_CELLS>,
    /// `distance[tile][cell]`: Manhattan distance of `tile` on `cell` to its goal cell
    /// (0 for plain iterative deepening).
    /// Fixed-size tables indexed by a cell or tile masked to `CELL_MASK`, so that the
    /// hot loop needs no bounds checks.
    distance: [[u8; MAX_CELLS]; MAX_CELLS],
    /// The walk of boards of at most 16 cells.
    packed: Option<PackedBoard>,
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

/// What the sliding boards' search spaces share, for boards of at most `N` cells (a
/// power of two): each cell's neighbours (in increasing order, as the seeds'
/// adjacency lists), the goal padded with zeros to be compared whole (no call to
/// `memcmp`), and the parity of every solution's length.
#[derive(Debug, Clone)]
pub(crate) struct BoardMoves<const N: usize> {
    around: [Around; N],
    goal_cells: [u8; N],
    colour: [u8; N],
    goal_blank: usize,
    cells: usize,
}

impl<const N: usize> BoardMoves<N> {
    const MASK: usize = {
        assert!(N.is_power_of_two());
        N - 1
    };

    /// The moves of `shape` (at most `N` cells).
    pub(crate) fn new(shape: &BoardShape) -> BoardMoves<N> {
        assert!(shape.cells() <= N, "a board of at most {N} cells");
        let grid = Grid::new(shape.rows(), shape.cols());
        let goal = shape.goal();
        let mut moves = BoardMoves {
            around: [Around::default(); N],
            goal_cells: [0; N],
            colour: [0; N],
            goal_blank: crate::puzzles::sliding::blank_cell(goal),
            cells: grid.cells(),
        };
        moves.goal_cells[..grid.cells()].copy_from_slice(goal);
        for cell in 0..grid.cells() {
            moves.colour[cell] = shape.colour(cell);
            let mut next_cells: Vec<usize> = grid.neighbours(cell).collect();
            next_cells.sort_unstable();
            let around = &mut moves.around[cell];
            for next in next_cells {
                around.cells[around.count as usize] = next as u8;
                around.count += 1;
            }
        }
        moves
    }

    /// The cells next to `cell`.
    #[inline(always)]
    pub(crate) fn around(&self, cell: usize) -> &[u8] {
        let around = &self.around[cell & Self::MASK];
        &around.cells[..around.count as usize]
    }

    /// Whether `cells` is the goal.
    #[inline(always)]
    pub(crate) fn is_goal(&self, cells: &[u8; N]) -> bool {
        *cells == self.goal_cells
    }

    /// The first depth limit from a position with the blank on `blank` and lower
    /// bound `bound`: the least limit at least `bound` of the parity every solution
    /// has (whether the blank stands on the goal's colour).
    pub(crate) fn first_limit(&self, blank: usize, bound: u32) -> u32 {
        let parity = (self.colour[blank & Self::MASK] ^ self.colour[self.goal_blank]) as u32;
        bound + ((bound ^ parity) & 1)
    }

    /// Board cells.
    pub(crate) fn cells(&self) -> usize {
        self.cells
    }
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
    #[must_use]
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
        let packed = PackedBoard::new(rows, cols, goal.cells(), |tile| &distance[tile][..]);
        SlidingSpace {
            moves: BoardMoves::new(&BoardShape::of(puzzle)),
            distance,
            packed,
        }
    }

    /// The node of a board.
    #[must_use]
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
    #[must_use]
    pub fn board(&self, node: &SlidingNode) -> Board {
        Board::from_cells(&node.cells[..self.cells()])
    }

    /// The Manhattan distance of a board (the sum over tiles).
    #[must_use]
    pub fn manhattan(puzzle: &SlidingPuzzle, board: &Board) -> u32 {
        let space = SlidingSpace::new(puzzle, true);
        space.node(board).bound as u32
    }

    fn cells(&self) -> usize {
        self.moves.cells()
    }
}

impl SearchSpace for SlidingSpace {
    type Node = SlidingNode;
    type Move = u8;

    fn bound(&self, node: &SlidingNode) -> u32 {
        node.bound as u32
    }

    fn is_goal(&self, node: &SlidingNode) -> bool {
        self.moves.is_goal(&node.cells)
    }

    #[inline(always)]
    fn for_each_child(
        &self,
        node: &mut SlidingNode,
        last: Option<u8>,
        mut visit: impl FnMut(u8, &mut SlidingNode, u32) -> bool,
    ) -> bool {
        let blank = node.blank as usize & CELL_MASK;
        let bound = node.bound;
        for &from in self.moves.around(blank) {
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

    /// Boards of at most 16 cells walk packed into a `u64` (`packed_walk`).
    fn own_walk(
        &self,
        node: &SlidingNode,
        depth: u32,
        limit: u32,
        walk: &mut WalkState<'_, u8>,
    ) -> Option<bool> {
        let packed = self
            .packed
            .as_ref()
            .filter(|_| (limit as usize) < MAX_OWN_DEPTH)?;
        Some(packed.walk(
            &node.cells[..self.cells()],
            node.blank as usize,
            node.bound as u32,
            depth,
            limit,
            walk,
        ))
    }

    fn first_limit(&self, node: &SlidingNode) -> u32 {
        // The Manhattan distance has that parity already; plain IDDFS starts at it.
        self.moves
            .first_limit(node.blank as usize, node.bound as u32)
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
