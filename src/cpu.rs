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
