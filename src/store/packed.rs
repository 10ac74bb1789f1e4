//! Two bits per entry: 0 for unseen, `d % 3 + 1` for depth `d`.
//!
//! Entry `i` is bits `2 * (i % 4)` and up of byte `i / 4`. Three residues suffice for
//! a BFS: a state's neighbours lie one level closer, on its level or one farther, so
//! "depth d" and "depth d - 3" never have to be told apart while level `d + 1` is
//! computed; exact distances come back by descending to the goal.

use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use memmap2::MmapMut;

use super::{DepthRead, DepthStore, StoreError, Wanted};

const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// Depths mod 3, four entries per byte, in a memory mapping.
///
/// Depth `d` and depth `d + 3` share a code (and on a bipartite graph, `d` and `d + 6`
/// share a colour class too), so a scan for the frontier also finds every older level
/// of the same code. Once [`DepthStore::track_recent`] is called, the store also keeps
/// one *recent* bit per byte (per group of four entries) in each of one or two
/// generations, set by every write in the generation chosen by
/// [`DepthStore::write_recent_to`]: a scan through
/// [`DepthStore::collect_recent_exclusive`] then skips the groups the newest level did
/// not write, which older levels fill more and more as a search goes on.
pub struct PackedDepths {
    map: MmapMut,
    len: u64,
    /// Per generation, bit `g % 8` of byte `g / 8`: group `g` (entries `4g..4g+4`) was
    /// written in that generation since its bits were last forgotten.
    recent: OnceLock<Recent>,
    /// The byte offset in the recent map of the generation writes mark.
    write_offset: AtomicU64,
}

/// The recent marks: `generations` bit sets of `generation_bytes` bytes, one after the
/// other.
struct Recent {
    map: MmapMut,
    generation_bytes: u64,
    generations: usize,
}

impl Recent {
    /// The byte offset of `generation`'s bits.
    fn offset(&self, generation: usize) -> u64 {
        assert!(
            generation < self.generations,
            "no recent generation {generation}"
        );
        generation as u64 * self.generation_bytes
    }
}

/// `SPREAD[h]`: byte `k` is `0x55` (the low bits of its four fields) where bit `k` of
/// `h` is set, 0 elsewhere.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut h = 0;
    while h < 256 {
        let mut k = 0;
        while k < 8 {
            if h & (1 << k) != 0 {
                table[h] |= 0x55 << (8 * k);
            }
            k += 1;
        }
        h += 1;
    }
    table
};

#[inline(always)]
fn code(wanted: Wanted) -> u8 {
    match wanted {
        Wanted::Unseen => 0,
        Wanted::Depth(d) => (d % 3) as u8 + 1,
    }
}

impl PackedDepths {
    /// A zero-filled (all unseen) array of `len` entries.
    ///
    /// # Errors
    /// [`StoreError`] if the memory cannot be mapped.
    pub fn anonymous(len: u64) -> Result<Self, StoreError> {
        let bytes = usize::try_from(len.div_ceil(4)).map_err(|_| StoreError::TooLarge(len))?;
        let mut map = MmapMut::map_anon(bytes.max(1))
            .map_err(|cause| StoreError::Map { bytes: len, cause })?;
        super::bytes::prepare_fresh_pages(&mut map);
        Ok(PackedDepths {
            map,
            len,
            recent: OnceLock::new(),
            write_offset: AtomicU64::new(0),
        })
    }

    /// Entries in an existing mapping of at least `len / 4` bytes, content kept.
    #[must_use]
    pub fn from_map(map: MmapMut, len: u64) -> PackedDepths {
        assert!(
            map.len() as u64 >= len.div_ceil(4),
            "mapping smaller than the entries"
        );
        PackedDepths {
            map,
            len,
            recent: OnceLock::new(),
            write_offset: AtomicU64::new(0),
        }
    }

    /// The mapping, e.g. to flush it to its file.
    pub fn map(&self) -> &MmapMut {
        &self.map
    }

    /// The mapping, to fill it.
    pub fn map_mut(&mut self) -> &mut MmapMut {
        &mut self.map
    }

    #[inline(always)]
    fn byte(&self, index: u64) -> &AtomicU8 {
        // Checked in every build: the store's methods are safe to call with any index.
        assert!(index < self.len, "entry {index} of {}", self.len);
        // SAFETY: `index / 4 < len.div_ceil(4) <= map.len()`; `AtomicU8` has the layout
        // of `u8`; concurrent accesses are atomic except the `*_exclusive` scans, whose
        // callers guarantee that nobody writes meanwhile.
        unsafe { AtomicU8::from_ptr(self.map.as_ptr().add((index / 4) as usize) as *mut u8) }
    }

