//! Fast neighbour ranks of sliding-block puzzles in the step metric, the BFS hot path.
//!
//! An index is `arrangement * M + combination * D! + order` ([`super::small`]): where
//! the big pieces stand, where the empty cells and the interchangeable 1x1 pieces
//! are, and the order of the `D` distinct 1x1 pieces over the places left. The `D!`
//! consecutive indices of one arrangement and one combination form a *block*, and
//! within a block every move is the same but for that order:
//! - which pieces can move where does not depend on it (the empty cells are fixed);
//! - a move's effect on the arrangement and the combination is fixed too;
//! - a move leaves the order as it is, unless a distinct piece slides past others
//!   (vertically, or around a wall): then the piece moves from one position of the
//!   order to another and only the Lehmer digits between the two change
//!   ([`SmallRanking::moved`](super::small::SmallRanking::moved)), at most a row's worth.
//!
//! So each block's moves are worked out once, as a base index and, for the reordering
//! ones, the two positions; per state, the order is stepped to the next one (or
//! unranked after a gap) and each neighbour costs an addition or a few digits.

use super::small::Order;
use super::{BlockPuzzle, Layout};
use crate::Puzzle;

#[cfg(target_arch = "x86_64")]
use crate::cpu::Popcnt;

/// Orders stepped through one by one instead of unranking after a gap.
const MAX_STEPS: u64 = 8;

/// A free place that no piece of the block can be.
const NOT_FREE: u8 = u8::MAX;
/// `BigMove::from` of the places a big piece leaves.
const VACATED: u8 = u8::MAX;

/// A one-cell move of a big piece from one arrangement.
struct BigMove {
    /// The arrangement after the move.
    arrangement: u64,
    /// Cells the piece moves onto: they must be empty.
    needs_empty: u64,
    /// `from[p]`: the old free place whose item lands on the new free place `p`, or
    /// `VACATED` for the cells the piece leaves (empty afterwards).
    from: [u8; 64],
}

/// What every block of one arrangement shares.
struct Arrangement {
    index: u64,
    /// The free cells in order, and each cell's free place (`NOT_FREE` if none).
    cells: Vec<u8>,
    place: [u8; 64],
    big_moves: Vec<BigMove>,
}

/// A move of a distinct piece that changes the order: the piece at position `from`
/// moves to position `to`.
struct Reorder {
    base: u64,
    from: u8,
    to: u8,
}

/// The moves of every state of one block.
#[derive(Default)]
struct Block {
    /// The block's number: its first index is `number * D!`.
    number: u64,
    first: u64,
    /// Moves that keep the order: the neighbour is `base + order rank`.
    keeping: Vec<u64>,
    /// Moves that change it.
    reordering: Vec<Reorder>,
}

impl BlockPuzzle {
    /// The shared facts of arrangement `arrangement` for the step metric.
    fn arrangement_moves(&self, arrangement: u64) -> Arrangement {
        let covered = self.arrangement_masks[arrangement as usize] | self.walls;
        let cells: Vec<u8> = (0..self.rows * self.cols)
            .filter(|&c| covered >> c & 1 == 0)
            .map(|c| c as u8)
            .collect();
        let mut place = [NOT_FREE; 64];
        for (p, &c) in cells.iter().enumerate() {
            place[c as usize] = p as u8;
        }
        let anchors = &self.arrangement_anchors
            [arrangement as usize * self.big_pieces..(arrangement as usize + 1) * self.big_pieces];
        let mut big_moves = Vec::new();
        for piece in 0..self.big_pieces {
            let g = &self.groups[self.group_of_piece(piece)];
            let anchor = anchors[piece] as usize;
            let old = self.cover(g, anchor).expect("an arrangement's pieces fit");
            let (r, c) = ((anchor / self.cols) as isize, (anchor % self.cols) as isize);
            for (dr, dc) in super::DIRECTIONS {
                let (nr, nc) = (r + dr, c + dc);
                if nr < 0 || nc < 0 || nc as usize >= self.cols {
                    continue;
                }
                let target = nr as usize * self.cols + nc as usize;
                let Some(new) = self.cover(g, target) else {
                    continue;
                };
                // The new cells must be free of walls and other big pieces.
                if new & !old & covered != 0 {
                    continue;
                }
                let mut layout = Layout {
                    anchors: [0; super::MAX_PIECES],
                };
                layout.anchors[..self.big_pieces].copy_from_slice(anchors);
                let next = self.arrangement_index(&self.moved(&layout, piece, target as u8));
                let next_covered = self.arrangement_masks[next as usize] | self.walls;
                let mut from = [VACATED; 64];
                let new_cells = (0..self.rows * self.cols).filter(|c| next_covered >> c & 1 == 0);
                for (slot, cell) in from.iter_mut().zip(new_cells) {
                    *slot = if old >> cell & 1 == 1 {
                        VACATED
                    } else {
                        place[cell]
                    };
                }
                big_moves.push(BigMove {
                    arrangement: next,
                    needs_empty: new & !old,
                    from,
                });
            }
        }
        Arrangement {
            index: arrangement,
            cells,
            place,
            big_moves,
        }
    }

