//! Sliding-block puzzles as an IDA* search space: a node is the layout and its bound,
//! and the bound counts what any solution must still do for the goal's pieces.
//!
//! Every piece the goal places (all of them for a whole-position goal, the named ones
//! for a goal set) and that stands elsewhere must move: at least once, and in the step
//! metric at least its Manhattan distance, one move moving one piece one cell.
//! Interchangeable pieces share their goal places: the bound takes the cheapest way to
//! send them there (every assignment for a few pieces, each place's nearest piece for
//! many). Both are admissible. Bidirectional search is the default method for these
//! puzzles; IDA* is seed 001's method for Goat (whose bound also told its two bars
//! apart by a parity invariant of that board, which this general one cannot know).

use crate::Puzzle;
use crate::puzzles::blocks::{BlockMove, BlockPuzzle, Layout, Metric};
use crate::search::{SearchSpace, Solvable};

/// Most pieces of one group whose assignments to goal places are all tried.
const ASSIGNED_EXACTLY: usize = 5;

/// A sliding-block puzzle as IDA* sees it.
pub struct BlockSpace {
    puzzle: BlockPuzzle,
    /// For each group the goal places, the anchors its pieces must reach (none when
    /// searching without a bound).
    targets: Vec<(usize, Vec<u8>)>,
    /// For each group, its entry in `targets`.
    target_of: Vec<Option<usize>>,
    /// `cost[from][to]`: the least number of moves from anchor `from` to `to`.
    cost: Box<[[u8; 64]; 64]>,
}

/// A layout and its lower bound (kept up to date move by move).
#[derive(Debug, Clone, Copy)]
pub struct BlockNode {
    layout: Layout,
    bound: u32,
}

impl BlockSpace {
    /// The anchors each group must reach, from the goal.
    fn targets(puzzle: &BlockPuzzle) -> Vec<(usize, Vec<u8>)> {
        let mut targets: Vec<(usize, Vec<u8>)> = Vec::new();
        match &puzzle.goal_layout {
            Some(goal) => {
                for (group, g) in puzzle.groups.iter().enumerate() {
                    targets.push((group, goal.anchors[g.first..g.first + g.count()].to_vec()));
                }
            }
            None => {
                for &(group, cell) in &puzzle.goal_places {
                    match targets.iter_mut().find(|(g, _)| *g == group) {
                        Some((_, cells)) => cells.push(cell),
                        None => targets.push((group, vec![cell])),
                    }
                }
            }
        }
        targets
    }

    /// The least number of moves that could bring a piece anchored at `from` to
    /// `to`, for every pair of cells.
    fn costs(puzzle: &BlockPuzzle) -> Box<[[u8; 64]; 64]> {
        let mut cost = Box::new([[0u8; 64]; 64]);
        let cols = puzzle.cols;
        for (a, row) in cost.iter_mut().enumerate() {
            for (b, slot) in row.iter_mut().enumerate() {
                *slot = match puzzle.metric {
                    Metric::Step => (a / cols).abs_diff(b / cols) + (a % cols).abs_diff(b % cols),
                    Metric::Line | Metric::Path => usize::from(a != b),
                } as u8;
            }
        }
        cost
    }

    #[inline]
    fn cost(&self, from: u8, to: u8) -> u32 {
        u32::from(self.cost[from as usize][to as usize])
    }

    /// The cheapest way to send distinct pieces of `pieces` (by anchor) to the
    /// places `to`, trying every assignment.
    fn assigned(&self, pieces: &[u8], to: &[u8], used: u32) -> u32 {
        let Some((&first, rest)) = to.split_first() else {
            return 0;
        };
        (0..pieces.len())
            .filter(|&p| used >> p & 1 == 0)
            .map(|p| self.cost(pieces[p], first) + self.assigned(pieces, rest, used | 1 << p))
            .min()
            .unwrap_or(0)
    }

    /// Whether `moved`, right after `last`, can never be part of a shortest solution:
    /// the piece that just moved moves back (step metric), again along the same line
    /// (line metric: the two moves are one, or none), or again at all (path metric).
    fn undoes(&self, last: BlockMove, moved: BlockMove) -> bool {
        if last.to != moved.from {
            return false;
        }
        match self.puzzle.metric {
            Metric::Step => moved.to == last.from,
            Metric::Line => last.vertical() == moved.vertical(),
            Metric::Path => true,
        }
    }

    /// The least number of moves that could bring the pieces of target `k`'s group
    /// to its goal places.
    fn group_bound(&self, layout: &Layout, k: usize) -> u32 {
        let (group, to) = &self.targets[k];
        let g = &self.puzzle.groups[*group];
        let pieces = &layout.anchors[g.first..g.first + g.count()];
        if let ([piece], [place]) = (pieces, to.as_slice()) {
            self.cost(*piece, *place)
        } else if pieces.len() <= ASSIGNED_EXACTLY {
            self.assigned(pieces, to, 0)
        } else {
            to.iter()
                .map(|&t| pieces.iter().map(|&a| self.cost(a, t)).min().unwrap_or(0))
                .sum()
        }
    }

    /// The lower bound of a layout.
    fn lower_bound(&self, layout: &Layout) -> u32 {
        (0..self.targets.len())
            .map(|k| self.group_bound(layout, k))
            .sum()
    }
}

impl SearchSpace for BlockSpace {
    type Node = BlockNode;
    type Move = BlockMove;

    fn bound(&self, node: &BlockNode) -> u32 {
        node.bound
    }

    fn is_goal(&self, node: &BlockNode) -> bool {
        self.puzzle.is_goal(&node.layout)
    }

    fn for_each_child(
        &self,
        node: &mut BlockNode,
        last: Option<BlockMove>,
        mut visit: impl FnMut(BlockMove, &mut BlockNode, u32) -> bool,
    ) -> bool {
        let mut done = false;
        let parent = &node.layout;
        self.puzzle.for_each_successor(parent, |moved, layout| {
            if done || last.is_some_and(|last| self.undoes(last, moved)) {
                return;
            }
            // A move changes only the bound of the moved piece's group.
            let group = self.puzzle.group_of_piece(moved.piece as usize);
            let bound = match self.target_of[group] {
                Some(k) => node.bound - self.group_bound(parent, k) + self.group_bound(&layout, k),
                None => node.bound,
            };
            done = visit(moved, &mut BlockNode { layout, bound }, bound);
        });
        done
    }
}

impl Solvable for BlockPuzzle {
    type Space = BlockSpace;

    const PREFERS_BIDIRECTIONAL: bool = true;

    fn search_space(&self, bounded: bool) -> BlockSpace {
        let targets = if bounded {
            BlockSpace::targets(self)
        } else {
            Vec::new()
        };
        let mut target_of = vec![None; self.groups.len()];
        for (k, &(group, _)) in targets.iter().enumerate() {
            target_of[group] = Some(k);
        }
        BlockSpace {
            puzzle: self.clone(),
            targets,
            target_of,
            cost: BlockSpace::costs(self),
        }
    }

    fn node(space: &BlockSpace, state: &Layout) -> BlockNode {
        BlockNode {
            layout: *state,
            bound: space.lower_bound(state),
        }
    }

    fn state(_: &BlockSpace, node: &BlockNode) -> Layout {
        node.layout
    }
}
