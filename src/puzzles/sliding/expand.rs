//! Incremental expansion of ascending sliding-tile indices, the BFS hot path.
//!
//! An index within a blank cell's block splits into a *prefix* (the Lehmer digits of
//! all but the last four tiles of the tile order) and one of the 12 arrangements of
//! the last four tiles that have the required parity. Consecutive indices share the
//! prefix, so the walker decodes a prefix once (or steps it like a counter), then fills
//! the tail from a constant table. Neighbours follow from the digits directly:
//! horizontal moves keep the rank, vertical moves rotate C entries, which changes C
//! Lehmer digits by amounts computed with C comparisons. No allocation, no division
//! per state except the split of the index itself.

use super::{MAX_CELLS, SlidingPuzzle};
use crate::puzzle::Puzzle;
use crate::rank::{factorial, permutation::nth_set_bit};

/// Tiles handled by the tail table.
const TAIL: usize = 4;
/// Arrangements of the tail of one parity: 4!/2.
const TAIL_ARRANGEMENTS: u64 = 12;

/// For each parity and tail rank: the order of the four tail items (as positions among
/// the sorted remaining items) and their Lehmer digits.
struct TailTable {
    order: [[[u8; TAIL]; 12]; 2],
    digits: [[[u8; TAIL]; 12]; 2],
}

const TAIL_TABLE: TailTable = {
    let mut table = TailTable {
        order: [[[0; TAIL]; 12]; 2],
        digits: [[[0; TAIL]; 12]; 2],
    };
    let mut parity = 0;
    while parity < 2 {
        let mut t = 0;
        while t < 12 {
            let d0 = (t / 3) as u8;
            let d1 = (t % 3) as u8;
            let d2 = (parity as u8 ^ (d0 + d1)) & 1;
            let digits = [d0, d1, d2, 0];
            let mut unused = 0b1111u32;
            let mut j = 0;
            while j < TAIL {
                // The digits[j]-th remaining item.
                let mut mask = unused;
                let mut k = 0;
                while k < digits[j] {
                    mask &= mask - 1;
                    k += 1;
                }
                let item = mask.trailing_zeros();
                table.order[parity][t][j] = item as u8;
                unused &= !(1 << item);
                j += 1;
            }
            table.digits[parity][t] = digits;
            t += 1;
        }
        parity += 1;
    }
    table
};

/// Expands `indices` (ascending) of `puzzle`, calling `visit(index, neighbours)`.
pub(super) fn expand_sorted(
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    mut visit: impl FnMut(u64, &[u64]),
) {
    let m = puzzle.cells() - 1;
    if m <= TAIL {
        // Too small for the tail table (2x2); the per-state path is plenty.
        let mut successors = Vec::with_capacity(4);
        let mut neighbours = Vec::with_capacity(4);
        for &index in indices {
            successors.clear();
            puzzle.successors(&puzzle.unrank(index), &mut successors);
            neighbours.clear();
            neighbours.extend(successors.iter().map(|s| puzzle.rank(&s.state)));
            visit(index, &neighbours);
        }
        return;
    }
    let mut walker = Walker::new(puzzle);
    let block = puzzle.block;
    let (rows, cols) = (puzzle.rows, puzzle.cols);
    let mut current_blank = usize::MAX;
    let mut current_prefix = u64::MAX;
    let mut required = 0u8;
    let mut neighbours = [0u64; 4];
    for &index in indices {
        let blank = (index / block) as usize;
        let rank = index - blank as u64 * block;
        let prefix = rank / TAIL_ARRANGEMENTS;
        let tail = (rank - prefix * TAIL_ARRANGEMENTS) as usize;
        if blank != current_blank {
            current_blank = blank;
            required = puzzle.required_parity(blank);
            walker.decode_prefix(prefix);
        } else if prefix != current_prefix {
            if prefix == current_prefix + 1 {
                walker.step_prefix();
            } else {
                walker.decode_prefix(prefix);
            }
        }
        current_prefix = prefix;
        walker.fill_tail(required ^ walker.prefix_parity, tail);

        let (row, col) = (blank / cols, blank % cols);
        let mut count = 0;
        if col > 0 {
            neighbours[count] = index - block;
            count += 1;
        }
        if col + 1 < cols {
            neighbours[count] = index + block;
            count += 1;
        }
        if row + 1 < rows {
            let delta = walker.rotate_right_delta(blank, cols);
            neighbours[count] = (blank + cols) as u64 * block + (rank as i64 + delta) as u64;
            count += 1;
        }
        if row > 0 {
            let delta = walker.rotate_left_delta(blank - cols, cols);
            neighbours[count] = (blank - cols) as u64 * block + (rank as i64 + delta) as u64;
            count += 1;
        }
        visit(index, &neighbours[..count]);
    }
}

/// The tile order and Lehmer digits of the current index.
struct Walker {
    m: usize,
    prefix_len: usize,
    seq: [u8; MAX_CELLS],
    digits: [u8; MAX_CELLS],
    /// Items not used before position `i` of the prefix.
    available: [u32; MAX_CELLS],
    /// The four items left for the tail, ascending.
    tail_items: [u8; TAIL],
    prefix_parity: u8,
    /// `(m-1-i)!/2` for the ranked positions `i <= m-3`, 0 beyond.
    weights: [i64; MAX_CELLS + 1],
    /// `(m-1-i)!/4!`: the prefix's mixed-radix place values.
    prefix_weights: [u64; MAX_CELLS],
}

