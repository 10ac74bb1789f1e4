//! A small part too large to enumerate: one orbit's permutation, numbered by its rank
//! rather than by a search, with each rank's class and its symmetry to the class's
//! representative packed in one 32-bit entry.
//!
//! The 3x3x3's edges are one orbit: no split into two orbits exists, and the
//! enumerated small part ([`super::small`]) stops at [`super::MAX_SMALL_PART`] values.
//! Their permutation (12! = 479,001,600 values, ranked by its Lehmer code) is the
//! small part here and their twists the large part: about ten million permutation
//! classes under the cube's 48 symmetries, times 2^11 twists, within a few per mille
//! of the 20.4 billion classes of positions (the symmetry coordinate of the strongest
//! cube solvers). A move's image of a permutation is computed and ranked; the table
//! of entries (4 bytes a permutation, 1.9 GB for twelve pieces) replaces the
//! enumerated part's move table and acts, which would take a hundred times more.
//!
//! The classes are found in two passes over every permutation, both on all cores: a
//! permutation is its class's representative when no symmetry makes it smaller
//! (compared place by place, most stop at the first or second), and the classes are
//! numbered in the order of their representatives' ranks, as the enumerated part's
//! first-met order would number them; each representative then writes its class's
//! entries.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::super::KPuzzleError;
use super::super::definition::Transformation;
use super::geometry::Geometry;
use super::small::{SmallClasses, inverse_symmetries};
use super::split::{
    Acts, MAX_LARGE, MAX_RANKED, Split, below, lehmer_digits, pieces_are_even, place_pieces,
};

/// Permutations per work item of the set-up's first pass.
const CHUNK: u64 = 1 << 16;

/// The bit of an entry that says its class's representative has a stabiliser.
const SYMMETRIC: u32 = 1 << 31;

/// A permutation of the orbit's places (entries past the orbit 0).
pub(super) type Pieces = [u8; MAX_LARGE];

/// One orbit's permutations, ranked, in classes under the symmetries.
#[derive(Debug, Clone)]
pub(super) struct RankedSmall {
    k: usize,
    /// Only even permutations occur (ranked as half their Lehmer rank).
    even: bool,
    /// The number of ranks.
    count: u64,
    /// `(k - 1 - i)!`, the weight of Lehmer digit `i`.
    weights: [u64; MAX_LARGE],
    /// Per move: the place each place takes its piece from.
    move_from: Vec<Pieces>,
    /// Per symmetry `S`: its permutation and its inverse's, so that the image of
    /// pieces `p` is `inverse[p[s[i]]]` (`S⁻¹·p·S`).
    sym_s: Vec<Pieces>,
    sym_inverse: Vec<Pieces>,
    /// Per symmetry, its act on a twist vector `t` whose pieces are `p`: place `i`
    /// takes `±t[s[i]] + piece_twist[p[s[i]]] + add[i]` (`-` under a mirror), as
    /// [`super::geometry::Geometry::push_act`] writes it.
    sym_add: Vec<Pieces>,
    sym_piece_twist: Vec<Pieces>,
    sym_mirror: Vec<bool>,
    modulus: u8,
    /// Bits of an entry for the symmetry.
    sym_bits: u32,
    /// Per rank: [`SYMMETRIC`] where its class's representative has a stabiliser,
    /// its class shifted by `sym_bits`, and the symmetry that takes the permutation to
    /// its class's representative.
    entries: Vec<u32>,
}

