//! Goal sets of twisty puzzles: several solved patterns, or patterns with wildcards.
//!
//! A goal pattern gives, for every position, a piece or a wildcard (`?`: any piece
//! the pattern does not name) and an orientation or a wildcard (`?`: any). An orbit a
//! pattern leaves out is all wildcards. A goal set is one or more patterns, joined by
//! `|` on the command line (`--goal`) and in a KPuzzle definition's `antipode.goals`,
//! or `Goal NAME` blocks of a `.tws` file (several blocks of one name are one set).
//!
//! The puzzle a goal set is searched on keeps the pieces some pattern names (the
//! others become identical blanks, as a projection's), so the distance to the set is a
//! distance in that smaller space; the search starts from every position of it that
//! matches a pattern ([`expand`]).
//!
//! ```
//! use antipode::Puzzle;
//! use antipode::puzzles::kpuzzle::library::open;
//!
//! // The D face's cross: its four edges home, the rest anywhere.
//! let cross = open("3x3x3 --goal EDGES: ? ? ? ? 4 5 6 7 ? ? ? ? / ? ? ? ? 0 0 0 0 ? ? ? ?").unwrap();
//! assert_eq!(cross.index_count(), 190_080);
//! assert_eq!(cross.goal_indices().len(), 1);
//! ```
#![deny(clippy::cast_possible_truncation)]

use super::definition::{Definition, GoalPattern, Pattern};
use super::ranking::{BLANK, View};
use super::symmetry::{Compact, Symmetry};

/// The most positions a goal set may stand for (its indices are held in memory).
pub const MAX_GOAL_POSITIONS: u128 = 1 << 26;

/// The solved state as a goal set's search sees it: the pieces no pattern names (or
/// that `kept` drops) become blanks.
///
/// # Errors
/// A message if a pattern names a piece the projection drops, gives an orientation at
/// a wildcard that blanks may take (they show none), or no pattern names any piece.
pub fn reference(
    definition: &Definition,
    patterns: &[GoalPattern],
    projected: Option<&Pattern>,
) -> Result<Pattern, String> {
    let mut goal = definition.default.clone();
    let mut named = vec![[false; 256]; definition.orbits.len()];
    for pattern in patterns {
        for (k, orbit) in definition.orbits.iter().enumerate() {
            for p in orbit.offset..orbit.offset + orbit.pieces {
                if let Some(piece) = pattern.pieces[p] {
                    named[k][piece as usize] = true;
                }
            }
        }
    }
    if named.iter().all(|n| n.iter().all(|&x| !x)) {
        let places: Vec<&str> = patterns.iter().map(|p| p.place.as_str()).collect();
        return Err(format!(
            "{}: the goal names no piece: every position would be in it",
            places.join(", ")
        ));
    }
    for (k, orbit) in definition.orbits.iter().enumerate() {
        for p in orbit.offset..orbit.offset + orbit.pieces {
            let label = goal.pieces[p];
            let kept = match projected {
                Some(projected) => projected.pieces[p] != BLANK,
                None => named[k][label as usize],
            };
            if !kept {
                goal.pieces[p] = BLANK;
                goal.orientation[p] = 0;
            }
        }
    }
    for pattern in patterns {
        for orbit in &definition.orbits {
            let range = orbit.offset..orbit.offset + orbit.pieces;
            let kept = |label: u8| {
                goal.pieces[range.clone()]
                    .iter()
                    .zip(&definition.default.pieces[range.clone()])
                    .any(|(&g, &d)| d == label && g != BLANK)
            };
            for piece in pattern.pieces[range.clone()].iter().flatten() {
                if !kept(*piece) {
                    return Err(format!(
                        "{}: names {} piece {piece}, which the projection drops",
                        pattern.place, orbit.name
                    ));
                }
            }
            if goal.pieces[range.clone()].contains(&BLANK)
                && let Some(i) = range
                    .clone()
                    .find(|&p| pattern.pieces[p].is_none() && pattern.orientation[p].is_some())
            {
                return Err(format!(
                    "{}: {} position {} is a wildcard with an orientation, but pieces no \
                     pattern names may go there and they show none: write `?` or name the piece",
                    pattern.place,
                    orbit.name,
                    i - orbit.offset
                ));
            }
        }
    }
    Ok(goal)
}

/// Whether `state` (of the puzzle solved at the goal set's reference, blanks where it
/// drops pieces) matches `pattern`; a blank's orientation is not seen.
#[must_use]
pub fn matches(pattern: &GoalPattern, state: View<'_>) -> bool {
    pattern
        .pieces
        .iter()
        .zip(&pattern.orientation)
        .zip(state.pieces.iter().zip(state.orientation))
        .all(|((&want, &twist), (&piece, &o))| {
            want.is_none_or(|w| w == piece) && (piece == BLANK || twist.is_none_or(|t| t == o))
        })
}

