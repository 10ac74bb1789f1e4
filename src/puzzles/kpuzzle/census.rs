//! How many symmetry classes a twisty puzzle has, counted without a search.
//!
//! Burnside's lemma: the classes of a group `G` of positions under symmetries `Σ`
//! number `(1/|Σ|) Σ_S |Fix(S)|`, with `Fix(S)` the positions `P` of `G` that `S`
//! maps to themselves (`S⁻¹·P·S = P`, or `S⁻¹·R(P)·S = P` for a mirror). The
//! identity fixes all of `G`; the others fix few, and those are counted here orbit by
//! orbit, not one by one ([`burnside_by_orbits`]).
//!
//! # Counting the fixed positions
//!
//! Let `W` be the product over the orbits of `P_o ≀ Z_m` (`P_o` the permutations of
//! orbit `o` that the moves generate, each piece any of its `m` twists), and `sig` the
//! signature `W → A` (per orbit, the permutation's parity where `P_o` has odd ones,
//! and the twists' sum mod `m`). When `P_o` is trivial, the alternating or the
//! symmetric group for every orbit and `|G| = |W| / |sig(W)| · |sig(G)|`, `G` is
//! exactly the elements of `W` whose signature is in `sig(G)` (it contains the kernel
//! of `sig`; the puzzles of the cube's family are of this shape). Then `Fix(S)` is
//! counted per orbit by signature and the counts are combined:
//!
//! - the permutation `p` of a fixed position commutes with `S`'s permutation `τ`
//!   (`p(τ(i)) = τ(p(i))`): it maps each cycle of `τ` onto a cycle of the same length,
//!   and the image of one place of the cycle decides the rest;
//! - given `p`, the twists `t` are fixed when `t[i] = ε·t[τ(i)] + c[i]` (`ε = -1` for a
//!   mirror, `c` from `S`'s twists and `p`): around each cycle of `τ`, the twist of its
//!   first place decides the others, and the cycle must close.
//!
//! # Identical pieces
//!
//! Where the goal repeats pieces (the 3-colour cube, the 4x4x4's centres) the
//! positions are the patterns the group makes of the goal, not its elements (twips
//! #113). A pattern shows its twists but not, in an orbit with two alike pieces, its
//! parity (swap the two): the signatures a pattern shows leave those parities out,
//! and a pattern is a position when some reached signature agrees with it. A symmetry
//! fixes a pattern of such an orbit when, around each of its cycles, the pattern at
//! one place decides the others through the symmetry's relabelling of the kinds
//! ([`super::relabel`]) and comes back to itself; the cycles' kinds together must be
//! the goal's, counted by a small dynamic programme over (kinds used, twist sum). The
//! identity's count is the number of positions.
//!
//! A puzzle of another shape (the Skewb's corners, whose moves reach a twelfth of
//! their arrangements; positions up to rotation) is counted from its class index
//! instead ([`super::classes::KClasses::burnside_classes`]).

use std::collections::HashMap;

use super::definition::Transformation;
use super::group;
use super::relabel::{Kinds, Relabelling};
use super::symmetry::{Compact, Symmetry};

/// The permutations the moves generate on one orbit, as far as the count needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Permutations {
    /// None but the identity (the Compy Cube's corners twist in place).
    Trivial,
    /// The even ones.
    Even,
    /// Every one.
    All,
}

/// One orbit: its compact positions and the shape of its part of `W`.
#[derive(Debug, Clone)]
struct Orbit {
    places: Vec<usize>,
    modulus: u8,
    permutations: Permutations,
    /// Whether two of its places hold pieces of one kind in the goal.
    identical: bool,
}

impl Orbit {
    /// The radices of its signature: the parity (where there are odd permutations)
    /// and the twist sum (where there are twists). A pattern of identical pieces
    /// does not tell its parity (two alike swapped are the same pattern): `seen`
    /// leaves it out.
    fn radices(&self, seen: bool) -> Vec<u8> {
        let mut radices = Vec::new();
        if self.permutations == Permutations::All && !(seen && self.identical) {
            radices.push(2);
        }
        if self.modulus > 1 {
            radices.push(self.modulus);
        }
        radices
    }
}

