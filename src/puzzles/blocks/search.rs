//! Sliding-block puzzles as an IDA* search space: the position itself is the node,
//! and the bound counts what any solution must still do for the goal's pieces.
//!
//! With a goal set (pieces to be placed), a piece away from its target must move at
//! least once, and in the step metric at least its Manhattan distance, one move moving
//! one piece one cell: both are admissible. A whole-position goal gives no cheap
//! bound here (0). Bidirectional search is the default method for these puzzles.

use super::{BlockMove, BlockPuzzle, Layout, Metric};
use crate::Puzzle;
use crate::solve::{SearchSpace, Solvable};

/// A sliding-block puzzle as IDA* sees it.
pub struct BlockSpace {
    puzzle: BlockPuzzle,
    bounded: bool,
}

impl BlockSpace {
    /// The lower bound of a layout.
    fn lower_bound(&self, layout: &Layout) -> u32 {
        if !self.bounded {
            return 0;
        }
        let p = &self.puzzle;
        p.goal_places
            .iter()
            .map(|&(group, cell)| {
                let g = &p.groups[group];
                let anchors = &layout.anchors[g.first..g.first + g.count()];
                let (tr, tc) = (cell as usize / p.cols, cell as usize % p.cols);
                anchors
                    .iter()
                    .map(|&a| {
                        let (r, c) = (a as usize / p.cols, a as usize % p.cols);
                        let d = (r.abs_diff(tr) + c.abs_diff(tc)) as u32;
                        match p.metric {
                            Metric::Step => d,
                            Metric::Line | Metric::Path => d.min(1),
                        }
                    })
                    .min()
                    .unwrap_or(0)
            })
            .sum()
    }
}

impl SearchSpace for BlockSpace {
    type Node = Layout;
    type Move = BlockMove;

    fn bound(&self, node: &Layout) -> u32 {
        self.lower_bound(node)
    }

    fn is_goal(&self, node: &Layout) -> bool {
        self.puzzle.is_goal(node)
    }

    fn for_each_child(
        &self,
        node: &mut Layout,
        last: Option<BlockMove>,
        mut visit: impl FnMut(BlockMove, &mut Layout, u32) -> bool,
    ) -> bool {
        let mut done = false;
        self.puzzle.for_each_successor(node, |moved, mut state| {
            // Moving the piece that just moved again is never needed in the path
            // metric (the two moves are one).
            if done
                || self.puzzle.metric == Metric::Path && last.is_some_and(|m| m.to == moved.from)
            {
                return;
            }
            let bound = self.lower_bound(&state);
            done = visit(moved, &mut state, bound);
        });
        done
    }
}

impl Solvable for BlockPuzzle {
    type Space = BlockSpace;

    const PREFERS_BIDIRECTIONAL: bool = true;

    fn search_space(&self, bounded: bool) -> BlockSpace {
        BlockSpace {
            puzzle: self.clone(),
            bounded,
        }
    }

    fn node(_: &BlockSpace, state: &Layout) -> Layout {
        *state
    }

    fn state(_: &BlockSpace, node: &Layout) -> Layout {
        *node
    }
}