/// Whether the symmetry `s` (over `compact`'s positions) maps the goal set `patterns`
/// onto itself: each pattern's image `S⁻¹·P·S` (a named piece's twist carried as a
/// position's is) is a pattern of the set, so the positions that match one match one
/// after `S`, and the distances to the set are the same in a class. A pattern naming
/// a twist but not the piece there, or anything the compact positions drop, has no
/// image as a pattern: no.
#[must_use]
pub fn maps_onto_itself(
    s: &Symmetry,
    patterns: &[GoalPattern],
    compact: &Compact,
    definition: &Definition,
) -> bool {
    let n = compact.len();
    let moduli = &compact.moduli;
    let first: Vec<usize> = (0..n)
        .map(|i| {
            (0..n)
                .position(|j| compact.orbit[j] == compact.orbit[i])
                .unwrap_or(i)
        })
        .collect();
    let inverse = s.s.inverse(moduli);
    let mut kept = vec![false; definition.default.pieces.len()];
    for &p in &compact.kept {
        kept[p] = true;
    }
    type Key<'a> = (&'a [Option<u8>], &'a [Option<u8>]);
    let set: std::collections::HashSet<Key<'_>> = patterns
        .iter()
        .map(|p| (p.pieces.as_slice(), p.orientation.as_slice()))
        .collect();
    patterns.iter().all(|pattern| {
        let dropped_named = (0..kept.len())
            .any(|p| !kept[p] && (pattern.pieces[p].is_some() || pattern.orientation[p].is_some()));
        if dropped_named {
            return false;
        }
        let mut pieces = pattern.pieces.clone();
        let mut orientation = pattern.orientation.clone();
        for i in 0..n {
            let from = s.s.permutation[i] as usize;
            let (source, target) = (compact.kept[from], compact.kept[i]);
            let m = moduli[i].max(1);
            let piece = pattern.pieces[source].map(|v| first[from] + v as usize);
            pieces[target] = match piece {
                Some(v) => {
                    let label = (inverse.permutation[v] as usize).checked_sub(first[i]);
                    match label.and_then(|l| u8::try_from(l).ok()) {
                        Some(label) => Some(label),
                        None => return false,
                    }
                }
                None => None,
            };
            orientation[target] = match (piece, pattern.orientation[source]) {
                (_, None) => None,
                (None, Some(_)) => return false,
                (Some(v), Some(o)) => {
                    let o = o % m;
                    let twist = if s.mirror { (m - o) % m } else { o };
                    Some((inverse.delta[v] % m + twist + s.s.delta[i] % m) % m)
                }
            };
        }
        set.contains(&(pieces.as_slice(), orientation.as_slice()))
    })
}

/// How many patterns `pattern` stands for over the pieces `goal` keeps, before any is
/// checked (the wildcards' arrangements times the orientations left open).
#[must_use]
pub fn stands_for(definition: &Definition, goal: &Pattern, pattern: &GoalPattern) -> u128 {
    let mut count: u128 = 1;
    for orbit in &definition.orbits {
        let range = orbit.offset..orbit.offset + orbit.pieces;
        let mut left = left_over(goal, pattern, range.clone());
        let mut places = 0u128;
        for p in range {
            let open_twist = pattern.orientation[p].is_none();
            if pattern.pieces[p].is_none() {
                places += 1;
                count = count.saturating_mul(places);
            }
            if open_twist && (pattern.pieces[p].is_some() || left.iter().any(|&(l, _)| l != BLANK))
            {
                count = count.saturating_mul(u128::from(orbit.orientations));
            }
        }
        // Arrangements of a multiset: places! over the factorials of equal pieces.
        for (_, n) in left.drain(..) {
            for i in 1..=n as u128 {
                count /= i;
            }
        }
    }
    count
}

/// The pieces of `goal` (blanks included) a pattern leaves for its wildcards in
/// `range`, with their numbers.
fn left_over(
    goal: &Pattern,
    pattern: &GoalPattern,
    range: std::ops::Range<usize>,
) -> Vec<(u8, usize)> {
    let mut counts = [0usize; 256];
    for p in range.clone() {
        counts[goal.pieces[p] as usize] += 1;
    }
    for p in range {
        if let Some(piece) = pattern.pieces[p] {
            counts[piece as usize] -= 1;
        }
    }
    (0..=255u8)
        .filter(|&l| counts[l as usize] > 0)
        .map(|l| (l, counts[l as usize]))
        .collect()
}

