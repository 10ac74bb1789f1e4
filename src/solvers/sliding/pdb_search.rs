//! IDA* for sliding boards of up to 32 cells (the 24-puzzle too) with pattern
//! databases: the bound is the partition's sum of database entries, and the larger of
//! it and the reflected position's sum where the goal is symmetric ([`Partition`]). A
//! move changes one tile's place, so it changes one pattern's entry on each side: the
//! node keeps every pattern's entry, rank and Manhattan base on both sides, and a
//! move updates the moved pattern's rank from the cells it passes over
//! ([`rank_after_move`]) before its entry is looked up.

use super::packed_walk::{MAX_OWN_DEPTH, Tail};
use super::search::BoardMoves;
use crate::pdb::Partition;
use crate::pdb::file::EntryRef;
use crate::pdb::partition::MAX_PATTERNS;
use crate::puzzles::sliding::{BoardShape, MAX_SHAPE_CELLS, blank_cell};
use crate::rank::partial::rank_after_move;
use crate::search::SearchSpace;
use crate::search::ida::WalkState;

/// Cells and tile numbers a node has room for: any board a partition covers (the
/// 24-puzzle too).
const PLACES: usize = MAX_SHAPE_CELLS;

/// No pattern: the blank, or a side without a reflection.
const NONE: u8 = u8::MAX;

/// What a move of a tile changes on one side (the position, or its reflection): the
/// pattern item that moves, what a unit of its rank digit is worth, and its Manhattan
/// base on each cell the tile can stand on.
#[derive(Debug, Clone, Copy)]
struct Item {
    pattern: u8,
    item: u8,
    weight: u64,
    base: [u8; PLACES],
}

impl Item {
    const NONE: Item = Item {
        pattern: NONE,
        item: 0,
        weight: 0,
        base: [0; PLACES],
    };
}

/// One side of the bound: the position itself, or its reflection about the main
/// diagonal. A tile on cell `c` is, on this side, pattern item `items[tile]` on place
/// `frame[c]`.
#[derive(Debug, Clone)]
struct Frame {
    items: [Item; PLACES],
    frame: [u8; PLACES],
}

/// Each pattern's entry, rank, Manhattan base and taken places on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Side {
    entries: [u8; MAX_PATTERNS],
    sum: u8,
    ranks: [u64; MAX_PATTERNS],
    bases: [u8; MAX_PATTERNS],
    taken: [u32; MAX_PATTERNS],
}

/// A pattern's new rank, base, taken places and entry on one side after a move.
#[derive(Debug, Clone, Copy, Default)]
struct Moved {
    pattern: u8,
    rank: u64,
    base: u8,
    taken: u32,
    entry: u8,
}

/// A sliding board searched with a partition's databases.
pub struct PdbSpace<'a> {
    partition: &'a Partition,
    moves: BoardMoves<PLACES>,
    direct: Frame,
    reflected: Frame,
}

/// A board, and each pattern's entry on both sides.
#[derive(Debug, Clone)]
pub struct PdbNode {
    cells: [u8; PLACES],
    blank: u8,
    direct: Side,
    reflected: Side,
}

impl PdbNode {
    #[inline(always)]
    fn bound(&self) -> u32 {
        self.direct.sum.max(self.reflected.sum) as u32
    }
}

