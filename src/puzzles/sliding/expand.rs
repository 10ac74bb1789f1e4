//! Incremental expansion of ascending sliding-tile indices, the BFS hot path.
//!
//! An index within a blank cell's block splits into a *prefix* (the Lehmer digits of
//! all but the last five tiles of the tile order) and one of the 60 arrangements of
//! the last five tiles that have the required parity (the *tail*). Consecutive indices
//! share the prefix, so the walker decodes a prefix once (or steps it like a counter).
//!
//! Neighbours follow from the digits: a horizontal move keeps the rank; a vertical
//! move rotates C entries of the tile order, which changes C Lehmer digits. That
//! change is a sum of terms, each fixed by the prefix alone, by the tail alone, or by
//! one comparison between a prefix item and a tail item. Per prefix the walker sums
//! the first kind and tabulates the third by the tail item's place among the five
//! (five values); the second kind is a constant table per blank cell and tail
//! ([`WalkTables`]). A state's vertical neighbour then costs three table reads and
//! two additions, and nothing is done per state but splitting the index. No
//! allocation, no division per state.

use super::{MAX_CELLS, SlidingPuzzle};
#[cfg(target_arch = "x86_64")]
use crate::cpu::Popcnt;
use crate::rank::factorial;

/// Tiles handled by the tail table.
const TAIL: usize = 5;
/// Arrangements of the tail of one parity: 5!/2.
const TAIL_ARRANGEMENTS: u64 = 60;
const TAILS: usize = TAIL_ARRANGEMENTS as usize;
/// Index mask of the walker's per-position arrays: positions are below MAX_CELLS.
const MASK: usize = MAX_CELLS - 1;
/// Gaps between prefixes up to this many are walked by counting rather than decoded.
const MAX_STEPS: u64 = 4;
/// Places a prefix item can have among the tail's items (0 to 5 of them are smaller).
const PLACES: usize = TAIL + 1;

/// For each parity and tail rank: the order of the tail items (as positions among the
/// sorted remaining items) and their Lehmer digits.
struct TailTable {
    /// Byte `j` is the position (among the sorted remaining items) of the item at
    /// tail position `j`.
    packed_order: [[u64; TAILS]; 2],
    /// The digits packed little-endian into a `u64`, one byte each.
    packed_digits: [[u64; TAILS]; 2],
}

impl TailTable {
    /// The Lehmer digit at tail position `j` of tail `t` of `parity`.
    fn digit(&self, parity: usize, t: usize, j: usize) -> i64 {
        ((self.packed_digits[parity][t] >> (8 * j)) & 0xff) as i64
    }

    /// The place among the tail's items of the item at tail position `j`.
    fn place(&self, parity: usize, t: usize, j: usize) -> u8 {
        ((self.packed_order[parity][t] >> (8 * j)) & 0xff) as u8
    }
}

