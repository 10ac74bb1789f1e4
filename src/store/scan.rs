//! Byte scans at memory speed: find or count the entries equal to one value.
//!
//! On x86_64 these use SSE2 (part of the x86_64 baseline): 16 compares and one
//! movemask per instruction group. Finding also has an AVX-512 path, taken where the
//! CPU has it: the matches of 64 bytes are written without a branch per match
//! (`scripts/EXPERIMENTS.md`, "Big spaces: 2x7 on one machine", has its measurement).
//! Elsewhere a portable loop does the same.

/// Appends `base + i` to `out` for every `i` with `bytes[i] == value`, ascending.
#[inline]
pub fn find_equal(bytes: &[u8], value: u8, base: u64, out: &mut Vec<u64>) {
    #[cfg(target_arch = "x86_64")]
    let start = match crate::cpu::Avx512::detect() {
        // SAFETY: the token proves that the CPU has AVX-512 F and BW, and POPCNT.
        Some(avx512) => unsafe { find_equal_avx512(avx512, bytes, value, base, out) },
        None => find_equal_sse2(bytes, value, base, out),
    };
    #[cfg(not(target_arch = "x86_64"))]
    let start = 0;
    find_equal_from(bytes, start, value, base, out);
}

/// [`find_equal`] on whole groups of 64 bytes with SSE2: four compares and movemasks
/// give a 64-bit mask, whose bits are pushed one by one. Returns where it stopped.
#[cfg(target_arch = "x86_64")]
#[inline]
fn find_equal_sse2(bytes: &[u8], value: u8, base: u64, out: &mut Vec<u64>) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let mut start = 0;
    // SAFETY: SSE2 is always present on x86_64; every load reads 16 bytes inside
    // `bytes` (`start + 64 <= len` before each group of four).
    unsafe {
        let wanted = _mm_set1_epi8(value as i8);
        let ptr = bytes.as_ptr();
        while start + 64 <= bytes.len() {
            let mut mask = 0u64;
            for k in 0..4 {
                let v = _mm_loadu_si128(ptr.add(start + 16 * k) as *const __m128i);
                let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, wanted)) as u32 as u64;
                mask |= m << (16 * k);
            }
            while mask != 0 {
                out.push(base + (start as u64) + mask.trailing_zeros() as u64);
                mask &= mask - 1;
            }
            start += 64;
        }
    }
    start
}

/// [`find_equal`] from `bytes[start]` on, one byte at a time (the portable path, and
/// the last bytes after whole groups).
#[inline]
fn find_equal_from(bytes: &[u8], start: usize, value: u8, base: u64, out: &mut Vec<u64>) {
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if b == value {
            out.push(base + i as u64);
        }
    }
}

/// [`find_equal`] on whole groups of 64 bytes with AVX-512: one compare gives a 64-bit
/// mask, and each of its bytes picks (compresses) the matching ones of eight indices
/// into one vector store, with no branch per match. Returns where it stopped.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
fn find_equal_avx512(
    _: crate::cpu::Avx512,
    bytes: &[u8],
    value: u8,
    base: u64,
    out: &mut Vec<u64>,
) -> usize {
    use std::arch::x86_64::{_mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8};
    let wanted = _mm512_set1_epi8(value as i8);
    let mut start = 0;
    while start + 64 <= bytes.len() {
        // SAFETY: `start + 64 <= len`: the 64 bytes lie inside `bytes`.
        let group = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(start).cast()) };
        let mask = _mm512_cmpeq_epi8_mask(group, wanted);
        if mask != 0 {
            push_mask(mask, base + start as u64, out);
        }
        start += 64;
    }
    start
}

/// Appends `base + i` to `out` for every bit `i` set in `mask`, ascending: each byte
/// of the mask picks (compresses) the matching ones of eight indices into one vector
/// store, with no branch per match.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline]
pub(super) fn push_mask(mask: u64, base: u64, out: &mut Vec<u64>) {
    use std::arch::x86_64::{
        _mm512_add_epi64, _mm512_maskz_compress_epi64, _mm512_set1_epi64, _mm512_setr_epi64,
        _mm512_storeu_si512,
    };
    let lanes = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let eight = _mm512_set1_epi64(8);
    // Each store writes eight lanes whatever the matches, so 64 spare slots cover the
    // last one (at most 56 matches before it).
    out.reserve(64);
    let mut written = 0usize;
    let mut indices = _mm512_add_epi64(_mm512_set1_epi64(base as i64), lanes);
    for k in 0..8 {
        let byte = (mask >> (8 * k)) as u8;
        let picked = _mm512_maskz_compress_epi64(byte, indices);
        // SAFETY: `written <= 56` before the last store, and `reserve(64)` left room
        // for 64 elements past `len`: the 8 lanes are inside the allocation. The lanes
        // past the matches are overwritten or left beyond `len`.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(out.len() + written).cast(), picked) };
        written += byte.count_ones() as usize;
        indices = _mm512_add_epi64(indices, eight);
    }
    // SAFETY: the first `written` elements past `len` were initialised above.
    unsafe { out.set_len(out.len() + written) };
}

