//! Level-synchronous breadth-first search from the goal over a [`DepthStore`].
//!
//! The engine knows levels, storage and threads, nothing about any particular puzzle:
//! it hands the puzzle ascending runs of indices ([`Puzzle::expand_sorted`]) and reads
//! or writes the neighbours it gets back.
//!
//! Each level runs in one of two directions (direction-optimizing BFS, Beamer et al.
//! 2012): **top-down** expands the frontier and marks its unseen neighbours; once the
//! frontier outgrows the unseen states of the next level's colour, **bottom-up** scans
//! those unseen states instead and keeps the ones that have a neighbour in the frontier.
//! Work is split into chunks of `2^CHUNK_SHIFT` indices that run in parallel on rayon's
//! pool. Per chunk the engine remembers the last level written into it, so sparse early
//! levels only visit the chunks that hold frontier states.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::puzzle::{Puzzle, Segment};
use crate::store::{DepthStore, Wanted};

/// log2 of the number of indices in one unit of parallel work.
pub const CHUNK_SHIFT: u32 = 17;

const NEVER: u32 = u32::MAX;

/// A top-down level whose frontier holds more than 1/DENSE_FRACTION of its colour is
/// "dense": it writes without tracking which chunks it touched.
const DENSE_FRACTION: u64 = 64;

/// Work items scanned at once on levels that may write into the ranges they scan.
const SCAN_BATCH: usize = 256;

/// How one level was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// The frontier's neighbours were marked.
    TopDown,
    /// Unseen states looked for a neighbour in the frontier.
    BottomUp,
}

/// What one finished level found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelStats {
    /// The depth of the states found.
    pub depth: u32,
    /// How many states have this depth.
    pub new_states: u64,
    /// How many states have this depth or less.
    pub cumulative: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// How the level was computed (`None` for the goal itself).
    pub direction: Option<Direction>,
}

/// Receives progress from a running search. Called from worker threads, hence `Sync`.
/// The library never prints; a front end renders these events.
pub trait Observer: Sync {
    /// A level starts; `work_units` calls of [`Observer::work_done`] will follow in total.
    fn level_started(&self, _depth: u32, _direction: Direction, _work_units: u64) {}
    /// Some units of the current level are done.
    fn work_done(&self, _units: u64) {}
    /// A level is finished.
    fn level_finished(&self, _stats: &LevelStats) {}
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {}

/// Why a search stopped early.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The store cannot hold the depths this puzzle reaches.
    #[error("depth {depth} exceeds what the depth encoding can record ({max})")]
    DepthOverflow {
        /// The depth that did not fit.
        depth: u32,
        /// The encoding's largest depth.
        max: u32,
    },
    /// The store and the puzzle disagree on the number of indices.
    #[error("the depth store has {store} entries but the puzzle has {puzzle} indices")]
    SizeMismatch {
        /// Entries in the store.
        store: u64,
        /// Indices of the puzzle.
        puzzle: u64,
    },
}

/// The result of a complete search: `histogram[d]` states at distance `d` from the goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram(pub Vec<u64>);

