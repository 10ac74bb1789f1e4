//! Subsets of up to 48 places ranked by the two halves of their masks, two lookups
//! each: the strategy of a peg solitaire level's bit set, which is walked in rank order.
//!
//! With `c_0 < c_1 < ...` the members, the colex rank `sum C(c_i, i + 1)`
//! ([`super::combination`]) is the low half's rank among the low halves with as many
//! members (its own terms), plus the high half's terms, which depend only on the high
//! half and how many members lie below it ([`super::combination::terms`]). So the
//! subsets with one high half have consecutive ranks, and walking a level is a walk
//! over high halves, each a run of ranks whose low halves come from a table.
//!
//! ```
//! use antipode::rank::halves::Halves;
//! use antipode::rank::subsets::SubsetRanker;
//!
//! let halves = Halves::new(33);
//! let board = 0b1_0110_0000_0000_0000_0000_0001_1011u64;
//! let bases = halves.bases(board.count_ones());
//! assert_eq!(halves.rank(&bases, board), SubsetRanker::new(33).rank(board));
//! ```

use super::combination;

/// The tables of subsets of `0..places` split into a low and a high half.
///
/// ```
/// use antipode::rank::halves::Halves;
///
/// // The three-member subsets of six places whose high half is 0b100 (place 5): their
/// // ranks are a run, from the base, over the low halves with two members.
/// let halves = Halves::new(6);
/// let bases = halves.bases(3);
/// let lows = halves.lows(3, 0b100).unwrap();
/// assert_eq!(lows, [0b011, 0b101, 0b110]);
/// assert_eq!(halves.rank(&bases, 0b100_011), bases[0b100]);
/// ```
#[derive(Debug, Clone)]
pub struct Halves {
    low_bits: usize,
    high_bits: usize,
    /// The rank of a low half among the low halves with as many members.
    low_rank: Vec<u32>,
    /// `low_unrank[m][j]`: the low half with `m` members and rank `j`.
    low_unrank: Vec<Vec<u32>>,
}

impl Halves {
    /// The tables for subsets of `0..places` (at most 48: larger levels do not fit any
    /// memory).
    #[must_use]
    pub fn new(places: usize) -> Halves {
        assert!(places <= 48, "at most 48 places");
        let low_bits = places / 2;
        let mut low_unrank = vec![Vec::new(); low_bits + 1];
        let low_rank = (0u32..1 << low_bits)
            .map(|low| {
                low_unrank[low.count_ones() as usize].push(low);
                combination::rank(low) as u32
            })
            .collect();
        Halves {
            low_bits,
            high_bits: places - low_bits,
            low_rank,
            low_unrank,
        }
    }

    /// The places of the low half.
    #[must_use]
    pub fn low_bits(&self) -> usize {
        self.low_bits
    }

    /// The number of high halves, `2^(places - low_bits)`.
    #[must_use]
    pub fn highs(&self) -> usize {
        1 << self.high_bits
    }

    /// The members of the low half of a subset of `members` members and high half
    /// `high`, if such a subset exists.
    #[inline(always)]
    fn low_members(&self, members: u32, high: u64) -> Option<usize> {
        let low = members.checked_sub(high.count_ones())? as usize;
        (low <= self.low_bits).then_some(low)
    }

    /// The low halves, in rank order, of the subsets of `members` members with high
    /// half `high`, if there are any.
    #[must_use]
    pub fn lows(&self, members: u32, high: u64) -> Option<&[u32]> {
        Some(&self.low_unrank[self.low_members(members, high)?])
    }

    /// For every high half, the rank of the first subset of `members` members with that
    /// high half (unused where there is none).
    #[must_use]
    pub fn bases(&self, members: u32) -> Vec<u64> {
        (0u64..1 << self.high_bits)
            .map(|high| match self.low_members(members, high) {
                None => 0,
                Some(low) => combination::terms(high, self.low_bits, low),
            })
            .collect()
    }

    /// The rank of `mask` given the [`Halves::bases`] of its number of members.
    #[inline(always)]
    #[must_use]
    pub fn rank(&self, bases: &[u64], mask: u64) -> u64 {
        bases[(mask >> self.low_bits) as usize]
            + self.low_rank[(mask & ((1 << self.low_bits) - 1)) as usize] as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::subsets::SubsetRanker;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn halves_rank_like_the_ranker(places in 2usize..=40, seed in any::<u64>()) {
            let ranker = SubsetRanker::new(places);
            let halves = Halves::new(places);
            let mask = seed & (u64::MAX >> (64 - places));
            let members = mask.count_ones();
            let bases = halves.bases(members);
            let rank = halves.rank(&bases, mask);
            prop_assert_eq!(rank, ranker.rank(mask));
            // The mask is in its high half's run, at its low half's place.
            let high = mask >> halves.low_bits();
            let lows = halves.lows(members, high).unwrap();
            let low = (mask & ((1 << halves.low_bits()) - 1)) as u32;
            prop_assert_eq!(lows[(rank - bases[high as usize]) as usize], low);
        }
    }
}
