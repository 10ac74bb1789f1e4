//! Sliding boards' searches: IDA* with the Manhattan distance ([`search`]), with
//! additive pattern databases ([`pdb_search`]), and the walk of boards of at most 16
//! cells packed in one word that both use.

mod packed_walk;
pub mod pdb_search;
pub mod search;

use crate::puzzles::sliding::{BoardShape, MAX_SHAPE_CELLS};

// A board shape's cells fit a pattern database's placements.
const _: () = assert!(MAX_SHAPE_CELLS == crate::pdb::pattern::MAX_CELLS);

impl crate::pdb::Board for BoardShape {
    fn name(&self) -> String {
        BoardShape::name(self)
    }
    fn rows(&self) -> usize {
        BoardShape::rows(self)
    }
    fn cols(&self) -> usize {
        BoardShape::cols(self)
    }
    fn goal(&self) -> &[u8] {
        BoardShape::goal(self)
    }
    fn format_line(&self, cells: &[u8]) -> String {
        BoardShape::format_line(self, cells)
    }
}