/// Signatures of the whole puzzle: one digit per radix, packed in mixed radix.
#[derive(Debug, Clone)]
struct Signatures {
    radices: Vec<u8>,
}

impl Signatures {
    fn count(&self) -> usize {
        self.radices.iter().map(|&r| r as usize).product()
    }

    fn digits(&self, mut code: usize) -> Vec<u8> {
        self.radices
            .iter()
            .map(|&r| {
                let d = (code % r as usize) as u8;
                code /= r as usize;
                d
            })
            .collect()
    }

    fn code(&self, digits: &[u8]) -> usize {
        digits
            .iter()
            .zip(&self.radices)
            .rev()
            .fold(0, |code, (&d, &r)| code * r as usize + d as usize)
    }

    fn add(&self, a: usize, b: usize) -> usize {
        let sum: Vec<u8> = self
            .digits(a)
            .iter()
            .zip(self.digits(b))
            .zip(&self.radices)
            .map(|((&x, y), &r)| (x + y) % r)
            .collect();
        self.code(&sum)
    }
}

/// What [`burnside_by_orbits`] counts: the positions (patterns, where pieces look
/// alike) and their classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrbitCount {
    /// The positions: the group's order with distinct pieces, the patterns it makes of
    /// the goal where pieces look alike.
    pub positions: u128,
    /// Burnside's count of their classes.
    pub classes: u128,
}

/// Burnside's count of the positions that `moves` make of the goal (the group they
/// generate, `order` elements over `compact`'s positions; patterns of `kinds` where
/// pieces look alike) under `symmetries` (the identity first, each with its
/// relabelling of the kinds), or `None` when the puzzle is not of the shape counted
/// here (see the module's doc).
#[must_use]
pub fn burnside_by_orbits(
    compact: &Compact,
    kinds: &Kinds,
    moves: &[Transformation],
    order: u128,
    symmetries: &[(Symmetry, Relabelling)],
) -> Option<OrbitCount> {
    let plain: Vec<Symmetry> = symmetries.iter().map(|(s, _)| s.clone()).collect();
    let orbits = orbits(compact, kinds, moves, &plain)?;
    let full = Signatures {
        radices: orbits.iter().flat_map(|o| o.radices(false)).collect(),
    };
    let reached = reached_signatures(&orbits, &full, moves)?;
    // |G| = |ker sig| · |sig(G)|: G holds the kernel, so it is every element of W
    // whose signature it reaches.
    let mut w = 1u128;
    for orbit in &orbits {
        let n = orbit.places.len();
        let permutations = match orbit.permutations {
            Permutations::Trivial => 1,
            Permutations::Even => factorial(n)? / 2,
            Permutations::All => factorial(n)?,
        };
        w = w
            .checked_mul(permutations)?
            .checked_mul((orbit.modulus as u128).checked_pow(n as u32)?)?;
    }
    let kernel = w / full.count() as u128;
    if kernel.checked_mul(reached.iter().filter(|&&r| r).count() as u128)? != order {
        return None;
    }
    // What a pattern shows of a reached signature: the parities of orbits of
    // identical pieces left out.
    let seen = Signatures {
        radices: orbits.iter().flat_map(|o| o.radices(true)).collect(),
    };
    let mut shown = vec![false; seen.count()];
    for (code, _) in reached.iter().enumerate().filter(|(_, r)| **r) {
        let digits = full.digits(code);
        let mut kept = Vec::new();
        let mut at = 0;
        for orbit in &orbits {
            let radices = orbit.radices(false);
            let own = &digits[at..at + radices.len()];
            at += radices.len();
            let skip = usize::from(radices.len() > orbit.radices(true).len());
            kept.extend_from_slice(&own[skip..]);
        }
        shown[seen.code(&kept)] = true;
    }
    let identical = orbits.iter().any(|o| o.identical);
    let mut positions = order;
    let mut total = 0u128;
    for (symmetry, relabelling) in symmetries {
        let identity = !symmetry.mirror && symmetry.s.is_identity() && relabelling.is_identity();
        let fixed = if identity && !identical {
            order
        } else {
            let shape = Shape {
                compact,
                kinds,
                orbits: &orbits,
                seen: &seen,
                shown: &shown,
            };
            let fixed = fixed_by(&shape, symmetry, relabelling, identity)?;
            if identity {
                positions = fixed;
            }
            fixed
        };
        total = total.checked_add(fixed)?;
    }
    let g = symmetries.len() as u128;
    total.is_multiple_of(g).then_some(OrbitCount {
        positions,
        classes: total / g,
    })
}