impl RankedSmall {
    /// The ranked small part of `split` (twists large, one orbit of at most
    /// [`MAX_RANKED`] pieces, no frame) under `geometry`'s symmetries, and its classes.
    ///
    /// # Errors
    /// [`KPuzzleError`] if the classes and symmetries do not fit an entry.
    pub fn classify(
        geometry: &Geometry,
        split: &Split,
    ) -> Result<(RankedSmall, SmallClasses), KPuzzleError> {
        let mut small = RankedSmall::prepare(geometry, split);
        let k = small.k;
        let g = geometry.symmetries.len();
        let representatives = small.representatives();
        if representatives.len() as u64 >= 1u64 << (31 - small.sym_bits) {
            return Err(KPuzzleError::Option(format!(
                "symmetry classes: {} classes of the ranked part and {g} symmetries do not \
                 fit 32 bits",
                representatives.len()
            )));
        }
        let inverse_index = inverse_symmetries(geometry);
        let (entries, symmetric) = small.fill_entries(&representatives, &inverse_index);
        small.entries = entries;
        // The stabilisers' acts, class by class (few classes have any).
        let mut stabiliser_of = vec![(0u32, 0u32); representatives.len()];
        let mut stabilisers = Acts::new(k);
        for (c, stabiliser) in &symmetric {
            let start = stabilisers.len();
            let x = small.state(representatives[*c as usize]);
            for &sym in &stabiliser[1..] {
                geometry.push_act(split, &mut stabilisers, sym as usize, &x);
            }
            stabiliser_of[*c as usize] = (start as u32, (stabiliser.len() - 1) as u32);
        }
        let classes = SmallClasses {
            class: Vec::new(),
            acts: Acts::new(k),
            representatives,
            stabiliser_of,
            stabilisers,
            symmetric,
        };
        Ok((small, classes))
    }

    /// The number of classes of the permutations (the first pass alone: a census).
    pub fn count_classes(geometry: &Geometry, split: &Split) -> u64 {
        RankedSmall::prepare(geometry, split)
            .representatives()
            .len() as u64
    }

    /// The ranking, moves and symmetries' acts, without the entries.
    fn prepare(geometry: &Geometry, split: &Split) -> RankedSmall {
        let k = split.large_positions.len();
        debug_assert!(k <= MAX_RANKED && geometry.frame.is_none());
        let moduli = &geometry.compact.moduli;
        let m = split.large_modulus;
        let local = |v: &[u8]| -> Pieces {
            let mut p = [0u8; MAX_LARGE];
            p[..k].copy_from_slice(&v[..k]);
            p
        };
        let mut small = RankedSmall {
            k,
            even: split.even,
            count: factorial(k) / if split.even { 2 } else { 1 },
            weights: std::array::from_fn(|i| factorial(k.saturating_sub(i + 1))),
            move_from: geometry
                .moves
                .iter()
                .map(|t| local(&t.permutation))
                .collect(),
            sym_s: Vec::new(),
            sym_inverse: Vec::new(),
            sym_add: Vec::new(),
            sym_piece_twist: Vec::new(),
            sym_mirror: Vec::new(),
            modulus: m,
            sym_bits: 0,
            entries: Vec::new(),
        };
        for symmetry in &geometry.symmetries {
            let s = &symmetry.s;
            let inverse = s.inverse(moduli);
            small.sym_s.push(local(&s.permutation));
            small.sym_inverse.push(local(&inverse.permutation));
            let add: Vec<u8> = s.delta.iter().map(|&d| d % m).collect();
            let piece_twist: Vec<u8> = inverse.delta.iter().map(|&d| d % m).collect();
            small.sym_add.push(local(&add));
            small.sym_piece_twist.push(local(&piece_twist));
            small.sym_mirror.push(symmetry.mirror);
        }
        let g = geometry.symmetries.len();
        small.sym_bits = u32::BITS - (g.max(2) - 1).leading_zeros();
        small
    }

    /// The ranks of the permutations no symmetry makes smaller, in order.
    fn representatives(&self) -> Vec<u32> {
        let chunks = self.count.div_ceil(CHUNK);
        let found: Vec<Vec<u32>> = (0..chunks)
            .into_par_iter()
            .map(|chunk| {
                let start = chunk * CHUNK;
                let end = self.count.min(start + CHUNK);
                let mut out = Vec::new();
                let mut p = self.unrank(start as u32);
                for r in start..end {
                    if self.is_least_image(&p) {
                        out.push(r as u32);
                    }
                    if r + 1 < end {
                        self.advance(&mut p);
                    }
                }
                out
            })
            .collect();
        found.concat()
    }

    /// Whether no symmetry's image of `p` comes before it (place by place, the order
    /// of the ranks).
    fn is_least_image(&self, p: &Pieces) -> bool {
        let k = self.k;
        for (s, inverse) in self.sym_s.iter().zip(&self.sym_inverse).skip(1) {
            for i in 0..k {
                let v = inverse[p[s[i] as usize] as usize];
                if v != p[i] {
                    if v < p[i] {
                        return false;
                    }
                    break;
                }
            }
        }
        true
    }

