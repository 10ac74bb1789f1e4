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

use super::{DepthRead, DepthStore, PackedMarks, StoreError, Wanted, WriteMarks};

const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// Depths mod 3, four entries per byte, in a memory mapping.
///
/// Depth `d` and depth `d + 3` share a code (and on a bipartite graph, `d` and `d + 6`
/// share a colour class too), so a scan for the frontier also finds every older level
/// of the same code. Once [`PackedMarks::track_recent`] is called, the store also keeps
/// one *recent* bit per byte (per group of four entries) in each of one or two
/// generations, set by every write in the generation chosen by
/// [`PackedMarks::write_recent_to`] (or set ahead of a dense level by one pass, and then
/// by its writes only into groups that hold its code already:
/// [`PackedMarks::mark_recent_ahead`]): a scan through
/// [`PackedMarks::collect_recent_exclusive`] then skips the groups where the newest
/// level wrote nothing, which older levels fill more and more as a search goes on.
pub struct PackedDepths {
    map: MmapMut,
    len: u64,
    /// Whole 64-bit words of the mapping (32 entries each), the atomics every
    /// concurrent access to their entries goes through; the entries of a last,
    /// partial word (a table file's payload ends on any byte) go through bytes.
    words: u64,
    /// The AVX-512 paths of the scans, where the CPU has them (tests turn them off
    /// to run the portable paths on the same machine).
    #[cfg(target_arch = "x86_64")]
    avx512: Option<crate::cpu::Avx512>,
    /// Per generation, bit `g % 8` of byte `g / 8`: group `g` (entries `4g..4g+4`) was
    /// written in that generation since its bits were last forgotten.
    recent: OnceLock<Recent>,
    /// The byte offset in the recent map of the generation writes mark.
    write_offset: AtomicU64,
    /// Which writes mark: [`EVERY`], [`NONE`], or a code (1 to 3): the writes into
    /// groups that held an entry of this code.
    write_marks: AtomicU8,
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

/// [`PackedDepths::write_marks`]: every write marks.
const EVERY: u8 = 0;
/// [`PackedDepths::write_marks`]: no write marks.
const NONE: u8 = 4;
/// [`PackedDepths::write_offset`] while no write marks (the one test of a dense
/// level's writes).
const NO_MARKS: u64 = u64::MAX;

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

/// The atomic holding an entry's field ([`PackedDepths::fields`]), and the field's
/// shift in it.
#[derive(Clone, Copy)]
enum Fields<'a> {
    /// A whole 64-bit word: 32 entries.
    Word(&'a AtomicU64, u32),
    /// One byte of a last, partial word: 4 entries.
    Byte(&'a AtomicU8, u32),
}

impl Fields<'_> {
    #[inline(always)]
    fn load(self) -> u64 {
        match self {
            Fields::Word(word, _) => word.load(Ordering::Relaxed),
            Fields::Byte(byte, _) => u64::from(byte.load(Ordering::Relaxed)),
        }
    }

    /// ORs `bits` in; returns the value before.
    #[inline(always)]
    fn fetch_or(self, bits: u64) -> u64 {
        match self {
            Fields::Word(word, _) => word.fetch_or(bits, Ordering::Relaxed),
            Fields::Byte(byte, _) => u64::from(byte.fetch_or(bits as u8, Ordering::Relaxed)),
        }
    }

    #[inline(always)]
    fn store(self, value: u64) {
        match self {
            Fields::Word(word, _) => word.store(value, Ordering::Relaxed),
            Fields::Byte(byte, _) => byte.store(value as u8, Ordering::Relaxed),
        }
    }

    /// The field's shift.
    #[inline(always)]
    fn shift(self) -> u32 {
        match self {
            Fields::Word(_, shift) | Fields::Byte(_, shift) => shift,
        }
    }

    /// The byte of `value` (a load of these fields) that holds the entry's group of
    /// four.
    #[inline(always)]
    fn group(self, value: u64) -> u8 {
        (value >> (self.shift() & !7)) as u8
    }
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
    ///
    /// # Errors
    /// [`StoreError`] if the memory cannot be mapped.
    pub fn anonymous(len: u64) -> Result<Self, StoreError> {
        // Whole words: every entry goes through a 64-bit atomic.
        let bytes = usize::try_from(len.div_ceil(32) * 8).map_err(|_| StoreError::TooLarge(len))?;
        let mut map = MmapMut::map_anon(bytes.max(8))
            .map_err(|cause| StoreError::Map { bytes: len, cause })?;
        super::bytes::prepare_fresh_pages(&mut map);
        Ok(PackedDepths::from_map(map, len))
    }

    /// Entries in an existing mapping of at least `len / 4` bytes, content kept.
    #[must_use]
    pub fn from_map(map: MmapMut, len: u64) -> PackedDepths {
        assert!(
            map.len() as u64 >= len.div_ceil(4),
            "mapping smaller than the entries"
        );
        PackedDepths {
            words: map.len() as u64 / 8,
            map,
            len,
            #[cfg(target_arch = "x86_64")]
            avx512: crate::cpu::Avx512::detect(),
            recent: OnceLock::new(),
            write_offset: AtomicU64::new(0),
            write_marks: AtomicU8::new(EVERY),
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
    pub fn map(&self) -> &MmapMut {
        &self.map
    }

    /// The mapping, to fill it.
    pub fn map_mut(&mut self) -> &mut MmapMut {
        &mut self.map
    }

    /// The atomic that holds entry `index`, and the shift of its field in it: the
    /// entry's 64-bit word, or the entry's byte where the word would reach past the
    /// mapping. Every concurrent access to an entry goes through this one atomic, so
    /// no memory is ever accessed atomically at two sizes.
    #[inline(always)]
    fn fields(&self, index: u64) -> Fields<'_> {
        // Checked in every build: the store's methods are safe to call with any index.
        assert!(index < self.len, "entry {index} of {}", self.len);
        if index / 32 < self.words {
            // SAFETY: word `index / 32` lies inside the mapping (`words` counts its whole
            // words); the mapping starts on a page, so the word is aligned to 8, as
            // `AtomicU64` needs. Concurrent accesses to it are all through this
            // `AtomicU64`; the `*_exclusive` scans read it plainly while their callers
            // guarantee that nobody writes it.
            let word = unsafe {
                AtomicU64::from_ptr(self.map.as_ptr().add(8 * (index / 32) as usize) as *mut u64)
            };
            Fields::Word(word, 2 * (index % 32) as u32)
        } else {
            // SAFETY: `index / 4 < len.div_ceil(4) <= map.len()`; `AtomicU8` has the
            // layout of `u8`; this byte lies in no whole word, so every concurrent
            // access to it is through this `AtomicU8`.
            let byte = unsafe {
                AtomicU8::from_ptr(self.map.as_ptr().add((index / 4) as usize) as *mut u8)
            };
            Fields::Byte(byte, 2 * (index % 4) as u32)
        }
    }

    /// The whole word of entries `first .. first + 32` (`first` a multiple of 32,
    /// inside the store).
    #[inline(always)]
    fn word(&self, first: u64) -> &AtomicU64 {
        match self.fields(first + 31) {
            Fields::Word(word, _) => word,
            // A whole word of entries inside the store lies inside the mapping's
            // whole words: `(first / 32 + 1) * 8 <= len / 4 <= map.len()`.
            Fields::Byte(..) => unreachable!("entries {first}.. fill a word of the mapping"),
        }
    }

    /// The recent-bit byte `at` of the generation at byte `offset` (covering entries
    /// `32 * at .. 32 * at + 32`).
    #[inline(always)]
    fn recent_byte(recent: &Recent, offset: u64, at: u64) -> &AtomicU8 {
        // Compares only: a check of `offset` as a multiple of the generation's size
        // would divide on every mark.
        assert!(
            at < recent.generation_bytes
                && offset <= recent.map.len() as u64 - recent.generation_bytes
        );
        // SAFETY: `offset + at` lies inside the map (asserted; the map holds whole
        // generations of `generation_bytes`, one byte per 32 entries, and `offset` is a
        // generation's start: `Recent::offset`, or `write_offset`, which only
        // `write_recent_to` sets, from `Recent::offset`); every access to it is atomic
        // except `forget_recent`'s, whose caller guarantees that nobody else uses
        // those bytes.
        unsafe { AtomicU8::from_ptr(recent.map.as_ptr().add((offset + at) as usize) as *mut u8) }
    }

    /// Marks entry `index`'s group, whose byte held `before` ahead of the write.
    #[inline(always)]
    fn mark_recent(&self, index: u64, before: u8) {
        if let Some(recent) = self.recent.get() {
            let offset = self.write_offset.load(Ordering::Relaxed);
            if offset == NO_MARKS {
                return;
            }
            // A group marked ahead needs no mark unless it held the code already (an
            // older entry the scan must now tell apart: the mark says "written").
            let marks = self.write_marks.load(Ordering::Relaxed);
            if marks != EVERY && !holds_code(before, marks) {
                return;
            }
            let byte = Self::recent_byte(recent, offset, index / 32);
            let bit = 1u8 << ((index / 4) % 8);
            // Test first: most writes land in a group that is marked already.
            if byte.load(Ordering::Relaxed) & bit == 0 {
                byte.fetch_or(bit, Ordering::Relaxed);
            }
        }
    }

    /// [`PackedDepths::mark_recent`] out of line: a dense level's innermost step stays
    /// small enough for the expansion to inline it (`scripts/EXPERIMENTS.md`, "The
    /// 2-bit path: uncounted marks and translations").
    #[inline(never)]
    fn mark_recent_apart(&self, index: u64, before: u8) {
        self.mark_recent(index, before);
    }

    /// [`PackedDepths::mark_recent_apart`] if entry `index` was unseen in `before`.
    #[inline(never)]
    fn mark_recent_where_unseen(&self, index: u64, before: u8) {
        if (before >> (2 * (index % 4))) & 3 == 0 {
            self.mark_recent(index, before);
        }
    }

    /// [`PackedDepths::mark_recent`] for the entries of the 32-entry word at `first`
    /// written at the even bits of `write`, whose word held `before`.
    #[inline(always)]
    fn mark_recent_word(&self, first: u64, write: u64, before: u64) {
        let Some(recent) = self.recent.get() else {
            return;
        };
        let offset = self.write_offset.load(Ordering::Relaxed);
        if offset == NO_MARKS {
            return;
        }
        let mut groups = bytes_where(write);
        let marks = self.write_marks.load(Ordering::Relaxed);
        if marks != EVERY {
            groups &= bytes_where(matching_fields(before, u64::from(marks) * LOW_BITS));
        }
        let byte = Self::recent_byte(recent, offset, first / 32);
        if groups != 0 && byte.load(Ordering::Relaxed) & groups != groups {
            byte.fetch_or(groups, Ordering::Relaxed);
        }
    }

    /// The recent bits of the 64 groups from entry `at` (a multiple of 256) in the
    /// generation at that offset, bit `k` for group `k`; all set without tracking.
    #[inline(always)]
    fn recent_groups(recent: Option<(&Recent, u64)>, at: u64) -> u64 {
        let Some((r, offset)) = recent else {
            return u64::MAX;
        };
        let mut bytes = [0u8; 8];
        for (k, byte) in bytes.iter_mut().enumerate() {
            *byte = Self::recent_byte(r, offset, at / 32 + k as u64).load(Ordering::Relaxed);
        }
        u64::from_le_bytes(bytes)
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

    /// Marks the entries `base + delta + k` for the bits `k` of `mask` (entries
    /// `base + k` of `range`) with `next` where unseen; true if one was. Whole
    /// 32-entry words of the target take one locked OR each where the shift keeps
    /// them aligned, the rest one mark per entry.
    #[inline(always)]
    fn mark_shifted_mask(
        &self,
        mask: u64,
        base: u64,
        delta: i64,
        range: &Range<u64>,
        next: u32,
    ) -> bool {
        let mut marked = false;
        let mut rest = mask;
        if base.is_multiple_of(32) && delta.rem_euclid(32) == 0 {
            for half in 0..2u64 {
                let source = base + 32 * half;
                let fields = (mask >> (32 * half)) as u32;
                if fields != 0 && range.start <= source && source + 32 <= range.end {
                    rest &= !(u64::from(fields) << (32 * half));
                    marked |= self.mark_word(source.wrapping_add_signed(delta), fields, next);
                }
            }
        }
        while rest != 0 {
            let target = (base + u64::from(rest.trailing_zeros())).wrapping_add_signed(delta);
            if self.field(target) == 0 {
                self.mark_unseen(target, next);
                marked = true;
            }
            rest &= rest - 1;
        }
        marked
    }

    /// The eight words of the 256 entries from `first` (a multiple of 32, inside the
    /// store), each the atomic every concurrent access to its entries goes through.
    #[inline(always)]
    fn block_words(&self, first: u64) -> &[AtomicU64] {
        assert!(
            first.is_multiple_of(32) && first / 32 + 8 <= self.words && first + 256 <= self.len,
            "block of entry {first} of {}",
            self.len
        );
        // SAFETY: words `first / 32 .. first / 32 + 8` lie inside the mapping's whole
        // words (asserted), aligned to 8 (the mapping starts on a page); `AtomicU64`
        // has the layout of `u64`, and concurrent accesses to these words are all
        // through `AtomicU64` (see `PackedDepths::fields`).
        unsafe {
            std::slice::from_raw_parts(
                self.map
                    .as_ptr()
                    .add(8 * (first / 32) as usize)
                    .cast::<AtomicU64>(),
                8,
            )
        }
    }

    /// Marks the entries `first + k` for the bits `k` of `fields` with `next` where
    /// unseen, in one locked OR of their 64-bit word (`first` a multiple of 32, the
    /// word's entries all in the store), and their groups' recent marks as writes
    /// mark, in one locked OR of their byte; true if an entry was unseen.
    #[inline(always)]
    fn mark_word(&self, first: u64, fields: u32, next: u32) -> bool {
        assert!(
            first.is_multiple_of(32) && first + 32 <= self.len,
            "word of entry {first} of {}",
            self.len
        );
        let word = self.word(first);
        let before = word.load(Ordering::Relaxed);
        // The fields it marks were unseen when read; a writer of the same level may
        // mark one meanwhile, with the same code.
        let write = spread_even(fields) & matching_fields(before, 0);
        if write == 0 {
            return false;
        }
        word.fetch_or(
            write * u64::from(code(Wanted::Depth(next))),
            Ordering::Relaxed,
        );
        self.mark_recent_word(first, write, before);
        true
    }

    /// [`DepthStore::collect_translating_exclusive`] over whole blocks of 256 entries
    /// (64 bytes, eight recent bytes) for the entries of code `value`, writing `code`,
    /// on a level whose writes mark nothing: per
    /// block, one compare for the frontier, its indices gathered 64 at a time, and
    /// per shift an atomic load of each of the target's eight words and a locked OR
    /// per word that gets a mark.
    ///
    /// # Safety
    /// `blocks` starts and ends on multiples of 256 inside the store; nobody writes
    /// it meanwhile; each shift is a multiple of 32 that keeps `blocks` inside the
    /// store, outside `blocks`, where other threads write only marks of `next`; no
    /// write marks recent marks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi2")]
    unsafe fn translate_blocks_avx512(
        &self,
        _: crate::cpu::Avx512,
        blocks: Range<u64>,
        (value, code): (u8, u8),
        recent: Option<(&Recent, u64)>,
        deltas: &[i64],
        out: &mut Vec<u64>,
    ) -> u32 {
        use std::arch::x86_64::{
            __m512i, _mm512_andnot_si512, _mm512_loadu_si512, _mm512_maskz_mov_epi8,
            _mm512_or_si512, _mm512_set1_epi64, _mm512_srli_epi64, _mm512_storeu_si512,
            _mm512_test_epi64_mask, _mm512_xor_si512,
        };
        let low = _mm512_set1_epi64(LOW_BITS as i64);
        // Even bits where a field of `v` equals the field of `pattern`.
        let matching = |v: __m512i, pattern: __m512i| {
            let x = _mm512_xor_si512(v, pattern);
            _mm512_andnot_si512(_mm512_or_si512(x, _mm512_srli_epi64::<1>(x)), low)
        };
        let pattern = _mm512_set1_epi64((u64::from(value) * LOW_BITS) as i64);
        let base = self.map.as_ptr();
        let mut hits = 0u32;
        let mut lanes = [0u64; 8];
        let mut at = blocks.start;
        while at < blocks.end {
            let groups = Self::recent_groups(recent, at);
            if groups == 0 {
                at += 256;
                continue;
            }
            // SAFETY: bytes `at / 4 .. at / 4 + 64` hold entries of `blocks`, which
            // nobody writes (the caller's contract): a plain load.
            let fields = unsafe { _mm512_loadu_si512(base.add((at / 4) as usize).cast()) };
            // The frontier: the wanted fields of groups with a recent mark.
            let frontier = _mm512_maskz_mov_epi8(groups, matching(fields, pattern));
            if _mm512_test_epi64_mask(frontier, frontier) == 0 {
                at += 256;
                continue;
            }
            // SAFETY: 64 bytes into an array of 64.
            unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), frontier) };
            for pair in 0..4 {
                let mask = std::arch::x86_64::_pext_u64(lanes[2 * pair], LOW_BITS)
                    | std::arch::x86_64::_pext_u64(lanes[2 * pair + 1], LOW_BITS) << 32;
                if mask != 0 {
                    super::scan::push_mask(mask, at + 64 * pair as u64, out);
                }
            }
            for (k, &delta) in deltas.iter().enumerate() {
                // The shifted block's eight words, each marked as `mark_word` does:
                // one atomic load, and a locked OR where a frontier entry's target is
                // unseen (the shift is a multiple of 32, so word `w` of the block
                // lands on a whole word of the store).
                let target = self.block_words(at.wrapping_add_signed(delta));
                for (word, &frontier) in target.iter().zip(&lanes) {
                    let write = frontier & matching_fields(word.load(Ordering::Relaxed), 0);
                    if write != 0 {
                        hits |= 1 << k;
                        word.fetch_or(write * u64::from(code), Ordering::Relaxed);
                    }
                }
            }
            at += 256;
        }
        hits
    }

