//! Iterative deepening with a lower bound (IDA*), optionally collecting every optimal
//! solution. With a zero bound it is the plain iterative deepening of the seeds.
//!
//! The walk plays each move in place on one node and takes it back
//! ([`SearchSpace::for_each_child`]): no node is copied and nothing is allocated per
//! node. On several threads, each iteration cuts the tree a few moves deep and the
//! threads take the subtrees in order. The result does not depend on the threads:
//! solutions come in subtree order, and without `all` the one from the first subtree
//! that has one is kept (later subtrees stop early once an earlier one succeeded).

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::SearchSpace;

/// Why a search gave up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// No solution within the depth limit.
    #[error("no solution of at most {0} moves")]
    TooDeep(u32),
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct Found<M, N> {
    /// The optimal length.
    pub length: u32,
    /// One or (with `all`) every optimal solution, as the moved pieces.
    pub solutions: Vec<Vec<M>>,
    /// The positions after each move of each solution.
    pub paths: Vec<Vec<N>>,
    /// Nodes expanded over all iterations.
    pub nodes: u64,
}

/// Subtrees per thread that a parallel iteration cuts the tree into, at least.
const SUBTREES_PER_THREAD: usize = 64;

/// An iteration is split across threads only after one of at least this many nodes:
/// the next is several times larger, while a search of a few thousand nodes is done
/// in a millisecond and would spend a good part of it cutting and joining.
pub const SPLIT_AFTER_NODES: u64 = 20_000;

/// How often (in nodes) a subtree's walk asks whether an earlier subtree succeeded.
pub const CANCEL_CHECK: u64 = 4096;

/// The bookkeeping of one depth-first walk: the moves from the search's start, the
/// solutions found, the nodes counted, and whether it may stop early. A space's own
/// walk ([`SearchSpace::own_walk`]) keeps it as the generic walk does.
pub struct WalkState<'a, M> {
    all: bool,
    path: Vec<M>,
    solutions: Vec<Vec<M>>,
    nodes: u64,
    /// Set when this walk may stop: an earlier subtree has a solution.
    cancel: Option<&'a (dyn Fn() -> bool + Sync)>,
}

impl<M: Copy> WalkState<'_, M> {
    /// The moves from the search's start to the node the walk is at.
    #[must_use]
    pub fn path(&self) -> &[M] {
        &self.path
    }

    /// Nodes counted so far (over the iteration's walks that this one continues).
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Sets the node count (a space's own walk counts in a register and writes back).
    pub fn set_nodes(&mut self, nodes: u64) {
        self.nodes = nodes;
    }

    /// Whether a walk that has counted `nodes` should stop: asked every
    /// [`CANCEL_CHECK`] nodes (cheap otherwise), true once an earlier subtree of a
    /// parallel iteration found a solution and only one is wanted.
    #[inline(always)]
    #[must_use]
    pub fn cancelled_at(&self, nodes: u64) -> bool {
        nodes.is_multiple_of(CANCEL_CHECK) && self.cancel.is_some_and(|c| c())
    }

    /// Records the solution [`path`](Self::path) followed by `tail`; returns whether
    /// the walk stops (one solution is wanted).
    pub fn found(&mut self, tail: &[M]) -> bool {
        let mut solution = self.path.clone();
        solution.extend_from_slice(tail);
        self.solutions.push(solution);
        !self.all
    }
}

struct Walk<'a, S: SearchSpace> {
    space: &'a S,
    state: WalkState<'a, S::Move>,
}

impl<'a, S: SearchSpace> Walk<'a, S> {
    fn new(space: &'a S, all: bool, path: Vec<S::Move>) -> Self {
        Walk {
            space,
            state: WalkState {
                all,
                path,
                solutions: Vec::new(),
                nodes: 0,
                cancel: None,
            },
        }
    }

    /// The walk below `node` at `depth`: the space's own if it has one, else
    /// [`Walk::dive`].
    fn run(&mut self, node: &mut S::Node, depth: u32, limit: u32) -> bool {
        let space = self.space;
        match space.own_walk(node, depth, limit, &mut self.state) {
            Some(done) => done,
            None => self.dive(node, depth, limit),
        }
    }

    /// Depth-first search below `node` at `depth` with the total limit `limit`, moves
    /// played in place; true once the walk should stop (a solution without `all`, or
    /// cancelled).
    fn dive(&mut self, node: &mut S::Node, depth: u32, limit: u32) -> bool {
        self.state.nodes += 1;
        if depth == limit {
            if self.space.is_goal(node) {
                return self.state.found(&[]);
            }
            return false;
        }
        if self.state.cancelled_at(self.state.nodes) {
            return true;
        }
        let space = self.space;
        let last = self.state.path.last().copied();
        space.for_each_child_within(node, last, limit - depth - 1, |moved, child, _| {
            self.state.path.push(moved);
            let done = self.dive(child, depth + 1, limit);
            self.state.path.pop();
            done
        })
    }
}

/// The nodes after each of `moves` from `start`.
fn replay<S: SearchSpace>(space: &S, start: &S::Node, moves: &[S::Move]) -> Vec<S::Node> {
    let mut node = start.clone();
    let mut nodes = Vec::with_capacity(moves.len());
    let mut last = None;
    for &m in moves {
        let mut next = None;
        space.for_each_child(&mut node, last, |moved, child, _| {
            if moved == m {
                next = Some(child.clone());
            }
            next.is_some()
        });
        node = next.expect("a found solution replays");
        nodes.push(node.clone());
        last = Some(m);
    }
    nodes
}

