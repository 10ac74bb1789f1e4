//! Fast neighbour ranks of sliding-block puzzles in the step metric, the BFS hot path.
//!
//! The engine hands ascending indices; those of one arrangement of the big pieces form
//! a run, which shares the free cells and the big pieces' possible one-cell moves
//! (worked out once per run: the new arrangement, the cells that must be empty, the
//! cells left free). Per state, what the free cells hold is unranked once (or stepped
//! to the next order of the distinct pieces); a 1x1 piece sliding into a neighbouring
//! empty cell swaps two items, ranked incrementally when at most one kind repeats
//! (`swaps_with_one_kind`) and from scratch otherwise, and a big piece's move maps the
//! items onto the new arrangement's free cells.

use super::small::{Cursor, Order};
use super::{BlockPuzzle, Layout};
use crate::rank::combination;

/// Ranks a cursor walks forward instead of unranking.
const MAX_STEPS: u64 = 8;

use crate::Puzzle;
#[cfg(target_arch = "x86_64")]
use crate::cpu::Popcnt;

/// A one-cell move of a big piece from one arrangement.
struct BigMove {
    /// The arrangement after the move.
    arrangement: u64,
    /// Cells the piece moves onto: they must be empty.
    needs_empty: u64,
    /// `from[p]`: the old free position whose item lands on the new free position
    /// `p`, or `VACATED` for the cells the piece leaves (empty afterwards).
    from: [u8; 64],
}

const VACATED: u8 = u8::MAX;
const NOT_FREE: u8 = u8::MAX;

/// What the free cells of the state being expanded hold.
#[derive(Clone, Copy)]
struct Held<'a> {
    /// The item of each free place.
    items: &'a [u8; 64],
    /// The number of free places.
    free: usize,
    /// The free places that are empty.
    blanks: u32,
    /// The first index of the state's arrangement.
    base: u64,
}

/// What a run of indices of one arrangement shares.
struct Run {
    /// Free cells in order, and each cell's free position (`NOT_FREE` if none).
    cells: Vec<u8>,
    position: [u8; 64],
    big_moves: Vec<BigMove>,
}

impl BlockPuzzle {
    /// The shared facts of arrangement `arrangement` for the step metric.
    fn run_for(&self, arrangement: u64) -> Run {
        let covered = self.arrangement_masks[arrangement as usize] | self.walls;
        let cells: Vec<u8> = (0..self.rows * self.cols)
            .filter(|&c| covered >> c & 1 == 0)
            .map(|c| c as u8)
            .collect();
        let mut position = [NOT_FREE; 64];
        for (p, &c) in cells.iter().enumerate() {
            position[c as usize] = p as u8;
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
                if nr < 0 || nc < 0 {
                    continue;
                }
                let target = nr as usize * self.cols + nc as usize;
                if nc as usize >= self.cols {
                    continue;
                }
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
                let moved = self.moved(&layout, piece, target as u8);
                let next = self.arrangement_index(&moved);
                let next_covered = self.arrangement_masks[next as usize] | self.walls;
                let mut from = [VACATED; 64];
                let mut p = 0;
                for (cell, &old_position) in position.iter().enumerate().take(self.rows * self.cols)
                {
                    if next_covered >> cell & 1 == 1 {
                        continue;
                    }
                    from[p] = if old >> cell & 1 == 1 {
                        VACATED
                    } else {
                        old_position
                    };
                    p += 1;
                }
                big_moves.push(BigMove {
                    arrangement: next,
                    needs_empty: new & !old,
                    from,
                });
            }
        }
        Run {
            cells,
            position,
            big_moves,
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
        let m = self.per_arrangement;
        let free = self.small_counts.iter().map(|&c| c as usize).sum::<usize>();
        let mut neighbours = Vec::with_capacity(self.max_neighbours());
        let mut items = [0u8; 64];
        let mut moved = [0u8; 64];
        let mut run: Option<Run> = None;
        let mut cursor = Cursor::default();
        let mut positioned = false;
        // The repeated kinds' places change only when the cursor seeks.
        let (mut combinations, mut distinct_places, mut general_ready) = (0u64, 0u32, false);
        // With at most one repeated kind, a swap's rank is worked out from the
        // state's own digits (see `swaps_with_one_kind`).
        let lone = self.small.lone_repeated();
        let mut order = Order::default();
        let blank_is_distinct = self.small.is_distinct(0);
        // The current run covers indices `base..base + m` (no division per state).
        let mut base = 0u64;
        for &index in indices {
            if run.is_none() || index.wrapping_sub(base) >= m {
                let arrangement = index / m;
                base = arrangement * m;
                run = Some(self.run_for(arrangement));
                positioned = false;
            }
            let run = run.as_ref().expect("set above");
            // Consecutive ranks are mostly the next order of the distinct pieces.
            let rank = index - base;
            let gap = rank.wrapping_sub(cursor.rank);
            let mut stepped = positioned && (1..=MAX_STEPS).contains(&gap);
            while stepped && cursor.rank < rank {
                stepped = self.small.advance(&mut items[..free], &mut cursor);
            }
            if !stepped {
                self.small.seek(rank, &mut items[..free], &mut cursor);
                positioned = true;
                general_ready = false;
            }
            neighbours.clear();
            // The empty cells, as free places and as cells.
            let (mut blanks, mut empty_cells) = (0u32, 0u64);
            for (p, &item) in items[..free].iter().enumerate() {
                if item == 0 {
                    blanks |= 1 << p;
                    empty_cells |= 1 << run.cells[p];
                }
            }
            match lone {
                Some(kind) => self.swaps_with_one_kind(
                    kind,
                    run,
                    &Held {
                        items: &items,
                        free,
                        blanks,
                        base,
                    },
                    &mut order,
                    &mut neighbours,
                ),
                None => {
                    if !general_ready {
                        (combinations, distinct_places) = self.small.combination_part(&items);
                        general_ready = true;
                    }
                    // A 1x1 piece next to an empty cell slides into it. When both are
                    // distinct items, the places of the repeated kinds stay: only the
                    // order is ranked.
                    let same_places = base + combinations * self.small.orders();
                    let mut empties = empty_cells;
                    while empties != 0 {
                        let e = empties.trailing_zeros() as usize;
                        empties &= empties - 1;
                        let pe = run.position[e] as usize;
                        for &n in &self.around[e] {
                            let pn = run.position[n as usize];
                            if pn == NOT_FREE || items[pn as usize] == 0 {
                                continue;
                            }
                            let keeps_places =
                                blank_is_distinct && self.small.is_distinct(items[pn as usize]);
                            items.swap(pe, pn as usize);
                            neighbours.push(if keeps_places {
                                same_places + self.small.permutation_part(&items, distinct_places)
                            } else {
                                base + self.small.rank(&items)
                            });
                            items.swap(pe, pn as usize);
                        }
                    }
                }
            }
            // A big piece slides one cell onto empty cells.
            for big in &run.big_moves {
                if big.needs_empty & !empty_cells != 0 {
                    continue;
                }
                for (p, slot) in moved[..free].iter_mut().enumerate() {
                    *slot = match big.from[p] {
                        VACATED => 0,
                        old => items[old as usize],
                    };
                }
                neighbours.push(big.arrangement * m + self.small.rank(&moved));
            }
            visit(index, &neighbours);
        }
    }

