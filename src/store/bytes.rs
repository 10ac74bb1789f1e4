//! One byte per entry: exact depths 0..=254, byte 0 meaning "not reached yet".
//!
//! Byte 0 for unseen lets a fresh anonymous mapping (zero-filled by the kernel) start
//! the search with no initialisation pass; depth `d` is stored as `d + 1`.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use memmap2::MmapMut;
use rayon::prelude::*;

use super::{DepthRead, DepthStore, NoPackedMarks, StoreError, Wanted, scan};

/// Exact depths, one byte per index, in an anonymous memory mapping.
pub struct ByteDepths {
    map: MmapMut,
    len: u64,
    /// The AVX-512 path of the translating scan, where the CPU has it (tests turn it
    /// off to run the portable path on the same machine).
    #[cfg(target_arch = "x86_64")]
    avx512: Option<crate::cpu::Avx512>,
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
        Ok(ByteDepths::from_map(map, len))
    }

    /// Entries in an existing mapping of at least `len` bytes (e.g. a table file's
    /// payload), whose content is kept.
    #[must_use]
    pub fn from_map(map: MmapMut, len: u64) -> ByteDepths {
        assert!(map.len() as u64 >= len, "mapping smaller than the entries");
        ByteDepths {
            map,
            len,
            #[cfg(target_arch = "x86_64")]
            avx512: crate::cpu::Avx512::detect(),
        }
    }

    /// The same store with its portable paths only (tests run every path this way).
    #[cfg(test)]
    fn portable(mut self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            self.avx512 = None;
        }
        self
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
    type Packed = NoPackedMarks;

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

    #[inline(always)]
    fn mark_unseen(&self, index: u64, depth: u32) {
        self.mark_if_unseen(index, depth);
    }

    fn packed(&self) -> Option<&NoPackedMarks> {
        None
    }

    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>) {
        let start = range.start;
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { self.plain(range) };
        scan::find_equal(bytes, encoded(wanted), start, out);
    }

    #[inline(always)]
    fn prefetch(&self, index: u64) {
        if index < self.len {
            crate::cpu::prefetch(self.cell(index));
        }
    }

    unsafe fn collect_translating_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32 {
        super::check_shifts(&range, deltas, self.len);
        let mut hits = 0;
        let mut start = range.start;
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = self.avx512 {
            let groups = (range.end - range.start) / 64 * 64;
            // SAFETY: the token proves the CPU features; the range and its shifts lie
            // inside the mapping (checked above); the caller guarantees that nobody
            // writes `range`, and that the shifted ranges see only marks of `next`.
            hits = unsafe {
                translate_avx512(
                    avx512,
                    self.map.as_ptr().cast_mut(),
                    range.start..range.start + groups,
                    encoded(wanted),
                    deltas,
                    encoded(Wanted::Depth(next)),
                    out,
                )
            };
            start += groups;
        }
        let rest = out.len();
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { self.plain(start..range.end) };
        scan::find_equal(bytes, encoded(wanted), start, out);
        hits | super::mark_shifted(self, &out[rest..], deltas, next)
    }

    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64 {
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { self.plain(range) };
        scan::count_equal(bytes, encoded(wanted))
    }
}