    /// The recent-bit byte `at` of the generation at byte `offset` (covering entries
    /// `32 * at .. 32 * at + 32`).
    #[inline(always)]
    fn recent_byte(recent: &Recent, offset: u64, at: u64) -> &AtomicU8 {
        assert!(at < recent.generation_bytes && offset.is_multiple_of(recent.generation_bytes));
        // SAFETY: each generation holds one byte per 32 entries (rounded up), so `at` is
        // inside it for any entry index, and `offset` is the start of a generation of
        // the map (`Recent::offset`, or `write_offset`, which only `write_recent_to`
        // sets, from `Recent::offset`); every access to it is atomic except
        // `forget_recent`, whose caller guarantees that nobody else uses those bytes.
        unsafe { AtomicU8::from_ptr(recent.map.as_ptr().add((offset + at) as usize) as *mut u8) }
    }

    #[inline(always)]
    fn mark_recent(&self, index: u64) {
        if let Some(recent) = self.recent.get() {
            let offset = self.write_offset.load(Ordering::Relaxed);
            let byte = Self::recent_byte(recent, offset, index / 32);
            let bit = 1u8 << ((index / 4) % 8);
            // Test first: most writes land in a group that is marked already.
            if byte.load(Ordering::Relaxed) & bit == 0 {
                byte.fetch_or(bit, Ordering::Relaxed);
            }
        }
    }

    /// Whether the recent bit of entry `index`'s group is set in the generation at
    /// byte `offset` (true without tracking).
    #[inline(always)]
    fn is_recent(recent: Option<(&Recent, u64)>, index: u64) -> bool {
        recent.is_none_or(|(r, offset)| {
            Self::recent_byte(r, offset, index / 32).load(Ordering::Relaxed) >> ((index / 4) % 8)
                & 1
                != 0
        })
    }

    #[inline(always)]
    fn field(&self, index: u64) -> u8 {
        (self.byte(index).load(Ordering::Relaxed) >> (2 * (index % 4))) & 3
    }

    /// Calls `found(index)` for every index in `range` whose field equals `value` (and,
    /// with `recent`, whose group's recent bit is set in the generation at that offset).
    ///
    /// # Safety
    /// No thread may write the bytes of `range` meanwhile.
    unsafe fn scan(
        &self,
        range: Range<u64>,
        value: u8,
        recent: Option<(&Recent, u64)>,
        mut found: impl FnMut(u64, u64),
    ) {
        assert!(range.end <= self.len, "entries {range:?} of {}", self.len);
        let (start, end) = (range.start, range.end);
        let mut i = start;
        // Entries before the first whole 32-entry word, one by one.
        while i < end && (i % 32 != 0) {
            if self.field(i) == value && Self::is_recent(recent, i) {
                found(i, 1);
            }
            i += 1;
        }
        // The whole 32-entry words of the range: bytes `i / 4 .. words_end / 4`, which
        // hold entries of `range` only.
        let words_end = i + (end.saturating_sub(i) / 32) * 32;
        let first_byte = (i / 4) as usize;
        // SAFETY: `words_end <= end <= len`, so the bytes lie inside the mapping; they
        // hold entries of `range` only, which the caller guarantees nobody writes.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                self.map.as_ptr().add(first_byte),
                ((words_end - i) / 4) as usize,
            )
        };
        let pattern = value as u64 * LOW_BITS;
        while i + 32 <= end {
            let filter = match recent {
                None => LOW_BITS,
                Some((r, offset)) => {
                    match Self::recent_byte(r, offset, i / 32).load(Ordering::Relaxed) {
                        0 => {
                            i += 32;
                            continue;
                        }
                        h => SPREAD[h as usize],
                    }
                }
            };
            let at = (i / 4) as usize - first_byte;
            let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
            let x = word ^ pattern;
            let mut hits = !(x | (x >> 1)) & filter;
            while hits != 0 {
                found(i + hits.trailing_zeros() as u64 / 2, 1);
                hits &= hits - 1;
            }
            i += 32;
        }
        while i < end {
            if self.field(i) == value && Self::is_recent(recent, i) {
                found(i, 1);
            }
            i += 1;
        }
    }
}

impl DepthRead for PackedDepths {
    fn len(&self) -> u64 {
        self.len
    }

    fn max_depth(&self) -> u32 {
        u32::MAX - 1
    }

