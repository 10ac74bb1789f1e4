//! Ranking math shared by the puzzles: bijections between arrangements and dense integers.
//!
//! Every puzzle's minimal perfect hash is built from these pieces, and each exists once:
//! - [`permutation`] ranks orderings of distinct items (optionally only those of one
//!   parity, which is what halves a sliding-tile board's index space);
//! - [`combination`] ranks the set of places taken by identical items (colex order), with
//!   two table-driven strategies of the same order: [`subsets`] (one lookup per byte of
//!   a mask of up to 64 places) and [`halves`] (a mask's two halves, for walking a peg
//!   solitaire level in rank order);
//! - [`kinds`] ranks where several kinds of identical pieces stand, kind by kind, as
//!   combinations in mixed radix (a sliding-block puzzle's repeated pieces, a twisty
//!   puzzle's identical pieces);
//! - [`multiset`] ranks the arrangements of a multiset in lexicographic order
//!   (Oshidori's stones);
//! - [`partial`] ranks where a few distinct items stand (a pattern database's tiles).

pub mod combination;
pub mod halves;
pub mod kinds;
pub mod multiset;
pub mod partial;
pub mod permutation;
pub mod subsets;

/// `FACTORIALS[n] = n!` for `n <= 20` (the largest factorial that fits in a `u64`).
const FACTORIALS: [u64; 21] = {
    let mut table = [1u64; 21];
    let mut n = 1;
    while n < 21 {
        table[n] = table[n - 1] * n as u64;
        n += 1;
    }
    table
};

/// `n!` for `n <= 20` (the largest factorial that fits in a `u64`), by table.
#[inline(always)]
#[must_use]
pub const fn factorial(n: usize) -> u64 {
    FACTORIALS[n]
}

/// Largest `n` of the binomial table.
const BINOMIAL_ROWS: usize = 64;

/// Pascal's triangle: `BINOMIALS[n][k] = C(n, k)` for `k <= 32`.
static BINOMIALS: [[u64; 33]; BINOMIAL_ROWS + 1] = {
    let mut table = [[0u64; 33]; BINOMIAL_ROWS + 1];
    let mut n = 0;
    while n <= BINOMIAL_ROWS {
        table[n][0] = 1;
        let mut k = 1;
        while k <= 32 && k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
};

/// The number of ways to choose `k` items out of `n` (`n <= 64`), or 0 when `k > n`.
#[inline(always)]
#[must_use]
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        0
    } else if k > 32 {
        BINOMIALS[n][n - k]
    } else {
        BINOMIALS[n][k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values() {
        assert_eq!(factorial(0), 1);
        assert_eq!(factorial(11), 39_916_800);
        assert_eq!(factorial(20), 2_432_902_008_176_640_000);
        assert_eq!(binomial(10, 2), 45);
        assert_eq!(binomial(6, 3), 20);
        assert_eq!(binomial(3, 5), 0);
        assert_eq!(binomial(33, 16), 1_166_803_110);
        assert_eq!(binomial(64, 40), binomial(64, 24));
        assert_eq!(binomial(37, 36), 37);
    }
}
