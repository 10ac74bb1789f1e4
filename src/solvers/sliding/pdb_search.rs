//! IDA* for sliding boards of up to 32 cells (the 24-puzzle too) with pattern
//! databases: the bound is the partition's sum of database entries, and the larger of
//! it and the reflected position's sum where the goal is symmetric ([`Partition`]). A
//! move changes one tile's place, so it changes one pattern's entry on each side: the
//! node keeps every pattern's entry and looks up only those two again.

use super::packed_walk::{MAX_OWN_DEPTH, Tail};
use super::search::BoardMoves;
use crate::pdb::Partition;
use crate::pdb::partition::MAX_PATTERNS;
use crate::puzzles::sliding::{BoardShape, MAX_SHAPE_CELLS, blank_cell};
use crate::solve::SearchSpace;
use crate::solve::ida::WalkState;

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
    #[must_use]
    pub fn new(shape: &BoardShape, partition: &'a Partition) -> PdbSpace<'a> {
        PdbSpace {
            partition,
            moves: BoardMoves::new(shape),
        }
    }

    /// The node of a position (row-major tile numbers, 0 for the blank).
    #[must_use]
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
    #[must_use]
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
        visit: impl FnMut(u8, &mut PdbNode, u32) -> bool,
    ) -> bool {
        self.for_each_child_within(node, last, u32::MAX, visit)
    }

    /// A child's reflected entry is looked up only when its direct sum is within
    /// `max_bound`.
    #[inline(always)]
    fn for_each_child_within(
        &self,
        node: &mut PdbNode,
        last: Option<u8>,
        max_bound: u32,
        mut visit: impl FnMut(u8, &mut PdbNode, u32) -> bool,
    ) -> bool {
        let partition = self.partition;
        let blank = node.blank as usize % PLACES;
        for &from in self.moves.around(blank) {
            let from = from as usize % PLACES;
            let tile = node.cells[from];
            if Some(tile) == last {
                continue;
            }
            let slot = tile as usize % PLACES;
            node.places[slot] = blank as u8;
            let direct = partition.pattern_of(tile).map(|p| {
                let entry = partition.part(p, &node.places) as u8;
                (p, entry, node.direct_sum - node.direct[p] + entry)
            });
            let direct_sum = direct.map_or(node.direct_sum, |(_, _, sum)| sum);
            if direct_sum as u32 > max_bound {
                node.places[slot] = from as u8;
                continue;
            }
            let reflected = partition
                .pattern_of(partition.reflected_tile(tile))
                .filter(|_| partition.reflects())
                .map(|p| {
                    let entry = partition.reflected_part(p, &node.places) as u8;
                    (p, entry, node.reflected_sum - node.reflected[p] + entry)
                });
            let reflected_sum = reflected.map_or(node.reflected_sum, |(_, _, sum)| sum);
            if reflected_sum as u32 > max_bound {
                node.places[slot] = from as u8;
                continue;
            }
            let saved = (
                node.direct,
                node.reflected,
                node.direct_sum,
                node.reflected_sum,
            );
            if let Some((p, entry, sum)) = direct {
                node.direct[p] = entry;
                node.direct_sum = sum;
            }
            if let Some((p, entry, sum)) = reflected {
                node.reflected[p] = entry;
                node.reflected_sum = sum;
            }
            node.cells[blank] = tile;
            node.cells[from] = 0;
            node.blank = from as u8;
            let done = visit(tile, node, direct_sum.max(reflected_sum) as u32);
            (
                node.direct,
                node.reflected,
                node.direct_sum,
                node.reflected_sum,
            ) = saved;
            node.places[slot] = from as u8;
            node.cells[from] = tile;
            node.cells[blank] = 0;
            node.blank = blank as u8;
            if done {
                return true;
            }
        }
        false
    }

    /// The walk of `PdbWalk`: the generic walk's nodes through
    /// [`for_each_child_within`](Self::for_each_child_within), and POPCNT in the
    /// ranking where the CPU has it.
    fn own_walk(
        &self,
        node: &PdbNode,
        depth: u32,
        limit: u32,
        walk: &mut WalkState<'_, u8>,
    ) -> Option<bool> {
        if limit as usize >= MAX_OWN_DEPTH {
            return None;
        }
        let last = walk.path().last().copied();
        let mut pdb_walk = PdbWalk {
            space: self,
            limit,
            nodes: walk.nodes(),
            tail: Tail::new(depth),
            state: walk,
        };
        let mut node = node.clone();
        let done = pdb_walk.run(&mut node, last, depth);
        pdb_walk.state.set_nodes(pdb_walk.nodes);
        Some(done)
    }

    fn first_limit(&self, node: &PdbNode) -> u32 {
        self.moves.first_limit(node.blank as usize, node.bound())
    }

    fn limit_step(&self) -> u32 {
        2
    }
}

