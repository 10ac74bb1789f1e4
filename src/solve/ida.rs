//! Iterative deepening with a lower bound (IDA*), optionally collecting every optimal
//! solution. With a zero bound it is the plain iterative deepening of the seeds.
//!
//! Each iteration expands the start a few moves deep and searches the subtrees below
//! those nodes in parallel. The result does not depend on the threads: solutions come
//! in subtree order, and without `all` the one from the first subtree that has one is
//! kept (later subtrees stop early once an earlier one succeeded).

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

/// A move, the node it leads to, and that node's bound.
type Child<S> = (<S as SearchSpace>::Move, <S as SearchSpace>::Node, u32);

/// Moves deep enough from the start to give every thread several subtrees.
const SPLIT_DEPTH: u32 = 4;

struct Walk<'a, S: SearchSpace> {
    space: &'a S,
    all: bool,
    path: Vec<S::Move>,
    buffers: Vec<Vec<Child<S>>>,
    solutions: Vec<Vec<S::Move>>,
    nodes: u64,
    /// Set when this walk may stop: an earlier subtree has a solution.
    cancel: Option<&'a dyn Fn() -> bool>,
}

impl<'a, S: SearchSpace> Walk<'a, S> {
    fn new(space: &'a S, all: bool, max_length: u32) -> Self {
        Walk {
            space,
            all,
            path: Vec::new(),
            buffers: (0..=max_length).map(|_| Vec::new()).collect(),
            solutions: Vec::new(),
            nodes: 0,
            cancel: None,
        }
    }

    /// Depth-first search below `node` at `depth` with the total limit `limit`;
    /// true once the walk should stop (a solution without `all`, or cancelled).
    fn dive(&mut self, node: &S::Node, depth: u32, limit: u32) -> bool {
        self.nodes += 1;
        if depth == limit {
            if self.space.is_goal(node) {
                self.solutions.push(self.path.clone());
                return !self.all;
            }
            return false;
        }
        if self.nodes.is_multiple_of(4096) && self.cancel.is_some_and(|c| c()) {
            return true;
        }
        let mut children = std::mem::take(&mut self.buffers[depth as usize]);
        children.clear();
        self.space
            .expand(node, self.path.last().copied(), &mut children);
        let mut done = false;
        for (moved, child, bound) in &children {
            if depth + 1 + bound > limit {
                continue;
            }
            self.path.push(*moved);
            done = self.dive(child, depth + 1, limit);
            self.path.pop();
            if done {
                break;
            }
        }
        self.buffers[depth as usize] = children;
        done
    }

    /// The nodes `depth` moves below `node` within `limit`, with their move paths.
    fn frontier(
        &mut self,
        node: &S::Node,
        depth: u32,
        limit: u32,
        out: &mut Vec<(Vec<S::Move>, S::Node)>,
    ) {
        self.nodes += 1;
        if self.path.len() as u32 == depth {
            out.push((self.path.clone(), node.clone()));
            return;
        }
        let mut children = Vec::new();
        self.space
            .expand(node, self.path.last().copied(), &mut children);
        for (moved, child, bound) in &children {
            if self.path.len() as u32 + 1 + bound > limit {
                continue;
            }
            self.path.push(*moved);
            self.frontier(child, depth, limit, out);
            self.path.pop();
        }
    }
}

/// The nodes after each of `moves` from `start`.
fn replay<S: SearchSpace>(space: &S, start: &S::Node, moves: &[S::Move]) -> Vec<S::Node> {
    let mut node = start.clone();
    let mut nodes = Vec::with_capacity(moves.len());
    let mut children = Vec::new();
    let mut last = None;
    for &m in moves {
        children.clear();
        space.expand(&node, last, &mut children);
        let (_, child, _) = children
            .drain(..)
            .find(|(moved, _, _)| *moved == m)
            .expect("a found solution replays");
        node = child;
        nodes.push(node.clone());
        last = Some(m);
    }
    nodes
}

/// One iteration with depth limit `limit`: the solutions of that length, and the
/// nodes expanded.
fn iteration<S: SearchSpace>(
    space: &S,
    start: &S::Node,
    all: bool,
    limit: u32,
    max_length: u32,
) -> (Vec<Vec<S::Move>>, u64) {
    let mut root = Walk::new(space, all, max_length);
    if limit <= SPLIT_DEPTH {
        root.dive(start, 0, limit);
        return (root.solutions, root.nodes);
    }
    let mut frontier = Vec::new();
    root.frontier(start, SPLIT_DEPTH, limit, &mut frontier);
    let first_success = AtomicUsize::new(usize::MAX);
    let results: Vec<(Vec<Vec<S::Move>>, u64)> = frontier
        .par_iter()
        .enumerate()
        .map(|(i, (path, node))| {
            if !all && first_success.load(Ordering::Relaxed) < i {
                return (Vec::new(), 0);
            }
            let cancel = || !all && first_success.load(Ordering::Relaxed) < i;
            let mut walk = Walk::new(space, all, max_length);
            walk.cancel = Some(&cancel);
            walk.path = path.clone();
            walk.dive(node, SPLIT_DEPTH, limit);
            if !walk.solutions.is_empty() {
                first_success.fetch_min(i, Ordering::Relaxed);
            }
            (walk.solutions, walk.nodes)
        })
        .collect();
    let nodes = root.nodes + results.iter().map(|(_, n)| n).sum::<u64>();
    let mut solutions: Vec<Vec<S::Move>> = results.into_iter().flat_map(|(s, _)| s).collect();
    if !all {
        solutions.truncate(1);
    }
    (solutions, nodes)
}

/// Finds the shortest solutions from `start`, trying limits from
/// [`SearchSpace::first_limit`] up to `max_length` in steps of
/// [`SearchSpace::limit_step`]. Runs on the current rayon pool.
pub fn search<S: SearchSpace>(
    space: &S,
    start: &S::Node,
    all: bool,
    max_length: u32,
) -> Result<Found<S::Move, S::Node>, SearchError> {
    let mut nodes = 0;
    let mut limit = space.first_limit(start);
    while limit <= max_length {
        let (solutions, expanded) = iteration(space, start, all, limit, max_length);
        nodes += expanded;
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