/// The groups of 64 entries of `range` (a whole number of them): pushes the indices
/// of the bytes equal to `wanted` to `out` and, for each delta, sets the bytes at those
/// positions shifted by delta to `next` where they are 0, 64 at a time. Returns bit k
/// set if `deltas[k]` set a byte.
///
/// # Safety
/// `base` points to a mapping holding `range` and every shift of it; nobody writes
/// `range` meanwhile; the shifted ranges change meanwhile only from 0 to `next`
/// (marks of the same level by other threads).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
unsafe fn translate_avx512(
    _: crate::cpu::Avx512,
    base: *mut u8,
    range: Range<u64>,
    wanted: u8,
    deltas: &[i64],
    next: u8,
    out: &mut Vec<u64>,
) -> u32 {
    use std::arch::x86_64::{_mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8};
    let wanted = _mm512_set1_epi8(wanted as i8);
    let next = _mm512_set1_epi8(next as i8);
    let mut hits = 0u32;
    let mut at = range.start;
    while at < range.end {
        // SAFETY: inside `range`, which nobody writes (the caller's contract): a plain
        // load.
        let group = unsafe { _mm512_loadu_si512(base.add(at as usize).cast()) };
        let mask = _mm512_cmpeq_epi8_mask(group, wanted);
        if mask != 0 {
            scan::push_mask(mask, at, out);
            for (k, &delta) in deltas.iter().enumerate() {
                let marked: u64;
                // SAFETY: the 64 bytes at `target` lie inside the mapping (the caller's
                // contract). Other threads may mark them meanwhile, each byte through
                // its own `AtomicU8`. No atomic type expresses a 64-byte masked store,
                // so the block is in assembly, and it does what 64 relaxed
                // `AtomicU8::load`s and a relaxed `AtomicU8::store` per marked byte do:
                // a byte is the smallest unit memory is accessed in, so a vector load
                // or masked store is one access per byte (none can tear), of the same
                // size as every other access to these bytes, with no order among them
                // (relaxed asks for none). A byte another thread marks between the
                // load and the store gets the same value twice: every writer of the
                // shifted range writes `next` into unseen bytes only.
                unsafe {
                    let target = base.add(at.wrapping_add_signed(delta) as usize);
                    std::arch::asm!(
                        "vmovdqu8 {seen}, zmmword ptr [{target}]",
                        "vptestnmb {marked} {{{mask}}}, {seen}, {seen}",
                        "vmovdqu8 zmmword ptr [{target}] {{{marked}}}, {next}",
                        target = in(reg) target,
                        mask = in(kreg) mask,
                        next = in(zmm_reg) next,
                        seen = out(zmm_reg) _,
                        marked = out(kreg) marked,
                        options(nostack, preserves_flags),
                    );
                }
                if marked != 0 {
                    hits |= 1 << k;
                }
            }
        }
        at += 64;
    }
    hits
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

    proptest::proptest! {
        /// The translating scan finds and marks what a plain loop over the same bytes
        /// does, on every path this CPU has (the AVX-512 one, 64 bytes at a time,
        /// takes every whole group of 64 of a range: ranges of at least 64 reach it
        /// every time; the portable one, a mark per found entry).
        #[test]
        fn a_translating_scan_is_a_plain_loop(
            bytes in proptest::collection::vec(0u8..4, 1500),
            start in 500u64..700,
            len in 0u64..=300,
            which in 0usize..4,
            next in 0u32..254,
        ) {
            let deltas: &[i64] = [&[-500][..], &[500], &[-500, 500], &[]][which];
            let range = start..start + len;
            let mut expected_bytes = bytes.clone();
            let mut expected_hits = 0;
            let found: Vec<u64> = range.clone().filter(|&i| bytes[i as usize] == 2).collect();
            for &i in &found {
                for (k, &delta) in deltas.iter().enumerate() {
                    let target = &mut expected_bytes[i.wrapping_add_signed(delta) as usize];
                    if *target == 0 {
                        *target = next as u8 + 1;
                        expected_hits |= 1 << k;
                    }
                }
            }
            let fast = ByteDepths::anonymous(1500).unwrap();
            for store in [fast, ByteDepths::anonymous(1500).unwrap().portable()] {
                for (i, &b) in bytes.iter().enumerate() {
                    if b > 0 {
                        store.set(i as u64, u32::from(b) - 1);
                    }
                }
                let mut out = vec![7];
                // SAFETY: single-threaded test.
                let hits = unsafe {
                    store.collect_translating_exclusive(
                        range.clone(), Wanted::Depth(1), deltas, next, &mut out,
                    )
                };
                proptest::prop_assert_eq!(&out[1..], &found[..]);
                proptest::prop_assert_eq!(hits, expected_hits);
                proptest::prop_assert_eq!(store.as_bytes(), &expected_bytes[..]);
            }
        }
    }

    #[test]
    #[should_panic(expected = "shifted by 100")]
    fn a_shift_onto_the_scanned_range_panics() {
        let store = ByteDepths::anonymous(1000).unwrap();
        // SAFETY: single-threaded test.
        unsafe {
            store.collect_translating_exclusive(
                0..200,
                Wanted::Depth(0),
                &[100],
                1,
                &mut Vec::new(),
            )
        };
    }

    #[test]
    #[should_panic(expected = "shifted by 900")]
    fn a_shift_beyond_the_store_panics() {
        let store = ByteDepths::anonymous(1000).unwrap();
        // SAFETY: single-threaded test.
        unsafe {
            store.collect_translating_exclusive(
                0..200,
                Wanted::Depth(0),
                &[900],
                1,
                &mut Vec::new(),
            )
        };
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
