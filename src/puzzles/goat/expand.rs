//! Fast neighbour ranks for Goat, the BFS hot path.
//!
//! With the big piece fixed, an index is a sequence of what the ten free cells hold.
//! A small piece sliding into the blank swaps two entries of that sequence, so a
//! neighbour's rank only needs the changed pair of `─` places (a table look-up) and
//! the Lehmer code of the eight other items (popcounts). A big-piece move keeps the
//! sequence and only changes the big piece's column: index +- 1,814,400.

use std::sync::OnceLock;

use super::{BAR, COLS, DISTINCT, FREE_CELLS, GRID, PER_BIG_PLACE, big_piece_slide};
use crate::rank::{combination, factorial, permutation};

/// Precomputed geometry and ranking tables.
struct Tables {
    /// For each big-piece column and free position: the free positions whose piece can
    /// slide into a blank there (up to 4; 255 ends the list).
    adjacent: [[[u8; 4]; FREE_CELLS]; 3],
    /// For each big-piece column and free position of the blank: -1 / +1 if the big
    /// piece can slide left / right into it, else 0.
    big_shift: [[i8; FREE_CELLS]; 3],
    /// Rank of each two-bit mask of the free positions (the places of the `─`).
    pair_rank: Vec<u8>,
    /// The mask of each pair rank.
    pair_mask: [u16; 45],
    /// Every order of the eight distinct items, by rank.
    orders: Vec<[u8; DISTINCT]>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut adjacent = [[[255u8; 4]; FREE_CELLS]; 3];
        let mut big_shift = [[0i8; FREE_CELLS]; 3];
        for big in 0..3 {
            let free: Vec<usize> = (0..12).filter(|&c| c != big && c != big + 1).collect();
            let free_of = |cell: usize| free.iter().position(|&c| c == cell);
            for (i, &cell) in free.iter().enumerate() {
                for (slot, j) in GRID.neighbours(cell).filter_map(free_of).enumerate() {
                    adjacent[big][i][slot] = j as u8;
                }
                if cell < COLS
                    && let Some((new_big, _)) = big_piece_slide(big, cell)
                {
                    big_shift[big][i] = if new_big < big { -1 } else { 1 };
                }
            }
        }
        let mut pair_rank = vec![u8::MAX; 1 << FREE_CELLS];
        let mut pair_mask = [0u16; 45];
        for a in 0..FREE_CELLS {
            for b in a + 1..FREE_CELLS {
                let mask = (1u32 << a) | (1 << b);
                let rank = combination::rank(mask) as usize;
                pair_rank[mask as usize] = rank as u8;
                pair_mask[rank] = mask as u16;
            }
        }
        let orders = (0..factorial(DISTINCT))
            .map(|r| {
                let mut order = [0u8; DISTINCT];
                permutation::unrank(r, &mut order);
                order
            })
            .collect();
        Tables {
            adjacent,
            big_shift,
            pair_rank,
            pair_mask,
            orders,
        }
    })
}

/// Rank of the free-cell sequence `seq` with the `─` at the set bits of `bars`,
/// within one big-piece column.
#[inline(always)]
fn rank_sequence(tables: &Tables, seq: &[u8; FREE_CELLS], bars: u32) -> u64 {
    let mut others = !bars & ((1 << FREE_CELLS) - 1);
    let mut unused = (1u32 << DISTINCT) - 1;
    let mut order_rank = 0u64;
    let mut k = 0;
    while others != 0 {
        let item = seq[others.trailing_zeros() as usize] as u32;
        others &= others - 1;
        let below = (unused & ((1 << item) - 1)).count_ones() as u64;
        order_rank += below * factorial(DISTINCT - 1 - k);
        unused &= !(1 << item);
        k += 1;
    }
    tables.pair_rank[bars as usize] as u64 * factorial(DISTINCT) + order_rank
}

/// Calls `visit(index, neighbours)` for each of `indices`.
pub(super) fn expand_sorted(indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
    let tables = tables();
    let mut neighbours = [0u64; 4];
    for &index in indices {
        let big = (index / PER_BIG_PLACE) as usize;
        let rest = index % PER_BIG_PLACE;
        let pair = (rest / factorial(DISTINCT)) as usize;
        let bars = tables.pair_mask[pair] as u32;
        let order = &tables.orders[(rest % factorial(DISTINCT)) as usize];
        let mut seq = [BAR; FREE_CELLS];
        let mut blank = 0;
        let mut others = !bars & ((1 << FREE_CELLS) - 1);
        for &item in order {
            let at = others.trailing_zeros() as usize;
            others &= others - 1;
            seq[at] = item;
            if item == 0 {
                blank = at;
            }
        }
        let base = big as u64 * PER_BIG_PLACE;
        let mut count = 0;
        for &j in &tables.adjacent[big][blank] {
            if j == 255 {
                break;
            }
            let j = j as usize;
            let moved_bars = if seq[j] == BAR {
                bars ^ (1 << j) ^ (1 << blank)
            } else {
                bars
            };
            seq.swap(blank, j);
            neighbours[count] = base + rank_sequence(tables, &seq, moved_bars);
            seq.swap(blank, j);
            count += 1;
        }
        match tables.big_shift[big][blank] {
            -1 => {
                neighbours[count] = index - PER_BIG_PLACE;
                count += 1;
            }
            1 => {
                neighbours[count] = index + PER_BIG_PLACE;
                count += 1;
            }
            _ => {}
        }
        visit(index, &neighbours[..count]);
    }
}