/// IDA* below one node with a partition's databases: the generic walk's nodes in its
/// order, and its bookkeeping ([`WalkState`]).
struct PdbWalk<'p, 's, 'a> {
    space: &'p PdbSpace<'p>,
    limit: u32,
    nodes: u64,
    tail: Tail,
    state: &'s mut WalkState<'a, u8>,
}

impl PdbWalk<'_, '_, '_> {
    fn run(&mut self, node: &mut PdbNode, last: Option<u8>, depth: u32) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(popcnt) = crate::cpu::Popcnt::detect() {
            // SAFETY: the token proves that the CPU has POPCNT.
            return unsafe { self.dive_popcnt(popcnt, node, last, depth) };
        }
        self.dive_portable(node, last, depth)
    }

    /// The walk compiled with POPCNT (the token is the proof the CPU has it, passed
    /// down the recursion).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    #[allow(clippy::only_used_in_recursion)]
    fn dive_popcnt(
        &mut self,
        popcnt: crate::cpu::Popcnt,
        node: &mut PdbNode,
        last: Option<u8>,
        depth: u32,
    ) -> bool {
        self.dive(node, last, depth, |walk, child, moved, depth| {
            walk.dive_popcnt(popcnt, child, Some(moved), depth)
        })
    }

    fn dive_portable(&mut self, node: &mut PdbNode, last: Option<u8>, depth: u32) -> bool {
        self.dive(node, last, depth, |walk, child, moved, depth| {
            walk.dive_portable(child, Some(moved), depth)
        })
    }

    /// One node: counted, the goal checked at the limit, cancellation asked, then each
    /// child within the limit played in place and walked by `below`.
    #[inline(always)]
    fn dive(
        &mut self,
        node: &mut PdbNode,
        last: Option<u8>,
        depth: u32,
        mut below: impl FnMut(&mut Self, &mut PdbNode, u8, u32) -> bool,
    ) -> bool {
        self.nodes += 1;
        if depth == self.limit {
            return self.space.is_goal(node) && self.tail.found(self.state, depth);
        }
        if self.state.cancelled_at(self.nodes) {
            return true;
        }
        let space = self.space;
        space.for_each_child_within(node, last, self.limit - depth - 1, |tile, child, _| {
            self.tail.set(depth, tile);
            below(self, child, tile, depth + 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::pdb::BuildSettings;
    use crate::solve::{GenericWalk, ida};

    /// The 3x3 board with a symmetric goal (blank first: reflections too), and the
    /// 3x4 board (none), with their partitions' databases.
    fn spaces() -> &'static [(BoardShape, Partition)] {
        static SPACES: std::sync::OnceLock<Vec<(BoardShape, Partition)>> =
            std::sync::OnceLock::new();
        SPACES.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let boards = [
                (
                    BoardShape::new(3, 3)
                        .unwrap()
                        .with_goal("0 1 2/3 4 5/6 7 8")
                        .unwrap(),
                    "4-4",
                ),
                (BoardShape::new(3, 4).unwrap(), "5-6"),
            ];
            boards
                .into_iter()
                .map(|(shape, sizes)| {
                    let tiles =
                        Partition::split(shape.rows(), shape.cols(), shape.goal(), sizes).unwrap();
                    let settings = BuildSettings {
                        checkpoint_every: None,
                        stop: None,
                    };
                    let partition = Partition::open_or_build(
                        dir.path(),
                        &shape,
                        &tiles,
                        &settings,
                        &mut |_| {},
                    )
                    .unwrap();
                    (shape, partition)
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// The same length, solutions (one, or all) and node count as the generic walk,
        /// on one thread and on two.
        #[test]
        fn the_pdb_walk_is_the_generic_walk(
            board in 0usize..2,
            walk in prop::collection::vec(0usize..4, 0..40),
            all in any::<bool>(),
        ) {
            let (shape, partition) = &spaces()[board];
            let space = PdbSpace::new(shape, partition);
            let mut cells = shape.goal().to_vec();
            let cols = shape.cols();
            for step in walk {
                let blank = blank_cell(&cells);
                let (row, col) = (blank / cols, blank % cols);
                let around: Vec<usize> = [
                    (row > 0).then(|| blank - cols),
                    (col > 0).then(|| blank - 1),
                    (col + 1 < cols).then(|| blank + 1),
                    (row + 1 < shape.rows()).then(|| blank + cols),
                ]
                .into_iter()
                .flatten()
                .collect();
                cells.swap(blank, around[step % around.len()]);
            }
            let start = space.node(&cells);
            for threads in [1, 2] {
                let (own, generic) = crate::pool::run_on(Some(threads), || {
                    (
                        ida::search(&space, &start, all, 60),
                        ida::search(&GenericWalk(&space), &start, all, 60),
                    )
                })
                .unwrap();
                let (own, generic) = (own.unwrap(), generic.unwrap());
                prop_assert_eq!(own.length, generic.length);
                prop_assert_eq!(own.solutions, generic.solutions);
                prop_assert_eq!(own.nodes, generic.nodes);
            }
        }
    }
}
