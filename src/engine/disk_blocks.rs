//! How a search on disk cuts the index space into blocks ([`super::OnDisk`]).
//!
//! The space is `regions` equal parts ([`crate::Puzzle::disk_regions`]), each cut
//! alike into slices of `width` offsets: block `k` is the `k`-th slice of every part.
//! With one part the blocks are contiguous slices of the space. With the parts a
//! puzzle's moves keep an index's offset in (a sliding board's blank cells: a sideways
//! move keeps the offset, most vertical ones move it a little), most neighbours lie in
//! their state's own block, and few go to a bucket.
//!
//! A neighbour in another block is named by its *slot* there, one 32-bit word: the
//! part times the width, plus its offset in the block's slice.

use std::ops::Range;

use super::slices::BLOCK;
use crate::divisor::Divisor;

/// Offsets a slice is a multiple of where a part's slice is at least [`BLOCK`]: a page
/// of 2-bit entries, so that the blocks of one part start on pages.
const PAGE_ALIGNED: u64 = BLOCK;

/// Offsets a narrower slice is a multiple of: a byte of 2-bit entries.
const BYTE_ALIGNED: u64 = 4;

/// The blocks of a search on disk: see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DiskBlocks {
    /// Indices of a part.
    part: Divisor,
    /// Parts of the space.
    parts: u64,
    /// Offsets of a part in one block.
    width: Divisor,
    /// Blocks.
    count: usize,
}

impl DiskBlocks {
    /// The blocks of `count` indices in `regions` parts (one if they do not divide
    /// `count`), each block at most `block_entries` indices (at most 2^32) where the
    /// parts allow: a block takes at least a byte of 2-bit entries from every part.
    pub(super) fn new(count: u64, regions: u64, block_entries: u64) -> DiskBlocks {
        let count = count.max(1);
        let parts = if regions > 0 && count.is_multiple_of(regions) {
            regions
        } else {
            1
        };
        let part = count / parts;
        let per_part = (block_entries.clamp(1, 1 << 32) / parts).max(1);
        let align = if per_part >= PAGE_ALIGNED {
            PAGE_ALIGNED
        } else {
            BYTE_ALIGNED
        };
        let width = (per_part / align * align).clamp(align, part.next_multiple_of(align));
        DiskBlocks {
            part: Divisor::new(part),
            parts,
            width: Divisor::new(width),
            count: part.div_ceil(width) as usize,
        }
    }

    /// The number of blocks.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// An upper bound of every block's slots: a part's width in each part.
    pub(super) fn slots(&self) -> u64 {
        self.parts * self.width.value
    }

