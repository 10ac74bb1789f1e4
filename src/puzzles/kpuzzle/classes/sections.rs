//! Where each class of the small part numbers its large parts: one section of the
//! index per small class, and inside a section whose representative has a stabiliser,
//! the large parts numbered up to that stabiliser by a prefix.
//!
//! A small class `c` whose representative `s*` is fixed by the symmetries `H` (its
//! stabiliser, besides the identity) holds the positions `(s*, b)` up to `H`: `b` and
//! `h(b)` are one class. Taking the smallest rank over `H` names each class once but
//! leaves the other ranks of its orbit as unused slots, up to `|H|` per class (the
//! FTO: two per class, half the index).
//!
//! A **prefix** removes most of them. The places of the large orbit fall into orbits
//! under `H`'s place maps; a union `P` of a few of them (2 to 4 places) is mapped onto
//! itself by every `h`, so the pieces at `P`, the prefix `q`, go to `h(q)` whatever
//! the rest is. Ranked with the places of `P` first, a large part's rank is
//! `q · R + rest`: the prefixes (`k!/(k-|P|)!` of them, a small table) fall into orbits
//! under `H`, each gets a number and a symmetry that takes it to its orbit's least
//! member, and the section numbers `(prefix class, rest)`. Only a prefix that some
//! `h` fixes keeps the smallest rank over those `h` (and its unused slots); most
//! prefixes are fixed by none.

use super::KClasses;
use super::small::SmallClasses;
use super::split::{Acts, Large, LargePart, MAX_LARGE, Split};

/// No prefix: the section ranks its large parts whole.
const WHOLE: u32 = u32::MAX;

/// The most places a prefix takes.
const MAX_PREFIX: usize = 6;

/// The most prefixes a section tables.
const MAX_PREFIXES: usize = 1 << 20;

/// A prefix of this many places is enough (most prefixes are then fixed by no `h`).
const ENOUGH_PLACES: usize = 4;

/// One small class's section of the index.
#[derive(Debug, Clone, Copy)]
pub(super) struct Section {
    /// Its first index.
    pub offset: u64,
    /// The ranks per prefix (the whole large part's count without one).
    pub rest: u64,
    /// `⌈2^64 / rest⌉`: a rank below 2^32 divided by `rest` as a multiplication
    /// (exact for 32-bit numerators: Lemire, Kaser and Kurz, "Faster remainder by
    /// direct computation", 2019); 0 where `rest` is 1.
    rest_reciprocal: u64,
    /// Its prefix in `Sections::prefixes`, or [`WHOLE`].
    prefix: u32,
}

impl Section {
    /// The prefix of a large part of rank `rank` in the prefix's order: `rank / rest`.
    #[inline(always)]
    fn prefix_of(&self, rank: u64) -> usize {
        if rank >> 32 == 0 && self.rest_reciprocal != 0 {
            ((self.rest_reciprocal as u128 * rank as u128) >> 64) as usize
        } else {
            (rank / self.rest) as usize
        }
    }
}

/// Where [`KClasses::number_begin`] left a numbering.
pub(super) enum Numbering {
    /// The index.
    Done(u64),
    /// The large part's rank in its section's prefix order; its prefix's table entry
    /// is on its way into the cache.
    Prefixed(u64),
}

/// A section's prefix: the places ranked first, and the prefixes' classes.
#[derive(Debug, Clone)]
struct Prefix {
    /// The large orbit's places in ranking order, the prefix's places first.
    order: [u8; MAX_LARGE],
    /// Where each place stands in `order`.
    position: [u8; MAX_LARGE],
    /// The number of prefix places.
    places: usize,
    /// Per prefix (its rank), what numbering a large part with that prefix needs.
    table: Vec<PrefixEntry>,
    /// Per prefix class: its least prefix.
    least: Vec<u32>,
    /// Per prefix class: where its acts fixing its least prefix start in `fixing`
    /// (one more entry: the end).
    fixing_start: Vec<u32>,
    /// The acts (as in [`PrefixEntry::to_least`]) that fix each class's least
    /// prefix, class after class.
    fixing: Vec<u16>,
}

/// What a prefix's table entry holds: one entry, one cache line read, per large part
/// numbered.
#[derive(Debug, Clone, Copy)]
struct PrefixEntry {
    /// The prefix's class.
    class: u32,
    /// The stabiliser's act (0 the identity, `j` the class's `j`-th act) that takes
    /// the prefix to its class's least prefix.
    to_least: u16,
    /// How many acts fix the class's least prefix (most classes: none, and `fixing`
    /// is not read).
    fixed_by: u16,
}