    /// [`DepthStore::collect_translating_exclusive`], through the recent marks of
    /// generation `recent` if given.
    ///
    /// # Safety
    /// As [`DepthStore::collect_translating_exclusive`].
    unsafe fn translating(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        recent: Option<usize>,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32 {
        super::check_shifts(&range, deltas, self.len);
        let recent = recent.and_then(|g| self.recent.get().map(|r| (r, r.offset(g))));
        let translate = |part: Range<u64>, out: &mut Vec<u64>| {
            let mut hits = 0;
            let mark = |mask: u64, base: u64| {
                for (k, &delta) in deltas.iter().enumerate() {
                    if self.mark_shifted_mask(mask, base, delta, &range, next) {
                        hits |= 1 << k;
                    }
                }
            };
            // SAFETY: forwarded from this function's contract: nobody writes `range`,
            // and the shifted ranges (outside it, checked) only get marks of `next`.
            unsafe { self.collect(part, code(wanted), recent, out, mark) };
            hits
        };
        // Whole blocks of 256 entries take one AVX-512 step each where the shifts keep
        // words aligned and writes mark nothing (a dense level's).
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = self.avx512
            && deltas.iter().all(|d| d.rem_euclid(32) == 0)
            && (self.recent.get().is_none()
                || self.write_offset.load(Ordering::Relaxed) == NO_MARKS)
        {
            let blocks = range.start.next_multiple_of(256).min(range.end)..range.end / 256 * 256;
            if !blocks.is_empty() {
                let head = translate(range.start..blocks.start, out);
                let codes = (code(wanted), code(Wanted::Depth(next)));
                // SAFETY: the token proves the CPU features; `blocks` lies in `range`
                // (forwarded contract), whole blocks, shifts checked and word-aligned.
                let middle = unsafe {
                    self.translate_blocks_avx512(avx512, blocks.clone(), codes, recent, deltas, out)
                };
                return head | middle | translate(blocks.end..range.end, out);
            }
        }
        translate(range.clone(), out)
    }

    /// [`ahead_marks`] of one group `g`: whether it is marked, and whether shared.
    fn ahead_mark_of_group(&self, g: u64, pattern: u64, shared: bool) -> (bool, u64) {
        // Its byte in the low byte of a word whose other groups hold neither an unseen
        // entry nor the code (fields of another code).
        let other = (pattern as u8 & 3) % 3 + 1;
        let fields = self.fields(4 * g);
        let word = (u64::from(other) * LOW_BITS) & !0xFF | u64::from(fields.group(fields.load()));
        let (marks, count) = ahead_marks(word, pattern, shared);
        (marks & 1 != 0, count)
    }

    #[inline(always)]
    fn field(&self, index: u64) -> u8 {
        let fields = self.fields(index);
        ((fields.load() >> fields.shift()) & 3) as u8
    }

    /// Calls `found(mask, base)` for the entries in `range` whose field equals
    /// `value` (and, with `recent`, whose group's recent bit is set in the generation
    /// at that offset): bit `k` of `mask` stands for entry `base + k`. The entries are
    /// taken 64 at a time (two 32-entry words) where the range allows, one at a time
    /// at its ends, in ascending order.
    ///
    /// # Safety
    /// No thread may write the bytes of `range` meanwhile.
    #[inline(always)]
    unsafe fn scan(
        &self,
        range: Range<u64>,
        value: u8,
        recent: Option<(&Recent, u64)>,
        compress: impl Fn(u64) -> u64,
        mut found: impl FnMut(u64, u64),
    ) {
        assert!(range.end <= self.len, "entries {range:?} of {}", self.len);
        let (start, end) = (range.start, range.end);
        let one_by_one = |i: u64, found: &mut dyn FnMut(u64, u64)| {
            if self.field(i) == value && Self::is_recent(recent, i) {
                found(1, i);
            }
        };
        let mut i = start;
        // Entries before the first whole 64-entry pair of words, one by one.
        while i < end && !i.is_multiple_of(64) {
            one_by_one(i, &mut found);
            i += 1;
        }
        // The whole pairs of the range: bytes `i / 4 .. pairs_end / 4`, which hold
        // entries of `range` only.
        let pairs_end = i + (end.saturating_sub(i) / 64) * 64;
        let first_byte = (i / 4) as usize;
        // SAFETY: `pairs_end <= end <= len`, so the bytes lie inside the mapping; they
        // hold entries of `range` only, which the caller guarantees nobody writes.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                self.map.as_ptr().add(first_byte),
                ((pairs_end - i) / 4) as usize,
            )
        };
        let pattern = value as u64 * LOW_BITS;
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        while i < pairs_end {
            let filters = match recent {
                None => [LOW_BITS; 2],
                Some((r, offset)) => {
                    let low = Self::recent_byte(r, offset, i / 32).load(Ordering::Relaxed);
                    let high = Self::recent_byte(r, offset, i / 32 + 1).load(Ordering::Relaxed);
                    if low | high == 0 {
                        i += 64;
                        continue;
                    }
                    [SPREAD[low as usize], SPREAD[high as usize]]
                }
            };
            let at = (i / 4) as usize - first_byte;
            let low = compress(matching_fields(word(at), pattern) & filters[0]);
            let high = compress(matching_fields(word(at + 8), pattern) & filters[1]);
            let mask = low | (high << 32);
            if mask != 0 {
                found(mask, i);
            }
            i += 64;
        }
        while i < end {
            one_by_one(i, &mut found);
            i += 1;
        }
    }

    /// [`PackedDepths::scan`] into `out`: with AVX-512, each mask's indices are
    /// written without a branch per match. `also` gets every mask too.
    ///
    /// # Safety
    /// As [`PackedDepths::scan`].
    unsafe fn collect(
        &self,
        range: Range<u64>,
        value: u8,
        recent: Option<(&Recent, u64)>,
        out: &mut Vec<u64>,
        mut also: impl FnMut(u64, u64),
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = self.avx512 {
            // SAFETY: the token proves that the CPU has AVX-512 F and BW, POPCNT and BMI2;
            // the rest is forwarded from this function's contract.
            return unsafe { self.collect_avx512(avx512, range, value, recent, out, also) };
        }
        let push = |mut mask: u64, base: u64| {
            also(mask, base);
            while mask != 0 {
                out.push(base + u64::from(mask.trailing_zeros()));
                mask &= mask - 1;
            }
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, value, recent, compress_even, push) };
    }

    /// [`PackedDepths::collect`] compiled with AVX-512.
    ///
    /// # Safety
    /// As [`PackedDepths::scan`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi2")]
    unsafe fn collect_avx512(
        &self,
        _: crate::cpu::Avx512,
        range: Range<u64>,
        value: u8,
        recent: Option<(&Recent, u64)>,
        out: &mut Vec<u64>,
        mut also: impl FnMut(u64, u64),
    ) {
        let push = |mask: u64, base: u64| {
            also(mask, base);
            super::scan::push_mask(mask, base, out);
        };
        // One instruction in place of compress_even's ten.
        let compress = |x| std::arch::x86_64::_pext_u64(x, LOW_BITS);
        // SAFETY: forwarded from this function's contract.
        unsafe { self.scan(range, value, recent, compress, push) };
    }
}

