//! IDA* for sliding boards with pattern databases: the bound is the partition's sum
//! of database entries, and the larger of it and the reflected position's sum where
//! the goal is symmetric ([`Partition`]). A move changes one tile's place, so it
//! changes one pattern's entry on each side: the node keeps every pattern's entry and
//! looks up only those two again.

use crate::grid::Grid;
use crate::pdb::Partition;
use crate::pdb::partition::MAX_PATTERNS;
use crate::puzzles::sliding::{Board, MAX_CELLS, SlidingPuzzle};
use crate::solve::SearchSpace;

/// Places a node records: one per tile number a board of `MAX_CELLS` cells has, and
/// what the partition's tables index by.
const PLACES: usize = crate::pdb::pattern::MAX_CELLS;

/// A sliding board searched with a partition's databases.
pub struct PdbSpace<'a> {
    partition: &'a Partition,
    cols: usize,
    goal_cells: [u8; MAX_CELLS],
    goal_blank: usize,
    around: [[u8; 4]; MAX_CELLS],
    around_count: [u8; MAX_CELLS],
    /// `reflected_of[tile]`: the tile whose reflected-side pattern a move of `tile`
    /// changes.
    reflected_of: [u8; PLACES],
}

/// A board, each tile's cell and each pattern's entry on both sides.
#[derive(Debug, Clone)]
pub struct PdbNode {
    cells: [u8; MAX_CELLS],
    places: [u8; PLACES],
    blank: u8,
    direct: [u8; MAX_PATTERNS],
    reflected: [u8; MAX_PATTERNS],
    direct_sum: u8,
    reflected_sum: u8,
}

impl PdbNode {
    #[inline(always)]
    fn bound(&self) -> u32 {
        self.direct_sum.max(self.reflected_sum) as u32
    }
}

impl<'a> PdbSpace<'a> {
    /// The space of `puzzle` bounded by `partition` (built for the puzzle's goal).
    pub fn new(puzzle: &SlidingPuzzle, partition: &'a Partition) -> PdbSpace<'a> {
        let (rows, cols) = (puzzle.rows(), puzzle.cols());
        let grid = Grid::new(rows, cols);
        let goal = puzzle.goal();
        let mut goal_cells = [0u8; MAX_CELLS];
        goal_cells[..goal.cells().len()].copy_from_slice(goal.cells());
        let mut around = [[0u8; 4]; MAX_CELLS];
        let mut around_count = [0u8; MAX_CELLS];
        for cell in 0..rows * cols {
            let mut next: Vec<usize> = grid.neighbours(cell).collect();
            next.sort_unstable();
            for (k, &n) in next.iter().enumerate() {
                around[cell][k] = n as u8;
            }
            around_count[cell] = next.len() as u8;
        }
        let mut reflected_of = [0u8; PLACES];
        for (tile, of) in reflected_of.iter_mut().enumerate() {
            *of = partition.reflected_tile(tile as u8);
        }
        PdbSpace {
            partition,
            cols,
            goal_cells,
            goal_blank: goal.blank(),
            around,
            around_count,
            reflected_of,
        }
    }

    /// The node of a board.
    pub fn node(&self, board: &Board) -> PdbNode {
        let mut cells = [0u8; MAX_CELLS];
        cells[..board.cells().len()].copy_from_slice(board.cells());
        let places = self.partition.places_of(board.cells());
        let mut node = PdbNode {
            cells,
            places,
            blank: board.blank() as u8,
            direct: [0; MAX_PATTERNS],
            reflected: [0; MAX_PATTERNS],
            direct_sum: 0,
            reflected_sum: 0,
        };
        for p in 0..self.partition.databases().len() {
            node.direct[p] = self.partition.part(p, &places) as u8;
            node.reflected[p] = self.partition.reflected_part(p, &places) as u8;
        }
        node.direct_sum = node.direct.iter().sum();
        node.reflected_sum = node.reflected.iter().sum();
        node
    }

    /// The board of a node.
    pub fn board(&self, node: &PdbNode) -> Board {
        Board::from_cells(&node.cells[..self.partition.cells()])
    }

    fn colour(&self, cell: usize) -> u32 {
        ((cell / self.cols + cell % self.cols) & 1) as u32
    }
}

impl SearchSpace for PdbSpace<'_> {
    type Node = PdbNode;
    type Move = u8;

    fn bound(&self, node: &PdbNode) -> u32 {
        node.bound()
    }

    fn is_goal(&self, node: &PdbNode) -> bool {
        node.cells == self.goal_cells
    }

    #[inline(always)]
    fn for_each_child(
        &self,
        node: &mut PdbNode,
        last: Option<u8>,
        mut visit: impl FnMut(u8, &mut PdbNode, u32) -> bool,
    ) -> bool {
        let blank = node.blank as usize % MAX_CELLS;
        let count = self.around_count[blank] as usize;
        for &from in &self.around[blank][..count] {
            let from = from as usize % MAX_CELLS;
            let tile = node.cells[from];
            if Some(tile) == last {
                continue;
            }
            let saved = (node.direct_sum, node.reflected_sum);
            node.cells[blank] = tile;
            node.cells[from] = 0;
            node.blank = from as u8;
            node.places[tile as usize % PLACES] = blank as u8;
            let direct = self.partition.pattern_of(tile);
            let old_direct = direct.map(|p| node.direct[p]);
            if let Some(p) = direct {
                let entry = self.partition.part(p, &node.places) as u8;
                node.direct_sum = node.direct_sum - node.direct[p] + entry;
                node.direct[p] = entry;
            }
            let reflected = self
                .partition
                .reflects()
                .then(|| {
                    self.partition
                        .pattern_of(self.reflected_of[tile as usize % PLACES])
                })
                .flatten();
            let old_reflected = reflected.map(|p| node.reflected[p]);
            if let Some(p) = reflected {
                let entry = self.partition.reflected_part(p, &node.places) as u8;
                node.reflected_sum = node.reflected_sum - node.reflected[p] + entry;
                node.reflected[p] = entry;
            }
            let bound = node.bound();
            let done = visit(tile, node, bound);
            if let (Some(p), Some(old)) = (reflected, old_reflected) {
                node.reflected[p] = old;
            }
            if let (Some(p), Some(old)) = (direct, old_direct) {
                node.direct[p] = old;
            }
            (node.direct_sum, node.reflected_sum) = saved;
            node.places[tile as usize % PLACES] = from as u8;
            node.cells[from] = tile;
            node.cells[blank] = 0;
            node.blank = blank as u8;
            if done {
                return true;
            }
        }
        false
    }

    fn first_limit(&self, node: &PdbNode) -> u32 {
        // Every solution's length has the parity of the blank's colour change.
        let parity = self.colour(node.blank as usize) ^ self.colour(self.goal_blank);
        let bound = node.bound();
        bound + ((bound ^ parity) & 1)
    }

    fn limit_step(&self) -> u32 {
        2
    }
}