/// Calls `visit` with every pattern of the puzzle solved at `goal` that `pattern`
/// stands for: its named pieces where it names them, every arrangement of the pieces
/// left (blanks included) over its wildcards, every orientation it leaves open
/// (blanks keep 0). Stops early when `visit` returns false.
pub fn expand(
    definition: &Definition,
    goal: &Pattern,
    pattern: &GoalPattern,
    visit: &mut dyn FnMut(&Pattern) -> bool,
) {
    let mut orbit_of = vec![0usize; goal.pieces.len()];
    let mut left = Vec::with_capacity(definition.orbits.len());
    let mut labels = Vec::with_capacity(definition.orbits.len());
    for (k, orbit) in definition.orbits.iter().enumerate() {
        let range = orbit.offset..orbit.offset + orbit.pieces;
        let mut counts = [0usize; 256];
        let mut kinds = Vec::new();
        for (l, n) in left_over(goal, pattern, range.clone()) {
            counts[l as usize] = n;
            kinds.push(l);
        }
        left.push(counts);
        labels.push(kinds);
        orbit_of[range].fill(k);
    }
    let mut walk = Walk {
        moduli: &definition.moduli,
        orbit_of,
        pattern,
        left,
        labels,
        visit,
    };
    walk.step(0, &mut goal.clone());
}

/// The depth-first walk of [`expand`]: position by position, the pieces the
/// wildcards have left per orbit.
struct Walk<'a> {
    moduli: &'a [u8],
    orbit_of: Vec<usize>,
    pattern: &'a GoalPattern,
    left: Vec<[usize; 256]>,
    /// Per orbit, the pieces its wildcards may take, in increasing order.
    labels: Vec<Vec<u8>>,
    visit: &'a mut dyn FnMut(&Pattern) -> bool,
}

impl Walk<'_> {
    /// Fills positions `p..`; false once the visitor asked to stop.
    fn step(&mut self, p: usize, state: &mut Pattern) -> bool {
        if p == state.pieces.len() {
            return (self.visit)(state);
        }
        let k = self.orbit_of[p];
        let wild = self.pattern.pieces[p].is_none();
        let named = self.pattern.pieces[p].map(|x| [x]);
        // A wildcard tries the orbit's pieces left over, not every byte.
        let choices = match &named {
            Some(one) => one.len(),
            None => self.labels[k].len(),
        };
        for c in 0..choices {
            let piece = match named {
                Some([x]) => x,
                None => self.labels[k][c],
            };
            if wild {
                if self.left[k][piece as usize] == 0 {
                    continue;
                }
                self.left[k][piece as usize] -= 1;
            }
            state.pieces[p] = piece;
            let (low, high) = match (piece, self.pattern.orientation[p]) {
                (BLANK, _) => (0, 0),
                (_, Some(o)) => (o, o),
                (_, None) => (0, self.moduli[p].max(1) - 1),
            };
            let mut go_on = true;
            for o in low..=high {
                state.orientation[p] = o;
                if !self.step(p + 1, state) {
                    go_on = false;
                    break;
                }
            }
            if wild {
                self.left[k][piece as usize] += 1;
            }
            if !go_on {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::Puzzle;
    use crate::puzzles::kpuzzle::library::open;
    use proptest::prelude::*;

    /// A 2x2x2 goal pattern's text: the pieces in some order (DLB, which U, R and F
    /// never move, at home), some of them `?`, each twist 0 to 2 or `?`; now and then a
    /// piece named twice or a count off by one.
    fn pattern() -> impl Strategy<Value = String> {
        (
            Just(vec![0u8, 1, 2, 3, 4, 5, 7])
                .prop_shuffle()
                .prop_map(|mut order| {
                    order.insert(6, 6);
                    order
                }),
            any::<u8>(),
            proptest::collection::vec(0u8..4, 8),
            0u8..16,
        )
            .prop_map(|(order, wild, twists, flaw)| {
                let mut pieces: Vec<String> = order
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        if wild >> i & 1 == 1 {
                            "?".into()
                        } else {
                            x.to_string()
                        }
                    })
                    .collect();
                let mut twists: Vec<String> = twists
                    .iter()
                    .map(|&t| if t == 3 { "?".into() } else { t.to_string() })
                    .collect();
                twists[6] = "0".into();
                match flaw {
                    0 => pieces[1] = pieces[0].clone(),
                    1 => drop(twists.pop()),
                    2 => pieces.push("?".into()),
                    _ => {}
                }
                format!("CORNERS: {} / {}", pieces.join(" "), twists.join(" "))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Any goal text opens or is refused, never panics; an opened set's positions
        /// are goals, and it has one at least.
        #[test]
        fn goal_sets_open_or_are_refused(patterns in proptest::collection::vec(pattern(), 1..=3)) {
            let name = format!("2x2x2 --goal {}", patterns.join(" | "));
            let opened = open(&name);
            if let Err(e) = &opened {
                prop_assert!(!e.to_string().is_empty());
            }
            if let Ok(puzzle) = opened {
                let goals = puzzle.goal_indices();
                prop_assert!(!goals.is_empty(), "{name}");
                for &index in goals.iter().step_by(goals.len().div_ceil(32)) {
                    prop_assert!(puzzle.is_goal(&puzzle.unrank(index)), "{name}");
                }
                let total: u128 = puzzle
                    .goal_patterns()
                    .unwrap()
                    .iter()
                    .map(|p| super::stands_for(&puzzle.definition, &puzzle.goal, p))
                    .sum();
                prop_assert!(goals.len() as u128 <= total, "{name}");
            }
        }
    }
}
