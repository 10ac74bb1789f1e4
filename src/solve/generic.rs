//! Any puzzle as a search space with no lower bound (plain iterative deepening), never
//! undoing the previous move.

use super::SearchSpace;
use crate::puzzle::Puzzle;

/// A puzzle searched through its own successor function.
pub struct GenericSpace<P: Puzzle> {
    puzzle: P,
}

/// A position and the one it came from.
#[derive(Debug, Clone)]
pub struct GenericNode<S> {
    /// The position.
    pub state: S,
    parent: Option<S>,
}

impl<P: Puzzle> GenericSpace<P> {
    /// The space of `puzzle`.
    pub fn new(puzzle: P) -> Self {
        GenericSpace { puzzle }
    }

    /// The node of a position.
    pub fn node(&self, state: &P::State) -> GenericNode<P::State> {
        GenericNode {
            state: state.clone(),
            parent: None,
        }
    }
}

impl<P: Puzzle> SearchSpace for GenericSpace<P> {
    type Node = GenericNode<P::State>;
    type Move = P::Move;

    fn bound(&self, _node: &Self::Node) -> u32 {
        0
    }

    fn has_bound(&self) -> bool {
        false
    }

    fn is_goal(&self, node: &Self::Node) -> bool {
        node.state == self.puzzle.goal()
    }

    fn expand(
        &self,
        node: &Self::Node,
        _last: Option<P::Move>,
        out: &mut Vec<(P::Move, Self::Node, u32)>,
    ) {
        let mut successors = Vec::new();
        self.puzzle.successors(&node.state, &mut successors);
        for s in successors {
            if node.parent.as_ref() == Some(&s.state) {
                continue;
            }
            out.push((
                s.moved,
                GenericNode {
                    state: s.state,
                    parent: Some(node.state.clone()),
                },
                0,
            ));
        }
    }
}