    /// The index ranges of block `block`, one per part, in index order.
    pub(super) fn ranges(&self, block: usize) -> impl Iterator<Item = Range<u64>> + '_ {
        let (part, width) = (self.part.value, self.width.value);
        let start = block as u64 * width;
        let end = (start + width).min(part);
        (0..self.parts).map(move |p| p * part + start..p * part + end)
    }

    /// The block holding `index` and the index's slot in it.
    #[inline(always)]
    pub(super) fn owner(&self, index: u64) -> (usize, u32) {
        let (part, offset) = if self.parts == 1 {
            (0, index)
        } else {
            self.part.div_rem(index)
        };
        let (block, rest) = self.width.div_rem(offset);
        let slot = part * self.width.value + rest;
        (block as usize, slot as u32)
    }

    /// Where `index` lies seen from `block`: `None` inside it, else its block and slot
    /// there ([`DiskBlocks::owner`]). Most neighbours lie in their state's block, and
    /// the test for it takes one quotient (by the part) where the block takes two.
    #[inline(always)]
    pub(super) fn outside(&self, block: usize, index: u64) -> Option<(usize, u32)> {
        let (part, offset) = if self.parts == 1 {
            (0, index)
        } else {
            self.part.div_rem(index)
        };
        // The block's slice of a part starts at `block * width`; its last slice may be
        // cut short by the part's end, which no offset passes.
        if offset.wrapping_sub(block as u64 * self.width.value) < self.width.value {
            return None;
        }
        let (owner, rest) = self.width.div_rem(offset);
        Some((owner as usize, (part * self.width.value + rest) as u32))
    }

    /// Whether `range` (inside one of `block`'s ranges) shifted by `delta` lies
    /// inside one of them too.
    pub(super) fn holds_shifted(&self, block: usize, range: &Range<u64>, delta: i64) -> bool {
        let (Some(first), Some(last)) = (
            range.start.checked_add_signed(delta),
            (range.end - 1).checked_add_signed(delta),
        ) else {
            return false;
        };
        if last >= self.part.value * self.parts {
            return false;
        }
        let ((from, slot), (to, end_slot)) = (self.owner(first), self.owner(last));
        from == block && to == block && u64::from(end_slot - slot) == last - first
    }

    /// The index at slot `slot` of block `block` (the inverse of [`DiskBlocks::owner`]).
    #[inline(always)]
    pub(super) fn index(&self, block: usize, slot: u32) -> u64 {
        let (part, rest) = self.width.div_rem(u64::from(slot));
        part * self.part.value + block as u64 * self.width.value + rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parts_are_cut_alike_and_a_block_takes_a_slice_of_each() {
        let blocks = DiskBlocks::new(1200, 12, 240);
        assert_eq!(blocks.count(), 5);
        assert_eq!(blocks.owner(130), (1, 30));
        assert_eq!(blocks.index(1, 30), 130);
        let ranges: Vec<_> = blocks.ranges(4).take(2).collect();
        assert_eq!(ranges, [80..100, 180..200]);
        // A range shifted by a part stays in its block; shifted off it, not.
        assert!(blocks.holds_shifted(1, &(125..135), 100));
        assert!(blocks.holds_shifted(1, &(125..135), -100));
        assert!(!blocks.holds_shifted(1, &(125..135), 10));
        assert!(!blocks.holds_shifted(1, &(125..135), -200));
        assert!(!blocks.holds_shifted(1, &(1125..1135), 100));
        // Parts that do not divide the space: one part, contiguous blocks.
        let blocks = DiskBlocks::new(1201, 12, 240);
        assert_eq!(blocks.ranges(1).collect::<Vec<_>>(), vec![240..480]);
    }

    /// The share of the neighbours of `samples` spread indices of 3x4 that lie in
    /// their state's block, with 30 blocks cut over `parts` parts.
    fn near_share(parts: u64) -> f64 {
        use crate::Puzzle;
        let board = crate::puzzles::SlidingPuzzle::new(3, 4).unwrap();
        let count = board.index_count();
        let blocks = DiskBlocks::new(count, parts, count / 30);
        let indices: Vec<u64> = (0..20_000u64)
            .map(|k| k * (count / 20_000) + k % 7)
            .collect();
        let (mut near, mut all) = (0u64, 0u64);
        board.expand_sorted(&indices, |index, neighbours| {
            for &n in neighbours {
                all += 1;
                near += u64::from(blocks.owner(n).0 == blocks.owner(index).0);
            }
        });
        near as f64 / all as f64
    }

    #[test]
    fn a_sliding_board_cut_by_its_blank_cells_keeps_most_neighbours_near() {
        // Contiguous blocks: every move changes the blank's cell, hence the block.
        assert!(near_share(1) < 0.01);
        // By the blank's cells (its `disk_regions`): sideways moves and most vertical
        // ones stay in the block.
        assert!(near_share(12) > 0.85);
    }

    proptest! {
        #[test]
        fn every_index_has_one_block_and_one_slot(
            part in 1u64..5_000_000,
            parts in 1u64..20,
            block_entries in 1u64..40_000_000,
            picks in proptest::collection::vec(any::<u64>(), 32),
        ) {
            let count = part * parts;
            let blocks = DiskBlocks::new(count, parts, block_entries);
            // The blocks' ranges cover the space once, each range inside its part.
            let mut ranges: Vec<Range<u64>> =
                (0..blocks.count()).flat_map(|b| blocks.ranges(b).collect::<Vec<_>>()).collect();
            ranges.sort_by_key(|r| r.start);
            let mut next = 0;
            for range in &ranges {
                prop_assert_eq!(range.start, next);
                prop_assert!(!range.is_empty());
                next = range.end;
            }
            prop_assert_eq!(next, count);
            for pick in picks {
                let index = pick % count;
                let (block, slot) = blocks.owner(index);
                prop_assert!(block < blocks.count());
                prop_assert!(blocks.ranges(block).any(|r| r.contains(&index)));
                prop_assert_eq!(blocks.index(block, slot), index);
                prop_assert!(u64::from(slot) < blocks.slots());
                // Seen from each block: inside its own, elsewhere its block and slot.
                for from in [0, block.saturating_sub(1), block, (block + 1).min(blocks.count() - 1)] {
                    let seen = blocks.outside(from, index);
                    prop_assert_eq!(seen, (from != block).then_some((block, slot)));
                }
            }
        }
    }
}
