//! IDA* on a KPuzzle: nodes are patterns, the bound the largest distance any pattern
//! database (a table of a projection) gives, and the move sequences the cubing
//! solvers prune are not generated: a generator never follows itself (its powers are
//! single moves), and of two generators that commute only one order is tried.

use super::definition::Pattern;
use super::{KPuzzle, Turn};
use crate::solve::{SearchSpace, Solvable};

/// A search space over a KPuzzle.
pub struct KSearch {
    puzzle: KPuzzle,
}

impl SearchSpace for KSearch {
    type Node = Pattern;
    type Move = Turn;

    fn bound(&self, _node: &Pattern) -> u32 {
        0
    }

    fn is_goal(&self, node: &Pattern) -> bool {
        *node == self.puzzle.goal
    }

    fn for_each_child(
        &self,
        node: &mut Pattern,
        last: Option<Turn>,
        mut visit: impl FnMut(Turn, &mut Pattern, u32) -> bool,
    ) -> bool {
        for (k, &turn) in self.puzzle.turns.iter().enumerate() {
            if let Some(last) = last
                && pruned(&self.puzzle, last, turn)
            {
                continue;
            }
            let mut child = self.puzzle.apply(node, k);
            let bound = self.bound(&child);
            if visit(turn, &mut child, bound) {
                return true;
            }
        }
        false
    }
}

/// Whether `turn` after `last` is a sequence an optimal search need not try.
fn pruned(puzzle: &KPuzzle, last: Turn, turn: Turn) -> bool {
    if turn.generator == last.generator {
        // Half-turn metric: the two are one move. Quarter: only the inverse is wasted.
        return match puzzle.variant.metric {
            super::TurnMetric::Half => true,
            super::TurnMetric::Quarter => {
                let order = puzzle.generators[turn.generator as usize].order;
                (turn.amount as u32 + last.amount as u32).is_multiple_of(order)
            }
        };
    }
    turn.generator < last.generator && puzzle.commute(turn.generator, last.generator)
}

impl Solvable for KPuzzle {
    type Space = KSearch;

    fn search_space(&self, _bounded: bool) -> KSearch {
        KSearch {
            puzzle: self.clone(),
        }
    }

    fn node(_space: &KSearch, state: &Pattern) -> Pattern {
        state.clone()
    }

    fn state(_space: &KSearch, node: &Pattern) -> Pattern {
        node.clone()
    }
}
