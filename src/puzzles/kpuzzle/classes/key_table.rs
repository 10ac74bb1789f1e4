//! A map from the small part's keys ([`super::split::Split::key`]) to their numbers:
//! open addressing with linear probing in one array of slots backed by huge pages,
//! sized once from the expected count, with a prefetch for lookups in batches.
//!
//! The small part of a class index holds up to millions of values and every one of
//! their neighbours is looked up once while they are numbered: a general hash map
//! spends two cache misses and a page walk on each, this table one miss (the slot
//! holds the key and its number together) and lets a batch of lookups overlap.

use rayon::prelude::*;

/// How a slot holds a key and its number; the all-zero slot is empty, so that a
/// table starts as zeroed memory.
trait Slot: Copy + Default + Eq + Send {
    fn new(key: u64, id: u32) -> Self;
    fn key(self) -> u64;
    /// The number, or `None` for an empty slot.
    fn id(self) -> Option<u32>;
}

/// A key of any width and its number plus one: 16 bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Wide {
    key: u64,
    id_plus_one: u32,
}

impl Slot for Wide {
    #[inline(always)]
    fn new(key: u64, id: u32) -> Self {
        Wide {
            key,
            id_plus_one: id + 1,
        }
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self.key
    }
    #[inline(always)]
    fn id(self) -> Option<u32> {
        self.id_plus_one.checked_sub(1)
    }
}

/// The bits of a [`Narrow`] slot's number plus one: numbers below `2^23`
/// ([`super::MAX_SMALL_PART`]).
const NARROW_ID_BITS: u32 = 24;

/// A key of at most `64 - NARROW_ID_BITS` bits above its number plus one: 8 bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Narrow(u64);

impl Slot for Narrow {
    #[inline(always)]
    fn new(key: u64, id: u32) -> Self {
        Narrow(key << NARROW_ID_BITS | (id as u64 + 1))
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self.0 >> NARROW_ID_BITS
    }
    #[inline(always)]
    fn id(self) -> Option<u32> {
        ((self.0 & ((1 << NARROW_ID_BITS) - 1)) as u32).checked_sub(1)
    }
}

/// Open addressing over slots of one layout.
#[derive(Debug, Clone)]
struct Slots<S> {
    slots: Vec<S>,
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

impl<S: Slot> Slots<S> {
    fn with_capacity(expected: usize) -> Slots<S> {
        let slots = (expected.max(8) * 2).next_power_of_two();
        let mut table = crate::sys::huge_vec(slots);
        // Empty slots written on the pool: the pages' first touch (their zeroing by
        // the system) shared by the threads.
        table.par_extend((0..slots).into_par_iter().map(|_| S::default()));
        Slots {
            slots: table,
            mask: slots - 1,
            len: 0,
        }
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        spread(key) as usize & self.mask
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        crate::cpu::prefetch(&self.slots[self.home(key)]);
    }

    #[inline(always)]
    fn get(&self, key: u64) -> Option<u32> {
        let mut at = self.home(key);
        loop {
            let slot = self.slots[at];
            let id = slot.id()?;
            if slot.key() == key {
                return Some(id);
            }
            at = (at + 1) & self.mask;
        }
    }

    #[inline(always)]
    fn get_or_insert(&mut self, key: u64, id: u32) -> u32 {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mut at = self.home(key);
        loop {
            let slot = &mut self.slots[at];
            match slot.id() {
                None => {
                    *slot = S::new(key, id);
                    self.len += 1;
                    return id;
                }
                Some(found) if slot.key() == key => return found,
                Some(_) => at = (at + 1) & self.mask,
            }
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, Slots::with_capacity(self.slots.len()));
        for slot in old.slots {
            if let Some(id) = slot.id() {
                self.get_or_insert(slot.key(), id);
            }
        }
    }
}

/// Keys to numbers below `2^23`; grows (doubling) when more than half full. Keys of
/// at most 40 bits share a slot's 8 bytes with their number.
#[derive(Debug, Clone)]
pub(super) struct KeyTable(Layout);

#[derive(Debug, Clone)]
enum Layout {
    Narrow(Slots<Narrow>),
    Wide(Slots<Wide>),
}

impl KeyTable {
    /// An empty table with room for `expected` keys of `key_bits` bits before it
    /// grows.
    pub fn with_capacity(expected: usize, key_bits: u32) -> KeyTable {
        if key_bits <= 64 - NARROW_ID_BITS {
            KeyTable(Layout::Narrow(Slots::with_capacity(expected)))
        } else {
            KeyTable(Layout::Wide(Slots::with_capacity(expected)))
        }
    }

    /// The number of keys.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        match &self.0 {
            Layout::Narrow(t) => t.len,
            Layout::Wide(t) => t.len,
        }
    }

    /// Fetches the slot where a lookup of `key` starts into the caches.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        match &self.0 {
            Layout::Narrow(t) => t.prefetch(key),
            Layout::Wide(t) => t.prefetch(key),
        }
    }

    /// The number of `key`, if it has one.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<u32> {
        match &self.0 {
            Layout::Narrow(t) => t.get(key),
            Layout::Wide(t) => t.get(key),
        }
    }

    /// The number of `key`; if it has none, `id` (below `2^23`) becomes its number.
    #[inline(always)]
    pub fn get_or_insert(&mut self, key: u64, id: u32) -> u32 {
        debug_assert!(id < 1 << (NARROW_ID_BITS - 1));
        match &mut self.0 {
            Layout::Narrow(t) => t.get_or_insert(key, id),
            Layout::Wide(t) => t.get_or_insert(key, id),
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
        fn numbers_keys_like_a_map(
            keys in proptest::collection::vec(any::<u64>(), 0..600),
            narrow: bool,
        ) {
            let (bits, keys): (u32, Vec<u64>) = if narrow {
                (40, keys.iter().map(|k| k >> 24).collect())
            } else {
                (64, keys)
            };
            let mut table = KeyTable::with_capacity(4, bits);
            let mut map = std::collections::HashMap::new();
            for (i, &key) in keys.iter().enumerate() {
                let id = table.get_or_insert(key, i as u32);
                prop_assert_eq!(id, *map.entry(key).or_insert(i as u32));
            }
            prop_assert_eq!(table.len(), map.len());
            for (&key, &id) in &map {
                prop_assert_eq!(table.get(key), Some(id));
            }
            let absent = if narrow { 1 << 39 | 12345 } else { 1 << 63 | 12345 };
            prop_assert_eq!(table.get(absent), map.get(&absent).copied());
        }
    }
}