/// The orbits of the moves and the symmetries on `compact`'s positions (a piece that
/// neither moves, as the 2x2x2's held corner, is an orbit of its own; the Pyraminx's
/// centres, which twist in place, are one), each with the permutations the moves
/// generate on it, or `None` for an orbit whose permutations are not one of
/// [`Permutations`].
fn orbits(
    compact: &Compact,
    kinds: &Kinds,
    moves: &[Transformation],
    symmetries: &[Symmetry],
) -> Option<Vec<Orbit>> {
    // The least position each position's orbit reaches, by relaxation.
    let mut root: Vec<usize> = (0..compact.len()).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for m in moves.iter().chain(symmetries.iter().map(|s| &s.s)) {
            for (i, &from) in m.permutation.iter().enumerate() {
                let (a, b) = (root[i], root[from as usize]);
                if a != b {
                    let least = a.min(b);
                    root[i] = least;
                    root[from as usize] = least;
                    changed = true;
                }
            }
        }
    }
    let mut by_root: Vec<(usize, Vec<usize>)> = Vec::new();
    for (c, &r) in root.iter().enumerate() {
        match by_root.iter_mut().find(|(number, _)| *number == r) {
            Some((_, places)) => places.push(c),
            None => by_root.push((r, vec![c])),
        }
    }
    by_root
        .into_iter()
        .map(|(_, places)| {
            let n = places.len();
            let local = local_numbers(compact.len(), &places);
            let restricted: Vec<Transformation> = moves
                .iter()
                .map(|m| {
                    let permutation = places
                        .iter()
                        .map(|&p| local[m.permutation[p] as usize])
                        .collect::<Option<Vec<u8>>>()?;
                    Some(Transformation {
                        permutation,
                        delta: vec![0; n],
                    })
                })
                .collect::<Option<_>>()?;
            let refs: Vec<&Transformation> = restricted.iter().collect();
            let order = group::order(&refs, &vec![1; n]);
            let all = factorial(n)?;
            let permutations = if order == 1 {
                Permutations::Trivial
            } else if order == all {
                Permutations::All
            } else if order * 2 == all {
                Permutations::Even
            } else {
                return None;
            };
            let mut seen = std::collections::HashSet::new();
            let identical = !places.iter().all(|&p| seen.insert(kinds.of[p]));
            if identical && permutations == Permutations::Trivial {
                // Alike pieces that never move: not counted here.
                return None;
            }
            Some(Orbit {
                modulus: compact.moduli[places[0]].max(1),
                places,
                permutations,
                identical,
            })
        })
        .collect()
}

/// Each compact position's number within `places` (`None` outside them).
fn local_numbers(positions: usize, places: &[usize]) -> Vec<Option<u8>> {
    let mut local = vec![None; positions];
    for (i, &p) in places.iter().enumerate() {
        local[p] = Some(i as u8);
    }
    local
}

/// Which signatures the moves reach (a subgroup of the signatures: the closure of
/// the moves' own), or `None` if a move leaves an orbit.
fn reached_signatures(
    orbits: &[Orbit],
    signatures: &Signatures,
    moves: &[Transformation],
) -> Option<Vec<bool>> {
    let generators: Vec<usize> = moves
        .iter()
        .map(|m| {
            let mut digits = Vec::new();
            for orbit in orbits {
                let local = local_numbers(m.permutation.len(), &orbit.places);
                let p: Vec<u8> = orbit
                    .places
                    .iter()
                    .map(|&q| local[m.permutation[q] as usize])
                    .collect::<Option<_>>()?;
                if orbit.permutations == Permutations::All {
                    digits.push(u8::from(!is_even(&p)));
                }
                if orbit.modulus > 1 {
                    let sum: u32 = orbit.places.iter().map(|&q| m.delta[q] as u32).sum();
                    digits.push((sum % orbit.modulus as u32) as u8);
                }
            }
            Some(signatures.code(&digits))
        })
        .collect::<Option<_>>()?;
    let mut reached = vec![false; signatures.count()];
    reached[0] = true;
    let mut queue = vec![0usize];
    while let Some(a) = queue.pop() {
        for &g in &generators {
            let b = signatures.add(a, g);
            if !reached[b] {
                reached[b] = true;
                queue.push(b);
            }
        }
    }
    Some(reached)
}

