//! IDA* for Oshidori (seed 003).
//!
//! The bound is half the number of misplaced stones, rounded up. A stone is misplaced
//! when the goal has another kind (or a blank) in its cell. A move relocates exactly
//! two stones and leaves every other stone where it is, so it can put at most two
//! misplaced stones in place: the bound drops by at most one per move and is
//! admissible. It is kept up to date from the four cells a move touches.
//!
//! Moving back the pair just moved would undo the move, so the pair now sitting where
//! the blanks were is never taken.

use crate::puzzles::oshidori::{Oshidori, Row, move_name};
use crate::search::{SearchSpace, Solvable};

/// A row with its blanks, its misplaced stones and the cell of the previous blanks.
#[derive(Debug, Clone)]
pub struct OshidoriNode {
    row: Row,
    blank: u8,
    misplaced: u8,
    /// Where the blanks were before the last move (the moved pair's cell), if any.
    previous_blank: Option<u8>,
}

/// Oshidori as a search space.
pub struct OshidoriSpace {
    goal: Row,
    bounded: bool,
}

impl OshidoriSpace {
    /// The space of `puzzle`, with the misplaced-stones bound if `bounded`.
    #[must_use]
    pub fn new(puzzle: &Oshidori, bounded: bool) -> Self {
        OshidoriSpace {
            goal: puzzle.goal(),
            bounded,
        }
    }

    /// The node of a row.
    #[must_use]
    pub fn node(&self, row: &Row) -> OshidoriNode {
        let misplaced = (0..row.cells().len())
            .filter(|&c| row.cells()[c] != 0)
            .map(|c| self.off(row.cells()[c], c))
            .sum();
        OshidoriNode {
            row: *row,
            blank: row.blank() as u8,
            misplaced,
            previous_blank: None,
        }
    }

    /// The row of a node.
    #[must_use]
    pub fn row(&self, node: &OshidoriNode) -> Row {
        node.row
    }

    /// 1 if the goal holds something else than `stone` at `cell`.
    fn off(&self, stone: u8, cell: usize) -> u8 {
        (stone != self.goal.cells()[cell]) as u8
    }
}

impl SearchSpace for OshidoriSpace {
    type Node = OshidoriNode;
    type Move = char;

    fn bound(&self, node: &OshidoriNode) -> u32 {
        if self.bounded {
            node.misplaced.div_ceil(2) as u32
        } else {
            0
        }
    }

    fn is_goal(&self, node: &OshidoriNode) -> bool {
        node.misplaced == 0
    }

    fn for_each_child(
        &self,
        node: &mut OshidoriNode,
        _last: Option<char>,
        mut visit: impl FnMut(char, &mut OshidoriNode, u32) -> bool,
    ) -> bool {
        let blank = node.blank as usize;
        let cells = node.row.cells();
        for i in node.row.movable_pairs(blank) {
            if node.previous_blank == Some(i as u8) {
                continue;
            }
            let (x, y) = (cells[i], cells[i + 1]);
            let mut child = OshidoriNode {
                row: node.row.with_pair_moved(i, blank),
                blank: i as u8,
                misplaced: node.misplaced - self.off(x, i) - self.off(y, i + 1)
                    + self.off(x, blank)
                    + self.off(y, blank + 1),
                previous_blank: Some(blank as u8),
            };
            let bound = self.bound(&child);
            if visit(move_name(i), &mut child, bound) {
                return true;
            }
        }
        false
    }
}

impl Solvable for Oshidori {
    type Space = OshidoriSpace;

    fn search_space(&self, bounded: bool) -> OshidoriSpace {
        OshidoriSpace::new(self, bounded)
    }

    fn node(space: &OshidoriSpace, state: &Row) -> OshidoriNode {
        space.node(state)
    }

    fn state(space: &OshidoriSpace, node: &OshidoriNode) -> Row {
        space.row(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Notation, Puzzle};

    #[test]
    fn the_bound_never_exceeds_the_distance() {
        for puzzle in [Oshidori::classic(), Oshidori::with_kinds(4).unwrap()] {
            let space = OshidoriSpace::new(&puzzle, true);
            let (depths, _) =
                crate::analysis::search(&puzzle, &crate::driver::Control::default()).unwrap();
            for index in 0..puzzle.index_count() {
                let node = space.node(&puzzle.unrank(index));
                let distance = depths.depth(index).unwrap();
                assert!(space.bound(&node) <= distance, "index {index}");
                assert_eq!(space.is_goal(&node), distance == 0);
            }
        }
    }

    #[test]
    fn the_bound_is_kept_up_to_date() {
        let puzzle = Oshidori::with_kinds(4).unwrap();
        let space = OshidoriSpace::new(&puzzle, true);
        let mut nodes = vec![space.node(&puzzle.start().unwrap())];
        for _ in 0..4 {
            let mut next = Vec::new();
            for node in &nodes {
                for (_, child, bound) in crate::search::children(&space, node, None) {
                    let fresh = space.node(&space.row(&child));
                    assert_eq!(child.misplaced, fresh.misplaced);
                    assert_eq!(bound, space.bound(&fresh));
                    assert!(bound + 1 >= space.bound(node));
                    next.push(child);
                }
            }
            nodes = next;
        }
    }
}