impl Histogram {
    /// The number of states reached.
    pub fn reachable(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The largest distance (God's number).
    pub fn gods_number(&self) -> u32 {
        self.0.len().saturating_sub(1) as u32
    }
}

/// One unit of parallel work: a run of indices inside one segment and one chunk.
struct WorkItem {
    range: Range<u64>,
    chunk: usize,
    class: usize,
    /// Every state of the range has been reached: bottom-up levels skip it.
    exhausted: AtomicBool,
}

fn work_items(segments: &[Segment]) -> Vec<WorkItem> {
    let mut items = Vec::new();
    for segment in segments {
        let mut start = segment.indices.start;
        while start < segment.indices.end {
            let chunk = start >> CHUNK_SHIFT;
            let end = ((chunk + 1) << CHUNK_SHIFT).min(segment.indices.end);
            items.push(WorkItem {
                range: start..end,
                chunk: chunk as usize,
                class: segment.colour.map_or(0, |c| c as usize),
                exhausted: AtomicBool::new(false),
            });
            start = end;
        }
    }
    items
}

/// Runs the search from the goal until a level finds nothing new, filling `store`
/// (which must be fresh: every entry unseen). Runs on the current rayon pool.
pub fn search<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    observer: &dyn Observer,
) -> Result<Histogram, EngineError> {
    if store.len() != puzzle.index_count() {
        return Err(EngineError::SizeMismatch {
            store: store.len(),
            puzzle: puzzle.index_count(),
        });
    }
    let started = Instant::now();
    let segments = puzzle.segments();
    let bipartite = segments.iter().all(|s| s.colour.is_some());
    let items = work_items(&segments);
    let chunk_count = ((puzzle.index_count() >> CHUNK_SHIFT) + 1) as usize;
    let last_written: Vec<AtomicU32> = (0..chunk_count).map(|_| AtomicU32::new(NEVER)).collect();

    let mut class_size = [0u64; 2];
    for item in &items {
        class_size[item.class] += item.range.end - item.range.start;
    }
    let goal = puzzle.rank(&puzzle.goal());
    let goal_class = items
        .iter()
        .find(|item| item.range.contains(&goal))
        .map_or(0, |item| item.class);
    // The class of the states at depth `d`.
    let class_of = |d: u32| -> usize {
        if bipartite {
            goal_class ^ (d as usize & 1)
        } else {
            0
        }
    };

    store.set(goal, 0);
    last_written[(goal >> CHUNK_SHIFT) as usize].store(0, Ordering::Relaxed);
    let mut seen = [0u64; 2];
    seen[goal_class] = 1;
    let mut histogram = vec![1u64];
    observer.level_finished(&LevelStats {
        depth: 0,
        new_states: 1,
        cumulative: 1,
        elapsed: started.elapsed(),
        direction: None,
    });

    loop {
        let depth = histogram.len() as u32 - 1;
        let next = depth + 1;
        if next > store.max_depth() {
            return Err(EngineError::DepthOverflow {
                depth: next,
                max: store.max_depth(),
            });
        }
        let frontier = histogram[depth as usize];
        let target = class_of(next);
        let unseen = class_size[target] - seen[target];
        if unseen == 0 {
            break;
        }
        let direction = if frontier > unseen {
            Direction::BottomUp
        } else {
            Direction::TopDown
        };
        let found = if direction == Direction::BottomUp {
            let chosen: Vec<&WorkItem> = items
                .iter()
                .filter(|i| i.class == target && !i.exhausted.load(Ordering::Relaxed))
                .collect();
            observer.level_started(next, direction, chosen.len() as u64);
            bottom_up(puzzle, store, &chosen, &last_written, depth, observer)
        } else {
            let source = class_of(depth);
            let chosen: Vec<&WorkItem> = items
                .iter()
                .filter(|i| {
                    i.class == source && last_written[i.chunk].load(Ordering::Relaxed) == depth
                })
                .collect();
            observer.level_started(next, direction, chosen.len() as u64);
            // A dense frontier touches every chunk anyway: skip the per-write bookkeeping.
            let dense = frontier * DENSE_FRACTION > class_size[class_of(depth)];
            top_down(
                puzzle,
                store,
                &chosen,
                (!dense).then_some(last_written.as_slice()),
                depth,
                bipartite,
                observer,
            );
            if dense {
                for item in items.iter().filter(|i| i.class == target) {
                    last_written[item.chunk].store(next, Ordering::Relaxed);
                }
            }
            let written: Vec<&WorkItem> = items
                .iter()
                .filter(|i| {
                    i.class == target && last_written[i.chunk].load(Ordering::Relaxed) == next
                })
                .collect();
            written
                .par_iter()
                // SAFETY: the level is over; no thread writes the store during the count.
                .map(|item| unsafe {
                    store.count_exclusive(item.range.clone(), Wanted::Depth(next))
                })
                .sum()
        };
        if found == 0 {
            break;
        }
        seen[target] += found;
        histogram.push(found);
        observer.level_finished(&LevelStats {
            depth: next,
            new_states: found,
            cumulative: seen[0] + seen[1],
            elapsed: started.elapsed(),
            direction: Some(direction),
        });
    }
    Ok(Histogram(histogram))
}

thread_local! {
    /// Each worker's reusable list of indices (one chunk's worth at most).
    static BUFFER: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `job` with this thread's cleared index buffer.
fn with_buffer<T>(job: impl FnOnce(&mut Vec<u64>) -> T) -> T {
    BUFFER.with(|cell| {
        let mut buffer = cell.borrow_mut();
        buffer.clear();
        job(&mut buffer)
    })
}

#[inline(always)]
fn mark_chunk(last_written: &[AtomicU32], index: u64, depth: u32) {
    let slot = &last_written[(index >> CHUNK_SHIFT) as usize];
    if slot.load(Ordering::Relaxed) != depth {
        slot.store(depth, Ordering::Relaxed);
    }
}

fn top_down<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    items: &[&WorkItem],
    last_written: Option<&[AtomicU32]>,
    depth: u32,
    bipartite: bool,
    observer: &dyn Observer,
) {
    let next = depth + 1;
    let expand = |frontier: &[u64]| match last_written {
        Some(last_written) => puzzle.expand_sorted(frontier, |_, neighbours| {
            for &n in neighbours {
                if store.matches(n, Wanted::Unseen) {
                    store.set(n, next);
                    mark_chunk(last_written, n, next);
                }
            }
        }),
        None => puzzle.expand_sorted(frontier, |_, neighbours| {
            for &n in neighbours {
                store.mark_if_unseen(n, next);
            }
        }),
    };
    if bipartite {
        items.par_iter().for_each(|item| {
            with_buffer(|frontier| {
                // SAFETY: in a bipartite graph this level only writes states of the other
                // colour, so nobody writes this item's range during the scan.
                unsafe {
                    store.collect_exclusive(item.range.clone(), Wanted::Depth(depth), frontier)
                };
                expand(frontier);
                observer.work_done(1);
            })
        });
    } else {
        // Writes may land anywhere, so scanning and writing alternate batch by batch.
        for batch in items.chunks(SCAN_BATCH) {
            let frontiers: Vec<Vec<u64>> = batch
                .par_iter()
                .map(|item| {
                    let mut frontier = Vec::new();
                    // SAFETY: no thread writes the store while a batch is scanned.
                    unsafe {
                        store.collect_exclusive(
                            item.range.clone(),
                            Wanted::Depth(depth),
                            &mut frontier,
                        )
                    };
                    frontier
                })
                .collect();
            frontiers.par_iter().for_each(|frontier| {
                expand(frontier);
                observer.work_done(1);
            });
        }
    }
}

fn bottom_up<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    items: &[&WorkItem],
    last_written: &[AtomicU32],
    depth: u32,
    observer: &dyn Observer,
) -> u64 {
    let next = depth + 1;
    items
        .par_iter()
        .map(|item| {
            with_buffer(|unseen| {
                // SAFETY: in bottom-up mode a state is written only by the thread that
                // owns its work item, and this thread scans before it writes.
                unsafe { store.collect_exclusive(item.range.clone(), Wanted::Unseen, unseen) };
                if unseen.is_empty() {
                    item.exhausted.store(true, Ordering::Relaxed);
                }
                let mut found = 0u64;
                puzzle.expand_sorted(unseen, |index, neighbours| {
                    if neighbours
                        .iter()
                        .any(|&n| store.matches(n, Wanted::Depth(depth)))
                    {
                        store.set(index, next);
                        found += 1;
                    }
                });
                if found > 0 {
                    last_written[item.chunk].store(next, Ordering::Relaxed);
                }
                if found == unseen.len() as u64 {
                    item.exhausted.store(true, Ordering::Relaxed);
                }
                observer.work_done(1);
                found
            })
        })
        .sum()
}

/// The indices at exactly `depth`, ascending, at most `limit` of them.
pub fn indices_at_depth<S: DepthStore>(store: &S, depth: u32, limit: usize) -> Vec<u64> {
    let len = store.len();
    let chunks: Vec<Range<u64>> = (0..len.div_ceil(1 << CHUNK_SHIFT))
        .map(|c| (c << CHUNK_SHIFT)..((c + 1) << CHUNK_SHIFT).min(len))
        .collect();
    let mut found: Vec<u64> = chunks
        .par_iter()
        .flat_map_iter(|range| {
            let mut out = Vec::new();
            // SAFETY: called after the search; nobody writes the store.
            unsafe { store.collect_exclusive(range.clone(), Wanted::Depth(depth), &mut out) };
            out
        })
        .collect();
    found.truncate(limit);
    found
}