    /// The ranks after each 1x1 piece of `held` slides into a neighbouring empty cell,
    /// when at most one kind of item repeats (`kind`): the rank is `c * D! + perm`, `c` the
    /// colex rank of that kind's places and `perm` the Lehmer rank of the distinct
    /// pieces in reading order. A slide swaps two places: if one holds the repeated
    /// kind, `c` is recomputed from its few places and the distinct piece moves past
    /// the distinct pieces between the two places; if both hold distinct pieces, they
    /// trade positions in the order. Either way only the Lehmer digits from one place
    /// to the other change (`SmallRanking::moved`, `SmallRanking::traded`), at most a
    /// row's worth.
    #[inline(always)]
    fn swaps_with_one_kind(
        &self,
        kind: Option<u8>,
        run: &Run,
        held: &Held<'_>,
        order: &mut Order,
        neighbours: &mut Vec<u64>,
    ) {
        let Held {
            items,
            free,
            blanks,
            base,
        } = *held;
        let kind_places = match kind {
            Some(0) => blanks,
            Some(code) => items[..free]
                .iter()
                .enumerate()
                .filter(|&(_, &item)| item == code)
                .fold(0u32, |m, (p, _)| m | 1 << p),
            None => 0,
        };
        let distinct_places = ((1u32 << free) - 1) & !kind_places;
        let colex = combination::rank(kind_places);
        self.small.read_order(items, distinct_places, order);
        let orders = self.small.orders();
        let position_of =
            |place: usize| (distinct_places & ((1u32 << place) - 1)).count_ones() as usize;
        let blank_is_kind = kind == Some(0);
        let mut empties = blanks;
        while empties != 0 {
            let pe = empties.trailing_zeros() as usize;
            empties &= empties - 1;
            for &n in &self.around[run.cells[pe] as usize] {
                let pn = run.position[n as usize] as usize;
                if pn == NOT_FREE as usize || items[pn] == 0 {
                    continue;
                }
                let rank = if !blank_is_kind && kind != Some(items[pn]) {
                    // Two distinct pieces trade positions.
                    let (a, b) = (position_of(pe), position_of(pn));
                    colex * orders + self.small.traded(order, a.min(b), a.max(b))
                } else {
                    // The distinct one of the two moves to the other's place: its
                    // position among the distinct places shifts past those between.
                    let (from, to) = if blank_is_kind { (pn, pe) } else { (pe, pn) };
                    let moved_kind = kind_places ^ (1 << from) ^ (1 << to);
                    let target = position_of(to) - usize::from(from < to);
                    combination::rank(moved_kind) * orders
                        + self.small.moved(order, position_of(from), target)
                };
                debug_assert_eq!(rank, rank_after_swap(self, items, pe, pn));
                neighbours.push(base + rank);
            }
        }
    }
}

/// The rank after swapping places `a` and `b`, from scratch (debug builds check the
/// incremental ranks against it).
fn rank_after_swap(puzzle: &BlockPuzzle, items: &[u8; 64], a: usize, b: usize) -> u64 {
    let mut swapped = *items;
    swapped.swap(a, b);
    puzzle.small.rank(&swapped)
}