    /// Fills `block` with the moves of block `number` of `arrangement`.
    fn block_moves(&self, arrangement: &Arrangement, number: u64, block: &mut Block) {
        let (m, orders) = (self.per_arrangement, self.small.orders());
        let free = arrangement.cells.len();
        block.number = number;
        block.first = number * orders;
        block.keeping.clear();
        block.reordering.clear();
        // The block's first state: what each free place holds (the distinct pieces in
        // their first order, which no base depends on).
        let mut items = [0u8; 64];
        self.small.unrank(block.first % m, &mut items[..free]);
        let (_, distinct) = self.small.combination_part(&items);
        let below = |places: u32, p: usize| (places & ((1u32 << p) - 1)).count_ones() as u8;
        let base_of = |arrangement: u64, items: &[u8; 64]| {
            arrangement * m + self.small.combination_part(items).0 * orders
        };
        let mut empty_cells = 0u64;
        for (p, &cell) in arrangement.cells.iter().enumerate() {
            if items[p] != 0 {
                continue;
            }
            empty_cells |= 1 << cell;
            // A 1x1 piece next to the empty cell slides into it.
            for &n in &self.around[cell as usize] {
                let q = arrangement.place[n as usize] as usize;
                if q == NOT_FREE as usize || items[q] == 0 {
                    continue;
                }
                items.swap(p, q);
                let base = base_of(arrangement.index, &items);
                items.swap(p, q);
                if self.small.is_distinct(items[q]) {
                    // Its position among the distinct places, before and after.
                    let from = below(distinct, q);
                    let to = below(distinct, p) - u8::from(q < p);
                    if from != to {
                        block.reordering.push(Reorder { base, from, to });
                        continue;
                    }
                }
                block.keeping.push(base);
            }
        }
        // A big piece slides one cell onto empty cells. The 1x1 pieces stay where they
        // are, so their order over the new free places is the same.
        let mut moved = [0u8; 64];
        for big in &arrangement.big_moves {
            if big.needs_empty & !empty_cells != 0 {
                continue;
            }
            // Every arrangement leaves the same number of free places.
            for (slot, &from) in moved[..free].iter_mut().zip(&big.from) {
                *slot = if from == VACATED {
                    0
                } else {
                    items[from as usize]
                };
            }
            block.keeping.push(base_of(big.arrangement, &moved));
        }
    }

    /// [`crate::Puzzle::expand_sorted`] for the step metric: compiled with the POPCNT
    /// instruction where the CPU has it (the ranks count bits all the time).
    pub(super) fn expand_steps(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        #[cfg(target_arch = "x86_64")]
        if let Some(popcnt) = Popcnt::detect() {
            // SAFETY: the token proves that the CPU has POPCNT.
            unsafe { self.expand_steps_popcnt(popcnt, indices, visit) };
            return;
        }
        self.expand_steps_body(indices, visit);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn expand_steps_popcnt(&self, _: Popcnt, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        self.expand_steps_body(indices, visit);
    }

    #[inline(always)]
    fn expand_steps_body(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        let (m, orders) = (self.per_arrangement, self.small.orders());
        let blocks_per_arrangement = m / orders;
        let mut neighbours = Vec::with_capacity(self.max_neighbours());
        let mut arrangement: Option<Arrangement> = None;
        let mut block = Block::default();
        let mut ready = false;
        let mut order = Order::default();
        for &index in indices {
            // Within the block and a few orders ahead: step there.
            let mut perm = index.wrapping_sub(block.first);
            let stepped =
                ready && perm < orders && perm > order.rank() && perm - order.rank() <= MAX_STEPS;
            if stepped {
                while order.rank() < perm {
                    self.small.next_order(&mut order);
                }
            } else {
                let number = index / orders;
                if !ready || number != block.number {
                    let a = number / blocks_per_arrangement;
                    if arrangement.as_ref().is_none_or(|run| run.index != a) {
                        arrangement = Some(self.arrangement_moves(a));
                    }
                    let run = arrangement.as_ref().expect("set above");
                    self.block_moves(run, number, &mut block);
                    ready = true;
                }
                perm = index - block.first;
                self.small.set_order(&mut order, perm);
            }
            neighbours.clear();
            neighbours.extend(block.keeping.iter().map(|&base| base + perm));
            for r in &block.reordering {
                let rank = self.small.moved(&order, r.from as usize, r.to as usize);
                neighbours.push(r.base + rank);
            }
            visit(index, &neighbours);
        }
    }
}
