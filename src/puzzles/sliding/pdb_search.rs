//! IDA* for sliding boards of up to 32 cells (the 24-puzzle too) with pattern
//! databases: the bound is the partition's sum of database entries, and the larger of
//! it and the reflected position's sum where the goal is symmetric ([`Partition`]). A
//! move changes one tile's place, so it changes one pattern's entry on each side: the
//! node keeps every pattern's entry and looks up only those two again.

use super::search::BoardMoves;
use super::shape::{BoardShape, MAX_SHAPE_CELLS, blank_cell};
use crate::pdb::Partition;
use crate::pdb::partition::MAX_PATTERNS;
use crate::solve::SearchSpace;

/// Cells and tile numbers a node has room for: any board a partition covers (the
/// 24-puzzle too).
const PLACES: usize = MAX_SHAPE_CELLS;

/// A sliding board searched with a partition's databases.
pub struct PdbSpace<'a> {
    partition: &'a Partition,
    moves: BoardMoves<PLACES>,
}

/// A board, each tile's cell and each pattern's entry on both sides.
#[derive(Debug, Clone)]
pub struct PdbNode {
    cells: [u8; PLACES],
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
    /// The space of the board `shape` bounded by `partition` (built for the shape's
    /// goal).
    pub fn new(shape: &BoardShape, partition: &'a Partition) -> PdbSpace<'a> {
        PdbSpace {
            partition,
            moves: BoardMoves::new(shape),
        }
    }

    /// The node of a position (row-major tile numbers, 0 for the blank).
    pub fn node(&self, position: &[u8]) -> PdbNode {
        let mut cells = [0u8; PLACES];
        cells[..position.len()].copy_from_slice(position);
        let places = self.partition.places_of(position);
        let mut node = PdbNode {
            cells,
            places,
            blank: blank_cell(position) as u8,
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

    /// The position of a node.
    pub fn position<'n>(&self, node: &'n PdbNode) -> &'n [u8] {
        &node.cells[..self.moves.cells()]
    }
}

impl SearchSpace for PdbSpace<'_> {
    type Node = PdbNode;
    type Move = u8;

    fn bound(&self, node: &PdbNode) -> u32 {
        node.bound()
    }

    fn is_goal(&self, node: &PdbNode) -> bool {
        self.moves.is_goal(&node.cells)
    }

    #[inline(always)]
    fn for_each_child(
        &self,
        node: &mut PdbNode,
        last: Option<u8>,
        mut visit: impl FnMut(u8, &mut PdbNode, u32) -> bool,
    ) -> bool {
        let blank = node.blank as usize % PLACES;
        for &from in self.moves.around(blank) {
            let from = from as usize % PLACES;
            let tile = node.cells[from];
            if Some(tile) == last {
                continue;
            }
            // A move changes at most one entry per side; all of them are put back.
            let saved = (
                node.direct,
                node.reflected,
                node.direct_sum,
                node.reflected_sum,
            );
            node.cells[blank] = tile;
            node.cells[from] = 0;
            node.blank = from as u8;
            node.places[tile as usize % PLACES] = blank as u8;
            if let Some(p) = self.partition.pattern_of(tile) {
                let entry = self.partition.part(p, &node.places) as u8;
                node.direct_sum = node.direct_sum - node.direct[p] + entry;
                node.direct[p] = entry;
            }
            let mirrored = self.partition.reflected_tile(tile);
            if let Some(p) = self
                .partition
                .pattern_of(mirrored)
                .filter(|_| self.partition.reflects())
            {
                let entry = self.partition.reflected_part(p, &node.places) as u8;
                node.reflected_sum = node.reflected_sum - node.reflected[p] + entry;
                node.reflected[p] = entry;
            }
            let bound = node.bound();
            let done = visit(tile, node, bound);
            (
                node.direct,
                node.reflected,
                node.direct_sum,
                node.reflected_sum,
            ) = saved;
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
        self.moves.first_limit(node.blank as usize, node.bound())
    }

    fn limit_step(&self) -> u32 {
        2
    }
}
