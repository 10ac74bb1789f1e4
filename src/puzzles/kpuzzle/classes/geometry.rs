//! The symmetry group as it acts on a puzzle's compact positions: the positions kept,
//! the moves, the symmetries (conjugations, some with a mirror) and the frame that
//! brings a position home when positions are counted up to rotation.

use super::super::KPuzzle;
use super::super::definition::Transformation;
use super::super::symmetry::{Compact, Frame, Symmetry, reflect};
use super::split::{Acts, KeyField, Large, Split};

/// The compact positions, the moves over them and the symmetries acting on them.
#[derive(Debug, Clone)]
pub(super) struct Geometry {
    pub compact: Compact,
    /// The symmetries whose classes are indexed (the identity first).
    pub symmetries: Vec<Symmetry>,
    /// The order of the puzzle's own symmetry group: more than `symmetries` where
    /// they are the subgroup fixing a search's start ([`super::KClasses::fixing`]).
    pub puzzle_symmetries: usize,
    pub frame: Option<Frame>,
    /// The moves, restricted to the compact positions.
    pub moves: Vec<Transformation>,
    /// The moves as the symmetries conjugate them (before a frame holds a piece).
    pub unheld_moves: Vec<Transformation>,
    /// The number of positions: the order of the group the moves generate.
    pub order: u128,
}

/// What [`Geometry::key_neighbours`] works with: per move, the key fields it leaves
/// in place (a mask) and one step per compact position it changes (where the entry
/// comes from, what the move adds to its twist, where the key holds both:
/// [`Split::key_fields`]).
///
/// A move changes a few of the positions (a cube's face turn four corners of eight):
/// the rest of the neighbour's key is the value's own, copied under the mask.
///
/// Where they fit the cache ([`MAX_MOVE_KEY_ENTRIES`]), per changed position a table
/// gives the neighbour's field in place for each value of the field it comes from: one
/// load in place of the twist's sum and reduction.
#[derive(Clone)]
pub(super) struct KeyScratch {
    /// Per move: the key bits it keeps, and where its steps start and end.
    per_move: Vec<(u64, u32, u32)>,
    steps: Vec<KeyStep>,
    /// The steps' tables, one after another; empty where they would not fit.
    moved: Vec<u64>,
}

/// One compact position a move changes: where the key holds its entry's source
/// field, the twist the move adds (reduced; zero where the key holds no twist) and
/// the orbit's modulus, where the key holds the position's field, and where the
/// step's table starts.
#[derive(Debug, Clone, Copy)]
struct KeyStep {
    from_shift: u32,
    from_mask: u16,
    add: u16,
    modulus: u16,
    twist_mask: u16,
    shift: u32,
    offset: u32,
}

/// The most entries of [`KeyScratch`]'s tables (64 KiB: the first-level cache or the
/// second).
const MAX_MOVE_KEY_ENTRIES: usize = 1 << 13;

impl KeyStep {
    /// The source field's value in `key`.
    #[inline(always)]
    fn source(&self, key: u64) -> usize {
        (key >> self.from_shift) as usize & self.from_mask as usize
    }

    /// The field this step puts in place for `value`, its source's field.
    #[inline(always)]
    fn field(&self, value: u16) -> u64 {
        // Both below the modulus: one subtraction at most.
        let sum = (value & self.twist_mask) + self.add;
        let twist = if sum >= self.modulus {
            sum - self.modulus
        } else {
            sum
        };
        u64::from(value & !self.twist_mask | twist) << self.shift
    }
}

impl KeyScratch {
    pub fn new(geometry: &Geometry, split: &Split) -> KeyScratch {
        let fields = split.key_fields();
        let moduli = &geometry.compact.moduli;
        let mut per_move = Vec::with_capacity(geometry.moves.len());
        let mut steps = Vec::new();
        for m in &geometry.moves {
            let start = steps.len() as u32;
            let mut keep = 0u64;
            for (i, field) in fields.iter().enumerate() {
                let modulus = moduli[i].max(1) as u16;
                let add = if field.twist_mask == 0 {
                    0
                } else {
                    m.delta[i] as u16 % modulus
                };
                let from = m.permutation[i] as usize;
                if from == i && add == 0 {
                    keep |= field.mask << field.shift;
                    continue;
                }
                steps.push(KeyStep {
                    from_shift: fields[from].shift,
                    from_mask: fields[from].mask as u16,
                    add,
                    modulus,
                    twist_mask: field.twist_mask,
                    shift: field.shift,
                    offset: 0,
                });
            }
            per_move.push((keep, start, steps.len() as u32));
        }
        let mut scratch = KeyScratch {
            per_move,
            steps,
            moved: Vec::new(),
        };
        scratch.tabulate();
        scratch
    }

