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
/// ([`DepthStore::write_recent_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMarks {
    /// Every write (the marks were cleared ahead).
    Every,
    /// The writes of depth `.0` into groups that held its code already (the other
    /// groups were marked ahead: [`DepthStore::mark_recent_ahead`]).
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

/// Storage of one depth per index, readable and writable from many threads at once.
pub trait DepthStore: DepthRead {
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

    /// [`DepthStore::mark_if_unseen`] without the answer, for a level counted by a
    /// scan afterwards: a store that tells the first writer can skip telling it (the
    /// packed store: one locked OR, and recent marks as [`WriteMarks`] says, out of
    /// line, so that the innermost step of a dense level stays small).
    #[inline(always)]
    fn mark_unseen(&self, index: u64, depth: u32) {
        self.mark_if_unseen(index, depth);
    }

    /// [`DepthStore::mark_unseen`] by the only thread that writes the entry's byte
    /// meanwhile (a level on one worker thread, or the thread a level gave the
    /// entry's lane to: [`crate::Puzzle::lane`]): the packed store then reads and
    /// writes the byte plainly, without a branch on the field, which takes a 2-bit
    /// table of 3x4 a fifth less time than a branch and a locked OR. With two
    /// writers, a mark may be lost (never memory unsafe: one atomic load and one
    /// atomic store).
    #[inline(always)]
    fn mark_unseen_alone(&self, index: u64, depth: u32) {
        self.mark_unseen(index, depth);
    }

    /// Whether [`DepthStore::mark_unseen_alone`] saves an atomic read-modify-write
    /// that [`DepthStore::mark_unseen`] needs (entries share bytes), so that a level
    /// on several threads gains from giving each of the puzzle's lanes to one thread
    /// at a time ([`crate::Puzzle::lane`]). The default is false.
    fn marks_alone_save_atomics(&self) -> bool {
        false
    }

    /// Whether [`DepthStore::mark_if_unseen`] returns true exactly once per entry even
    /// when threads race to mark it (it reads and writes in one atomic step), so
    /// that a level can count its new states as it marks them.
    fn marks_exactly_once(&self) -> bool {
        false
    }

    /// Appends to `out` the indices in `range` that match `wanted`, ascending.
    ///
    /// # Safety
    /// No other thread may write any entry of `range` while this runs (the scan reads
    /// without atomics so that it runs at memory speed).
    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>);

    /// Asks for the memory of entry `index` ahead of a mark (a hint; the default does
    /// nothing).
    #[inline(always)]
    fn prefetch(&self, index: u64) {
        let _ = index;
    }

    /// [`DepthStore::collect_exclusive`] (with `recent`, as
    /// [`DepthStore::collect_recent_exclusive`] through that generation), and for every
    /// entry `i` found and every `delta` of `deltas`: marks entry `i + delta` with
    /// `next` if it is unseen (as [`DepthStore::mark_unseen`]). Returns bit
    /// `k` set if `deltas[k]` marked an entry. A top-down level marks the puzzle's
    /// translated neighbours this way ([`crate::Puzzle::translations`]); the byte store
    /// marks 64 of them per step, the packed store 256 (on levels whose writes mark
    /// nothing; else 32).
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
        recent: Option<usize>,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32 {
        check_shifts(&range, deltas, self.len());
        let first = out.len();
        // SAFETY: forwarded from this function's contract.
        unsafe {
            match recent {
                Some(generation) => self.collect_recent_exclusive(range, wanted, generation, out),
                None => self.collect_exclusive(range, wanted, out),
            }
        };
        mark_shifted(self, &out[first..], deltas, next)
    }

    /// The number of entries in `range` that match `wanted`.
    ///
    /// # Safety
    /// No other thread may write any entry of `range` while this runs.
    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64;

    /// Starts keeping *recent marks* in `generations` (1 or 2) separate sets: from
    /// now on every write also marks its entry in the generation chosen by
    /// [`DepthStore::write_recent_to`] (generation 0 at first),
    /// [`DepthStore::forget_recent`] clears a generation's marks of a range, and
    /// [`DepthStore::collect_recent_exclusive`] finds only entries marked in a
    /// generation (marks may cover a few unwritten neighbours too). For stores whose
    /// codes do not tell a level from older ones ([`PackedDepths`]); false if the store
    /// keeps no marks. Two generations serve searches whose levels write where their
    /// frontier lies (no colour classes): each level marks in the generation its
    /// frontier does not use.
    fn track_recent(&self, _generations: usize) -> bool {
        false
    }

    /// Makes writes mark in `generation`, as `marks` says (between levels only).
    fn write_recent_to(&self, _generation: usize, _marks: WriteMarks) {}

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
    /// levels (a no-op without tracking).
    ///
    /// # Safety
    /// No other thread may write or scan any entry of `range` while this runs.
    unsafe fn mark_recent_ahead(
        &self,
        _range: Range<u64>,
        _generation: usize,
        _depth: u32,
        _shared: bool,
    ) -> u64 {
        0
    }

    /// Clears the recent marks of `generation` over the entries of `range` (a no-op
    /// without tracking).
    ///
    /// # Safety
    /// No other thread may write or scan any entry of `range` while this runs.
    unsafe fn forget_recent(&self, _range: Range<u64>, _generation: usize) {}

    /// Like [`DepthStore::collect_exclusive`], but may skip entries without a recent
    /// mark in `generation` (without tracking it finds them all).
    ///
    /// # Safety
    /// As [`DepthStore::collect_exclusive`].
    unsafe fn collect_recent_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        _generation: usize,
        out: &mut Vec<u64>,
    ) {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.collect_exclusive(range, wanted, out) }
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
