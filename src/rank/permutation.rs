//! Lehmer-code ranking of permutations of `0..n` (n <= 20), plus the parity-restricted
//! variant that numbers only the even (or only the odd) permutations densely.
//!
//! The Lehmer digit of position `i` is the number of later items smaller than `item[i]`;
//! the rank is those digits read in the factorial number system. The digit sum has the
//! parity of the permutation, so among permutations of one parity the digit of position
//! `n - 2` is fixed by the others: dropping it numbers them `0..n!/2` with no holes.

use super::factorial;

/// Largest permutation length these functions accept (factorials must fit in `u64`).
pub const MAX_ITEMS: usize = 20;

/// Lehmer digits of `items` (a permutation of `0..items.len()`) into `digits`.
#[inline]
pub fn lehmer_digits(items: &[u8], digits: &mut [u8]) {
    debug_assert!(items.len() <= 32 && digits.len() >= items.len());
    let mut unused: u32 = if items.len() == 32 {
        u32::MAX
    } else {
        (1u32 << items.len()) - 1
    };
    for (digit, &item) in digits.iter_mut().zip(items) {
        let below = unused & ((1u32 << item) - 1);
        *digit = below.count_ones() as u8;
        unused &= !(1u32 << item);
    }
}

/// Parity of a permutation of `0..n`: 0 for even, 1 for odd.
#[inline]
#[must_use]
pub fn parity(items: &[u8]) -> u8 {
    let mut digits = [0u8; 32];
    lehmer_digits(items, &mut digits);
    (digits[..items.len()].iter().map(|&d| d as u32).sum::<u32>() & 1) as u8
}

/// The position (0-based) of the `k`-th set bit of `mask`.
#[inline]
#[must_use]
pub fn nth_set_bit(mut mask: u32, k: u32) -> u32 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

/// Rank of a permutation of `0..n` among all `n!` permutations.
#[must_use]
pub fn rank(items: &[u8]) -> u64 {
    let n = items.len();
    debug_assert!(n <= MAX_ITEMS);
    let mut digits = [0u8; 32];
    lehmer_digits(items, &mut digits);
    digits[..n]
        .iter()
        .enumerate()
        .map(|(i, &d)| d as u64 * factorial(n - 1 - i))
        .sum()
}

/// Inverse of [`rank`]: writes the permutation of `0..out.len()` with the given rank.
pub fn unrank(mut index: u64, out: &mut [u8]) {
    let n = out.len();
    debug_assert!(n <= MAX_ITEMS && index < factorial(n));
    let mut unused: u32 = (1u32 << n) - 1;
    for (i, slot) in out.iter_mut().enumerate() {
        let weight = factorial(n - 1 - i);
        let digit = (index / weight) as u32;
        index %= weight;
        let item = nth_set_bit(unused, digit);
        *slot = item as u8;
        unused &= !(1u32 << item);
    }
}

/// Rank of a permutation among the `n!/2` permutations of its own parity (n >= 2).
#[must_use]
pub fn rank_within_parity(items: &[u8]) -> u64 {
    let n = items.len();
    debug_assert!((2..=MAX_ITEMS).contains(&n));
    let mut digits = [0u8; 32];
    lehmer_digits(items, &mut digits);
    digits[..n - 2]
        .iter()
        .enumerate()
        .map(|(i, &d)| d as u64 * (factorial(n - 1 - i) / 2))
        .sum()
}

/// Inverse of [`rank_within_parity`]: the permutation of `0..out.len()` of parity
/// `parity` (0 even, 1 odd) with the given rank.
pub fn unrank_within_parity(mut index: u64, parity: u8, out: &mut [u8]) {
    let n = out.len();
    debug_assert!((2..=MAX_ITEMS).contains(&n) && index < factorial(n) / 2);
    let mut unused: u32 = (1u32 << n) - 1;
    let mut digit_sum = 0u32;
    for (i, slot) in out.iter_mut().enumerate() {
        let digit = if i + 2 < n {
            let weight = factorial(n - 1 - i) / 2;
            let d = (index / weight) as u32;
            index %= weight;
            d
        } else if i + 2 == n {
            (parity as u32 ^ digit_sum) & 1
        } else {
            0
        };
        digit_sum += digit;
        let item = nth_set_bit(unused, digit);
        *slot = item as u8;
        unused &= !(1u32 << item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identity_and_reverse() {
        assert_eq!(rank(&[0, 1, 2, 3]), 0);
        assert_eq!(rank(&[3, 2, 1, 0]), 23);
        assert_eq!(parity(&[1, 0, 2]), 1);
        assert_eq!(parity(&[1, 2, 0]), 0);
    }

    #[test]
    fn parity_ranks_are_dense_for_small_n() {
        for n in 2..=7usize {
            let half = factorial(n) / 2;
            for parity_wanted in 0..2u8 {
                let mut seen = vec![false; half as usize];
                for r in 0..factorial(n) {
                    let mut p = vec![0u8; n];
                    unrank(r, &mut p);
                    if parity(&p) != parity_wanted {
                        continue;
                    }
                    let pr = rank_within_parity(&p);
                    assert!(pr < half);
                    assert!(!seen[pr as usize], "rank {pr} taken twice for n={n}");
                    seen[pr as usize] = true;
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    proptest! {
        #[test]
        fn rank_unrank_bijection(n in 1usize..=16, seed in any::<u64>()) {
            let index = seed % factorial(n);
            let mut p = vec![0u8; n];
            unrank(index, &mut p);
            prop_assert_eq!(rank(&p), index);
        }

        #[test]
        fn parity_rank_unrank_bijection(n in 2usize..=16, seed in any::<u64>(), par in 0u8..2) {
            let index = seed % (factorial(n) / 2);
            let mut p = vec![0u8; n];
            unrank_within_parity(index, par, &mut p);
            prop_assert_eq!(parity(&p), par);
            prop_assert_eq!(rank_within_parity(&p), index);
        }
    }
}
