//! The large parts a symmetry maps onto themselves, found without a scan of every
//! part ([`super::PatternIndex::scan_symmetric`]).
//!
//! A part is fixed by symmetry `h` when every position holds what `h` brings it from
//! its source ([`Symmetries::source_of`], [`Symmetries::image_of`]). Following the
//! sources, the large positions fall into cycles: a cycle's first position may take
//! any piece and twist that come back to it around the cycle, and the others follow
//! from it. Every choice of one assignment per cycle whose pieces are counted as in
//! the goal (per digit) is a candidate.

use std::collections::HashMap;

use super::Symmetries;
use crate::puzzles::kpuzzle::definition::Pattern;

/// The positions of the large digits, each with its digit, and each digit's pieces
/// as the goal counts them.
pub(super) struct LargePositions {
    /// The positions in order.
    positions: Vec<usize>,
    digit_at: HashMap<usize, usize>,
    /// Per digit, how many of each piece label the goal has on it.
    goal_counts: Vec<[u8; 256]>,
}

impl LargePositions {
    /// The positions of `digits` (each digit's places) and their pieces in `goal`.
    pub(super) fn new<'a>(digits: impl Iterator<Item = &'a [u8]>, goal: &Pattern) -> Self {
        let mut large = LargePositions {
            positions: Vec::new(),
            digit_at: HashMap::new(),
            goal_counts: Vec::new(),
        };
        for (digit, places) in digits.enumerate() {
            let mut counts = [0u8; 256];
            for &p in places {
                large.positions.push(p as usize);
                large.digit_at.insert(p as usize, digit);
                counts[goal.pieces[p as usize] as usize] += 1;
            }
            large.goal_counts.push(counts);
        }
        large.positions.sort_unstable();
        large
    }

    /// Whether `a` and `b` hold the same pieces and twists on every large position.
    pub(super) fn agree(&self, a: &Pattern, b: &Pattern) -> bool {
        self.positions
            .iter()
            .all(|&p| (a.pieces[p], a.orientation[p]) == (b.pieces[p], b.orientation[p]))
    }
}

/// One cycle of the large positions under a symmetry (each position takes its piece
/// from the next, the last from the first), and every assignment of pieces and
/// twists around it that the symmetry keeps.
pub(super) struct Cycle {
    positions: Vec<usize>,
    assignments: Vec<Vec<(u8, u8)>>,
}

/// The cycles of the large positions under symmetry `h`, with their assignments
/// (twists modulo `moduli` of each position); `None` if `h` takes a large
/// position's piece from a position that is not large.
pub(super) fn cycles(
    classes: &impl Symmetries,
    h: usize,
    large: &LargePositions,
    moduli: &[u8],
) -> Option<Vec<Cycle>> {
    let mut cycles = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &start in &large.positions {
        if !seen.insert(start) {
            continue;
        }
        let mut positions = vec![start];
        let mut next = classes.source_of(h, start)?;
        while next != start {
            if !large.digit_at.contains_key(&next) || !seen.insert(next) {
                return None;
            }
            positions.push(next);
            next = classes.source_of(h, next)?;
        }
        let counts = &large.goal_counts[large.digit_at[&start]];
        let mut assignments = Vec::new();
        for piece in (0..=255u8).filter(|&l| counts[l as usize] > 0) {
            for twist in 0..moduli[start].max(1) {
                // From the first position's value, the last's (it takes from the
                // first), then each before it, and around to the first again.
                let mut values = vec![(piece, twist); positions.len()];
                let mut from = (piece, twist);
                for j in (1..positions.len()).rev() {
                    from = classes.image_of(h, positions[j], from.0, from.1);
                    values[j] = from;
                }
                if classes.image_of(h, start, from.0, from.1) == (piece, twist) {
                    assignments.push(values);
                }
            }
        }
        cycles.push(Cycle {
            positions,
            assignments,
        });
    }
    Some(cycles)
}

/// Calls `candidate` with `pattern` holding each choice of one assignment per cycle
/// whose pieces number at most the goal's on every digit (hence exactly).
pub(super) fn each_candidate(
    cycles: &[Cycle],
    large: &LargePositions,
    mut pattern: Pattern,
    candidate: &mut dyn FnMut(&Pattern),
) {
    let mut counts = vec![[0u8; 256]; large.goal_counts.len()];
    walk(cycles, large, &mut counts, &mut pattern, candidate);
}

/// Depth first over `cycles`, pieces counted per digit in `counts` as they are placed.
fn walk(
    cycles: &[Cycle],
    large: &LargePositions,
    counts: &mut [[u8; 256]],
    pattern: &mut Pattern,
    candidate: &mut dyn FnMut(&Pattern),
) {
    let Some((cycle, rest)) = cycles.split_first() else {
        candidate(pattern);
        return;
    };
    for values in &cycle.assignments {
        let placed = cycle.positions.iter().zip(values);
        let fits = placed.clone().try_fold(0usize, |k, (&p, &(piece, _))| {
            let d = large.digit_at[&p];
            if counts[d][piece as usize] == large.goal_counts[d][piece as usize] {
                return Err(k);
            }
            counts[d][piece as usize] += 1;
            Ok(k + 1)
        });
        let placed_count = match fits {
            Ok(all) => all,
            Err(k) => k,
        };
        if fits.is_ok() {
            for (&p, &(piece, twist)) in placed.clone() {
                pattern.pieces[p] = piece;
                pattern.orientation[p] = twist;
            }
            walk(rest, large, counts, pattern, candidate);
        }
        for (&p, &(piece, _)) in placed.take(placed_count) {
            counts[large.digit_at[&p]][piece as usize] -= 1;
        }
    }
}