    fn period(&self) -> Option<u32> {
        Some(3)
    }

    fn value(&self, index: u64) -> Option<u32> {
        match self.field(index) {
            0 => None,
            f => Some(f as u32 - 1),
        }
    }

    #[inline(always)]
    fn matches(&self, index: u64, wanted: Wanted) -> bool {
        self.field(index) == code(wanted)
    }
}

impl DepthStore for PackedDepths {
    #[inline(always)]
    fn set(&self, index: u64, depth: u32) {
        // The engine only sets unseen (zero) fields, so OR-ing the code is exact, and
        // racing writers of one level OR the same bits.
        self.byte(index).fetch_or(
            code(Wanted::Depth(depth)) << (2 * (index % 4)),
            Ordering::Relaxed,
        );
        self.mark_recent(index);
    }

    #[inline(always)]
    fn mark_if_unseen(&self, index: u64, depth: u32) -> bool {
        if self.field(index) != 0 {
            return false;
        }
        // The OR returns the byte as it was: of racing writers, only the first finds
        // the field empty.
        let shift = 2 * (index % 4);
        let old = self
            .byte(index)
            .fetch_or(code(Wanted::Depth(depth)) << shift, Ordering::Relaxed);
        self.mark_recent(index);
        (old >> shift) & 3 == 0
    }