/// Bit `2k` set where field `k` of the 32 in `word` equals the field of `pattern`
/// (every field of `pattern` alike).
#[inline(always)]
fn matching_fields(word: u64, pattern: u64) -> u64 {
    let x = word ^ pattern;
    !(x | (x >> 1)) & LOW_BITS
}

/// Bit `k` of the result is bit `2k` of `x` (the odd bits are ignored).
#[inline(always)]
fn compress_even(x: u64) -> u64 {
    let mut x = x & LOW_BITS;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    (x | (x >> 16)) & 0xFFFF_FFFF
}

/// Bit `2k` of the result is bit `k` of `x` (the inverse of [`compress_even`]).
#[inline(always)]
fn spread_even(x: u32) -> u64 {
    let mut x = u64::from(x);
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & LOW_BITS
}

/// Bit `k` set where byte `k` of `fields` (bits at even places, as
/// [`matching_fields`] gives them) has any bit set.
#[inline(always)]
fn bytes_where(fields: u64) -> u8 {
    // Bit 0 of each byte: any of its four fields; then the eight bits gathered into
    // the top byte by one multiplication (no carries: one bit per byte).
    let any = (fields | (fields >> 2) | (fields >> 4) | (fields >> 6)) & 0x0101_0101_0101_0101;
    (any.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// The marks ahead of the eight groups (bytes) of `word` for the code of `pattern`
/// (see [`PackedMarks::mark_recent_ahead`]), and how many of them are shared (hold
/// an unseen entry and one of that code).
#[inline(always)]
fn ahead_marks(word: u64, pattern: u64, shared: bool) -> (u8, u64) {
    let coded = matching_fields(word, pattern);
    let (open, held) = (bytes_where(matching_fields(word, 0)), bytes_where(coded));
    (
        if shared { open } else { open & !held },
        u64::from((open & held).count_ones()),
    )
}

/// [`ahead_marks`] of the 64 groups (bytes) at `bytes`: bit `k` of the marks for
/// byte `k`.
///
/// # Safety
/// The 64 bytes at `bytes` are readable, and nobody writes them meanwhile.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi2")]
unsafe fn ahead_marks_avx512(
    _: crate::cpu::Avx512,
    bytes: *const u8,
    pattern: u64,
    shared: bool,
) -> (u64, u64) {
    use std::arch::x86_64::{
        __m512i, _mm512_andnot_si512, _mm512_loadu_si512, _mm512_or_si512, _mm512_set1_epi64,
        _mm512_srli_epi64, _mm512_test_epi8_mask, _mm512_xor_si512,
    };
    // SAFETY: the caller's contract.
    let groups = unsafe { _mm512_loadu_si512(bytes.cast()) };
    let low = _mm512_set1_epi64(LOW_BITS as i64);
    // Per byte, whether one of its fields equals the field of `pattern`
    // ([`matching_fields`], then any bit of the byte).
    let any_field = |pattern: u64| {
        let x: __m512i = _mm512_xor_si512(groups, _mm512_set1_epi64(pattern as i64));
        let fields = _mm512_andnot_si512(_mm512_or_si512(x, _mm512_srli_epi64::<1>(x)), low);
        _mm512_test_epi8_mask(fields, fields)
    };
    let (open, held) = (any_field(0), any_field(pattern));
    (
        if shared { open } else { open & !held },
        u64::from((open & held).count_ones()),
    )
}

/// Whether one of the four fields of `byte` holds `code`.
#[inline(always)]
fn holds_code(byte: u8, code: u8) -> bool {
    let x = byte ^ (code * 0x55);
    !(x | (x >> 1)) & 0x55 != 0
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
    type Packed = PackedDepths;

    #[inline(always)]
    fn set(&self, index: u64, depth: u32) {
        // The engine only sets unseen (zero) fields, so OR-ing the code is exact, and
        // racing writers of one level OR the same bits.
        let fields = self.fields(index);
        let before = fields.load();
        fields.fetch_or(u64::from(code(Wanted::Depth(depth))) << fields.shift());
        self.mark_recent(index, fields.group(before));
    }

    #[inline(always)]
    fn mark_if_unseen(&self, index: u64, depth: u32) -> bool {
        let fields = self.fields(index);
        let shift = fields.shift();
        let before = fields.load();
        if (before >> shift) & 3 != 0 {
            return false;
        }
        // The OR returns the word as it was: of racing writers, only the first finds
        // the field empty.
        let old = fields.fetch_or(u64::from(code(Wanted::Depth(depth))) << shift);
        // Whether the group held the code is the same before and after other writes
        // of this level: they add only this level's code to groups that lacked it.
        self.mark_recent(index, fields.group(before));
        (old >> shift) & 3 == 0
    }

    #[inline(always)]
    fn mark_unseen(&self, index: u64, depth: u32) {
        let fields = self.fields(index);
        let before = fields.load();
        if (before >> fields.shift()) & 3 == 0 {
            // Nothing read back: one locked OR, no compare-and-swap loop.
            fields.fetch_or(u64::from(code(Wanted::Depth(depth))) << fields.shift());
            if self.write_offset.load(Ordering::Relaxed) != NO_MARKS {
                self.mark_recent_apart(index, fields.group(before));
            }
        }
    }

    fn packed(&self) -> Option<&PackedDepths> {
        Some(self)
    }

    #[inline(always)]
    fn prefetch(&self, index: u64) {
        if let Some(byte) = self.map.get((index / 4) as usize) {
            crate::cpu::prefetch(byte);
        }
        // The recent mark a write of this entry sets, if this level marks every write:
        // scattered marks (a class index's) miss on it as on the entry.
        if let Some(recent) = self.recent.get() {
            let offset = self.write_offset.load(Ordering::Relaxed);
            if offset != NO_MARKS
                && self.write_marks.load(Ordering::Relaxed) == EVERY
                && let Some(byte) = recent.map.get((offset + index / 32) as usize)
            {
                crate::cpu::prefetch(byte);
            }
        }
    }

    unsafe fn collect_exclusive(&self, range: Range<u64>, wanted: Wanted, out: &mut Vec<u64>) {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.collect(range, code(wanted), None, out, |_, _| {}) };
    }

    unsafe fn collect_translating_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32 {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.translating(range, wanted, None, deltas, next, out) }
    }

    unsafe fn count_exclusive(&self, range: Range<u64>, wanted: Wanted) -> u64 {
        assert!(range.end <= self.len, "entries {range:?} of {}", self.len);
        let value = code(wanted);
        let one_by_one = |entries: Range<u64>| entries.filter(|&i| self.field(i) == value).count();
        // Whole 32-entry words are counted where their fields lie, a popcount each.
        let words = range.start.next_multiple_of(32).min(range.end)..range.end / 32 * 32;
        if words.is_empty() {
            return one_by_one(range) as u64;
        }
        // SAFETY: bytes `words.start / 4 .. words.end / 4` hold entries of `range` only,
        // inside the mapping (`words.end <= len`); the caller guarantees nobody
        // writes them.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                self.map.as_ptr().add((words.start / 4) as usize),
                ((words.end - words.start) / 4) as usize,
            )
        };
        let pattern = u64::from(value) * LOW_BITS;
        let whole: u64 = bytes
            .chunks_exact(8)
            .map(|word| {
                let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                u64::from(matching_fields(word, pattern).count_ones())
            })
            .sum();
        whole + (one_by_one(range.start..words.start) + one_by_one(words.end..range.end)) as u64
    }
}