/// The number of bytes equal to `value`.
#[inline]
pub fn count_equal(bytes: &[u8], value: u8) -> u64 {
    let mut total = 0u64;
    let mut start = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi64, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128,
            _mm_sad_epu8, _mm_set1_epi8, _mm_setzero_si128, _mm_srli_si128, _mm_sub_epi8,
        };
        // SAFETY: SSE2 is always present on x86_64; every load reads 16 bytes inside
        // `bytes` (`start + 16 <= len` before each load).
        unsafe {
            let wanted = _mm_set1_epi8(value as i8);
            let ptr = bytes.as_ptr();
            let mut sums = _mm_setzero_si128();
            while start + 16 <= bytes.len() {
                // Byte counters may take 255 steps before they are widened.
                let mut counters = _mm_setzero_si128();
                let mut steps = 0;
                while steps < 255 && start + 16 <= bytes.len() {
                    let v = _mm_loadu_si128(ptr.add(start) as *const __m128i);
                    // A match is 0xFF, i.e. -1: subtracting it adds one.
                    counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(v, wanted));
                    start += 16;
                    steps += 1;
                }
                sums = _mm_add_epi64(sums, _mm_sad_epu8(counters, _mm_setzero_si128()));
            }
            total +=
                _mm_cvtsi128_si64(sums) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(sums, 8)) as u64;
        }
    }
    total + bytes[start..].iter().filter(|&&b| b == value).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`find_equal`] appends to `before`, by the dispatcher and by each path this
    /// CPU can run (so that a path the dispatcher does not pick here is tested too).
    fn every_path(
        bytes: &[u8],
        value: u8,
        base: u64,
        before: &[u64],
    ) -> Vec<(&'static str, Vec<u64>)> {
        let run = |groups: &dyn Fn(&mut Vec<u64>) -> usize| {
            let mut out = before.to_vec();
            let start = groups(&mut out);
            find_equal_from(bytes, start, value, base, &mut out);
            out
        };
        let mut results = vec![("portable", run(&|_| 0))];
        let mut dispatched = before.to_vec();
        find_equal(bytes, value, base, &mut dispatched);
        results.push(("dispatched", dispatched));
        #[cfg(target_arch = "x86_64")]
        {
            results.push(("sse2", run(&|out| find_equal_sse2(bytes, value, base, out))));
            if let Some(avx512) = crate::cpu::Avx512::detect() {
                // SAFETY: the token proves the CPU features.
                let avx = run(&|out| unsafe { find_equal_avx512(avx512, bytes, value, base, out) });
                results.push(("avx512", avx));
            }
        }
        results
    }

    #[test]
    fn agrees_with_plain_loops() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7919 % 13) as u8).collect();
        for value in [0u8, 3, 12, 200] {
            let expected: Vec<u64> = (5..bytes.len())
                .filter(|&i| bytes[i] == value)
                .map(|i| i as u64 - 5 + 100)
                .collect();
            for (path, out) in every_path(&bytes[5..], value, 100, &[]) {
                assert_eq!(out, expected, "{path}");
            }
            assert_eq!(count_equal(&bytes[5..], value), expected.len() as u64);
        }
    }

    #[test]
    fn every_density_from_none_to_all() {
        // Group by group, from no match to 64 matches in a group of 64 bytes.
        for every in [1usize, 2, 3, 7, 8, 9, 63, 64, 1000] {
            let bytes: Vec<u8> = (0..1_000).map(|i| u8::from(i % every == 0)).collect();
            let expected: Vec<u64> = std::iter::once(7)
                .chain((0..1_000).filter(|i| i % every == 0).map(|i| i as u64 + 10))
                .collect();
            for (path, out) in every_path(&bytes, 1, 10, &[7]) {
                assert_eq!(out, expected, "{path}: a match every {every} bytes");
            }
        }
    }
}
