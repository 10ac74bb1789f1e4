//! The symmetries of a twisty puzzle, and its positions up to whole-puzzle rotation.
//!
//! A **symmetry** is a transformation `S` of the pieces (a permutation of positions
//! within each orbit, with orientation offsets) that maps the move set onto itself by
//! conjugation, `S⁻¹·M·S` a move for every move `M`, and the goal onto itself. Then
//! `S⁻¹·P·S` is exactly as far from the goal as `P`: a symmetry class of positions
//! needs one slot of a table ([`super::classes`]). The group comes from the
//! definition's rotations (a `.tws` file's `Rotation` blocks), checked and closed under
//! composition, or else it is found from the moves alone ([`automorphisms`]): every
//! such transformation, found by a search that fixes the image of one piece and of
//! each generator and propagates `S(M(p)) = M'(S(p))` through the puzzle.
//!
//! **Mirrors** turn every twist the other way: with `R(x)` the transformation `x`
//! with each orientation change negated (an automorphism of the pieces' group), a
//! mirror acts as `x ↦ S⁻¹·R(x)·S` ([`Symmetry`] with `mirror`). A reflection of the
//! cube maps a clockwise quarter turn to a counter-clockwise one, so `S⁻¹·R(M)·S` is a
//! move again: mirrors are found by the same search, started from the reflected
//! moves. The cube's corners have 24 rotations and 24 mirrors.
//!
//! **Up to rotation.** A puzzle whose pieces fix no frame (the FTO without its
//! centres) can turn a whole-puzzle rotation into a reachable position; positions that
//! differ by such a rotation are one position in hand. [`Frame`] holds a reference
//! piece still: a move that turns it becomes the move followed by the rotation that
//! brings the reference piece back, so every position has the reference piece home.
//!
//! All transformations here are over the puzzle's *kept* positions (the orbits a
//! projection keeps), numbered from 0 ([`Compact`]).

use super::definition::Transformation;
use super::group;

/// The most symmetries a group may have here.
pub const MAX_SYMMETRIES: usize = 4096;

/// Why symmetries could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymmetryError {
    /// A named rotation is not a symmetry.
    #[error("rotation `{name}` is not a symmetry of the puzzle: {why}")]
    NotASymmetry {
        /// Its name.
        name: String,
        /// What fails.
        why: String,
    },
    /// Only the identity.
    #[error(
        "{0} has no symmetry but the identity (no transformation of its pieces maps its moves onto its moves)"
    )]
    None(String),
    /// More than [`MAX_SYMMETRIES`].
    #[error("more than {MAX_SYMMETRIES} symmetries")]
    TooMany,
    /// The goal is not the solved state of distinct pieces.
    #[error("{0}")]
    Goal(String),
    /// No piece can hold the frame.
    #[error("{0}")]
    Frame(String),
}

/// The kept positions of a puzzle, renumbered from 0, with their orbits and moduli.
#[derive(Debug, Clone)]
pub struct Compact {
    /// The full position of each kept position.
    pub kept: Vec<usize>,
    /// The orbit number (in the definition) of each kept position.
    pub orbit: Vec<u8>,
    /// The orientations of each kept position's orbit.
    pub moduli: Vec<u8>,
}

impl Compact {
    /// The number of kept positions.
    #[must_use]
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// True when nothing is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// `t` restricted to the kept positions (which it maps among themselves).
    #[must_use]
    pub fn restrict(&self, t: &Transformation) -> Transformation {
        let mut local = vec![u8::MAX; 256];
        for (i, &p) in self.kept.iter().enumerate() {
            local[p] = i as u8;
        }
        Transformation {
            permutation: self
                .kept
                .iter()
                .map(|&p| local[t.permutation[p] as usize])
                .collect(),
            delta: self.kept.iter().map(|&p| t.delta[p]).collect(),
        }
    }

