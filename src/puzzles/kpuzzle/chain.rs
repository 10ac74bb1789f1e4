//! A tight index for any permutation group: positions ranked by the group's
//! stabiliser chain, so the indices are exactly the positions the moves reach.
//!
//! The orbit-by-orbit ranking ([`super::ranking::Layout`]) numbers every arrangement
//! of each orbit's pieces and twists, and some puzzles reach only a fraction of them:
//! the Skewb one in 9, the FTO's corners (four orientations, two in reach) one in 16.
//! Schreier-Sims ([`super::group`]) gives a base `b_0, b_1, ...` and, per level `i`, a
//! transversal: one element `u_i(q)` of the level's stabiliser for each point `q` of
//! the orbit of `b_i`. Every element of the group is one product
//! `g = u_{k-1}(q_{k-1}) ... u_0(q_0)` (in "then" order), so the tuple of orbit slots
//! `(q_0, ..., q_{k-1})` read in mixed radix is a bijection from the group onto
//! `0..|G|` (Seress, *Permutation Group Algorithms*, 2003, section 4.1).
//!
//! Ranking sifts: the image of `b_0` under `g` names `q_0`; dividing by `u_0(q_0)`
//! leaves an element that fixes `b_0`, and so on down. Only the images of the base
//! points are carried, `O(n + k²)` work for `n` positions and `k` base points.
//! Unranking follows each piece's reference point through the `k` transversal
//! elements, `O(n k)`. A run of ascending indices ([`ChainRanking::expand_sorted`], a
//! level of the search) shares its higher levels' elements: their product is made
//! once per change, and the low levels' images come from a table.
//!
//! Points are a kept position and an orientation, as in [`super::group`]; a position
//! `P` is the group element that takes piece `x`'s point `(x, o)` to
//! `(where x is, o + its twist)`. The goal must be the solved state of distinct,
//! untwisted pieces ([`super::KPuzzle::compact`]).

use super::definition::{Pattern, Transformation};
use super::group::{StabiliserChain, as_points};
use super::symmetry::Compact;
use crate::divisor::Divisor;

/// Not in the level's orbit.
const OUTSIDE: u16 = u16::MAX;

/// The most base points (an index of 64 bits has at most 64 levels of 2 or more).
const MAX_LEVELS: usize = 64;

/// Moves whose neighbours are sifted in step.
const LANES: usize = 8;

/// The stabiliser-chain ranking of a puzzle's positions.
#[derive(Debug, Clone)]
pub struct ChainRanking {
    /// The full position of each kept position.
    kept: Vec<usize>,
    /// The orbit's first full position, per kept position.
    offset: Vec<usize>,
    /// The first point of each kept position.
    first: Vec<u16>,
    /// The orientations of each kept position's orbit.
    moduli: Vec<u8>,
    /// The kept position of each point.
    position_of: Vec<u16>,
    /// The kept position of each full position (`OUTSIDE` for dropped ones).
    compact_of: Vec<u16>,
    levels: Vec<ChainLevel>,
    /// Each move as a permutation of the points, in the order given.
    moves: Vec<Vec<u16>>,
    count: u64,
    /// The sift in 512-bit registers, where the CPU and the group allow it.
    #[cfg(target_arch = "x86_64")]
    wide: Option<WideSift>,
}

/// The inverse transversal elements as rows of [`WIDE`] 16-bit points: with at most
/// that many points and levels, a level of a sift is one `vpermw` over every later
/// image at once (AVX-512 BW) where the scalar sift looks each up.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone)]
struct WideSift {
    cpu: crate::cpu::Avx512,
    /// Each level's base point (levels past the last: 0).
    bases: [u16; WIDE],
    /// Per level, per slot, the transversal element (points past the last are 0).
    forward: Vec<Vec<[u16; WIDE]>>,
    /// Per level, per slot, its inverse.
    inverse: Vec<Vec<[u16; WIDE]>>,
    /// Each move as a permutation of the points.
    moves: Vec<[u16; WIDE]>,
    /// The levels from `split` on, the index's low digits: per value of those digits
    /// (below `low_count`), the base points' images through their transversal
    /// elements. A run of ascending indices shares the higher levels' elements, whose
    /// product is made once ([`ChainRanking::expand_sorted`]).
    split: usize,
    low_count: Divisor,
    low_images: Vec<[u16; WIDE]>,
}

