//! The small part of a class index: every value the moves reach, numbered
//! ([`SmallPart::enumerate`]), and those values' classes under the symmetries with
//! each class's representative and stabiliser ([`SmallClasses::classify`]).
//!
//! Both work on the values' keys ([`Split::key`]): a move's or a symmetry's image of a
//! key is put together field by field from small tables ([`KeyScratch`],
//! [`SymmetryKeys`]; a move's only where it changes the key), and the numbering
//! neither puts together nor looks up the neighbours it knows are numbered already
//! ([`parent_knows`]). What is left is mostly waiting for the key table's memory.

use super::super::KPuzzleError;
use super::super::definition::Transformation;
use super::MAX_SMALL_PART;
use super::geometry::{Geometry, KeyScratch, SymmetryKeys};
use super::key_table::KeyTable;
use super::split::{Acts, Split};
use rayon::prelude::*;

/// Values whose neighbours' keys are computed together, then looked up with the
/// slot of the key `AHEAD` places on prefetched.
const BATCH: usize = 16;
const AHEAD: usize = 12;

/// The most values [`SmallPart::enumerate`] expands in one round on the pool.
const ROUND: usize = 1 << 14;

/// The most candidates [`SmallClasses::classify`] takes the images of in one round on
/// the pool.
const CLASSIFY_ROUND: usize = 1 << 10;

/// Every value of the small part the moves reach, numbered in the order a
/// breadth-first search meets them, and the moves' table over its classes'
/// representatives (the searches move nothing else).
#[derive(Debug, Clone)]
pub(super) struct SmallPart {
    /// The number of each value, by its key ([`Split::key`]).
    ids: KeyTable,
    /// Per value: its key, which holds its pieces and twists ([`Split::unkey`]).
    keys: Vec<u64>,
    /// Per class (of [`SmallClasses`]) and move: the value the move takes the class's
    /// representative to; empty until [`SmallPart::move_representatives`].
    pub moves: Vec<u32>,
    /// Compact positions per value.
    n: usize,
}

impl SmallPart {
    /// The values of `split`'s small part that `geometry`'s moves reach, about
    /// `expected` of them.
    ///
    /// # Errors
    /// [`KPuzzleError`] past [`MAX_SMALL_PART`] values.
    pub fn enumerate(
        geometry: &Geometry,
        split: &Split,
        expected: usize,
    ) -> Result<SmallPart, KPuzzleError> {
        let tracked = geometry.moves.len() < NO_PARENT as usize;
        SmallPart::enumerate_tracking(geometry, split, expected, tracked)
    }

