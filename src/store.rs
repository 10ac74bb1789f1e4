//! Depth storage: one entry per index, shared by all BFS threads without locks.
//!
//! The engine talks to storage only through [`DepthStore`]. Two encodings exist:
//! [`ByteDepths`], one byte per entry with the exact depth, written with relaxed atomic
//! byte stores (plain moves on x86: all writers of one level write the same value);
//! and [`PackedDepths`], two bits per entry holding the depth mod 3 (as Kociemba's and
//! twsearch's tables do), written with an atomic OR because four entries share a byte.
//! Both live in a memory mapping, anonymous or backed by a table file.

mod bytes;
mod packed;
mod scan;

pub use bytes::ByteDepths;
pub use packed::PackedDepths;

/// How a store encodes a depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// One byte per state: 0 unseen, `d + 1` for depth `d` (d <= 254).
    Byte,
    /// Two bits per state: 0 unseen, `d % 3 + 1` for depth `d`.
    Mod3,
    /// Four bits per entry, the first in the low half of a byte: pattern databases'
    /// small entries (never a depth table's store).
    Nibble,
}

impl Encoding {
    /// Bits per entry.
    #[must_use]
    pub fn bits(self) -> u32 {
        match self {
            Encoding::Byte => 8,
            Encoding::Mod3 => 2,
            Encoding::Nibble => 4,
        }
    }

    /// Payload bytes for `entries` entries.
    #[must_use]
    pub fn payload_bytes(self, entries: u64) -> u64 {
        match self {
            Encoding::Byte => entries,
            Encoding::Mod3 => entries.div_ceil(4),
            Encoding::Nibble => entries.div_ceil(2),
        }
    }
}

use std::ops::Range;

/// Why storage could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The operating system refused the mapping.
    #[error("cannot map {bytes} bytes of memory for the depth array: {cause}")]
    Map {
        /// Size asked for.
        bytes: u64,
        /// The system's reason.
        cause: std::io::Error,
    },
    /// The index count does not fit the address space.
    #[error("{0} entries do not fit in this machine's address space")]
    TooLarge(u64),
}

/// Which writes of a level mark their group in the recent marks
/// ([`PackedMarks::write_recent_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMarks {
    /// Every write (the marks were cleared ahead).
    Every,
    /// The writes of depth `.0` into groups that held its code already (the other
    /// groups were marked ahead: [`PackedMarks::mark_recent_ahead`]).
    WhereCodeWas(u32),
    /// None (every group the level may write was marked ahead).
    None,
}

/// Which entries a scan looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// Entries not reached yet.
    Unseen,
    /// Entries at this depth.
    Depth(u32),
}

/// Reading a depth array: what every consumer of a finished search needs (descent,
/// verification, antipodes).
pub trait DepthRead: Sync {
    /// The number of entries.
    fn len(&self) -> u64;

    /// True when there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest depth the encoding can record.
    fn max_depth(&self) -> u32;

    /// `None` if entries hold exact depths; `Some(p)` if they hold depths mod `p`.
    fn period(&self) -> Option<u32> {
        None
    }

    /// What entry `index` holds: its depth (mod the period), or `None`
    /// if unseen.
    fn value(&self, index: u64) -> Option<u32>;

    /// Whether entry `index` matches `wanted`.
    fn matches(&self, index: u64, wanted: Wanted) -> bool;

    /// The value a neighbour one level closer to the goal set holds, for a state
    /// holding `value` (exact: `value - 1`; mod p: `(value - 1) mod p`).
    fn closer(&self, value: u32) -> u32 {
        match self.period() {
            Some(p) => (value + p - 1) % p,
            None => value.wrapping_sub(1),
        }
    }
}

/// Storage of one depth per index, readable and writable from many threads at once:
/// what every store does. A store whose entries share words adds its fast paths
/// through [`PackedMarks`] ([`DepthStore::packed`]).
pub trait DepthStore: DepthRead {
    /// The store's [`PackedMarks`], or [`NoPackedMarks`] (a type without values) for a
    /// store without them.
    type Packed: PackedMarks;

    /// Records depth `depth` for entry `index`.
    fn set(&self, index: u64, depth: u32);

    /// Records depth `depth` for entry `index` if it is unseen; true if it was.
    /// Implementations may write unconditionally (branch-free), rewriting the value
    /// they read, which is safe because every writer of a level writes the same value.
    /// Of racing writers, more than one may get true, except in a store with
    /// [`PackedMarks`] (one atomic read-modify-write: exactly one does).
    fn mark_if_unseen(&self, index: u64, depth: u32) -> bool;

    /// [`DepthStore::mark_if_unseen`] without the answer, for a level counted by a
    /// scan afterwards: a store that tells the first writer can skip telling it (the
    /// packed store: one locked OR, and recent marks as [`WriteMarks`] says, out of
    /// line, so that the innermost step of a dense level stays small).
    fn mark_unseen(&self, index: u64, depth: u32);