#[cfg(target_arch = "x86_64")]
impl WideSift {
    /// The wide sift of `levels` over `points` points (the first of each kept
    /// position in `first`) and the moves `generators`.
    fn new(
        cpu: crate::cpu::Avx512,
        levels: &[ChainLevel],
        first: &[u16],
        points: usize,
        generators: &[Vec<u16>],
    ) -> WideSift {
        let mut bases = [0u16; WIDE];
        for (base, level) in bases.iter_mut().zip(levels) {
            *base = first[level.piece as usize] + u16::from(level.twist);
        }
        let (split, low_count) = low_levels(levels);
        let low_images = (0..low_count)
            .map(|low| {
                let mut images = bases;
                let mut rest = low;
                for level in levels[split..].iter().rev() {
                    let (quotient, s) = level.radix.div_rem(rest);
                    rest = quotient;
                    let row = &level.forward[s as usize * points..][..points];
                    for image in &mut images {
                        *image = row[*image as usize];
                    }
                }
                images
            })
            .collect();
        WideSift {
            split,
            low_count: Divisor::new(low_count),
            low_images,
            cpu,
            bases,
            forward: levels
                .iter()
                .map(|l| wide_rows(&l.forward, points))
                .collect(),
            inverse: levels
                .iter()
                .map(|l| wide_rows(&l.inverse, points))
                .collect(),
            moves: generators
                .iter()
                .flat_map(|m| wide_rows(m, points))
                .collect(),
        }
    }
}

/// The most entries of [`WideSift::low_images`] (64 bytes each).
#[cfg(target_arch = "x86_64")]
const LOW_IMAGES: u64 = 4096;

/// Thirty-two 16-bit words as a 512-bit register.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn register(words: [u16; WIDE]) -> std::arch::x86_64::__m512i {
    // SAFETY: both are 64 plain bytes, every bit pattern valid for either.
    unsafe { std::mem::transmute::<[u16; WIDE], std::arch::x86_64::__m512i>(words) }
}

/// A 512-bit register as thirty-two 16-bit words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn words(register: std::arch::x86_64::__m512i) -> [u16; WIDE] {
    // SAFETY: both are 64 plain bytes, every bit pattern valid for either.
    unsafe { std::mem::transmute::<std::arch::x86_64::__m512i, [u16; WIDE]>(register) }
}

/// `table` as rows of [`WIDE`] points, each padded with 0.
#[cfg(target_arch = "x86_64")]
fn wide_rows(table: &[u16], points: usize) -> Vec<[u16; WIDE]> {
    table
        .chunks(points)
        .map(|row| {
            let mut wide = [0u16; WIDE];
            wide[..points].copy_from_slice(row);
            wide
        })
        .collect()
}

/// Where the index's low digits start (`levels` from there on multiply to at most
/// [`LOW_IMAGES`] values), and how many values they take.
#[cfg(target_arch = "x86_64")]
fn low_levels(levels: &[ChainLevel]) -> (usize, u64) {
    let mut split = levels.len();
    let mut count = 1u64;
    while split > 0 && count * levels[split - 1].radix.value <= LOW_IMAGES {
        split -= 1;
        count *= levels[split].radix.value;
    }
    (split, count)
}

/// Points and levels of a [`WideSift`] at most: 32 lanes of 16 bits.
#[cfg(target_arch = "x86_64")]
const WIDE: usize = 32;

/// One level of the chain.
#[derive(Debug, Clone)]
struct ChainLevel {
    /// The base point's piece (a kept position) and orientation.
    piece: u16,
    twist: u8,
    /// The slot of each point in the base point's orbit, `OUTSIDE` if not in it.
    slot: Vec<u16>,
    /// Per slot, the transversal element (`points` entries each).
    forward: Vec<u16>,
    /// Per slot, its inverse.
    inverse: Vec<u16>,
    /// The index's weight of this level's slot.
    stride: u64,
    /// The orbit's size, with its reciprocal.
    radix: Divisor,
}