/// What a symmetry's fixed positions are counted over: the positions, the goal's
/// kinds, the orbits, the signatures a pattern shows (`seen`) and which of them the
/// moves reach (`shown`).
struct Shape<'a> {
    compact: &'a Compact,
    kinds: &'a Kinds,
    orbits: &'a [Orbit],
    seen: &'a Signatures,
    shown: &'a [bool],
}

/// The positions of `G` that `symmetry` fixes (with its `relabelling` of the kinds;
/// all of them for the `identity`), by the signatures a pattern shows, or `None` if it
/// maps an orbit onto another.
fn fixed_by(
    shape: &Shape,
    symmetry: &Symmetry,
    relabelling: &Relabelling,
    identity: bool,
) -> Option<u128> {
    let Shape {
        compact,
        kinds,
        orbits,
        seen,
        shown,
    } = *shape;
    let inverse = symmetry.s.inverse(&compact.moduli);
    // Per signature (of the orbits so far): how many fixed partial positions.
    let mut partial: HashMap<Vec<u8>, u128> = HashMap::from([(Vec::new(), 1)]);
    for orbit in orbits {
        let counts = if orbit.identical {
            fixed_patterns_in_orbit(compact, kinds, orbit, symmetry, relabelling)?
        } else if identity {
            all_in_orbit(orbit)?
        } else {
            fixed_in_orbit(compact, orbit, symmetry, &inverse)?
        };
        let mut next: HashMap<Vec<u8>, u128> = HashMap::new();
        for (prefix, &ways) in &partial {
            for (digits, &count) in &counts {
                if count == 0 {
                    continue;
                }
                let mut key = prefix.clone();
                key.extend_from_slice(digits);
                *next.entry(key).or_default() += ways.checked_mul(count)?;
            }
        }
        partial = next;
    }
    let mut fixed = 0u128;
    for (digits, ways) in partial {
        if shown[seen.code(&digits)] {
            fixed = fixed.checked_add(ways)?;
        }
    }
    Some(fixed)
}

/// Every element of one orbit of distinct pieces' part of `W`, by signature digits:
/// what the identity fixes.
fn all_in_orbit(orbit: &Orbit) -> Option<HashMap<Vec<u8>, u128>> {
    let n = orbit.places.len();
    let m = orbit.modulus;
    let per_twist_sum = (m as u128).checked_pow(n.saturating_sub(1) as u32)?;
    let (parities, per_parity): (Vec<Option<u8>>, u128) = match orbit.permutations {
        Permutations::Trivial => (vec![None], 1),
        Permutations::Even => (vec![None], factorial(n)? / 2),
        Permutations::All => (vec![Some(0), Some(1)], factorial(n)? / 2),
    };
    let mut counts = HashMap::new();
    for parity in parities {
        for sum in 0..m {
            let mut digits: Vec<u8> = parity.into_iter().collect();
            if m > 1 {
                digits.push(sum);
            }
            let ways = if m > 1 {
                per_parity.checked_mul(per_twist_sum)?
            } else {
                per_parity
            };
            *counts.entry(digits).or_default() += ways;
        }
    }
    Some(counts)
}

