//! A twisty puzzle whose indices are symmetry classes of positions: `--symmetry`.
//!
//! A [`KClasses`] is a [`KPuzzle`] seen through its symmetry group
//! ([`super::symmetry`]): one index per class `{S⁻¹·P·S}` (positions up to rotation
//! are brought home first, [`super::symmetry::Frame`]), and the neighbours of an index
//! are the classes of its representative's neighbours. It is an ordinary [`Puzzle`],
//! so the engine, both executors and the table writer run over classes unchanged.
//!
//! # The class index
//!
//! The kept positions' coordinates split in two: a small part `s` (enumerated: every
//! value the moves reach gets a number, so that part has no slack) and a large part
//! `b` (one orbit, or one orbit's orientations, ranked as a permutation and a twist
//! vector). Each symmetry maps `s` to a value that depends on `s` alone, so the
//! values of `s` fall into classes of their own, and each has a table entry naming a
//! symmetry that takes it to its class's representative `s*`. The index of a position
//! is `class(s) * |b| + rank(b')`, with `b'` the large part after that symmetry; where
//! `s*` is fixed by other symmetries too (its stabiliser), the smallest rank over them
//! is taken. The indices whose `b` is not that smallest are never reached (they cost
//! their slot): the overhead over `positions / |group|` is the number of classes of
//! `s` times `|group|` over the number of values of `s`. A puzzle small enough for the
//! small part to be all of it (a few million positions) numbers its classes densely,
//! with no slack at all.
//!
//! # Positions from classes
//!
//! A class of `n` positions has a stabiliser of `|group| / n` symmetries. Counting
//! pairs (position, symmetry fixing it) per depth gives `positions(d) = |group| ·
//! classes(d) - Σ_{S ≠ 1} fixed_d(S)`, where `fixed_d(S)` counts the positions at
//! depth `d` that `S` fixes: those are few and are enumerated directly
//! ([`KClasses::positions_by_depth`]); Burnside's lemma over the same sets gives the
//! number of classes, which the tests compare with the search's.

mod sections;

use std::collections::HashMap;

use super::definition::{Pattern, Transformation};
use super::symmetry::{Compact, Frame, Symmetry, reflect};
use super::{KPuzzle, KPuzzleError, Turn};
use crate::puzzle::{ClassCounts, Notation, PositionError, Puzzle, Successor};

/// The most values the small part may take.
pub const MAX_SMALL_PART: usize = 1 << 23;

/// The most values the split chooses to enumerate: [`MAX_SMALL_PART`], less in tests
/// that need a large part on a small puzzle.
fn small_part_limit() -> u128 {
    #[cfg(test)]
    if let Some(limit) = tests::SMALL_PART_LIMIT.with(std::cell::Cell::get) {
        return limit;
    }
    MAX_SMALL_PART as u128
}

/// The most pieces of the ranked large part.
const MAX_LARGE: usize = 20;

/// What the large part `b` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Large {
    /// Nothing: the small part is the whole position.
    Nothing,
    /// One orbit's pieces and orientations.
    Orbit,
    /// One orbit's orientations (its pieces are in the small part).
    Twists,
}

/// How the symmetry that takes a small part to its class's representative acts on the
/// large part, in the large orbit's own numbering: `b'[i]` takes `b[from[i]]`, its
/// piece `v` relabelled `label[v]`, its twist (negated by a mirror, `negate`) plus
/// `add[i]` (plus `label_twist[v]`).
#[derive(Debug, Clone, Default)]
struct Acts {
    k: usize,
    from: Vec<u8>,
    add: Vec<u8>,
    label: Vec<u8>,
    label_twist: Vec<u8>,
    negate: Vec<bool>,
}

impl Acts {
    fn new(k: usize) -> Acts {
        Acts {
            k,
            ..Acts::default()
        }
    }

    fn push(&mut self, from: &[u8], add: &[u8], label: &[u8], label_twist: &[u8], negate: bool) {
        self.negate.push(negate);
        self.from.extend_from_slice(from);
        self.add.extend_from_slice(add);
        self.label.extend_from_slice(label);
        self.label_twist.extend_from_slice(label_twist);
    }
}

/// A position's large part, in the large orbit's numbering.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct LargePart {
    pieces: [u8; MAX_LARGE],
    twists: [u8; MAX_LARGE],
}

/// A twisty puzzle whose indices are symmetry classes of its positions.
#[derive(Debug, Clone)]
pub struct KClasses {
    base: KPuzzle,
    compact: Compact,
    symmetries: Vec<Symmetry>,
    /// The order of the puzzle's own symmetry group: more than `symmetries` where
    /// they are the subgroup fixing a search's start ([`KClasses::fixing`]).
    puzzle_symmetries: usize,
    frame: Option<Frame>,
    moves: Vec<Transformation>,
    /// The moves as the symmetries conjugate them (before a frame holds a piece).
    unheld_moves: Vec<Transformation>,
    large: Large,
    /// The compact positions of the large orbit (contiguous).
    large_positions: Vec<usize>,
    large_modulus: u8,
    /// Every move keeps the large orbit's permutation even.
    even: bool,
    /// Every move keeps the sum of the large orbit's twists.
    twist_sum: bool,
    large_count: u64,
    /// Bits per compact position of the small part's key: pieces, then twists.
    piece_bits: Vec<u8>,
    twist_bits: Vec<u8>,
    small_ids: HashMap<u64, u32, BuildKeyHasher>,
    /// The first compact position of each position's orbit.
    first_of: Vec<u8>,
    /// Per small value: its pieces and twists over all compact positions (the large
    /// part's entries as solved).
    small_pieces: Vec<u8>,
    small_twists: Vec<u8>,
    small_moves: Vec<u32>,
    small_class: Vec<u32>,
    /// Per small value: how its symmetry to the representative acts on `b`.
    acts: Acts,
    /// Per class: its representative small value.
    representatives: Vec<u32>,
    /// Per class: where its stabiliser's acts (other than the identity) start in
    /// `stabilisers`, and how many.
    stabiliser_of: Vec<(u32, u32)>,
    stabilisers: Acts,
    /// Per class: the symmetries (indices) of its stabiliser, the identity first.
    stabiliser_symmetries: Vec<Vec<u16>>,
    /// The large part's moves: `from` and `add` per move, like an act.
    large_moves: Acts,
    group_order: u128,
    goal_index: u64,
    /// Where each small class's positions are numbered.
    sections: sections::Sections,
    /// Indices that are not the one their class is numbered by.
    holes: u64,
    /// Large parts above this count have the ones a symmetry fixes found cycle by
    /// cycle ([`KClasses::fixed_permutations`]); up to it, by trying every one.
    enumerate_fixed_up_to: u64,
}