impl Prefix {
    /// The acts that fix prefix class `class`'s least prefix.
    fn fixing(&self, class: u32) -> &[u16] {
        let class = class as usize;
        &self.fixing[self.fixing_start[class] as usize..self.fixing_start[class + 1] as usize]
    }
}

/// Every section of a puzzle of classes.
#[derive(Debug, Clone, Default)]
pub(super) struct Sections {
    /// Per small class, where the sections differ.
    sections: Vec<Section>,
    /// Where every section ranks its large parts whole: their common size (the
    /// sections are then computed, not stored: the 3x3x3's edges have ten million).
    uniform: Option<Section>,
    prefixes: Vec<Prefix>,
    /// The index's size: the end of the last section.
    total: u64,
}

impl Sections {
    /// The number of indices, or `None` beyond 64 bits.
    pub fn total(&self) -> Option<u64> {
        (self.total != u64::MAX).then_some(self.total)
    }

    /// Class `c`'s section.
    #[inline(always)]
    pub fn get(&self, c: usize) -> Section {
        match self.uniform {
            Some(section) => Section {
                offset: c as u64 * section.rest,
                ..section
            },
            None => self.sections[c],
        }
    }

    /// The indices of class `c`'s section.
    pub fn slots(&self, c: usize) -> u64 {
        if let Some(section) = self.uniform {
            return section.rest;
        }
        let end = self.sections.get(c + 1).map_or(self.total, |s| s.offset);
        end - self.sections[c].offset
    }
}

impl Sections {
    /// One section per small class, with a prefix where the class's representative has
    /// a stabiliser and the large part is an orbit's pieces.
    pub fn build(split: &Split, classes: &SmallClasses) -> Sections {
        if split.large != Large::Orbit {
            // No prefixes: every section ranks its large parts whole.
            let rest = split.large_count;
            return Sections {
                sections: Vec::new(),
                uniform: Some(Section {
                    offset: 0,
                    rest,
                    rest_reciprocal: if rest > 1 { u64::MAX / rest + 1 } else { 0 },
                    prefix: WHOLE,
                }),
                prefixes: Vec::new(),
                total: (classes.representatives.len() as u64).saturating_mul(rest),
            };
        }
        let mut sections = Vec::with_capacity(classes.representatives.len());
        let mut prefixes: Vec<Prefix> = Vec::new();
        // Classes whose stabilisers act alike on the large part share one prefix (its
        // table is the same), so that the tables read while numbering stay few.
        let mut prefix_of_acts: std::collections::HashMap<Vec<u8>, Option<u32>> =
            std::collections::HashMap::new();
        let k = split.large_positions.len();
        let mut offset = 0u64;
        for c in 0..classes.representatives.len() {
            let (start, count) = classes.stabiliser_of[c];
            let id = if count > 0 && split.large == Large::Orbit {
                let acts = classes.stabilisers.key(start as usize, count as usize);
                *prefix_of_acts.entry(acts).or_insert_with(|| {
                    prefix_for(k, &classes.stabilisers, start, count).map(|prefix| {
                        prefixes.push(prefix);
                        (prefixes.len() - 1) as u32
                    })
                })
            } else {
                None
            };
            let (rest, slots, id) = match id {
                Some(id) => {
                    let prefix = &prefixes[id as usize];
                    let rest = split.large_count / prefix.table.len() as u64;
                    let slots = prefix.least.len() as u64 * rest;
                    (rest, slots, id)
                }
                None => (split.large_count, split.large_count, WHOLE),
            };
            sections.push(Section {
                offset,
                rest,
                rest_reciprocal: if rest > 1 { u64::MAX / rest + 1 } else { 0 },
                prefix: id,
            });
            offset = offset.saturating_add(slots);
        }
        Sections {
            sections,
            uniform: None,
            prefixes,
            total: offset,
        }
    }
}

