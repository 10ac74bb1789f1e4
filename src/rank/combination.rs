//! Ranking of k-subsets of `0..n` in the combinatorial number system (colex order):
//! the places taken by identical pieces.

use super::binomial;

/// Rank of the set whose members are the set bits of `places` (fewer than 32 places).
///
/// `rank = sum over members c_0 < c_1 < ... of C(c_i, i + 1)`, a bijection onto
/// `0..C(n, k)` for k-subsets of `0..n`.
#[must_use]
pub fn rank(places: u32) -> u64 {
    terms(u64::from(places), 0, 0)
}

/// The rank's terms of the members of `mask` numbered from place `offset`, with `below`
/// members under them: `sum C(c_i + offset, below + i + 1)`. A set split at a place
/// ranks as the sum of its parts' terms; [`rank`] is `terms(mask, 0, 0)`.
#[must_use]
pub fn terms(mask: u64, offset: usize, below: usize) -> u64 {
    let mut rest = mask;
    let mut total = 0;
    let mut i = below;
    while rest != 0 {
        let c = rest.trailing_zeros() as usize + offset;
        i += 1;
        total += binomial(c, i);
        rest &= rest - 1;
    }
    total
}

/// Inverse of [`rank`]: the `k`-subset of `0..n` with the given rank, as a bit mask.
#[must_use]
pub fn unrank(index: u64, n: usize, k: usize) -> u32 {
    unrank64(index, n, k) as u32
}

/// The `k`-subset of `0..n` (`n <= 64`) with colex rank `index`, as a mask: from the
/// top, the largest `c` with `C(c, i) <= index` for `i = k..1`.
#[must_use]
pub fn unrank64(mut index: u64, n: usize, k: usize) -> u64 {
    debug_assert!(index < binomial(n, k));
    let mut mask = 0u64;
    let mut top = n;
    for i in (1..=k).rev() {
        let mut c = top - 1;
        while binomial(c, i) > index {
            c -= 1;
        }
        index -= binomial(c, i);
        mask |= 1 << c;
        top = c;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn all_pairs_of_ten_are_dense() {
        let mut seen = [false; 45];
        for a in 0..10 {
            for b in a + 1..10 {
                let r = rank((1 << a) | (1 << b)) as usize;
                assert!(!seen[r]);
                seen[r] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    proptest! {
        #[test]
        fn rank_unrank_bijection(n in 1usize..=30, k_seed in any::<usize>(), seed in any::<u64>()) {
            let k = k_seed % (n + 1);
            let index = seed % binomial(n, k);
            let mask = unrank(index, n, k);
            prop_assert_eq!(mask.count_ones() as usize, k);
            prop_assert!(n == 32 || mask >> n == 0);
            prop_assert_eq!(rank(mask), index);
        }
    }
}
