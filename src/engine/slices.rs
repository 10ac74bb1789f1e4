//! The index space cut into contiguous slices, one per cooperating process (rank).
//!
//! The indices are grouped in blocks of `block` indices (the last one may be shorter)
//! and rank `r` of `n` owns the blocks `[floor(r * blocks / n), floor((r + 1) * blocks /
//! n))`: a pure function of the rank count and the index count, so every rank knows
//! every owner without asking. `n` need not divide `count`; slices differ by at most one
//! block.
//!
//! Blocks are [`BLOCK`] indices where every rank gets at least [`BLOCKED_FROM`] indices,
//! so that a slice of a table starts on a page boundary with 2- and 8-bit entries alike
//! (a table in shards maps its shards side by side into one array); smaller spaces
//! (tests, small puzzles) are cut in blocks of 4, so that slices still start on a byte
//! boundary with 2-bit entries.

use std::ops::Range;

/// Indices per block of a large space: 4096 bytes of 2-bit entries.
pub const BLOCK: u64 = 1 << 14;

/// Indices per rank from which slices are cut in blocks of [`BLOCK`].
pub const BLOCKED_FROM: u64 = 1 << 18;

/// Indices per block of a small space: one byte of 2-bit entries.
const SMALL_BLOCK: u64 = 4;

/// `count` indices cut into `ranks` contiguous slices.
///
/// ```
/// use antipode::engine::Slices;
///
/// let slices = Slices::new(10, 3);
/// assert_eq!(slices.range(0), 0..4);
/// assert_eq!(slices.range(1), 4..8);
/// assert_eq!(slices.range(2), 8..10);
/// assert_eq!(slices.owner(5), 1);
///
/// // 2x5's 1,814,400 indices over 3 ranks: whole pages of entries each.
/// let slices = Slices::new(1_814_400, 3);
/// assert_eq!(slices.range(1), 606_208..1_212_416);
/// assert_eq!(slices.owner(606_207), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slices {
    count: u64,
    ranks: usize,
    /// log2 of the indices per block.
    block_shift: u32,
    /// The number of blocks.
    blocks: u64,
    /// `floor((2^64 - 1) / blocks)`: owners by a multiplication instead of a division.
    reciprocal: u64,
}

impl Slices {
    /// `count` indices over `ranks` ranks (at least one).
    #[must_use]
    pub fn new(count: u64, ranks: usize) -> Slices {
        let ranks = ranks.max(1);
        let block = if count / ranks as u64 >= BLOCKED_FROM {
            BLOCK
        } else {
            SMALL_BLOCK
        };
        let blocks = count.div_ceil(block).max(1);
        Slices {
            count,
            ranks,
            block_shift: block.trailing_zeros(),
            blocks,
            reciprocal: u64::MAX / blocks,
        }
    }

    /// The number of ranks.
    #[must_use]
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// Indices per block: every slice but the last starts and ends on a multiple of it.
    #[must_use]
    pub fn block(&self) -> u64 {
        1 << self.block_shift
    }

    /// The first index of rank `rank`'s slice (`count` for `rank == ranks`).
    #[must_use]
    pub fn start(&self, rank: usize) -> u64 {
        let block = (rank as u128 * self.blocks as u128 / self.ranks as u128) as u64;
        (block << self.block_shift).min(self.count)
    }

    /// Rank `rank`'s indices.
    #[must_use]
    pub fn range(&self, rank: usize) -> Range<u64> {
        self.start(rank)..self.start(rank + 1)
    }

    /// The rank that owns `index` (below `count`): the largest `r` whose first block
    /// is at most `index`'s block `b`, i.e. `ceil((b + 1) * ranks / blocks) - 1`.
    #[inline(always)]
    #[must_use]
    pub fn owner(&self, index: u64) -> usize {
        let block = (index >> self.block_shift) + 1;
        let rounded = block
            .checked_mul(self.ranks as u64)
            .and_then(|scaled| scaled.checked_add(self.blocks - 1));
        match rounded {
            // Every neighbour sent asks: the quotient by the reciprocal (a multiply,
            // where a division costs tens of cycles) is exact or one short.
            Some(x) => {
                let mut quotient = ((x as u128 * self.reciprocal as u128) >> 64) as u64;
                if (quotient as u128 + 1) * self.blocks as u128 <= x as u128 {
                    quotient += 1;
                }
                (quotient - 1) as usize
            }
            None => {
                ((block as u128 * self.ranks as u128).div_ceil(self.blocks as u128) - 1) as usize
            }
        }
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
            let block = slices.block();
            for rank in 0..ranks {
                let range = slices.range(rank);
                prop_assert!(range.start <= range.end);
                prop_assert!(range.end - range.start <= (count.div_ceil(block) / ranks as u64 + 1) * block);
                prop_assert!(range.start.is_multiple_of(block));
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

        #[test]
        fn the_owner_by_reciprocal_is_the_exact_quotient(
            count in 1u64..u64::MAX,
            ranks in 1usize..100_000,
            pick in any::<u64>(),
        ) {
            let slices = Slices::new(count, ranks);
            let index = pick % count;
            let block = (index >> slices.block_shift) as u128 + 1;
            let exact = (block * ranks as u128).div_ceil(slices.blocks as u128) - 1;
            prop_assert_eq!(slices.owner(index) as u128, exact);
        }

        #[test]
        fn large_spaces_are_cut_on_pages_of_entries(
            per_rank in BLOCKED_FROM..1 << 30,
            ranks in 1usize..16,
            extra in 0u64..1 << 20,
        ) {
            let slices = Slices::new(per_rank * ranks as u64 + extra, ranks);
            prop_assert_eq!(slices.block(), BLOCK);
            for rank in 0..ranks {
                // 2-bit entries: 4 per byte; a page of 4096 bytes.
                prop_assert!((slices.start(rank) / 4).is_multiple_of(4096));
                prop_assert!(!slices.range(rank).is_empty());
            }
        }
    }
}