/// The patterns of one orbit of identical pieces that `symmetry` fixes, by their
/// twist sum: around each cycle of `τ` the pattern at one place decides the others
/// (`x(p) = σ(x(τ(p)))` with the twists of [`super::relabel`]) and must come back to
/// itself; the cycles' kinds together must be the goal's.
fn fixed_patterns_in_orbit(
    compact: &Compact,
    kinds: &Kinds,
    orbit: &Orbit,
    symmetry: &Symmetry,
    relabelling: &Relabelling,
) -> Option<HashMap<Vec<u8>, u128>> {
    let m = orbit.modulus;
    let s = &symmetry.s;
    let tau = tau_on(compact, orbit, s)?;
    // The orbit's kinds, numbered locally, and how many of each the goal holds.
    let mut own: Vec<u16> = orbit.places.iter().map(|&p| kinds.of[p]).collect();
    own.sort_unstable();
    own.dedup();
    let wanted: Vec<u8> = own
        .iter()
        .map(|&k| kinds.multiplicity[k as usize] as u8)
        .collect();
    let local_kind = |k: u16| own.binary_search(&k).ok();
    // The pattern at place i from the one at τ(i): x(i) = f_i(x(τ(i))).
    let step = |i: usize, (k, o): (usize, u8)| -> Option<(usize, u8)> {
        let global = own[k] as usize;
        let o = if symmetry.mirror { (m - o) % m } else { o };
        let kind = local_kind(relabelling.kind[global])?;
        let twist = (relabelling.twist[global] + o + s.delta[orbit.places[i]]) % m;
        Some((kind, twist))
    };
    // Per (kinds used, twist sum): the partial patterns so far.
    let mut partial: HashMap<(Vec<u8>, u8), u128> = HashMap::from([((vec![0; own.len()], 0), 1)]);
    for cycle in cycles_of(&tau) {
        // Each way round the cycle: its kinds and twist sum.
        let mut ways: Vec<(Vec<u8>, u8)> = Vec::new();
        for start in (0..own.len()).flat_map(|k| (0..m).map(move |o| (k, o))) {
            // From x(cycle[0]) = start, back along the cycle: x(cycle[j]) from
            // x(cycle[j + 1]), the last from the first.
            let mut x = start;
            let mut used = vec![0u8; own.len()];
            let mut sum = 0u8;
            let mut closed = true;
            for &i in cycle.iter().rev() {
                match step(i as usize, x) {
                    Some(next) => x = next,
                    None => {
                        closed = false;
                        break;
                    }
                }
                used[x.0] += 1;
                sum = (sum + x.1) % m;
            }
            if closed && x == start {
                ways.push((used, sum));
            }
        }
        let mut next: HashMap<(Vec<u8>, u8), u128> = HashMap::new();
        for ((used, sum), &count) in &partial {
            for (more, add) in &ways {
                let total: Vec<u8> = used.iter().zip(more).map(|(a, b)| a + b).collect();
                if total.iter().zip(&wanted).any(|(t, w)| t > w) {
                    continue;
                }
                *next.entry((total, (sum + add) % m)).or_default() += count;
            }
        }
        partial = next;
    }
    let mut counts = HashMap::new();
    for ((used, sum), count) in partial {
        if used == wanted {
            let digits = if m > 1 { vec![sum] } else { Vec::new() };
            *counts.entry(digits).or_default() += count;
        }
    }
    Some(counts)
}

/// The elements of one orbit's part of `W` that `symmetry` fixes, by their signature
/// digits (as [`Orbit::radices`] orders them).
fn fixed_in_orbit(
    compact: &Compact,
    orbit: &Orbit,
    symmetry: &Symmetry,
    inverse: &Transformation,
) -> Option<HashMap<Vec<u8>, u128>> {
    let n = orbit.places.len();
    let m = orbit.modulus;
    let tau = tau_on(compact, orbit, &symmetry.s)?;
    let cycles = cycles_of(&tau);
    let mut counts: HashMap<Vec<u8>, u128> = HashMap::new();
    let mut visit = |p: &[u8]| {
        let odd = !is_even(p);
        if orbit.permutations == Permutations::Even && odd {
            return;
        }
        let sums = fixed_twist_sums(orbit, symmetry, inverse, &cycles, p, &tau);
        for (sum, &ways) in sums.iter().enumerate() {
            if ways == 0 {
                continue;
            }
            let mut digits = Vec::new();
            if orbit.permutations == Permutations::All {
                digits.push(u8::from(odd));
            }
            if m > 1 {
                digits.push(sum as u8);
            }
            *counts.entry(digits).or_default() += ways;
        }
    };
    if orbit.permutations == Permutations::Trivial {
        let identity: Vec<u8> = (0..n as u8).collect();
        visit(&identity);
    } else {
        let mut p = vec![0u8; n];
        let mut used = vec![false; n];
        commuting(&tau, &cycles, 0, &mut p, &mut used, &mut visit);
    }
    Some(counts)
}