/// One iteration with depth limit `limit`: the solutions of that length, and the
/// nodes expanded.
///
/// On one thread, or without `split`, this is one depth-first walk. On several, the
/// tree is cut at the
/// first depth with at least [`SUBTREES_PER_THREAD`] nodes per thread, and the threads
/// take those subtrees in order from a shared counter, so that they work near each
/// other and a search for one solution wastes at most about one subtree per thread
/// after the first subtree with a solution. The node count then leaves out the
/// subtrees after that one (what a sequential search would not have reached) but
/// counts the levels above the cut in full.
fn iteration<S: SearchSpace>(
    space: &S,
    start: &S::Node,
    all: bool,
    limit: u32,
    split: bool,
) -> (Vec<Vec<S::Move>>, u64) {
    let mut root = Walk::new(space, all, Vec::new());
    let mut node = start.clone();
    let threads = rayon::current_num_threads();
    if !split || threads == 1 || limit <= 1 {
        root.run(&mut node, 0, limit);
        return (root.state.solutions, root.state.nodes);
    }
    // Deepen the cut until it has enough subtrees, or until one more level would
    // reach the limit (then the walk is short anyway). The nodes above the cut are
    // counted here, those at the cut by the subtrees' walks.
    let mut cut = 0;
    let mut frontier: Vec<(Vec<S::Move>, S::Node)> = vec![(Vec::new(), node)];
    while frontier.len() < SUBTREES_PER_THREAD * threads && cut + 1 < limit {
        let mut next = Vec::new();
        for (path, mut node) in frontier {
            root.state.nodes += 1;
            let last = path.last().copied();
            space.for_each_child_within(&mut node, last, limit - cut - 1, |moved, child, _| {
                let mut below = path.clone();
                below.push(moved);
                next.push((below, child.clone()));
                false
            });
        }
        frontier = next;
        cut += 1;
        if frontier.is_empty() {
            return (Vec::new(), root.state.nodes);
        }
    }
    let next_subtree = AtomicUsize::new(0);
    let first_success = AtomicUsize::new(usize::MAX);
    let walked: Vec<Vec<Subtree<S::Move>>> = (0..threads)
        .into_par_iter()
        .map(|_| {
            let mut walked = Vec::new();
            loop {
                let i = next_subtree.fetch_add(1, Ordering::Relaxed);
                if i >= frontier.len() || !all && first_success.load(Ordering::Relaxed) < i {
                    return walked;
                }
                let cancel = || !all && first_success.load(Ordering::Relaxed) < i;
                let (path, node) = &frontier[i];
                let mut walk = Walk::new(space, all, path.clone());
                walk.state.cancel = Some(&cancel);
                walk.run(&mut node.clone(), cut, limit);
                if !walk.state.solutions.is_empty() {
                    first_success.fetch_min(i, Ordering::Relaxed);
                }
                walked.push((i, walk.state.solutions, walk.state.nodes));
            }
        })
        .collect();
    let mut results: Vec<_> = walked.into_iter().flatten().collect();
    results.sort_unstable_by_key(|&(i, _, _)| i);
    if !all {
        let first = results
            .iter()
            .position(|(_, solutions, _)| !solutions.is_empty());
        if let Some(first) = first {
            results.truncate(first + 1);
        }
    }
    let nodes = root.state.nodes + results.iter().map(|(_, _, n)| n).sum::<u64>();
    let mut solutions: Vec<Vec<S::Move>> = results.into_iter().flat_map(|(_, s, _)| s).collect();
    if !all {
        solutions.truncate(1);
    }
    (solutions, nodes)
}

/// A walked subtree: its number in the cut, its solutions, its nodes.
type Subtree<M> = (usize, Vec<Vec<M>>, u64);

/// Finds the shortest solutions from `start`, trying limits from
/// [`SearchSpace::first_limit`] up to `max_length` in steps of
/// [`SearchSpace::limit_step`]. Runs on the current rayon pool; an iteration is split
/// across its threads once the one before it took [`SPLIT_AFTER_NODES`] nodes.
///
/// # Errors
/// [`SearchError::TooDeep`] if no solution is within the depth limit.
pub fn search<S: SearchSpace>(
    space: &S,
    start: &S::Node,
    all: bool,
    max_length: u32,
) -> Result<Found<S::Move, S::Node>, SearchError> {
    let mut nodes = 0;
    let mut limit = space.first_limit(start);
    let mut last_iteration = 0;
    while limit <= max_length {
        let split = last_iteration >= SPLIT_AFTER_NODES;
        let (solutions, expanded) = iteration(space, start, all, limit, split);
        nodes += expanded;
        last_iteration = expanded;
        if !solutions.is_empty() {
            let paths = solutions
                .iter()
                .map(|moves| replay(space, start, moves))
                .collect();
            return Ok(Found {
                length: limit,
                solutions,
                paths,
                nodes,
            });
        }
        limit += space.limit_step();
    }
    Err(SearchError::TooDeep(max_length))
}
