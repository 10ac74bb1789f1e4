//! The IDA* walk of boards of at most 16 cells, specialised: the board is packed four
//! bits a cell into one `u64` passed by value (a move is two XORs, nothing to undo),
//! the four directions are written out with arithmetic neighbours (no adjacency list
//! to load), and a child's Manhattan bound is checked before it is made. The nodes,
//! their order and the solutions are those of the generic walk
//! ([`crate::search::ida`]), which larger boards use.

use crate::search::ida::WalkState;

/// Cells and tiles of a packed board.
pub(super) const MAX_PACKED: usize = 16;

/// What the walk needs of a board of at most 16 cells.
#[derive(Debug, Clone)]
pub(super) struct PackedBoard {
    cols: usize,
    /// Per blank cell, the directions a tile can come from: bit 0 up, 1 left, 2 right,
    /// 3 down (increasing cell order, as the generic walk's neighbour lists).
    from_directions: [u8; MAX_PACKED],
    /// `distance[tile][cell]`, as the search space's (zero for plain IDDFS).
    distance: [[u8; MAX_PACKED]; MAX_PACKED],
    goal: u64,
}

/// Depth limits the walks of their own take (longer searches walk generically).
pub(super) const MAX_OWN_DEPTH: usize = 256;

/// The tiles a walk of its own moved below its first node, by depth, for the
/// solutions it records.
pub(super) struct Tail {
    start_depth: u32,
    tiles: [u8; MAX_OWN_DEPTH],
}

impl Tail {
    /// The tail of a walk whose first node is at `start_depth`.
    pub(super) fn new(start_depth: u32) -> Tail {
        Tail {
            start_depth,
            tiles: [0; MAX_OWN_DEPTH],
        }
    }

    /// The tile moved from `depth` to `depth + 1`.
    #[inline(always)]
    pub(super) fn set(&mut self, depth: u32, tile: u8) {
        self.tiles[depth as usize % MAX_OWN_DEPTH] = tile;
    }

    /// Records the solution that reached the goal at `depth` (the walk's path, then
    /// these tiles); whether the walk stops.
    #[cold]
    pub(super) fn found(&self, state: &mut WalkState<'_, u8>, depth: u32) -> bool {
        state.found(&self.tiles[self.start_depth as usize..depth as usize])
    }
}

/// No cell: the previous blank of the walk's first node when no move led to it.
const NO_CELL: usize = usize::MAX;

impl PackedBoard {
    /// The packed form of a `rows` x `cols` board with goal `goal` and per-tile
    /// distance rows `distance(tile)`, if it has at most 16 cells.
    pub(super) fn new<'d>(
        rows: usize,
        cols: usize,
        goal: &[u8],
        distance: impl Fn(usize) -> &'d [u8],
    ) -> Option<PackedBoard> {
        let cells = rows * cols;
        if cells > MAX_PACKED || !(2..=8).contains(&cols) {
            return None;
        }
        let mut board = PackedBoard {
            cols,
            from_directions: [0; MAX_PACKED],
            distance: [[0; MAX_PACKED]; MAX_PACKED],
            goal: pack(goal),
        };
        for cell in 0..cells {
            let (row, col) = (cell / cols, cell % cols);
            board.from_directions[cell] = (row > 0) as u8
                | ((col > 0) as u8) << 1
                | ((col + 1 < cols) as u8) << 2
                | ((row + 1 < rows) as u8) << 3;
        }
        for (tile, row) in board.distance.iter_mut().enumerate().take(cells) {
            row[..cells].copy_from_slice(&distance(tile)[..cells]);
        }
        Some(board)
    }

    /// Walks below the board `cells` (blank on `blank`, bound `bound`) at `depth`;
    /// the walk's path ends with the tile moved last.
    pub(super) fn walk(
        &self,
        cells: &[u8],
        blank: usize,
        bound: u32,
        depth: u32,
        limit: u32,
        state: &mut WalkState<'_, u8>,
    ) -> bool {
        let board = pack(cells);
        // The blank came from where the last moved tile stands.
        let previous = state
            .path()
            .last()
            .and_then(|&tile| cells.iter().position(|&t| t == tile))
            .unwrap_or(NO_CELL);
        let mut walk = Walk {
            board: self.clone(),
            limit,
            nodes: state.nodes(),
            tail: Tail::new(depth),
            state,
        };
        // The width as a constant: a neighbour is the blank plus or minus a constant.
        let done = match self.cols {
            2 => walk.dive::<2>(board, blank, previous, bound, depth),
            3 => walk.dive::<3>(board, blank, previous, bound, depth),
            4 => walk.dive::<4>(board, blank, previous, bound, depth),
            5 => walk.dive::<5>(board, blank, previous, bound, depth),
            6 => walk.dive::<6>(board, blank, previous, bound, depth),
            7 => walk.dive::<7>(board, blank, previous, bound, depth),
            _ => walk.dive::<8>(board, blank, previous, bound, depth),
        };
        walk.state.set_nodes(walk.nodes);
        done
    }
}

