//! One byte per entry: exact depths 0..=254, byte 0 meaning "not reached yet".
//!
//! Byte 0 for unseen lets a fresh anonymous mapping (zero-filled by the kernel) start
//! the search with no initialisation pass; depth `d` is stored as `d + 1`.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use memmap2::MmapMut;
use rayon::prelude::*;

use super::{DepthRead, DepthStore, StoreError, Wanted, scan};

/// Exact depths, one byte per index, in an anonymous memory mapping.
pub struct ByteDepths {
    map: MmapMut,
    len: u64,
}

impl ByteDepths {
    /// A zero-filled (all unseen) array of `len` entries. Pages are only committed when
    /// first written.
    ///
    /// # Errors
    /// [`StoreError`] if the memory cannot be mapped.
    pub fn anonymous(len: u64) -> Result<Self, StoreError> {
        let bytes = usize::try_from(len).map_err(|_| StoreError::TooLarge(len))?;
        let mut map = MmapMut::map_anon(bytes.max(1))
            .map_err(|cause| StoreError::Map { bytes: len, cause })?;
        prepare_fresh_pages(&mut map);
        Ok(ByteDepths { map, len })
    }

    /// Entries in an existing mapping of at least `len` bytes (e.g. a table file's
    /// payload), whose content is kept.
    #[must_use]
    pub fn from_map(map: MmapMut, len: u64) -> ByteDepths {
        assert!(map.len() as u64 >= len, "mapping smaller than the entries");
        ByteDepths { map, len }
    }

    /// The mapping, e.g. to flush it to its file.
    #[must_use]
    pub fn map(&self) -> &MmapMut {
        &self.map
    }

    /// The mapping, to fill it.
    pub fn map_mut(&mut self) -> &mut MmapMut {
        &mut self.map
    }

    /// The depth of entry `index`, or `None` if it was never reached.
    #[must_use]
    pub fn depth(&self, index: u64) -> Option<u32> {
        match self.cell(index).load(Ordering::Relaxed) {
            0 => None,
            byte => Some(byte as u32 - 1),
        }
    }

    /// The raw bytes (`depth + 1`, or 0 for unseen), e.g. to write them to a file.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.map[..self.len as usize]
    }

    #[inline(always)]
    fn cell(&self, index: u64) -> &AtomicU8 {
        // Checked in every build: the store's methods are safe to call with any index.
        assert!(index < self.len, "entry {index} of {}", self.len);
        // SAFETY: `index < len` and the mapping holds `len` bytes; `AtomicU8` has the size
        // and alignment of `u8`, and every concurrent access to the bytes goes through
        // atomics except the `*_exclusive` scans, whose callers guarantee no writer.
        unsafe { AtomicU8::from_ptr(self.map.as_ptr().add(index as usize) as *mut u8) }
    }

    /// The bytes of `range` as a plain slice.
    ///
    /// # Safety
    /// No thread may write to `range` while the slice lives.
    #[inline]
    unsafe fn plain(&self, range: Range<u64>) -> &[u8] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "entries {range:?} of {}",
            self.len
        );
        // SAFETY: in bounds (checked above); the caller guarantees that nobody writes
        // these bytes meanwhile.
        unsafe {
            std::slice::from_raw_parts(
                self.map.as_ptr().add(range.start as usize),
                (range.end - range.start) as usize,
            )
        }
    }
}

/// Asks for transparent huge pages (fewer TLB misses on scattered accesses) and commits
/// the pages of a fresh (all-zero) anonymous mapping up front, in parallel: a first
/// write to a page the search has only read so far costs a copy-on-write fault and a
/// TLB shootdown across cores. Writing 0 keeps a fresh mapping's content.
pub(super) fn prepare_fresh_pages(map: &mut MmapMut) {
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    const PAGE: usize = 4096;
    map.par_chunks_mut(PAGE)
        .with_min_len(512)
        .for_each(|page| page[0] = 0);
}

#[inline(always)]
fn encoded(wanted: Wanted) -> u8 {
    match wanted {
        Wanted::Unseen => 0,
        Wanted::Depth(d) => d as u8 + 1,
    }
}

impl DepthRead for ByteDepths {
    fn len(&self) -> u64 {
        self.len
    }

    fn max_depth(&self) -> u32 {
        254
    }

    fn value(&self, index: u64) -> Option<u32> {
        self.depth(index)
    }

    #[inline(always)]
    fn matches(&self, index: u64, wanted: Wanted) -> bool {
        self.cell(index).load(Ordering::Relaxed) == encoded(wanted)
    }
}

impl DepthStore for ByteDepths {
    #[inline(always)]
    fn set(&self, index: u64, depth: u32) {
        self.cell(index).store(depth as u8 + 1, Ordering::Relaxed);
    }

    #[inline(always)]
    fn mark_if_unseen(&self, index: u64, depth: u32) -> bool {
        let cell = self.cell(index);
        let old = cell.load(Ordering::Relaxed);
        let unseen = old == 0;
        cell.store(
            if unseen { depth as u8 + 1 } else { old },
            Ordering::Relaxed,
        );
        unseen
    }

    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>) {
        let start = range.start;
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { self.plain(range) };
        scan::find_equal(bytes, encoded(wanted), start, out);
    }

    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64 {
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { self.plain(range) };
        scan::count_equal(bytes, encoded(wanted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry beyond the store is a panic, never a write outside its memory (the
    /// mapping is rounded up to a page, so an unchecked write would land silently).
    #[test]
    #[should_panic(expected = "entry 200 of 200")]
    fn an_entry_beyond_the_store_panics() {
        let store = ByteDepths::anonymous(200).unwrap();
        store.set(200, 1);
    }

    #[test]
    fn set_match_collect_count() {
        let store = ByteDepths::anonymous(200).unwrap();
        store.set(3, 0);
        store.set(70, 5);
        store.set(130, 5);
        assert!(store.matches(3, Wanted::Depth(0)));
        assert!(store.matches(4, Wanted::Unseen));
        let mut out = Vec::new();
        // SAFETY: single-threaded test.
        unsafe { store.collect_exclusive(0..200, Wanted::Depth(5), &mut out) };
        assert_eq!(out, vec![70, 130]);
        // SAFETY: single-threaded test.
        let unseen = unsafe { store.count_exclusive(0..200, Wanted::Unseen) };
        assert_eq!(unseen, 197);
    }
}