/// The prefix of a class whose stabiliser's acts are `count` acts from `start`:
/// the smallest place orbits, up to [`ENOUGH_PLACES`] places or more if an orbit
/// is larger, within [`MAX_PREFIX`] places, [`MAX_PREFIXES`] prefixes and 2
/// places left; `None` when no orbit fits.
fn prefix_for(k: usize, stabilisers: &Acts, start: u32, count: u32) -> Option<Prefix> {
    let acts: Vec<usize> = (start..start + count).map(|a| a as usize).collect();
    let orbits = place_orbits(k, stabilisers, &acts);
    let limit = MAX_PREFIX.min(k.saturating_sub(2));
    let prefixes = |places: usize| (0..places).map(|i| k - i).product::<usize>();
    let mut chosen: Vec<u8> = Vec::new();
    for orbit in &orbits {
        if chosen.len() >= ENOUGH_PLACES {
            break;
        }
        let places = chosen.len() + orbit.len();
        if places <= limit && prefixes(places) <= MAX_PREFIXES {
            chosen.extend_from_slice(orbit);
        }
    }
    if chosen.is_empty() {
        return None;
    }
    chosen.sort_unstable();
    let mut order = Split::whole_order();
    let mut at = 0;
    for &p in &chosen {
        order[at] = p;
        at += 1;
    }
    for p in 0..k as u8 {
        if !chosen.contains(&p) {
            order[at] = p;
            at += 1;
        }
    }
    let mut position = Split::whole_order();
    for (i, &p) in order.iter().enumerate().take(k) {
        position[p as usize] = i as u8;
    }
    let mut prefix = Prefix {
        order,
        position,
        places: chosen.len(),
        table: Vec::new(),
        least: Vec::new(),
        fixing_start: vec![0],
        fixing: Vec::new(),
    };
    classify_prefixes(k, stabilisers, &mut prefix, &acts);
    Some(prefix)
}

/// The orbits of the large orbit's places under the maps `from` of `acts`,
/// smallest first.
fn place_orbits(k: usize, stabilisers: &Acts, acts: &[usize]) -> Vec<Vec<u8>> {
    let mut seen = [false; MAX_LARGE];
    let mut orbits = Vec::new();
    for place in 0..k {
        if seen[place] {
            continue;
        }
        seen[place] = true;
        let mut orbit = vec![place as u8];
        let mut next = 0;
        while next < orbit.len() {
            let p = orbit[next] as usize;
            next += 1;
            for &a in acts {
                let q = stabilisers.row(a).0[p] as usize;
                if !seen[q] {
                    seen[q] = true;
                    orbit.push(q as u8);
                }
            }
        }
        orbits.push(orbit);
    }
    orbits.sort_by_key(Vec::len);
    orbits
}

/// Fills `prefix`'s table: each prefix's class under `acts` and the act to its
/// class's least prefix, and the acts fixing each least prefix.
fn classify_prefixes(k: usize, stabilisers: &Acts, prefix: &mut Prefix, acts: &[usize]) {
    let count: usize = (0..prefix.places).map(|i| k - i).product();
    let mut class_of_least = vec![u32::MAX; count];
    let mut table = Vec::with_capacity(count);
    for q in 0..count as u32 {
        let images: Vec<u32> = std::iter::once(q)
            .chain(
                acts.iter()
                    .map(|&a| act_on_prefix(k, stabilisers, prefix, a, q)),
            )
            .collect();
        let least = *images.iter().min().expect("the identity's image");
        let act = images.iter().position(|&i| i == least).expect("present") as u16;
        if class_of_least[least as usize] == u32::MAX {
            class_of_least[least as usize] = prefix.least.len() as u32;
            prefix.least.push(least);
            let fixing: Vec<u16> = (1..images.len())
                .filter(|&j| act_on_prefix(k, stabilisers, prefix, acts[j - 1], least) == least)
                .map(|j| j as u16)
                .collect();
            prefix.fixing.extend_from_slice(&fixing);
            prefix.fixing_start.push(prefix.fixing.len() as u32);
        }
        let class = class_of_least[least as usize];
        let fixing = &prefix.fixing_start[class as usize..];
        table.push(PrefixEntry {
            class,
            to_least: act,
            fixed_by: (fixing[1] - fixing[0]) as u16,
        });
    }
    prefix.table = table;
}

/// The prefix (by rank) that act `at` of the stabilisers makes of prefix `q`.
fn act_on_prefix(k: usize, stabilisers: &Acts, prefix: &Prefix, at: usize, q: u32) -> u32 {
    let labels = decode_prefix(q, k, prefix.places);
    let (from, _, label, _) = stabilisers.row(at);
    let mut image = [0u8; MAX_PREFIX];
    for (j, out) in image.iter_mut().enumerate().take(prefix.places) {
        let source = prefix.position[from[prefix.order[j] as usize] as usize] as usize;
        *out = label[labels[source] as usize];
    }
    encode_prefix(&image[..prefix.places], k)
}

impl KClasses {
    /// The index of the large part `b` (already taken to the representative's frame)
    /// in class `c`'s section.
    #[inline(always)]
    pub(super) fn number(&self, c: u32, b: &LargePart) -> u64 {
        match self.number_begin(c, b) {
            Numbering::Done(index) => index,
            Numbering::Prefixed(rank) => self.number_end(c, b, rank),
        }
    }

