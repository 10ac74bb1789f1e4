//! The slots of a class index a bottom-up level found not to be their class's own,
//! remembered so that the levels after it skip them without asking again.
//!
//! A slot whose large part some symmetry of its small class makes smaller is never
//! reached, and a bottom-up level asks it about its neighbours' depths only after
//! checking that (an act and a rank per symmetry of the stabiliser), which on a puzzle
//! with many such slots can cost more than the level's questions. Each section with a
//! slot found so gets a bit per slot, allocated at the first one, so that puzzles and
//! sections without them cost nothing, and a count of its known slots, which tells the
//! direction rule how many are still to check.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Per section, once a slot of it is found not to be its class's own: a bit per slot.
pub(super) struct KnownHoles {
    sections: Vec<OnceLock<SectionHoles>>,
}

/// One section's known slots: a bit per slot, and how many are set.
struct SectionHoles {
    bits: Box<[AtomicU64]>,
    known: AtomicU64,
}

impl KnownHoles {
    /// Nothing known of `sections` sections.
    pub fn new(sections: usize) -> KnownHoles {
        KnownHoles {
            sections: (0..sections).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Whether slot `within` of section `section` is known not to be its class's own.
    #[inline(always)]
    pub fn contains(&self, section: usize, within: u64) -> bool {
        self.sections[section].get().is_some_and(|holes| {
            holes.bits[(within / 64) as usize].load(Ordering::Relaxed) & 1 << (within % 64) != 0
        })
    }

    /// Records slot `within` of section `section` (of `slots` slots) as not its
    /// class's own.
    pub fn insert(&self, section: usize, within: u64, slots: u64) {
        let holes = self.sections[section].get_or_init(|| SectionHoles {
            bits: (0..slots.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            known: AtomicU64::new(0),
        });
        let bit = 1 << (within % 64);
        if holes.bits[(within / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            holes.known.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many slots are known.
    pub fn known(&self) -> u64 {
        let sections = self.sections.iter().filter_map(OnceLock::get);
        sections
            .map(|holes| holes.known.load(Ordering::Relaxed))
            .sum()
    }
}

/// A copy knows nothing yet: what it holds is a cache of checks any copy can make.
impl Clone for KnownHoles {
    fn clone(&self) -> KnownHoles {
        KnownHoles::new(self.sections.len())
    }
}

impl std::fmt::Debug for KnownHoles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.sections.iter().filter(|s| s.get().is_some()).count();
        write!(f, "KnownHoles({known} of {} sections)", self.sections.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_known_once_inserted_and_copies_start_empty() {
        let holes = KnownHoles::new(3);
        assert_eq!(holes.known(), 0);
        assert!(!holes.contains(1, 70));
        holes.insert(1, 70, 100);
        holes.insert(1, 0, 100);
        holes.insert(1, 70, 100);
        holes.insert(2, 99, 100);
        assert_eq!(holes.known(), 3);
        assert!(holes.contains(1, 70) && holes.contains(1, 0));
        assert!(!holes.contains(1, 69) && !holes.contains(0, 70) && !holes.contains(2, 70));
        assert!(!holes.clone().contains(1, 70));
        assert_eq!(holes.clone().known(), 0);
    }
}