    /// Asks for the memory of entry `index` ahead of a mark (a hint).
    fn prefetch(&self, index: u64);

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

    /// [`DepthStore::collect_exclusive`], and for every entry `i` found and every
    /// `delta` of `deltas`: marks entry `i + delta` with `next` if it is unseen (as
    /// [`DepthStore::mark_unseen`]). Returns bit `k` set if `deltas[k]` marked an
    /// entry. A top-down level marks the puzzle's translated neighbours this way
    /// ([`crate::Puzzle::translations`]); the byte store marks 64 of them per step,
    /// the packed store 256 (on levels whose writes mark nothing; else 32).
    ///
    /// # Panics
    /// If a shifted range leaves the store or overlaps `range`.
    ///
    /// # Safety
    /// As [`DepthStore::collect_exclusive`] for `range`; the shifted ranges may be
    /// written by other threads meanwhile, but only by marks of the same `next`.
    unsafe fn collect_translating_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32;

    /// The store's fast paths for entries that share words, if it has them.
    fn packed(&self) -> Option<&Self::Packed>;
}

/// The fast paths of a store whose entries share words ([`PackedDepths`]: four to a
/// byte, 32 to a word, depths mod 3). Its [`DepthStore::mark_if_unseen`] is one
/// atomic read-modify-write, so a level can count its new states as it marks them;
/// a single writer can mark without one; and *recent marks* tell a level from older
/// ones of the same code.
pub trait PackedMarks: Sync {
    /// [`DepthStore::mark_unseen`] by the only thread that writes the entry's word
    /// meanwhile (a level on one worker thread, or the thread a level gave the
    /// entry's lane to: [`crate::Puzzle::lane`]): the word is read and written back
    /// plainly, without a branch on the field. With two writers, a mark may be lost
    /// (never memory unsafe: one atomic load and one atomic store).
    fn mark_unseen_alone(&self, index: u64, depth: u32);

    /// Starts keeping *recent marks* in `generations` (1 or 2) separate sets: from
    /// now on every write also marks its entry in the generation chosen by
    /// [`PackedMarks::write_recent_to`] (generation 0 at first),
    /// [`PackedMarks::forget_recent`] clears a generation's marks of a range, and
    /// [`PackedMarks::collect_recent_exclusive`] finds only entries marked in a
    /// generation (marks may cover a few unwritten neighbours too). False if no
    /// memory is left for them. Two generations serve searches whose levels write
    /// where their frontier lies (no colour classes): each level marks in the
    /// generation its frontier does not use.
    fn track_recent(&self, generations: usize) -> bool;

    /// Makes writes mark in `generation`, as `marks` says (between levels only).
    fn write_recent_to(&self, generation: usize, marks: WriteMarks);

    /// Sets the recent marks of `generation` over `range` ahead of the level that
    /// writes `depth`, and returns how many groups hold both an unseen entry and an
    /// entry of `depth`'s code (*shared* groups; the range's end groups uncounted).
    ///
    /// Marked are the groups that hold an unseen entry and none of `depth`'s code
    /// (whatever of that code they hold after the level, the level wrote), with
    /// `shared` the groups that hold both too, and the groups `range` shares with the
    /// entries around; the rest are cleared. Without `shared`, the level's writes
    /// must mark the groups that held the code ([`WriteMarks::WhereCodeWas`]): the
    /// level then finds the frontier a mark per write gives. With `shared`, writes
    /// mark nothing ([`WriteMarks::None`]): the next scan also takes the older
    /// entries of the shared groups the level did not write to. One pass over the
    /// range in place of most (or all) scattered marks per new state, for dense
    /// levels.
    ///
    /// # Safety
    /// No other thread may write or scan any entry of `range` while this runs.
    unsafe fn mark_recent_ahead(
        &self,
        range: Range<u64>,
        generation: usize,
        depth: u32,
        shared: bool,
    ) -> u64;

    /// Clears the recent marks of `generation` over the entries of `range`.
    ///
    /// # Safety
    /// No other thread may write or scan any entry of `range` while this runs.
    unsafe fn forget_recent(&self, range: Range<u64>, generation: usize);

    /// Like [`DepthStore::collect_exclusive`], but may skip entries without a recent
    /// mark in `generation`.
    ///
    /// # Safety
    /// As [`DepthStore::collect_exclusive`].
    unsafe fn collect_recent_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        generation: usize,
        out: &mut Vec<u64>,
    );

    /// [`DepthStore::collect_translating_exclusive`] through the recent marks of
    /// `generation`, as [`PackedMarks::collect_recent_exclusive`].
    ///
    /// # Safety
    /// As [`DepthStore::collect_translating_exclusive`].
    unsafe fn collect_recent_translating_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        generation: usize,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32;
}