/// `τ`: the permutation `s` makes of `orbit`'s places (numbered within it), or `None`
/// if it takes one out of the orbit.
fn tau_on(compact: &Compact, orbit: &Orbit, s: &Transformation) -> Option<Vec<u8>> {
    let local = local_numbers(compact.len(), &orbit.places);
    orbit
        .places
        .iter()
        .map(|&p| local[s.permutation[p] as usize])
        .collect()
}

/// The cycles of a permutation, each from its least place.
fn cycles_of(tau: &[u8]) -> Vec<Vec<u8>> {
    let mut seen = vec![false; tau.len()];
    let mut cycles = Vec::new();
    for start in 0..tau.len() {
        if seen[start] {
            continue;
        }
        let mut cycle = Vec::new();
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            cycle.push(i as u8);
            i = tau[i] as usize;
        }
        cycles.push(cycle);
    }
    cycles
}

/// Every permutation `p` with `p(τ(i)) = τ(p(i))`: cycle by cycle, the image of its
/// first place is a place of an unused cycle of the same length, and the rest follow.
fn commuting(
    tau: &[u8],
    cycles: &[Vec<u8>],
    next: usize,
    p: &mut [u8],
    used: &mut [bool],
    visit: &mut dyn FnMut(&[u8]),
) {
    let Some(cycle) = cycles.get(next) else {
        return visit(p);
    };
    for target in cycles.iter().filter(|c| c.len() == cycle.len()) {
        if used[target[0] as usize] {
            continue;
        }
        for &j in target {
            let mut image = j;
            for &i in cycle {
                p[i as usize] = image;
                image = tau[image as usize];
            }
            for &t in target {
                used[t as usize] = true;
            }
            commuting(tau, cycles, next + 1, p, used, visit);
            for &t in target {
                used[t as usize] = false;
            }
        }
    }
}

/// Given a fixed permutation `p`, how many twist vectors the symmetry fixes, by
/// their sum mod `m`: `t[i] = ε·t[τ(i)] + c[i]`, one free twist per cycle of `τ`.
fn fixed_twist_sums(
    orbit: &Orbit,
    symmetry: &Symmetry,
    inverse: &Transformation,
    cycles: &[Vec<u8>],
    p: &[u8],
    tau: &[u8],
) -> Vec<u128> {
    let m = orbit.modulus as u32;
    let places = &orbit.places;
    let s = &symmetry.s;
    // S⁻¹·R(x)·S's twist at place i: S⁻¹'s twist where x's piece at τ(i) came from,
    // plus x's twist at τ(i) (negated by a mirror), plus S's twist at i.
    let c: Vec<u32> = (0..p.len())
        .map(|i| {
            let from = p[tau[i] as usize] as usize;
            (inverse.delta[places[from]] as u32 + s.delta[places[i]] as u32) % m
        })
        .collect();
    let negate = |x: u32| {
        if symmetry.mirror {
            (m - x % m) % m
        } else {
            x % m
        }
    };
    let mut sums = vec![0u128; m as usize];
    sums[0] = 1;
    for cycle in cycles {
        // t[τ(i)] = ε⁻¹·(t[i] - c[i]) = ε·(t[i] - c[i]) (ε is ±1).
        let mut cycle_sums = vec![0u128; m as usize];
        for start in 0..m {
            let (mut t, mut sum) = (start, 0u32);
            for &i in cycle {
                sum += t;
                t = negate((t + m - c[i as usize]) % m);
            }
            if t == start {
                cycle_sums[(sum % m) as usize] += 1;
            }
        }
        let mut combined = vec![0u128; m as usize];
        for (a, &x) in sums.iter().enumerate() {
            for (b, &y) in cycle_sums.iter().enumerate() {
                combined[(a + b) % m as usize] += x * y;
            }
        }
        sums = combined;
    }
    sums
}

fn is_even(p: &[u8]) -> bool {
    cycles_of(p).iter().filter(|c| c.len() % 2 == 0).count() % 2 == 0
}

fn factorial(n: usize) -> Option<u128> {
    (1..=n as u128).try_fold(1u128, u128::checked_mul)
}