const TAIL_TABLE: TailTable = {
    let mut table = TailTable {
        packed_order: [[0; TAILS]; 2],
        packed_digits: [[0; TAILS]; 2],
    };
    let mut parity = 0;
    while parity < 2 {
        let mut t = 0;
        while t < TAILS {
            // Free digits in mixed radix 5, 4, 3 (place values 12, 3, 1); the fourth
            // is fixed by the parity, the fifth is always 0.
            let d0 = (t / 12) as u8;
            let d1 = (t / 3 % 4) as u8;
            let d2 = (t % 3) as u8;
            let d3 = (parity as u8 ^ (d0 + d1 + d2)) & 1;
            let digits = [d0, d1, d2, d3, 0];
            let mut unused = (1u32 << TAIL) - 1;
            let mut order = 0u64;
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

/// Expands `indices` (ascending) of `puzzle`, calling `visit(value, index,
/// neighbours)` with the value the previous call returned (`init` first); returns the
/// last ([`crate::Puzzle::expand_sorted_fold`]).
pub(super) fn expand_sorted<A: Default>(
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    horizontal: bool,
    init: A,
    visit: impl FnMut(A, u64, &[u64]) -> A,
) -> A {
    let m = puzzle.cells() - 1;
    if m <= TAIL {
        assert!(horizontal, "small boards expand every move");
        // Too small for the tail table (2x2, 2x3); the per-state path is plenty.
        return expand_one_by_one(puzzle, indices, true, init, visit);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(popcnt) = Popcnt::detect() {
            // SAFETY: the token proves that the CPU has POPCNT.
            return unsafe { expand_popcnt(popcnt, puzzle, indices, horizontal, init, visit) };
        }
        // An x86-64 CPU without POPCNT (from before 2009): one state at a time, so
        // that the walk is compiled once per visit, not once more for such CPUs.
        expand_one_by_one(puzzle, indices, horizontal, init, visit)
    }
    #[cfg(not(target_arch = "x86_64"))]
    expand_run(puzzle, indices, horizontal, init, visit)
}

/// [`expand_sorted`] one state at a time ([`crate::puzzle::expand_each`]), without the
/// sideways moves unless `horizontal` (they are the neighbours one block away: a
/// vertical move changes the blank's cell by a whole row).
fn expand_one_by_one<A: Default>(
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    horizontal: bool,
    init: A,
    mut visit: impl FnMut(A, u64, &[u64]) -> A,
) -> A {
    let block = puzzle.block;
    let mut value = init;
    crate::puzzle::expand_each(puzzle, indices, |index, neighbours| {
        let mut vertical = [0u64; 4];
        let mut count = 0;
        let neighbours = if horizontal {
            neighbours
        } else {
            for &n in neighbours {
                if n != index.wrapping_sub(block) && n != index + block {
                    vertical[count] = n;
                    count += 1;
                }
            }
            &vertical[..count]
        };
        value = visit(std::mem::take(&mut value), index, neighbours);
    });
    value
}

/// [`expand_run`] compiled with POPCNT: the walker counts bits per prefix (its
/// items' places among the tail's, the k-th unused item).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn expand_popcnt<A>(
    _: Popcnt,
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    horizontal: bool,
    init: A,
    visit: impl FnMut(A, u64, &[u64]) -> A,
) -> A {
    expand_run(puzzle, indices, horizontal, init, visit)
}

/// [`expand_sorted`] for boards of more than 5 cells. The width is a runtime value:
/// it matters only once per block (the blank's moves) and once per prefix (the
/// vertical moves' windows), so one copy serves every board.
#[inline(always)]
fn expand_run<A>(
    puzzle: &SlidingPuzzle,
    indices: &[u64],
    horizontal: bool,
    init: A,
    mut visit: impl FnMut(A, u64, &[u64]) -> A,
) -> A {
    let tables = &*puzzle.walk;
    let mut walker = Walker::new(puzzle);
    let block = puzzle.block;
    let (rows, cols) = (puzzle.rows, puzzle.cols);
    let mut blank = usize::MAX;
    // The blank's moves, set per block: left, right, down, up.
    let mut can = [false; 4];
    let (mut block_start, mut block_end) = (0u64, 0u64);
    let mut current_prefix = u64::MAX;
    let mut required = 0u8;
    let mut neighbours = [0u64; 4];
    let (mut down, mut up) = (Shift::default(), Shift::default());
    let mut value = init;
    for &index in indices {
        if index >= block_end || index < block_start {
            blank = (index / block) as usize;
            block_start = blank as u64 * block;
            block_end = block_start + block;
            required = puzzle.required_parity(blank);
            current_prefix = u64::MAX;
            let (row, col) = (blank / cols, blank % cols);
            can = [
                horizontal && col > 0,
                horizontal && col + 1 < cols,
                row + 1 < rows,
                row > 0,
            ];
        }
        let rank = index - block_start;
        let prefix = rank / TAIL_ARRANGEMENTS;
        let tail = (rank % TAIL_ARRANGEMENTS) as usize;
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
            let parity = ((required ^ walker.prefix_parity) & 1) as usize;
            down = walker.shift(cols, tables.moves[blank][DOWN], DOWN, parity);
            up = walker.shift(cols, tables.moves[blank][UP], UP, parity);
        }

        let mut count = 0;
        if can[0] {
            neighbours[count] = index - block;
            count += 1;
        }
        if can[1] {
            neighbours[count] = index + block;
            count += 1;
        }
        if can[2] {
            let delta = down.delta(tables, tail);
            neighbours[count] = (blank + cols) as u64 * block + (rank as i64 + delta) as u64;
            count += 1;
        }
        if can[3] {
            let delta = up.delta(tables, tail);
            neighbours[count] = (blank - cols) as u64 * block + (rank as i64 + delta) as u64;
            count += 1;
        }
        value = visit(value, index, &neighbours[..count]);
    }
    value
}

/// The blank's move down: entries `p..p+C` of the tile order rotate right.
const DOWN: usize = 0;
/// The blank's move up: entries `p..p+C` rotate left.
const UP: usize = 1;

/// Where a vertical move's rotation window lies, for one blank cell and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Window {
    /// The move leaves the board.
    Off,
    /// Positions `p..p+C` lie in the prefix: one rank change per prefix.
    InPrefix { p: usize },
    /// The window reaches into the tail; its rows of [`WalkTables::tail_parts`]
    /// start at `row` (per parity, `PLACES` rows for up moves, one for down moves).
    Tail { p: usize, row: usize },
}

