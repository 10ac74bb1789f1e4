//! Incremental expansion of ascending sliding-tile indices, the BFS hot path.
//!
//! An index within a blank cell's block splits into a *prefix* (the Lehmer digits of
//! all but the last five tiles of the tile order) and one of the 60 arrangements of
//! the last five tiles that have the required parity. Consecutive indices share the
//! prefix, so the walker decodes a prefix once (or steps it like a counter), then fills
//! the tail from a constant table. Neighbours follow from the digits directly:
//! horizontal moves keep the rank, vertical moves rotate C entries, which changes C
//! Lehmer digits by amounts computed with C comparisons. No allocation, no division
//! per state except the split of the index itself.

use super::{MAX_CELLS, SlidingPuzzle};
use crate::rank::factorial;

/// Tiles handled by the tail table.
const TAIL: usize = 5;
/// Arrangements of the tail of one parity: 5!/2.
const TAIL_ARRANGEMENTS: u64 = 60;
/// Index mask of the walker's per-position arrays: positions are below MAX_CELLS,
/// and the arrays are twice that long so that the tail can be written as one 8-byte
/// store at any prefix length.
const MASK: usize = 2 * MAX_CELLS - 1;
/// Gaps between prefixes up to this many are walked by counting rather than decoded.
const MAX_STEPS: u64 = 4;

/// For each parity and tail rank: the order of the tail items (as positions among the
/// sorted remaining items) and their Lehmer digits.
struct TailTable {
    /// Byte `j` is the position (among the sorted remaining items) of the item at
    /// tail position `j`; bytes past the tail are 0x80 (a shuffle's "zero").
    packed_order: [[u64; TAIL_ARRANGEMENTS as usize]; 2],
    /// The digits packed little-endian into a `u64`, one byte each.
    packed_digits: [[u64; TAIL_ARRANGEMENTS as usize]; 2],
}

const TAIL_TABLE: TailTable = {
    let mut table = TailTable {
        packed_order: [[0; TAIL_ARRANGEMENTS as usize]; 2],
        packed_digits: [[0; TAIL_ARRANGEMENTS as usize]; 2],
    };
    let mut parity = 0;
    while parity < 2 {
        let mut t = 0;
        while t < TAIL_ARRANGEMENTS as usize {
            // Free digits in mixed radix 5, 4, 3 (place values 12, 3, 1); the fourth
            // is fixed by the parity, the fifth is always 0.
            let d0 = (t / 12) as u8;
            let d1 = (t / 3 % 4) as u8;
            let d2 = (t % 3) as u8;
            let d3 = (parity as u8 ^ (d0 + d1 + d2)) & 1;
            let digits = [d0, d1, d2, d3, 0];
            let mut unused = (1u32 << TAIL) - 1;
            let mut order = !((1u64 << (8 * TAIL)) - 1) & 0x8080_8080_8080_8080;
            let mut j = 0;
            while j < TAIL {
                let mut mask = unused;
                let mut k = 0;
                while k < digits[j] {
                    mask &= mask - 1;
                    k += 1;
                }
                let item = mask.trailing_zeros();
                order |= (item as u64) << (8 * j);
                unused &= !(1 << item);
                j += 1;
            }
            let mut packed = 0u64;
            let mut k = 0;
            while k < TAIL {
                packed |= (digits[k] as u64) << (8 * k);
                k += 1;
            }
            table.packed_digits[parity][t] = packed;
            table.packed_order[parity][t] = order;
            t += 1;
        }
        parity += 1;
    }
    table
};

#[cfg(target_arch = "x86_64")]
use crate::cpu::Ssse3;

/// How a tail's items are gathered into their order: a byte loop anywhere, or one
/// SSSE3 shuffle where the CPU has it.
trait Gather: Copy {
    /// Byte `j` of the result is byte `order[j]` of `items`.
    fn gather(self, items: u64, order: u64) -> u64;
}

/// The portable gather.
#[derive(Clone, Copy)]
struct Portable;

impl Gather for Portable {
    #[inline(always)]
    fn gather(self, items: u64, order: u64) -> u64 {
        let mut out = 0u64;
        for j in 0..TAIL {
            let from = (order >> (8 * j)) & 0xff;
            out |= ((items >> (8 * from)) & 0xff) << (8 * j);
        }
        out
    }
}

#[cfg(target_arch = "x86_64")]
impl Gather for Ssse3 {
    #[inline(always)]
    fn gather(self, items: u64, order: u64) -> u64 {
        // SAFETY: an `Ssse3` exists only on a CPU with SSSE3 (see `Ssse3::detect`).
        unsafe { shuffle_bytes(items, order) }
    }
}

