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

/// What [`Geometry::key_neighbours`] works with: a value's key fields (each
/// position's piece and twist as its key holds them), per compact position where its
/// field sits in a key, and per move and position where the entry comes from, what the
/// move adds to its twist and where the key holds it ([`Split::key_fields`]).
pub(super) struct KeyScratch {
    values: [u16; 256],
    fields: Vec<KeyField>,
    steps: Vec<KeyStep>,
}

/// One compact position of one move's neighbour: its entry's source place, the twist
/// the move adds (reduced; zero where the key holds no twist) and the orbit's modulus,
/// and where the key holds the position's field.
#[derive(Debug, Clone, Copy)]
struct KeyStep {
    from: u8,
    add: u16,
    modulus: u16,
    twist_mask: u16,
    shift: u32,
}

impl KeyScratch {
    pub fn new(geometry: &Geometry, split: &Split) -> KeyScratch {
        let fields = split.key_fields();
        let moduli = &geometry.compact.moduli;
        let steps = geometry
            .moves
            .iter()
            .flat_map(|m| {
                fields.iter().enumerate().map(|(i, field)| {
                    let modulus = moduli[i].max(1) as u16;
                    let add = if field.twist_mask == 0 {
                        0
                    } else {
                        m.delta[i] as u16 % modulus
                    };
                    KeyStep {
                        from: m.permutation[i],
                        add,
                        modulus,
                        twist_mask: field.twist_mask,
                        shift: field.shift,
                    }
                })
            })
            .collect();
        KeyScratch {
            values: [0; 256],
            fields,
            steps,
        }
    }
}

impl Geometry {
    /// The keys ([`Split::key`]) of the neighbours of the small part with key `key`,
    /// one per move in the moves' order, into `out`: each key put together from the
    /// moved entries directly.
    #[inline]
    pub fn key_neighbours(&self, key: u64, scratch: &mut KeyScratch, out: &mut [u64]) {
        let KeyScratch {
            values,
            fields,
            steps,
        } = scratch;
        let n = self.compact.len();
        for (value, field) in values.iter_mut().zip(&*fields) {
            *value = (key >> field.shift & field.mask) as u16;
        }
        for (steps, out) in steps.chunks_exact(n.max(1)).zip(out) {
            let mut key = 0u64;
            for step in steps {
                let value = values[step.from as usize];
                // Both below the modulus: one subtraction at most.
                let sum = (value & step.twist_mask) + step.add;
                let twist = if sum >= step.modulus {
                    sum - step.modulus
                } else {
                    sum
                };
                key |= u64::from(value & !step.twist_mask | twist) << step.shift;
            }
            *out = key;
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
        // ... and brought home.
        if let Some(frame) = &self.frame {
            let rho = frame.rotation_for_parts(&out.0, &out.1);
            then_into(rho.parts(), (&out.0, &out.1), moduli, scratch);
            std::mem::swap(scratch, out);
        }
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
