//! A twisty puzzle whose indices are symmetry classes of positions: `--symmetry`.
//!
//! A [`KClasses`] is a [`KPuzzle`] seen through its symmetry group
//! ([`super::symmetry`]): one index per class `{S⁻¹·P·S}` (positions up to rotation
//! are brought home first, [`super::symmetry::Frame`]), and the neighbours of an index
//! are the classes of its representative's neighbours. It is an ordinary [`Puzzle`],
//! so the engine, both executors and the table writer run over classes unchanged.
//!
//! # Parts
//!
//! A [`KClasses`] is assembled once from values, each built from the ones before
//! it: the `geometry` (compact positions, moves, symmetries, frame), the
//! `split` of a position into a small and a large part, the `small` part's
//! values and their classes (for one orbit too large to enumerate, its `ranked`
//! permutations), and the index's `sections`. This module numbers positions over them
//! and answers as a [`Puzzle`].
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
//! their slot, and a bottom-up level's check, once: `known_holes` remembers them): the
//! overhead over `positions / |group|` is the number of classes of `s` times `|group|`
//! over the number of values of `s`. A puzzle small enough for the small part to be
//! all of it (a few million positions) numbers its classes densely, with no slack at
//! all. A puzzle of one orbit whose permutations are too many to enumerate (the
//! 3x3x3's edges, 12!) ranks its permutation as the small part instead (`ranked`: a
//! 32-bit entry per permutation holds its class and symmetry), its twists the large
//! part.
//!
//! # Positions from classes
//!
//! A class of `n` positions has a stabiliser of `|group| / n` symmetries. Counting
//! pairs (position, symmetry fixing it) per depth gives `positions(d) = |group| ·
//! classes(d) - Σ_{S ≠ 1} fixed_d(S)`, where `fixed_d(S)` counts the positions at
//! depth `d` that `S` fixes: those are few and are enumerated directly
//! ([`KClasses::positions_by_depth`]); Burnside's lemma over the same sets gives the
//! number of classes, which the tests compare with the search's.

mod geometry;
mod key_table;
mod known_holes;
mod lanes;
mod ranked;
mod sections;
mod small;
mod split;

use std::collections::HashMap;

use super::definition::{Pattern, Transformation};
use super::symmetry::{Compact, Frame, Symmetry};
use super::{KPuzzle, KPuzzleError, Turn};
use crate::puzzle::{ClassCounts, Notation, PositionError, Puzzle, Successor};
use geometry::Geometry;
use known_holes::KnownHoles;
use ranked::{Pieces, RankedSmall};
use sections::{Numbering, Sections};
use small::{SmallClasses, SmallPart};
use split::{Acts, Large, LargePart, MAX_LARGE, Split, below, permutation_is_even};

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

/// Large parts above this count have the ones a symmetry fixes found cycle by cycle
/// ([`KClasses::fixed_permutations`]); up to it, by trying every one.
const ENUMERATE_FIXED_UP_TO: u64 = 1 << 22;

/// A twisty puzzle whose indices are symmetry classes of its positions.
///
/// Assembled once ([`KClasses::new`]) from parts built as values, each from the ones
/// before it: the geometry (compact positions, moves, symmetries, frame), the split
/// of a position into a small and a large part, the small part's values, their
/// classes, the large part's move table and the index's sections.
#[derive(Debug, Clone)]
pub struct KClasses {
    base: KPuzzle,
    geometry: Geometry,
    split: Split,
    small: Small,
    small_classes: SmallClasses,
    /// The large part's moves: `from` and `add` per move, like an act.
    large_moves: Acts,
    /// Where each small class's positions are numbered.
    sections: Sections,
    /// The goal's index.
    goal_index: u64,
    /// With a goal set (`--goal`): the indices of its positions' classes, sorted.
    goal_set: Option<Vec<u64>>,
    /// Indices that are not the one their class is numbered by.
    holes: u64,
    /// Those a bottom-up level has found, by section.
    known_holes: KnownHoles,
}

/// The small part's values: enumerated, or one orbit's permutations ranked.
#[derive(Debug, Clone)]
enum Small {
    Enumerated(SmallPart),
    Ranked(Box<RankedSmall>),
}

impl Small {
    /// Value `s` as a transformation (the large part's entries as solved).
    fn state(&self, split: &Split, s: u32) -> Transformation {
        match self {
            Small::Enumerated(small) => small.state(split, s),
            Small::Ranked(ranked) => ranked.state(s),
        }
    }

    /// Whether the moves reach the small part `y`.
    fn contains(&self, split: &Split, y: &Transformation) -> bool {
        match self {
            Small::Enumerated(small) => small.contains(split, y),
            Small::Ranked(ranked) => ranked.contains(y),
        }
    }
}

/// What filling the cycles of a large part's act works from: the act, its cycles and
/// the inverse of its relabelling.
struct CycleProblem<'a> {
    acts: &'a Acts,
    cycles: Vec<Vec<usize>>,
    label_inverse: Vec<u8>,
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
        let geometry = Geometry::new(&base, compact, symmetries, unheld_moves, frame);
        KClasses::assemble(base, geometry)
    }

    /// The number of slots the class index of [`KClasses::new`]'s arguments takes,
    /// without numbering the classes where that is long (a ranked small part's
    /// classes are counted, not written: the 3x3x3's edges' in seconds).
    ///
    /// # Errors
    /// As [`KClasses::new`].
    pub fn index_slots(
        base: &KPuzzle,
        compact: Compact,
        symmetries: Vec<Symmetry>,
        unheld_moves: &[Transformation],
        frame: Option<Frame>,
    ) -> Result<u64, KPuzzleError> {
        let geometry = Geometry::new(base, compact, symmetries, unheld_moves, frame);
        let split = KClasses::split_of(&geometry)?;
        if split.ranked {
            let classes = RankedSmall::count_classes(&geometry, &split);
            return classes.checked_mul(split.large_count).ok_or_else(|| {
                KPuzzleError::Option(
                    "symmetry classes: the class index does not fit 64 bits".into(),
                )
            });
        }
        let classes = KClasses::assemble(base.clone(), geometry)?;
        Ok(Puzzle::index_count(&classes))
    }

    /// The split of `geometry`'s positions with the fewest slots, and its small part's
    /// number of values.
    fn split_of(geometry: &Geometry) -> Result<Split, KPuzzleError> {
        Ok(KClasses::choose_split(geometry)?.0)
    }

    fn choose_split(geometry: &Geometry) -> Result<(Split, usize), KPuzzleError> {
        let refuse = |m: String| KPuzzleError::Option(format!("symmetry classes: {m}"));
        let compact = &geometry.compact;
        let reference_orbit = geometry.frame.as_ref().map(|f| compact.orbit[f.reference]);
        Split::choose(
            compact,
            &geometry.moves,
            geometry.order,
            geometry.symmetries.len() as u128,
            reference_orbit,
        )
        .map_err(refuse)
    }
}