    fn marks_exactly_once(&self) -> bool {
        true
    }

    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>) {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, code(wanted), None, |i, _| out.push(i)) };
    }

    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64 {
        let mut count = 0;
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, code(wanted), None, |_, n| count += n) };
        count
    }

    fn track_recent(&self, generations: usize) -> bool {
        let generations = generations.max(1);
        if self.recent.get().is_none() {
            let generation_bytes = self.len.div_ceil(32).max(1);
            let Ok(bytes) = usize::try_from(generation_bytes * generations as u64) else {
                return false;
            };
            let Ok(mut map) = MmapMut::map_anon(bytes) else {
                return false;
            };
            super::bytes::prepare_fresh_pages(&mut map);
            let _ = self.recent.set(Recent {
                map,
                generation_bytes,
                generations,
            });
        }
        self.recent
            .get()
            .is_some_and(|r| r.generations >= generations)
    }

    fn write_recent_to(&self, generation: usize) {
        if let Some(recent) = self.recent.get() {
            self.write_offset
                .store(recent.offset(generation), Ordering::Relaxed);
        }
    }

    unsafe fn forget_recent(&self, range: Range<u64>, generation: usize) {
        let Some(recent) = self.recent.get() else {
            return;
        };
        assert!(range.end <= self.len, "entries {range:?} of {}", self.len);
        let offset = recent.offset(generation);
        // Only the groups that lie wholly inside `range`: a group shared with a
        // neighbouring range keeps its bit, which only costs a few extra candidates.
        let (first, last) = (range.start.div_ceil(4), range.end / 4);
        let mut g = first;
        while g < last && g % 8 != 0 {
            Self::recent_byte(recent, offset, g / 8).fetch_and(!(1 << (g % 8)), Ordering::Relaxed);
            g += 1;
        }
        let whole_end = g + (last.saturating_sub(g) / 8) * 8;
        if whole_end > g {
            // SAFETY: bytes `g / 8 .. whole_end / 8` of the generation lie inside the
            // recent map and hold groups of `range` only, which the caller guarantees
            // nobody else uses.
            unsafe {
                std::ptr::write_bytes(
                    recent.map.as_ptr().add((offset + g / 8) as usize) as *mut u8,
                    0,
                    ((whole_end - g) / 8) as usize,
                )
            };
        }
        for g in whole_end..last {
            Self::recent_byte(recent, offset, g / 8).fetch_and(!(1 << (g % 8)), Ordering::Relaxed);
        }
    }

    unsafe fn collect_recent_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        generation: usize,
        out: &mut Vec<u64>,
    ) {
        let recent = self.recent.get().map(|r| (r, r.offset(generation)));
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, code(wanted), recent, |i, _| out.push(i)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trait's translating scan (one mark at a time) on a store that does not
    /// override it.
    #[test]
    fn a_translating_scan_marks_the_shifted_unseen_entries() {
        let store = PackedDepths::anonymous(300).unwrap();
        store.set(10, 4);
        store.set(40, 4);
        store.set(41, 2);
        store.set(140, 0);
        let mut out = Vec::new();
        // SAFETY: single-threaded test.
        let hits = unsafe {
            store.collect_translating_exclusive(0..100, Wanted::Depth(4), &[100, 200], 5, &mut out)
        };
        assert_eq!(out, [10, 40]);
        assert_eq!(hits, 0b11);
        assert_eq!(store.value(110), Some(5 % 3));
        assert_eq!(store.value(140), Some(0), "a seen entry keeps its depth");
        assert_eq!((store.value(210), store.value(240)), (Some(2), Some(2)));
        assert_eq!(store.value(141), None);
    }

    /// An entry beyond the store is a panic, never a write outside its memory (the
    /// mapping is rounded up to a page, so an unchecked write would land silently).
    #[test]
    #[should_panic(expected = "entry 203 of 203")]
    fn an_entry_beyond_the_store_panics() {
        let store = PackedDepths::anonymous(203).unwrap();
        store.set(203, 1);
    }

    #[test]
    fn fields_do_not_overlap() {
        let store = PackedDepths::anonymous(203).unwrap();
        for i in (0..203).step_by(3) {
            store.set(i, (i % 7) as u32);
        }
        for i in 0..203u64 {
            let expected = (i % 3 == 0).then_some((i % 7) as u32 % 3);
            assert_eq!(store.value(i), expected, "{i}");
        }
        let mut out = Vec::new();
        // SAFETY: single-threaded test.
        unsafe { store.collect_exclusive(5..203, Wanted::Depth(4), &mut out) };
        let expected: Vec<u64> = (5..203)
            .filter(|&i| i % 3 == 0 && (i % 7) % 3 == 1)
            .collect();
        assert_eq!(out, expected);
        // SAFETY: single-threaded test.
        let unseen = unsafe { store.count_exclusive(1..200, Wanted::Unseen) };
        assert_eq!(unseen, (1..200).filter(|i| i % 3 != 0).count() as u64);
    }

    /// Recent marks let a scan tell a level from older ones with its code; forgetting
    /// clears only the groups wholly inside the range.
    #[test]
    fn recent_marks_separate_the_newest_level() {
        let store = PackedDepths::anonymous(1000).unwrap();
        for i in (0..1000).step_by(7) {
            store.set(i, 1);
        }
        assert!(store.track_recent(1));
        // SAFETY: single-threaded test.
        unsafe { store.forget_recent(0..1000, 0) };
        let newer: Vec<u64> = (3..1000).step_by(50).collect();
        for &i in &newer {
            store.set(i, 4);
        }
        let (mut all, mut recent) = (Vec::new(), Vec::new());
        // SAFETY: single-threaded test.
        unsafe {
            store.collect_exclusive(1..999, Wanted::Depth(4), &mut all);
            store.collect_recent_exclusive(1..999, Wanted::Depth(4), 0, &mut recent);
        }
        assert!(all.len() > recent.len());
        // Marks cover groups of four: an older entry of the same code in a marked group
        // may come along, nothing else.
        let expected: Vec<u64> = all
            .iter()
            .copied()
            .filter(|&i| newer.iter().any(|&n| n / 4 == i / 4))
            .collect();
        assert_eq!(recent, expected);
        // A range that starts and ends inside groups keeps those groups' marks.
        // SAFETY: single-threaded test.
        unsafe { store.forget_recent(2..102, 0) };
        recent.clear();
        // SAFETY: single-threaded test.
        unsafe { store.collect_recent_exclusive(0..1000, Wanted::Depth(4), 0, &mut recent) };
        assert!(recent.contains(&103) && recent.contains(&3) && !recent.contains(&53));
    }

    /// With two generations, writes mark the generation chosen last, and each
    /// generation is scanned and forgotten on its own.
    #[test]
    fn recent_generations_stay_apart() {
        let store = PackedDepths::anonymous(1000).unwrap();
        assert!(store.track_recent(2));
        store.write_recent_to(1);
        for i in (0..1000).step_by(40) {
            store.set(i, 4);
        }
        store.write_recent_to(0);
        for i in (20..1000).step_by(40) {
            store.set(i, 7);
        }
        let found = |generation| {
            let mut out = Vec::new();
            // SAFETY: single-threaded test.
            unsafe {
                store.collect_recent_exclusive(0..1000, Wanted::Depth(1), generation, &mut out)
            };
            out
        };
        assert_eq!(found(1), (0..1000).step_by(40).collect::<Vec<u64>>());
        assert_eq!(found(0), (20..1000).step_by(40).collect::<Vec<u64>>());
        // SAFETY: single-threaded test.
        unsafe { store.forget_recent(0..1000, 1) };
        assert!(found(1).is_empty());
        assert_eq!(found(0).len(), 25);
    }
}
