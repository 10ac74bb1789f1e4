//! Proof tokens for CPU features: a value of one of these types exists only on a CPU
//! that has the feature (its one constructor checks at run time), so a function
//! compiled with `#[target_feature]` is sound to call whenever a token is at hand;
//! and the software prefetch searches use to overlap their memory latencies.

/// Asks the processor to fetch the cache line holding `value` into its caches, for a
/// read soon after (a hint: nothing the program sees changes; elsewhere than x86-64
/// it does nothing).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; the address
    // is that of a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::from_ref(value).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The CPU has POPCNT.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct Popcnt(());

#[cfg(target_arch = "x86_64")]
impl Popcnt {
    /// The token, if this CPU has POPCNT.
    pub fn detect() -> Option<Popcnt> {
        std::arch::is_x86_feature_detected!("popcnt").then_some(Popcnt(()))
    }
}

/// The CPU has AVX-512 F and BW (512-bit byte compares into mask registers, and
/// compression of 64-bit lanes by a mask), POPCNT and BMI2 (bit gathering by a mask).
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct Avx512(());

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The token, if this CPU has AVX-512 F and BW, POPCNT and BMI2.
    pub fn detect() -> Option<Avx512> {
        (std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi2"))
        .then_some(Avx512(()))
    }
}

/// The CPU has SSSE3 (`pshufb`: sixteen bytes permuted by sixteen indices in one
/// instruction) and POPCNT.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct Ssse3(());

#[cfg(target_arch = "x86_64")]
impl Ssse3 {
    /// The token, if this CPU has SSSE3 and POPCNT.
    pub fn detect() -> Option<Ssse3> {
        (std::arch::is_x86_feature_detected!("ssse3")
            && std::arch::is_x86_feature_detected!("popcnt"))
        .then_some(Ssse3(()))
    }

    /// `out[i] = table[index[i]]`, or 0 where `index[i]` has its high bit set (indices
    /// are taken modulo 16 otherwise). Inlined into a function compiled with SSSE3 it
    /// is one `pshufb`; elsewhere a call.
    #[inline(always)]
    pub fn shuffle(self, table: [u8; 16], index: [u8; 16]) -> [u8; 16] {
        use std::arch::x86_64::{__m128i, _mm_shuffle_epi8};
        // SAFETY: the token proves that the CPU has SSSE3; `[u8; 16]` and `__m128i`
        // are both 16 plain bytes, every bit pattern valid for either.
        unsafe {
            let table: __m128i = std::mem::transmute(table);
            let index: __m128i = std::mem::transmute(index);
            std::mem::transmute(_mm_shuffle_epi8(table, index))
        }
    }

    /// `x[i] + y[i]`, wrapping, byte by byte (`paddb` where inlined under SSSE3).
    #[inline(always)]
    pub fn add(self, x: [u8; 16], y: [u8; 16]) -> [u8; 16] {
        use std::arch::x86_64::{__m128i, _mm_add_epi8};
        // SAFETY: SSE2 is part of x86_64; both types are 16 plain bytes.
        unsafe {
            let x: __m128i = std::mem::transmute(x);
            let y: __m128i = std::mem::transmute(y);
            std::mem::transmute(_mm_add_epi8(x, y))
        }
    }

    /// `x[i] - m` where `x[i] >= m`, else `x[i]`: one reduction modulo `m` of values
    /// below `2m` (the least of `x[i]` and the wrapping `x[i] - m`).
    #[inline(always)]
    pub fn below(self, x: [u8; 16], m: u8) -> [u8; 16] {
        use std::arch::x86_64::{__m128i, _mm_min_epu8, _mm_set1_epi8, _mm_sub_epi8};
        // SAFETY: SSE2 is part of x86_64; both types are 16 plain bytes.
        unsafe {
            let x: __m128i = std::mem::transmute(x);
            std::mem::transmute(_mm_min_epu8(x, _mm_sub_epi8(x, _mm_set1_epi8(m as i8))))
        }
    }

    /// `m - x[i]` reduced modulo `m`, for `x[i] < m`: a twist negated.
    #[inline(always)]
    pub fn negate(self, x: [u8; 16], m: u8) -> [u8; 16] {
        use std::arch::x86_64::{__m128i, _mm_set1_epi8, _mm_sub_epi8};
        // SAFETY: SSE2 is part of x86_64; both types are 16 plain bytes.
        let from_m: [u8; 16] = unsafe {
            let x: __m128i = std::mem::transmute(x);
            std::mem::transmute(_mm_sub_epi8(_mm_set1_epi8(m as i8), x))
        };
        self.below(from_m, m)
    }

    /// `Σ digits[i] · weights[i]` (`pmaddwd` on the digits widened to 16 bits); the
    /// caller keeps the sum below 2³¹.
    #[inline(always)]
    pub fn weighted_sum(self, digits: [u8; 16], weights: [i16; 16]) -> u32 {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_madd_epi16, _mm_setzero_si128,
            _mm_shuffle_epi32, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
        };
        // SAFETY: SSE2 is part of x86_64; `[u8; 16]`, `[i16; 8]` and `__m128i` are
        // all 16 plain bytes.
        unsafe {
            let digits: __m128i = std::mem::transmute(digits);
            let [low, high]: [__m128i; 2] = std::mem::transmute(weights);
            let zero = _mm_setzero_si128();
            let sums = _mm_add_epi32(
                _mm_madd_epi16(_mm_unpacklo_epi8(digits, zero), low),
                _mm_madd_epi16(_mm_unpackhi_epi8(digits, zero), high),
            );
            let sums = _mm_add_epi32(sums, _mm_shuffle_epi32::<0b01_00_11_10>(sums));
            let sums = _mm_add_epi32(sums, _mm_shuffle_epi32::<0b10_11_00_01>(sums));
            _mm_cvtsi128_si32(sums) as u32
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use proptest::prelude::*;

    /// What `pshufb` computes, byte by byte.
    fn shuffle_portable(table: [u8; 16], index: [u8; 16]) -> [u8; 16] {
        std::array::from_fn(|i| {
            let at = index[i];
            if at & 0x80 != 0 {
                0
            } else {
                table[(at & 15) as usize]
            }
        })
    }

    proptest! {
        #[test]
        fn byte_arithmetic_is_its_definition(
            x in prop::array::uniform16(0u8..6),
            y in prop::array::uniform16(0u8..3),
            digits in prop::array::uniform16(0u8..=255),
            weights in prop::array::uniform16(0i16..=i16::MAX),
        ) {
            let Some(cpu) = super::Ssse3::detect() else { return Ok(()) };
            let m = 3;
            prop_assert_eq!(cpu.add(x, y), std::array::from_fn(|i| x[i] + y[i]));
            prop_assert_eq!(cpu.below(x, m), std::array::from_fn(|i| x[i] % m));
            let twists = cpu.below(cpu.below(x, m), m);
            prop_assert_eq!(cpu.negate(twists, m), std::array::from_fn(|i| (m - twists[i]) % m));
            let sum: i64 = (0..16).map(|i| digits[i] as i64 * weights[i] as i64).sum();
            prop_assert_eq!(cpu.weighted_sum(digits, weights) as i64, sum as i32 as i64);
        }

        #[test]
        fn a_shuffle_is_its_definition(table: [u8; 16], index: [u8; 16]) {
            if let Some(cpu) = super::Ssse3::detect() {
                prop_assert_eq!(cpu.shuffle(table, index), shuffle_portable(table, index));
            }
        }
    }
}