impl KClasses {
    /// The classes of `base` over `geometry`: its parts built in turn, then the goal's
    /// index and the unused indices counted over the assembled index.
    fn assemble(base: KPuzzle, geometry: Geometry) -> Result<KClasses, KPuzzleError> {
        let refuse = |m: String| KPuzzleError::Option(format!("symmetry classes: {m}"));
        let (split, small_size) = KClasses::choose_split(&geometry)?;
        let (small, small_classes) = if split.ranked {
            let (ranked, classes) = RankedSmall::classify(&geometry, &split)?;
            (Small::Ranked(Box::new(ranked)), classes)
        } else {
            let mut small = SmallPart::enumerate(&geometry, &split, small_size)?;
            let classes = SmallClasses::classify(&geometry, &split, &small);
            small.move_representatives(&geometry, &split, &classes.representatives);
            (Small::Enumerated(small), classes)
        };
        let large_moves = split.move_table(&geometry.moves);
        let sections = Sections::build(&split, &small_classes);
        let identity = Transformation::identity(geometry.compact.len());
        let mut classes = KClasses {
            base,
            geometry,
            split,
            small,
            small_classes,
            large_moves,
            sections,
            goal_index: 0,
            goal_set: None,
            holes: 0,
            known_holes: KnownHoles::new(0),
        };
        classes
            .index_count_checked()
            .ok_or_else(|| refuse("the class index does not fit 64 bits".into()))?;
        // Two figures of the assembled index.
        classes.goal_index = classes.index_of(&identity);
        if classes.base.goal_patterns().is_some() {
            // The classes of the goal set's positions (the symmetries kept map it
            // onto itself: each class lies in it or outside it).
            let indices = classes
                .base
                .goal_indices_by(|state| classes.index_of(&classes.compact_of(state)));
            classes.goal_set = Some(indices);
        }
        classes.holes = classes.count_holes();
        if classes.holes > 0 {
            classes.known_holes = KnownHoles::new(classes.small_classes.representatives.len());
        }
        Ok(classes)
    }

    fn index_count_checked(&self) -> Option<u64> {
        if self.split.large == Large::Nothing {
            return Some(self.small_classes.representatives.len() as u64);
        }
        self.sections.total()
    }

    /// The canonical rank of large part `b` in class `c` (already acted on).
    #[inline(always)]
    fn canonical_rank(&self, c: u32, b: &LargePart) -> u64 {
        let mut best = self.split.rank_large(b);
        let (start, count) = self.small_classes.stabiliser_of[c as usize];
        for at in start..start + count {
            let r = self.split.rank_large(&self.split.apply_act(
                &self.small_classes.stabilisers,
                at as usize,
                b,
            ));
            best = best.min(r);
        }
        best
    }

    /// Whether `rank`, the rank of `b` in a class with small class `c`, is the least
    /// over `c`'s stabiliser (the index its class is numbered by): the first image
    /// with a smaller rank says no. Inlined, so that the callers compiled with SSSE3
    /// move and rank by shuffles.
    #[inline(always)]
    fn is_least(&self, c: u32, b: &LargePart, rank: u64) -> bool {
        let (start, count) = self.small_classes.stabiliser_of[c as usize];
        (start..start + count).all(|at| {
            let image = self
                .split
                .apply_act(&self.small_classes.stabilisers, at as usize, b);
            self.split.rank_large(&image) >= rank
        })
    }

    /// The class index of the compact position `x`.
    fn index_of(&self, x: &Transformation) -> u64 {
        let x = match &self.geometry.frame {
            Some(frame) => frame.normalize(x, &self.geometry.compact.moduli),
            None => x.clone(),
        };
        let b = self.split.large_of(&x);
        match &self.small {
            Small::Enumerated(small) => {
                let s = small.id(&self.split, &self.split.small_of(&x));
                self.index_from(s, &b)
            }
            Small::Ranked(ranked) => {
                let p = ranked.pieces_of(&x);
                self.ranked_neighbour(ranked, &p, ranked.rank(&p), &b)
            }
        }
    }

    /// The index of the position with ranked pieces `p` (of rank `rank`) and twists
    /// those of `b`: its twists taken to its class's representative and numbered.
    #[inline(always)]
    fn ranked_neighbour(&self, ranked: &RankedSmall, p: &Pieces, rank: u32, b: &LargePart) -> u64 {
        let (c, sym, symmetric) = ranked.entry(rank);
        let acted = LargePart {
            pieces: [0; MAX_LARGE],
            twists: ranked.act_twists(sym, p, &b.twists),
        };
        if symmetric {
            self.number(c, &acted)
        } else {
            // Sections of one size, no stabiliser to canonicalise over.
            c as u64 * self.split.large_count + self.split.rank_large(&acted)
        }
    }

    #[inline(always)]
    fn index_from(&self, s: u32, b: &LargePart) -> u64 {
        let c = self.small_classes.class[s as usize];
        if self.split.large == Large::Nothing {
            return c as u64;
        }
        let acted = self
            .split
            .apply_act(&self.small_classes.acts, s as usize, b);
        self.number(c, &acted)
    }

    /// The representative position of index `index` (compact), and whether the index
    /// is the one its class is numbered by.
    fn representative(&self, index: u64) -> (Transformation, bool) {
        let (c, b, canonical) = if self.split.large == Large::Nothing {
            (index as usize, self.split.unrank_large(0), true)
        } else {
            self.unnumber(index)
        };
        let s = self.small_classes.representatives[c];
        let mut x = self.small.state(&self.split, s);
        if let Some(&first) = self.split.large_positions.first() {
            for (i, &p) in self.split.large_positions.iter().enumerate() {
                if self.split.large == Large::Orbit {
                    x.permutation[p] = (first + b.pieces[i] as usize) as u8;
                }
                x.delta[p] = b.twists[i];
            }
        }
        (x, canonical)
    }

    /// The compact form of a pattern of the base puzzle.
    fn compact_of(&self, pattern: &Pattern) -> Transformation {
        let mut x = Transformation::identity(self.geometry.compact.len());
        for (i, &p) in self.geometry.compact.kept.iter().enumerate() {
            x.permutation[i] = (self.split.orbit_first(i) + pattern.pieces[p] as usize) as u8;
            x.delta[i] = pattern.orientation[p];
        }
        x
    }

