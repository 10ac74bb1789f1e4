//! Two bits per entry: 0 for unseen, `d % 3 + 1` for depth `d`.
//!
//! Entry `i` is bits `2 * (i % 4)` and up of byte `i / 4`. Three residues suffice for
//! a BFS: a state's neighbours lie one level closer, on its level or one farther, so
//! "depth d" and "depth d - 3" never have to be told apart while level `d + 1` is
//! computed; exact distances come back by descending to the goal.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use memmap2::MmapMut;

use super::{DepthRead, DepthStore, StoreError, Wanted};

const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// Depths mod 3, four entries per byte, in a memory mapping.
pub struct PackedDepths {
    map: MmapMut,
    len: u64,
}

#[inline(always)]
fn code(wanted: Wanted) -> u8 {
    match wanted {
        Wanted::Unseen => 0,
        Wanted::Depth(d) => (d % 3) as u8 + 1,
    }
}

impl PackedDepths {
    /// A zero-filled (all unseen) array of `len` entries.
    pub fn anonymous(len: u64) -> Result<Self, StoreError> {
        let bytes = usize::try_from(len.div_ceil(4)).map_err(|_| StoreError::TooLarge(len))?;
        let mut map = MmapMut::map_anon(bytes.max(1))
            .map_err(|cause| StoreError::Map { bytes: len, cause })?;
        super::bytes::prepare_fresh_pages(&mut map);
        Ok(PackedDepths { map, len })
    }

    /// Entries in an existing mapping of at least `len / 4` bytes, content kept.
    pub fn from_map(map: MmapMut, len: u64) -> PackedDepths {
        assert!(
            map.len() as u64 >= len.div_ceil(4),
            "mapping smaller than the entries"
        );
        PackedDepths { map, len }
    }

    /// The mapping, e.g. to flush it to its file.
    pub fn map(&self) -> &MmapMut {
        &self.map
    }

    #[inline(always)]
    fn byte(&self, index: u64) -> &AtomicU8 {
        debug_assert!(index < self.len);
        // SAFETY: `index / 4 < len.div_ceil(4) <= map.len()`; `AtomicU8` has the layout
        // of `u8`; concurrent accesses are atomic except the `*_exclusive` scans, whose
        // callers guarantee that nobody writes meanwhile.
        unsafe { AtomicU8::from_ptr(self.map.as_ptr().add((index / 4) as usize) as *mut u8) }
    }

    #[inline(always)]
    fn field(&self, index: u64) -> u8 {
        (self.byte(index).load(Ordering::Relaxed) >> (2 * (index % 4))) & 3
    }

    /// Calls `found(index)` for every index in `range` whose field equals `value`.
    ///
    /// # Safety
    /// No thread may write the bytes of `range` meanwhile.
    unsafe fn scan(&self, range: Range<u64>, value: u8, mut found: impl FnMut(u64, u64)) {
        let (start, end) = (range.start, range.end);
        let mut i = start;
        // Entries before the first whole 32-entry word, one by one.
        while i < end && (i % 32 != 0) {
            if self.field(i) == value {
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
            let at = (i / 4) as usize - first_byte;
            let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
            let x = word ^ pattern;
            let mut hits = !(x | (x >> 1)) & LOW_BITS;
            while hits != 0 {
                found(i + hits.trailing_zeros() as u64 / 2, 1);
                hits &= hits - 1;
            }
            i += 32;
        }
        while i < end {
            if self.field(i) == value {
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
    }

    #[inline(always)]
    fn mark_if_unseen(&self, index: u64, depth: u32) -> bool {
        let unseen = self.field(index) == 0;
        if unseen {
            self.set(index, depth);
        }
        unseen
    }

    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>) {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, code(wanted), |i, _| out.push(i)) };
    }

    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64 {
        let mut count = 0;
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, code(wanted), |_, n| count += n) };
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