/// A vertical move's rank change for the current prefix, as a function of the tail:
/// `constant + tail_parts[row][t] + cross[moved_places[row][t]]`.
#[derive(Debug, Clone, Copy, Default)]
struct Shift {
    constant: i64,
    row: usize,
    /// By the moved tail item's place among the tail's items: the comparisons of the
    /// prefix items in the window with it (down moves; zero otherwise).
    cross: [i64; 8],
}

impl Shift {
    #[inline(always)]
    fn delta(&self, tables: &WalkTables, tail: usize) -> i64 {
        let place = tables.moved_places[self.row][tail] as usize;
        self.constant + tables.tail_parts[self.row][tail] + self.cross[place & 7]
    }
}

/// Place values of a board size and the tail's share of each vertical move's rank
/// change, computed once per puzzle.
#[derive(Debug)]
pub(super) struct WalkTables {
    /// `(m-1-i)!/2` for the ranked positions `i <= m-3`, 0 beyond.
    weights: [i64; MASK + 1],
    /// `(m-1-i)!/5!`: the prefix's mixed-radix place values.
    prefix_weights: [u64; MAX_CELLS],
    /// `2^64 / prefix_weights[i]`, rounded up.
    reciprocals: [u128; MAX_CELLS],
    /// Positions `0..prefix_len` form the prefix.
    prefix_len: usize,
    /// Per blank cell, the down and the up move.
    moves: [[Window; 2]; MAX_CELLS],
    /// Rows by tail: the terms of a rank change that the tail alone fixes. Row 0 is
    /// zero (moves within the prefix).
    tail_parts: Vec<[i64; TAILS]>,
    /// Rows by tail: the place among the tail's items of the item a down move takes
    /// out of the tail (0 in other rows).
    moved_places: Vec<[u8; TAILS]>,
}

impl WalkTables {
    /// The tables for a board of `rows` x `cols` cells (more than 6).
    pub(super) fn new(rows: usize, cols: usize) -> WalkTables {
        let cells = rows * cols;
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
        let mut tables = WalkTables {
            weights,
            prefix_weights,
            reciprocals,
            prefix_len: m.saturating_sub(TAIL),
            moves: [[Window::Off; 2]; MAX_CELLS],
            tail_parts: vec![[0; TAILS]],
            moved_places: vec![[0; TAILS]],
        };
        if m <= TAIL {
            return tables;
        }
        for blank in 0..cells {
            let row = blank / cols;
            if row + 1 < rows {
                tables.moves[blank][DOWN] = tables.window(blank, cols, DOWN);
            }
            if row > 0 {
                tables.moves[blank][UP] = tables.window(blank - cols, cols, UP);
            }
        }
        tables
    }

    /// The place value of position `i`.
    #[inline(always)]
    fn w(&self, i: usize) -> i64 {
        self.weights[i & MASK]
    }