impl ChainRanking {
    /// The ranking of the group `moves` generate on the `compact` positions, or
    /// `None` when the group has more than 2^64 elements. [`ChainRanking::neighbours`]
    /// answers for `moves` in this order.
    #[must_use]
    pub fn new(moves: &[Transformation], compact: &Compact) -> Option<ChainRanking> {
        let local: Vec<Transformation> = moves.iter().map(|m| compact.restrict(m)).collect();
        let refs: Vec<&Transformation> = local.iter().collect();
        let (generators, points) = as_points(&refs, &compact.moduli);
        let chain = StabiliserChain::new(generators.clone(), points);
        if chain.levels.len() > MAX_LEVELS {
            return None;
        }
        let mut first = Vec::with_capacity(compact.len());
        let mut position_of = Vec::with_capacity(points);
        for (c, &m) in compact.moduli.iter().enumerate() {
            first.push(position_of.len() as u16);
            position_of.extend(std::iter::repeat_n(c as u16, m as usize));
        }
        let mut count = 1u64;
        let mut levels = Vec::with_capacity(chain.levels.len());
        for level in chain.levels.iter().rev() {
            let mut slot = vec![OUTSIDE; points];
            let mut forward = Vec::with_capacity(level.orbit.len() * points);
            let mut inverse = vec![0u16; level.orbit.len() * points];
            for (s, &q) in level.orbit.iter().enumerate() {
                slot[q] = s as u16;
                let u = level.transversal[q].as_ref().expect("an orbit point");
                forward.extend_from_slice(u);
                for (x, &y) in u.iter().enumerate() {
                    inverse[s * points + y as usize] = x as u16;
                }
            }
            let c = position_of[level.base];
            levels.push(ChainLevel {
                piece: c,
                twist: (level.base - first[c as usize] as usize) as u8,
                slot,
                forward,
                inverse,
                stride: count,
                radix: Divisor::new(level.orbit.len() as u64),
            });
            count = count.checked_mul(level.orbit.len() as u64)?;
        }
        levels.reverse();
        let mut compact_of = vec![OUTSIDE; 256];
        let mut offset = Vec::with_capacity(compact.len());
        for (c, &p) in compact.kept.iter().enumerate() {
            compact_of[p] = c as u16;
            let orbit = compact.orbit[c];
            let start = compact
                .kept
                .iter()
                .zip(&compact.orbit)
                .find(|(_, o)| **o == orbit)
                .map(|(&q, _)| q)
                .expect("its own orbit");
            offset.push(start);
        }
        #[cfg(target_arch = "x86_64")]
        let wide = crate::cpu::Avx512::detect()
            .filter(|_| points <= WIDE && levels.len() <= WIDE)
            .map(|cpu| WideSift::new(cpu, &levels, &first, points, &generators));
        Some(ChainRanking {
            #[cfg(target_arch = "x86_64")]
            wide,
            kept: compact.kept.clone(),
            offset,
            first,
            moduli: compact.moduli.clone(),
            position_of,
            compact_of,
            levels,
            moves: generators,
            count,
        })
    }

    /// The number of indices: the group's order.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The index of `pattern`, a position the moves reach.
    ///
    /// # Panics
    /// When the moves do not reach `pattern` (check with [`ChainRanking::contains`]
    /// first; positions made by moves from the goal are always reached).
    #[must_use]
    pub fn rank(&self, pattern: &Pattern) -> u64 {
        self.sift(pattern)
            .expect("a position the moves reach (checked when it was read)")
    }

    /// Whether the moves reach `pattern`.
    #[must_use]
    pub fn contains(&self, pattern: &Pattern) -> bool {
        let Some(index) = self.sift(pattern) else {
            return false;
        };
        // Every base point went home; the element left is the identity exactly when
        // `pattern` is in the group, so compare the position the index names.
        let mut back = pattern.clone();
        self.unrank(index, &mut back);
        self.kept.iter().all(|&p| {
            back.pieces[p] == pattern.pieces[p] && back.orientation[p] == pattern.orientation[p]
        })
    }