    fn pattern_of(&self, x: &Transformation) -> Pattern {
        let mut pattern = self.base.goal().clone();
        for (i, &p) in self.geometry.compact.kept.iter().enumerate() {
            pattern.pieces[p] = (x.permutation[i] as usize - self.split.orbit_first(i)) as u8;
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
        self.geometry.symmetries.len()
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
        let kept: Vec<Symmetry> = (0..self.geometry.symmetries.len())
            .filter(|&sym| self.conjugate(root, sym) == home)
            .map(|sym| self.geometry.symmetries[sym].clone())
            .collect();
        // The same geometry (and the puzzle's own symmetry count) under the subgroup.
        let geometry = Geometry {
            symmetries: kept,
            ..self.geometry.clone()
        };
        KClasses::assemble(self.base.clone(), geometry)
    }

    /// The number of positions (the order of the group the moves generate, in the
    /// frame if positions are counted up to rotation).
    #[must_use]
    pub fn positions(&self) -> u128 {
        self.geometry.order
    }

    /// `state` under symmetry number `sym` (`0..symmetry_count()`, 0 the identity):
    /// `S⁻¹·state·S`, brought home in the frame if positions are counted up to
    /// rotation. Every symmetry keeps the distance from the goal.
    #[must_use]
    pub fn conjugate(&self, state: &Pattern, sym: usize) -> Pattern {
        let mut x = self.compact_of(state);
        if let Some(frame) = &self.geometry.frame {
            x = frame.normalize(&x, &self.geometry.compact.moduli);
        }
        self.pattern_of(&self.geometry.act(sym, &x).0)
    }

    /// How many positions the class of `state` holds: `|group|` over the number of
    /// symmetries that fix it.
    #[must_use]
    pub fn class_size(&self, state: &Pattern) -> u64 {
        let mut x = self.compact_of(state);
        if let Some(frame) = &self.geometry.frame {
            x = frame.normalize(&x, &self.geometry.compact.moduli);
        }
        let fixing = (0..self.geometry.symmetries.len())
            .filter(|&sym| self.geometry.act(sym, &x).0 == x)
            .count();
        (self.geometry.symmetries.len() / fixing.max(1)) as u64
    }

    /// The number of positions in the class of `(s*, b)`, `s*` the representative of
    /// small class `c`: a symmetry that fixes the position fixes `s*`, so the
    /// stabiliser's acts on `b` count the ones that do, without whole positions.
    fn class_size_at(&self, c: usize, b: &LargePart) -> u64 {
        let (start, count) = self.small_classes.stabiliser_of[c];
        let stabilisers = &self.small_classes.stabilisers;
        let fixing = (start..start + count)
            .filter(|&at| self.split.apply_act(stabilisers, at as usize, b) == *b)
            .count();
        (self.geometry.symmetries.len() / (1 + fixing)) as u64
    }

    /// [`KClasses::class_size`] of the class numbered `index`.
    fn class_size_of(&self, index: u64) -> u64 {
        if matches!(self.small, Small::Enumerated(_)) && self.split.large != Large::Nothing {
            let (c, b, _) = self.unnumber(index);
            let size = self.class_size_at(c, &b);
            debug_assert_eq!(size, self.class_size(&self.unrank(index)));
            return size;
        }
        self.class_size(&self.unrank(index))
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
        if self.split.large == Large::Nothing {
            return visit(x);
        }
        self.for_each_fixed_large(sym, x, &mut |b| visit(&self.split.with_large(x, b)));
    }

    /// [`KClasses::for_each_fixed`]'s large parts `b` (a large part to split).
    fn for_each_fixed_large(
        &self,
        sym: usize,
        x: &Transformation,
        visit: &mut dyn FnMut(&LargePart),
    ) {
        let mut acts = Acts::new(self.split.large_positions.len());
        self.geometry.push_act(&self.split, &mut acts, sym, x);
        if self.split.large == Large::Twists {
            // The pieces stay; the twists close around each cycle of the act.
            let (from, _, _, _) = acts.row(0);
            let b = LargePart {
                pieces: [0; MAX_LARGE],
                twists: [0; MAX_LARGE],
            };
            self.fixed_twists(&acts, &cycles_of(from), b, visit);
        } else if self.split.large_count <= ENUMERATE_FIXED_UP_TO {
            for r in 0..self.split.large_count {
                let b = self.split.unrank_large(r);
                if self.split.apply_act(&acts, 0, &b) == b {
                    visit(&b);
                }
            }
        } else {
            self.fixed_permutations(&acts, visit);
        }
    }

    /// The indices that are not the one their class is numbered by: in each class of
    /// the small part, the large parts less the orbits of its representative's
    /// stabiliser on them (Burnside: the average number of large parts a stabiliser
    /// element fixes).
    fn count_holes(&self) -> u64 {
        if self.split.large == Large::Nothing {
            return 0;
        }
        use rayon::prelude::*;
        self.small_classes
            .symmetric
            .par_iter()
            .map(|(c, stabiliser)| {
                let c = *c as usize;
                let x = self
                    .small
                    .state(&self.split, self.small_classes.representatives[c]);
                let mut fixed = self.split.large_count as u128;
                for &sym in &stabiliser[1..] {
                    self.for_each_fixed(sym as usize, &x, &mut |_| fixed += 1);
                }
                let orbits = fixed / stabiliser.len() as u128;
                self.sections.slots(c) - orbits as u64
            })
            .sum()
    }

    /// Every class with a symmetric position (one that a symmetry other than the
    /// identity fixes), by its index, with the number of positions it holds. Such a
    /// class's representative `(s*, b)` is fixed by a symmetry that fixes `s*`, so
    /// the large parts that the stabiliser of each `s*` fixes find them all.
    fn symmetric_classes(&self) -> HashMap<u64, u64> {
        use rayon::prelude::*;
        let g = self.geometry.symmetries.len() as u64;
        // Each small class on its own thread: its symmetric positions' classes are
        // its own, so no two threads find the same index.
        self.small_classes
            .symmetric
            .par_iter()
            .flat_map_iter(|(c, stabiliser)| {
                let rep = self.small_classes.representatives[*c as usize];
                let x = self.small.state(&self.split, rep);
                let mut found: HashMap<u64, u64> = HashMap::new();
                if matches!(self.small, Small::Enumerated(_)) && self.split.large != Large::Nothing
                {
                    // The fixed large parts numbered and sized without whole positions.
                    for &sym in &stabiliser[1..] {
                        self.for_each_fixed_large(sym as usize, &x, &mut |b| {
                            let index = self.index_from(rep, b);
                            debug_assert_eq!(index, self.index_of(&self.split.with_large(&x, b)));
                            found
                                .entry(index)
                                .or_insert_with(|| self.class_size_at(*c as usize, b));
                        });
                    }
                    return found;
                }
                for &sym in &stabiliser[1..] {
                    let mut visit = |y: &Transformation| {
                        let index = self.index_of(y);
                        found.entry(index).or_insert_with(|| {
                            let fixing = (0..self.geometry.symmetries.len())
                                .filter(|&t| self.geometry.act(t, y).0 == *y)
                                .count() as u64;
                            g / fixing.max(1)
                        });
                    };
                    self.for_each_fixed(sym as usize, &x, &mut visit);
                }
                found
            })
            .collect()
    }

    /// The large parts (a permutation with twists) that the act `acts[0]` fixes:
    /// `b[i] = label[b[from[i]]]`, so a value at one place of a cycle of `from`
    /// determines the cycle; the twists follow, and must close around each cycle.
    fn fixed_permutations(&self, acts: &Acts, visit: &mut dyn FnMut(&LargePart)) {
        let k = acts.k;
        let (from, _, label, _) = acts.row(0);
        let mut label_inverse = vec![0u8; k];
        for (v, &l) in label.iter().enumerate() {
            label_inverse[l as usize] = v as u8;
        }
        // Cycles of `from`: b[from[i]] = label⁻¹(b[i]).
        let cycles = cycles_of(from);
        // Places past k stay 0, as in every large part (they are compared too).
        let mut pieces = [0u8; MAX_LARGE];
        let mut used = [false; MAX_LARGE];
        let problem = CycleProblem {
            acts,
            cycles,
            label_inverse,
        };
        self.fill_cycles(&problem, 0, &mut pieces, &mut used, visit);
    }

    fn fill_cycles(
        &self,
        problem: &CycleProblem<'_>,
        next: usize,
        pieces: &mut [u8; MAX_LARGE],
        used: &mut [bool; MAX_LARGE],
        visit: &mut dyn FnMut(&LargePart),
    ) {
        let CycleProblem {
            acts,
            cycles,
            label_inverse,
        } = problem;
        let acts = *acts;
        let k = acts.k;
        if next == cycles.len() {
            if self.split.even && !permutation_is_even(&pieces[..k]) {
                return;
            }
            let b = LargePart {
                pieces: *pieces,
                twists: [0; MAX_LARGE],
            };
            if self.split.large_modulus == 1 {
                if self.split.apply_act(acts, 0, &b) == b {
                    visit(&b);
                }
                return;
            }
            self.fixed_twists(acts, cycles, b, visit);
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

    /// Every twist vector of the large part `b` (its pieces fixed by the act `acts[0]`)
    /// that the act fixes, with the twist sum the puzzle keeps: the act adds `c[i]`
    /// to `±t[from[i]]` (`c` its twists on `b` untwisted, `-` under a mirror), so along
    /// each cycle of `from` the twist of its first place decides the others, and the
    /// cycle must close.
    fn fixed_twists(
        &self,
        acts: &Acts,
        cycles: &[Vec<usize>],
        mut b: LargePart,
        visit: &mut dyn FnMut(&LargePart),
    ) {
        let m = self.split.large_modulus;
        let c = self.split.apply_act(acts, 0, &b).twists;
        let negate = acts.negate[0];
        // The twist at `from[i]` given the twist `t` at `i`.
        let next = |t: u8, i: usize| {
            let x = (t + m - c[i]) % m;
            if negate { (m - x) % m } else { x }
        };
        let fill = |cycle: &[usize], start: u8, twists: &mut [u8; MAX_LARGE]| {
            let mut t = start;
            for &i in cycle {
                twists[i] = t;
                t = next(t, i);
            }
            t == start
        };
        let mut scratch = [0u8; MAX_LARGE];
        let starts: Vec<Vec<u8>> = cycles
            .iter()
            .map(|cycle| (0..m).filter(|&t| fill(cycle, t, &mut scratch)).collect())
            .collect();
        if starts.iter().any(Vec::is_empty) {
            return;
        }
        // Every choice of one start per cycle, as an odometer.
        let mut choice = vec![0usize; cycles.len()];
        loop {
            for ((cycle, options), &j) in cycles.iter().zip(&starts).zip(&choice) {
                fill(cycle, options[j], &mut b.twists);
            }
            let sum: u32 = b.twists.iter().map(|&t| t as u32).sum();
            if !self.split.twist_sum || sum.is_multiple_of(m as u32) {
                debug_assert!(self.split.apply_act(acts, 0, &b) == b);
                visit(&b);
            }
            let Some(turn) = (0..choice.len()).find(|&k| choice[k] + 1 < starts[k].len()) else {
                return;
            };
            choice[turn] += 1;
            choice[..turn].fill(0);
        }
    }

    /// Burnside's count of the classes without a search, from the index: the
    /// symmetric classes (`KClasses::symmetric_classes`) that the moves reach, each
    /// once, and the other positions in classes of `|group|`.
    #[must_use]
    pub fn burnside_classes(&self) -> u128 {
        let symmetric: Vec<(u64, u64)> = self.symmetric_classes().into_iter().collect();
        let representatives: Vec<Transformation> = symmetric
            .iter()
            .map(|&(index, _)| self.representative(index).0)
            .collect();
        let moves: Vec<&Transformation> = self.geometry.moves.iter().collect();
        let candidates: Vec<&Transformation> = representatives.iter().collect();
        let reached = super::group::contains(&moves, &self.geometry.compact.moduli, &candidates);
        let (mut classes, mut positions) = (0u128, 0u128);
        for (&(_, size), reached) in symmetric.iter().zip(reached) {
            if reached {
                classes += 1;
                positions += size as u128;
            }
        }
        classes + (self.geometry.order - positions) / self.geometry.symmetries.len() as u128
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
        let g = self.geometry.symmetries.len() as u128;
        let symmetric: Vec<(u64, u64)> = self.symmetric_classes().into_iter().collect();
        let depths: Vec<Option<u32>> = symmetric.par_iter().map(|&(i, _)| depth_of(i)).collect();
        let mut lacking = vec![0u128; classes.len()];
        let mut fixed_total = 0u128;
        for (&(_, size), depth) in symmetric.iter().zip(&depths) {
            // A class the search did not reach holds no position of the puzzle (its
            // small and large parts each reachable, but not together).
            let Some(depth) = depth else { continue };
            // A class of `size` positions: each is fixed by g / size symmetries.
            fixed_total += size as u128 * (g / size as u128 - 1);
            if let Some(slot) = lacking.get_mut(*depth as usize) {
                *slot += g - size as u128;
            }
        }
        let positions = classes
            .iter()
            .zip(&lacking)
            .map(|(&c, &l)| g * c as u128 - l)
            .collect();
        (positions, (self.geometry.order + fixed_total) / g)
    }
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
        if let Some(frame) = &self.geometry.frame {
            let r = frame.reference;
            let slot = x.permutation[r] as usize * self.geometry.compact.moduli[r].max(1) as usize
                + x.delta[r] as usize;
            if frame.bring_home.get(slot).copied().flatten().is_none() {
                return Err(PositionError::Unsolvable(
                    "no rotation brings its reference piece home".into(),
                ));
            }
            x = frame.normalize(&x, &self.geometry.compact.moduli);
        }
        let small = self.split.small_of(&x);
        if !self.small.contains(&self.split, &small) {
            return Err(PositionError::Unsolvable(
                "the moves do not reach it".into(),
            ));
        }
        let b = self.split.large_of(&x);
        if self.split.large != Large::Nothing
            && (self.split.unrank_large(self.split.rank_large(&b)) != b)
        {
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
            self.geometry.symmetries.len()
        ));
        for s in &self.geometry.symmetries {
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

    /// The holes no bottom-up level has found yet (`known_holes`).
    fn never_reached_unchecked(&self) -> u64 {
        self.holes - self.known_holes.known()
    }

    /// A neighbour is a class found by acts and a rank, which a bottom-up question
    /// stops computing at the first one in the frontier.
    fn bottom_up_gain(&self) -> u64 {
        BOTTOM_UP_GAIN
    }

    fn question_group(&self) -> usize {
        HIT_GROUP
    }

    fn symmetries_fix(&self, state: &Pattern) -> bool {
        self.class_size(state) == 1
    }

    fn uneven_classes(&self) -> Option<Vec<u64>> {
        let mut indices: Vec<u64> = self.symmetric_classes().into_keys().collect();
        indices.sort_unstable();
        Some(indices)
    }

    fn class_counts(
        &self,
        classes: &[u64],
        antipodes: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Option<ClassCounts> {
        let (positions_by_depth, burnside_classes) = self.positions_by_depth(classes, depth_of);
        Some(ClassCounts {
            symmetries: self.geometry.symmetries.len(),
            puzzle_symmetries: self.geometry.puzzle_symmetries,
            positions: self.geometry.order,
            antipode_positions: positions_by_depth.last().copied().unwrap_or(0),
            positions_by_depth,
            burnside_classes,
            antipode_class_sizes: antipodes.iter().map(|&i| self.class_size_of(i)).collect(),
        })
    }

    fn max_neighbours(&self) -> usize {
        self.geometry.moves.len()
    }

    /// The goal, or the representatives of the goal set's classes.
    fn goals(&self) -> Vec<Pattern> {
        match &self.goal_set {
            Some(set) => set.iter().map(|&i| self.unrank(i)).collect(),
            None => vec![self.base.goal().clone()],
        }
    }

    fn is_goal(&self, state: &Pattern) -> bool {
        match &self.goal_set {
            Some(_) => self.base.is_goal(state),
            None => self.rank(state) == self.goal_index,
        }
    }

    /// Every position of the goal set (a search over positions starts from them).
    fn goal_positions(&self) -> Vec<Pattern> {
        match &self.goal_set {
            Some(_) => self.base.goal_positions(),
            None => self.goals(),
        }
    }

    fn goal_summary(&self) -> String {
        self.base.goal_summary()
    }

    fn goal_indices(&self) -> Vec<u64> {
        match &self.goal_set {
            Some(set) => set.clone(),
            None => vec![self.goal_index],
        }
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
        // Through a trait object: a class's expansion (every move, canonicalised and
        // numbered) is microseconds, a call through a pointer nanoseconds, and the
        // expansion, a large function, is compiled once instead of once per caller.
        self.expand_dyn(indices, &mut visit);
    }

    fn expand_until_hit(
        &self,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        found: impl FnMut(u64),
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = crate::cpu::Ssse3::detect() {
            // SAFETY: the token proves that the CPU has POPCNT and SSSE3.
            return unsafe { self.until_hit_x86(cpu, indices, hit, prefetch, found) };
        }
        self.until_hit(indices, hit, prefetch, found);
    }
}

/// The cycles of the permutation `from` of its places, each from its least place on.
fn cycles_of(from: &[u8]) -> Vec<Vec<usize>> {
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    let mut on_cycle = vec![false; from.len()];
    for start in 0..from.len() {
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
    cycles
}

/// How many times a class's top-down expansion costs a bottom-up question
/// ([`Puzzle::bottom_up_gain`]): a question at a dense level finds its parent among
/// its first few neighbours, where an expansion canonicalises all of them. Set by the
/// experiment log's entry "The FTO by class: bottom-up twice as early".
const BOTTOM_UP_GAIN: u64 = 2;

/// How many neighbours a bottom-up question computes and prefetches before it reads
/// their answers: their misses overlap, and a hit among the first ones spares the rest.
const HIT_GROUP: usize = 4;

/// How many states a bottom-up question loop takes at once: each round computes and
/// asks for a group of neighbours of each before it reads their answers, so that
/// their reads wait together (the experiment log's entry "bottom-up class questions
/// in batches" has the sizes tried).
const QUESTION_BATCH: usize = 8;

impl KClasses {
    /// [`KClasses::until_hit`] compiled with POPCNT and SSSE3 (the large part's
    /// shuffles, [`Split::apply_act`], inline as single instructions).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,ssse3")]
    fn until_hit_x86(
        &self,
        _: crate::cpu::Ssse3,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        found: impl FnMut(u64),
    ) {
        self.until_hit(indices, hit, prefetch, found);
    }

    /// [`Puzzle::expand_until_hit`]: states [`QUESTION_BATCH`] at a time, in rounds:
    /// each open state's next [`HIT_GROUP`] neighbours computed and prefetched before
    /// any answer of the round is read, so that the batch's misses overlap; a state
    /// with a hit is found and leaves the batch.
    #[inline(always)]
    fn until_hit(
        &self,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        mut found: impl FnMut(u64),
    ) {
        let small = match &self.small {
            Small::Enumerated(small) => small,
            Small::Ranked(ranked) => {
                return self.until_hit_ranked(ranked, indices, hit, prefetch, found);
            }
        };
        let moves = self.geometry.moves.len();
        let mut open = [(0u64, 0usize, self.split.unrank_large(0)); QUESTION_BATCH];
        let mut asked = [[0u64; HIT_GROUP]; QUESTION_BATCH];
        let mut near = 0;
        for batch in indices.chunks(QUESTION_BATCH) {
            let mut count = 0;
            for &index in batch {
                if let Some((c, b)) = self.question_start(index, &mut near) {
                    open[count] = (index, c, b);
                    count += 1;
                }
            }
            // Rounds: every open state's next group computed and asked for, then the
            // answers read; a state with a hit is found and leaves the batch.
            let mut start = 0;
            while count > 0 && start < moves {
                let end = (start + HIT_GROUP).min(moves);
                for (&(_, c, b), group) in open[..count].iter().zip(&mut asked) {
                    let row = &small.moves[c * moves..][start..end];
                    self.neighbour_group(row, start, &b, group);
                    for &n in &group[..end - start] {
                        prefetch(n);
                    }
                }
                let mut still_open = 0;
                for k in 0..count {
                    if asked[k][..end - start].iter().any(|&n| hit(n)) {
                        found(open[k].0);
                    } else {
                        open[still_open] = open[k];
                        still_open += 1;
                    }
                }
                (count, start) = (still_open, end);
            }
        }
    }

    /// The small class and large part of a question's state, or `None` if the index is
    /// not the one its class is numbered by (remembered, `known_holes`).
    #[inline(always)]
    fn question_start(&self, index: u64, near: &mut usize) -> Option<(usize, LargePart)> {
        if self.split.large == Large::Nothing {
            return Some((index as usize, self.split.unrank_large(0)));
        }
        let (section, within) = self.locate_near(index, near);
        if self.known_holes.contains(section, within) {
            return None;
        }
        let (c, b, canonical) = self.unnumber_in(section, within);
        if !canonical {
            // Not the index its class is numbered by: never reached, no neighbours.
            let slots = self.sections.slots(section);
            self.known_holes.insert(section, within, slots);
            return None;
        }
        Some((c, b))
    }

    /// The neighbours of the position with large part `b` by the moves `first..` whose
    /// small parts are `row`, into `out`: their numberings that read a prefix's table
    /// start together and end together, so that those misses overlap.
    #[inline(always)]
    fn neighbour_group(&self, row: &[u32], first: usize, b: &LargePart, out: &mut [u64]) {
        if self.split.large == Large::Nothing {
            for (n, &s2) in out.iter_mut().zip(row) {
                *n = self.small_classes.class[s2 as usize] as u64;
            }
            return;
        }
        // Per neighbour: its small class, its large part acted on, and its rank if
        // its numbering waits for a prefix's table entry.
        let mut pending = [(0u32, *b, None); HIT_GROUP];
        for (i, (&s2, (c2, acted, rank))) in row.iter().zip(&mut pending).enumerate() {
            *c2 = self.small_classes.class[s2 as usize];
            *acted = self.split.apply_act(
                &self.small_classes.acts,
                s2 as usize,
                &self.moved_large(first + i, b),
            );
            match self.number_begin(*c2, acted) {
                Numbering::Done(index) => out[i] = index,
                Numbering::Prefixed(r) => *rank = Some(r),
            }
        }
        for (n, (c2, acted, rank)) in out.iter_mut().zip(&pending[..row.len()]) {
            if let Some(rank) = *rank {
                *n = self.number_end(*c2, acted, rank);
            }
        }
    }

    /// The large part `b` after move `mv`.
    #[inline(always)]
    fn moved_large(&self, mv: usize, b: &LargePart) -> LargePart {
        let k = self.split.large_positions.len();
        let m = self.split.large_modulus;
        let mut moved = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        #[cfg(target_arch = "x86_64")]
        if let Some(bytes) = self.split.shuffles
            && m == 1
            && self.large_moves.stride == 16
        {
            // The padding's 0x80 gives 0 past the orbit.
            let (from, _) = self.large_moves.shuffles(mv);
            return LargePart::of_16(bytes.shuffle(b.first_16(), from));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = self.split.shuffles
            && self.split.twists_in_lanes()
            && self.large_moves.stride == 16
        {
            // Twists alone in one register; the padding's 0x80 gives 0, plus 0.
            let (from, add) = self.large_moves.twist_shuffles(mv);
            let moved = cpu.add(cpu.shuffle(b.twists_16(), from), add);
            return LargePart::of_twists_16(cpu.below(moved, m));
        }
        let (from, add, _, _) = self.large_moves.row(mv);
        if m == 1 {
            for (piece, &j) in moved.pieces[..k].iter_mut().zip(from) {
                *piece = b.pieces[j as usize];
            }
        } else {
            for i in 0..k {
                let j = from[i] as usize;
                moved.pieces[i] = b.pieces[j];
                moved.twists[i] = below(b.twists[j] + add[i], m);
            }
        }
        moved
    }

    /// [`Puzzle::expand_sorted`], compiled once.
    fn expand_dyn(&self, indices: &[u64], visit: &mut dyn FnMut(u64, &[u64])) {
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = crate::cpu::Ssse3::detect() {
            // SAFETY: the token proves that the CPU has POPCNT and SSSE3.
            return unsafe { self.expand_x86(cpu, indices, visit) };
        }
        self.expand_classes(indices, visit);
    }

    /// [`KClasses::expand_classes`] compiled with POPCNT and SSSE3: ranking a
    /// permutation counts the bits of a mask per piece, and a large part of at most 16
    /// pieces is moved and acted on by byte shuffles.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,ssse3")]
    fn expand_x86(
        &self,
        _: crate::cpu::Ssse3,
        indices: &[u64],
        visit: &mut dyn FnMut(u64, &[u64]),
    ) {
        self.expand_classes(indices, visit);
    }

    /// The neighbours of each index, in order: the representative's small part and
    /// large part, each moved (the small part by its table), numbered. The numberings
    /// that read a prefix's table start together and end together, so that their
    /// cache misses overlap.
    #[inline(always)]
    fn expand_classes(&self, indices: &[u64], visit: &mut dyn FnMut(u64, &[u64])) {
        let small = match &self.small {
            Small::Enumerated(small) => small,
            Small::Ranked(ranked) => return self.expand_ranked(ranked, indices, visit),
        };
        let moves = self.geometry.moves.len();
        let mut neighbours = vec![0u64; moves];
        let mut prefixed: Vec<(usize, u32, LargePart, u64)> = Vec::with_capacity(moves);
        let mut near = 0;
        for &index in indices {
            let (c, b, canonical) = if self.split.large == Large::Nothing {
                (index as usize, self.split.unrank_large(0), true)
            } else {
                let (c, within) = self.locate_near(index, &mut near);
                self.unnumber_in(c, within)
            };
            if !canonical {
                // Not the index its class is numbered by: never reached, no neighbours.
                visit(index, &[]);
                continue;
            }
            let row = &small.moves[c * moves..][..moves];
            for (mv, (n, &s2)) in neighbours.iter_mut().zip(row).enumerate() {
                let c2 = self.small_classes.class[s2 as usize];
                if self.split.large == Large::Nothing {
                    *n = c2 as u64;
                    continue;
                }
                let acted = self.split.apply_act(
                    &self.small_classes.acts,
                    s2 as usize,
                    &self.moved_large(mv, &b),
                );
                match self.number_begin(c2, &acted) {
                    Numbering::Done(i) => *n = i,
                    Numbering::Prefixed(rank) => prefixed.push((mv, c2, acted, rank)),
                }
            }
            for (mv, c2, acted, rank) in prefixed.drain(..) {
                neighbours[mv] = self.number_end(c2, &acted, rank);
            }
            visit(index, &neighbours);
        }
    }
}

/// The hot paths over a ranked small part ([`ranked`]): a neighbour's permutation is
/// moved and ranked, its entry (class and symmetry) read from the ranks' table, its
/// twists taken to the class's representative and numbered. A representative's
/// neighbours are ranked together and their entries asked for at once, so that their
/// cache misses overlap.
impl KClasses {
    /// The representative permutation and twists of `index`, or `None` if `index` is
    /// not the one its class is numbered by (only in sections with a stabiliser; such
    /// slots are remembered, `known_holes`).
    #[inline(always)]
    fn ranked_position(&self, ranked: &RankedSmall, index: u64) -> Option<(Pieces, LargePart)> {
        let (c, within) = self.locate(index);
        let b = self.split.unrank_large(within);
        if self.small_classes.stabiliser_of[c].1 > 0 {
            if self.known_holes.contains(c, within) {
                return None;
            }
            if !self.is_least(c as u32, &b, within) {
                self.known_holes.insert(c, within, self.sections.slots(c));
                return None;
            }
        }
        Some((ranked.unrank(self.small_classes.representatives[c]), b))
    }

    /// `p`'s neighbours' permutations and ranks, their entries asked for.
    #[inline(always)]
    fn ranked_moves(
        &self,
        ranked: &RankedSmall,
        p: &Pieces,
        pieces: &mut [Pieces],
        ranks: &mut [u32],
    ) {
        for (mv, (moved, rank)) in pieces.iter_mut().zip(ranks.iter_mut()).enumerate() {
            *moved = ranked.moved(mv, p);
            *rank = ranked.rank(moved);
            ranked.prefetch(*rank);
        }
    }

    /// [`KClasses::expand_classes`] over a ranked small part.
    #[inline(always)]
    fn expand_ranked(
        &self,
        ranked: &RankedSmall,
        indices: &[u64],
        visit: &mut dyn FnMut(u64, &[u64]),
    ) {
        let moves = self.geometry.moves.len();
        let mut neighbours = vec![0u64; moves];
        let mut pieces = vec![[0u8; MAX_LARGE]; moves];
        let mut ranks = vec![0u32; moves];
        for &index in indices {
            let Some((p, b)) = self.ranked_position(ranked, index) else {
                visit(index, &[]);
                continue;
            };
            self.ranked_moves(ranked, &p, &mut pieces, &mut ranks);
            for (mv, n) in neighbours.iter_mut().enumerate() {
                let moved = self.moved_large(mv, &b);
                *n = self.ranked_neighbour(ranked, &pieces[mv], ranks[mv], &moved);
            }
            visit(index, &neighbours);
        }
    }

    /// [`KClasses::until_hit`] over a ranked small part.
    #[inline(always)]
    fn until_hit_ranked(
        &self,
        ranked: &RankedSmall,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        mut found: impl FnMut(u64),
    ) {
        let moves = self.geometry.moves.len();
        let mut pieces = [[0u8; MAX_LARGE]; HIT_GROUP];
        let mut ranks = [0u32; HIT_GROUP];
        for &index in indices {
            let Some((p, b)) = self.ranked_position(ranked, index) else {
                continue;
            };
            // A group's neighbours are moved and ranked only when the groups before it
            // missed: at a dense level most questions end in the first.
            let mut group = [0u64; HIT_GROUP];
            for first in (0..moves).step_by(HIT_GROUP) {
                let end = moves.min(first + HIT_GROUP);
                for (i, mv) in (first..end).enumerate() {
                    pieces[i] = ranked.moved(mv, &p);
                    ranks[i] = ranked.rank(&pieces[i]);
                    ranked.prefetch(ranks[i]);
                }
                for (i, (n, mv)) in group.iter_mut().zip(first..end).enumerate() {
                    let moved = self.moved_large(mv, &b);
                    *n = self.ranked_neighbour(ranked, &pieces[i], ranks[i], &moved);
                    prefetch(*n);
                }
                if group[..end - first].iter().any(|&n| hit(n)) {
                    found(index);
                    break;
                }
            }
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

    /// A bottom-up question finds exactly the states whose expansion holds a hit: the
    /// batched first groups, the later groups of the states they miss, the sections
    /// found near the last one and the holes skipped (found once, then remembered), on
    /// puzzles split with a large part and on one without.
    #[test]
    fn questions_find_the_states_whose_expansion_hits() {
        use crate::puzzle::until_hit_by_expansion;
        let puzzles = [
            ("3x3x3-corners", Some(50_000)),
            ("skewb", Some(5_000)),
            ("pyraminx", Some(2_000)),
            ("2x2x2", None),
        ];
        for (name, limit) in puzzles {
            SMALL_PART_LIMIT.with(|l| l.set(limit));
            let p = classes(name);
            SMALL_PART_LIMIT.with(|l| l.set(None));
            assert!(!p.split.ranked, "{name}");
            assert_eq!(p.split.large == Large::Nothing, limit.is_none(), "{name}");
            let step = (p.index_count() / 20_000).max(1) as usize;
            let indices: Vec<u64> = (0..p.index_count()).step_by(step).collect();
            // Of 16 neighbours, 1, 4 or 12 in the frontier on average.
            for frontier in [1, 4, 12] {
                let hit = |n: u64| (n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) < frontier;
                let mut expected = Vec::new();
                until_hit_by_expansion(&p, &indices, hit, |i| expected.push(i));
                let mut found = Vec::new();
                p.expand_until_hit(&indices, hit, |_| {}, |i| found.push(i));
                found.sort_unstable();
                assert_eq!(found, expected, "{name}, {frontier} of 16");
                assert!(!found.is_empty(), "{name}, {frontier} of 16");
                assert!(frontier > 1 || found.len() < indices.len(), "{name}");
            }
        }
    }

    /// The small part's values are numbered in the same order whether the look-ups
    /// that a value's first move answers, and those of a move equal to an earlier one
    /// (under a frame), are skipped or not; the representatives' neighbours are the
    /// same as looked up one by one.
    #[test]
    fn first_moves_skip_look_ups_without_changing_the_numbering() {
        let framed = "2x2x2 --moves U,D,R,L,F,B --up-to-rotation";
        for name in ["2x2x2", "3x3x3-corners", "skewb", "pyraminx", framed] {
            let classes = classes(name);
            let (geometry, split) = (&classes.geometry, &classes.split);
            let Small::Enumerated(small) = &classes.small else {
                panic!("{name}: a ranked small part")
            };
            let untracked = SmallPart::enumerate_tracking(geometry, split, small.len(), false)
                .expect("the small part");
            assert_eq!(untracked.len(), small.len(), "{name}");
            for s in 0..small.len() as u32 {
                assert_eq!(untracked.key(s), small.key(s), "{name}: value {s}");
            }
            let repeated =
                (0..geometry.moves.len()).any(|m| geometry.moves[..m].contains(&geometry.moves[m]));
            assert_eq!(
                repeated,
                name == framed,
                "{name}: a move equal to an earlier one"
            );
            let moves = geometry.moves.len();
            let representatives = &classes.small_classes.representatives;
            for (c, &s) in representatives.iter().enumerate().step_by(97) {
                let x = small.state(split, s);
                for (m, turn) in geometry.moves.iter().enumerate() {
                    let y = x.then(turn, &geometry.compact.moduli);
                    assert_eq!(small.moves[c * moves + m], small.id(split, &y), "{name}");
                }
            }
        }
    }

    /// The symmetries' images of a key put together by table are the keys of
    /// [`Geometry::act_into`]'s images, for every symmetry of puzzles with and without
    /// a large part, with mirrors, and with a frame.
    #[test]
    fn symmetry_keys_are_the_keys_of_the_images() {
        let framed = "2x2x2 --moves U,D,R,L,F,B --up-to-rotation";
        for name in ["2x2x2", "3x3x3-corners", "skewb", "pyraminx", framed] {
            let classes = classes(name);
            let (geometry, split) = (&classes.geometry, &classes.split);
            assert_eq!(geometry.frame.is_some(), name == framed, "{name}");
            let Small::Enumerated(small) = &classes.small else {
                panic!("{name}: a ranked small part")
            };
            let keys = geometry::SymmetryKeys::new(geometry, split).expect("tables");
            let n = geometry.compact.len();
            let inverses = geometry.inverses();
            let (mut scratch, mut image) = ((vec![0; n], vec![0; n]), (vec![0; n], vec![0; n]));
            let mut mirrored = false;
            for s in (0..small.len() as u32).step_by(small.len() / 3000 + 1) {
                let x = small.state(split, s);
                for sym in 0..geometry.symmetries.len() {
                    mirrored |= geometry.symmetries[sym].mirror;
                    geometry.act_into(sym, &inverses, x.parts(), &mut scratch, &mut image);
                    assert_eq!(
                        keys.image(sym, small.key(s)),
                        split.key(&image.0, &image.1),
                        "{name}: value {s}, symmetry {sym}"
                    );
                }
            }
            assert!(mirrored, "{name}: no mirror among the symmetries");
        }
    }

    /// Every hole a bottom-up question meets is remembered once, and the direction
    /// rule then counts none as still to check.
    #[test]
    fn questions_remember_every_hole_they_meet() {
        let p = classes("3x3x3-corners");
        assert!(p.never_reached() > 0);
        assert_eq!(p.never_reached_unchecked(), p.never_reached());
        let all: Vec<u64> = (0..p.index_count()).collect();
        p.expand_until_hit(&all[..all.len() / 3], |_| false, |_| {}, |_| {});
        let unchecked = p.never_reached_unchecked();
        assert!(0 < unchecked && unchecked < p.never_reached());
        for _ in 0..2 {
            p.expand_until_hit(&all, |_| false, |_| {}, |_| {});
            assert_eq!(p.never_reached_unchecked(), 0);
        }
    }

    /// The neighbours' keys put together field by field are the keys of the values the
    /// moves make, on puzzles whose small part is the whole puzzle (the 2x2x2, framed
    /// too), a permutation (the corners) and pieces with twists (the Pyraminx, the
    /// Skewb); the moves skipped leave their entries as they were.
    #[test]
    fn the_neighbours_keys_are_the_keys_of_the_moved_values() {
        let framed = "2x2x2 --moves U,D,R,L,F,B --up-to-rotation";
        for name in ["2x2x2", framed, "3x3x3-corners", "pyraminx", "skewb"] {
            let p = classes(name);
            let Small::Enumerated(small) = &p.small else {
                panic!("{name}: its small part is enumerated")
            };
            let moves = p.geometry.moves.len();
            let moduli = &p.geometry.compact.moduli;
            let tabulated = geometry::KeyScratch::new(&p.geometry, &p.split);
            let scratches = [tabulated.clone().untabulated(), tabulated];
            let mut keys = vec![0u64; moves];
            let (mut checked, mut skipped) = (0, 0);
            let sample = (0..small.len() as u32).step_by(small.len() / 500 + 1);
            for (i, s) in sample.enumerate() {
                let x = small.state(&p.split, s);
                // No move skipped, or every third from one that varies.
                let skip: Vec<bool> = (0..moves).map(|m| i % 2 == 1 && (m + i) % 3 == 0).collect();
                for scratch in &scratches {
                    keys.fill(u64::MAX);
                    let key = p.split.key(&x.permutation, &x.delta);
                    p.geometry.key_neighbours(key, scratch, &skip, &mut keys);
                    for ((m, &key), &skip) in p.geometry.moves.iter().zip(&keys).zip(&skip) {
                        if skip {
                            assert_eq!(key, u64::MAX, "{name}: a skipped move's entry");
                            skipped += 1;
                            continue;
                        }
                        let y = x.then(m, moduli);
                        assert_eq!(key, p.split.key(&y.permutation, &y.delta), "{name}");
                        checked += 1;
                    }
                }
            }
            assert!(
                checked >= 500 * moves.min(4) && skipped > 0,
                "{name}: {checked} neighbours, {skipped} skipped"
            );
        }
    }

    /// The large parts an act fixes, found cycle by cycle (for the FTO's edges, too
    /// many to try), are exactly those found by trying every permutation.
    #[test]
    fn fixed_permutations_are_the_large_parts_an_act_fixes() {
        let mut p = classes("2x2x2");
        let k = 6;
        p.split.large = Large::Orbit;
        p.split.large_modulus = 1;
        p.split.large_positions = (0..k).collect();
        let x = p.small.state(&p.split, p.small_classes.representatives[0]);
        let acts_of = |from: &[u8], label: &[u8]| {
            let mut acts = Acts::new(k);
            acts.push(from, &[0; 6], label, &[0; 6], false);
            acts
        };
        let all = permutations(k);
        let mut checked = 0;
        for (n, from) in all.iter().enumerate().step_by(37) {
            for label in [&all[0], from, &all[(n * 7 + 3) % all.len()]] {
                let acts = acts_of(from, label);
                for even in [false, true] {
                    p.split.even = even;
                    let mut by_cycles = Vec::new();
                    p.fixed_permutations(&acts, &mut |b| {
                        by_cycles.push(p.split.with_large(&x, b).permutation)
                    });
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
                        if p.split.apply_act(&acts, 0, &b) == b {
                            by_trying.push(p.split.with_large(&x, &b).permutation);
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

    /// The Compy Cube's corners only ever twist in place, so a twist of a corner's
    /// stickers commutes with every move: the symmetry search keeps one of each 3^8
    /// such copies, and the cube's 48 symmetries remain. Its index holds 1.03 slots per
    /// class (3.27e10 classes); the goal's 16 neighbours are one class.
    #[test]
    fn the_compy_cube_has_the_cubes_48_symmetries_and_a_tight_index() {
        let p = classes("compy");
        assert_eq!(p.symmetry_count(), 48);
        assert_eq!(p.index_count(), 33_672_103_200);
        let mut seen = Vec::new();
        p.expand_sorted(&[p.goal_index], |_, neighbours| {
            seen.extend_from_slice(neighbours)
        });
        assert_eq!(seen.len(), 16);
        assert!(seen.iter().all(|&n| n == seen[0] && n != p.goal_index));
        let mut hits = 0;
        p.expand_until_hit(&[seen[0]], |n| n == p.goal_index, |_| {}, |_| hits += 1);
        assert_eq!(hits, 1);
    }

    /// The 3x3x3's corners with their permutation ranked, as the edges' must be (too
    /// many to enumerate): as many slots as the enumerated part gives, the published
    /// positions per depth (Rokicki), Burnside's count, and every canonical index's
    /// representative and its conjugates ranked back to it.
    #[test]
    fn a_ranked_small_part_numbers_the_classes_the_search_finds() {
        use crate::analysis::analyze;
        use crate::driver::Control;
        SMALL_PART_LIMIT.with(|l| l.set(Some(1000)));
        let p = classes("3x3x3-corners");
        SMALL_PART_LIMIT.with(|l| l.set(None));
        let enumerated = classes("3x3x3-corners");
        assert!(p.split.ranked && !enumerated.split.ranked);
        assert_eq!(p.index_count(), enumerated.index_count());
        assert_eq!(p.never_reached(), enumerated.never_reached());
        let a = analyze(&p, 0, &Control::default()).unwrap();
        let c = a.classes.as_ref().unwrap();
        let published: [u128; 12] = [
            1, 18, 243, 2874, 28000, 205416, 1168516, 5402628, 20776176, 45391616, 15139616, 64736,
        ];
        assert_eq!(c.positions_by_depth, published);
        assert_eq!(c.burnside_classes, a.reachable as u128);
        assert_eq!(a.indices - a.reachable, p.never_reached());
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        while checked < 300 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let (x, canonical) = p.representative(rng % p.index_count());
            if !canonical {
                continue;
            }
            let index = p.index_of(&x);
            assert_eq!(p.representative(index).0, x);
            for sym in 0..p.geometry.symmetries.len() {
                assert_eq!(
                    p.index_of(&p.geometry.act(sym, &x).0),
                    index,
                    "symmetry {sym}"
                );
            }
            checked += 1;
        }
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
                for sym in 0..p.geometry.symmetries.len() {
                    let (y, _) = p.geometry.act(sym, &x);
                    assert_eq!(p.index_of(&y), index, "{name} symmetry {sym}");
                }
            }
        }
    }
}