/// What filling the cycles of a large part's act works from: the act, its cycles,
/// the inverse of its relabelling, and the small part of the positions.
struct CycleProblem<'a> {
    acts: &'a Acts,
    cycles: Vec<Vec<usize>>,
    label_inverse: Vec<u8>,
    x: &'a Transformation,
}

/// Keys are packed coordinates: SplitMix64's finalizer spreads them over every bit.
#[derive(Debug, Clone, Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let x = (x ^ x >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let x = (x ^ x >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = x ^ x >> 31;
    }
}

type BuildKeyHasher = std::hash::BuildHasherDefault<KeyHasher>;

fn bits_for(values: usize) -> u8 {
    (usize::BITS - values.saturating_sub(1).leading_zeros()) as u8
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

impl KClasses {
    /// The classes of `base` (already held in its frame, if `frame`) under
    /// `symmetries` (compact transformations over `compact`'s positions, identity
    /// first).
    ///
    /// # Errors
    /// [`KPuzzleError`] if the puzzle has no symmetry that fixes its goal or the
    /// classes cannot be ranked.
    pub fn new(
        base: KPuzzle,
        compact: Compact,
        symmetries: Vec<Symmetry>,
        unheld_moves: &[Transformation],
        frame: Option<Frame>,
    ) -> Result<KClasses, KPuzzleError> {
        let refuse = |m: String| KPuzzleError::Option(format!("symmetry classes: {m}"));
        let n = compact.len();
        let moves: Vec<Transformation> = base
            .turn_transformations()
            .iter()
            .map(|t| compact.restrict(t))
            .collect();
        let refs: Vec<&Transformation> = moves.iter().collect();
        let group_order = super::group::order(&refs, &compact.moduli);
        let orbits = compact_orbits(&compact);
        let reference_orbit = frame.as_ref().map(|f| compact.orbit[f.reference]);
        let choice = choose_split(
            &compact,
            &moves,
            &orbits,
            group_order,
            symmetries.len() as u128,
            reference_orbit,
        );
        let Some((large, large_orbit, small_size)) = choice else {
            return Err(refuse(format!(
                "{} positions, and no split of its pieces leaves a part of at most {} \
                 values to enumerate",
                crate::units::thousands_wide(group_order),
                MAX_SMALL_PART
            )));
        };
        let large_positions: Vec<usize> = (large_orbit.0..large_orbit.0 + large_orbit.1).collect();
        let k = large_positions.len();
        let modulus = compact.moduli.get(large_orbit.0).filter(|_| k > 0);
        let large_modulus = modulus.map_or(1, |&m| m.max(1));
        let (even, twist_sum, large_count) =
            large_shape(&moves, large, &large_positions, large_modulus);
        let first_of: Vec<u8> = compact_orbits(&compact)
            .iter()
            .flat_map(|&(first, count)| std::iter::repeat_n(first as u8, count))
            .collect();
        let (piece_bits, twist_bits) = key_bits(&compact, &orbits, large, &large_positions);
        let total_bits: u32 = piece_bits
            .iter()
            .chain(&twist_bits)
            .map(|&b| b as u32)
            .sum();
        if total_bits > 64 {
            return Err(refuse(format!(
                "the enumerated part takes {total_bits} bits, over 64"
            )));
        }
        let small_size = small_size as usize;
        let mut classes = KClasses {
            base,
            compact,
            puzzle_symmetries: symmetries.len(),
            symmetries,
            frame,
            moves,
            unheld_moves: unheld_moves.to_vec(),
            large,
            large_positions,
            large_modulus,
            even,
            twist_sum,
            large_count,
            piece_bits,
            twist_bits,
            small_ids: HashMap::default(),
            first_of,
            small_pieces: Vec::new(),
            small_twists: Vec::new(),
            small_moves: Vec::new(),
            small_class: Vec::new(),
            acts: Acts::new(k),
            representatives: Vec::new(),
            stabiliser_of: Vec::new(),
            stabilisers: Acts::new(k),
            stabiliser_symmetries: Vec::new(),
            large_moves: Acts::new(k),
            group_order,
            goal_index: 0,
            sections: sections::Sections::default(),
            holes: 0,
            enumerate_fixed_up_to: 1 << 22,
        };
        classes.enumerate_small(small_size)?;
        classes.classify(unheld_moves);
        classes.table_large_moves();
        classes.build_sections();
        let identity = Transformation::identity(n);
        classes.goal_index = classes.index_of(&identity);
        classes.holes = classes.count_holes();
        classes
            .index_count_checked()
            .ok_or_else(|| refuse("the class index does not fit 64 bits".into()))?;
        Ok(classes)
    }

    fn index_count_checked(&self) -> Option<u64> {
        if self.large == Large::Nothing {
            return Some(self.representatives.len() as u64);
        }
        self.sections.total()
    }

    /// The small part of `x` as a key.
    fn key(&self, pieces: &[u8], twists: &[u8]) -> u64 {
        let mut key = 0u64;
        for i in 0..self.compact.len() {
            let first = self.first_of[i] as usize;
            if self.piece_bits[i] > 0 {
                key = key << self.piece_bits[i] | (pieces[i] as usize - first) as u64;
            }
            if self.twist_bits[i] > 0 {
                key = key << self.twist_bits[i] | twists[i] as u64;
            }
        }
        key
    }

    /// The small part a key holds, into `pieces` and `twists` (the large part's
    /// entries as solved).
    fn unkey(&self, mut key: u64, pieces: &mut [u8], twists: &mut [u8]) {
        for i in (0..self.compact.len()).rev() {
            let first = self.first_of[i] as usize;
            twists[i] = 0;
            pieces[i] = i as u8;
            if self.twist_bits[i] > 0 {
                twists[i] = (key & ((1 << self.twist_bits[i]) - 1)) as u8;
                key >>= self.twist_bits[i];
            }
            if self.piece_bits[i] > 0 {
                pieces[i] = (first + (key & ((1 << self.piece_bits[i]) - 1)) as usize) as u8;
                key >>= self.piece_bits[i];
            }
        }
    }

    fn orbit_first(&self, i: usize) -> usize {
        self.first_of[i] as usize
    }

    /// `x` with the large part's entries as solved (so that it is a transformation).
    fn small_of(&self, x: &Transformation) -> Transformation {
        let mut y = x.clone();
        for &i in &self.large_positions {
            match self.large {
                Large::Nothing => {}
                Large::Orbit => {
                    y.permutation[i] = i as u8;
                    y.delta[i] = 0;
                }
                Large::Twists => y.delta[i] = 0,
            }
        }
        y
    }

    /// Every value of the small part the moves reach, numbered in the order a
    /// breadth-first search meets them, and the moves' table over them.
    fn enumerate_small(&mut self, expected: usize) -> Result<(), KPuzzleError> {
        let n = self.compact.len();
        self.small_ids.reserve(expected);
        self.small_moves.reserve(expected * self.moves.len());
        let identity = Transformation::identity(n);
        let mut keys = vec![self.key(&identity.permutation, &identity.delta)];
        self.small_ids.insert(keys[0], 0);
        let (mut pieces, mut twists) = (vec![0u8; n], vec![0u8; n]);
        let (mut after_pieces, mut after_twists) = (vec![0u8; n], vec![0u8; n]);
        let moduli = &self.compact.moduli;
        let mut next = 0;
        while next < keys.len() {
            self.unkey(keys[next], &mut pieces, &mut twists);
            next += 1;
            for m in &self.moves {
                for i in 0..n {
                    let from = m.permutation[i] as usize;
                    after_pieces[i] = pieces[from];
                    after_twists[i] = (twists[from] + m.delta[i]) % moduli[i].max(1);
                }
                let key = self.key(&after_pieces, &after_twists);
                let count = keys.len() as u32;
                let id = *self.small_ids.entry(key).or_insert(count);
                if id == count {
                    if keys.len() == MAX_SMALL_PART {
                        return Err(KPuzzleError::Option(format!(
                            "symmetry classes: the enumerated part has more than {MAX_SMALL_PART} values"
                        )));
                    }
                    keys.push(key);
                }
                self.small_moves.push(id);
            }
        }
        self.small_pieces = vec![0; keys.len() * n];
        self.small_twists = vec![0; keys.len() * n];
        for (s, &key) in keys.iter().enumerate() {
            let (p, t) = (&mut pieces, &mut twists);
            self.unkey(key, p, t);
            self.small_pieces[s * n..][..n].copy_from_slice(p);
            self.small_twists[s * n..][..n].copy_from_slice(t);
        }
        Ok(())
    }

    fn small_state(&self, s: u32) -> Transformation {
        let n = self.compact.len();
        let at = s as usize * n;
        Transformation {
            permutation: self.small_pieces[at..at + n].to_vec(),
            delta: self.small_twists[at..at + n].to_vec(),
        }
    }

    /// `x` under symmetry `sym`, brought home in the frame: `rho · S⁻¹ · x · S`, and
    /// the left factor `rho · S⁻¹`.
    fn act(&self, sym: usize, x: &Transformation) -> (Transformation, Transformation) {
        let moduli = &self.compact.moduli;
        let symmetry = &self.symmetries[sym];
        let s = &symmetry.s;
        let s_inverse = s.inverse(moduli);
        let z = if symmetry.mirror {
            s_inverse.then(&reflect(x, moduli), moduli).then(s, moduli)
        } else {
            s_inverse.then(x, moduli).then(s, moduli)
        };
        match &self.frame {
            None => (z, s_inverse),
            Some(frame) => {
                let rho = frame.rotation_for(&z).clone();
                (rho.then(&z, moduli), rho.then(&s_inverse, moduli))
            }
        }
    }

    /// The act of symmetry `sym` on the large part of positions whose small part is
    /// `x`, appended to `acts`.
    fn push_act(&self, acts: &mut Acts, sym: usize, x: &Transformation) {
        let k = self.large_positions.len();
        if k == 0 {
            return;
        }
        let first = self.large_positions[0];
        let (_, left) = self.act(sym, x);
        let s = &self.symmetries[sym].s;
        let m = self.large_modulus;
        let mut from = Vec::with_capacity(k);
        let mut add = Vec::with_capacity(k);
        let mut label = Vec::with_capacity(k);
        let mut label_twist = Vec::with_capacity(k);
        for (i, &p) in self.large_positions.iter().enumerate() {
            let j = s.permutation[p] as usize;
            from.push((j - first) as u8);
            match self.large {
                Large::Orbit => {
                    add.push(s.delta[p] % m);
                    label.push((left.permutation[first + i] as usize - first) as u8);
                    label_twist.push(left.delta[first + i] % m);
                }
                _ => {
                    // The pieces are the small part's: fold the left factor's twist of
                    // the piece that comes to p into the offset.
                    let piece = x.permutation[j] as usize;
                    add.push((left.delta[piece] + s.delta[p]) % m);
                    label.push(0);
                    label_twist.push(0);
                }
            }
        }
        let negate = self.symmetries[sym].mirror;
        acts.push(&from, &add, &label, &label_twist, negate);
    }

    /// Classes of the small part, each value's symmetry to its representative, and
    /// the representatives' stabilisers. `unheld_moves` are the moves as the
    /// symmetries conjugate them (before a frame holds a piece), which tell the
    /// symmetries' actions apart.
    fn classify(&mut self, unheld_moves: &[Transformation]) {
        let count = self.small_moves.len() / self.moves.len().max(1);
        let count = count.max(1);
        let mut class = vec![u32::MAX; count];
        let mut to_rep = vec![0u16; count];
        let moduli = self.compact.moduli.clone();
        // The symmetry acting as each one's inverse (the list holds one symmetry per
        // action, not necessarily the inverse transformation itself).
        let actions: Vec<Vec<u16>> = self
            .symmetries
            .iter()
            .map(|s| super::symmetry::move_permutation(s, unheld_moves, &moduli))
            .collect();
        let inverse_index: Vec<u16> = self
            .symmetries
            .iter()
            .map(|s| {
                let inverse =
                    super::symmetry::move_permutation(&s.inverse(&moduli), unheld_moves, &moduli);
                actions
                    .iter()
                    .position(|a| *a == inverse)
                    .expect("the actions form a group") as u16
            })
            .collect();
        for s in 0..count {
            if class[s] != u32::MAX {
                continue;
            }
            let c = self.representatives.len() as u32;
            self.representatives.push(s as u32);
            let x = self.small_state(s as u32);
            let mut stabiliser = Vec::new();
            for (sym, &inverse) in inverse_index.iter().enumerate() {
                let (y, _) = self.act(sym, &x);
                let y = self.small_of(&y);
                let t = self.small_ids[&self.key(&y.permutation, &y.delta)] as usize;
                if t == s {
                    stabiliser.push(sym as u16);
                }
                if class[t] == u32::MAX {
                    class[t] = c;
                    to_rep[t] = inverse;
                }
            }
            let start = self.stabilisers.from.len() / self.stabilisers.k.max(1);
            let mut stabilisers = std::mem::take(&mut self.stabilisers);
            for &sym in &stabiliser[1..] {
                self.push_act(&mut stabilisers, sym as usize, &x);
            }
            self.stabilisers = stabilisers;
            self.stabiliser_of
                .push((start as u32, (stabiliser.len() - 1) as u32));
            self.stabiliser_symmetries.push(stabiliser);
        }
        let mut acts = std::mem::take(&mut self.acts);
        for (s, &sym) in to_rep.iter().enumerate() {
            let x = self.small_state(s as u32);
            self.push_act(&mut acts, sym as usize, &x);
        }
        self.acts = acts;
        self.small_class = class;
    }

    fn table_large_moves(&mut self) {
        let k = self.large_positions.len();
        if k == 0 {
            return;
        }
        let first = self.large_positions[0];
        let m = self.large_modulus;
        let mut table = Acts::new(k);
        for t in &self.moves {
            let from: Vec<u8> = self
                .large_positions
                .iter()
                .map(|&p| (t.permutation[p] as usize - first) as u8)
                .collect();
            let add: Vec<u8> = self
                .large_positions
                .iter()
                .map(|&p| t.delta[p] % m)
                .collect();
            table.push(&from, &add, &vec![0; k], &vec![0; k], false);
        }
        self.large_moves = table;
    }

    /// The large part of `x`.
    fn large_of(&self, x: &Transformation) -> LargePart {
        let mut b = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        if let Some(&first) = self.large_positions.first() {
            for (i, &p) in self.large_positions.iter().enumerate() {
                b.pieces[i] = if self.large == Large::Orbit {
                    (x.permutation[p] as usize - first) as u8
                } else {
                    0
                };
                b.twists[i] = x.delta[p];
            }
        }
        b
    }

    /// `b` under the act `at` of `acts`.
    #[inline]
    fn apply_act(&self, acts: &Acts, at: usize, b: &LargePart) -> LargePart {
        let k = acts.k;
        let from = &acts.from[at * k..][..k];
        let add = &acts.add[at * k..][..k];
        let m = self.large_modulus;
        let mut out = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        // A mirror's act takes the twists negated.
        let negate = acts.negate[at];
        let twist = |t: u8| if negate { (m - t) % m } else { t };
        match self.large {
            Large::Nothing => {}
            Large::Orbit => {
                let label = &acts.label[at * k..][..k];
                let label_twist = &acts.label_twist[at * k..][..k];
                for i in 0..k {
                    let j = from[i] as usize;
                    let v = b.pieces[j] as usize;
                    out.pieces[i] = label[v];
                    if m > 1 {
                        out.twists[i] = (label_twist[v] + twist(b.twists[j]) + add[i]) % m;
                    }
                }
            }
            Large::Twists => {
                for i in 0..k {
                    out.twists[i] = (twist(b.twists[from[i] as usize]) + add[i]) % m;
                }
            }
        }
        out
    }

    /// The rank of a large part.
    #[inline]
    fn rank_large(&self, b: &LargePart) -> u64 {
        self.rank_large_in(b, &Self::whole_order())
    }

    /// The rank of a large part read in the order of places `order`.
    #[inline]
    fn rank_large_in(&self, b: &LargePart, order: &[u8; MAX_LARGE]) -> u64 {
        let k = self.large_positions.len();
        let m = self.large_modulus as u64;
        let mut rank = 0u64;
        if self.large == Large::Orbit {
            let mut seen = 0u32;
            for (i, &place) in order[..k].iter().enumerate() {
                let v = b.pieces[place as usize] as u32;
                let smaller = v - (seen & ((1u32 << v) - 1)).count_ones();
                seen |= 1 << v;
                rank = rank * (k - i) as u64 + smaller as u64;
            }
            if self.even {
                rank >>= 1;
            }
        }
        if m > 1 {
            let free = if self.twist_sum { k - 1 } else { k };
            for &place in &order[..free] {
                rank = rank * m + b.twists[place as usize] as u64;
            }
        }
        rank
    }

    /// The large part of rank `rank`.
    fn unrank_large(&self, rank: u64) -> LargePart {
        self.unrank_large_in(rank, &Self::whole_order())
    }

    /// The large part of rank `rank` read in the order of places `order`.
    fn unrank_large_in(&self, mut rank: u64, order: &[u8; MAX_LARGE]) -> LargePart {
        let k = self.large_positions.len();
        let m = self.large_modulus as u64;
        let mut b = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        if m > 1 && k > 0 {
            let free = if self.twist_sum { k - 1 } else { k };
            let mut sum = 0u64;
            for i in (0..free).rev() {
                b.twists[order[i] as usize] = (rank % m) as u8;
                sum += rank % m;
                rank /= m;
            }
            if self.twist_sum {
                b.twists[order[k - 1] as usize] = ((m - sum % m) % m) as u8;
            }
        }
        if self.large == Large::Orbit {
            let mut full = if self.even { rank << 1 } else { rank };
            loop {
                let mut digits = [0u8; MAX_LARGE];
                let mut r = full;
                for i in (0..k).rev() {
                    let radix = (k - i) as u64;
                    digits[i] = (r % radix) as u8;
                    r /= radix;
                }
                let mut free = [0u8; MAX_LARGE];
                for (v, f) in free.iter_mut().enumerate().take(k) {
                    *f = v as u8;
                }
                for (i, &d) in digits.iter().enumerate().take(k) {
                    let d = d as usize;
                    b.pieces[order[i] as usize] = free[d];
                    free.copy_within(d + 1..k - i, d);
                }
                if !self.even || permutation_is_even(&b.pieces[..k]) {
                    break;
                }
                full += 1;
            }
        }
        b
    }

    /// The canonical rank of large part `b` in class `c` (already acted on).
    #[inline]
    fn canonical_rank(&self, c: u32, b: &LargePart) -> u64 {
        let mut best = self.rank_large(b);
        let (start, count) = self.stabiliser_of[c as usize];
        for at in start..start + count {
            let r = self.rank_large(&self.apply_act(&self.stabilisers, at as usize, b));
            best = best.min(r);
        }
        best
    }

    /// The class index of the compact position `x`.
    fn index_of(&self, x: &Transformation) -> u64 {
        let x = match &self.frame {
            Some(frame) => frame.normalize(x, &self.compact.moduli),
            None => x.clone(),
        };
        let small = self.small_of(&x);
        let s = self.small_ids[&self.key(&small.permutation, &small.delta)];
        self.index_from(s, &self.large_of(&x))
    }

    #[inline]
    fn index_from(&self, s: u32, b: &LargePart) -> u64 {
        let c = self.small_class[s as usize];
        if self.large == Large::Nothing {
            return c as u64;
        }
        let acted = self.apply_act(&self.acts, s as usize, b);
        self.number(c, &acted)
    }

    /// The representative position of index `index` (compact), and whether the index
    /// is the one its class is numbered by.
    fn representative(&self, index: u64) -> (Transformation, bool) {
        let (c, b, canonical) = if self.large == Large::Nothing {
            (index as usize, self.unrank_large(0), true)
        } else {
            self.unnumber(index)
        };
        let s = self.representatives[c];
        let mut x = self.small_state(s);
        if let Some(&first) = self.large_positions.first() {
            for (i, &p) in self.large_positions.iter().enumerate() {
                if self.large == Large::Orbit {
                    x.permutation[p] = (first + b.pieces[i] as usize) as u8;
                }
                x.delta[p] = b.twists[i];
            }
        }
        (x, canonical)
    }

    /// The compact form of a pattern of the base puzzle.
    fn compact_of(&self, pattern: &Pattern) -> Transformation {
        let mut x = Transformation::identity(self.compact.len());
        for (i, &p) in self.compact.kept.iter().enumerate() {
            x.permutation[i] = (self.orbit_first(i) + pattern.pieces[p] as usize) as u8;
            x.delta[i] = pattern.orientation[p];
        }
        x
    }

    fn pattern_of(&self, x: &Transformation) -> Pattern {
        let mut pattern = self.base.goal().clone();
        for (i, &p) in self.compact.kept.iter().enumerate() {
            pattern.pieces[p] = (x.permutation[i] as usize - self.orbit_first(i)) as u8;
            pattern.orientation[p] = x.delta[i];
        }
        pattern
    }

    /// The puzzle whose positions these are.
    #[must_use]
    pub fn base(&self) -> &KPuzzle {
        &self.base
    }

    /// The order of the symmetry group.
    #[must_use]
    pub fn symmetry_count(&self) -> usize {
        self.symmetries.len()
    }

    /// The classes of the same puzzle under the symmetries that fix `root` (the
    /// subgroup `{S : S⁻¹·root·S = root}`, the identity at least), for a search from
    /// `root`: such a symmetry maps the positions at distance `d` from `root` onto
    /// each other, so one index per class still has one distance, and the class of
    /// `root` is `root` alone. Under the whole group a class search from `root` would
    /// measure the distance to the nearest of its conjugates instead.
    ///
    /// # Errors
    /// [`KPuzzleError`] if the classes under the subgroup cannot be indexed.
    ///
    /// ```
    /// use antipode::{Notation, Puzzle, puzzles::{self, AnyPuzzle}};
    ///
    /// let AnyPuzzle::KClasses(pyraminx) = puzzles::lookup("pyraminx --symmetry").unwrap() else {
    ///     unreachable!()
    /// };
    /// let root = pyraminx.parse("U").unwrap();
    /// assert!(!pyraminx.symmetries_fix(&root));
    /// let fixing = pyraminx.fixing(&root).unwrap();
    /// assert_eq!((fixing.symmetry_count(), pyraminx.symmetry_count()), (3, 24));
    /// assert!(fixing.symmetries_fix(&root));
    /// ```
    pub fn fixing(&self, root: &Pattern) -> Result<KClasses, KPuzzleError> {
        let home = self.conjugate(root, 0);
        let kept: Vec<Symmetry> = (0..self.symmetries.len())
            .filter(|&sym| self.conjugate(root, sym) == home)
            .map(|sym| self.symmetries[sym].clone())
            .collect();
        let mut classes = KClasses::new(
            self.base.clone(),
            self.compact.clone(),
            kept,
            &self.unheld_moves,
            self.frame.clone(),
        )?;
        classes.puzzle_symmetries = self.puzzle_symmetries;
        Ok(classes)
    }

    /// The number of positions (the order of the group the moves generate, in the
    /// frame if positions are counted up to rotation).
    #[must_use]
    pub fn positions(&self) -> u128 {
        self.group_order
    }

    /// `state` under symmetry number `sym` (`0..symmetry_count()`, 0 the identity):
    /// `S⁻¹·state·S`, brought home in the frame if positions are counted up to
    /// rotation. Every symmetry keeps the distance from the goal.
    #[must_use]
    pub fn conjugate(&self, state: &Pattern, sym: usize) -> Pattern {
        let mut x = self.compact_of(state);
        if let Some(frame) = &self.frame {
            x = frame.normalize(&x, &self.compact.moduli);
        }
        self.pattern_of(&self.act(sym, &x).0)
    }

    /// How many positions the class of `state` holds: `|group|` over the number of
    /// symmetries that fix it.
    #[must_use]
    pub fn class_size(&self, state: &Pattern) -> u64 {
        let mut x = self.compact_of(state);
        if let Some(frame) = &self.frame {
            x = frame.normalize(&x, &self.compact.moduli);
        }
        let fixing = (0..self.symmetries.len())
            .filter(|&sym| self.act(sym, &x).0 == x)
            .count();
        (self.symmetries.len() / fixing.max(1)) as u64
    }

    /// Every position `(x, b)` whose large part `b` symmetry `sym` fixes, `x` a small
    /// part that `sym` fixes (`x` itself where there is no large part): by brute force
    /// over small large parts, else by filling the cycles of the act.
    fn for_each_fixed(
        &self,
        sym: usize,
        x: &Transformation,
        visit: &mut dyn FnMut(&Transformation),
    ) {
        if self.large == Large::Nothing {
            return visit(x);
        }
        let mut acts = Acts::new(self.large_positions.len());
        self.push_act(&mut acts, sym, x);
        if self.large_count <= self.enumerate_fixed_up_to || self.large == Large::Twists {
            for r in 0..self.large_count {
                let b = self.unrank_large(r);
                if self.apply_act(&acts, 0, &b) == b {
                    visit(&self.with_large(x, &b));
                }
            }
        } else {
            self.fixed_permutations(&acts, x, visit);
        }
    }

    /// The indices that are not the one their class is numbered by: in each class of
    /// the small part, the large parts less the orbits of its representative's
    /// stabiliser on them (Burnside: the average number of large parts a stabiliser
    /// element fixes).
    fn count_holes(&self) -> u64 {
        if self.large == Large::Nothing {
            return 0;
        }
        let mut holes = 0u64;
        for (c, stabiliser) in self.stabiliser_symmetries.iter().enumerate() {
            if stabiliser.len() < 2 {
                continue;
            }
            let x = self.small_state(self.representatives[c]);
            let mut fixed = self.large_count as u128;
            for &sym in &stabiliser[1..] {
                self.for_each_fixed(sym as usize, &x, &mut |_| fixed += 1);
            }
            let orbits = fixed / stabiliser.len() as u128;
            holes += self.sections.slots(c) - orbits as u64;
        }
        holes
    }

    /// Every class with a symmetric position (one that a symmetry other than the
    /// identity fixes), by its index, with the number of positions it holds. Such a
    /// class's representative `(s*, b)` is fixed by a symmetry that fixes `s*`, so
    /// the large parts that the stabiliser of each `s*` fixes find them all.
    fn symmetric_classes(&self) -> HashMap<u64, u64> {
        let g = self.symmetries.len() as u64;
        let mut found: HashMap<u64, u64> = HashMap::new();
        for (c, stabiliser) in self.stabiliser_symmetries.iter().enumerate() {
            if stabiliser.len() < 2 {
                continue;
            }
            let x = self.small_state(self.representatives[c]);
            for &sym in &stabiliser[1..] {
                let mut visit = |y: &Transformation| {
                    let index = self.index_of(y);
                    found.entry(index).or_insert_with(|| {
                        let fixing = (0..self.symmetries.len())
                            .filter(|&t| self.act(t, y).0 == *y)
                            .count() as u64;
                        g / fixing.max(1)
                    });
                };
                self.for_each_fixed(sym as usize, &x, &mut visit);
            }
        }
        found
    }

    fn with_large(&self, x: &Transformation, b: &LargePart) -> Transformation {
        let mut y = x.clone();
        if let Some(&first) = self.large_positions.first() {
            for (i, &p) in self.large_positions.iter().enumerate() {
                if self.large == Large::Orbit {
                    y.permutation[p] = (first + b.pieces[i] as usize) as u8;
                }
                y.delta[p] = b.twists[i];
            }
        }
        y
    }

    /// The large parts (a permutation with twists) that the act `acts[0]` fixes:
    /// `b[i] = label[b[from[i]]]`, so a value at one place of a cycle of `from`
    /// determines the cycle; the twists follow, and must close around each cycle.
    fn fixed_permutations(
        &self,
        acts: &Acts,
        x: &Transformation,
        visit: &mut dyn FnMut(&Transformation),
    ) {
        let k = acts.k;
        let from = &acts.from[..k];
        let label = &acts.label[..k];
        let mut label_inverse = vec![0u8; k];
        for (v, &l) in label.iter().enumerate() {
            label_inverse[l as usize] = v as u8;
        }
        // Cycles of `from`: b[from[i]] = label⁻¹(b[i]).
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        let mut on_cycle = vec![false; k];
        for start in 0..k {
            if on_cycle[start] {
                continue;
            }
            let mut cycle = vec![start];
            on_cycle[start] = true;
            let mut i = from[start] as usize;
            while i != start {
                on_cycle[i] = true;
                cycle.push(i);
                i = from[i] as usize;
            }
            cycles.push(cycle);
        }
        // Places past k stay 0, as in every large part (they are compared too).
        let mut pieces = [0u8; MAX_LARGE];
        let mut used = [false; MAX_LARGE];
        let problem = CycleProblem {
            acts,
            cycles,
            label_inverse,
            x,
        };
        self.fill_cycles(&problem, 0, &mut pieces, &mut used, visit);
    }

    fn fill_cycles(
        &self,
        problem: &CycleProblem<'_>,
        next: usize,
        pieces: &mut [u8; MAX_LARGE],
        used: &mut [bool; MAX_LARGE],
        visit: &mut dyn FnMut(&Transformation),
    ) {
        let CycleProblem {
            acts,
            cycles,
            label_inverse,
            x,
        } = problem;
        let (acts, x) = (*acts, *x);
        let k = acts.k;
        if next == cycles.len() {
            if self.even && !permutation_is_even(&pieces[..k]) {
                return;
            }
            // The twists: every assignment the act fixes (few: brute force over the
            // twists of one place per cycle would do; orbits with twists are small).
            let mut b = LargePart {
                pieces: *pieces,
                twists: [0; MAX_LARGE],
            };
            if self.large_modulus == 1 {
                if self.apply_act(acts, 0, &b) == b {
                    visit(&self.with_large(x, &b));
                }
                return;
            }
            let m = self.large_modulus as u64;
            let total = m.pow(k as u32);
            for code in 0..total {
                let mut c = code;
                for i in 0..k {
                    b.twists[i] = (c % m) as u8;
                    c /= m;
                }
                if self.apply_act(acts, 0, &b) == b {
                    visit(&self.with_large(x, &b));
                }
            }
            return;
        }
        let cycle = &cycles[next];
        for v in 0..k as u8 {
            // Place v at the cycle's first place; the others follow.
            let mut placed = Vec::with_capacity(cycle.len());
            let mut value = v;
            let mut ok = true;
            for &i in cycle {
                if used[value as usize] {
                    ok = false;
                    break;
                }
                used[value as usize] = true;
                pieces[i] = value;
                placed.push(value);
                value = label_inverse[value as usize];
            }
            // Closing the cycle: the value after the last place must be the first.
            if ok && value == v {
                self.fill_cycles(problem, next + 1, pieces, used, visit);
            }
            for &value in &placed {
                used[value as usize] = false;
            }
        }
    }

    /// Positions per depth from the classes per depth (`classes[d]`) and the exact
    /// depth of an index (`depth_of`): `|group|` positions per class, less what the
    /// classes of symmetric positions lack. Also returns Burnside's count of classes,
    /// `(positions + Σ_S fixed(S)) / |group|` over the symmetries but the identity,
    /// which counts the symmetric positions once per symmetry fixing them.
    pub fn positions_by_depth(
        &self,
        classes: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> (Vec<u128>, u128) {
        use rayon::prelude::*;
        let g = self.symmetries.len() as u128;
        let symmetric: Vec<(u64, u64)> = self.symmetric_classes().into_iter().collect();
        let depths: Vec<Option<u32>> = symmetric.par_iter().map(|&(i, _)| depth_of(i)).collect();
        let mut lacking = vec![0u128; classes.len()];
        let mut fixed_total = 0u128;
        for (&(_, size), depth) in symmetric.iter().zip(&depths) {
            // A class of `size` positions: each is fixed by g / size symmetries.
            fixed_total += size as u128 * (g / size as u128 - 1);
            if let Some(slot) = depth.and_then(|d| lacking.get_mut(d as usize)) {
                *slot += g - size as u128;
            }
        }
        let positions = classes
            .iter()
            .zip(&lacking)
            .map(|(&c, &l)| g * c as u128 - l)
            .collect();
        (positions, (self.group_order + fixed_total) / g)
    }
}

/// The split of a class index with the fewest slots, about `|b| · |s| / |group|`,
/// among those whose small part has at most [`MAX_SMALL_PART`] values: everything
/// small; else one orbit large; else one orbit's twists large. The held piece's orbit
/// stays small. Returns the large part, its orbit `(first, count)` and the small
/// part's number of values.
fn choose_split(
    compact: &Compact,
    moves: &[Transformation],
    orbits: &[(usize, usize)],
    group_order: u128,
    symmetries_count: u128,
    reference_orbit: Option<u8>,
) -> Option<(Large, (usize, usize), u128)> {
    // Choose the split: everything small; else one orbit large; else one orbit's
    // twists large.
    let order_without = |large: Large, orbit: (usize, usize)| -> u128 {
        let moduli: Vec<u8> = compact
            .moduli
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                if (orbit.0..orbit.0 + orbit.1).contains(&i) && large == Large::Twists {
                    1
                } else {
                    m
                }
            })
            .collect();
        let kept: Vec<Transformation> = moves
            .iter()
            .map(|t| {
                let mut t = t.clone();
                if large == Large::Orbit {
                    for i in orbit.0..orbit.0 + orbit.1 {
                        t.permutation[i] = i as u8;
                        t.delta[i] = 0;
                    }
                } else {
                    for i in orbit.0..orbit.0 + orbit.1 {
                        t.delta[i] = 0;
                    }
                }
                t
            })
            .collect();
        let refs: Vec<&Transformation> = kept.iter().collect();
        super::group::order(&refs, &moduli)
    };
    // Candidates: everything small; one orbit large; one orbit's twists large.
    // Each is judged by the slots it would take, about |b| · |s| / |group| (at
    // least |b|), among those whose small part can be enumerated.
    let large_size = |large: Large, orbit: (usize, usize)| -> u128 {
        let k = orbit.1;
        let m = compact.moduli[orbit.0].max(1) as u128;
        let pieces = if large == Large::Orbit {
            (1..=k as u128).product::<u128>()
        } else {
            1
        };
        pieces * m.pow(k as u32)
    };
    let mut candidates: Vec<(u128, u128, Large, (usize, usize))> = Vec::new();
    if group_order <= small_part_limit() {
        candidates.push((
            group_order.div_ceil(symmetries_count),
            group_order,
            Large::Nothing,
            (0, 0),
        ));
    }
    for large in [Large::Orbit, Large::Twists] {
        for &orbit in orbits {
            if Some(compact.orbit[orbit.0]) == reference_orbit
                || orbit.1 > MAX_LARGE
                || (large == Large::Twists && compact.moduli[orbit.0] < 2)
            {
                continue;
            }
            let small = order_without(large, orbit);
            if small <= small_part_limit() {
                let slots = large_size(large, orbit) * small.div_ceil(symmetries_count).max(1);
                candidates.push((slots, small, large, orbit));
            }
        }
    }
    candidates
        .into_iter()
        .min_by_key(|&(slots, small, _, _)| (slots, small))
        .map(|(_, small, large, orbit)| (large, orbit, small))
}