    /// The orbit slots of the base points' images read as an index, or `None` when
    /// an image leaves its level's orbit (or a piece is not one of the kept ones).
    fn sift(&self, pattern: &Pattern) -> Option<u64> {
        let n = self.kept.len();
        // Where each piece (a kept position) is, and the image of each base point.
        let mut at = [0u16; 256];
        for (c, &p) in self.kept.iter().enumerate() {
            let piece = pattern.pieces[p] as usize + self.offset[c];
            let home = *self.compact_of.get(piece)?;
            if home == OUTSIDE || home as usize >= n {
                return None;
            }
            at[home as usize] = c as u16;
        }
        let mut image = [0u16; MAX_LEVELS];
        for (i, level) in self.levels.iter().enumerate() {
            let c = at[level.piece as usize] as usize;
            let twist = (level.twist + pattern.orientation[self.kept[c]]) % self.moduli[c];
            image[i] = self.first[c] + twist as u16;
        }
        self.sift_images(&mut image[..self.levels.len()])
    }

    /// The index whose base points' images are `image` (consumed), or `None` when
    /// one leaves its level's orbit.
    fn sift_images(&self, image: &mut [u16]) -> Option<u64> {
        let points = self.position_of.len();
        let mut index = 0u64;
        for (i, level) in self.levels.iter().enumerate() {
            let s = level.slot[image[i] as usize];
            if s == OUTSIDE {
                return None;
            }
            index += s as u64 * level.stride;
            let inverse = &level.inverse[s as usize * points..][..points];
            for later in &mut image[i + 1..] {
                *later = inverse[*later as usize];
            }
        }
        Some(index)
    }