impl<'a> PdbSpace<'a> {
    /// The space of the board `shape` bounded by `partition` (built for the shape's
    /// goal).
    #[must_use]
    pub fn new(shape: &BoardShape, partition: &'a Partition) -> PdbSpace<'a> {
        let cells = shape.rows() * shape.cols();
        let frame = |reflect: bool| {
            let mut items = [Item::NONE; PLACES];
            let mut frame = [0u8; PLACES];
            for (cell, place) in frame.iter_mut().enumerate() {
                *place = if reflect {
                    partition.reflected_cell(cell as u8)
                } else {
                    cell as u8
                };
            }
            if reflect && !partition.reflects() {
                return Frame { items, frame };
            }
            for tile in 1..cells as u8 {
                // On the reflected side a move of `tile` moves the item its reflection
                // pairs it with.
                let moved = if reflect {
                    partition.reflected_tile(tile)
                } else {
                    tile
                };
                let Some(p) = partition.pattern_of(moved) else {
                    continue;
                };
                let db = &partition.databases()[p];
                let item = db
                    .pattern()
                    .tiles()
                    .iter()
                    .position(|&t| t == moved)
                    .expect("a pattern holds its tiles");
                let mut base = [0u8; PLACES];
                for (cell, b) in base.iter_mut().enumerate().take(cells) {
                    *b = db.base_of(item, frame[cell]) as u8;
                }
                items[tile as usize] = Item {
                    pattern: p as u8,
                    item: item as u8,
                    weight: db.pattern().placements().weight(item),
                    base,
                };
            }
            Frame { items, frame }
        };
        PdbSpace {
            partition,
            moves: BoardMoves::new(shape),
            direct: frame(false),
            reflected: frame(true),
        }
    }

    /// The node of a position (row-major tile numbers, 0 for the blank).
    #[must_use]
    pub fn node(&self, position: &[u8]) -> PdbNode {
        let mut cells = [0u8; PLACES];
        cells[..position.len()].copy_from_slice(position);
        PdbNode {
            cells,
            blank: blank_cell(position) as u8,
            direct: self.side(&self.direct, &cells),
            reflected: self.side(&self.reflected, &cells),
        }
    }

    /// One side of the node of `cells`, ranked from scratch.
    fn side(&self, frame: &Frame, cells: &[u8; PLACES]) -> Side {
        let mut side = Side {
            entries: [0; MAX_PATTERNS],
            sum: 0,
            ranks: [0; MAX_PATTERNS],
            bases: [0; MAX_PATTERNS],
            taken: [0; MAX_PATTERNS],
        };
        let mut places = [[0u8; PLACES]; MAX_PATTERNS];
        for (cell, &tile) in cells.iter().enumerate().take(self.moves.cells()) {
            let item = &frame.items[tile as usize % PLACES];
            if item.pattern != NONE {
                let p = item.pattern as usize % MAX_PATTERNS;
                let place = frame.frame[cell];
                places[p][item.item as usize % PLACES] = place;
                side.bases[p] += item.base[cell];
                side.taken[p] |= 1 << place;
            }
        }
        for (p, db) in self.partition.databases().iter().enumerate() {
            if side.taken[p] == 0 {
                continue;
            }
            let items = db.pattern().tiles().len();
            side.ranks[p] = db.pattern().placements().rank(&places[p][..items]);
            side.entries[p] = self
                .partition
                .entry(p, EntryRef::new(side.ranks[p], side.bases[p] as u32))
                as u8;
        }
        side.sum = side.entries.iter().sum();
        side
    }

    /// The position of a node.
    #[must_use]
    pub fn position<'n>(&self, node: &'n PdbNode) -> &'n [u8] {
        &node.cells[..self.moves.cells()]
    }

    /// Where the entry of the pattern that a move of `tile` from `from` to the blank
    /// `to` changes on side `frame` lies after the move, and the pattern's new rank,
    /// base and places (`None` if no pattern of the side holds `tile`'s item).
    #[inline(always)]
    fn moved(
        &self,
        frame: &Frame,
        side: &Side,
        cells: &[u8; PLACES],
        tile: u8,
        from: usize,
        to: usize,
    ) -> Option<Moved> {
        let item = &frame.items[tile as usize % PLACES];
        if item.pattern == NONE {
            return None;
        }
        let p = item.pattern as usize % MAX_PATTERNS;
        let (a, b) = (
            frame.frame[from % PLACES] as u32,
            frame.frame[to % PLACES] as u32,
        );
        let taken = side.taken[p];
        let rank = rank_after_move(
            side.ranks[p],
            item.item,
            item.weight,
            a,
            b,
            taken,
            |place| {
                let tile = cells[frame.frame[place as usize % PLACES] as usize % PLACES];
                let other = &frame.items[tile as usize % PLACES];
                (other.item, other.weight)
            },
        );
        Some(Moved {
            pattern: p as u8,
            rank,
            base: side.bases[p] + item.base[to % PLACES] - item.base[from % PLACES],
            taken: taken & !(1 << a) | 1 << b,
            entry: 0,
        })
    }
}

