//! Depth storage: one entry per index, shared by all BFS threads without locks.
//!
//! The engine talks to storage only through [`DepthStore`], so a denser encoding
//! (2 bits, depth mod 3) can be added beside [`ByteDepths`] without touching the
//! puzzles or the engine's level logic. Entries are read and written with relaxed
//! atomic byte accesses (plain moves on x86): all writers of one level write the same
//! value, so no read-modify-write is needed.

mod bytes;
mod scan;

pub use bytes::ByteDepths;

use std::ops::Range;

/// Why storage could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The operating system refused the mapping.
    #[error("cannot map {bytes} bytes of memory for the depth array: {source}")]
    Map {
        /// Size asked for.
        bytes: u64,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The index count does not fit the address space.
    #[error("{0} entries do not fit in this machine's address space")]
    TooLarge(u64),
}

/// Which entries a scan looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// Entries not reached yet.
    Unseen,
    /// Entries at this depth.
    Depth(u32),
}

/// Storage of one depth per index, readable and writable from many threads at once.
pub trait DepthStore: Sync {
    /// The number of entries.
    fn len(&self) -> u64;

    /// True when there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest depth the encoding can record.
    fn max_depth(&self) -> u32;

    /// Whether entry `index` matches `wanted`.
    fn matches(&self, index: u64, wanted: Wanted) -> bool;

    /// Records depth `depth` for entry `index`.
    fn set(&self, index: u64, depth: u32);

    /// Records depth `depth` for entry `index` if it is unseen; true if it was.
    /// Implementations may write unconditionally (branch-free), rewriting the value
    /// they read, which is safe because every writer of a level writes the same value.
    #[inline(always)]
    fn mark_if_unseen(&self, index: u64, depth: u32) -> bool {
        let unseen = self.matches(index, Wanted::Unseen);
        if unseen {
            self.set(index, depth);
        }
        unseen
    }

    /// Appends to `out` the indices in `range` that match `wanted`, ascending.
    ///
    /// # Safety
    /// No other thread may write any entry of `range` while this runs (the scan reads
    /// without atomics so that it runs at memory speed).
    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>);

    /// The number of entries in `range` that match `wanted`.
    ///
    /// # Safety
    /// No other thread may write any entry of `range` while this runs.
    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64;
}
