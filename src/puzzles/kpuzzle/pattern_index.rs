//! A tight index of the symmetry classes of patterns with identical pieces.
//!
//! The plain ranking ([`super::ranking::Layout`]) is a number in mixed radix, one
//! digit per part (an orbit, ranked as a multiset permutation with orientations where
//! its pieces look alike). Each symmetry of the goal maps every part onto itself
//! (checked: else there is no such index), so the digits split in two: a *small*
//! part `v` (the largest digits whose values together fit [`MAX_SMALL_VALUES`], or
//! all of them) and a *large* part `b` (the rest, in mixed radix). The values of `v`
//! fall into classes of their own; each value has a symmetry `t(v)` taking it to its
//! class's representative `v*` (the least value of the class), and each class the
//! stabiliser of `v*`. A pattern's index is `class(v) · |b| + min b'`, the minimum
//! over the large parts of `h · t(v) · P` for `h` in that stabiliser. The slots whose
//! `b` is not that minimum are never reached: they are few where few `v*` are
//! symmetric. A puzzle small enough for `v` to be everything numbers its classes
//! densely, with no slack.
//!
//! The search moves each digit by table where the tables are small beside the index
//! (the FTO's triangles: 369,600 values per orbit, 5.7 billion classes): a
//! neighbour's index is then a few look-ups. Elsewhere (the 4x4x4's centres, dense)
//! a neighbour is built and ranked as a pattern.

mod fixed;
mod masks;

use std::sync::OnceLock;

use masks::Masks;

use super::KPuzzle;
use super::definition::Pattern;
use super::ranking::{Digit, Layout};
use rayon::prelude::*;

/// The most values the small part may take.
pub const MAX_SMALL_VALUES: u64 = 1 << 23;

/// The most entries (four bytes each) the move and symmetry tables may take: 1 GiB.
const MAX_TABLE_ENTRIES: u64 = 1 << 28;

/// How many neighbours a bottom-up question computes and prefetches before it reads
/// their answers: their misses overlap, and a hit among the first ones spares the rest.
pub(crate) const HIT_GROUP: usize = 4;

/// The most digits of the large part.
const MAX_LARGE_DIGITS: usize = 16;

/// The most values the small part may take: [`MAX_SMALL_VALUES`], less in tests.
fn small_limit() -> u64 {
    #[cfg(test)]
    if let Some(limit) = tests::SMALL_LIMIT.with(std::cell::Cell::get) {
        return limit;
    }
    MAX_SMALL_VALUES
}

/// Whether a dense index of two kinds may rank them as masks (tests may say no).
fn masks_allowed() -> bool {
    #[cfg(test)]
    if tests::NO_MASKS.with(std::cell::Cell::get) {
        return false;
    }
    true
}

/// Whether tables of `entries` pay for an index of `indices` slots whose search turns
/// each `turns` ways (tests may say): each entry is built once, as a pattern, where a
/// search without them builds a pattern for every neighbour.
fn tables_pay(entries: u64, indices: u64, turns: usize) -> bool {
    #[cfg(test)]
    if let Some(tables) = tests::TABLES.with(std::cell::Cell::get) {
        return tables;
    }
    entries <= MAX_TABLE_ENTRIES && entries <= indices.saturating_mul(turns as u64) / 16
}

/// One digit of the plain ranking, as the index sees it.
#[derive(Debug, Clone)]
struct Place {
    /// Which part of the layout it is ([`Digit::part`]).
    part: usize,
    /// Which digit it is.
    digit: usize,
    /// Its number of values.
    size: u64,
}

/// The digits' moves and symmetries by table: `moves[value * turns + turn]`,
/// `symmetries[value * symmetries + k]`.
#[derive(Debug, Clone)]
struct Tables {
    turns: usize,
    /// The small part's moves.
    small_moves: Vec<u32>,
    /// Per large digit, in order.
    large: Vec<LargeTables>,
}

#[derive(Debug, Clone)]
struct LargeTables {
    size: u64,
    moves: Vec<u32>,
    symmetries: Vec<u32>,
}

/// What a scan of the symmetric classes found: the slots never reached, and each
/// index whose class holds fewer patterns than there are symmetries, with its size.
#[derive(Debug, Clone, Default)]
struct Scan {
    unused: u64,
    symmetric: Vec<(u64, u64)>,
}