    /// The window of the rotation of positions `p..p+c` in `direction`, with its rows
    /// of tail parts appended if it reaches into the tail.
    fn window(&mut self, p: usize, c: usize, direction: usize) -> Window {
        let (l, e) = (self.prefix_len, p + c - 1);
        if e < l {
            return Window::InPrefix { p };
        }
        let row = self.tail_parts.len();
        let places = if direction == DOWN { 1 } else { PLACES };
        for parity in 0..2 {
            for place in 0..places {
                let (mut parts, mut moved) = ([0i64; TAILS], [0u8; TAILS]);
                for (t, (part, moved)) in parts.iter_mut().zip(&mut moved).enumerate() {
                    let digit = |i: usize| TAIL_TABLE.digit(parity, t, i - l);
                    let place_of = |i: usize| TAIL_TABLE.place(parity, t, i - l);
                    let mut sum = 0;
                    if direction == DOWN {
                        // The item at `e` (in the tail) moves to `p`; the others move
                        // one place right. Terms of tail positions only.
                        let x = place_of(e);
                        for i in p.max(l)..e {
                            let greater = place_of(i) > x;
                            sum += (self.w(i + 1) - self.w(i)) * digit(i)
                                + if greater { -self.w(i + 1) } else { self.w(p) };
                        }
                        sum += (self.w(p) - self.w(e)) * digit(e);
                        *moved = x;
                    } else {
                        // The item at `p` moves to `e`; the others move one place left.
                        // If it is a prefix item, `place` is the number of tail items
                        // smaller than it.
                        if p >= l {
                            sum += (self.w(e) - self.w(p)) * digit(p);
                        }
                        for i in (p + 1).max(l)..=e {
                            let greater = if p >= l {
                                place_of(i) > place_of(p)
                            } else {
                                place_of(i) as usize >= place
                            };
                            sum += (self.w(i - 1) - self.w(i)) * digit(i)
                                + if greater { self.w(i - 1) } else { -self.w(e) };
                        }
                    }
                    *part = sum;
                }
                self.tail_parts.push(parts);
                self.moved_places.push(moved);
            }
        }
        Window::Tail { p, row }
    }
}

/// The tile order and Lehmer digits of the current prefix.
struct Walker<'a> {
    m: usize,
    prefix_len: usize,
    seq: [u8; MASK + 1],
    digits: [u8; MASK + 1],
    /// Items not used before position `i` of the prefix.
    available: [u32; MAX_CELLS],
    /// The items left for the tail, one bit each.
    tail_items: u32,
    prefix_parity: u8,
    tables: &'a WalkTables,
}