/// The [`DepthStore::Packed`] of a store without [`PackedMarks`]: a type without
/// values, so that none of its methods can ever be called.
#[derive(Debug)]
pub enum NoPackedMarks {}

impl PackedMarks for NoPackedMarks {
    fn mark_unseen_alone(&self, _: u64, _: u32) {
        match *self {}
    }
    fn track_recent(&self, _: usize) -> bool {
        match *self {}
    }
    fn write_recent_to(&self, _: usize, _: WriteMarks) {
        match *self {}
    }
    unsafe fn mark_recent_ahead(&self, _: Range<u64>, _: usize, _: u32, _: bool) -> u64 {
        match *self {}
    }
    unsafe fn forget_recent(&self, _: Range<u64>, _: usize) {
        match *self {}
    }
    unsafe fn collect_recent_exclusive(
        &self,
        _: Range<u64>,
        _: Wanted,
        _: usize,
        _: &mut Vec<u64>,
    ) {
        match *self {}
    }
    unsafe fn collect_recent_translating_exclusive(
        &self,
        _: Range<u64>,
        _: Wanted,
        _: usize,
        _: &[i64],
        _: u32,
        _: &mut Vec<u64>,
    ) -> u32 {
        match *self {}
    }
}

/// Marks `index + delta` with `next` where unseen, for every index and delta; bit `k`
/// of the result set if `deltas[k]` marked one.
pub(crate) fn mark_shifted<S: DepthStore + ?Sized>(
    store: &S,
    indices: &[u64],
    deltas: &[i64],
    next: u32,
) -> u32 {
    let mut hits = 0;
    for &index in indices {
        for (k, &delta) in deltas.iter().enumerate() {
            if store.mark_if_unseen(index.wrapping_add_signed(delta), next) {
                hits |= 1 << k;
            }
        }
    }
    hits
}

/// Asserts that `range` shifted by each of `deltas` lies inside `0..len` and is
/// disjoint from `range` ([`DepthStore::collect_translating_exclusive`]).
pub(crate) fn check_shifts(range: &Range<u64>, deltas: &[i64], len: u64) {
    for &delta in deltas {
        let start = range.start.checked_add_signed(delta);
        let end = range.end.checked_add_signed(delta);
        assert!(
            start.is_some_and(
                |s| end.is_some_and(|e| e <= len && (e <= range.start || s >= range.end))
            ),
            "entries {range:?} shifted by {delta} in a store of {len}"
        );
    }
}

/// A depth array of either encoding.
pub enum Depths {
    /// Exact depths, one byte each.
    Byte(ByteDepths),
    /// Depths mod 3, two bits each.
    Mod3(PackedDepths),
}

/// Runs `$body` with `$s` bound to the concrete store inside a [`Depths`].
#[macro_export]
macro_rules! with_depths {
    ($depths:expr, $s:ident => $body:expr) => {
        match $depths {
            $crate::store::Depths::Byte($s) => $body,
            $crate::store::Depths::Mod3($s) => $body,
        }
    };
}

impl Depths {
    /// A store of `encoding` over `map` (a table's payload), content kept; `None` for
    /// an encoding that is not a depth store's.
    #[must_use]
    pub fn from_map(encoding: Encoding, map: memmap2::MmapMut, entries: u64) -> Option<Depths> {
        match encoding {
            Encoding::Byte => Some(Depths::Byte(ByteDepths::from_map(map, entries))),
            Encoding::Mod3 => Some(Depths::Mod3(PackedDepths::from_map(map, entries))),
            Encoding::Nibble => None,
        }
    }

    /// A fresh (all unseen) store of `encoding` for `entries` entries in anonymous
    /// memory; `None` for an encoding that is not a depth store's.
    ///
    /// # Errors
    /// [`StoreError`] if the memory cannot be mapped.
    pub fn anonymous(encoding: Encoding, entries: u64) -> Result<Option<Depths>, StoreError> {
        Ok(match encoding {
            Encoding::Byte => Some(Depths::Byte(ByteDepths::anonymous(entries)?)),
            Encoding::Mod3 => Some(Depths::Mod3(PackedDepths::anonymous(entries)?)),
            Encoding::Nibble => None,
        })
    }

    /// The mapping behind the store, to fill it (e.g. from a file).
    pub fn map_mut(&mut self) -> &mut memmap2::MmapMut {
        match self {
            Depths::Byte(s) => s.map_mut(),
            Depths::Mod3(s) => s.map_mut(),
        }
    }

    /// The mapping behind the store.
    pub fn map(&self) -> &memmap2::MmapMut {
        match self {
            Depths::Byte(s) => s.map(),
            Depths::Mod3(s) => s.map(),
        }
    }
}
