//! Ranking of k-subsets of up to 64 places given as bit masks, by tables: the index of
//! a peg solitaire board among the boards with as many pegs.
//!
//! The order is colex, as in [`super::combination`]: a set `c_0 < c_1 < ... < c_{k-1}`
//! has rank `sum C(c_i, i + 1)`, a bijection onto `0..C(n, k)`, and numeric order of the
//! masks is rank order. [`SubsetRanker::rank`] adds one precomputed term per byte of
//! the mask (a byte's share depends only on the byte, its position and how many places
//! below it are taken), so a 33-place mask takes five lookups.

use super::binomial;
use super::combination::{terms, unrank64};

/// Rank and unrank of subsets of `0..n` (`n <= 64`) as `u64` masks.
///
/// ```
/// use antipode::rank::subsets::SubsetRanker;
///
/// // Boards of English 33 with two pegs: C(33, 2) of them, in the order of their masks.
/// let ranker = SubsetRanker::new(33);
/// assert_eq!(ranker.count(2), 528);
/// assert_eq!((ranker.rank(0b011), ranker.rank(0b101), ranker.rank(0b110)), (0, 1, 2));
/// ```
#[derive(Debug, Clone)]
pub struct SubsetRanker {
    places: usize,
    bytes: usize,
    /// `share[((byte_at * 256) + byte) * (places + 1) + below]`: the rank terms of the
    /// members in byte `byte_at` when `below` members lie under it.
    share: Vec<u64>,
}

impl SubsetRanker {
    /// The ranker of subsets of `0..places` (`1 <= places <= 64`).
    ///
    /// ```
    /// use antipode::rank::subsets::SubsetRanker;
    ///
    /// let ranker = SubsetRanker::new(33);
    /// let board = 0b1011u64;
    /// let index = ranker.rank(board);
    /// assert_eq!(ranker.unrank(index, 3), board);
    /// assert_eq!(ranker.count(16), 1_166_803_110);
    /// ```
    #[must_use]
    pub fn new(places: usize) -> SubsetRanker {
        assert!((1..=64).contains(&places), "1 to 64 places");
        let bytes = places.div_ceil(8);
        let width = places + 1;
        let mut share = vec![0u64; bytes * 256 * width];
        for byte_at in 0..bytes {
            for byte in 0..256usize {
                // The byte's members among the places.
                let inside = (byte as u64) & (u64::MAX >> (64 - places)) >> (8 * byte_at);
                for below in 0..width {
                    share[(byte_at * 256 + byte) * width + below] =
                        terms(inside, 8 * byte_at, below);
                }
            }
        }
        SubsetRanker {
            places,
            bytes,
            share,
        }
    }

    /// The number of places.
    #[must_use]
    pub fn places(&self) -> usize {
        self.places
    }

    /// How many subsets have `members` members: `C(places, members)`.
    #[must_use]
    pub fn count(&self, members: usize) -> u64 {
        binomial(self.places, members)
    }

    /// The rank of `mask` among the subsets with as many members (bits at or above
    /// `places` must be clear).
    #[inline]
    #[must_use]
    pub fn rank(&self, mask: u64) -> u64 {
        let width = self.places + 1;
        let mut total = 0;
        let mut below = 0usize;
        for byte_at in 0..self.bytes {
            let byte = (mask >> (8 * byte_at)) as u8 as usize;
            total += self.share[(byte_at * 256 + byte) * width + below];
            below += byte.count_ones() as usize;
        }
        total
    }

    /// The subset of `members` members with rank `index` (below `count(members)`).
    #[must_use]
    pub fn unrank(&self, index: u64, members: usize) -> u64 {
        unrank64(index, self.places, members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_subset_of_twelve_in_order() {
        let ranker = SubsetRanker::new(12);
        for members in 0..=12 {
            let mut expected = 0;
            for mask in 0u64..1 << 12 {
                if mask.count_ones() as usize != members {
                    continue;
                }
                assert_eq!(ranker.rank(mask), expected);
                assert_eq!(ranker.unrank(expected, members), mask);
                expected += 1;
            }
            assert_eq!(expected, ranker.count(members));
        }
    }

    proptest! {
        #[test]
        fn rank_unrank_bijection(places in 1usize..=64, seed in any::<u64>(), pick in any::<u64>()) {
            let ranker = SubsetRanker::new(places);
            let members = (pick % (places as u64 + 1)) as usize;
            let index = seed % ranker.count(members);
            let mask = ranker.unrank(index, members);
            prop_assert_eq!(mask.count_ones() as usize, members);
            prop_assert!(places == 64 || mask >> places == 0);
            prop_assert_eq!(ranker.rank(mask), index);
            if places <= 30 {
                prop_assert_eq!(super::super::combination::rank(mask as u32), index);
            }
        }
    }
}