/// Whether every move keeps the large orbit's permutation even and its twists'
/// sum, and the number of large parts the ranking numbers.
fn large_shape(
    moves: &[Transformation],
    large: Large,
    large_positions: &[usize],
    large_modulus: u8,
) -> (bool, bool, u64) {
    let k = large_positions.len();
    let first = large_positions.first().copied().unwrap_or(0) as u8;
    let even = k > 0
        && moves.iter().all(|m| {
            let local: Vec<u8> = large_positions
                .iter()
                .map(|&i| m.permutation[i] - first)
                .collect();
            permutation_is_even(&local)
        });
    let twist_sum = k > 0
        && large_modulus > 1
        && moves.iter().all(|m| {
            large_positions
                .iter()
                .map(|&i| m.delta[i] as u32)
                .sum::<u32>()
                % large_modulus as u32
                == 0
        });
    let count = match large {
        Large::Nothing => 1,
        Large::Orbit | Large::Twists => {
            let pieces = if large == Large::Orbit {
                factorial(k) / if even { 2 } else { 1 }
            } else {
                1
            };
            let free = if twist_sum { k - 1 } else { k };
            pieces * (large_modulus as u64).pow(free as u32)
        }
    };
    (even, twist_sum, count)
}

/// Bits per compact position of the small part's key: its pieces, its twists.
fn key_bits(
    compact: &Compact,
    orbits: &[(usize, usize)],
    large: Large,
    large_positions: &[usize],
) -> (Vec<u8>, Vec<u8>) {
    let n = compact.len();
    let mut piece_bits = vec![0u8; n];
    let mut twist_bits = vec![0u8; n];
    for &(first, count) in orbits {
        for i in first..first + count {
            let large_here = large_positions.contains(&i);
            if !(large_here && large == Large::Orbit) {
                piece_bits[i] = bits_for(count);
            }
            if !large_here || large == Large::Nothing {
                twist_bits[i] = bits_for(compact.moduli[i].max(1) as usize);
            }
        }
    }
    (piece_bits, twist_bits)
}