impl Walker<'_> {
    fn new(puzzle: &SlidingPuzzle) -> Walker<'_> {
        let m = puzzle.cells() - 1;
        Walker {
            m,
            tables: &puzzle.walk,
            prefix_len: puzzle.walk.prefix_len,
            seq: [0; MASK + 1],
            // No digit is u8::MAX: the first decode builds every item.
            digits: [u8::MAX; MASK + 1],
            available: [0; MAX_CELLS],
            tail_items: 0,
            prefix_parity: 0,
        }
    }

    /// Sets the prefix from its mixed-radix number. The items are rebuilt from the
    /// first digit that changed: in a sparse frontier consecutive prefixes are
    /// decoded, not stepped, and mostly share their leading digits.
    #[inline(always)]
    fn decode_prefix(&mut self, mut prefix: u64) {
        let mut first_changed = self.prefix_len;
        let mut sum = 0u32;
        for i in 0..self.prefix_len {
            let w = self.tables.prefix_weights[i];
            // Division by multiplication with a precomputed reciprocal: exact because
            // prefix * w < 2^64 (both are below 15!/2).
            let d = ((prefix as u128 * self.tables.reciprocals[i]) >> 64) as u64;
            prefix -= d * w;
            if self.digits[i] != d as u8 {
                first_changed = first_changed.min(i);
            }
            self.digits[i] = d as u8;
            sum += d as u32;
        }
        self.prefix_parity = (sum & 1) as u8;
        if first_changed < self.prefix_len {
            self.rebuild_items_from(first_changed);
        }
    }

    /// Advances the prefix by one, like a mixed-radix counter.
    #[inline(always)]
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
    #[inline(always)]
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
        self.tail_items = unused;
    }

    /// How many tail items are smaller than `item`.
    #[inline(always)]
    fn place_among_tail(&self, item: u8) -> usize {
        (self.tail_items & ((1u32 << item) - 1)).count_ones() as usize
    }

    /// The current prefix's share of the rank change of the move in `direction`
    /// through `window` (`c` entries: the board's width), for tails of `parity`.
    #[inline(always)]
    fn shift(&self, c: usize, window: Window, direction: usize, parity: usize) -> Shift {
        let w = |i: usize| self.tables.w(i);
        let d = |i: usize| self.digits[i & MASK] as i64;
        let l = self.prefix_len;
        match window {
            Window::Off => Shift::default(),
            Window::InPrefix { p } => Shift {
                constant: if direction == DOWN {
                    self.rotate_right_delta(p, c)
                } else {
                    self.rotate_left_delta(p, c)
                },
                ..Shift::default()
            },
            Window::Tail { p, row } if direction == DOWN => {
                // The moved item comes from the tail; the prefix items `p..l` move
                // one place right. Each is greater than it exactly when more tail items
                // lie below the prefix item than below the moved one: summed by place,
                // `cross[x]` is every item's `w(p)` less `w(p) + w(i + 1)` for the items
                // of a place above `x`.
                let mut shift = Shift {
                    row: row + parity,
                    ..Shift::default()
                };
                let (mut by_place, mut all) = ([0i64; PLACES], 0);
                for i in p..l {
                    shift.constant += (w(i + 1) - w(i)) * d(i);
                    let place = self.place_among_tail(self.seq[i & MASK]);
                    by_place[place.min(TAIL)] += w(p) + w(i + 1);
                    all += w(p);
                }
                let mut above = 0;
                for x in (0..TAIL).rev() {
                    above += by_place[x + 1];
                    shift.cross[x] = all - above;
                }
                shift
            }
            Window::Tail { p, row } => {
                let e = p + c - 1;
                if p >= l {
                    return Shift {
                        row: row + parity * PLACES,
                        ..Shift::default()
                    };
                }
                // The moved item is a prefix item; the prefix items after it move one
                // place left.
                let x = self.seq[p & MASK];
                let mut constant = (w(e) - w(p)) * d(p);
                for i in p + 1..l {
                    let greater = self.seq[i & MASK] > x;
                    constant += (w(i - 1) - w(i)) * d(i) + if greater { w(i - 1) } else { -w(e) };
                }
                Shift {
                    constant,
                    row: row + parity * PLACES + self.place_among_tail(x),
                    ..Shift::default()
                }
            }
        }
    }

    /// Rank change when entries `p..p+c` (all in the prefix) rotate right (the last
    /// comes first): the blank at cell `p` moves down.
    #[inline(always)]
    fn rotate_right_delta(&self, p: usize, c: usize) -> i64 {
        let last = self.seq[(p + c - 1) & MASK];
        let mut smaller = 0i64;
        let mut delta = 0i64;
        for k in 0..c - 1 {
            let j = (p + k) & MASK;
            let item = self.seq[j];
            smaller += (item < last) as i64;
            let moved = self.digits[j] as i64 - (item > last) as i64;
            delta +=
                (moved - self.digits[(j + 1) & MASK] as i64) * self.tables.weights[(j + 1) & MASK];
        }
        let (first, end) = (p & MASK, (p + c - 1) & MASK);
        delta
            + (self.digits[end] as i64 + smaller - self.digits[first] as i64)
                * self.tables.weights[first]
    }

    /// Rank change when entries `p..p+c` (all in the prefix) rotate left (the first
    /// goes last): the blank at cell `p + c` moves up.
    #[inline(always)]
    fn rotate_left_delta(&self, p: usize, c: usize) -> i64 {
        let first = self.seq[p & MASK];
        let mut smaller = 0i64;
        let mut delta = 0i64;
        for k in 1..c {
            let j = (p + k) & MASK;
            let item = self.seq[j];
            smaller += (item < first) as i64;
            let moved = self.digits[j] as i64 + (item > first) as i64;
            delta +=
                (moved - self.digits[(j - 1) & MASK] as i64) * self.tables.weights[(j - 1) & MASK];
        }
        let end = (p + c - 1) & MASK;
        delta
            + (self.digits[p & MASK] as i64 - smaller - self.digits[end] as i64)
                * self.tables.weights[end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Puzzle;
    use proptest::prelude::*;

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

    /// The one-by-one path (x86-64 CPUs without POPCNT) gives the walk's neighbours,
    /// with and without the sideways moves, on boards of every width the walk has.
    #[test]
    fn one_by_one_agrees_with_the_walk() {
        for (rows, cols) in [
            (3, 3),
            (2, 4),
            (4, 2),
            (2, 5),
            (3, 4),
            (2, 6),
            (2, 7),
            (2, 8),
        ] {
            let p = SlidingPuzzle::new(rows, cols).unwrap();
            // Runs of three (the walk steps) every so often (it decodes).
            let gap = (p.index_count() / 2_000).max(4);
            let indices: Vec<u64> = (0..p.index_count() / gap)
                .flat_map(|k| k * gap..k * gap + 3)
                .collect();
            for horizontal in [true, false] {
                let collect = |mut all: Vec<(u64, Vec<u64>)>, index: u64, neighbours: &[u64]| {
                    let mut sorted = neighbours.to_vec();
                    sorted.sort_unstable();
                    all.push((index, sorted));
                    all
                };
                let walked = expand_run(&p, &indices, horizontal, Vec::new(), collect);
                let one_by_one = expand_one_by_one(&p, &indices, horizontal, Vec::new(), collect);
                assert_eq!(walked.len(), indices.len());
                assert_eq!(one_by_one, walked, "{rows}x{cols}, horizontal {horizontal}");
            }
        }
    }

    /// The successors of `index`, ranked from scratch, sorted.
    fn successors_by_definition(p: &SlidingPuzzle, index: u64) -> Vec<u64> {
        let mut succ = Vec::new();
        p.successors(&p.unrank(index), &mut succ);
        let mut ranks: Vec<u64> = succ.iter().map(|s| p.rank(&s.state)).collect();
        ranks.sort_unstable();
        ranks
    }

    /// Boards up to 16 cells whose vertical windows lie in the prefix, straddle it
    /// and the tail, or lie in the tail, with every blank cell.
    fn board() -> impl Strategy<Value = (usize, usize)> {
        prop::sample::select(vec![
            (2, 5),
            (5, 2),
            (3, 4),
            (4, 3),
            (2, 6),
            (2, 7),
            (7, 2),
            (3, 5),
            (5, 3),
            (4, 4),
            (2, 8),
            (8, 2),
        ])
    }

    proptest! {
        /// Runs of consecutive indices (the walker steps its prefix) and scattered ones
        /// (it decodes) from every block, against the successors ranked from scratch.
        #[test]
        fn sampled_runs_agree_with_successors(
            (rows, cols) in board(),
            starts in prop::collection::vec((0u64..16, 0.0f64..1.0, 1u64..200), 1..12),
        ) {
            let p = SlidingPuzzle::new(rows, cols).unwrap();
            let cells = (rows * cols) as u64;
            let mut indices: Vec<u64> = starts
                .iter()
                .flat_map(|&(blank, at, len)| {
                    let start = (blank % cells) * p.block + (at * (p.block - 1) as f64) as u64;
                    let end = (start + len).min((blank % cells + 1) * p.block);
                    (start..end).step_by(1 + (len % 7) as usize)
                })
                .collect();
            indices.sort_unstable();
            indices.dedup();
            let mut checked = 0;
            let mut failure = None;
            p.expand_sorted(&indices, |index, neighbours| {
                let mut got = neighbours.to_vec();
                got.sort_unstable();
                let expected = successors_by_definition(&p, index);
                if got != expected && failure.is_none() {
                    failure = Some((index, got, expected));
                }
                checked += 1;
            });
            prop_assert_eq!(failure, None);
            prop_assert_eq!(checked, indices.len());
        }
    }
}