    /// The steps' tables, where they fit.
    fn tabulate(&mut self) {
        let entries: usize = self
            .steps
            .iter()
            .map(|step| step.from_mask as usize + 1)
            .sum();
        if entries > MAX_MOVE_KEY_ENTRIES {
            return;
        }
        for step in &mut self.steps {
            step.offset = self.moved.len() as u32;
            self.moved
                .extend((0..=step.from_mask).map(|value| step.field(value)));
        }
    }

    /// The same without the tables (each field summed and reduced).
    #[cfg(test)]
    pub fn untabulated(mut self) -> KeyScratch {
        self.moved.clear();
        self
    }
}

impl Geometry {
    /// The keys ([`Split::key`]) of the neighbours of the small part with key `key`,
    /// one per move in the moves' order, into `out`, except those of the moves `skip`
    /// marks (their entries left as they were): each key put together from the
    /// moved entries directly.
    #[inline]
    pub fn key_neighbours(&self, key: u64, scratch: &KeyScratch, skip: &[bool], out: &mut [u64]) {
        let KeyScratch {
            per_move,
            steps,
            moved,
        } = scratch;
        let moves = per_move.iter().zip(skip).zip(out);
        if moved.is_empty() {
            for ((&(keep, start, end), &skip), out) in moves {
                if !skip {
                    *out = steps[start as usize..end as usize]
                        .iter()
                        .fold(key & keep, |out, step| {
                            out | step.field(step.source(key) as u16)
                        });
                }
            }
        } else {
            for ((&(keep, start, end), &skip), out) in moves {
                if !skip {
                    *out = steps[start as usize..end as usize]
                        .iter()
                        .fold(key & keep, |out, step| {
                            out | moved[step.offset as usize + step.source(key)]
                        });
                }
            }
        }
    }

    /// `base`'s moves over `compact` and the group's order, with `symmetries` (the
    /// identity first), the moves before a frame holds a piece, and the frame.
    pub fn new(
        base: &KPuzzle,
        compact: Compact,
        symmetries: Vec<Symmetry>,
        unheld_moves: &[Transformation],
        frame: Option<Frame>,
    ) -> Geometry {
        let puzzle_symmetries = symmetries.len();
        let moves: Vec<Transformation> = base
            .turn_transformations()
            .iter()
            .map(|t| compact.restrict(t))
            .collect();
        let refs: Vec<&Transformation> = moves.iter().collect();
        let order = super::super::group::order(&refs, &compact.moduli);
        Geometry {
            compact,
            symmetries,
            puzzle_symmetries,
            frame,
            moves,
            unheld_moves: unheld_moves.to_vec(),
            order,
        }
    }

