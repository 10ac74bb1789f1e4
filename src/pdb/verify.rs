//! `antipode verify` on a pattern database: an independent check of every entry.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::file::Pdb;
use crate::rank::partial::Cursor;
use crate::table::Check;

/// Placements one worker checks at a time.
const CHUNK: u64 = 1 << 16;

/// Checks, in parallel over all placements: the goal placement is the only one at
/// distance 0; every other placement has a neighbour (one pattern tile moved to a
/// free cell next to it) that is closer, since an optimal sequence starts with such a
/// move; no entry is below the pattern tiles' Manhattan distance; no placement that
/// no solvable position has (entry 0) is next to one that is reached, since moves
/// keep a position's parity; the placements per distance match the header's
/// histogram. The payload checksum and the definition were checked by [`Pdb::open`].
#[must_use]
pub fn verify(pdb: &Pdb) -> Vec<Check> {
    verify_observed(pdb, &crate::engine::Silent)
}

/// [`verify`], telling `observer` of its progress: one level of work, in placements
/// (`work_done` after each chunk).
pub fn verify_observed(pdb: &Pdb, observer: &dyn crate::engine::Observer) -> Vec<Check> {
    let header = pdb.header();
    let pattern = pdb.pattern();
    let placements = pattern.placements();
    let k = pattern.tiles().len();
    let levels = header.histogram.len();
    // Per distance, then the unreached placements, then entries beyond the header's
    // levels.
    let (unreached, beyond) = (levels, levels + 1);
    let counts: Vec<AtomicU64> = (0..=beyond).map(|_| AtomicU64::new(0)).collect();
    let [no_closer, below_manhattan, unreached_next, zero_elsewhere] =
        std::array::from_fn(|_| AtomicU64::new(u64::MAX));
    let goal_rank = placements.rank(pattern.homes());
    let count = placements.count();
    observer.level_started(0, crate::engine::Direction::TopDown, count);
    (0..count.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        let mut cursor = Cursor::new(placements);
        let mut local = vec![0u64; beyond + 1];
        for rank in c * CHUNK..((c + 1) * CHUNK).min(count) {
            let places = cursor.seek(rank);
            let distance = pdb.distance_at(rank, places);
            local[distance.map_or(unreached, |d| (d as usize).min(beyond))] += 1;
            if let Some(d) = distance
                && d < pdb.manhattan(places)
            {
                below_manhattan.fetch_min(rank, Ordering::Relaxed);
            }
            if distance == Some(0) && rank != goal_rank {
                zero_elsewhere.fetch_min(rank, Ordering::Relaxed);
            }
            let prepared = placements.prepare(places, rank);
            let taken = places.iter().fold(0u32, |t, &p| t | 1 << p);
            let mut closer = false;
            let mut reached_next = false;
            for (i, &from) in places.iter().enumerate().take(k) {
                let mut free = pattern.around(from as usize) & !taken;
                while free != 0 {
                    let to = free.trailing_zeros();
                    free &= free - 1;
                    let next = prepared.rank_after_move(i, to);
                    let mut next_places = [0u8; 32];
                    next_places[..k].copy_from_slice(places);
                    next_places[i] = to as u8;
                    let next_distance = pdb.distance_at(next, &next_places[..k]);
                    reached_next |= next_distance.is_some();
                    closer |= matches!((distance, next_distance), (Some(d), Some(e)) if e < d);
                }
            }
            match distance {
                None if reached_next => {
                    unreached_next.fetch_min(rank, Ordering::Relaxed);
                }
                Some(d) if d > 0 && !closer => {
                    no_closer.fetch_min(rank, Ordering::Relaxed);
                }
                _ => {}
            }
        }
        observer.work_done(CHUNK.min(count - c * CHUNK));
        for (total, n) in counts.iter().zip(local) {
            total.fetch_add(n, Ordering::Relaxed);
        }
    });
    let counts: Vec<u64> = counts.into_iter().map(AtomicU64::into_inner).collect();
    let rank_check = |name: &str, first: AtomicU64| {
        let first = first.into_inner();
        Check {
            name: name.into(),
            ok: first == u64::MAX,
            detail: if first == u64::MAX {
                "none".into()
            } else {
                let mut places = vec![0u8; k];
                placements.unrank(first, &mut places);
                format!("first at rank {first} (tiles on cells {places:?})")
            },
        }
    };
    let reached: u64 = counts[..levels].iter().sum();
    vec![
        Check {
            name: "goal placement at distance 0, alone".into(),
            ok: pdb.distance_at(goal_rank, pattern.homes()) == Some(0)
                && zero_elsewhere.load(Ordering::Relaxed) == u64::MAX,
            detail: format!("rank {goal_rank}"),
        },
        rank_check("placements without a closer neighbour", no_closer),
        rank_check("entries below the Manhattan distance", below_manhattan),
        rank_check("unreached placements next to reached ones", unreached_next),
        Check {
            name: "placements per distance match the header".into(),
            ok: counts[..levels] == header.histogram[..] && counts[beyond] == 0,
            detail: format!(
                "{reached} reached, {} unreached (no solvable position has them), {} beyond \
                 the header's {levels} levels",
                counts[unreached], counts[beyond]
            ),
        },
    ]
}