    /// Each class's entries written by its representative, and the classes whose
    /// stabiliser holds more than the identity (with it, the identity first).
    fn fill_entries(
        &self,
        representatives: &[u32],
        inverse_index: &[u16],
    ) -> (Vec<u32>, Vec<(u32, Vec<u16>)>) {
        // On huge pages: the searches read an entry per neighbour, at random.
        let mut entries: Vec<AtomicU32> = Vec::with_capacity(self.count as usize);
        crate::sys::advise_huge_pages(entries.spare_capacity_mut());
        entries.par_extend(
            (0..self.count)
                .into_par_iter()
                .map(|_| AtomicU32::new(u32::MAX)),
        );
        let symmetric: Vec<(u32, Vec<u16>)> = representatives
            .par_iter()
            .enumerate()
            .filter_map(|(c, &r)| {
                let p = self.unrank(r);
                let images = || (0..inverse_index.len()).map(|sym| self.rank(&self.image(sym, &p)));
                let stabiliser: Vec<u16> = images()
                    .enumerate()
                    .filter(|&(_, t)| t == r)
                    .map(|(sym, _)| sym as u16)
                    .collect();
                let flag = if stabiliser.len() > 1 { SYMMETRIC } else { 0 };
                for (t, &inverse) in images().zip(inverse_index) {
                    // Only this class's representative writes its entries.
                    let entry = &entries[t as usize];
                    if entry.load(Ordering::Relaxed) == u32::MAX {
                        entry.store(
                            flag | (c as u32) << self.sym_bits | inverse as u32,
                            Ordering::Relaxed,
                        );
                    }
                }
                (stabiliser.len() > 1).then_some((c as u32, stabiliser))
            })
            .collect();
        let entries = entries.into_iter().map(AtomicU32::into_inner).collect();
        (entries, symmetric)
    }

    /// The rank of the permutation `p`.
    #[inline(always)]
    pub fn rank(&self, p: &Pieces) -> u32 {
        let mut seen = 0u32;
        let mut rank = 0u64;
        for (&v, &weight) in p[..self.k].iter().zip(&self.weights) {
            let v = v as u32;
            rank += (v - (seen & ((1u32 << v) - 1)).count_ones()) as u64 * weight;
            seen |= 1 << v;
        }
        (if self.even { rank >> 1 } else { rank }) as u32
    }

    /// The permutation of rank `rank`.
    #[inline(always)]
    pub fn unrank(&self, rank: u32) -> Pieces {
        let k = self.k;
        let full = if self.even {
            (rank as u64) << 1
        } else {
            rank as u64
        };
        let mut digits = [0u8; MAX_LARGE];
        lehmer_digits(full, k, &mut digits);
        let mut p = [0u8; MAX_LARGE];
        place_pieces(&digits[..k], &Split::whole_order(), &mut p);
        if self.even && k >= 2 && !pieces_are_even(&p[..k]) {
            p.swap(k - 2, k - 1);
        }
        p
    }

    /// `p` made the permutation of the next rank (the next in lexicographic order,
    /// the next even one where only even ones are ranked).
    fn advance(&self, p: &mut Pieces) {
        let k = self.k;
        next_permutation(&mut p[..k]);
        while self.even && !pieces_are_even(&p[..k]) {
            next_permutation(&mut p[..k]);
        }
    }

    /// `p` after move `mv`.
    #[inline(always)]
    pub fn moved(&self, mv: usize, p: &Pieces) -> Pieces {
        let from = &self.move_from[mv];
        let mut out = [0u8; MAX_LARGE];
        for i in 0..self.k {
            out[i] = p[from[i] as usize];
        }
        out
    }

    /// `p` under symmetry `sym`: `S⁻¹·p·S`.
    #[inline(always)]
    pub fn image(&self, sym: usize, p: &Pieces) -> Pieces {
        let (s, inverse) = (&self.sym_s[sym], &self.sym_inverse[sym]);
        let mut out = [0u8; MAX_LARGE];
        for i in 0..self.k {
            out[i] = inverse[p[s[i] as usize] as usize];
        }
        out
    }