/// The orbits of the compact positions, each `(first, count)`.
fn compact_orbits(compact: &Compact) -> Vec<(usize, usize)> {
    let mut orbits: Vec<(usize, usize)> = Vec::new();
    for i in 0..compact.len() {
        match orbits.last_mut() {
            Some((first, count)) if compact.orbit[*first] == compact.orbit[i] => *count += 1,
            _ => orbits.push((i, 1)),
        }
    }
    orbits
}

fn permutation_is_even(p: &[u8]) -> bool {
    let mut seen = [false; 256];
    let mut transpositions = 0;
    for start in 0..p.len() {
        if seen[start] {
            continue;
        }
        let mut i = start;
        let mut length = 0;
        while !seen[i] {
            seen[i] = true;
            i = p[i] as usize;
            length += 1;
        }
        transpositions += length - 1;
    }
    transpositions % 2 == 0
}

impl Notation for KClasses {
    type State = Pattern;

    fn name(&self) -> String {
        format!("{} --symmetry", self.base.name())
    }

    fn notation(&self) -> String {
        self.base.notation()
    }

    fn parse(&self, text: &str) -> Result<Pattern, PositionError> {
        let pattern = self.base.parse(text)?;
        let mut x = self.compact_of(&pattern);
        if let Some(frame) = &self.frame {
            let r = frame.reference;
            let slot = x.permutation[r] as usize * self.compact.moduli[r].max(1) as usize
                + x.delta[r] as usize;
            if frame.bring_home.get(slot).copied().flatten().is_none() {
                return Err(PositionError::Unsolvable(
                    "no rotation brings its reference piece home".into(),
                ));
            }
            x = frame.normalize(&x, &self.compact.moduli);
        }
        let small = self.small_of(&x);
        if !self
            .small_ids
            .contains_key(&self.key(&small.permutation, &small.delta))
        {
            return Err(PositionError::Unsolvable(
                "the moves do not reach it".into(),
            ));
        }
        let b = self.large_of(&x);
        if self.large != Large::Nothing && (self.unrank_large(self.rank_large(&b)) != b) {
            return Err(PositionError::Unsolvable(
                "the moves do not reach it (parity or twist)".into(),
            ));
        }
        Ok(self.pattern_of(&x))
    }