    /// The index of each move's result from the position of `index`, into `out`
    /// (one per move given to [`ChainRanking::new`]), without building a position:
    /// the base points' images are followed through the transversal elements and
    /// the move, then sifted, eight moves in step.
    pub fn neighbours(&self, index: u64, out: &mut [u64]) {
        let k = self.levels.len();
        let slots = self.slots(index);
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = &self.wide {
            // SAFETY: the token proves that the CPU has AVX-512 F and BW.
            unsafe { self.neighbours_wide(wide.cpu, wide, &slots, out) };
            return;
        }
        let points = self.position_of.len();
        let mut images = [0u16; MAX_LEVELS];
        for (image, level) in images.iter_mut().zip(&self.levels) {
            let mut x = (self.first[level.piece as usize] + level.twist as u16) as usize;
            for (l, &s) in self.levels.iter().zip(&slots).rev() {
                x = l.forward[s * points + x] as usize;
            }
            *image = x as u16;
        }
        for (moves, out) in self.moves.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut lanes = [[0u16; MAX_LEVELS]; LANES];
            for (lane, m) in lanes.iter_mut().zip(moves) {
                for (after, &before) in lane.iter_mut().zip(&images[..k]) {
                    *after = m[before as usize];
                }
            }
            self.sift_lanes(&mut lanes[..moves.len()], out);
        }
    }

    /// The orbit slot of each level in `index` (mixed radix, the last level's the
    /// units), by reciprocals: a division is tens of cycles, `k` of them per index.
    #[inline(always)]
    fn slots(&self, index: u64) -> [usize; MAX_LEVELS] {
        let mut slots = [0usize; MAX_LEVELS];
        let mut rest = index;
        for (slot, level) in slots.iter_mut().zip(&self.levels).rev() {
            let (quotient, remainder) = level.radix.div_rem(rest);
            *slot = remainder as usize;
            rest = quotient;
        }
        slots
    }

    /// [`ChainRanking::sift_images`] of several images at once, level by level, into
    /// `out`: each sift is a chain of dependent look-ups (a level's slot names the
    /// next level's image), and chains in step overlap in the CPU. Every image must be
    /// in the group (a move's result).
    #[inline(always)]
    fn sift_lanes(&self, lanes: &mut [[u16; MAX_LEVELS]], out: &mut [u64]) {
        let (k, points) = (self.levels.len(), self.position_of.len());
        out.fill(0);
        for (i, level) in self.levels.iter().enumerate() {
            for (image, out) in lanes.iter_mut().zip(out.iter_mut()) {
                let s = level.slot[image[i] as usize];
                assert!(s != OUTSIDE, "a move keeps the group");
                *out += u64::from(s) * level.stride;
                let inverse = &level.inverse[s as usize * points..][..points];
                for later in &mut image[i + 1..k] {
                    *later = inverse[*later as usize];
                }
            }
        }
    }

    /// [`ChainRanking::neighbours`] in 512-bit registers: the base points' images
    /// through the transversal elements, then through each move, one `vpermw` each.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn neighbours_wide(
        &self,
        cpu: crate::cpu::Avx512,
        wide: &WideSift,
        slots: &[usize; MAX_LEVELS],
        out: &mut [u64],
    ) {
        use std::arch::x86_64::_mm512_permutexvar_epi16;
        // Every lane holds a point (the padding 0 is one), below 32: a permutation
        // reads a row's points.
        let mut images = register(wide.bases);
        for (rows, &s) in wide.forward.iter().zip(&slots[..self.levels.len()]).rev() {
            images = _mm512_permutexvar_epi16(images, register(rows[s]));
        }
        self.sift_moves_wide(cpu, wide, images, out);
    }

    /// [`ChainRanking::neighbours`] of each of `indices` (ascending), handed to
    /// `visit` with the index: where the CPU has the wide sift, the base points'
    /// images come from a table of the index's low digits and one product of the
    /// higher levels' elements, made again only when those digits change.
    pub fn expand_sorted(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        let mut out = vec![0u64; self.moves.len()];
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = &self.wide {
            // SAFETY: the token proves that the CPU has AVX-512 F and BW.
            unsafe { self.expand_sorted_wide(wide.cpu, wide, indices, &mut out, &mut visit) };
            return;
        }
        for &index in indices {
            self.neighbours(index, &mut out);
            visit(index, &out);
        }
    }

    /// [`ChainRanking::expand_sorted`] in 512-bit registers.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn expand_sorted_wide(
        &self,
        cpu: crate::cpu::Avx512,
        wide: &WideSift,
        indices: &[u64],
        out: &mut [u64],
        visit: &mut impl FnMut(u64, &[u64]),
    ) {
        use std::arch::x86_64::_mm512_permutexvar_epi16;
        let identity: [u16; WIDE] = std::array::from_fn(|x| x as u16);
        let mut high_now = u64::MAX;
        // The product of the higher levels' elements as a map of points: point `x`
        // to its image through the split level's element, then the next lower, ...
        let mut higher = register(identity);
        for &index in indices {
            let (high, low) = wide.low_count.div_rem(index);
            if high != high_now {
                high_now = high;
                let slots = self.slots(index);
                higher = register(identity);
                for (rows, &s) in wide.forward[..wide.split]
                    .iter()
                    .zip(&slots[..wide.split])
                    .rev()
                {
                    higher = _mm512_permutexvar_epi16(higher, register(rows[s]));
                }
            }
            let images = _mm512_permutexvar_epi16(register(wide.low_images[low as usize]), higher);
            self.sift_moves_wide(cpu, wide, images, out);
            visit(index, out);
        }
    }

    /// Each move's image of the base points' `images`, sifted into `out`, eight
    /// moves in step.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn sift_moves_wide(
        &self,
        cpu: crate::cpu::Avx512,
        wide: &WideSift,
        images: std::arch::x86_64::__m512i,
        out: &mut [u64],
    ) {
        use std::arch::x86_64::_mm512_permutexvar_epi16;
        for (moves, out) in wide.moves.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut lanes = [[0u16; WIDE]; LANES];
            for (lane, &m) in lanes.iter_mut().zip(moves) {
                *lane = words(_mm512_permutexvar_epi16(images, register(m)));
            }
            self.sift_lanes_wide(cpu, wide, &mut lanes[..moves.len()], out);
        }
    }

    /// [`ChainRanking::sift_lanes`] with each level's inverse element applied to all
    /// of a lane's later images by one `vpermw`: the images (at most [`WIDE`] points,
    /// [`WIDE`] levels) are a lane of 16-bit words, the element a row of as many.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn sift_lanes_wide(
        &self,
        _: crate::cpu::Avx512,
        wide: &WideSift,
        lanes: &mut [[u16; WIDE]],
        out: &mut [u64],
    ) {
        use std::arch::x86_64::_mm512_permutexvar_epi16;
        out.fill(0);
        for ((i, level), rows) in self.levels.iter().enumerate().zip(&wide.inverse) {
            for (image, out) in lanes.iter_mut().zip(out.iter_mut()) {
                let s = level.slot[image[i] as usize];
                assert!(s != OUTSIDE, "a move keeps the group");
                *out += u64::from(s) * level.stride;
                // The images are points, below 32: the permutation reads the row's
                // points (the earlier images, already sifted, are permuted too and
                // never read again).
                let row = register(rows[s as usize]);
                *image = words(_mm512_permutexvar_epi16(register(*image), row));
            }
        }
    }

    /// Writes the position of `index` into the kept positions of `pattern`.
    pub fn unrank(&self, index: u64, pattern: &mut Pattern) {
        let points = self.position_of.len();
        let slots = self.slots(index);
        for (c, &first) in self.first.iter().enumerate() {
            let mut x = first as usize;
            for (level, &s) in self.levels.iter().zip(&slots).rev() {
                x = level.forward[s * points + x] as usize;
            }
            let to = self.position_of[x] as usize;
            let p = self.kept[to];
            pattern.pieces[p] = (self.kept[c] - self.offset[c]) as u8;
            pattern.orientation[p] = (x - self.first[to] as usize) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::library::open;
    use crate::puzzle::{Notation, Puzzle};
    use proptest::prelude::*;

    #[test]
    fn the_skewbs_indices_are_its_states() {
        let skewb = open("skewb").unwrap();
        let chain = skewb.chain_ranking().expect("the orbit ranking has slack");
        assert_eq!(chain.count(), 3_149_280);
        assert_eq!(skewb.rank(skewb.goal()), 0);
        // One corner twisted alone is an arrangement no move sequence makes.
        let mut twisted = skewb.goal().clone();
        twisted.orientation[1] = 1;
        assert!(!chain.contains(&twisted));
        assert!(skewb.parse(&skewb.format_line(&twisted)).is_err());
        // Two centres swapped, likewise (the centres' permutations are even).
        let mut swapped = skewb.goal().clone();
        let centres = swapped.pieces.len() - 6;
        swapped.pieces.swap(centres, centres + 1);
        assert!(!chain.contains(&swapped));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Index -> position -> index, and a move's neighbour as the position after
        /// the move ranks.
        #[test]
        fn ranks_unranks_and_neighbours_agree(index in 0u64..3_149_280) {
            let skewb = open("skewb").unwrap();
            let chain = skewb.chain_ranking().unwrap();
            let pattern = skewb.unrank(index);
            prop_assert!(chain.contains(&pattern));
            prop_assert_eq!(skewb.rank(&pattern), index);
            let mut neighbours = vec![0u64; skewb.turns().len()];
            chain.neighbours(index, &mut neighbours);
            for (k, &n) in neighbours.iter().enumerate() {
                prop_assert_eq!(n, skewb.rank(&skewb.apply(&pattern, k)));
            }
            // The scalar sift, where the CPU has the wide one, answers alike.
            let mut scalar = chain.clone();
            #[cfg(target_arch = "x86_64")]
            {
                scalar.wide = None;
            }
            let mut again = vec![0u64; neighbours.len()];
            scalar.neighbours(index, &mut again);
            prop_assert_eq!(again, neighbours);
        }

        /// A run of ascending indices expanded together (the low digits' images from
        /// a table, the higher levels' product kept while they stay) has each index's
        /// own neighbours, on both sifts.
        #[test]
        fn sorted_runs_expand_as_each_index_alone(
            start in 0u64..3_149_280,
            steps in proptest::collection::vec(1u64..3000, 1..60),
        ) {
            let skewb = open("skewb").unwrap();
            let chain = skewb.chain_ranking().unwrap();
            let indices: Vec<u64> = steps
                .iter()
                .scan(start, |at, &step| {
                    let index = *at;
                    *at += step;
                    Some(index)
                })
                .filter(|&index| index < chain.count())
                .collect();
            let mut scalar = chain.clone();
            #[cfg(target_arch = "x86_64")]
            {
                scalar.wide = None;
            }
            for ranking in [chain, &scalar] {
                let mut seen = Vec::new();
                ranking.expand_sorted(&indices, |index, neighbours| {
                    seen.push((index, neighbours.to_vec()));
                });
                prop_assert_eq!(seen.len(), indices.len());
                for (&index, (at, neighbours)) in indices.iter().zip(&seen) {
                    let mut alone = vec![0u64; neighbours.len()];
                    chain.neighbours(index, &mut alone);
                    prop_assert_eq!(*at, index);
                    prop_assert_eq!(neighbours, &alone);
                }
            }
        }
    }
}
