//! Symmetries of a goal with identical pieces: how each symmetry relabels the kinds.
//!
//! Where a goal repeats pieces (the 4x4x4's centres, four of each colour; the
//! 3-colour cube, whose opposite faces share a colour) a position is a *pattern*:
//! the kind and twist of the piece at each place, not which piece it is. A symmetry
//! `S` of the moves ([`super::symmetry`]) acts on positions as `S⁻¹·P·S`; on patterns
//! that is well defined when `S⁻¹` takes the pieces of each kind `k` to the places of
//! one kind `σ(k)`, each with the same twist `c(k)`. A cube rotation that turns the
//! up face to the front maps the up-down colour onto the front-back colour: kinds
//! change, and the rotation is still a symmetry. Then a pattern `x` becomes
//!
//! ```text
//! x'(p) = (σ(k), c(k) + o + S.delta[p])   with (k, o) = x(S(p))
//! ```
//!
//! (`- o` for a mirror, which turns every twist the other way). A symmetry that
//! takes one kind onto two is no symmetry of the goal: [`relabelling`] says so.
//! With distinct pieces `σ` is `S⁻¹`'s own permutation and nothing changes.

use super::definition::{Pattern, Transformation};
use super::symmetry::{Compact, Symmetry};

/// The kind of each kept position's piece in the goal: pieces that look alike share a
/// kind (numbered from 0 in order of first place; the same label in two orbits is two
/// kinds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kinds {
    /// The kind at each compact position.
    pub of: Vec<u16>,
    /// How many places each kind holds.
    pub multiplicity: Vec<u32>,
}

impl Kinds {
    /// The kinds of `goal` (over all positions) on `compact`'s kept positions.
    ///
    /// # Errors
    /// A message if the goal twists a piece (the symmetries need untwisted goals).
    pub fn of_goal(compact: &Compact, goal: &Pattern) -> Result<Kinds, String> {
        let mut labels: Vec<(u8, u8)> = Vec::new();
        let mut of = Vec::with_capacity(compact.len());
        let mut multiplicity = Vec::new();
        for (&p, &orbit) in compact.kept.iter().zip(&compact.orbit) {
            if goal.orientation[p] != 0 {
                return Err(
                    "symmetries need an untwisted goal: a piece of the goal is twisted".into(),
                );
            }
            let label = (orbit, goal.pieces[p]);
            let kind = match labels.iter().position(|&l| l == label) {
                Some(k) => k,
                None => {
                    labels.push(label);
                    multiplicity.push(0);
                    labels.len() - 1
                }
            };
            multiplicity[kind] += 1;
            of.push(kind as u16);
        }
        Ok(Kinds { of, multiplicity })
    }

    /// The number of kinds.
    #[must_use]
    pub fn count(&self) -> usize {
        self.multiplicity.len()
    }

    /// Whether every piece is of a kind of its own.
    #[must_use]
    pub fn all_distinct(&self) -> bool {
        self.multiplicity.iter().all(|&m| m == 1)
    }
}

/// What a symmetry does to the kinds: kind `k` becomes `kind[k]`, its twist plus
/// `twist[k]` (before the place's own offset, `S.delta[p]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relabelling {
    /// `σ`: the kind each kind becomes.
    pub kind: Vec<u16>,
    /// `c`: the twist each kind gains.
    pub twist: Vec<u8>,
}

/// How `symmetry` relabels the kinds of the goal, or why it does not map the goal onto
/// itself (a kind taken onto two kinds, or onto one with two twists).
///
/// # Errors
/// A message naming the kind and the two it would become.
pub fn relabelling(
    symmetry: &Symmetry,
    kinds: &Kinds,
    moduli: &[u8],
) -> Result<Relabelling, String> {
    let inverse = symmetry.s.inverse(moduli);
    let mut kind: Vec<Option<(u16, u8)>> = vec![None; kinds.count()];
    for (home, &k) in kinds.of.iter().enumerate() {
        let image = (
            kinds.of[inverse.permutation[home] as usize],
            inverse.delta[home],
        );
        match kind[k as usize] {
            None => kind[k as usize] = Some(image),
            Some(seen) if seen == image => {}
            Some(seen) => {
                return Err(if seen.0 == image.0 {
                    format!(
                        "it turns the pieces of kind {k} two ways (twists {} and {})",
                        seen.1, image.1
                    )
                } else {
                    format!(
                        "it maps the pieces of kind {k} onto two kinds ({} and {})",
                        seen.0, image.0
                    )
                });
            }
        }
    }
    let (kind, twist) = kind
        .into_iter()
        .map(|image| image.expect("every kind holds a place"))
        .unzip();
    Ok(Relabelling { kind, twist })
}