    /// `t` (over the kept positions) as a transformation of all `positions`,
    /// the identity elsewhere.
    #[must_use]
    pub fn expand(&self, t: &Transformation, positions: usize) -> Transformation {
        let mut out = Transformation::identity(positions);
        for (i, &p) in self.kept.iter().enumerate() {
            out.permutation[p] = self.kept[t.permutation[i] as usize] as u8;
            out.delta[p] = t.delta[i];
        }
        out
    }
}

/// A symmetry as it acts on positions: `x ↦ S⁻¹·x·S`, or for a mirror
/// `x ↦ S⁻¹·R(x)·S`, with `R` turning every twist the other way ([`reflect`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Symmetry {
    /// The transformation `S`.
    pub s: Transformation,
    /// Whether twists are turned the other way first.
    pub mirror: bool,
}

impl Symmetry {
    /// `x ↦ S⁻¹·x·S`.
    #[must_use]
    pub fn plain(s: Transformation) -> Symmetry {
        Symmetry { s, mirror: false }
    }

    /// `x` under the symmetry.
    #[must_use]
    pub fn apply(&self, x: &Transformation, moduli: &[u8]) -> Transformation {
        let inverse = self.s.inverse(moduli);
        if self.mirror {
            conjugate(&reflect(x, moduli), &self.s, &inverse, moduli)
        } else {
            conjugate(x, &self.s, &inverse, moduli)
        }
    }

    /// The symmetry undoing this one: `(S⁻¹, plain)`, or `(R(S⁻¹), mirror)`.
    #[must_use]
    pub fn inverse(&self, moduli: &[u8]) -> Symmetry {
        let inverse = self.s.inverse(moduli);
        Symmetry {
            s: if self.mirror {
                reflect(&inverse, moduli)
            } else {
                inverse
            },
            mirror: self.mirror,
        }
    }

    /// This symmetry, then `next`: `(R(S)·S_next, either mirror but not both)` when
    /// `next` is a mirror, `(S·S_next, ...)` otherwise.
    #[must_use]
    pub fn then(&self, next: &Symmetry, moduli: &[u8]) -> Symmetry {
        let first = if next.mirror {
            reflect(&self.s, moduli)
        } else {
            self.s.clone()
        };
        Symmetry {
            s: first.then(&next.s, moduli),
            mirror: self.mirror != next.mirror,
        }
    }
}

/// `t` with every orientation change turned the other way: `delta → -delta`.
#[must_use]
pub fn reflect(t: &Transformation, moduli: &[u8]) -> Transformation {
    Transformation {
        permutation: t.permutation.clone(),
        delta: t
            .delta
            .iter()
            .zip(moduli)
            .map(|(&d, &m)| {
                let m = m.max(1);
                (m - d % m) % m
            })
            .collect(),
    }
}

/// `S⁻¹ · t · S` for a symmetry `s` with inverse `s_inverse`.
#[must_use]
pub fn conjugate(
    t: &Transformation,
    s: &Transformation,
    s_inverse: &Transformation,
    moduli: &[u8],
) -> Transformation {
    s_inverse.then(t, moduli).then(s, moduli)
}

/// The permutation of `moves` that the symmetry `s` induces: entry `k` is the move
/// `s` maps `moves[k]` to.
#[must_use]
pub fn move_permutation(s: &Symmetry, moves: &[Transformation], moduli: &[u8]) -> Vec<u16> {
    moves
        .iter()
        .map(|m| {
            let c = s.apply(m, moduli);
            moves.iter().position(|x| *x == c).unwrap_or(usize::MAX) as u16
        })
        .collect()
}

/// One symmetry per distinct action on positions: symmetries that conjugate every
/// move alike (they differ by a transformation that commutes with every move, such
/// as one twist of every piece) act alike on every position, which the moves make.
/// The identity stays first.
#[must_use]
pub fn distinct_actions(
    symmetries: &[Symmetry],
    moves: &[Transformation],
    moduli: &[u8],
) -> Vec<Symmetry> {
    let mut seen = std::collections::HashSet::new();
    symmetries
        .iter()
        .filter(|s| seen.insert(move_permutation(s, moves, moduli)))
        .cloned()
        .collect()
}