impl PackedMarks for PackedDepths {
    #[inline(always)]
    fn mark_unseen_alone(&self, index: u64, depth: u32) {
        let fields = self.fields(index);
        let before = fields.load();
        let shift = fields.shift();
        let unseen = (before >> shift) & 3 == 0;
        // The word is written back whether the field was unseen or not: a branch on
        // it, half of a dense level's marks at random, would be mispredicted. Its
        // other fields are the ones just read: nobody else writes the word meanwhile
        // (this method's contract).
        fields
            .store(before | ((u64::from(code(Wanted::Depth(depth))) << shift) * u64::from(unseen)));
        // The field's test stays out of the innermost step (the call is out of line).
        if self.write_offset.load(Ordering::Relaxed) != NO_MARKS {
            self.mark_recent_where_unseen(index, fields.group(before));
        }
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

    fn write_recent_to(&self, generation: usize, marks: WriteMarks) {
        if let Some(recent) = self.recent.get() {
            let offset = match marks {
                WriteMarks::None => NO_MARKS,
                _ => recent.offset(generation),
            };
            self.write_offset.store(offset, Ordering::Relaxed);
            let marks = match marks {
                WriteMarks::Every => EVERY,
                WriteMarks::WhereCodeWas(depth) => code(Wanted::Depth(depth)),
                WriteMarks::None => NONE,
            };
            self.write_marks.store(marks, Ordering::Relaxed);
        }
    }

    unsafe fn mark_recent_ahead(
        &self,
        range: Range<u64>,
        generation: usize,
        depth: u32,
        shared: bool,
    ) -> u64 {
        let Some(recent) = self.recent.get() else {
            return 0;
        };
        assert!(range.end <= self.len, "entries {range:?} of {}", self.len);
        let offset = recent.offset(generation);
        let pattern = u64::from(code(Wanted::Depth(depth))) * LOW_BITS;
        let set = |g: u64, marked: bool| {
            let byte = Self::recent_byte(recent, offset, g / 8);
            let bit = 1u8 << (g % 8);
            if marked {
                byte.fetch_or(bit, Ordering::Relaxed);
            } else {
                byte.fetch_and(!bit, Ordering::Relaxed);
            }
        };
        let (first, last) = (range.start / 4, range.end.div_ceil(4));
        if first == last {
            return 0;
        }
        // The end groups may hold entries of the ranges around: marked whatever they
        // hold. The groups between are this range's alone, and so are the recent
        // bytes that cover eight of them: those are written whole.
        set(first, true);
        set(last - 1, true);
        let inner_end = last - 1;
        let mut shared_groups = 0u64;
        let mut g = first + 1;
        #[cfg(target_arch = "x86_64")]
        let avx512 = self.avx512;
        while g < inner_end {
            #[cfg(target_arch = "x86_64")]
            if let Some(avx512) = avx512
                && g.is_multiple_of(64)
                && g + 64 <= inner_end
            {
                // SAFETY: the token proves the CPU features; table bytes `g..g + 64`
                // hold entries of `range` only (`g + 64 <= last - 1`), inside the
                // mapping; the caller guarantees nobody writes them.
                let (marks, count) = unsafe {
                    ahead_marks_avx512(avx512, self.map.as_ptr().add(g as usize), pattern, shared)
                };
                shared_groups += count;
                for (k, byte) in marks.to_le_bytes().into_iter().enumerate() {
                    Self::recent_byte(recent, offset, g / 8 + k as u64)
                        .store(byte, Ordering::Relaxed);
                }
                g += 64;
                continue;
            }
            if g.is_multiple_of(8) && g + 8 <= inner_end {
                // SAFETY: table bytes `g..g + 8` hold entries of `range` only (`g + 8
                // <= last - 1`), inside the mapping; the caller guarantees nobody
                // writes them.
                let word = u64::from_le_bytes(unsafe {
                    std::ptr::read_unaligned(self.map.as_ptr().add(g as usize).cast::<[u8; 8]>())
                });
                let (marks, count) = ahead_marks(word, pattern, shared);
                shared_groups += count;
                Self::recent_byte(recent, offset, g / 8).store(marks, Ordering::Relaxed);
                g += 8;
            } else {
                let (marked, count) = self.ahead_mark_of_group(g, pattern, shared);
                shared_groups += count;
                set(g, marked);
                g += 1;
            }
        }
        shared_groups
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
        unsafe { self.collect(range, code(wanted), recent, out, |_, _| {}) };
    }

    unsafe fn collect_recent_translating_exclusive(
        &self,
        range: Range<u64>,
        wanted: Wanted,
        generation: usize,
        deltas: &[i64],
        next: u32,
        out: &mut Vec<u64>,
    ) -> u32 {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.translating(range, wanted, Some(generation), deltas, next, out) }
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

    /// The paths of the store this CPU can run: `false` the portable ones, `true`
    /// the AVX-512 ones where it has them.
    fn paths() -> Vec<bool> {
        let mut paths = vec![false];
        #[cfg(target_arch = "x86_64")]
        paths.extend(crate::cpu::Avx512::detect().map(|_| true));
        paths
    }

    /// A store of `fields` (0 unseen, else the code) whose recent marks of
    /// `generation` (of `generations`) are `groups`, the other generation untouched,
    /// on the AVX-512 paths if `simd` (and the CPU has them), else the portable ones.
    fn store_with(
        fields: &[u8],
        groups: &[bool],
        generations: usize,
        generation: usize,
        simd: bool,
    ) -> PackedDepths {
        let mut store = PackedDepths::anonymous(fields.len() as u64).unwrap();
        if !simd {
            store = store.portable();
        }
        assert!(store.track_recent(generations));
        store.write_recent_to(generation, WriteMarks::Every);
        for (i, &f) in fields.iter().enumerate() {
            if f > 0 {
                store.set(i as u64, u32::from(f) - 1);
            }
        }
        // SAFETY: single-threaded test.
        unsafe { store.forget_recent(0..fields.len() as u64, generation) };
        for (g, _) in groups.iter().enumerate().filter(|&(_, &marked)| marked) {
            store.mark_recent(4 * g as u64, 0);
        }
        store
    }

    proptest::proptest! {
        /// The scans (64 entries at a time, AVX-512 where the CPU has it) find and
        /// count what a plain loop over the same fields does, with and without recent
        /// marks, over ranges that start and end anywhere.
        #[test]
        fn scans_are_plain_loops(
            fields in proptest::collection::vec(0u8..4, 700),
            groups in proptest::collection::vec(proptest::bool::ANY, 175),
            start in 0u64..300,
            len in 0u64..=400,
            depth in 0u32..6,
        ) {
            for simd in paths() {
                let store = store_with(&fields, &groups, 1, 0, simd);
                let range = start..start + len;
                let code = (depth % 3) as u8 + 1;
                let all: Vec<u64> = range.clone().filter(|&i| fields[i as usize] == code).collect();
                let recent: Vec<u64> = all.iter().copied().filter(|&i| groups[i as usize / 4]).collect();
                let (mut found, mut found_recent) = (vec![9], vec![9]);
                // SAFETY: single-threaded test.
                let (count, unseen) = unsafe {
                    store.collect_exclusive(range.clone(), Wanted::Depth(depth), &mut found);
                    store.collect_recent_exclusive(range.clone(), Wanted::Depth(depth), 0, &mut found_recent);
                    (
                        store.count_exclusive(range.clone(), Wanted::Depth(depth)),
                        store.count_exclusive(range.clone(), Wanted::Unseen),
                    )
                };
                proptest::prop_assert_eq!(&found[1..], &all[..]);
                proptest::prop_assert_eq!(&found_recent[1..], &recent[..]);
                proptest::prop_assert_eq!(count, all.len() as u64);
                proptest::prop_assert_eq!(unseen, range.filter(|&i| fields[i as usize] == 0).count() as u64);
            }
        }

        /// Marks set ahead of a level (64 groups at a time with AVX-512) cover the
        /// groups of the range that hold an unseen entry and none of the level's
        /// code (with `shared`, those that hold both too), and the range's end
        /// groups (shared with the entries around); marks outside the range stay as
        /// they were. The count is of the
        /// shared groups (an unseen entry and one of the code) inside. Without
        /// `shared`, the level's writes then mark the groups that held its code;
        /// with it, no write marks.
        #[test]
        fn marks_ahead_then_where_the_code_was(
            fields in proptest::collection::vec(0u8..4, 1400),
            before in proptest::collection::vec(proptest::bool::ANY, 350),
            start in 0u64..300,
            len in 1u64..=1100,
            depth in 0u32..6,
            shared in proptest::bool::ANY,
        ) {
            // The second range holds whole aligned blocks of 64 groups: the AVX-512
            // path's, reached every time.
            let ranges = [start..start + len, start..start + 600 + len / 4];
            for (simd, range) in paths().into_iter().flat_map(|p| ranges.clone().map(|r| (p, r))) {
                let store = store_with(&fields, &before, 2, 1, simd);
                // SAFETY: single-threaded test.
                let shared_groups = unsafe { store.mark_recent_ahead(range.clone(), 1, depth, shared) };
                let recent = store.recent.get().unwrap();
                let marks = |generation| -> Vec<bool> {
                    (0..350u64)
                        .map(|g| PackedDepths::is_recent(Some((recent, recent.offset(generation))), 4 * g))
                        .collect()
                };
                let code = (depth % 3) as u8 + 1;
                let (first, last) = (range.start / 4, range.end.div_ceil(4));
                let group = |g: u64| &fields[4 * g as usize..4 * g as usize + 4];
                let inner = |g: u64| g > first && g + 1 < last;
                let ahead: Vec<bool> = (0..350u64)
                    .map(|g| {
                        if g < first || g >= last {
                            before[g as usize]
                        } else {
                            !inner(g) || group(g).contains(&0) && (shared || !group(g).contains(&code))
                        }
                    })
                    .collect();
                proptest::prop_assert_eq!(marks(1), ahead.clone());
                let expected_shared = (0..350u64)
                    .filter(|&g| inner(g) && group(g).contains(&0) && group(g).contains(&code))
                    .count();
                proptest::prop_assert_eq!(shared_groups, expected_shared as u64);
                // Generation 0 was never touched.
                proptest::prop_assert!(marks(0).iter().all(|&m| !m));
                // The level writes its depth into every unseen entry.
                let writes = if shared { WriteMarks::None } else { WriteMarks::WhereCodeWas(depth) };
                store.write_recent_to(1, writes);
                for i in 0..1400 {
                    // Counted, uncounted and single-writer marks write and mark alike.
                    match i % 3 {
                        0 => _ = store.mark_if_unseen(i, depth),
                        1 => store.mark_unseen(i, depth),
                        _ => store.mark_unseen_alone(i, depth),
                    }
                }
                for (i, &field) in fields.iter().enumerate() {
                    let expected = if field == 0 { code } else { field };
                    proptest::prop_assert_eq!(store.field(i as u64), expected, "entry {}", i);
                }
                let after = marks(1);
                for g in 0..350u64 {
                    let written = group(g).contains(&0);
                    if shared {
                        proptest::prop_assert_eq!(after[g as usize], ahead[g as usize], "group {}", g);
                        continue;
                    }
                    // Every group that held the code and got a new entry is marked now
                    // (the scan must take it); none that was neither marked nor written.
                    if written && group(g).contains(&code) {
                        proptest::prop_assert!(after[g as usize], "group {} held the code", g);
                    }
                    if after[g as usize] {
                        proptest::prop_assert!(ahead[g as usize] || written, "group {}", g);
                    }
                }
                proptest::prop_assert!(marks(0).iter().all(|&m| !m));
            }
        }
    }

    /// Runs the translating scan over `range` of a store of `fields` (recent marks
    /// `groups`) on every path this CPU has, and checks it against the scan without
    /// translations followed by one mark per found entry and shift (the trait's
    /// default, on the portable paths): the same indices, hits, fields and recent
    /// marks.
    fn translates_as_one_mark_per_entry(
        (fields, groups): (&[u8], &[bool]),
        range: Range<u64>,
        deltas: &[i64],
        depth: u32,
        (through_recent, writes): (bool, WriteMarks),
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let next = depth + 1;
        let recent = through_recent.then_some(0);
        for simd in paths() {
            let stores = [
                store_with(fields, groups, 1, 0, simd),
                store_with(fields, groups, 1, 0, false),
            ];
            for store in &stores {
                if writes == WriteMarks::WhereCodeWas(next) {
                    // As a dense level: the groups written first are marked ahead.
                    for &delta in deltas {
                        let shifted = range.start.wrapping_add_signed(delta)
                            ..range.end.wrapping_add_signed(delta);
                        // SAFETY: single-threaded test.
                        unsafe { store.mark_recent_ahead(shifted, 0, next, false) };
                    }
                }
                store.write_recent_to(0, writes);
            }
            let (mut found, mut expected) = (vec![9], vec![9]);
            let wanted = Wanted::Depth(depth);
            // SAFETY: single-threaded test.
            let (hits, expected_hits) = unsafe {
                let hits = match recent {
                    Some(g) => stores[0].collect_recent_translating_exclusive(
                        range.clone(),
                        wanted,
                        g,
                        deltas,
                        next,
                        &mut found,
                    ),
                    None => stores[0].collect_translating_exclusive(
                        range.clone(),
                        wanted,
                        deltas,
                        next,
                        &mut found,
                    ),
                };
                match recent {
                    Some(g) => {
                        stores[1].collect_recent_exclusive(range.clone(), wanted, g, &mut expected)
                    }
                    None => stores[1].collect_exclusive(range.clone(), wanted, &mut expected),
                }
                let marked = super::super::mark_shifted(&stores[1], &expected[1..], deltas, next);
                (hits, marked)
            };
            proptest::prop_assert_eq!(&found, &expected, "simd {}", simd);
            proptest::prop_assert_eq!(hits, expected_hits, "simd {}", simd);
            for i in 0..fields.len() as u64 {
                let (value, expected) = (stores[0].value(i), stores[1].value(i));
                proptest::prop_assert_eq!(value, expected, "entry {}, simd {}", i, simd);
            }
            let recent_map = |store: &PackedDepths| {
                let r = store.recent.get().unwrap();
                (0..groups.len() as u64)
                    .map(|g| PackedDepths::is_recent(Some((r, r.offset(0))), 4 * g))
                    .collect::<Vec<_>>()
            };
            proptest::prop_assert_eq!(recent_map(&stores[0]), recent_map(&stores[1]));
        }
        Ok(())
    }

    proptest::proptest! {
        /// The translating scan finds what the scan without translations finds, and
        /// leaves the fields and the recent marks that a mark per found entry and
        /// shift leaves (the trait's default): shifts that keep 32-entry words
        /// aligned (a locked OR per word), or one that does not (a mark per entry);
        /// forward and backward, with and without recent marks, each way writes
        /// mark.
        #[test]
        fn translating_scans_mark_as_one_mark_per_entry(
            fields in proptest::collection::vec(0u8..4, 2000),
            groups in proptest::collection::vec(proptest::bool::ANY, 500),
            start in 0u64..300,
            len in 0u64..=400,
            backward in proptest::bool::ANY,
            aligned in proptest::bool::ANY,
            depth in 0u32..6,
            through_recent in proptest::bool::ANY,
            writes in 0u8..3,
        ) {
            let odd = i64::from(!aligned);
            let (range, deltas) = if backward {
                (start + 1152..start + 1152 + len, [-1152i64, -736 - odd])
            } else {
                (start..start + len, [736i64, 1152 + odd])
            };
            let writes = match writes {
                0 => WriteMarks::Every,
                1 => WriteMarks::WhereCodeWas(depth + 1),
                _ => WriteMarks::None,
            };
            translates_as_one_mark_per_entry(
                (&fields, &groups), range, &deltas, depth, (through_recent, writes),
            )?;
        }

        /// Ranges of whole 256-entry blocks (and a few entries either side), shifts
        /// that keep words aligned, and writes that mark nothing: the blocks take the
        /// AVX-512 path every time where the CPU has it, for every code the level
        /// writes, and mark as one mark per entry does.
        #[test]
        fn whole_blocks_translate_as_one_mark_per_entry(
            fields in proptest::collection::vec(0u8..4, 4096),
            groups in proptest::collection::vec(proptest::bool::ANY, 1024),
            blocks in 1u64..=4,
            head in 0u64..3,
            tail in 0u64..3,
            backward in proptest::bool::ANY,
            through_recent in proptest::bool::ANY,
        ) {
            let (start, deltas) = if backward {
                (2560, [-2560i64, -1536])
            } else {
                (0, [1536i64, 2560])
            };
            let range = start + 256 - head..start + 256 * (1 + blocks) + tail;
            for depth in 0..3 {
                translates_as_one_mark_per_entry(
                    (&fields, &groups),
                    range.clone(),
                    &deltas,
                    depth,
                    (through_recent, WriteMarks::None),
                )?;
            }
        }
    }

    /// With two generations, writes mark the generation chosen last, and each
    /// generation is scanned and forgotten on its own.
    #[test]
    fn recent_generations_stay_apart() {
        let store = PackedDepths::anonymous(1000).unwrap();
        assert!(store.track_recent(2));
        store.write_recent_to(1, WriteMarks::Every);
        for i in (0..1000).step_by(40) {
            store.set(i, 4);
        }
        store.write_recent_to(0, WriteMarks::Every);
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

    /// Says which of the stores' paths this machine's tests ran (CI prints it): the
    /// portable ones always; the AVX-512 ones of the packed store (collect, blocks of
    /// translations, marks ahead), the byte store (translations) and the byte scans
    /// where the CPU has AVX-512 F, BW, POPCNT and BMI2. Every property test of a
    /// store runs each path this CPU has, whichever the store would pick.
    #[test]
    fn fast_paths_tested_here() {
        #[cfg(target_arch = "x86_64")]
        let avx512 = crate::cpu::Avx512::detect().is_some();
        #[cfg(not(target_arch = "x86_64"))]
        let avx512 = false;
        let ran = if avx512 {
            "portable and AVX-512 (packed: collect, translated blocks, marks ahead; \
             bytes: translations; scans: find)"
        } else {
            "portable only (this CPU has no AVX-512 F+BW+POPCNT+BMI2)"
        };
        // The stores pick the AVX-512 paths exactly where the CPU has them, and the
        // property tests run them besides the portable ones.
        #[cfg(target_arch = "x86_64")]
        assert_eq!(PackedDepths::anonymous(1).unwrap().avx512.is_some(), avx512);
        assert_eq!(paths(), [false, true][..1 + usize::from(avx512)]);
        eprintln!("store paths tested on this machine: {ran}");
    }
}