    /// Rank `rank`'s class, the symmetry that takes it to the class's representative,
    /// and whether the representative has a stabiliser (more than the identity).
    #[inline(always)]
    pub fn entry(&self, rank: u32) -> (u32, usize, bool) {
        let entry = self.entries[rank as usize];
        (
            (entry & !SYMMETRIC) >> self.sym_bits,
            (entry & ((1 << self.sym_bits) - 1)) as usize,
            entry & SYMMETRIC != 0,
        )
    }

    /// Asks for rank `rank`'s entry ahead of [`RankedSmall::entry`].
    #[inline(always)]
    pub fn prefetch(&self, rank: u32) {
        crate::cpu::prefetch(&self.entries[rank as usize]);
    }

    /// The twists `t` of positions with pieces `p` under symmetry `sym`.
    #[inline(always)]
    pub fn act_twists(&self, sym: usize, p: &Pieces, t: &Pieces) -> Pieces {
        let s = &self.sym_s[sym];
        let add = &self.sym_add[sym];
        let piece_twist = &self.sym_piece_twist[sym];
        let m = self.modulus;
        let mirror = self.sym_mirror[sym];
        let mut out = [0u8; MAX_LARGE];
        for i in 0..self.k {
            let j = s[i] as usize;
            let twist = if mirror && t[j] > 0 { m - t[j] } else { t[j] };
            out[i] = below(below(twist + piece_twist[p[j] as usize], m) + add[i], m);
        }
        out
    }

    /// Rank `rank` as a compact position of `n` places, untwisted.
    pub fn state(&self, rank: u32) -> Transformation {
        let p = self.unrank(rank);
        Transformation {
            permutation: p[..self.k].to_vec(),
            delta: vec![0; self.k],
        }
    }

    /// The pieces of a compact position.
    pub fn pieces_of(&self, x: &Transformation) -> Pieces {
        let mut p = [0u8; MAX_LARGE];
        p[..self.k].copy_from_slice(&x.permutation[..self.k]);
        p
    }

    /// Whether the permutation of `x` is one the ranks number.
    pub fn contains(&self, x: &Transformation) -> bool {
        !self.even || pieces_are_even(&x.permutation[..self.k])
    }
}

/// `p` made the next permutation in lexicographic order (the last wraps to the first).
fn next_permutation(p: &mut [u8]) {
    let n = p.len();
    let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
        p.reverse();
        return;
    };
    let j = (i..n)
        .rev()
        .find(|&j| p[j] > p[i - 1])
        .expect("p[i] is larger");
    p.swap(i - 1, j);
    p[i..].reverse();
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bare(k: usize, even: bool) -> RankedSmall {
        RankedSmall {
            k,
            even,
            count: factorial(k) / if even { 2 } else { 1 },
            weights: std::array::from_fn(|i| factorial(k.saturating_sub(i + 1))),
            move_from: Vec::new(),
            sym_s: Vec::new(),
            sym_inverse: Vec::new(),
            sym_add: Vec::new(),
            sym_piece_twist: Vec::new(),
            sym_mirror: Vec::new(),
            modulus: 2,
            sym_bits: 0,
            entries: Vec::new(),
        }
    }

    proptest! {
        /// Ranks are below the count and unrank inverts them, for every size up to
        /// twelve, even or not.
        #[test]
        fn ranks_and_unranks_are_inverse(k in 1usize..=MAX_RANKED, even: bool, seed: u64) {
            let small = bare(k, even && k >= 2);
            let r = (seed % small.count) as u32;
            let p = small.unrank(r);
            prop_assert!(!small.even || pieces_are_even(&p[..k]));
            prop_assert_eq!(small.rank(&p), r);
        }
    }

    /// Advancing walks the ranks in order, even ones only where only they are ranked.
    #[test]
    fn advancing_walks_the_ranks_in_order() {
        for (k, even) in [(5, false), (6, true), (7, true)] {
            let small = bare(k, even);
            let mut p = small.unrank(0);
            for r in 0..small.count as u32 {
                assert_eq!(small.rank(&p), r, "k {k} even {even}");
                small.advance(&mut p);
            }
        }
    }
}