/// `out` byte `j` = byte `order[j]` of `items` (0 where `order[j]` has its top bit).
///
/// Compiled with SSSE3 (`pshufb`): only code compiled with SSSE3 itself may call it
/// without `unsafe`, so it cannot run on a CPU without the instruction.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "ssse3")]
fn shuffle_bytes(items: u64, order: u64) -> u64 {
    use std::arch::x86_64::{_mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_shuffle_epi8};
    _mm_cvtsi128_si64(_mm_shuffle_epi8(
        _mm_cvtsi64_si128(items as i64),
        _mm_cvtsi64_si128(order as i64),
    )) as u64
}

/// `SELECT[byte][k]`: the position of the k-th set bit of `byte` (8 if none).
const SELECT: [[u8; 8]; 256] = {
    let mut table = [[8u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// The position of the `k`-th set bit of a 16-bit mask, by table: no loop.
#[inline(always)]
fn select16(mask: u32, k: u32) -> u32 {
    let low = mask & 0xff;
    let low_count = low.count_ones();
    if k < low_count {
        SELECT[low as usize][k as usize] as u32
    } else {
        8 + SELECT[((mask >> 8) & 0xff) as usize][(k - low_count) as usize] as u32
    }
}

/// Expands `indices` (ascending) of `puzzle`, calling `visit(index, neighbours)`.
pub(super) fn expand_sorted(
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    visit: impl FnMut(u64, &[u64]),
) {
    let m = puzzle.cells() - 1;
    if m <= TAIL {
        // Too small for the tail table (2x2, 2x3); the per-state path is plenty.
        crate::puzzle::expand_each(puzzle, indices, visit);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(ssse3) = Ssse3::detect() {
        // SAFETY: the token proves that the CPU supports SSSE3.
        unsafe { expand_ssse3(ssse3, puzzle, indices, visit) };
        return;
    }
    expand_by_cols(Portable, puzzle, indices, visit);
}

/// [`expand_by_cols`] compiled with SSSE3, whose byte shuffle gathers a tail in one
/// instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
fn expand_ssse3(
    ssse3: Ssse3,
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    visit: impl FnMut(u64, &[u64]),
) {
    expand_by_cols(ssse3, puzzle, indices, visit);
}

#[inline(always)]
fn expand_by_cols<G: Gather>(
    gather: G,
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    visit: impl FnMut(u64, &[u64]),
) {
    match puzzle.cols {
        2 => expand_run::<2, G>(gather, puzzle, indices, visit),
        3 => expand_run::<3, G>(gather, puzzle, indices, visit),
        4 => expand_run::<4, G>(gather, puzzle, indices, visit),
        5 => expand_run::<5, G>(gather, puzzle, indices, visit),
        6 => expand_run::<6, G>(gather, puzzle, indices, visit),
        7 => expand_run::<7, G>(gather, puzzle, indices, visit),
        _ => expand_run::<8, G>(gather, puzzle, indices, visit),
    }
}

/// [`expand_sorted`] for boards of `COLS` columns (more than 5 cells), gathering tails
/// with `gather`.
#[inline(always)]
fn expand_run<const COLS: usize, G: Gather>(
    gather: G,
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    mut visit: impl FnMut(u64, &[u64]),
) {
    debug_assert_eq!(puzzle.cols, COLS);
    let mut walker = Walker::new(puzzle);
    let block = puzzle.block;
    let (rows, cols) = (puzzle.rows, COLS);
    let mut blank = usize::MAX;
    let (mut block_start, mut block_end) = (0u64, 0u64);
    let mut current_prefix = u64::MAX;
    let mut required = 0u8;
    let mut neighbours = [0u64; 4];
    for &index in indices {
        if index >= block_end || index < block_start {
            blank = (index / block) as usize;
            block_start = blank as u64 * block;
            block_end = block_start + block;
            required = puzzle.required_parity(blank);
            current_prefix = u64::MAX;
        }
        let rank = index - block_start;
        let prefix = rank / TAIL_ARRANGEMENTS;
        let tail = (rank - prefix * TAIL_ARRANGEMENTS) as usize;
        if prefix != current_prefix {
            // Stepping the counter is cheaper than decoding for short gaps.
            if prefix > current_prefix && prefix - current_prefix <= MAX_STEPS {
                for _ in current_prefix..prefix {
                    walker.step_prefix();
                }
            } else {
                walker.decode_prefix(prefix);
            }
            current_prefix = prefix;
            walker.prefix_deltas::<COLS>(blank, rows);
        }
        walker.fill_tail(gather, required ^ walker.prefix_parity, tail);

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
            let delta = match walker.down_delta {
                Some(delta) => delta,
                None => walker.rotate_right_delta::<COLS>(blank),
            };
            neighbours[count] = (blank + cols) as u64 * block + (rank as i64 + delta) as u64;
            count += 1;
        }
        if row > 0 {
            let delta = match walker.up_delta {
                Some(delta) => delta,
                None => walker.rotate_left_delta::<COLS>(blank - cols),
            };
            neighbours[count] = (blank - cols) as u64 * block + (rank as i64 + delta) as u64;
            count += 1;
        }
        visit(index, &neighbours[..count]);
    }
}

/// Place values of a board size, computed once per puzzle.
#[derive(Debug)]
pub(super) struct WalkTables {
    /// `(m-1-i)!/2` for the ranked positions `i <= m-3`, 0 beyond.
    weights: [i64; MASK + 1],
    /// `(m-1-i)!/5!`: the prefix's mixed-radix place values.
    prefix_weights: [u64; MAX_CELLS],
    /// `2^64 / prefix_weights[i]`, rounded up.
    reciprocals: [u128; MAX_CELLS],
}

impl WalkTables {
    /// The tables for a board of `cells` cells.
    pub(super) fn new(cells: usize) -> WalkTables {
        let m = cells - 1;
        let mut weights = [0i64; MASK + 1];
        let mut prefix_weights = [0u64; MAX_CELLS];
        for (i, w) in weights.iter_mut().enumerate().take(m.saturating_sub(2)) {
            *w = (factorial(m - 1 - i) / 2) as i64;
        }
        for (i, w) in prefix_weights
            .iter_mut()
            .enumerate()
            .take(m.saturating_sub(TAIL))
        {
            *w = factorial(m - 1 - i) / factorial(TAIL);
        }
        let mut reciprocals = [0u128; MAX_CELLS];
        for (r, &w) in reciprocals.iter_mut().zip(&prefix_weights) {
            if w > 0 {
                *r = (1u128 << 64).div_ceil(w as u128);
            }
        }
        WalkTables {
            weights,
            prefix_weights,
            reciprocals,
        }
    }
}

/// The tile order and Lehmer digits of the current index.
struct Walker<'a> {
    m: usize,
    prefix_len: usize,
    seq: [u8; MASK + 1],
    digits: [u8; MASK + 1],
    /// Items not used before position `i` of the prefix.
    available: [u32; MAX_CELLS],
    /// The items left for the tail, ascending, one per byte.
    tail_items: u64,
    prefix_parity: u8,
    /// The rank change of a down (up) move, when its window lies inside the prefix and
    /// so is the same for the whole run of tails.
    down_delta: Option<i64>,
    up_delta: Option<i64>,
    tables: &'a WalkTables,
}

impl Walker<'_> {
    fn new(puzzle: &SlidingPuzzle) -> Walker<'_> {
        let m = puzzle.cells() - 1;
        Walker {
            m,
            tables: &puzzle.walk,
            prefix_len: m - TAIL,
            seq: [0; MASK + 1],
            digits: [0; MASK + 1],
            available: [0; MAX_CELLS],
            tail_items: 0,
            prefix_parity: 0,
            down_delta: None,
            up_delta: None,
        }
    }

    /// Sets the prefix from its mixed-radix number.
    fn decode_prefix(&mut self, mut prefix: u64) {
        for i in 0..self.prefix_len {
            let w = self.tables.prefix_weights[i];
            // Division by multiplication with a precomputed reciprocal: exact because
            // prefix * w < 2^64 (both are below 15!/2).
            let d = ((prefix as u128 * self.tables.reciprocals[i]) >> 64) as u64;
            prefix -= d * w;
            self.digits[i] = d as u8;
        }
        let sum: u32 = self.digits[..self.prefix_len]
            .iter()
            .map(|&d| d as u32)
            .sum();
        self.prefix_parity = (sum & 1) as u8;
        self.rebuild_items_from(0);
    }

    /// Advances the prefix by one, like a mixed-radix counter.
    fn step_prefix(&mut self) {
        let mut i = self.prefix_len - 1;
        let mut flipped = 1u8;
        loop {
            let max = (self.m - 1 - i) as u8;
            if self.digits[i] < max {
                self.digits[i] += 1;
                break;
            }
            // The digit wraps from `max` to 0.
            flipped ^= max & 1;
            self.digits[i] = 0;
            // The caller never steps past the block's last prefix, so i > 0 here.
            i -= 1;
        }
        self.prefix_parity ^= flipped & 1;
        self.rebuild_items_from(i);
    }

    /// Recomputes the prefix items from position `start` on, and the tail items.
    #[inline]
    fn rebuild_items_from(&mut self, start: usize) {
        let mut unused = if start == 0 {
            (1u32 << self.m) - 1
        } else {
            self.available[start - 1] & !(1u32 << self.seq[start - 1])
        };
        for i in start..self.prefix_len {
            self.available[i] = unused;
            let item = select16(unused, self.digits[i] as u32);
            self.seq[i] = item as u8;
            unused &= !(1u32 << item);
        }
        self.tail_items = 0;
        for j in 0..TAIL {
            self.tail_items |= (unused.trailing_zeros() as u64) << (8 * j);
            unused &= unused - 1;
        }
    }

    /// Precomputes the vertical moves' rank changes that do not depend on the tail.
    #[inline]
    fn prefix_deltas<const COLS: usize>(&mut self, blank: usize, rows: usize) {
        let row = blank / COLS;
        let fits = |p: usize| p + COLS <= self.prefix_len;
        self.down_delta =
            (row + 1 < rows && fits(blank)).then(|| self.rotate_right_delta::<COLS>(blank));
        self.up_delta = (row > 0 && fits(blank - COLS.min(blank)))
            .then(|| self.rotate_left_delta::<COLS>(blank - COLS));
    }

    #[inline(always)]
    fn fill_tail<G: Gather>(&mut self, gather: G, parity: u8, tail: usize) {
        let order = TAIL_TABLE.packed_order[(parity & 1) as usize][tail];
        let digits = TAIL_TABLE.packed_digits[(parity & 1) as usize][tail];
        // Gather the tail items in registers and write each array with one store: byte
        // stores followed by the rotations' byte loads stall store forwarding.
        let items = gather.gather(self.tail_items, order);
        let at = self.prefix_len & (MAX_CELLS - 1);
        self.seq[at..at + 8].copy_from_slice(&items.to_le_bytes());
        self.digits[at..at + 8].copy_from_slice(&digits.to_le_bytes());
    }

    /// Rank change when entries `p..p+C` rotate right (the last comes first): the
    /// blank at cell `p` moves down. Indices are masked to the arrays' size, which
    /// they never exceed, so the unrolled loop has no bounds checks.
    #[inline(always)]
    fn rotate_right_delta<const C: usize>(&self, p: usize) -> i64 {
        let last = self.seq[(p + C - 1) & MASK];
        let mut smaller = 0i64;
        let mut delta = 0i64;
        for k in 0..C - 1 {
            let j = (p + k) & MASK;
            let item = self.seq[j];
            smaller += (item < last) as i64;
            let moved = self.digits[j] as i64 - (item > last) as i64;
            delta +=
                (moved - self.digits[(j + 1) & MASK] as i64) * self.tables.weights[(j + 1) & MASK];
        }
        let (first, end) = (p & MASK, (p + C - 1) & MASK);
        delta
            + (self.digits[end] as i64 + smaller - self.digits[first] as i64)
                * self.tables.weights[first]
    }

    /// Rank change when entries `p..p+C` rotate left (the first goes last): the blank
    /// at cell `p + C` moves up.
    #[inline(always)]
    fn rotate_left_delta<const C: usize>(&self, p: usize) -> i64 {
        let first = self.seq[p & MASK];
        let mut smaller = 0i64;
        let mut delta = 0i64;
        for k in 1..C {
            let j = (p + k) & MASK;
            let item = self.seq[j];
            smaller += (item < first) as i64;
            let moved = self.digits[j] as i64 + (item > first) as i64;
            delta +=
                (moved - self.digits[(j - 1) & MASK] as i64) * self.tables.weights[(j - 1) & MASK];
        }
        let end = (p + C - 1) & MASK;
        delta
            + (self.digits[p & MASK] as i64 - smaller - self.digits[end] as i64)
                * self.tables.weights[end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Puzzle;

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

    /// Both gathers give the same neighbours (the SSSE3 one where the CPU has it).
    #[test]
    fn portable_and_shuffle_gathers_agree() {
        let p = SlidingPuzzle::new(3, 3).unwrap();
        let all: Vec<u64> = (0..p.index_count()).collect();
        let mut portable = Vec::new();
        expand_by_cols(Portable, &p, &all, |i, n| portable.push((i, n.to_vec())));
        let mut dispatched = Vec::new();
        expand_sorted(&p, &all, |i, n| dispatched.push((i, n.to_vec())));
        assert_eq!(portable, dispatched);
        #[cfg(target_arch = "x86_64")]
        if let Some(ssse3) = Ssse3::detect() {
            for (items, order) in [
                (0x0706_0504_0302_0100u64, 0x0001_0203_0405_0607u64),
                (0x1122_3344, 0x0303_0202),
            ] {
                assert_eq!(
                    ssse3.gather(items, order) & 0xff_ffff_ffff,
                    Portable.gather(items, order)
                );
            }
        }
    }
}