    fn format_line(&self, state: &Pattern) -> String {
        self.base.format_line(state)
    }

    fn render_board(&self, state: &Pattern) -> String {
        self.base.render_board(state)
    }
}

impl Puzzle for KClasses {
    type Move = Turn;

    fn definition(&self) -> String {
        let mut text = self.base.definition_text("1");
        text.push_str(&format!(
            "classes 2 under {} symmetries\n",
            self.symmetries.len()
        ));
        for s in &self.symmetries {
            let kind = if s.mirror { "mirror" } else { "symmetry" };
            text.push_str(&format!("{kind} {:?} {:?}\n", s.s.permutation, s.s.delta));
        }
        text
    }

    fn metric_override(&self) -> Option<&'static str> {
        self.base.metric_override()
    }

    fn index_count(&self) -> u64 {
        self.index_count_checked().expect("checked when opened")
    }

    fn never_reached(&self) -> u64 {
        self.holes
    }

    fn symmetries_fix(&self, state: &Pattern) -> bool {
        self.class_size(state) == 1
    }

    fn class_counts(
        &self,
        classes: &[u64],
        antipodes: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Option<ClassCounts> {
        let (positions_by_depth, burnside_classes) = self.positions_by_depth(classes, depth_of);
        Some(ClassCounts {
            symmetries: self.symmetries.len(),
            puzzle_symmetries: self.puzzle_symmetries,
            positions: self.group_order,
            antipode_positions: positions_by_depth.last().copied().unwrap_or(0),
            positions_by_depth,
            burnside_classes,
            antipode_class_sizes: antipodes
                .iter()
                .map(|&i| self.class_size(&self.unrank(i)))
                .collect(),
        })
    }

    fn max_neighbours(&self) -> usize {
        self.moves.len()
    }

    fn goals(&self) -> Vec<Pattern> {
        vec![self.base.goal().clone()]
    }

    fn is_goal(&self, state: &Pattern) -> bool {
        self.rank(state) == self.goal_index
    }

    fn goal_summary(&self) -> String {
        "solved".into()
    }

    fn goal_indices(&self) -> Vec<u64> {
        vec![self.goal_index]
    }

    fn rank(&self, state: &Pattern) -> u64 {
        self.index_of(&self.compact_of(state))
    }

    fn unrank(&self, index: u64) -> Pattern {
        self.pattern_of(&self.representative(index).0)
    }

    fn successors(&self, state: &Pattern, out: &mut Vec<Successor<Pattern, Turn>>) {
        self.base.successors(state, out);
    }

    fn expand_sorted(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        let moves = self.moves.len();
        let mut neighbours = vec![0u64; moves];
        let k = self.large_positions.len();
        let m = self.large_modulus;
        for &index in indices {
            let (c, b, canonical) = if self.large == Large::Nothing {
                (index as usize, self.unrank_large(0), true)
            } else {
                self.unnumber(index)
            };
            let s = self.representatives[c];
            if !canonical {
                // Not the index its class is numbered by: never reached, no neighbours.
                visit(index, &[]);
                continue;
            }
            let row = &self.small_moves[s as usize * moves..][..moves];
            for (mv, (n, &s2)) in neighbours.iter_mut().zip(row).enumerate() {
                let mut b2 = b;
                if self.large != Large::Nothing {
                    let from = &self.large_moves.from[mv * k..][..k];
                    let add = &self.large_moves.add[mv * k..][..k];
                    for i in 0..k {
                        let j = from[i] as usize;
                        b2.pieces[i] = b.pieces[j];
                        b2.twists[i] = if m > 1 { (b.twists[j] + add[i]) % m } else { 0 };
                    }
                }
                *n = self.index_from(s2, &b2);
            }
            visit(index, &neighbours);
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::puzzles::kpuzzle::library;

    thread_local! {
        /// Overrides [`MAX_SMALL_PART`] for the split's choice on this thread.
        pub(in super::super) static SMALL_PART_LIMIT: std::cell::Cell<Option<u128>> =
            const { std::cell::Cell::new(None) };
    }

    fn classes(name: &str) -> KClasses {
        match library::open_any(&format!("{name} --symmetry")).unwrap() {
            library::Twisty::Classes(c) => *c,
            library::Twisty::Plain(_) => panic!("{name} opened without classes"),
        }
    }

    /// Every permutation of `0..k`, in lexicographic order.
    fn permutations(k: usize) -> Vec<Vec<u8>> {
        if k == 0 {
            return vec![Vec::new()];
        }
        let mut all = Vec::new();
        for rest in permutations(k - 1) {
            for at in 0..k {
                let mut p = rest.clone();
                p.insert(at, (k - 1) as u8);
                all.push(p);
            }
        }
        all.sort();
        all
    }

    /// The large parts an act fixes, found cycle by cycle (for the FTO's edges, too
    /// many to try), are exactly those found by trying every permutation.
    #[test]
    fn fixed_permutations_are_the_large_parts_an_act_fixes() {
        let mut p = classes("2x2x2");
        let k = 6;
        p.large = Large::Orbit;
        p.large_modulus = 1;
        p.large_positions = (0..k).collect();
        let x = p.small_state(p.representatives[0]);
        let acts_of = |from: &[u8], label: &[u8]| Acts {
            k,
            from: from.to_vec(),
            add: vec![0; k],
            label: label.to_vec(),
            label_twist: vec![0; k],
            negate: vec![false],
        };
        let all = permutations(k);
        let mut checked = 0;
        for (n, from) in all.iter().enumerate().step_by(37) {
            for label in [&all[0], from, &all[(n * 7 + 3) % all.len()]] {
                let acts = acts_of(from, label);
                for even in [false, true] {
                    p.even = even;
                    let mut by_cycles = Vec::new();
                    p.fixed_permutations(&acts, &x, &mut |y| by_cycles.push(y.permutation.clone()));
                    let mut by_trying = Vec::new();
                    for pieces in &all {
                        if even && !permutation_is_even(pieces) {
                            continue;
                        }
                        let mut b = LargePart {
                            pieces: [0; MAX_LARGE],
                            twists: [0; MAX_LARGE],
                        };
                        b.pieces[..k].copy_from_slice(pieces);
                        if p.apply_act(&acts, 0, &b) == b {
                            by_trying.push(p.with_large(&x, &b).permutation);
                        }
                    }
                    by_cycles.sort();
                    by_trying.sort();
                    assert!(
                        by_cycles == by_trying,
                        "from {from:?} label {label:?}: {} by cycles, {} by trying",
                        by_cycles.len(),
                        by_trying.len()
                    );
                    checked += by_trying.len();
                }
            }
        }
        assert!(checked > 1000, "{checked} fixed parts checked");
    }

    #[test]
    fn representatives_rank_to_their_index_and_conjugates_share_it() {
        for name in ["2x2x2", "pyraminx", "skewb", "3x3x3-corners"] {
            let p = classes(name);
            let mut rng = 0x9e3779b97f4a7c15u64;
            for _ in 0..300 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let index = rng % p.index_count();
                let (x, canonical) = p.representative(index);
                if !canonical {
                    continue;
                }
                assert_eq!(p.index_of(&x), index, "{name}");
                for sym in 0..p.symmetries.len() {
                    let (y, _) = p.act(sym, &x);
                    assert_eq!(p.index_of(&y), index, "{name} symmetry {sym}");
                }
            }
        }
    }
}