/// Why `s` is not a symmetry of `moves`, or `None` if it is one.
#[must_use]
pub fn check(s: &Transformation, moves: &[Transformation], moduli: &[u8]) -> Option<String> {
    check_symmetry(&Symmetry::plain(s.clone()), moves, moduli)
}

/// Why `symmetry` (plain or mirror) is not a symmetry of `moves`, or `None`.
#[must_use]
pub fn check_symmetry(
    symmetry: &Symmetry,
    moves: &[Transformation],
    moduli: &[u8],
) -> Option<String> {
    let s = &symmetry.s;
    let n = moduli.len();
    let mut seen = vec![false; n];
    for (i, &from) in s.permutation.iter().enumerate() {
        let from = from as usize;
        if from >= n || std::mem::replace(&mut seen[from], true) {
            return Some("its permutation is not one".into());
        }
        if moduli[from] != moduli[i] {
            return Some(format!(
                "it moves position {from} to an orbit of another kind"
            ));
        }
        if s.delta[i] >= moduli[i].max(1) {
            return Some(format!(
                "orientation {} at position {i} is out of range",
                s.delta[i]
            ));
        }
    }
    for m in moves {
        if !moves.contains(&symmetry.apply(m, moduli)) {
            return Some("it maps a move to a transformation that is no move".into());
        }
    }
    None
}

/// The group generated by `generators` (each checked to be a symmetry of `moves`),
/// the identity first.
///
/// # Errors
/// [`SymmetryError`] if the transformations do not close into a group of the allowed
/// size.
pub fn close(
    generators: &[(String, Transformation)],
    moves: &[Transformation],
    moduli: &[u8],
) -> Result<Vec<Transformation>, SymmetryError> {
    for (name, g) in generators {
        if let Some(why) = check(g, moves, moduli) {
            return Err(SymmetryError::NotASymmetry {
                name: name.clone(),
                why,
            });
        }
    }
    let mut elements = vec![Transformation::identity(moduli.len())];
    let mut next = 0;
    while next < elements.len() {
        let e = elements[next].clone();
        next += 1;
        for (_, g) in generators {
            let p = e.then(g, moduli);
            if !elements.contains(&p) {
                if elements.len() == MAX_SYMMETRIES {
                    return Err(SymmetryError::TooMany);
                }
                elements.push(p);
            }
        }
    }
    Ok(elements)
}

/// Every symmetry of the move set `moves` (all moves of the metric, closed under
/// inverses) whose first `generators` entries generate it: transformations `S` with
/// `S⁻¹·M·S` in `moves` for every `M`, found by search. The identity comes first.
///
/// # Errors
/// [`SymmetryError`] if the search finds no symmetry or exceeds its limits.
pub fn automorphisms(
    moves: &[Transformation],
    generators: &[usize],
    compact: &Compact,
) -> Result<Vec<Transformation>, SymmetryError> {
    automorphisms_of(moves, generators, compact, false)
}

/// Every symmetry of `moves`, rotations (as [`automorphisms`]) and then mirrors
/// (`S` with `S⁻¹·R(M)·S` in `moves` for every `M`), the identity first.
///
/// # Errors
/// [`SymmetryError`] if the search finds no symmetry or exceeds its limits.
pub fn symmetries_with_mirrors(
    moves: &[Transformation],
    generators: &[usize],
    compact: &Compact,
) -> Result<Vec<Symmetry>, SymmetryError> {
    let mut all: Vec<Symmetry> = automorphisms(moves, generators, compact)?
        .into_iter()
        .map(Symmetry::plain)
        .collect();
    for s in automorphisms_of(moves, generators, compact, true)? {
        if all.len() == MAX_SYMMETRIES {
            return Err(SymmetryError::TooMany);
        }
        all.push(Symmetry { s, mirror: true });
    }
    Ok(all)
}

