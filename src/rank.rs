//! Ranking math shared by the puzzles: bijections between arrangements and dense integers.
//!
//! Every puzzle's minimal perfect hash is built from these pieces:
//! [`permutation`] ranks orderings of distinct items (optionally only those of one parity,
//! which is what halves a sliding-tile board's index space), and [`combination`] ranks
//! the set of places taken by identical items.

pub mod combination;
pub mod permutation;

/// `n!` for `n <= 20` (the largest factorial that fits in a `u64`).
pub const fn factorial(n: usize) -> u64 {
    let mut f = 1u64;
    let mut i = 2;
    while i <= n {
        f *= i as u64;
        i += 1;
    }
    f
}

/// The number of ways to choose `k` items out of `n`, or 0 when `k > n`.
pub const fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let k = if k > n - k { n - k } else { k };
    let mut result = 1u64;
    let mut i = 0;
    while i < k {
        result = result * (n - i) as u64 / (i + 1) as u64;
        i += 1;
    }
    result
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
    }
}
