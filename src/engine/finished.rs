//! Scans of a finished depth array: the states at one depth, in index order.
//!
//! The scans read plain memory (no atomics) at memory speed, which is sound only while
//! no thread writes the array. [`Finished`] makes that hold by construction: it borrows
//! the store uniquely (`&mut`), so no other reference through which anyone could write
//! exists while it lives, and it hands the caller's filter a read-only view only.

use std::ops::Range;

use rayon::prelude::*;

use super::layout::CHUNK_SHIFT;
use crate::store::{DepthRead, DepthStore, Wanted};

/// Chunks scanned in parallel before [`Finished::filter_at_depth`] checks whether it
/// has enough.
const FILTER_BATCH: usize = 64;

/// A store no thread writes any more: reads only, including fast scans.
///
/// ```
/// use antipode::driver::Control;
/// use antipode::engine::{self, Finished};
/// use antipode::{Notation, Puzzle, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let mut store = ByteDepths::anonymous(board.index_count()).unwrap();
/// engine::search(&board, &store, &Control::default()).unwrap();
/// // The one antipode of the 2x3 board, 21 moves from the goal.
/// let antipodes = Finished::new(&mut store).indices_at_depth(21, 10);
/// assert_eq!(antipodes.len(), 1);
/// assert_eq!(board.format_line(&board.unrank(antipodes[0])), "450/123");
/// ```
pub struct Finished<'a, S: DepthStore>(&'a S);

impl<'a, S: DepthStore> Finished<'a, S> {
    /// Views `store`, borrowed uniquely for as long as the view lives.
    pub fn new(store: &'a mut S) -> Self {
        Finished(store)
    }

    /// The first `limit` indices (ascending) whose entry matches `depth` (for stores
    /// with a period: whose depth has that residue).
    #[must_use]
    pub fn indices_at_depth(&self, depth: u32, limit: usize) -> Vec<u64> {
        self.filter_at_depth(depth, limit, |_, _| {})
    }

    /// The first `limit` indices (ascending) whose entry matches `depth` and that
    /// `filter` keeps. `filter` gets this view and one chunk's candidates at a time
    /// (ascending) and retains the ones to keep in place. Batches of chunks run in
    /// parallel, in index order, until `limit` are found, so candidates are never all
    /// held at once and a small `limit` stops early.
    pub fn filter_at_depth(
        &self,
        depth: u32,
        limit: usize,
        filter: impl Fn(&Self, &mut Vec<u64>) + Sync,
    ) -> Vec<u64> {
        let len = self.0.len();
        let chunks: Vec<Range<u64>> = (0..len.div_ceil(1 << CHUNK_SHIFT))
            .map(|c| (c << CHUNK_SHIFT)..((c + 1) << CHUNK_SHIFT).min(len))
            .collect();
        let mut found = Vec::new();
        for batch in chunks.chunks(FILTER_BATCH) {
            let parts: Vec<Vec<u64>> = batch
                .par_iter()
                .map(|range| {
                    let mut out = Vec::new();
                    // SAFETY: `self` holds the only reference to the store, derived from
                    // a unique borrow, and offers no way to write through it.
                    unsafe {
                        self.0
                            .collect_exclusive(range.clone(), Wanted::Depth(depth), &mut out)
                    };
                    filter(self, &mut out);
                    out
                })
                .collect();
            for part in parts {
                found.extend_from_slice(&part);
            }
            if found.len() >= limit {
                break;
            }
        }
        found.truncate(limit);
        found
    }
}

impl<S: DepthStore> DepthRead for Finished<'_, S> {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn max_depth(&self) -> u32 {
        self.0.max_depth()
    }

    fn period(&self) -> Option<u32> {
        self.0.period()
    }

    fn value(&self, index: u64) -> Option<u32> {
        self.0.value(index)
    }

    fn matches(&self, index: u64, wanted: Wanted) -> bool {
        self.0.matches(index, wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ByteDepths, PackedDepths};

    #[test]
    fn finds_the_first_indices_at_a_depth() {
        let mut store = ByteDepths::anonymous(1 << 19).unwrap();
        for i in (0..1u64 << 19).step_by(1000) {
            store.set(i, (i % 3) as u32);
        }
        let view = Finished::new(&mut store);
        assert_eq!(view.indices_at_depth(1, 3), [1000, 4000, 7000]);
        let odd_thousands = view.filter_at_depth(2, 2, |v, c| {
            c.retain(|&i| (i / 1000) % 2 == 1 && v.value(i) == Some(2))
        });
        assert_eq!(odd_thousands, [5000, 11000]);
        let mut packed = PackedDepths::anonymous(100).unwrap();
        packed.set(97, 4);
        assert_eq!(Finished::new(&mut packed).indices_at_depth(1, 10), [97]);
    }
}