impl PdbSpace<'_> {
    /// The children of `node` but the one undoing `last`, in the order of the moves,
    /// written into `children`: where their changed entries lie, each asked for (not
    /// read).
    #[inline(always)]
    fn children<'c>(
        &self,
        node: &PdbNode,
        last: Option<u8>,
        children: &'c mut [Child; MAX_MOVES],
    ) -> &'c mut [Child] {
        let blank = node.blank as usize % PLACES;
        let mut count = 0;
        for &from in self.moves.around(blank) {
            let tile = node.cells[from as usize % PLACES];
            if Some(tile) == last {
                continue;
            }
            let from = from as usize;
            let direct = self.moved(&self.direct, &node.direct, &node.cells, tile, from, blank);
            let reflected = self.moved(
                &self.reflected,
                &node.reflected,
                &node.cells,
                tile,
                from,
                blank,
            );
            for m in [&direct, &reflected].into_iter().flatten() {
                self.partition
                    .prefetch(m.pattern as usize, EntryRef::new(m.rank, m.base as u32));
            }
            children[count % MAX_MOVES] = Child {
                from: from as u8,
                tile,
                direct,
                reflected,
                direct_sum: node.direct.sum,
                reflected_sum: node.reflected.sum,
            };
            count += 1;
        }
        &mut children[..count.min(MAX_MOVES)]
    }

    /// Reads a child's entries and sums (of `node`, whose own are read): the reflected
    /// one only when the direct sum is within `max_bound`.
    #[inline(always)]
    fn read(&self, node: &PdbNode, child: &mut Child, max_bound: u32) {
        child.direct_sum = self.read_side(&node.direct, &mut child.direct);
        if child.direct_sum as u32 <= max_bound {
            child.reflected_sum = self.read_side(&node.reflected, &mut child.reflected);
        }
    }

    /// Reads one side's changed entry into `moved`: the side's sum after the move.
    #[inline(always)]
    fn read_side(&self, side: &Side, moved: &mut Option<Moved>) -> u8 {
        match moved {
            Some(m) => {
                let p = m.pattern as usize % MAX_PATTERNS;
                m.entry = self
                    .partition
                    .entry(p, EntryRef::new(m.rank, m.base as u32)) as u8;
                side.sum - side.entries[p] + m.entry
            }
            None => side.sum,
        }
    }

    /// Plays `child` (its entries [read](Self::read)) on `node`; returns what
    /// [`take_back`](Self::take_back) puts back.
    #[inline(always)]
    fn play(&self, node: &mut PdbNode, child: &Child) -> Undo {
        let blank = node.blank as usize % PLACES;
        let from = child.from as usize % PLACES;
        let undo = Undo {
            direct: apply(&mut node.direct, child.direct),
            reflected: apply(&mut node.reflected, child.reflected),
            direct_sum: node.direct.sum,
            reflected_sum: node.reflected.sum,
            blank: node.blank,
        };
        node.direct.sum = child.direct_sum;
        node.reflected.sum = child.reflected_sum;
        node.cells[blank] = child.tile;
        node.cells[from] = 0;
        node.blank = from as u8;
        undo
    }

    /// Takes `child` back off `node` (played by [`play`](Self::play)).
    #[inline(always)]
    fn take_back(&self, node: &mut PdbNode, child: &Child, undo: Undo) {
        let blank = undo.blank as usize % PLACES;
        node.cells[child.from as usize % PLACES] = child.tile;
        node.cells[blank] = 0;
        node.blank = undo.blank;
        apply(&mut node.direct, undo.direct);
        apply(&mut node.reflected, undo.reflected);
        node.direct.sum = undo.direct_sum;
        node.reflected.sum = undo.reflected_sum;
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

    /// The children's bounds come first: both entries of every child are asked for
    /// before one is read, so that their memory latencies overlap (an entry of a big
    /// database is nearly always a cache miss); a child's reflected entry is read only
    /// when its direct sum is within `max_bound`. The children are then visited in the
    /// order of the moves.
    #[inline(always)]
    fn for_each_child_within(
        &self,
        node: &mut PdbNode,
        last: Option<u8>,
        max_bound: u32,
        mut visit: impl FnMut(u8, &mut PdbNode, u32) -> bool,
    ) -> bool {
        let mut room = [Child::default(); MAX_MOVES];
        let children = self.children(node, last, &mut room);
        for child in children.iter_mut() {
            self.read(node, child, max_bound);
        }
        for child in children.iter() {
            let bound = child.bound();
            if bound > max_bound {
                continue;
            }
            let undo = self.play(node, child);
            let done = visit(child.tile, node, bound);
            self.take_back(node, child, undo);
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

/// The most moves of a blank (four neighbours).
const MAX_MOVES: usize = 4;

/// A child of a node while its bounds are worked out: the move, and what it changes
/// on each side.
#[derive(Debug, Clone, Copy, Default)]
struct Child {
    from: u8,
    tile: u8,
    direct: Option<Moved>,
    reflected: Option<Moved>,
    direct_sum: u8,
    reflected_sum: u8,
}

impl Child {
    /// The child's bound, once [read](PdbSpace::read).
    #[inline(always)]
    fn bound(&self) -> u32 {
        self.direct_sum.max(self.reflected_sum) as u32
    }
}

/// What playing a child replaced in its parent.
#[derive(Debug, Clone, Copy)]
struct Undo {
    direct: Option<Moved>,
    reflected: Option<Moved>,
    direct_sum: u8,
    reflected_sum: u8,
    blank: u8,
}

/// Puts a move's change of one pattern into `side`, and returns what it replaced.
#[inline(always)]
fn apply(side: &mut Side, moved: Option<Moved>) -> Option<Moved> {
    let m = moved?;
    let p = m.pattern as usize % MAX_PATTERNS;
    let replaced = Moved {
        pattern: m.pattern,
        rank: side.ranks[p],
        base: side.bases[p],
        taken: side.taken[p],
        entry: side.entries[p],
    };
    side.ranks[p] = m.rank;
    side.bases[p] = m.base;
    side.taken[p] = m.taken;
    side.entries[p] = m.entry;
    Some(replaced)
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
    use crate::search::{GenericWalk, ida};

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

        /// Every child's ranks, bases, entries and bound, updated by the move, are those
        /// of its position ranked from scratch, and the node is as it was after its
        /// children are visited (with a reflection: the 3x3 board; without: 3x4).
        #[test]
        fn a_move_updates_the_node_as_ranking_from_scratch_does(
            board in 0usize..2,
            walk in prop::collection::vec(0usize..4, 0..60),
        ) {
            let (shape, partition) = &spaces()[board];
            let space = PdbSpace::new(shape, partition);
            let mut node = space.node(shape.goal());
            for step in walk {
                let before = node.clone();
                let mut children = Vec::new();
                space.for_each_child(&mut node, None, |_, child, bound| {
                    children.push((child.clone(), bound));
                    false
                });
                prop_assert_eq!(&node.cells, &before.cells);
                prop_assert_eq!(node.direct, before.direct);
                prop_assert_eq!(node.reflected, before.reflected);
                for (child, bound) in &children {
                    let fresh = space.node(space.position(child));
                    prop_assert_eq!(child.direct, fresh.direct);
                    prop_assert_eq!(child.reflected, fresh.reflected);
                    prop_assert_eq!(*bound, fresh.bound());
                    prop_assert_eq!(child.blank, fresh.blank);
                }
                node = children[step % children.len()].0.clone();
            }
        }

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