impl Relabelling {
    /// Every kind kept, untwisted: how a rotation of the whole puzzle relabels (its
    /// colours go with it).
    #[must_use]
    pub fn identity(kinds: &Kinds) -> Relabelling {
        Relabelling {
            kind: (0..kinds.count() as u16).collect(),
            twist: vec![0; kinds.count()],
        }
    }

    /// Whether it keeps every kind, untwisted.
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.kind
            .iter()
            .enumerate()
            .all(|(k, &to)| k == to as usize)
            && self.twist.iter().all(|&c| c == 0)
    }
}

/// An action on patterns: a symmetry of the places and a relabelling of the kinds.
pub type Action = (Symmetry, Relabelling);

/// `a` then `b` as one action: `x ↦ b(a(x))`. With `(k, o) = x(A(B(p)))`, the
/// composite gives `(σB σA k, cB(σA k) + εB cA(k) + εA εB o + εB dA[B p] + dB[p])`,
/// `ε` turning twists the other way for a mirror (`moduli` per kept position).
#[must_use]
pub fn then(a: &Action, b: &Action, kinds: &Kinds, moduli: &[u8]) -> Action {
    let ((sa, ra), (sb, rb)) = (a, b);
    let turn = |mirror: bool, m: u8, x: u8| if mirror { (m - x % m) % m } else { x % m };
    let n = sa.s.permutation.len();
    let mut permutation = Vec::with_capacity(n);
    let mut delta = Vec::with_capacity(n);
    for (p, &m) in moduli.iter().enumerate().take(n) {
        let m = m.max(1);
        let q = sb.s.permutation[p] as usize;
        permutation.push(sa.s.permutation[q]);
        delta.push((turn(sb.mirror, m, sa.s.delta[q]) + sb.s.delta[p]) % m);
    }
    let mut kind_modulus = vec![1u8; kinds.count()];
    for (i, &k) in kinds.of.iter().enumerate() {
        kind_modulus[k as usize] = moduli[i].max(1);
    }
    let kind = ra.kind.iter().map(|&k| rb.kind[k as usize]).collect();
    let twist = (0..kinds.count())
        .map(|k| {
            let m = kind_modulus[k];
            (rb.twist[ra.kind[k] as usize] + turn(sb.mirror, m, ra.twist[k])) % m
        })
        .collect();
    let s = Transformation { permutation, delta };
    let symmetry = Symmetry {
        s,
        mirror: sa.mirror != sb.mirror,
    };
    (symmetry, Relabelling { kind, twist })
}

/// The group `generators` generate, the identity first; `None` past `limit` elements.
#[must_use]
pub fn closure(
    generators: &[Action],
    kinds: &Kinds,
    moduli: &[u8],
    limit: usize,
) -> Option<Vec<Action>> {
    let n = moduli.len();
    let identity = (
        Symmetry::plain(Transformation::identity(n)),
        Relabelling::identity(kinds),
    );
    let key = |(s, r): &Action| {
        let mut key = s.s.permutation.clone();
        key.extend_from_slice(&s.s.delta);
        key.push(u8::from(s.mirror));
        key.extend(r.kind.iter().flat_map(|k| k.to_le_bytes()));
        key.extend_from_slice(&r.twist);
        key
    };
    let mut seen = std::collections::HashSet::new();
    seen.insert(key(&identity));
    let mut group = vec![identity];
    let mut next = 0;
    while next < group.len() {
        for g in generators {
            let product = then(&group[next], g, kinds, moduli);
            if seen.insert(key(&product)) {
                if group.len() == limit {
                    return None;
                }
                group.push(product);
            }
        }
        next += 1;
    }
    Some(group)
}

