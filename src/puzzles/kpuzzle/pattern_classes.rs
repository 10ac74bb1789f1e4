//! Symmetry classes of a goal of identical pieces.
//!
//! Where the goal repeats pieces (the 4x4x4's centres), `--symmetry` takes classes of
//! patterns under the symmetries that map the goal onto itself with its kinds
//! relabelled ([`super::relabel`]). A [`KPuzzle`] with [`PatternClasses`] ranks a
//! pattern by its class: by the tight index of [`super::pattern_index`] (small
//! parts' classes times the rest, within a few percent of the classes), or, where a
//! puzzle has none (a symmetry splits a part, or no part is small enough), by the
//! plain rank of the class's least pattern (kept positions in order, piece then
//! twist), the other ranks of the class left unused; its expansion skips the slots
//! that are not a class's own.
//!
//! ```
//! use antipode::Puzzle;
//! use antipode::puzzles::kpuzzle::library::{Twisty, open_any};
//!
//! let Twisty::Plain(centres) = open_any("4x4x4-centres --symmetry").unwrap() else {
//!     panic!()
//! };
//! let classes = centres.pattern_classes().unwrap();
//! assert_eq!(classes.symmetry_count(), 32);
//! let goal = centres.goal().clone();
//! assert_eq!(classes.class_size(&goal), 1);
//! ```

use super::KPuzzle;
use super::census::OrbitCount;
use super::definition::Pattern;
use super::pattern_index::{PatternIndex, Symmetries};
use super::ranking::{Digit, View};
use super::relabel::{Kinds, Relabelling};
use super::symmetry::{Compact, Symmetry};
use crate::puzzle::{ClassCounts, Puzzle};
use rayon::prelude::*;

/// The symmetries of a goal of identical pieces, each with its relabelling of the
/// kinds, over the puzzle's kept positions.
#[derive(Debug, Clone)]
pub struct PatternClasses {
    compact: Compact,
    symmetries: Vec<(Symmetry, Relabelling)>,
    /// The kind of label `l` in orbit `o`: `kind_of[o * 256 + l]`.
    kind_of: Vec<u16>,
    /// The label of each kind.
    label_of: Vec<u8>,
    /// Per symmetry: whether it is a rotation of the whole puzzle that keeps the
    /// colours (positions up to rotation are its classes; the identity alone
    /// otherwise).
    rotation: Vec<bool>,
    /// The symmetries of the puzzle before any were left out.
    puzzle_symmetries: usize,
    /// Burnside's count of the classes, where the census counted it.
    burnside: Option<u128>,
    /// The ranks that are not their class's own, where every rank is a position (the
    /// census's positions are the ranking's indices); else 0.
    unused_ranks: u64,
    /// The tight index, where the puzzle has one ([`PatternIndex`]); else classes
    /// are numbered by the plain rank of their least pattern.
    index: Option<PatternIndex>,
}

impl PatternClasses {
    /// The classes of `kinds` (the goal's, over `compact`) under `symmetries` (a
    /// group, the identity first), with the census's count (positions and classes)
    /// where it has one, and the plain ranking's `indices`. The symmetries that
    /// `rotation` marks are the whole puzzle's rotations (positions up to rotation
    /// are their classes, [`PatternClasses::class_size`]); mark the identity alone
    /// otherwise.
    #[must_use]
    pub fn new(
        compact: Compact,
        kinds: &Kinds,
        goal: &Pattern,
        symmetries: Vec<(Symmetry, Relabelling)>,
        rotation: Vec<bool>,
        census: Option<OrbitCount>,
        indices: u64,
    ) -> PatternClasses {
        let orbits = compact
            .orbit
            .iter()
            .copied()
            .max()
            .map_or(0, |o| o as usize + 1);
        let mut kind_of = vec![u16::MAX; orbits * 256];
        let mut label_of = vec![0u8; kinds.count()];
        for (i, (&p, &o)) in compact.kept.iter().zip(&compact.orbit).enumerate() {
            let kind = kinds.of[i];
            kind_of[o as usize * 256 + goal.pieces[p] as usize] = kind;
            label_of[kind as usize] = goal.pieces[p];
        }
        let rotations = rotation.iter().filter(|&&r| r).count();
        PatternClasses {
            puzzle_symmetries: symmetries.len() / rotations.max(1),
            rotation,
            compact,
            symmetries,
            kind_of,
            label_of,
            burnside: census.map(|c| c.classes),
            unused_ranks: match census {
                Some(c) if c.positions == u128::from(indices) => {
                    indices - u64::try_from(c.classes).unwrap_or(indices)
                }
                _ => 0,
            },
            index: None,
        }
    }

    /// These classes with the tight index over `plain`'s ranking, where it has one.
    #[must_use]
    pub fn with_index(mut self, plain: &KPuzzle) -> PatternClasses {
        self.index = PatternIndex::new(plain, &self, true);
        self
    }

