//! The index space cut into contiguous slices, one per cooperating process (rank).
//!
//! Rank `r` of `n` owns `[start(r), start(r + 1))` with `start(r) = floor(r * count /
//! n)`: a pure function of the rank count and the index count, so every rank knows
//! every owner without asking. `n` need not divide `count`; slices differ by at most one
//! index.

use std::ops::Range;

/// `count` indices cut into `ranks` contiguous slices.
///
/// ```
/// use antipode::engine::Slices;
///
/// let slices = Slices::new(10, 3);
/// assert_eq!(slices.range(0), 0..3);
/// assert_eq!(slices.range(1), 3..6);
/// assert_eq!(slices.range(2), 6..10);
/// assert_eq!(slices.owner(5), 1);
/// assert_eq!(slices.owner(6), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slices {
    count: u64,
    ranks: usize,
}

impl Slices {
    /// `count` indices over `ranks` ranks (at least one).
    pub fn new(count: u64, ranks: usize) -> Slices {
        Slices {
            count,
            ranks: ranks.max(1),
        }
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The first index of rank `rank`'s slice (`count` for `rank == ranks`).
    pub fn start(&self, rank: usize) -> u64 {
        (rank as u128 * self.count as u128 / self.ranks as u128) as u64
    }

    /// Rank `rank`'s indices.
    pub fn range(&self, rank: usize) -> Range<u64> {
        self.start(rank)..self.start(rank + 1)
    }

    /// The rank that owns `index` (below `count`): the largest `r` with
    /// `start(r) <= index`, i.e. `ceil((index + 1) * ranks / count) - 1`.
    #[inline(always)]
    pub fn owner(&self, index: u64) -> usize {
        let scaled = (index as u128 + 1) * self.ranks as u128;
        (scaled.div_ceil(self.count as u128) - 1) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_index_has_the_owner_whose_slice_holds_it(
            count in 1u64..1_000_000_000_000,
            ranks in 1usize..64,
            picks in proptest::collection::vec(any::<u64>(), 16),
        ) {
            let slices = Slices::new(count, ranks);
            prop_assert_eq!(slices.start(0), 0);
            prop_assert_eq!(slices.start(ranks), count);
            for rank in 0..ranks {
                let range = slices.range(rank);
                prop_assert!(range.end - range.start <= count / ranks as u64 + 1);
                if !range.is_empty() {
                    prop_assert_eq!(slices.owner(range.start), rank);
                    prop_assert_eq!(slices.owner(range.end - 1), rank);
                }
            }
            for pick in picks {
                let index = pick % count;
                prop_assert!(slices.range(slices.owner(index)).contains(&index));
            }
        }
    }
}