/// The cells' tiles, four bits each, cell 0 lowest.
fn pack(cells: &[u8]) -> u64 {
    cells.iter().enumerate().fold(0, |packed, (cell, &tile)| {
        packed | (tile as u64) << (4 * cell)
    })
}

struct Walk<'s, 'a> {
    /// A copy, next to the walk's other fields (one base pointer for all).
    board: PackedBoard,
    limit: u32,
    nodes: u64,
    tail: Tail,
    state: &'s mut WalkState<'a, u8>,
}

impl Walk<'_, '_> {
    /// The generic walk's `dive` on a packed board: counts the node, checks the goal
    /// at the limit and cancellation, then the children within the limit in
    /// increasing order of the moved tile's cell, except the move back.
    fn dive<const COLS: usize>(
        &mut self,
        board: u64,
        blank: usize,
        previous: usize,
        bound: u32,
        depth: u32,
    ) -> bool {
        self.nodes += 1;
        if depth == self.limit {
            return board == self.board.goal && self.tail.found(self.state, depth);
        }
        if self.state.cancelled_at(self.nodes) {
            return true;
        }
        let max_bound = self.limit - depth - 1;
        let blank = blank % MAX_PACKED;
        let directions = self.board.from_directions[blank];
        // One direction: the tile on `from` slides onto the blank.
        macro_rules! slide {
            ($bit:expr, $from:expr) => {
                if directions & $bit != 0 {
                    let from = $from % MAX_PACKED;
                    if from != previous {
                        let tile = (board >> (4 * from)) as usize % MAX_PACKED;
                        let distance = &self.board.distance[tile];
                        let child_bound = bound + distance[blank] as u32 - distance[from] as u32;
                        if child_bound <= max_bound {
                            self.tail.set(depth, tile as u8);
                            let moved = tile as u64;
                            let child = board ^ moved << (4 * from) ^ moved << (4 * blank);
                            if self.dive::<COLS>(child, from, blank, child_bound, depth + 1) {
                                return true;
                            }
                        }
                    }
                }
            };
        }
        slide!(1, blank.wrapping_sub(COLS));
        slide!(2, blank.wrapping_sub(1));
        slide!(4, blank + 1);
        slide!(8, blank + COLS);
        false
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::puzzle::Puzzle;
    use crate::puzzles::sliding::SlidingPuzzle;
    use crate::search::{GenericWalk, ida};
    use crate::solvers::sliding::search::SlidingSpace;

    fn shapes() -> impl Strategy<Value = (usize, usize)> {
        prop::sample::select(vec![
            (2, 2),
            (2, 3),
            (3, 3),
            (2, 4),
            (3, 4),
            (4, 3),
            (2, 8),
            (4, 4),
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The same length, solutions (one, or all) and node count as the generic walk,
        /// on one thread and on two, with Manhattan distance and without.
        #[test]
        fn the_packed_walk_is_the_generic_walk(
            (rows, cols) in shapes(),
            walk in prop::collection::vec(0usize..4, 0..24),
            all in any::<bool>(),
            manhattan in any::<bool>(),
        ) {
            let puzzle = SlidingPuzzle::new(rows, cols).unwrap();
            let mut board = puzzle.goal();
            let mut next = Vec::new();
            for step in walk {
                next.clear();
                puzzle.successors(&board, &mut next);
                board = next[step % next.len()].state;
            }
            let space = SlidingSpace::new(&puzzle, manhattan);
            let start = space.node(&board);
            // Plain iterative deepening on 4x4 only from short walks.
            let max = if manhattan || rows * cols <= 9 { 40 } else { 12 };
            for threads in [1, 2] {
                let (packed, generic) = crate::pool::run_on(Some(threads), || {
                    (
                        ida::search(&space, &start, all, max),
                        ida::search(&GenericWalk(&space), &start, all, max),
                    )
                })
                .unwrap();
                match (packed, generic) {
                    (Ok(p), Ok(g)) => {
                        prop_assert_eq!(p.length, g.length);
                        prop_assert_eq!(p.solutions, g.solutions);
                        prop_assert_eq!(p.nodes, g.nodes);
                    }
                    (p, g) => prop_assert_eq!(p.err(), g.err()),
                }
            }
        }
    }
}
