//! `antipode verify`: an independent check of a finished table.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{Table, payload_crc32};
use crate::puzzle::Puzzle;
use crate::store::DepthRead;
use crate::units::thousands;
use crate::with_depths;

/// One named check and its outcome.
///
/// ```
/// use antipode::{driver::Control, puzzles::SlidingPuzzle};
/// use antipode::table::{self, BuildOptions, Table};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("2x3.table");
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// table::build(&board, &path, &BuildOptions::default(), &Control::default()).unwrap();
/// let checks = table::verify(&Table::open(&path).unwrap(), &board);
/// assert!(checks.iter().all(|check| check.ok), "{checks:?}");
/// ```
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    /// What was checked.
    pub name: String,
    /// Whether it holds.
    pub ok: bool,
    /// Details (counts, the first offending index).
    pub detail: String,
}

/// Checks, in parallel over all indices: the goal set is exactly the states at depth 0
/// (with depths mod 3: every goal holds residue 0); every other reached state has a
/// neighbour one level closer and (exact depths only) none two or more closer; no
/// unreached state has a reached neighbour; the states per level match the header's
/// histogram; the payload matches its checksum.
pub fn verify<P: Puzzle>(table: &Table, puzzle: &P) -> Vec<Check> {
    verify_observed(table, puzzle, &crate::engine::Silent)
}

/// [`verify`], telling `observer` of its progress: one level of work, in states
/// (`work_done` after each chunk of states checked).
pub fn verify_observed<P: Puzzle>(
    table: &Table,
    puzzle: &P,
    observer: &dyn crate::engine::Observer,
) -> Vec<Check> {
    let header = table.header();
    let mut checks = Vec::new();
    let found = payload_crc32(table.depths().map());
    checks.push(Check {
        name: "payload checksum".into(),
        ok: found == header.payload_crc32,
        detail: format!("{found:08x} (header {:08x})", header.payload_crc32),
    });
    if table.checks_blocks() {
        let blocks = table.check_all();
        checks.push(Check {
            name: "block checksums".into(),
            ok: blocks.is_ok(),
            detail: match blocks {
                Ok(()) => "every block of the payload matches its checksum".into(),
                Err(e) => e.to_string(),
            },
        });
    }
    let puzzle_ok = table.check_puzzle(puzzle);
    checks.push(Check {
        name: "puzzle".into(),
        ok: puzzle_ok.is_ok(),
        detail: format!("{} (goal {})", header.puzzle, header.goal),
    });
    if puzzle_ok.is_err() {
        return checks;
    }
    with_depths!(table.depths(), store => checks.extend(check_store(puzzle, store, &header.histogram, observer)));
    checks
}

fn check_store<P: Puzzle, R: DepthRead>(
    puzzle: &P,
    store: &R,
    histogram: &[u64],
    observer: &dyn crate::engine::Observer,
) -> Vec<Check> {
    let period = store.period();
    let goals = puzzle.goal_indices();
    let is_goal = |index: u64| goals.binary_search(&index).is_ok();
    let slots = period.map_or(256, |p| p as usize);
    let counts: Vec<AtomicU64> = (0..=slots).map(|_| AtomicU64::new(0)).collect();
    let bad_descent = AtomicU64::new(u64::MAX);
    let bad_unseen = AtomicU64::new(u64::MAX);
    let n = store.len();
    const CHUNK: u64 = 1 << 15;
    observer.level_started(0, crate::engine::Direction::TopDown, n);
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        let indices: Vec<u64> = (c * CHUNK..((c + 1) * CHUNK).min(n)).collect();
        let mut local = vec![0u64; slots + 1];
        puzzle.expand_sorted(&indices, |index, neighbours| {
            let value = store.value(index);
            local[value.map_or(slots, |v| v as usize)] += 1;
            let ok = match value {
                None => neighbours.iter().all(|&m| store.value(m).is_none()),
                Some(v) if is_goal(index) => v == 0,
                // Exact depths: depth 0 is the goal set and nothing else.
                Some(0) if period.is_none() => false,
                Some(v) => {
                    let values = neighbours.iter().map(|&m| store.value(m));
                    let mut has_closer = false;
                    let mut too_close = false;
                    for w in values {
                        has_closer |= w == Some(store.closer(v));
                        too_close |= period.is_none() && w.is_some_and(|w| w + 1 < v);
                    }
                    has_closer && !too_close
                }
            };
            if !ok {
                let slot = if value.is_none() {
                    &bad_unseen
                } else {
                    &bad_descent
                };
                slot.fetch_min(index, Ordering::Relaxed);
            }
        });
        for (total, part) in counts.iter().zip(local) {
            total.fetch_add(part, Ordering::Relaxed);
        }
        observer.work_done(indices.len() as u64);
    });
    let counts: Vec<u64> = counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let expected = expected_counts(histogram, period, slots);
    let reached: u64 = histogram.iter().sum();
    let unreached = counts[slots];
    vec![
        Check {
            name: "goal set at depth 0".into(),
            ok: goals.iter().all(|&g| store.value(g) == Some(0))
                && histogram.first() == Some(&(goals.len() as u64)),
            detail: format!(
                "{} goal state(s), first index {}",
                goals.len(),
                goals.first().copied().unwrap_or(0)
            ),
        },
        Check {
            name: if period.is_some() {
                "every state has a neighbour one closer".into()
            } else {
                "every state has a neighbour one closer, none two closer".into()
            },
            ok: bad_descent.load(Ordering::Relaxed) == u64::MAX,
            detail: first_failure(
                &bad_descent,
                format!("holds for all {} reached states", thousands(reached)),
            ),
        },
        Check {
            name: "no unreached state next to a reached one".into(),
            ok: bad_unseen.load(Ordering::Relaxed) == u64::MAX,
            detail: first_failure(
                &bad_unseen,
                format!("holds for all {} unreached states", thousands(unreached)),
            ),
        },
        Check {
            name: "states per level match the header".into(),
            ok: counts[..slots] == expected[..] && counts[slots] == n - reached,
            detail: format!(
                "{} reached, {} unreached",
                thousands(reached),
                thousands(unreached)
            ),
        },
    ]
}

/// The states per slot (a depth, or with depths mod `period` a residue) that the
/// header's `histogram` implies.
fn expected_counts(histogram: &[u64], period: Option<u32>, slots: usize) -> Vec<u64> {
    (0..slots)
        .map(|slot| {
            histogram
                .iter()
                .enumerate()
                .filter(|(d, _)| period.map_or(*d == slot, |p| d % p as usize == slot))
                .map(|(_, &c)| c)
                .sum()
        })
        .collect()
}

/// Where a check failed first (the index an atomic minimum holds), or `held`.
fn first_failure(index: &AtomicU64, held: String) -> String {
    match index.load(Ordering::Relaxed) {
        u64::MAX => held,
        i => format!("it fails first at index {i}"),
    }
}