    /// The tight index, if the classes have one.
    #[must_use]
    pub fn index(&self) -> Option<&PatternIndex> {
        self.index.as_ref()
    }

    /// `state` after symmetry `k`, written over `image` (as long as it; blanks kept).
    pub fn image_into(&self, state: &Pattern, k: usize, image: &mut Pattern) {
        image.pieces.copy_from_slice(&state.pieces);
        image.orientation.copy_from_slice(&state.orientation);
        for (i, &p) in self.compact.kept.iter().enumerate() {
            (image.pieces[p], image.orientation[p]) = self.image_at(state, k, i);
        }
    }

    /// Per symmetry `k`, for each of `digits`, the digit its image takes its pieces
    /// from (`sources[k][j]`: a symmetry permutes parts of one shape, as the
    /// Pyraminx's centres), or `None` if a symmetry splits a part or a part holds
    /// positions that are not kept.
    #[must_use]
    pub fn digit_sources(&self, digits: &[Digit<'_>]) -> Option<Vec<Vec<usize>>> {
        let mut at_kept = std::collections::HashMap::new();
        for (i, &p) in self.compact.kept.iter().enumerate() {
            at_kept.insert(p, i);
        }
        let mut digit_of = vec![usize::MAX; self.compact.len()];
        let mut kept_places = Vec::with_capacity(digits.len());
        for (d, digit) in digits.iter().enumerate() {
            let mut places = Vec::with_capacity(digit.places.len());
            for &p in digit.places {
                let &i = at_kept.get(&(p as usize))?;
                digit_of[i] = d;
                places.push(i);
            }
            kept_places.push(places);
        }
        self.symmetries
            .iter()
            .map(|(s, _)| {
                kept_places
                    .iter()
                    .enumerate()
                    .map(|(j, places)| {
                        let from = digit_of[s.s.permutation[places[0]] as usize];
                        let whole = places
                            .iter()
                            .all(|&i| digit_of[s.s.permutation[i] as usize] == from);
                        (whole && from != usize::MAX && digits[from].size == digits[j].size)
                            .then_some(from)
                    })
                    .collect()
            })
            .collect()
    }

    /// Per symmetry, the one that undoes it (found on patterns of the puzzle), or
    /// `None` if one has none among the symmetries.
    #[must_use]
    pub fn inverses(&self, plain: &KPuzzle) -> Option<Vec<u16>> {
        let count = plain.index_count();
        let tests: Vec<Pattern> = (1..=4u64)
            .map(|j| plain.unrank(j.wrapping_mul(0x9E37_79B9_7F4A_7C15) % count))
            .chain(std::iter::once(plain.goal.clone()))
            .collect();
        let mut once = plain.goal.clone();
        let mut twice = plain.goal.clone();
        // Candidates first by their places: `j` undoes `k`'s permutation.
        let undoes = |k: usize, j: usize| {
            let (a, b) = (
                &self.symmetries[k].0.s.permutation,
                &self.symmetries[j].0.s.permutation,
            );
            b.iter()
                .enumerate()
                .all(|(p, &q)| a[q as usize] as usize == p)
        };
        (0..self.symmetries.len())
            .map(|k| {
                (0..self.symmetries.len())
                    .filter(|&j| undoes(k, j))
                    .find(|&j| {
                        tests.iter().all(|x| {
                            self.image_into(x, k, &mut once);
                            self.image_into(&once, j, &mut twice);
                            twice == *x
                        })
                    })
                    .map(|j| j as u16)
            })
            .collect()
    }

    /// The ranks known never to be reached: not their class's own.
    #[must_use]
    pub fn unused_ranks(&self) -> u64 {
        self.unused_ranks
    }

    /// The number of symmetries.
    #[must_use]
    pub fn symmetry_count(&self) -> usize {
        self.symmetries.len()
    }

    /// The symmetries and their relabellings, the identity first.
    #[must_use]
    pub fn symmetries(&self) -> &[(Symmetry, Relabelling)] {
        &self.symmetries
    }

    /// The piece and twist that symmetry `k` brings to kept position `i` of `state`.
    #[inline(always)]
    fn image_at(&self, state: &Pattern, k: usize, i: usize) -> (u8, u8) {
        let from = self.compact.kept[self.symmetries[k].0.s.permutation[i] as usize];
        self.value_image(k, i, state.pieces[from], state.orientation[from])
    }

    /// What symmetry `k` makes at kept position `i` of the piece `piece` with twist
    /// `o` at the position it takes from ([`PatternClasses::image_at`]).
    #[inline(always)]
    fn value_image(&self, k: usize, i: usize, piece: u8, o: u8) -> (u8, u8) {
        let (symmetry, r) = &self.symmetries[k];
        let c = &self.compact;
        let kind = self.kind_of[c.orbit[i] as usize * 256 + piece as usize] as usize;
        let piece = self.label_of[r.kind[kind] as usize];
        let m = c.moduli[i];
        if m <= 1 {
            return (piece, 0);
        }
        let o = if symmetry.mirror && o != 0 { m - o } else { o };
        // Each term is below m: two conditional subtractions stand for `% m`.
        let mut twist = r.twist[kind] + o;
        if twist >= m {
            twist -= m;
        }
        twist += symmetry.s.delta[i];
        if twist >= m {
            twist -= m;
        }
        (piece, twist)
    }

    /// The least of `state`'s images (kept positions in order, piece then twist),
    /// written into `pieces` and `orientation` (each as long as the state): each image
    /// is built only as far as it takes to lose to the least so far.
    fn least_image_into(&self, state: &Pattern, pieces: &mut [u8], orientation: &mut [u8]) {
        pieces.copy_from_slice(&state.pieces);
        orientation.copy_from_slice(&state.orientation);
        let kept = &self.compact.kept;
        'symmetries: for k in 1..self.symmetries.len() {
            for (i, &p) in kept.iter().enumerate() {
                let image = self.image_at(state, k, i);
                match image.cmp(&(pieces[p], orientation[p])) {
                    std::cmp::Ordering::Greater => continue 'symmetries,
                    std::cmp::Ordering::Equal => {}
                    std::cmp::Ordering::Less => {
                        // A new least: the rest of this image replaces it.
                        for (j, &q) in kept.iter().enumerate().skip(i) {
                            (pieces[q], orientation[q]) = self.image_at(state, k, j);
                        }
                        continue 'symmetries;
                    }
                }
            }
        }
    }