fn automorphisms_of(
    moves: &[Transformation],
    generators: &[usize],
    compact: &Compact,
    mirror: bool,
) -> Result<Vec<Transformation>, SymmetryError> {
    let sources: Vec<Transformation> = if mirror {
        moves.iter().map(|m| reflect(m, &compact.moduli)).collect()
    } else {
        moves.to_vec()
    };
    // Every symmetry, if there are not too many: a frame needs those that are
    // positions, which may be any of the ones that act alike. Else one per action.
    let search = |one_per_action| {
        let mut search = Search {
            moves,
            sources: &sources,
            mirror,
            generators,
            moduli: &compact.moduli,
            orbit: &compact.orbit,
            image: vec![None; compact.len()],
            twist: vec![0; compact.len()],
            used: vec![false; compact.len()],
            chosen: vec![None; generators.len()],
            found: Vec::new(),
            one_per_action,
        };
        search.run().map(|_| search.found)
    };
    let mut found = match search(false) {
        Err(SymmetryError::TooMany) => search(true)?,
        other => other?,
    };
    let identity = Transformation::identity(compact.len());
    found.sort_by_key(|t| (t != &identity, t.permutation.clone(), t.delta.clone()));
    Ok(found)
}

struct Search<'a> {
    moves: &'a [Transformation],
    /// The moves a symmetry maps onto `moves`: `moves` themselves, or reflected.
    sources: &'a [Transformation],
    mirror: bool,
    generators: &'a [usize],
    moduli: &'a [u8],
    orbit: &'a [u8],
    /// `S.permutation[i]`, where known.
    image: Vec<Option<u8>>,
    /// `S.delta[i]`, where `image[i]` is known.
    twist: Vec<u8>,
    /// Positions that are some position's image.
    used: Vec<bool>,
    /// The move each generator's conjugate is.
    chosen: Vec<Option<usize>>,
    found: Vec<Transformation>,
    /// Keep one symmetry of those that act alike on positions.
    one_per_action: bool,
}

