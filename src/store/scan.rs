//! Byte scans at memory speed: find or count the entries equal to one value.
//!
//! On x86_64 these use SSE2 (part of the x86_64 baseline): 16 compares and one
//! movemask per instruction group. Elsewhere a portable loop does the same.

/// Appends `base + i` to `out` for every `i` with `bytes[i] == value`, ascending.
#[inline]
pub fn find_equal(bytes: &[u8], value: u8, base: u64, out: &mut Vec<u64>) {
    let mut start = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
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
    }
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if b == value {
            out.push(base + i as u64);
        }
    }
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

    #[test]
    fn agrees_with_plain_loops() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7919 % 13) as u8).collect();
        for value in [0u8, 3, 12, 200] {
            let mut out = Vec::new();
            find_equal(&bytes[5..], value, 100, &mut out);
            let expected: Vec<u64> = (5..bytes.len())
                .filter(|&i| bytes[i] == value)
                .map(|i| i as u64 - 5 + 100)
                .collect();
            assert_eq!(out, expected);
            assert_eq!(count_equal(&bytes[5..], value), expected.len() as u64);
        }
    }
}