    /// The first half of [`KClasses::number`]: the index itself in a section without a
    /// prefix; else the rank of `b` in the prefix's order, with the prefix's table
    /// entry asked for (a prefetch), so that several numberings can wait for their
    /// entries at once ([`KClasses::number_end`] finishes each).
    #[inline(always)]
    pub(super) fn number_begin(&self, c: u32, b: &LargePart) -> Numbering {
        let section = self.sections.get(c as usize);
        if section.prefix == WHOLE {
            return Numbering::Done(section.offset + self.canonical_rank(c, b));
        }
        let prefix = &self.sections.prefixes[section.prefix as usize];
        let rank = self.split.rank_large_in(b, &prefix.order);
        crate::cpu::prefetch(&prefix.table[section.prefix_of(rank)]);
        Numbering::Prefixed(rank)
    }

    /// The index of `b` in class `c`'s section with a prefix, from its rank in the
    /// prefix's order ([`KClasses::number_begin`]).
    #[inline(always)]
    pub(super) fn number_end(&self, c: u32, b: &LargePart, rank: u64) -> u64 {
        let section = self.sections.get(c as usize);
        let prefix = &self.sections.prefixes[section.prefix as usize];
        let (start, _) = self.small_classes.stabiliser_of[c as usize];
        let act = |j: u16, b: &LargePart| {
            self.split.apply_act(
                &self.small_classes.stabilisers,
                (start + j as u32 - 1) as usize,
                b,
            )
        };
        let entry = prefix.table[section.prefix_of(rank)];
        let (b, mut best) = if entry.to_least == 0 {
            (*b, rank - section.prefix_of(rank) as u64 * section.rest)
        } else {
            let moved = act(entry.to_least, b);
            let rank = self.split.rank_large_in(&moved, &prefix.order);
            (moved, rank - section.prefix_of(rank) as u64 * section.rest)
        };
        if entry.fixed_by > 0 {
            for &j in prefix.fixing(entry.class) {
                let rank = self.split.rank_large_in(&act(j, &b), &prefix.order);
                best = best.min(rank % section.rest);
            }
        }
        section.offset + entry.class as u64 * section.rest + best
    }

    /// The section of `index` (its small class) and its slot within the section.
    #[inline(always)]
    pub(super) fn locate(&self, index: u64) -> (usize, u64) {
        if let Some(section) = self.sections.uniform {
            let c = section.prefix_of(index) as u64;
            return (c as usize, index - c * section.rest);
        }
        let sections = &self.sections.sections;
        let c = sections.partition_point(|s| s.offset <= index) - 1;
        (c, index - sections[c].offset)
    }

    /// [`KClasses::locate`] for ascending indices: `near` is the section of the index
    /// before (0 at first), checked before a search and left at `index`'s section.
    #[inline(always)]
    pub(super) fn locate_near(&self, index: u64, near: &mut usize) -> (usize, u64) {
        if self.sections.uniform.is_some() {
            return self.locate(index);
        }
        let sections = &self.sections.sections;
        let c = *near;
        let end = sections
            .get(c + 1)
            .map_or(self.sections.total, |s| s.offset);
        if sections[c].offset <= index && index < end {
            return (c, index - sections[c].offset);
        }
        let (c, within) = self.locate(index);
        *near = c;
        (c, within)
    }

    /// The class, large part and canonicity of `index` (`Large::Nothing` excluded):
    /// whether `index` is the one its class of positions is numbered by.
    #[inline(always)]
    pub(super) fn unnumber(&self, index: u64) -> (usize, LargePart, bool) {
        let (c, within) = self.locate(index);
        self.unnumber_in(c, within)
    }

    /// [`KClasses::unnumber`] of slot `within` of class `c`'s section.
    #[inline(always)]
    pub(super) fn unnumber_in(&self, c: usize, within: u64) -> (usize, LargePart, bool) {
        let section = self.sections.get(c);
        if section.prefix == WHOLE {
            let b = self.split.unrank_large(within);
            let canonical = self.is_least(c as u32, &b, within);
            return (c, b, canonical);
        }
        let prefix = &self.sections.prefixes[section.prefix as usize];
        let (start, _) = self.small_classes.stabiliser_of[c];
        let class = section.prefix_of(within);
        let rest = within - class as u64 * section.rest;
        let rank = prefix.least[class] as u64 * section.rest + rest;
        let b = self.split.unrank_large_in(rank, &prefix.order);
        let canonical = prefix.fixing(class as u32).iter().all(|&j| {
            let moved = self.split.apply_act(
                &self.small_classes.stabilisers,
                (start + j as u32 - 1) as usize,
                &b,
            );
            self.split.rank_large_in(&moved, &prefix.order) % section.rest >= rest
        });
        (c, b, canonical)
    }
}