impl Search<'_> {
    /// Searches on from what is known; true if it found a symmetry.
    ///
    /// Once every generator's conjugate is chosen, the symmetries that complete the
    /// positions still unknown all act alike on positions (two of them differ by a
    /// transformation that commutes with every move, such as a twist of a corner that
    /// only ever twists in place). With `one_per_action` the first found is enough:
    /// the Compy Cube's corners would otherwise give 3^8 copies of each of its 48
    /// symmetries. The positions are tried in order, so the first found is the least
    /// of those that differ only in their twists, the one [`distinct_actions`] keeps.
    fn run(&mut self) -> Result<bool, SymmetryError> {
        // From the equation M·S = S·M' (M' = S⁻¹·M·S): knowing S at i gives S at
        // M'.permutation[i].
        let saved = (self.image.clone(), self.twist.clone(), self.used.clone());
        if !self.propagate() {
            (self.image, self.twist, self.used) = saved;
            return Ok(false);
        }
        let n = self.image.len();
        let first_unknown = (0..n).find(|&i| self.image[i].is_none());
        // The next generator to conjugate: one that moves a known image first (its
        // conjugate must then move that image's place, which few moves do: the 4x4x4's
        // centres, each moved by three moves, would otherwise try every move for every
        // generator), else the first open one.
        let open = |g: &usize| self.chosen[*g].is_none();
        let moves_a_known_image = |g: &usize| {
            let source = &self.sources[self.generators[*g]];
            self.image
                .iter()
                .flatten()
                .any(|&j| source.permutation[j as usize] != j || source.delta[j as usize] != 0)
        };
        let open_generator = (0..self.generators.len())
            .filter(open)
            .find(moves_a_known_image)
            .or_else(|| (0..self.generators.len()).find(open));
        let anything_known = self.image.iter().any(Option::is_some);
        let mut found = false;
        match (first_unknown, open_generator) {
            (None, None) => {
                let s = Transformation {
                    permutation: self.image.iter().map(|x| x.expect("complete")).collect(),
                    delta: self.twist.clone(),
                };
                let symmetry = Symmetry {
                    s,
                    mirror: self.mirror,
                };
                if check_symmetry(&symmetry, self.moves, self.moduli).is_none() {
                    let s = symmetry.s;
                    if self.found.len() == MAX_SYMMETRIES {
                        return Err(SymmetryError::TooMany);
                    }
                    self.found.push(s);
                    found = true;
                }
            }
            (Some(i), None) | (Some(i), Some(_)) if !anything_known || open_generator.is_none() => {
                let completing = self.one_per_action && open_generator.is_none();
                'places: for j in 0..n {
                    if self.used[j] || self.orbit[j] != self.orbit[i] {
                        continue;
                    }
                    for o in 0..self.moduli[i].max(1) {
                        let saved = (self.image.clone(), self.twist.clone(), self.used.clone());
                        self.image[i] = Some(j as u8);
                        self.twist[i] = o;
                        self.used[j] = true;
                        found |= self.run()?;
                        (self.image, self.twist, self.used) = saved;
                        if found && completing {
                            break 'places;
                        }
                    }
                }
            }
            (_, Some(g)) => {
                for m in 0..self.moves.len() {
                    if self.chosen.contains(&Some(m)) {
                        continue;
                    }
                    self.chosen[g] = Some(m);
                    let saved = (self.image.clone(), self.twist.clone(), self.used.clone());
                    found |= self.run()?;
                    (self.image, self.twist, self.used) = saved;
                    self.chosen[g] = None;
                }
            }
            (Some(_), None) => unreachable!("taken by the branch on positions"),
        }
        (self.image, self.twist, self.used) = saved;
        Ok(found)
    }

    /// Fills in what the chosen generators' conjugates force; false on a contradiction.
    fn propagate(&mut self) -> bool {
        let mut queue: Vec<usize> = (0..self.image.len())
            .filter(|&i| self.image[i].is_some())
            .collect();
        while let Some(i) = queue.pop() {
            let j = self.image[i].expect("queued when known") as usize;
            for (g, chosen) in self.chosen.iter().enumerate() {
                let Some(m) = *chosen else { continue };
                let generator = &self.sources[self.generators[g]];
                let conjugate = &self.moves[m];
                // M·S = S·M': S[M'[i]] = M[S[i]], twists accordingly.
                let target = conjugate.permutation[i] as usize;
                let image = generator.permutation[j];
                let modulus = self.moduli[target].max(1);
                let twist = (generator.delta[j] + self.twist[i] + modulus
                    - conjugate.delta[i] % modulus)
                    % modulus;
                match self.image[target] {
                    Some(known) => {
                        if known != image || self.twist[target] != twist {
                            return false;
                        }
                    }
                    None => {
                        if self.used[image as usize]
                            || self.orbit[image as usize] != self.orbit[target]
                        {
                            return false;
                        }
                        self.image[target] = Some(image);
                        self.twist[target] = twist;
                        self.used[image as usize] = true;
                        queue.push(target);
                    }
                }
            }
        }
        true
    }
}

/// A reference piece held home: positions up to the whole-puzzle rotations that are
/// themselves reachable.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The kept position whose piece stays home.
    pub reference: usize,
    /// The rotations (symmetries that are positions of the puzzle).
    pub rotations: Vec<Transformation>,
    /// For the reference position's piece and twist `(q, o)`, at `q * m + o`, the
    /// rotation that brings it home.
    pub bring_home: Vec<Option<u16>>,
    modulus: u8,
}