/// What a twisty puzzle holds before any search: its positions, with `--symmetry`
/// its classes, and the size of the index a search would number them by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Census {
    /// The puzzle's name as opened.
    pub puzzle: String,
    /// The positions: the order of the group the moves generate, or where pieces look
    /// alike the patterns they make of the goal (or why they were not counted).
    pub positions: Result<u128, String>,
    /// The order of the group the moves generate (every piece told apart).
    pub group_order: u128,
    /// With `--symmetry`: the symmetries (one per action) and Burnside's count of the
    /// classes, if it could be counted.
    pub symmetry: Option<SymmetryCensus>,
    /// The indices a search numbers (with `--symmetry`, the class index's slots), or
    /// why no index fits.
    pub indices: Result<u128, String>,
}

/// The classes of a census.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymmetryCensus {
    /// The symmetries, one per action on the positions.
    pub symmetries: usize,
    /// Burnside's count of the classes.
    pub classes: Option<u128>,
    /// How they were counted.
    pub counted_by: Option<CountedBy>,
}

/// How a census counted its classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountedBy {
    /// The symmetric positions orbit by orbit ([`burnside_by_orbits`]).
    Orbits,
    /// The class index's symmetric classes
    /// ([`super::classes::KClasses::burnside_classes`]).
    ClassIndex,
}

impl CountedBy {
    /// Its name in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CountedBy::Orbits => "orbits",
            CountedBy::ClassIndex => "class index",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::library::{Twisty, census, open_any};
    use super::*;

    fn classes(name: &str) -> (Option<u128>, Option<CountedBy>) {
        let symmetry = census(name).unwrap().symmetry.unwrap();
        (symmetry.classes, symmetry.counted_by)
    }

    /// Burnside's count from the class index, for the same puzzle.
    fn by_index(name: &str) -> u128 {
        let Twisty::Classes(index) = open_any(name).unwrap() else {
            panic!("{name}: no classes")
        };
        index.burnside_classes()
    }

    #[test]
    fn the_cubes_positions_up_to_its_48_symmetries_are_the_published_count() {
        // Jerry Bryan, Cube Lovers, 2003 (OEIS A005452): 901,083,404,981,813,616
        // positions of the 3x3x3 up to the cube's 48 symmetries.
        let cube = census("3x3x3 --symmetry").unwrap();
        assert_eq!(cube.positions, Ok(43_252_003_274_489_856_000));
        let symmetry = cube.symmetry.unwrap();
        assert_eq!(symmetry.symmetries, 48);
        assert_eq!(symmetry.classes, Some(901_083_404_981_813_616));
        assert_eq!(symmetry.counted_by, Some(CountedBy::Orbits));
        assert!(cube.indices.is_err(), "{:?}", cube.indices);
    }

    #[test]
    fn orbit_counts_agree_with_the_searches_and_the_class_index() {
        // The classes the searches number (tests/it/symmetry.rs checks them against
        // the plain searches' positions per depth).
        assert_eq!(
            classes("3x3x3-corners --symmetry"),
            (Some(1_841_970), Some(CountedBy::Orbits))
        );
        for name in [
            "3x3x3-corners --symmetry",
            "2x2x2 --symmetry",
            "pyraminx --symmetry",
            "compy --symmetry",
        ] {
            let (counted, by) = classes(name);
            assert_eq!(by, Some(CountedBy::Orbits), "{name}");
            assert_eq!(counted, Some(by_index(name)), "{name}");
        }
    }

    #[test]
    fn every_count_is_the_searchs() {
        for name in [
            "2x2x2 --moves U,D,R,L,F,B --up-to-rotation --symmetry",
            "skewb --symmetry",
            "2x2x2 --symmetry",
        ] {
            let Twisty::Classes(index) = open_any(name).unwrap() else {
                panic!("{name}: no classes")
            };
            let searched = crate::analysis::analyze(&*index, 0, &Default::default()).unwrap();
            let (counted, by) = classes(name);
            assert_eq!(counted, Some(searched.reachable as u128), "{name}");
            if name.contains("rotation") {
                // A frame is not a plain conjugation: counted from the index.
                assert_eq!(by, Some(CountedBy::ClassIndex), "{name}");
            }
        }
    }
}
