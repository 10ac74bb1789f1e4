//! Ranking of arrangements of a multiset (items `0..k` with given multiplicities):
//! the orders of stones of a few kinds.

use super::factorial;

/// The number of distinct arrangements: `(sum c)! / prod c!` (at most 20 items).
#[must_use]
pub fn arrangements(counts: &[u8]) -> u64 {
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    counts
        .iter()
        .fold(factorial(n), |acc, &c| acc / factorial(c as usize))
}

/// Rank of `items` among the arrangements of its multiset (`counts[v]` copies of `v`,
/// at most 32 kinds).
///
/// Removing one `v` from a multiset of `n` items leaves `arrangements * c_v / n`
/// arrangements, so one running count replaces every multinomial: no division by a
/// factorial, no allocation.
#[must_use]
pub fn rank(items: &[u8], counts: &[u8]) -> u64 {
    let mut left = [0u64; 32];
    for (slot, &c) in left.iter_mut().zip(counts) {
        *slot = c as u64;
    }
    let mut n = items.len() as u64;
    let mut total_here = arrangements(counts);
    let mut rank = 0;
    for &item in items {
        for &c in &left[..item as usize] {
            rank += total_here * c / n;
        }
        total_here = total_here * left[item as usize] / n;
        left[item as usize] -= 1;
        n -= 1;
    }
    rank
}

/// Inverse of [`rank`]: writes the arrangement with the given rank into `out`.
pub fn unrank(mut index: u64, counts: &[u8], out: &mut [u8]) {
    let mut left = [0u64; 32];
    for (slot, &c) in left.iter_mut().zip(counts) {
        *slot = c as u64;
    }
    let mut n = out.len() as u64;
    let mut total_here = arrangements(counts);
    for slot in out.iter_mut() {
        for (v, count) in left.iter_mut().enumerate().take(counts.len()) {
            let below = total_here * *count / n;
            if index < below {
                *slot = v as u8;
                total_here = below;
                *count -= 1;
                break;
            }
            index -= below;
        }
        n -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sizes() {
        assert_eq!(arrangements(&[3, 3]), 20);
        assert_eq!(arrangements(&[2; 7]), 681_080_400);
    }

    proptest! {
        #[test]
        fn rank_unrank_bijection(counts in prop::collection::vec(0u8..4, 1..6), seed in any::<u64>()) {
            let total = arrangements(&counts);
            let n: usize = counts.iter().map(|&c| c as usize).sum();
            let index = seed % total;
            let mut items = vec![0u8; n];
            unrank(index, &counts, &mut items);
            for (v, &c) in counts.iter().enumerate() {
                prop_assert_eq!(items.iter().filter(|&&i| i as usize == v).count(), c as usize);
            }
            prop_assert_eq!(rank(&items, &counts), index);
        }
    }
}