impl Frame {
    /// The frame of a puzzle with symmetries `symmetries` (compact, over the moves
    /// `moves` of the move set, its generators first): the symmetries the moves
    /// reach, and a piece on which they act regularly.
    ///
    /// # Errors
    /// [`SymmetryError`] if the rotations do not close into a group or do not fix the
    /// goal.
    pub fn new(
        symmetries: &[Transformation],
        moves: &[Transformation],
        compact: &Compact,
    ) -> Result<Frame, SymmetryError> {
        let moduli = &compact.moduli;
        let move_refs: Vec<&Transformation> = moves.iter().collect();
        let candidates: Vec<&Transformation> = symmetries.iter().collect();
        let inside = group::contains(&move_refs, moduli, &candidates);
        let reachable: Vec<Transformation> = symmetries
            .iter()
            .zip(&inside)
            .filter(|(_, i)| **i)
            .map(|(s, _)| s.clone())
            .collect();
        if reachable.len() < 2 {
            return Err(SymmetryError::Frame(
                "--up-to-rotation: no whole-puzzle rotation is a position of this puzzle \
                 (its pieces already fix the frame)"
                    .into(),
            ));
        }
        // The piece to hold, and the rotations: a subgroup of the reachable
        // symmetries that meets the piece's reachable (place, twist) pairs once each
        // (reachable symmetries that commute with every move, a twist of every piece,
        // are positions, not rotations: the subgroup leaves them out).
        // Pieces of the smallest orbits first: they are the ones a class index
        // enumerates, and the held piece must be among them.
        let orbit_size = |i: usize| {
            compact
                .orbit
                .iter()
                .filter(|&&o| o == compact.orbit[i])
                .count()
        };
        let mut order: Vec<usize> = (0..compact.len()).collect();
        order.sort_by_key(|&i| (orbit_size(i), i));
        for r in order {
            let m = compact.moduli[r].max(1);
            let reached = reachable_places(r, moves, moduli)
                .iter()
                .filter(|&&x| x)
                .count();
            for (a, b) in
                (0..reachable.len()).flat_map(|a| (a..reachable.len()).map(move |b| (a, b)))
            {
                let pair = [
                    ("a".to_string(), reachable[a].clone()),
                    ("b".to_string(), reachable[b].clone()),
                ];
                let Ok(rotations) = close(&pair, &[], moduli) else {
                    continue;
                };
                if rotations.len() != reached {
                    continue;
                }
                if let Some(bring_home) = regular_on(r, m, &rotations, compact.len()) {
                    return Ok(Frame {
                        reference: r,
                        rotations,
                        bring_home,
                        modulus: m,
                    });
                }
            }
        }
        Err(SymmetryError::Frame(format!(
            "--up-to-rotation: no subgroup of the {} reachable symmetries ({} in all) meets \
             a piece's places and twists one to one",
            reachable.len(),
            symmetries.len()
        )))
    }

    /// Whether conjugation by `s` maps the rotations onto themselves, as a symmetry
    /// of positions up to rotation must (else `S⁻¹·P·S` depends on which member of
    /// `P`'s rotations it is taken of).
    #[must_use]
    pub fn normalized_by(&self, s: &Symmetry, moduli: &[u8]) -> bool {
        self.rotations
            .iter()
            .all(|rho| self.rotations.contains(&s.apply(rho, moduli)))
    }

    /// The rotation that brings `x`'s reference piece home.
    #[must_use]
    pub fn rotation_for(&self, x: &Transformation) -> &Transformation {
        self.rotation_for_parts(&x.permutation, &x.delta)
    }

    /// [`Frame::rotation_for`] a position given by its pieces and twists.
    #[must_use]
    pub fn rotation_for_parts(&self, pieces: &[u8], twists: &[u8]) -> &Transformation {
        let k = self
            .rotation_index(pieces, twists)
            .expect("every reachable place has its rotation");
        &self.rotations[k]
    }

    /// The index in [`Frame::rotations`] of [`Frame::rotation_for_parts`]; `None` for a
    /// place of the reference piece no rotation brings home.
    #[must_use]
    pub fn rotation_index(&self, pieces: &[u8], twists: &[u8]) -> Option<usize> {
        let r = self.reference;
        let slot = pieces[r] as usize * self.modulus as usize + twists[r] as usize;
        self.bring_home
            .get(slot)
            .copied()
            .flatten()
            .map(usize::from)
    }