    /// The index of `state`'s class: the rank of its least image.
    #[must_use]
    pub fn class_rank(&self, plain: &KPuzzle, state: &Pattern) -> u64 {
        let n = state.pieces.len();
        let (mut pieces, mut orientation) = ([0u8; 256], [0u8; 256]);
        self.least_image_into(state, &mut pieces[..n], &mut orientation[..n]);
        plain.plain_rank(View {
            pieces: &pieces[..n],
            orientation: &orientation[..n],
        })
    }

    /// Whether symmetry `k` maps `state` onto itself.
    fn fixes(&self, k: usize, state: &Pattern) -> bool {
        self.compact
            .kept
            .iter()
            .enumerate()
            .all(|(i, &p)| self.image_at(state, k, i) == (state.pieces[p], state.orientation[p]))
    }

    /// How many positions `state`'s class holds (positions up to rotation, where
    /// the symmetries include rotations): with `G` the symmetries, `R` the rotations
    /// and `fixed` counting those that fix `state`, `|G| fixed(R) / (|R| fixed(G))`,
    /// the number of rotation classes in the class.
    #[must_use]
    pub fn class_size(&self, state: &Pattern) -> u64 {
        let (mut fixed, mut fixed_rotations) = (0u64, 0u64);
        for k in 0..self.symmetries.len() {
            if self.fixes(k, state) {
                fixed += 1;
                fixed_rotations += u64::from(self.rotation[k]);
            }
        }
        self.size_of(fixed, fixed_rotations)
    }

    /// The positions of a class that `fixed` symmetries fix, `fixed_rotations` of
    /// them rotations ([`PatternClasses::class_size`]).
    #[must_use]
    pub fn size_of(&self, fixed: u64, fixed_rotations: u64) -> u64 {
        self.symmetries.len() as u64 * fixed_rotations / (self.rotation_count() as u64 * fixed)
    }

    /// The number of rotations among the symmetries (1 unless up to rotation).
    #[must_use]
    pub fn rotation_count(&self) -> usize {
        self.rotation.iter().filter(|&&r| r).count()
    }

    /// Whether symmetry `k` is a rotation of the whole puzzle.
    #[must_use]
    pub fn is_rotation(&self, k: usize) -> bool {
        self.rotation[k]
    }

    /// Whether some symmetry other than the identity is a rotation of the whole
    /// puzzle (positions up to rotation): then a class of the goal holds its
    /// rotations, not the goal alone.
    #[must_use]
    pub fn has_rotations(&self) -> bool {
        self.rotation.iter().skip(1).any(|&r| r)
    }

    /// The symmetry that takes `from` to `onto`, if one does.
    #[must_use]
    pub fn taking(&self, from: &Pattern, onto: &Pattern) -> Option<usize> {
        let mut image = from.clone();
        (0..self.symmetries.len()).find(|&k| {
            self.image_into(from, k, &mut image);
            image == *onto
        })
    }