/// The pieces at the first `places` ranked places of a prefix of rank `q` (a partial
/// permutation of `0..k`, Lehmer digits in radices `k, k-1, ...`).
fn decode_prefix(mut q: u32, k: usize, places: usize) -> [u8; MAX_PREFIX] {
    let mut digits = [0u32; MAX_PREFIX];
    for i in (0..places).rev() {
        let radix = (k - i) as u32;
        digits[i] = q % radix;
        q /= radix;
    }
    let mut used = 0u32;
    let mut labels = [0u8; MAX_PREFIX];
    for i in 0..places {
        // The digit-th smallest label not used yet.
        let v = super::split::nth_unused(used, digits[i]);
        labels[i] = v;
        used |= 1 << v;
    }
    labels
}

/// The rank of the prefix `labels` (see [`decode_prefix`]).
fn encode_prefix(labels: &[u8], k: usize) -> u32 {
    let mut used = 0u32;
    let mut q = 0u32;
    for (i, &v) in labels.iter().enumerate() {
        let smaller = v as u32 - (used & ((1u32 << v) - 1)).count_ones();
        used |= 1 << v;
        q = q * (k - i) as u32 + smaller;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::super::tests::SMALL_PART_LIMIT;
    use super::*;
    use crate::Puzzle;
    use crate::analysis::analyze;
    use crate::driver::Control;
    use crate::puzzles::kpuzzle::library::{self, Twisty};

    /// The Pyraminx with its edges as the large part (the centres' twists enumerated,
    /// 81 values): sections with prefixes, as on the FTO's edges.
    fn pyraminx_with_large_edges() -> KClasses {
        SMALL_PART_LIMIT.with(|l| l.set(Some(100)));
        let opened = library::open_any("pyraminx --symmetry");
        SMALL_PART_LIMIT.with(|l| l.set(None));
        match opened.unwrap() {
            Twisty::Classes(c) => *c,
            Twisty::Plain(_) => panic!("no classes"),
        }
    }

    #[test]
    fn prefixes_number_the_classes_the_whole_search_finds() {
        let p = pyraminx_with_large_edges();
        assert_eq!(p.split.large, Large::Orbit);
        assert!(!p.sections.prefixes.is_empty(), "no section has a prefix");
        let a = analyze(&p, 0, &Control::default()).unwrap();
        let c = a.classes.as_ref().unwrap();
        // The published Pyraminx (no tips): 933,120 positions, 11 moves at most.
        let plain = analyze(&library::open("pyraminx").unwrap(), 0, &Control::default()).unwrap();
        let expected: Vec<u128> = plain.histogram.iter().map(|&n| n as u128).collect();
        assert_eq!(c.positions_by_depth, expected);
        assert_eq!(c.burnside_classes, a.reachable as u128);
        // Slots left unused: what the sections' duplicates leave, counted apart.
        assert_eq!(a.indices - a.reachable, p.never_reached());
        // Fewer slots than one whole large part per small class.
        assert!(a.indices < p.small_classes.representatives.len() as u64 * p.split.large_count);
        // Every symmetry's image of a position has its index.
        let base = p.base();
        let mut pattern = base.goal().clone();
        let mut seed = 7u64;
        for _ in 0..300 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            pattern = base.apply(&pattern, (seed >> 33) as usize % base.turns().len());
            let index = p.rank(&pattern);
            for sym in 0..p.symmetry_count() {
                assert_eq!(p.rank(&p.conjugate(&pattern, sym)), index);
            }
        }
        // Every canonical index's representative ranks back to it.
        for index in (0..p.index_count()).step_by(7) {
            let (x, canonical) = p.representative(index);
            if canonical {
                assert_eq!(p.index_of(&x), index);
            }
        }
    }

    #[test]
    fn prefixes_decode_what_they_encode() {
        for k in [4usize, 6, 12] {
            for places in 1..=3 {
                let count: u32 = (0..places).map(|i| (k - i) as u32).product();
                for q in 0..count {
                    let labels = decode_prefix(q, k, places);
                    assert_eq!(encode_prefix(&labels[..places], k), q);
                }
            }
        }
    }
}