    /// `x` with its reference piece brought home: `rho · x`.
    #[must_use]
    pub fn normalize(&self, x: &Transformation, moduli: &[u8]) -> Transformation {
        self.rotation_for(x).then(x, moduli)
    }
}

/// For rotations that meet the pairs (piece at `r`, its twist) once each, the
/// rotation bringing each pair home (at `q * m + o`); `None` if two share a pair.
fn regular_on(
    r: usize,
    m: u8,
    rotations: &[Transformation],
    positions: usize,
) -> Option<Vec<Option<u16>>> {
    let mut bring_home = vec![None; positions * m as usize];
    for (k, rho) in rotations.iter().enumerate() {
        // (rho·X)[r] = rho[X[r]] with twist rho.delta[X[r]] + X.delta[r]: rho brings
        // X home when X holds at r the piece q that rho sends to r, twisted by
        // -rho.delta[q] (what rho⁻¹ holds at r, so the pair is reachable).
        let q = rho.permutation.iter().position(|&x| x as usize == r)?;
        let o = (m - rho.delta[q] % m) % m;
        let slot = q * m as usize + o as usize;
        if bring_home[slot].is_some() {
            return None;
        }
        bring_home[slot] = Some(k as u16);
    }
    Some(bring_home)
}

/// Which `(place, twist)` pairs, at `place * m + twist`, the piece at position `r`
/// reaches under `moves`.
fn reachable_places(r: usize, moves: &[Transformation], moduli: &[u8]) -> Vec<bool> {
    let m = moduli[r].max(1) as usize;
    let mut seen = vec![false; moduli.len() * m];
    seen[r * m] = true;
    let mut stack = vec![(r, 0usize)];
    while let Some((q, o)) = stack.pop() {
        for t in moves {
            // The piece at q goes to the position p with t.permutation[p] = q.
            let p = t
                .permutation
                .iter()
                .position(|&x| x as usize == q)
                .expect("a permutation");
            let o2 = (o + t.delta[p] as usize) % m;
            if !std::mem::replace(&mut seen[p * m + o2], true) {
                stack.push((p, o2));
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::super::library::open;
    use super::*;

    /// The cube's corners: 24 rotations and 24 mirrors; composing and inverting
    /// symmetries acts as composing and inverting their actions on positions.
    #[test]
    fn mirrors_compose_and_invert_as_actions() {
        let corners = open("3x3x3-corners").unwrap();
        let compact = corners.compact().unwrap();
        let moduli = &compact.moduli;
        let moves: Vec<Transformation> = corners
            .turn_transformations()
            .iter()
            .map(|t| compact.restrict(t))
            .collect();
        let generators: Vec<usize> = (0..corners.turns().len())
            .filter(|&k| corners.turns()[k].amount == 1)
            .collect();
        let all = symmetries_with_mirrors(&moves, &generators, &compact).unwrap();
        let all = distinct_actions(&all, &moves, moduli);
        assert_eq!(all.len(), 48);
        assert_eq!(all.iter().filter(|s| s.mirror).count(), 24);
        // A position: R U F' on the corners.
        let x = moves[6].then(&moves[0], moduli).then(&moves[14], moduli);
        for a in all.iter().step_by(5) {
            assert_eq!(a.inverse(moduli).apply(&a.apply(&x, moduli), moduli), x);
            for b in all.iter().step_by(7) {
                let both = a.then(b, moduli);
                assert_eq!(
                    both.apply(&x, moduli),
                    b.apply(&a.apply(&x, moduli), moduli)
                );
            }
        }
        // A mirror maps a quarter turn to a quarter turn the other way.
        let mirror = all.iter().find(|s| s.mirror).unwrap();
        let image = mirror.apply(&moves[0], moduli);
        let k = moves.iter().position(|m| *m == image).unwrap();
        assert_eq!(corners.turns()[k].amount, 3, "{}", corners.turns()[k]);
    }
}
