//! The small part of a class index: every value the moves reach, numbered
//! ([`SmallPart::enumerate`]), and those values' classes under the symmetries with
//! each class's representative and stabiliser ([`SmallClasses::classify`]).

use super::super::KPuzzleError;
use super::super::definition::Transformation;
use super::MAX_SMALL_PART;
use super::geometry::{Geometry, add_twists};
use super::key_table::KeyTable;
use super::split::{Acts, Split};

/// Values whose neighbours' keys are computed together, then looked up with the
/// slot of the key `AHEAD` places on prefetched.
const BATCH: usize = 16;
const AHEAD: usize = 12;

/// Every value of the small part the moves reach, numbered in the order a
/// breadth-first search meets them, and the moves' table over them.
#[derive(Debug, Clone)]
pub(super) struct SmallPart {
    /// The number of each value, by its key ([`Split::key`]).
    ids: KeyTable,
    /// Per value: its pieces and twists over all compact positions (the large
    /// part's entries as solved).
    pieces: Vec<u8>,
    twists: Vec<u8>,
    /// Per value and move: the value the move takes it to.
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
        let n = geometry.compact.len();
        let mut ids = KeyTable::with_capacity(expected);
        let mut table = crate::sys::huge_vec(expected * geometry.moves.len());
        let identity = Transformation::identity(n);
        let mut keys = Vec::with_capacity(expected);
        keys.push(split.key(&identity.permutation, &identity.delta));
        ids.get_or_insert(keys[0], 0);
        let (mut pieces, mut twists) = (vec![0u8; n], vec![0u8; n]);
        let (mut after_pieces, mut after_twists) = (vec![0u8; n], vec![0u8; n]);
        let moduli = &geometry.compact.moduli;
        let mut neighbours = Vec::with_capacity(BATCH * geometry.moves.len());
        let mut next = 0;
        // In the order a breadth-first search meets them: the values of a batch are
        // numbered in turn, and each value's neighbours in the moves' order.
        while next < keys.len() {
            neighbours.clear();
            let batch_end = keys.len().min(next + BATCH);
            for &key in &keys[next..batch_end] {
                split.unkey(key, &mut pieces, &mut twists);
                for m in &geometry.moves {
                    for i in 0..n {
                        let from = m.permutation[i] as usize;
                        after_pieces[i] = pieces[from];
                        after_twists[i] = add_twists(twists[from], m.delta[i], moduli[i]);
                    }
                    neighbours.push(split.key(&after_pieces, &after_twists));
                }
            }
            next = batch_end;
            for &key in &neighbours[..AHEAD.min(neighbours.len())] {
                ids.prefetch(key);
            }
            for (j, &key) in neighbours.iter().enumerate() {
                if let Some(&ahead) = neighbours.get(j + AHEAD) {
                    ids.prefetch(ahead);
                }
                let count = keys.len() as u32;
                let id = ids.get_or_insert(key, count);
                if id == count {
                    if keys.len() == MAX_SMALL_PART {
                        return Err(KPuzzleError::Option(format!(
                            "symmetry classes: the enumerated part has more than {MAX_SMALL_PART} values"
                        )));
                    }
                    keys.push(key);
                }
                table.push(id);
            }
        }
        let mut small = SmallPart {
            ids,
            pieces: vec![0; keys.len() * n],
            twists: vec![0; keys.len() * n],
            moves: table,
            n,
        };
        for (s, &key) in keys.iter().enumerate() {
            split.unkey(key, &mut pieces, &mut twists);
            small.pieces[s * n..][..n].copy_from_slice(&pieces);
            small.twists[s * n..][..n].copy_from_slice(&twists);
        }
        Ok(small)
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.pieces.len() / self.n.max(1)
    }

    /// Value `s`'s pieces and twists.
    pub fn value(&self, s: u32) -> (&[u8], &[u8]) {
        let at = s as usize * self.n;
        (&self.pieces[at..at + self.n], &self.twists[at..at + self.n])
    }

    /// Value `s` as a transformation (the large part's entries as solved).
    pub fn state(&self, s: u32) -> Transformation {
        let at = s as usize * self.n;
        Transformation {
            permutation: self.pieces[at..at + self.n].to_vec(),
            delta: self.twists[at..at + self.n].to_vec(),
        }
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
        let moduli = &geometry.compact.moduli;
        let inverse_index = inverse_symmetries(geometry);
        let inverses: Vec<Transformation> = geometry
            .symmetries
            .iter()
            .map(|s| s.s.inverse(moduli))
            .collect();
        let g = geometry.symmetries.len();
        let n = geometry.compact.len();
        let mut scratch = (vec![0u8; n], vec![0u8; n]);
        let mut image = (vec![0u8; n], vec![0u8; n]);
        let mut representatives = Vec::new();
        let mut stabiliser_of = Vec::new();
        let mut stabilisers = Acts::new(k);
        let mut symmetric = Vec::new();
        // Candidates (values not yet in a class) in batches: their images' keys are
        // computed and prefetched together, then taken in order, a candidate that an
        // earlier one's class took skipped, as one by one.
        let mut batch = Vec::with_capacity(BATCH);
        let mut images = Vec::with_capacity(BATCH * g);
        let mut next = 0;
        while next < count {
            batch.clear();
            images.clear();
            while next < count && batch.len() < BATCH {
                if class[next] == u32::MAX {
                    batch.push(next);
                    let x = small.value(next as u32);
                    for sym in 0..g {
                        geometry.act_into(sym, &inverses, x, &mut scratch, &mut image);
                        // The key leaves the large part out.
                        let key = split.key(&image.0, &image.1);
                        small.ids.prefetch(key);
                        images.push(key);
                    }
                }
                next += 1;
            }
            for (&s, keys) in batch.iter().zip(images.chunks(g.max(1))) {
                if class[s] != u32::MAX {
                    continue;
                }
                let c = representatives.len() as u32;
                representatives.push(s as u32);
                let mut stabiliser = Vec::new();
                for (sym, (&key, &inverse)) in keys.iter().zip(&inverse_index).enumerate() {
                    let t = small.ids.get(key).expect("a value the moves reach") as usize;
                    if t == s {
                        stabiliser.push(sym as u16);
                    }
                    if class[t] == u32::MAX {
                        class[t] = c;
                        to_rep[t] = inverse;
                    }
                }
                let start = stabilisers.from.len() / k.max(1);
                let x = small.state(s as u32);
                for &sym in &stabiliser[1..] {
                    geometry.push_act(split, &mut stabilisers, sym as usize, &x);
                }
                stabiliser_of.push((start as u32, (stabiliser.len() - 1) as u32));
                if stabiliser.len() > 1 {
                    symmetric.push((c, stabiliser));
                }
            }
        }
        let mut acts = Acts::with_capacity(k, if k > 0 { count } else { 0 });
        if k > 0 {
            for (s, &sym) in to_rep.iter().enumerate() {
                geometry.push_act(split, &mut acts, sym as usize, &small.state(s as u32));
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
