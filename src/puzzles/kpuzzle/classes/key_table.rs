//! A map from the small part's keys ([`super::split::Split::key`]) to their numbers:
//! open addressing with linear probing in one array of slots backed by huge pages,
//! sized once from the expected count, with a prefetch for lookups in batches.
//!
//! The small part of a class index holds up to millions of values and every one of
//! their neighbours is looked up once while they are numbered: a general hash map
//! spends two cache misses and a page walk on each, this table one miss (the slot
//! holds the key and its number together) and lets a batch of lookups overlap.

/// One slot: a key and its number, or no key ([`Slot::EMPTY`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    key: u64,
    id: u32,
}

impl Slot {
    const EMPTY: Slot = Slot {
        key: 0,
        id: u32::MAX,
    };
}

/// Keys to numbers below `u32::MAX`; grows (doubling) when more than half full.
#[derive(Debug, Clone)]
pub(super) struct KeyTable {
    slots: Vec<Slot>,
    /// `slots.len() - 1` (a power of two less one).
    mask: usize,
    len: usize,
}

/// SplitMix64's finalizer: keys are packed coordinates, and this spreads them over
/// every bit of the slot's index.
#[inline]
fn spread(key: u64) -> u64 {
    let x = (key ^ key >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ x >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ x >> 31
}

impl KeyTable {
    /// An empty table with room for `expected` keys before it grows.
    pub fn with_capacity(expected: usize) -> KeyTable {
        let slots = (expected.max(8) * 2).next_power_of_two();
        let mut table = Vec::with_capacity(slots);
        crate::sys::advise_huge_pages(table.spare_capacity_mut());
        table.resize(slots, Slot::EMPTY);
        KeyTable {
            slots: table,
            mask: slots - 1,
            len: 0,
        }
    }

    /// The number of keys.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        spread(key) as usize & self.mask
    }

    /// Fetches the slot where a lookup of `key` starts into the caches.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::cpu::prefetch(&self.slots[self.home(key)]);
    }

    /// The number of `key`, if it has one.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let mut at = self.home(key);
        loop {
            let slot = self.slots[at];
            if slot.id == u32::MAX {
                return None;
            }
            if slot.key == key {
                return Some(slot.id);
            }
            at = (at + 1) & self.mask;
        }
    }

    /// The number of `key`; if it has none, `id` becomes its number.
    #[inline]
    pub fn get_or_insert(&mut self, key: u64, id: u32) -> u32 {
        debug_assert!(id != u32::MAX);
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mut at = self.home(key);
        loop {
            let slot = &mut self.slots[at];
            if slot.id == u32::MAX {
                *slot = Slot { key, id };
                self.len += 1;
                return id;
            }
            if slot.key == key {
                return slot.id;
            }
            at = (at + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, KeyTable::with_capacity(self.slots.len()));
        for slot in old.slots.into_iter().filter(|s| s.id != u32::MAX) {
            self.get_or_insert(slot.key, slot.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The table answers like a map: the first number given to a key stays its
        /// number, through growth, and keys never given have none.
        #[test]
        fn numbers_keys_like_a_map(keys in proptest::collection::vec(any::<u64>(), 0..600)) {
            let mut table = KeyTable::with_capacity(4);
            let mut map = std::collections::HashMap::new();
            for (i, &key) in keys.iter().enumerate() {
                let id = table.get_or_insert(key, i as u32);
                prop_assert_eq!(id, *map.entry(key).or_insert(i as u32));
            }
            prop_assert_eq!(table.len(), map.len());
            for (&key, &id) in &map {
                prop_assert_eq!(table.get(key), Some(id));
            }
            prop_assert_eq!(table.get(1 << 63 | 12345), map.get(&(1 << 63 | 12345)).copied());
        }
    }
}