impl Walker {
    fn new(puzzle: &SlidingPuzzle) -> Walker {
        let m = puzzle.cells() - 1;
        let mut weights = [0i64; MAX_CELLS + 1];
        let mut prefix_weights = [0u64; MAX_CELLS];
        for i in 0..m.saturating_sub(2) {
            weights[i] = (factorial(m - 1 - i) / 2) as i64;
        }
        for (i, w) in prefix_weights.iter_mut().enumerate().take(m - TAIL) {
            *w = factorial(m - 1 - i) / factorial(TAIL);
        }
        Walker {
            m,
            prefix_len: m - TAIL,
            seq: [0; MAX_CELLS],
            digits: [0; MAX_CELLS],
            available: [0; MAX_CELLS],
            tail_items: [0; TAIL],
            prefix_parity: 0,
            weights,
            prefix_weights,
        }
    }

    /// Sets the prefix from its mixed-radix number.
    fn decode_prefix(&mut self, mut prefix: u64) {
        for i in 0..self.prefix_len {
            let w = self.prefix_weights[i];
            let d = prefix / w;
            prefix -= d * w;
            self.digits[i] = d as u8;
        }
        self.rebuild_from(0);
    }

    /// Advances the prefix by one, like a mixed-radix counter.
    fn step_prefix(&mut self) {
        let mut i = self.prefix_len - 1;
        loop {
            if (self.digits[i] as usize) < self.m - 1 - i {
                self.digits[i] += 1;
                break;
            }
            self.digits[i] = 0;
            // The caller never steps past the block's last prefix, so i > 0 here.
            i -= 1;
        }
        self.rebuild_from(i);
    }

    /// Recomputes the prefix items from position `start` on, and the tail items.
    fn rebuild_from(&mut self, start: usize) {
        let mut unused = if start == 0 {
            (1u32 << self.m) - 1
        } else {
            self.available[start - 1] & !(1u32 << self.seq[start - 1])
        };
        for i in start..self.prefix_len {
            self.available[i] = unused;
            let item = nth_set_bit(unused, self.digits[i] as u32);
            self.seq[i] = item as u8;
            unused &= !(1u32 << item);
        }
        for slot in &mut self.tail_items {
            *slot = unused.trailing_zeros() as u8;
            unused &= unused - 1;
        }
        let sum: u32 = self.digits[..self.prefix_len]
            .iter()
            .map(|&d| d as u32)
            .sum();
        self.prefix_parity = (sum & 1) as u8;
    }

    #[inline(always)]
    fn fill_tail(&mut self, parity: u8, tail: usize) {
        let order = &TAIL_TABLE.order[parity as usize][tail];
        let digits = &TAIL_TABLE.digits[parity as usize][tail];
        for j in 0..TAIL {
            self.seq[self.prefix_len + j] = self.tail_items[order[j] as usize];
            self.digits[self.prefix_len + j] = digits[j];
        }
    }

    /// Rank change when entries `p..p+c` rotate right (the last comes first): the
    /// blank at cell `p` moves down.
    #[inline(always)]
    fn rotate_right_delta(&self, p: usize, c: usize) -> i64 {
        let last = self.seq[p + c - 1];
        let mut smaller = 0i64;
        let mut delta = 0i64;
        for j in p..p + c - 1 {
            let item = self.seq[j];
            smaller += (item < last) as i64;
            let moved = self.digits[j] as i64 - (item > last) as i64;
            delta += (moved - self.digits[j + 1] as i64) * self.weights[j + 1];
        }
        delta + (self.digits[p + c - 1] as i64 + smaller - self.digits[p] as i64) * self.weights[p]
    }

    /// Rank change when entries `p..p+c` rotate left (the first goes last): the blank
    /// at cell `p + c` moves up.
    #[inline(always)]
    fn rotate_left_delta(&self, p: usize, c: usize) -> i64 {
        let first = self.seq[p];
        let mut smaller = 0i64;
        let mut delta = 0i64;
        for j in p + 1..p + c {
            let item = self.seq[j];
            smaller += (item < first) as i64;
            let moved = self.digits[j] as i64 + (item > first) as i64;
            delta += (moved - self.digits[j - 1] as i64) * self.weights[j - 1];
        }
        delta
            + (self.digits[p] as i64 - smaller - self.digits[p + c - 1] as i64)
                * self.weights[p + c - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index of small boards, expanded in one ascending run, agrees with the
    /// per-state successors.
    #[test]
    fn whole_blocks_agree_with_successors() {
        for (rows, cols) in [(2, 3), (3, 2), (2, 4), (3, 3)] {
            let p = SlidingPuzzle::new(rows, cols).unwrap();
            let all: Vec<u64> = (0..p.index_count()).collect();
            let mut succ = Vec::new();
            p.expand_sorted(&all, |index, neighbours| {
                succ.clear();
                p.successors(&p.unrank(index), &mut succ);
                let mut expected: Vec<u64> = succ.iter().map(|s| p.rank(&s.state)).collect();
                let mut got = neighbours.to_vec();
                expected.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, expected, "{rows}x{cols} index {index}");
            });
        }
    }
}
