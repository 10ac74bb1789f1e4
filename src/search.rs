//! Search methods that need no table: iterative deepening (IDDFS) and IDA* with an
//! admissible lower bound, as in the seed pages.
//!
//! [`ida::search`] is generic over a [`SearchSpace`]; each puzzle family provides one
//! in its own module ([`crate::solvers::sliding::search`],
//! `crate::solvers::blocks`, [`crate::solvers::oshidori`]) that applies
//! moves in place and keeps its lower bound up to date incrementally, and names it by
//! implementing [`Solvable`].

pub mod bibfs;
pub mod ida;

/// A puzzle as IDA* sees it: a node, its moves, a lower bound on its distance.
pub trait SearchSpace: Sync {
    /// A position plus whatever the bound needs.
    type Node: Clone + Send + Sync;
    /// What a solution lists per move.
    type Move: Copy + PartialEq + std::fmt::Display + Send + Sync;

    /// A lower bound on the node's distance to the goal (0 for plain IDDFS).
    fn bound(&self, node: &Self::Node) -> u32;

    /// Whether the node is the goal.
    fn is_goal(&self, node: &Self::Node) -> bool;

    /// Calls `visit` with each move from `node` except the one that would move back
    /// the piece that `last` moved, the child it leads to and the child's bound; stops
    /// at the first call that returns true, and returns whether one did.
    ///
    /// The child may be `node` itself with the move played in place: it is restored
    /// before the next call and before this returns, so the search copies no node.
    fn for_each_child(
        &self,
        node: &mut Self::Node,
        last: Option<Self::Move>,
        visit: impl FnMut(Self::Move, &mut Self::Node, u32) -> bool,
    ) -> bool;

    /// [`for_each_child`](Self::for_each_child) for the children whose bound is at
    /// most `max_bound` only (what a depth-limited walk keeps). A space that can tell
    /// a child is beyond `max_bound` before working out its whole bound skips it
    /// sooner; the default works out every child and filters.
    #[inline(always)]
    fn for_each_child_within(
        &self,
        node: &mut Self::Node,
        last: Option<Self::Move>,
        max_bound: u32,
        mut visit: impl FnMut(Self::Move, &mut Self::Node, u32) -> bool,
    ) -> bool {
        self.for_each_child(node, last, |moved, child, bound| {
            bound <= max_bound && visit(moved, child, bound)
        })
    }

    /// Walks the tree below `node` (at `depth`; the moves to it in `walk`) up to the
    /// depth `limit` with a walk of the space's own, visiting the nodes of the generic
    /// walk in the same order and keeping `walk` as it would (nodes, solutions,
    /// cancellation): returns whether the walk stops, or `None` if the space has no
    /// walk of its own for this node (the generic one runs).
    fn own_walk(
        &self,
        node: &Self::Node,
        depth: u32,
        limit: u32,
        walk: &mut ida::WalkState<'_, Self::Move>,
    ) -> Option<bool> {
        let _ = (node, depth, limit, walk);
        None
    }

    /// The first depth limit tried (by default the start's bound).
    fn first_limit(&self, node: &Self::Node) -> u32 {
        self.bound(node)
    }

    /// By how much the depth limit grows between iterations: 2 when every solution's
    /// length has a known parity (sliding boards), else 1.
    fn limit_step(&self) -> u32 {
        1
    }
}

use crate::puzzle::Puzzle;
pub use ida::{Found, SearchError};

/// A space with the generic walk only: everything but [`SearchSpace::own_walk`] is
/// the wrapped space's (tests hold a space's own walk to the generic one with it).
#[cfg(test)]
pub(crate) struct GenericWalk<'a, S>(pub &'a S);

#[cfg(test)]
impl<S: SearchSpace> SearchSpace for GenericWalk<'_, S> {
    type Node = S::Node;
    type Move = S::Move;

    fn bound(&self, node: &S::Node) -> u32 {
        self.0.bound(node)
    }

    fn is_goal(&self, node: &S::Node) -> bool {
        self.0.is_goal(node)
    }

    fn for_each_child(
        &self,
        node: &mut S::Node,
        last: Option<S::Move>,
        visit: impl FnMut(S::Move, &mut S::Node, u32) -> bool,
    ) -> bool {
        self.0.for_each_child(node, last, visit)
    }

    fn first_limit(&self, node: &S::Node) -> u32 {
        self.0.first_limit(node)
    }

    fn limit_step(&self) -> u32 {
        self.0.limit_step()
    }
}

/// The children of `node` as copies: move, child, bound (for replaying a solution and
/// for tests; the search itself visits them in place).
pub fn children<S: SearchSpace>(
    space: &S,
    node: &S::Node,
    last: Option<S::Move>,
) -> Vec<(S::Move, S::Node, u32)> {
    let mut out = Vec::new();
    let mut node = node.clone();
    space.for_each_child(&mut node, last, |moved, child, bound| {
        out.push((moved, child.clone(), bound));
        false
    });
    out
}

/// A puzzle that IDA* and IDDFS can solve: it names its search space.
pub trait Solvable: Puzzle {
    /// The search space.
    type Space: SearchSpace;

    /// Whether bidirectional search is the better default (the space's bound is weak).
    const PREFERS_BIDIRECTIONAL: bool = false;

    /// The space, with the puzzle's lower bound (`bounded`) or none (plain IDDFS).
    fn search_space(&self, bounded: bool) -> Self::Space;

    /// The search node of a position.
    fn node(space: &Self::Space, state: &Self::State) -> <Self::Space as SearchSpace>::Node;

    /// The position of a search node.
    fn state(space: &Self::Space, node: &<Self::Space as SearchSpace>::Node) -> Self::State;
}

/// The search methods that need no table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Iterative deepening with the puzzle's lower bound.
    Ida,
    /// Plain iterative deepening.
    Iddfs,
}

/// Optimal solutions of `puzzle` from `start` (every one with `all`), each as its
/// moves and the positions after them.
///
/// # Errors
/// [`SearchError::TooDeep`] if no solution is within the depth limit.
///
/// ```
/// use antipode::{Notation, Puzzle, puzzles::SlidingPuzzle, search};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let start = eight.parse("867254301").unwrap();
/// let found = search::solve(&eight, &start, search::Method::Ida, true, 40).unwrap();
/// assert_eq!(found.length, 31);
/// assert_eq!(found.solutions.len(), 40);
/// ```
pub fn solve<P: Solvable>(
    puzzle: &P,
    start: &P::State,
    method: Method,
    all: bool,
    max_length: u32,
) -> Result<Found<<P::Space as SearchSpace>::Move, P::State>, SearchError> {
    let space = puzzle.search_space(method == Method::Ida);
    let found = ida::search(&space, &P::node(&space, start), all, max_length)?;
    Ok(Found {
        length: found.length,
        solutions: found.solutions,
        paths: found
            .paths
            .iter()
            .map(|nodes| nodes.iter().map(|n| P::state(&space, n)).collect())
            .collect(),
        nodes: found.nodes,
    })
}