/// `x` (kinds and twists over the compact positions) under `symmetry` with its
/// relabelling `r`.
#[must_use]
pub fn apply(
    symmetry: &Symmetry,
    r: &Relabelling,
    moduli: &[u8],
    kinds: &[u16],
    twists: &[u8],
) -> (Vec<u16>, Vec<u8>) {
    let s = &symmetry.s;
    let mut out_kinds = Vec::with_capacity(kinds.len());
    let mut out_twists = Vec::with_capacity(kinds.len());
    for (p, (&from, &d)) in s.permutation.iter().zip(&s.delta).enumerate() {
        let m = moduli[p].max(1);
        let (k, o) = (kinds[from as usize], twists[from as usize] % m);
        let o = if symmetry.mirror { (m - o) % m } else { o };
        out_kinds.push(r.kind[k as usize]);
        out_twists.push((r.twist[k as usize] + o + d) % m);
    }
    (out_kinds, out_twists)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzles::kpuzzle::library;
    use crate::puzzles::kpuzzle::symmetry;

    /// The 3x3x3's symmetries over its (distinct) pieces.
    fn cube() -> (Compact, Vec<Symmetry>, Kinds) {
        let cube = library::open("3x3x3").unwrap();
        let compact = cube.compact().unwrap();
        let moves: Vec<_> = cube
            .turn_transformations()
            .iter()
            .map(|t| compact.restrict(t))
            .collect();
        let generators: Vec<usize> = (0..moves.len()).step_by(3).collect();
        let symmetries = symmetry::symmetries_with_mirrors(&moves, &generators, &compact).unwrap();
        let kinds = Kinds::of_goal(&compact, cube.goal()).unwrap();
        (compact, symmetries, kinds)
    }

    #[test]
    fn distinct_pieces_relabel_as_the_symmetry_conjugates() {
        let (compact, symmetries, kinds) = cube();
        assert!(kinds.all_distinct());
        let moduli = &compact.moduli;
        // A position a few turns from the goal, as a transformation and as a pattern.
        let cube = library::open("3x3x3").unwrap();
        let moves: Vec<_> = cube
            .turn_transformations()
            .iter()
            .map(|t| compact.restrict(t))
            .collect();
        let x = [0, 4, 7, 11, 15].iter().fold(
            super::super::definition::Transformation::identity(compact.len()),
            |x, &m| x.then(&moves[m], moduli),
        );
        for s in &symmetries {
            let r = relabelling(s, &kinds, moduli).unwrap();
            let kinds_of_x: Vec<u16> = x.permutation.iter().map(|&p| p as u16).collect();
            let (k, t) = apply(s, &r, moduli, &kinds_of_x, &x.delta);
            let conjugated = s.apply(&x, moduli);
            let expected: Vec<u16> = conjugated.permutation.iter().map(|&p| p as u16).collect();
            assert_eq!((k, t), (expected, conjugated.delta));
        }
    }

    #[test]
    fn a_symmetry_that_splits_a_kind_is_refused() {
        let (compact, symmetries, _) = cube();
        // Two edges alike (the label of edge 0 at edges 0 and 1): a symmetry keeps
        // them alike only if it keeps them together.
        let mut goal = library::open("3x3x3").unwrap().goal().clone();
        goal.pieces[compact.kept[1]] = goal.pieces[compact.kept[0]];
        let kinds = Kinds::of_goal(&compact, &goal).unwrap();
        assert_eq!(kinds.multiplicity[0], 2);
        let valid = symmetries
            .iter()
            .filter(|s| relabelling(s, &kinds, &compact.moduli).is_ok())
            .count();
        assert!(valid < symmetries.len());
        let refused = symmetries
            .iter()
            .find_map(|s| relabelling(s, &kinds, &compact.moduli).err())
            .unwrap();
        assert!(refused.contains("onto two kinds"), "{refused}");
    }
}