    /// `x` under symmetry `sym`, brought home in the frame: `rho · S⁻¹ · x · S`, and
    /// the left factor `rho · S⁻¹`.
    pub fn act(&self, sym: usize, x: &Transformation) -> (Transformation, Transformation) {
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

    /// The symmetries' transformations inverted ([`Geometry::act_into`]'s `inverses`).
    pub fn inverses(&self) -> Vec<Transformation> {
        let moduli = &self.compact.moduli;
        self.symmetries
            .iter()
            .map(|s| s.s.inverse(moduli))
            .collect()
    }

    /// [`Geometry::act`]'s position without allocating, for a position given by its
    /// `pieces` and `twists`: written to `out` (`scratch` holds the middle step).
    /// `inverses` are the symmetries' transformations inverted.
    pub fn act_into(
        &self,
        sym: usize,
        inverses: &[Transformation],
        (pieces, twists): (&[u8], &[u8]),
        scratch: &mut (Vec<u8>, Vec<u8>),
        out: &mut (Vec<u8>, Vec<u8>),
    ) {
        self.conjugate_into(sym, inverses, (pieces, twists), scratch, out);
        // ... and brought home.
        if let Some(frame) = &self.frame {
            let rho = frame.rotation_for_parts(&out.0, &out.1);
            then_into(
                rho.parts(),
                (&out.0, &out.1),
                self.compact.moduli.as_slice(),
                scratch,
            );
            std::mem::swap(scratch, out);
        }
    }

    /// [`Geometry::act_into`] before the frame brings the image home: `S⁻¹·x·S`.
    fn conjugate_into(
        &self,
        sym: usize,
        inverses: &[Transformation],
        (pieces, twists): (&[u8], &[u8]),
        scratch: &mut (Vec<u8>, Vec<u8>),
        out: &mut (Vec<u8>, Vec<u8>),
    ) {
        let moduli = &self.compact.moduli;
        let symmetry = &self.symmetries[sym];
        let (s, s_inverse) = (&symmetry.s, &inverses[sym]);
        // x, its twists turned the other way first under a mirror ...
        out.0.copy_from_slice(pieces);
        for ((o, &t), &m) in out.1.iter_mut().zip(twists).zip(moduli) {
            *o = match add_twists(t, 0, m) {
                t if symmetry.mirror && t > 0 => m - t,
                t => t,
            };
        }
        // ... after S⁻¹, then S ...
        then_into(s_inverse.parts(), (&out.0, &out.1), moduli, scratch);
        then_into((&scratch.0, &scratch.1), s.parts(), moduli, out);
    }

    /// The act of symmetry `sym` on the large part of positions whose small part is
    /// `x` (split by `split`), appended to `acts`.
    pub fn push_act(&self, split: &Split, acts: &mut Acts, sym: usize, x: &Transformation) {
        let k = split.large_positions.len();
        if k == 0 {
            return;
        }
        let first = split.large_positions[0];
        let (_, left) = self.act(sym, x);
        let s = &self.symmetries[sym].s;
        let m = split.large_modulus;
        let mut from = Vec::with_capacity(k);
        let mut add = Vec::with_capacity(k);
        let mut label = Vec::with_capacity(k);
        let mut label_twist = Vec::with_capacity(k);
        for (i, &p) in split.large_positions.iter().enumerate() {
            let j = s.permutation[p] as usize;
            from.push((j - first) as u8);
            match split.large {
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
}

/// `a` then `b` ([`Transformation::then`]) into `out`, without allocating.
fn then_into(a: (&[u8], &[u8]), b: (&[u8], &[u8]), moduli: &[u8], out: &mut (Vec<u8>, Vec<u8>)) {
    let (pieces, twists) = (out.0.iter_mut(), out.1.iter_mut());
    for ((((p, t), &from), &d), &m) in pieces.zip(twists).zip(b.0).zip(b.1).zip(moduli) {
        *p = a.0[from as usize];
        *t = add_twists(a.1[from as usize], d, m);
    }
}

/// `(a + b) mod m` (`m` 0 taken as 1) without a division where the twists are
/// already below `m`, as they are but for a definition's own numbers.
#[inline]
pub(super) fn add_twists(a: u8, b: u8, m: u8) -> u8 {
    let (sum, m) = (a as u16 + b as u16, m.max(1) as u16);
    (if sum < m {
        sum
    } else if sum < 2 * m {
        sum - m
    } else {
        sum % m
    }) as u8
}

/// The symmetries' images of small-part keys ([`Split::key`]), put together from the
/// key's fields by table: the conjugate's field at a compact position depends only on
/// the field of the position the symmetry brings there (`S⁻¹·x·S` relabels that one
/// entry's piece and twist), so per symmetry and position a table gives the
/// conjugate's field, in place, for each value of the source field. Under a frame, the
/// rotation that brings the conjugate home is read from one more table (it depends on
/// the reference position's entry alone), and the rotation relabels each field in
/// place by a table of its own. The tables are built by [`Geometry::act_into`]'s own
/// steps, one entry at a time.
pub(super) struct SymmetryKeys {
    /// Per symmetry, one term per compact position whose field the key holds.
    terms: Vec<KeyTerm>,
    /// How many compact positions' fields the key holds: the terms of one symmetry
    /// (and of one rotation).
    per_symmetry: usize,
    /// The terms' tables, one after another.
    table: Vec<u64>,
    /// Under a frame: per symmetry, the term whose table gives the index of the
    /// rotation that brings the conjugate home; per rotation, one term per held
    /// position (its own field) relabelling it.
    frame: Option<FrameKeys>,
}

/// [`SymmetryKeys`]' tables of a frame.
struct FrameKeys {
    rotation_terms: Vec<KeyTerm>,
    rotation_of: Vec<u16>,
    rotated_terms: Vec<KeyTerm>,
    rotated: Vec<u64>,
}

/// One position of a symmetry's image: where the source field sits in a key and
/// where its table starts.
#[derive(Debug, Clone, Copy)]
struct KeyTerm {
    shift: u32,
    mask: u64,
    offset: u32,
}

impl KeyTerm {
    #[inline(always)]
    fn at(&self, key: u64) -> usize {
        self.offset as usize + (key >> self.shift & self.mask) as usize
    }
}

/// Appends to `table` the entry of each value of `source`'s field, and to `terms` the
/// term that reads it.
fn tabulate<T>(
    terms: &mut Vec<KeyTerm>,
    table: &mut Vec<T>,
    source: KeyField,
    entry: impl FnMut(u64) -> T,
) {
    terms.push(KeyTerm {
        shift: source.shift,
        mask: source.mask,
        offset: table.len() as u32,
    });
    table.extend((0..=source.mask).map(entry));
}

/// The most entries [`SymmetryKeys`] tabulates over all symmetries (2 MiB), so that its
/// tables stay in the cache; a puzzle with wider fields takes [`Geometry::act_into`].
const MAX_SYMMETRY_KEY_ENTRIES: usize = 1 << 18;

impl SymmetryKeys {
    /// The tables of `geometry`'s symmetries over `split`'s keys, or `None` where they
    /// would be too large.
    pub fn new(geometry: &Geometry, split: &Split) -> Option<SymmetryKeys> {
        let fields = split.key_fields();
        let held: Vec<usize> = (0..fields.len()).filter(|&i| fields[i].mask != 0).collect();
        let source = |sym: usize, i: usize| geometry.symmetries[sym].s.permutation[i] as usize;
        let rotations = geometry.frame.as_ref().map_or(0, |f| f.rotations.len());
        let entries: usize = (0..geometry.symmetries.len())
            .flat_map(|sym| held.iter().map(move |&i| source(sym, i)))
            .chain((0..rotations).flat_map(|_| held.iter().copied()))
            .map(|j| fields[j].mask as usize + 1)
            .sum();
        if entries > MAX_SYMMETRY_KEY_ENTRIES {
            return None;
        }
        let n = geometry.compact.len();
        let moduli = &geometry.compact.moduli;
        let inverses = geometry.inverses();
        let (mut pieces, mut twists) = (vec![0u8; n], vec![0u8; n]);
        let mut scratch = (vec![0u8; n], vec![0u8; n]);
        let mut image = (vec![0u8; n], vec![0u8; n]);
        // Each value of position j's field, alone in a position: false if no key holds
        // it.
        let entry = |j: usize, value: u64, pieces: &mut Vec<u8>, twists: &mut Vec<u8>| {
            split.unkey(value << fields[j].shift, pieces, twists);
            let piece = pieces[j] as usize;
            piece < n && geometry.compact.orbit[piece] == geometry.compact.orbit[j]
        };
        let mut keys = SymmetryKeys {
            terms: Vec::with_capacity(held.len() * geometry.symmetries.len()),
            per_symmetry: held.len(),
            table: Vec::with_capacity(entries),
            frame: None,
        };
        for sym in 0..geometry.symmetries.len() {
            for &i in &held {
                let j = source(sym, i);
                tabulate(&mut keys.terms, &mut keys.table, fields[j], |value| {
                    if !entry(j, value, &mut pieces, &mut twists) {
                        return 0;
                    }
                    let x = (&pieces[..], &twists[..]);
                    geometry.conjugate_into(sym, &inverses, x, &mut scratch, &mut image);
                    split.key(&image.0, &image.1) & (fields[i].mask << fields[i].shift)
                });
            }
        }
        let Some(frame) = &geometry.frame else {
            return Some(keys);
        };
        let r = frame.reference;
        let mut tables = FrameKeys {
            rotation_terms: Vec::new(),
            rotation_of: Vec::new(),
            rotated_terms: Vec::new(),
            rotated: Vec::new(),
        };
        for sym in 0..geometry.symmetries.len() {
            let j = source(sym, r);
            let (terms, table) = (&mut tables.rotation_terms, &mut tables.rotation_of);
            tabulate(terms, table, fields[j], |value| {
                if !entry(j, value, &mut pieces, &mut twists) {
                    return 0;
                }
                let x = (&pieces[..], &twists[..]);
                geometry.conjugate_into(sym, &inverses, x, &mut scratch, &mut image);
                frame.rotation_index(&image.0, &image.1).unwrap_or(0) as u16
            });
        }
        for rho in &frame.rotations {
            for &i in &held {
                let (terms, table) = (&mut tables.rotated_terms, &mut tables.rotated);
                tabulate(terms, table, fields[i], |value| {
                    if !entry(i, value, &mut pieces, &mut twists) {
                        return 0;
                    }
                    then_into(rho.parts(), (&pieces, &twists), moduli, &mut image);
                    split.key(&image.0, &image.1) & (fields[i].mask << fields[i].shift)
                });
            }
        }
        keys.frame = Some(tables);
        Some(keys)
    }

    /// The key of the image under symmetry `sym` of the small part with key `key`:
    /// [`Split::key`] of [`Geometry::act_into`]'s image.
    #[inline]
    pub fn image(&self, sym: usize, key: u64) -> u64 {
        let held = self.per_symmetry;
        let terms = &self.terms[sym * held..(sym + 1) * held];
        let conjugate = terms
            .iter()
            .fold(0, |image, term| image | self.table[term.at(key)]);
        let Some(frame) = &self.frame else {
            return conjugate;
        };
        let k = frame.rotation_of[frame.rotation_terms[sym].at(key)] as usize;
        frame.rotated_terms[k * held..(k + 1) * held]
            .iter()
            .fold(0, |image, term| image | frame.rotated[term.at(conjugate)])
    }
}