/// What the index needs of the symmetries whose classes it numbers (each an action
/// on patterns, [`super::pattern_classes::PatternClasses`]).
pub trait Symmetries: Sync {
    /// The number of symmetries, the identity first.
    fn count(&self) -> usize;
    /// `state` after symmetry `k`, written over `image`.
    fn image_into(&self, state: &Pattern, k: usize, image: &mut Pattern);
    /// Whether symmetry `k` is a rotation of the whole puzzle (up to rotation).
    fn is_rotation(&self, k: usize) -> bool;
    /// The positions of a class that `fixed` symmetries fix, `fixed_rotations` of
    /// them rotations.
    fn size_of(&self, fixed: u64, fixed_rotations: u64) -> u64;
    /// Per symmetry `k`, for each of `digits`, the digit its image takes its pieces
    /// from, or `None` if a symmetry splits a part.
    fn digit_sources(&self, digits: &[Digit<'_>]) -> Option<Vec<Vec<usize>>>;
    /// Per symmetry, the one that undoes it, or `None` if one has none.
    fn inverses(&self, plain: &KPuzzle) -> Option<Vec<u16>>;
    /// The position whose piece symmetry `k` brings to position `position`, or
    /// `None` if the symmetries leave `position` out.
    fn source_of(&self, k: usize, position: usize) -> Option<usize>;
    /// The piece and twist symmetry `k` brings to `position` where its source holds
    /// `piece` with twist `twist`.
    fn image_of(&self, k: usize, position: usize, piece: u8, twist: u8) -> (u8, u8);
}

/// The tight index of a group of [`Symmetries`] over its puzzle's plain ranking.
#[derive(Debug, Clone)]
pub struct PatternIndex {
    small: Vec<Place>,
    large: Vec<Place>,
    /// Per symmetry `k` and large digit `j`: which large digit the image's digit `j`
    /// comes from, `large_sources[k * large.len() + j]`.
    large_sources: Vec<u8>,
    small_values: u64,
    large_values: u64,
    symmetries: usize,
    /// Per small value: its class.
    class_of: Vec<u32>,
    /// Per small value: a symmetry taking it to its class's representative.
    to_representative: Vec<u16>,
    /// Per class: the representative's small value.
    representatives: Vec<u32>,
    /// Per class: where its stabiliser starts in `stabilisers` (one more at the end).
    stabiliser_start: Vec<u32>,
    /// The symmetries fixing each representative, the identity first.
    stabilisers: Vec<u16>,
    tables: Option<Tables>,
    /// A dense index of one part of two kinds: its values as bit masks, the
    /// symmetries' then the moves' maps by table ([`Masks`]), and each class's
    /// representative's mask.
    masks: Option<Masks>,
    representative_masks: Vec<u32>,
    scan: OnceLock<Scan>,
}

impl PatternIndex {
    /// The index of `classes` over `plain`'s ranking (with its move tables where they
    /// pay, if `tables`), or `None` where it has none: a symmetry splits a part, a
    /// part's parity is tied to another's, or no digits fit the small part.
    #[must_use]
    pub fn new(plain: &KPuzzle, classes: &impl Symmetries, tables: bool) -> Option<PatternIndex> {
        let layout = plain.layout.as_ref().ok()?;
        let digits = layout.digits();
        if digits.iter().any(|d| !d.alone) || classes.count() > 1 << 16 {
            return None;
        }
        let sources = classes.digit_sources(&digits)?;
        let (small, large) = split(&digits, &sources)?;
        if large.len() > MAX_LARGE_DIGITS {
            return None;
        }
        let product = |places: &[Place]| places.iter().map(|p| p.size).product::<u64>();
        let mut index = PatternIndex {
            large_sources: sources
                .iter()
                .flat_map(|by_digit| {
                    large.iter().map(|p| {
                        let from = by_digit[p.digit];
                        large.iter().position(|q| q.digit == from).expect("closed") as u8
                    })
                })
                .collect(),
            small_values: product(&small),
            large_values: product(&large),
            small,
            large,
            symmetries: classes.count(),
            class_of: Vec::new(),
            to_representative: Vec::new(),
            representatives: Vec::new(),
            stabiliser_start: Vec::new(),
            stabilisers: Vec::new(),
            tables: None,
            masks: None,
            representative_masks: Vec::new(),
            scan: OnceLock::new(),
        };
        if let ([only], [], true) = (&index.small[..], &index.large[..], masks_allowed()) {
            let digit = &digits[only.digit];
            let (moves, moduli) = (&plain.turn_moves, &plain.definition.moduli);
            let symmetries = classes.count();
            index.masks = Masks::new(
                layout,
                (digit.part, digit.places, digit.size),
                &plain.goal,
                symmetries + moves.len(),
                |m, pattern, image| {
                    if m < symmetries {
                        classes.image_into(pattern, m, image);
                    } else {
                        moves[m - symmetries].apply_into(pattern, moduli, image);
                    }
                },
            );
        }
        let inverses = classes.inverses(plain)?;
        index.number_small_classes(plain, layout, classes, &inverses);
        if tables {
            index.tables = index.build_tables(plain, layout, classes);
        }
        Some(index)
    }

    /// The number of slots.
    #[must_use]
    pub fn index_count(&self) -> u64 {
        self.representatives.len() as u64 * self.large_values
    }

    /// How the index is made, for the table's definition.
    #[must_use]
    pub fn definition_text(&self) -> String {
        format!(
            "tight index: digits {:?} small ({} values, {} classes), digits {:?} large ({} values)\n",
            self.small.iter().map(|p| p.part).collect::<Vec<_>>(),
            self.small_values,
            self.representatives.len(),
            self.large.iter().map(|p| p.part).collect::<Vec<_>>(),
            self.large_values,
        )
    }

    /// Numbers the classes of the small part: each value not yet numbered is its
    /// class's least, and its images under every symmetry join its class.
    fn number_small_classes(
        &mut self,
        plain: &KPuzzle,
        layout: &Layout,
        classes: &impl Symmetries,
        inverses: &[u16],
    ) {
        let n = self.small_values as usize;
        self.class_of = vec![u32::MAX; n];
        self.to_representative = vec![0; n];
        self.stabiliser_start.push(0);
        if let Some(masks) = self.masks.take() {
            self.number_by_masks(&masks, inverses);
            self.masks = Some(masks);
            return;
        }
        let (mut pattern, mut image) = (plain.goal.clone(), plain.goal.clone());
        for v in 0..n {
            if self.class_of[v] != u32::MAX {
                continue;
            }
            let class = self.representatives.len() as u32;
            self.representatives.push(v as u32);
            self.write(layout, &self.small, v as u64, &mut pattern);
            for (k, &inverse) in inverses.iter().enumerate() {
                classes.image_into(&pattern, k, &mut image);
                let w = self.value_of(layout, &self.small, &image) as usize;
                self.take_image((v, class), (k, inverse), w);
            }
            self.stabiliser_start.push(self.stabilisers.len() as u32);
        }
    }

    /// Value `w`, the image of class `class`'s representative `v` under symmetry `k`
    /// (undone by `inverse`), joins the class; `k` fixes `v` where `w` is `v`.
    #[inline]
    fn take_image(&mut self, (v, class): (usize, u32), (k, inverse): (usize, u16), w: usize) {
        if w == v {
            self.stabilisers.push(k as u16);
        }
        if self.class_of[w] == u32::MAX {
            self.class_of[w] = class;
            self.to_representative[w] = inverse;
        }
    }

    /// [`PatternIndex::number_small_classes`] with the values as masks: the values in
    /// order are the masks in Gosper's order, an image two or three look-ups.
    fn number_by_masks(&mut self, masks: &Masks, inverses: &[u16]) {
        let mut mask = masks.first();
        for v in 0..self.small_values as usize {
            if v > 0 {
                mask = Masks::next(mask);
            }
            if self.class_of[v] != u32::MAX {
                continue;
            }
            let class = self.representatives.len() as u32;
            self.representatives.push(v as u32);
            self.representative_masks.push(mask);
            for (k, &inverse) in inverses.iter().enumerate() {
                let w = masks.rank(masks.image(k, mask)) as usize;
                self.take_image((v, class), (k, inverse), w);
            }
            self.stabiliser_start.push(self.stabilisers.len() as u32);
        }
    }

    /// The digits' move and symmetry tables, where they are small beside the index.
    fn build_tables(
        &self,
        plain: &KPuzzle,
        layout: &Layout,
        classes: &impl Symmetries,
    ) -> Option<Tables> {
        let turns = plain.turn_moves.len();
        let entries = self.small_values * turns as u64
            + self
                .large
                .iter()
                .map(|p| p.size * (turns + self.symmetries) as u64)
                .sum::<u64>();
        if !tables_pay(entries, self.index_count(), turns) {
            return None;
        }
        let moduli = &plain.definition.moduli;
        let moved = |k: usize, pattern: &Pattern, after: &mut Pattern| {
            plain.turn_moves[k].apply_into(pattern, moduli, after);
        };
        let goal = &plain.goal;
        Some(Tables {
            turns,
            small_moves: self.small_move_table(plain, layout),
            large: self
                .large
                .iter()
                .enumerate()
                .map(|(j, p)| LargeTables {
                    size: p.size,
                    moves: layout.digit_table(p.part, goal, turns, moved),
                    // Symmetry k takes this digit onto the one whose source it is.
                    symmetries: layout.digit_table_onto(
                        p.part,
                        |k| {
                            let sources = &self.large_sources[k * self.large.len()..];
                            let onto = sources.iter().position(|&s| s as usize == j);
                            self.large[onto.expect("a permutation")].part
                        },
                        goal,
                        self.symmetries,
                        |k, pattern, image| classes.image_into(pattern, k, image),
                    ),
                })
                .collect(),
        })
    }

    /// The small part's value after each move, per value: `[v * turns + turn]`.
    fn small_move_table(&self, plain: &KPuzzle, layout: &Layout) -> Vec<u32> {
        let turns = plain.turn_moves.len();
        let moduli = &plain.definition.moduli;
        let mut table = vec![0u32; self.small_values as usize * turns];
        table
            .par_chunks_mut(4096 * turns)
            .enumerate()
            .for_each(|(chunk, rows)| {
                let (mut pattern, mut after) = (plain.goal.clone(), plain.goal.clone());
                for (v, row) in rows.chunks_mut(turns).enumerate() {
                    let value = (chunk * 4096 + v) as u64;
                    self.write(layout, &self.small, value, &mut pattern);
                    for (cell, turn) in row.iter_mut().zip(&plain.turn_moves) {
                        turn.apply_into(&pattern, moduli, &mut after);
                        *cell = self.value_of(layout, &self.small, &after) as u32;
                    }
                }
            });
        table
    }

    /// The value of `places` in `pattern` (mixed radix, in order).
    fn value_of(&self, layout: &Layout, places: &[Place], pattern: &Pattern) -> u64 {
        places.iter().fold(0, |value, p| {
            value * p.size + layout.rank_digit(p.part, pattern.view())
        })
    }

    /// Writes value `value` of `places` over `pattern`.
    fn write(&self, layout: &Layout, places: &[Place], mut value: u64, pattern: &mut Pattern) {
        for p in places.iter().rev() {
            layout.unrank_digit(p.part, value % p.size, pattern);
            value /= p.size;
        }
    }

    /// The stabiliser of class `class`'s representative, the identity first.
    fn stabiliser(&self, class: u32) -> &[u16] {
        let c = class as usize;
        &self.stabilisers[self.stabiliser_start[c] as usize..self.stabiliser_start[c + 1] as usize]
    }

    /// The index of `state`.
    #[must_use]
    pub fn rank(&self, plain: &KPuzzle, classes: &impl Symmetries, state: &Pattern) -> u64 {
        let layout = plain.layout.as_ref().expect("ranked");
        let v = self.value_of(layout, &self.small, state) as usize;
        let class = self.class_of[v];
        let base = u64::from(class) * self.large_values;
        if self.large.is_empty() {
            return base;
        }
        let k = self.to_representative[v] as usize;
        let mut moved = state.clone();
        if k != 0 {
            classes.image_into(state, k, &mut moved);
        }
        let mut least = self.value_of(layout, &self.large, &moved);
        let mut image = moved.clone();
        for &h in &self.stabiliser(class)[1..] {
            classes.image_into(&moved, h as usize, &mut image);
            least = least.min(self.value_of(layout, &self.large, &image));
        }
        base + least
    }

    /// The pattern of index `index` (a class's representative).
    #[must_use]
    pub fn unrank(&self, plain: &KPuzzle, index: u64) -> Pattern {
        let layout = plain.layout.as_ref().expect("ranked");
        let (class, b) = (index / self.large_values, index % self.large_values);
        let mut pattern = plain.goal.clone();
        let v = u64::from(self.representatives[class as usize]);
        self.write(layout, &self.small, v, &mut pattern);
        self.write(layout, &self.large, b, &mut pattern);
        pattern
    }

    /// Whether the search moves by table.
    #[must_use]
    pub fn has_tables(&self) -> bool {
        self.tables.is_some()
    }

    /// Calls `visit(index, neighbours)` for each of `indices` by table (an index that
    /// is not its class's own has none). Panics without tables.
    pub fn expand_by_table(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        let tables = self.tables.as_ref().expect("tables");
        let turns = tables.turns;
        let mut neighbours = vec![0u64; turns];
        let mut digits = [0u32; MAX_LARGE_DIGITS];
        let mut moved = [0u32; MAX_LARGE_DIGITS];
        let l = tables.large.len();
        for &index in indices {
            let class = (index / self.large_values) as u32;
            self.large_digits(tables, index % self.large_values, &mut digits[..l]);
            if !self.own(tables, class, &digits[..l]) {
                visit(index, &[]);
                continue;
            }
            let v = self.representatives[class as usize] as usize;
            for (t, n) in neighbours.iter_mut().enumerate() {
                let w = tables.small_moves[v * turns + t] as usize;
                for (j, large) in tables.large.iter().enumerate() {
                    moved[j] = large.moves[digits[j] as usize * turns + t];
                }
                *n = self.canonical(tables, w, &mut moved[..l]);
            }
            visit(index, &neighbours);
        }
    }

    /// [`crate::Puzzle::expand_until_hit`] by table: each index's neighbours
    /// four at a time, computed and prefetched, then asked; the first hit ends
    /// the index (a slot that is not its class's own has no neighbours). Panics
    /// without tables.
    pub fn until_hit_by_table(
        &self,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        mut found: impl FnMut(u64),
    ) {
        let tables = self.tables.as_ref().expect("tables");
        let turns = tables.turns;
        let l = tables.large.len();
        let mut digits = [0u32; MAX_LARGE_DIGITS];
        let mut moved = [0u32; MAX_LARGE_DIGITS];
        let mut group = [0u64; HIT_GROUP];
        for &index in indices {
            let class = (index / self.large_values) as u32;
            self.large_digits(tables, index % self.large_values, &mut digits[..l]);
            if !self.own(tables, class, &digits[..l]) {
                continue;
            }
            let v = self.representatives[class as usize] as usize;
            let small = &tables.small_moves[v * turns..][..turns];
            'turns: for first in (0..turns).step_by(HIT_GROUP) {
                let last = (first + HIT_GROUP).min(turns);
                for (t, n) in (first..last).zip(group.iter_mut()) {
                    for (j, large) in tables.large.iter().enumerate() {
                        moved[j] = large.moves[digits[j] as usize * turns + t];
                    }
                    *n = self.canonical(tables, small[t] as usize, &mut moved[..l]);
                    prefetch(*n);
                }
                for &n in &group[..last - first] {
                    if hit(n) {
                        found(index);
                        break 'turns;
                    }
                }
            }
        }
    }

    /// Calls `visit(index, neighbours)` for each of `indices` of a dense index (no
    /// large part): each neighbour built as a pattern, its class looked up.
    pub fn expand_dense(
        &self,
        plain: &KPuzzle,
        indices: &[u64],
        mut visit: impl FnMut(u64, &[u64]),
    ) {
        debug_assert!(self.large.is_empty());
        let mut neighbours = vec![0u64; plain.turn_moves.len()];
        if let Some(masks) = &self.masks {
            for &index in indices {
                let mask = self.representative_masks[index as usize];
                for (t, n) in neighbours.iter_mut().enumerate() {
                    let w = masks.rank(masks.image(self.symmetries + t, mask));
                    *n = u64::from(self.class_of[w as usize]);
                }
                visit(index, &neighbours);
            }
            return;
        }
        let layout = plain.layout.as_ref().expect("ranked");
        let moduli = &plain.definition.moduli;
        let (mut pattern, mut after) = (plain.goal.clone(), plain.goal.clone());
        for &index in indices {
            let v = u64::from(self.representatives[index as usize]);
            self.write(layout, &self.small, v, &mut pattern);
            for (n, turn) in neighbours.iter_mut().zip(&plain.turn_moves) {
                turn.apply_into(&pattern, moduli, &mut after);
                *n = u64::from(self.class_of[self.value_of(layout, &self.small, &after) as usize]);
            }
            visit(index, &neighbours);
        }
    }

    /// Whether the index is dense (every slot a class).
    #[must_use]
    pub fn is_dense(&self) -> bool {
        self.large.is_empty()
    }

    /// The large digits of `b`, most significant first.
    #[inline]
    fn large_digits(&self, tables: &Tables, mut b: u64, out: &mut [u32]) {
        for (j, large) in tables.large.iter().enumerate().rev() {
            out[j] = (b % large.size) as u32;
            b /= large.size;
        }
    }

    /// The mixed-radix value of large digits.
    #[inline]
    fn large_value(tables: &Tables, digits: &[u32]) -> u64 {
        tables
            .large
            .iter()
            .zip(digits)
            .fold(0, |b, (large, &d)| b * large.size + u64::from(d))
    }

    /// The large digits after symmetry `k`.
    #[inline]
    fn large_image(&self, tables: &Tables, digits: &[u32], k: usize, out: &mut [u32]) {
        let sources = &self.large_sources[k * digits.len()..][..digits.len()];
        for (j, &from) in sources.iter().enumerate() {
            let from = from as usize;
            out[j] = tables.large[from].symmetries[digits[from] as usize * self.symmetries + k];
        }
    }

    /// Whether class `class` with large digits `digits` is the index its class is
    /// numbered by (no symmetry of the representative gives a smaller large part).
    fn own(&self, tables: &Tables, class: u32, digits: &[u32]) -> bool {
        let stabiliser = self.stabiliser(class);
        if stabiliser.len() < 2 {
            return true;
        }
        let b = Self::large_value(tables, digits);
        let mut image = [0u32; MAX_LARGE_DIGITS];
        let image = &mut image[..digits.len()];
        stabiliser[1..].iter().all(|&h| {
            self.large_image(tables, digits, h as usize, image);
            Self::large_value(tables, image) >= b
        })
    }

    /// The index of the pattern with small value `w` and large digits `digits` (by
    /// table; `digits` is overwritten).
    #[inline]
    fn canonical(&self, tables: &Tables, w: usize, digits: &mut [u32]) -> u64 {
        let class = self.class_of[w];
        let k = self.to_representative[w] as usize;
        let mut image = [0u32; MAX_LARGE_DIGITS];
        let image = &mut image[..digits.len()];
        if k != 0 {
            self.large_image(tables, digits, k, image);
            digits.copy_from_slice(image);
        }
        let mut least = Self::large_value(tables, digits);
        for &h in &self.stabiliser(class)[1..] {
            self.large_image(tables, digits, h as usize, image);
            least = least.min(Self::large_value(tables, image));
        }
        u64::from(class) * self.large_values + least
    }

    /// The slots never reached and the symmetric classes, found once.
    fn scan(&self, plain: &KPuzzle, classes: &impl Symmetries) -> &Scan {
        self.scan
            .get_or_init(|| self.scan_symmetric(plain, classes))
    }

    /// In each class of the small part whose representative a symmetry fixes: the
    /// large parts that are not their class's own, and the own ones whose class
    /// holds fewer positions ([`PatternClasses::size_of`]). The stabiliser's orbits
    /// over the large parts number `(|B| + sum of |Fix(h)|) / |H|` (Burnside), one
    /// own part each; the rest are never reached. Only the large parts some `h`
    /// fixes can have a smaller class, and they are found cycle by cycle
    /// ([`PatternIndex::fixed_large_values`]) rather than among all of `B`.
    fn scan_symmetric(&self, plain: &KPuzzle, classes: &impl Symmetries) -> Scan {
        let full = classes.size_of(1, 1);
        let mut scan = Scan::default();
        for class in 0..self.representatives.len() as u32 {
            let stabiliser = self.stabiliser(class);
            if stabiliser.len() < 2 {
                continue;
            }
            let base = u64::from(class) * self.large_values;
            let template = self.unrank(plain, base);
            let fixed: Option<Vec<Vec<u64>>> = stabiliser[1..]
                .par_iter()
                .map(|&h| self.fixed_large_values(plain, classes, h as usize, &template))
                .collect();
            let Some(fixed) = fixed else {
                self.scan_every_large_value(plain, classes, class, &mut scan);
                continue;
            };
            let fixed_total: u64 = fixed.iter().map(|f| f.len() as u64).sum();
            let orbits = (self.large_values + fixed_total) / stabiliser.len() as u64;
            debug_assert_eq!(
                (self.large_values + fixed_total) % stabiliser.len() as u64,
                0,
                "Burnside's count of class {class}"
            );
            scan.unused += self.large_values - orbits;
            let mut candidates: Vec<u64> = fixed.into_iter().flatten().collect();
            candidates.sort_unstable();
            candidates.dedup();
            let found: Vec<(bool, u64, u64)> = candidates
                .par_iter()
                .map(|&b| self.own_and_fixing(plain, classes, class, b, stabiliser))
                .collect();
            for (&b, &(own, fixed, rotations)) in candidates.iter().zip(&found) {
                let size = classes.size_of(fixed, rotations);
                if own && size != full {
                    scan.symmetric.push((base + b, size));
                }
            }
        }
        scan
    }

    /// [`PatternIndex::scan_symmetric`] for one class, over every large part.
    fn scan_every_large_value(
        &self,
        plain: &KPuzzle,
        classes: &impl Symmetries,
        class: u32,
        scan: &mut Scan,
    ) {
        let full = classes.size_of(1, 1);
        let stabiliser = self.stabiliser(class);
        let base = u64::from(class) * self.large_values;
        // Per large part: own, and the symmetries (and rotations) that fix it.
        let found: Vec<(bool, u64, u64)> = (0..self.large_values)
            .into_par_iter()
            .map(|b| self.own_and_fixing(plain, classes, class, b, stabiliser))
            .collect();
        for (b, &(own, fixed, rotations)) in found.iter().enumerate() {
            let size = classes.size_of(fixed, rotations);
            if !own {
                scan.unused += 1;
            } else if size != full {
                scan.symmetric.push((base + b as u64, size));
            }
        }
    }

    /// The large parts (ascending) that symmetry `h` maps onto themselves beside the
    /// small part of `template`, which `h` fixes; `None` if `h` takes a large
    /// position's piece from a position the symmetries leave out. The candidates come
    /// cycle by cycle ([`fixed`]); the ranking checks their twists (a candidate whose
    /// value does not write it back is no part).
    fn fixed_large_values(
        &self,
        plain: &KPuzzle,
        classes: &impl Symmetries,
        h: usize,
        template: &Pattern,
    ) -> Option<Vec<u64>> {
        let layout = plain.layout.as_ref().expect("ranked");
        let digits = layout.digits();
        let large = fixed::LargePositions::new(
            self.large.iter().map(|place| digits[place.digit].places),
            &plain.goal,
        );
        let cycles = fixed::cycles(classes, h, &large, &plain.definition.moduli)?;
        let mut found = Vec::new();
        let mut written = template.clone();
        fixed::each_candidate(&cycles, &large, template.clone(), &mut |candidate| {
            let b = self.value_of(layout, &self.large, candidate);
            self.write(layout, &self.large, b, &mut written);
            if large.agree(&written, candidate) {
                found.push(b);
            }
        });
        found.sort_unstable();
        found.dedup();
        Some(found)
    }

    /// Whether `(class, b)` is its class's own, how many of `stabiliser` fix it and
    /// how many of those are rotations.
    fn own_and_fixing(
        &self,
        plain: &KPuzzle,
        classes: &impl Symmetries,
        class: u32,
        b: u64,
        stabiliser: &[u16],
    ) -> (bool, u64, u64) {
        let mut own = true;
        let (mut fixed, mut rotations) = (1, 1);
        let mut count = |h: u16, c: u64| {
            own &= c >= b;
            if c == b {
                fixed += 1;
                rotations += u64::from(classes.is_rotation(h as usize));
            }
        };
        if let Some(tables) = &self.tables {
            let mut digits = [0u32; MAX_LARGE_DIGITS];
            let mut image = [0u32; MAX_LARGE_DIGITS];
            let l = tables.large.len();
            self.large_digits(tables, b, &mut digits[..l]);
            for &h in &stabiliser[1..] {
                self.large_image(tables, &digits[..l], h as usize, &mut image[..l]);
                count(h, Self::large_value(tables, &image[..l]));
            }
        } else {
            let layout = plain.layout.as_ref().expect("ranked");
            let pattern = self.unrank(plain, u64::from(class) * self.large_values + b);
            let mut image = pattern.clone();
            for &h in &stabiliser[1..] {
                classes.image_into(&pattern, h as usize, &mut image);
                count(h, self.value_of(layout, &self.large, &image));
            }
        }
        (own, fixed, rotations)
    }

    /// The slots never reached.
    #[must_use]
    pub fn unused(&self, plain: &KPuzzle, classes: &impl Symmetries) -> u64 {
        self.scan(plain, classes).unused
    }

    /// The number of patterns in the class of index `index`.
    #[must_use]
    pub fn class_size_at(&self, plain: &KPuzzle, classes: &impl Symmetries, index: u64) -> u64 {
        let scan = self.scan(plain, classes);
        match scan.symmetric.binary_search_by_key(&index, |&(i, _)| i) {
            Ok(k) => scan.symmetric[k].1,
            Err(_) => classes.size_of(1, 1),
        }
    }

    /// The indices of the classes with fewer positions than symmetries, sorted.
    #[must_use]
    pub fn symmetric_indices(&self, plain: &KPuzzle, classes: &impl Symmetries) -> Vec<u64> {
        self.scan(plain, classes)
            .symmetric
            .iter()
            .map(|&(i, _)| i)
            .collect()
    }

    /// Positions per depth from classes per depth: every class holds one position per
    /// symmetry (per symmetry up to rotation) but the symmetric ones, which the scan
    /// lists.
    #[must_use]
    pub fn positions_by_depth(
        &self,
        plain: &KPuzzle,
        classes: &impl Symmetries,
        classes_by_depth: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Vec<u128> {
        let full = u128::from(classes.size_of(1, 1));
        let mut by_depth: Vec<u128> = classes_by_depth
            .iter()
            .map(|&c| u128::from(c) * full)
            .collect();
        for &(index, size) in &self.scan(plain, classes).symmetric {
            if let Some(d) = depth_of(index) {
                by_depth[d as usize] -= full - u128::from(size);
            }
        }
        by_depth
    }
}

/// The small and large digits: every digit small where all fit, else the largest
/// groups that fit together (at least one), a group being digits the symmetries
/// permute among themselves (`sources[k][j]`).
fn split(digits: &[Digit<'_>], sources: &[Vec<usize>]) -> Option<(Vec<Place>, Vec<Place>)> {
    let places: Vec<Place> = digits
        .iter()
        .enumerate()
        .map(|(digit, d)| Place {
            part: d.part,
            digit,
            size: d.size,
        })
        .collect();
    let total = places
        .iter()
        .try_fold(1u64, |acc, p| acc.checked_mul(p.size));
    if total.is_some_and(|t| t <= small_limit()) {
        return Some((places, Vec::new()));
    }
    // Groups: the digits joined by some symmetry.
    let mut group: Vec<usize> = (0..digits.len()).collect();
    for by_digit in sources {
        for (j, &from) in by_digit.iter().enumerate() {
            let (a, b) = (group[j], group[from]);
            if a != b {
                group.iter_mut().filter(|g| **g == b).for_each(|g| *g = a);
            }
        }
    }
    let mut groups: Vec<(u64, usize)> = Vec::new();
    for g in 0..digits.len() {
        let members = places.iter().filter(|p| group[p.digit] == g);
        if let Some(values) = members
            .map(|p| p.size)
            .try_fold(1u64, |acc, s| acc.checked_mul(s))
            .filter(|_| group.contains(&g))
        {
            groups.push((values, g));
        }
    }
    groups.sort_by_key(|&(values, g)| (std::cmp::Reverse(values), g));
    let mut chosen = vec![false; digits.len()];
    let mut values = 1u64;
    for (size, g) in groups {
        if let Some(v) = values.checked_mul(size)
            && v <= small_limit()
        {
            values = v;
            (0..digits.len())
                .filter(|&j| group[j] == g)
                .for_each(|j| chosen[j] = true);
        }
    }
    if values == 1 {
        return None;
    }
    let (small, large) = places.into_iter().partition(|p| chosen[p.digit]);
    Some((small, large))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::Puzzle;
    use crate::analysis::analyze;
    use crate::driver::Control;
    use crate::puzzles::kpuzzle::library::{self, Twisty};

    thread_local! {
        /// Overrides [`MAX_SMALL_VALUES`] on this thread.
        pub(super) static SMALL_LIMIT: Cell<Option<u64>> = const { Cell::new(None) };
        /// Overrides whether tables pay, on this thread.
        pub(super) static TABLES: Cell<Option<bool>> = const { Cell::new(None) };
        /// Turns the masks of two kinds off, on this thread.
        pub(super) static NO_MASKS: Cell<bool> = const { Cell::new(false) };
    }

    #[test]
    fn two_kinds_as_masks_and_as_patterns() {
        let by_masks = opened("4x4x4-centres", None, None);
        NO_MASKS.with(|m| m.set(true));
        let by_patterns = opened("4x4x4-centres", None, None);
        NO_MASKS.with(|m| m.set(false));
        let (a, b) = (
            by_masks.pattern_index().unwrap(),
            by_patterns.pattern_index().unwrap(),
        );
        assert!(a.masks.is_some() && b.masks.is_none());
        assert_eq!(a.representatives.len(), 23_715);
        assert_eq!(a.representatives, b.representatives);
        assert_eq!(a.class_of, b.class_of);
        assert_eq!(a.to_representative, b.to_representative);
        assert_eq!(a.stabilisers, b.stabilisers);
        let all: Vec<u64> = (0..a.index_count()).collect();
        let mut neighbours = Vec::new();
        a.expand_dense(&by_masks, &all, |_, n| neighbours.extend_from_slice(n));
        let mut expected = Vec::new();
        b.expand_dense(&by_patterns, &all, |_, n| expected.extend_from_slice(n));
        assert_eq!(neighbours, expected);
    }

    /// The Pyraminx with its edges in three kinds, opposite edges alike (a
    /// symmetry of the tetrahedron permutes the pairs), in a file of its own.
    fn pyraminx_pairs() -> (std::path::PathBuf, String) {
        let dir = std::env::temp_dir().join(format!("antipode-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pyraminx-pairs.kpuzzle.json");
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/puzzles/kpuzzle/library/pyraminx.kpuzzle.json"
        ))
        .unwrap()
        .replacen(
            "\"pieces\": [0, 1, 2, 3, 4, 5]",
            "\"pieces\": [0, 1, 2, 2, 1, 0]",
            1,
        );
        assert!(text.contains("[0, 1, 2, 2, 1, 0]"));
        std::fs::write(&path, text).unwrap();
        let name = path.display().to_string();
        (dir, name)
    }

    fn opened(name: &str, small: Option<u64>, tables: Option<bool>) -> KPuzzle {
        SMALL_LIMIT.with(|l| l.set(small));
        TABLES.with(|t| t.set(tables));
        let opened = library::open_any(&format!("{name} --symmetry"));
        SMALL_LIMIT.with(|l| l.set(None));
        TABLES.with(|t| t.set(None));
        match opened.unwrap() {
            Twisty::Plain(p) => *p,
            Twisty::Classes(_) => panic!("{name}: distinct pieces"),
        }
    }

    /// The scan by cycles ([`PatternIndex::scan_symmetric`]) finds what a scan of
    /// every large part finds, in the splits of the Pyraminx with paired edges that
    /// have a large part (twists, kinds relabelled), by table and by pattern.
    #[test]
    fn the_fixed_parts_by_cycles_are_those_of_a_scan_of_every_part() {
        let (dir, name) = pyraminx_pairs();
        for (small, tables) in [
            (Some(100), Some(true)),
            (Some(100), Some(false)),
            (Some(6000), Some(false)),
        ] {
            let p = opened(&name, small, tables);
            let classes = p.pattern_classes().unwrap();
            let index = classes.index().unwrap();
            let by_cycles = index.scan_symmetric(&p, classes);
            let mut every = Scan::default();
            for class in 0..index.representatives.len() as u32 {
                if index.stabiliser(class).len() > 1 {
                    index.scan_every_large_value(&p, classes, class, &mut every);
                }
            }
            assert!(every.unused > 0 && !every.symmetric.is_empty());
            assert_eq!(by_cycles.unused, every.unused, "small {small:?}");
            assert_eq!(by_cycles.symmetric, every.symmetric, "small {small:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The 3-colour cube's tight index (3,393 corner classes times 70,963,200 edge
    /// parts) owns one slot per class: B. Norskog's 226,331,259,372 (2011), by the
    /// scan by cycles (a scan of every edge part of each symmetric corner class would
    /// unrank billions of patterns).
    #[test]
    fn the_three_colour_cube_owns_one_slot_per_class() {
        let p = opened("3x3x3-three-colour", None, None);
        assert_eq!(p.index_count(), 240_778_137_600);
        assert_eq!(p.index_count() - p.never_reached(), 226_331_259_372);
    }

    #[test]
    fn every_split_finds_the_plain_positions() {
        let (dir, name) = pyraminx_pairs();
        let plain = library::open_any(&name).unwrap();
        let Twisty::Plain(plain) = plain else {
            panic!()
        };
        let expected: Vec<u128> = analyze(&*plain, 0, &Control::default())
            .unwrap()
            .histogram
            .iter()
            .map(|&n| n as u128)
            .collect();
        // Dense; the centres small (81 values, four digits a symmetry permutes) and the
        // edges large; the edges small and the centres four large digits; each by
        // table and by pattern.
        let splits = [
            (None, None, 0),
            (Some(100), Some(true), 1),
            (Some(100), Some(false), 1),
            (Some(6000), Some(true), 4),
            (Some(6000), Some(false), 4),
        ];
        for (small, tables, large_digits) in splits {
            let p = opened(&name, small, tables);
            let classes = p.pattern_classes().unwrap();
            let index = classes.index().expect("a tight index");
            let what = format!("small {small:?}, tables {tables:?}");
            assert_eq!(index.large.len(), large_digits, "{what}");
            assert_eq!(index.has_tables(), tables == Some(true), "{what}");
            let a = analyze(&p, 0, &Control::default()).unwrap();
            let c = a.classes.as_ref().unwrap();
            assert_eq!(c.positions_by_depth, expected, "{what}");
            assert_eq!(c.burnside_classes, a.reachable as u128, "{what}");
            // Slots known unused: not their class's own (half the edges' flips are
            // not reached either: the index does not know the twist sum).
            let unused = p.never_reached();
            assert!(a.indices - a.reachable >= unused, "{what}");
            assert_eq!(unused == 0, small.is_none(), "{what}");
            // Every symmetry's image of a position has its index, and the index's
            // representative ranks back to it.
            let mut pattern = p.goal().clone();
            let mut image = pattern.clone();
            let mut seed = 11u64;
            for _ in 0..200 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                pattern = p.apply(&pattern, (seed >> 33) as usize % p.turns().len());
                let rank = p.rank(&pattern);
                assert_eq!(p.rank(&p.unrank(rank)), rank, "{what}");
                for k in 0..classes.count() {
                    classes.image_into(&pattern, k, &mut image);
                    assert_eq!(p.rank(&image), rank, "{what}: symmetry {k}");
                }
            }
            // The expansion by table or by pattern gives the successors' indices.
            let sample: Vec<u64> = (0..p.index_count()).step_by(3).collect();
            let mut by_index = Vec::new();
            p.expand_sorted(&sample, |i, n| by_index.push((i, n.to_vec())));
            // The bottom-up question by table or by pattern: the indices next to
            // the goal's.
            let goal = p.rank(p.goal());
            let mut next_to_goal = Vec::new();
            p.expand_until_hit(&sample, |n| n == goal, |_| {}, |i| next_to_goal.push(i));
            let expected: Vec<u64> = by_index
                .iter()
                .filter(|(_, n)| n.contains(&goal))
                .map(|&(i, _)| i)
                .collect();
            assert_eq!(next_to_goal, expected, "{what}");
            for (i, neighbours) in by_index {
                let state = p.unrank(i);
                if p.rank(&state) != i {
                    assert!(neighbours.is_empty(), "{what}: slot {i} is no class's");
                    continue;
                }
                let each: Vec<u64> = (0..p.turns().len())
                    .map(|t| p.rank(&p.apply(&state, t)))
                    .collect();
                assert_eq!(neighbours, each, "{what}: index {i}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
