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
        fn a_shuffle_is_its_definition(table: [u8; 16], index: [u8; 16]) {
            if let Some(cpu) = super::Ssse3::detect() {
                prop_assert_eq!(cpu.shuffle(table, index), shuffle_portable(table, index));
            }
        }
    }
}
