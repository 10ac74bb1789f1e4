//! Proof tokens for CPU features: a value of one of these types exists only on a CPU
//! that has the feature (its one constructor checks at run time), so a function
//! compiled with `#[target_feature]` is sound to call whenever a token is at hand.

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
/// compression of 64-bit lanes by a mask) and POPCNT.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct Avx512(());

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The token, if this CPU has AVX-512 F and BW, and POPCNT.
    pub fn detect() -> Option<Avx512> {
        (std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("popcnt"))
        .then_some(Avx512(()))
    }
}
