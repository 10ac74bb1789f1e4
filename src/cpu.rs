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