    /// [`SmallPart::enumerate`], with each value's first move `tracked` or not.
    pub(super) fn enumerate_tracking(
        geometry: &Geometry,
        split: &Split,
        expected: usize,
        tracked: bool,
    ) -> Result<SmallPart, KPuzzleError> {
        let n = geometry.compact.len();
        let mut ids = KeyTable::with_capacity(expected, split.key_bits());
        let identity = Transformation::identity(n);
        let mut keys = Vec::with_capacity(expected);
        keys.push(split.key(&identity.permutation, &identity.delta));
        ids.get_or_insert(keys[0], 0);
        let moves = geometry.moves.len();
        // Per round: each value's neighbours' keys; per chunk of BATCH values, those
        // not numbered at the round's start moved to the chunk's front, with their
        // moves, and their count.
        let (mut neighbours, mut moved_by, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        let mut unknown = Vec::new();
        // Per value, the move that first reached it: its neighbours by some moves
        // are numbered already ([`parent_knows`]).
        let parent_knows = parent_knows(geometry, tracked);
        let mut first_move = Vec::with_capacity(expected);
        first_move.push(NO_PARENT);
        let scratch = KeyScratch::new(geometry, split);
        let chunk = BATCH * moves;
        let mut next = 0;
        // In the order a breadth-first search meets them: the values of a round are
        // numbered in turn, and each value's neighbours in the moves' order. Which
        // neighbours are numbered already is asked on the pool (nothing writes then);
        // the others are numbered one by one, in that order.
        while next < keys.len() {
            let end = keys.len().min(next + ROUND);
            let values = &keys[next..end];
            neighbours.resize(values.len() * moves, 0);
            moved_by.resize(values.len() * moves, 0u16);
            counts.resize(values.len().div_ceil(BATCH), 0usize);
            neighbours
                .par_chunks_mut(chunk)
                .zip(moved_by.par_chunks_mut(chunk))
                .zip(counts.par_iter_mut())
                .zip(values.par_chunks(BATCH))
                .zip(first_move[next..end].par_chunks(BATCH))
                .for_each(|((((neighbours, moved_by), count), values), first_moves)| {
                    let knows = |first: u8| &parent_knows[first as usize * moves..][..moves];
                    let rows = neighbours
                        .chunks_mut(moves)
                        .zip(values.iter().zip(first_moves));
                    for (row, (&key, &first)) in rows {
                        // The neighbours the parent knows are neither put
                        // together nor looked up.
                        geometry.key_neighbours(key, &scratch, knows(first), row);
                        for (&key, &known) in row.iter().zip(knows(first)) {
                            if !known {
                                ids.prefetch(key);
                            }
                        }
                    }
                    // In place: an entry moves only towards the front.
                    let mut kept = 0;
                    for (v, &first) in first_moves.iter().enumerate() {
                        for (m, &known) in knows(first).iter().enumerate() {
                            let key = neighbours[v * moves + m];
                            if !known && ids.get(key).is_none() {
                                neighbours[kept] = key;
                                moved_by[kept] = m as u16;
                                kept += 1;
                            }
                        }
                    }
                    *count = kept;
                });
            next = end;
            unknown.clear();
            for (c, &count) in counts.iter().enumerate() {
                unknown.extend(c * chunk..c * chunk + count);
            }
            for &at in &unknown[..AHEAD.min(unknown.len())] {
                ids.prefetch(neighbours[at]);
            }
            for (j, &at) in unknown.iter().enumerate() {
                if let Some(&ahead) = unknown.get(j + AHEAD) {
                    ids.prefetch(neighbours[ahead]);
                }
                let (key, by) = (neighbours[at], moved_by[at]);
                let count = keys.len() as u32;
                let id = ids.get_or_insert(key, count);
                if id == count {
                    if keys.len() == MAX_SMALL_PART {
                        return Err(KPuzzleError::Option(format!(
                            "symmetry classes: the enumerated part has more than {MAX_SMALL_PART} values"
                        )));
                    }
                    keys.push(key);
                    first_move.push(if tracked { by as u8 } else { NO_PARENT });
                }
            }
        }
        Ok(SmallPart {
            ids,
            keys,
            moves: Vec::new(),
            n,
        })
    }

    /// Fills [`SmallPart::moves`]: each representative's neighbours by `geometry`'s
    /// moves, in the moves' order, looked up on the pool a batch at a time with their
    /// slots prefetched.
    pub fn move_representatives(
        &mut self,
        geometry: &Geometry,
        split: &Split,
        representatives: &[u32],
    ) {
        let moves = geometry.moves.len();
        let scratch = KeyScratch::new(geometry, split);
        let same_as = same_as(geometry);
        let repeated: Vec<bool> = same_as.iter().map(|&m| m != NO_MOVE).collect();
        let mut table = crate::sys::huge_vec(representatives.len() * moves);
        table.resize(representatives.len() * moves, 0u32);
        table
            .par_chunks_mut(BATCH * moves)
            .zip(representatives.par_chunks(BATCH))
            .for_each_init(
                || vec![0u64; BATCH * moves],
                |keys, (table, representatives)| {
                    for (row, &s) in keys.chunks_mut(moves).zip(representatives) {
                        geometry.key_neighbours(self.key(s), &scratch, &repeated, row);
                        for (&key, &m) in row.iter().zip(&same_as) {
                            if m == NO_MOVE {
                                self.ids.prefetch(key);
                            }
                        }
                    }
                    let rows = table.chunks_mut(moves).zip(keys.chunks(moves));
                    for (ids, keys) in rows {
                        for m in 0..ids.len() {
                            ids[m] = match same_as[m] {
                                NO_MOVE => self.ids.get(keys[m]).expect("a value the moves reach"),
                                earlier => ids[earlier as usize],
                            };
                        }
                    }
                },
            );
        self.moves = table;
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Value `s`'s key ([`Split::key`]).
    pub fn key(&self, s: u32) -> u64 {
        self.keys[s as usize]
    }

    /// Value `s`'s pieces and twists into `pieces` and `twists`.
    pub fn value_into(&self, split: &Split, s: u32, pieces: &mut [u8], twists: &mut [u8]) {
        split.unkey(self.key(s), pieces, twists);
    }

    /// Value `s` as a transformation (the large part's entries as solved).
    pub fn state(&self, split: &Split, s: u32) -> Transformation {
        let mut x = Transformation::identity(self.n);
        self.value_into(split, s, &mut x.permutation, &mut x.delta);
        x
    }

    /// Whether the moves reach the small part `y`.
    pub fn contains(&self, split: &Split, y: &Transformation) -> bool {
        self.ids.get(split.key(&y.permutation, &y.delta)).is_some()
    }

    /// The number of the small part `y` (the large part's entries as solved).
    pub fn id(&self, split: &Split, y: &Transformation) -> u32 {
        self.ids
            .get(split.key(&y.permutation, &y.delta))
            .expect("a value the moves reach")
    }
}

/// A value's first move ([`SmallPart::enumerate`]) where it has none: the goal, or
/// puzzles of too many moves to keep them.
const NO_PARENT: u8 = u8::MAX;

/// Per first move `m` (and [`NO_PARENT`]) and move `m'`, whether `m` then `m'` is a
/// move or no move: then a value reached by `m` from a value numbered before it has its
/// neighbour by `m'` numbered already (that value's neighbour, or that value), and
/// [`SmallPart::enumerate`] need not look it up. On a cube: the other turns of the
/// same face, a third of the look-ups.
///
/// A move equal to an earlier one (under a frame, the turn of the face that holds the
/// reference piece is the opposite face's) is known by every value: its neighbour is
/// the earlier move's, numbered by then.
fn parent_knows(geometry: &Geometry, tracked: bool) -> Vec<bool> {
    let moves = &geometry.moves;
    let moduli = &geometry.compact.moduli;
    let identity = Transformation::identity(geometry.compact.len());
    let same_as = same_as(geometry);
    let mut knows = vec![false; (NO_PARENT as usize + 1) * moves.len()];
    if !tracked {
        return knows;
    }
    for (first, row) in knows.chunks_mut(moves.len()).enumerate() {
        for ((then, move_then), knows) in moves.iter().enumerate().zip(row) {
            *knows = same_as[then] != NO_MOVE;
            if let Some(move_first) = moves.get(first) {
                let both = move_first.then(move_then, moduli);
                *knows |= both == identity || moves.contains(&both);
            }
        }
    }
    knows
}

/// [`same_as`] for a move equal to no earlier one.
const NO_MOVE: u16 = u16::MAX;

/// Per move, the first earlier move equal to it (the same neighbour of every value),
/// or [`NO_MOVE`].
fn same_as(geometry: &Geometry) -> Vec<u16> {
    let moves = &geometry.moves;
    (0..moves.len())
        .map(|m| {
            moves[..m]
                .iter()
                .position(|earlier| *earlier == moves[m])
                .map_or(NO_MOVE, |earlier| earlier as u16)
        })
        .collect()
}

/// The small part's values in classes under the symmetries: per value its class and
/// the act of its symmetry to the representative on the large part; per class its
/// representative and stabiliser.
#[derive(Debug, Clone)]
pub(super) struct SmallClasses {
    /// Per small value: its class.
    pub class: Vec<u32>,
    /// Per small value: how its symmetry to the representative acts on `b`.
    pub acts: Acts,
    /// Per class: its representative small value.
    pub representatives: Vec<u32>,
    /// Per class: where its stabiliser's acts (other than the identity) start in
    /// `stabilisers`, and how many.
    pub stabiliser_of: Vec<(u32, u32)>,
    pub stabilisers: Acts,
    /// The classes whose stabiliser holds more than the identity, each with its
    /// symmetries (indices), the identity first.
    pub symmetric: Vec<(u32, Vec<u16>)>,
}

impl SmallClasses {
    /// Classes of the small part, each value's symmetry to its representative, and
    /// the representatives' stabilisers. The moves as the symmetries conjugate them
    /// (before a frame holds a piece, `geometry.unheld_moves`) tell the symmetries'
    /// actions apart.
    pub fn classify(geometry: &Geometry, split: &Split, small: &SmallPart) -> SmallClasses {
        let count = small.len().max(1);
        let k = split.large_positions.len();
        let mut class = crate::sys::huge_vec(count);
        class.resize(count, u32::MAX);
        let mut to_rep = vec![0u16; count];
        let inverse_index = inverse_symmetries(geometry);
        let imager = Imager::new(geometry, split, small);
        let g = geometry.symmetries.len();
        let mut representatives = Vec::new();
        let mut stabiliser_of = Vec::new();
        let mut stabilisers = Acts::new(k);
        let mut symmetric = Vec::new();
        // Candidates (values not yet in a class) in rounds: their images are numbered
        // on the pool, then taken in order, a candidate that an earlier one's class
        // took skipped, as one by one.
        let mut batch = Vec::with_capacity(CLASSIFY_ROUND);
        let mut images = Vec::with_capacity(CLASSIFY_ROUND * g);
        let mut stabiliser = Vec::with_capacity(g);
        let mut next = 0;
        while next < count {
            batch.clear();
            while next < count && batch.len() < CLASSIFY_ROUND {
                if class[next] == u32::MAX {
                    batch.push(next as u32);
                }
                next += 1;
            }
            images.resize(batch.len() * g, 0u32);
            imager.number_images(&batch, &mut images);
            for (&s, ids) in batch.iter().zip(images.chunks(g.max(1))) {
                let s = s as usize;
                if class[s] != u32::MAX {
                    continue;
                }
                let c = representatives.len() as u32;
                representatives.push(s as u32);
                stabiliser.clear();
                for (sym, (&t, &inverse)) in ids.iter().zip(&inverse_index).enumerate() {
                    let t = t as usize;
                    if t == s {
                        stabiliser.push(sym as u16);
                    }
                    if class[t] == u32::MAX {
                        class[t] = c;
                        to_rep[t] = inverse;
                    }
                }
                let start = stabilisers.len();
                if stabiliser.len() > 1 {
                    let x = small.state(split, s as u32);
                    for &sym in &stabiliser[1..] {
                        geometry.push_act(split, &mut stabilisers, sym as usize, &x);
                    }
                }
                stabiliser_of.push((start as u32, (stabiliser.len() - 1) as u32));
                if stabiliser.len() > 1 {
                    symmetric.push((c, stabiliser.clone()));
                }
            }
        }
        let mut acts = Acts::with_capacity(k, if k > 0 { count } else { 0 });
        if k > 0 {
            for (s, &sym) in to_rep.iter().enumerate() {
                geometry.push_act(
                    split,
                    &mut acts,
                    sym as usize,
                    &small.state(split, s as u32),
                );
            }
        }
        SmallClasses {
            class,
            acts,
            representatives,
            stabiliser_of,
            stabilisers,
            symmetric,
        }
    }
}

/// What numbers the images of the small part's values under the symmetries.
struct Imager<'a> {
    geometry: &'a Geometry,
    split: &'a Split,
    small: &'a SmallPart,
    /// The images' keys by table, where the geometry has them.
    symmetry_keys: Option<SymmetryKeys>,
    /// The symmetries' transformations inverted.
    inverses: Vec<Transformation>,
}

impl<'a> Imager<'a> {
    fn new(geometry: &'a Geometry, split: &'a Split, small: &'a SmallPart) -> Imager<'a> {
        Imager {
            geometry,
            split,
            small,
            symmetry_keys: SymmetryKeys::new(geometry, split),
            inverses: geometry.inverses(),
        }
    }

    /// The numbers of the images of the values `batch` into `images`, per value one
    /// per symmetry: on the pool, a batch of values at a time with their slots
    /// prefetched.
    fn number_images(&self, batch: &[u32], images: &mut [u32]) {
        let (geometry, split, small) = (self.geometry, self.split, self.small);
        let g = geometry.symmetries.len();
        let n = geometry.compact.len();
        images
            .par_chunks_mut(BATCH * g)
            .zip(batch.par_chunks(BATCH))
            .for_each_init(
                || {
                    let value = (vec![0u8; n], vec![0u8; n]);
                    let scratch = (vec![0u8; n], vec![0u8; n]);
                    let image = (vec![0u8; n], vec![0u8; n]);
                    (value, scratch, image, vec![0u64; BATCH * g])
                },
                |(value, scratch, image, keys), (images, batch)| {
                    let keys = &mut keys[..images.len()];
                    for (row, &s) in keys.chunks_mut(g.max(1)).zip(batch) {
                        if let Some(symmetry_keys) = &self.symmetry_keys {
                            let x = small.key(s);
                            for (sym, key) in row.iter_mut().enumerate().skip(1) {
                                *key = symmetry_keys.image(sym, x);
                                small.ids.prefetch(*key);
                            }
                        } else {
                            small.value_into(split, s, &mut value.0, &mut value.1);
                            let x = (&value.0[..], &value.1[..]);
                            for (sym, key) in row.iter_mut().enumerate().skip(1) {
                                geometry.act_into(sym, &self.inverses, x, scratch, image);
                                // The key leaves the large part out.
                                *key = split.key(&image.0, &image.1);
                                small.ids.prefetch(*key);
                            }
                        }
                    }
                    let rows = images
                        .chunks_mut(g.max(1))
                        .zip(keys.chunks(g.max(1)))
                        .zip(batch);
                    for ((ids, keys), &s) in rows {
                        // The first symmetry is the identity.
                        ids[0] = s;
                        for (id, &key) in ids.iter_mut().zip(keys).skip(1) {
                            *id = small.ids.get(key).expect("a value the moves reach");
                        }
                    }
                },
            );
    }
}

/// Per symmetry, the index of the symmetry acting as its inverse (the list holds one
/// symmetry per action, not necessarily the inverse transformation itself). The moves
/// as the symmetries conjugate them (before a frame holds a piece,
/// `geometry.unheld_moves`) tell the actions apart.
pub(super) fn inverse_symmetries(geometry: &Geometry) -> Vec<u16> {
    let moduli = &geometry.compact.moduli;
    let unheld_moves = &geometry.unheld_moves;
    let actions: Vec<Vec<u16>> = geometry
        .symmetries
        .iter()
        .map(|s| super::super::symmetry::move_permutation(s, unheld_moves, moduli))
        .collect();
    geometry
        .symmetries
        .iter()
        .map(|s| {
            let inverse =
                super::super::symmetry::move_permutation(&s.inverse(moduli), unheld_moves, moduli);
            actions
                .iter()
                .position(|a| *a == inverse)
                .expect("the actions form a group") as u16
        })
        .collect()
}