    /// The classes under the symmetries that fix `root` up to rotation (a search
    /// from `root` then measures the distance to it, not to the nearest of its
    /// images): those that take it to one of its rotations.
    #[must_use]
    pub fn fixing(&self, root: &Pattern) -> PatternClasses {
        let image = |k: usize| {
            let mut image = root.clone();
            self.image_into(root, k, &mut image);
            image
        };
        let rotated: Vec<Pattern> = (0..self.symmetries.len())
            .filter(|&k| self.rotation[k])
            .map(image)
            .collect();
        let kept: Vec<usize> = (0..self.symmetries.len())
            .filter(|&k| self.rotation[k] || rotated.contains(&image(k)))
            .collect();
        PatternClasses {
            rotation: kept.iter().map(|&k| self.rotation[k]).collect(),
            symmetries: kept.iter().map(|&k| self.symmetries[k].clone()).collect(),
            burnside: None,
            unused_ranks: 0,
            ..self.clone()
        }
    }

    /// The definition lines a table records after the puzzle's own.
    #[must_use]
    pub fn definition_text(&self) -> String {
        let mut text = format!(
            "classes of patterns{} under {} symmetries\n",
            if self.index.is_some() {
                ""
            } else {
                " (the least image)"
            },
            self.symmetries.len()
        );
        for (k, (s, r)) in self.symmetries.iter().enumerate() {
            let kind = match (self.rotation[k] && k > 0, s.mirror) {
                (true, _) => "rotation",
                (false, true) => "mirror",
                (false, false) => "symmetry",
            };
            text.push_str(&format!(
                "{kind} {:?} {:?} kinds {:?} {:?}\n",
                s.s.permutation, s.s.delta, r.kind, r.twist
            ));
        }
        text
    }

    /// Positions per depth (each class's size at its depth), Burnside's count and the
    /// antipodes' class sizes, over every index of `plain`.
    pub(super) fn class_counts(
        &self,
        plain: &KPuzzle,
        classes: &[u64],
        antipodes: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> ClassCounts {
        let positions_by_depth = match &self.index {
            Some(index) => index.positions_by_depth(plain, self, classes, depth_of),
            None => self.positions_by_least_rank(plain, classes.len(), depth_of),
        };
        let class_size = |i: u64| match &self.index {
            Some(index) => index.class_size_at(plain, self, i),
            None => self.class_size(&plain.unrank(i)),
        };
        ClassCounts {
            symmetries: self.symmetries.len() / self.rotation_count(),
            puzzle_symmetries: self.puzzle_symmetries,
            positions: positions_by_depth.iter().sum(),
            antipode_positions: positions_by_depth.last().copied().unwrap_or(0),
            positions_by_depth,
            burnside_classes: self
                .burnside
                .unwrap_or_else(|| classes.iter().map(|&c| u128::from(c)).sum()),
            antipode_class_sizes: antipodes.iter().map(|&i| class_size(i)).collect(),
        }
    }

    /// Positions per depth over the plain ranking: each rank that is its class's
    /// least, its class's size.
    fn positions_by_least_rank(
        &self,
        plain: &KPuzzle,
        depths: usize,
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Vec<u128> {
        (0..plain.index_count())
            .into_par_iter()
            .fold(
                || vec![0u128; depths],
                |mut by_depth, index| {
                    if let Some(d) = depth_of(index) {
                        let state = plain.unrank(index);
                        if self.class_rank(plain, &state) == index {
                            by_depth[d as usize] += u128::from(self.class_size(&state));
                        }
                    }
                    by_depth
                },
            )
            .reduce(
                || vec![0u128; depths],
                |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
            )
    }
}

impl Symmetries for PatternClasses {
    fn count(&self) -> usize {
        self.symmetries.len()
    }

    fn image_into(&self, state: &Pattern, k: usize, image: &mut Pattern) {
        PatternClasses::image_into(self, state, k, image);
    }

    fn is_rotation(&self, k: usize) -> bool {
        self.rotation[k]
    }

    fn size_of(&self, fixed: u64, fixed_rotations: u64) -> u64 {
        PatternClasses::size_of(self, fixed, fixed_rotations)
    }

    fn digit_sources(&self, digits: &[Digit<'_>]) -> Option<Vec<Vec<usize>>> {
        PatternClasses::digit_sources(self, digits)
    }

    fn inverses(&self, plain: &KPuzzle) -> Option<Vec<u16>> {
        PatternClasses::inverses(self, plain)
    }

    fn source_of(&self, k: usize, position: usize) -> Option<usize> {
        let i = self.compact.kept.iter().position(|&p| p == position)?;
        Some(self.compact.kept[self.symmetries[k].0.s.permutation[i] as usize])
    }

    fn image_of(&self, k: usize, position: usize, piece: u8, twist: u8) -> (u8, u8) {
        let i = self.compact.kept.iter().position(|&p| p == position);
        self.value_image(k, i.expect("a kept position"), piece, twist)
    }
}
