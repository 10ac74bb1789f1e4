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
    /// A stop was requested; the levels before the interrupted one are complete.
    #[error("interrupted after {} complete level(s)", histogram.len())]
    Interrupted {
        /// The states per depth of the levels that are complete in the store.
        histogram: Vec<u64>,
    },
    /// The checkpoint callback failed.
    #[error("cannot record progress: {0}")]
    Checkpoint(std::io::Error),
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

/// Called after each completed level with the histogram so far.
pub type Checkpoint<'a> = dyn FnMut(&[u64]) -> std::io::Result<()> + 'a;

/// Options of [`search_with`]: resuming, checkpointing and stopping.
#[derive(Default)]
pub struct SearchOptions<'a> {
    /// The histogram of the levels the store already holds completely (a resumed
    /// run). Entries of the level after them may be partly written; they are redone.
    pub resume: Option<Vec<u64>>,
    /// Called after every completed level with the histogram so far, e.g. to make
    /// the store durable and record progress. An error stops the search.
    pub checkpoint: Option<&'a mut Checkpoint<'a>>,
    /// Checked between work items: once set, the search stops within the current
    /// level and returns [`EngineError::Interrupted`].
    pub stop: Option<&'a AtomicBool>,
    /// If given, receives the indices (ascending) of the last level when that level
    /// ran bottom-up and held at most [`CAPTURE_LIMIT`] states; left empty otherwise.
    /// With depths mod 3 this is how the antipodes are found.
    pub last_level: Option<&'a mut Vec<u64>>,
}

/// Most states a captured last level may hold.
pub const CAPTURE_LIMIT: usize = 1 << 20;

/// Runs the search from the goal until a level finds nothing new, filling `store`
/// (which must be fresh: every entry unseen). Runs on the current rayon pool.
pub fn search<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    observer: &dyn Observer,
) -> Result<Histogram, EngineError> {
    search_with(puzzle, store, observer, SearchOptions::default())
}

/// [`search`] with options: resume from completed levels, checkpoint after each level,
/// stop on request.
pub fn search_with<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    observer: &dyn Observer,
    mut options: SearchOptions<'_>,
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
    let stop = options.stop;
    let stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));

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

    let mut seen = [0u64; 2];
    let mut histogram = match options.resume.take() {
        Some(histogram) if !histogram.is_empty() => {
            for (d, &count) in histogram.iter().enumerate() {
                seen[class_of(d as u32)] += count;
            }
            // Where the last level lies is unknown: every chunk may hold it.
            let last = histogram.len() as u32 - 1;
            for slot in &last_written {
                slot.store(last, Ordering::Relaxed);
            }
            histogram
        }
        _ => {
            store.set(goal, 0);
            last_written[(goal >> CHUNK_SHIFT) as usize].store(0, Ordering::Relaxed);
            seen[goal_class] = 1;
            observer.level_finished(&LevelStats {
                depth: 0,
                new_states: 1,
                cumulative: 1,
                elapsed: started.elapsed(),
                direction: None,
            });
            if let Some(checkpoint) = options.checkpoint.as_mut() {
                checkpoint(&[1]).map_err(EngineError::Checkpoint)?;
            }
            vec![1u64]
        }
    };
    // The first level after a resume may find entries a crash left half written, so
    // it is counted by a full scan.
    let mut recount = histogram.len() > 1;

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
        let mut found = if direction == Direction::BottomUp {
            let chosen: Vec<&WorkItem> = items
                .iter()
                .filter(|i| i.class == target && !i.exhausted.load(Ordering::Relaxed))
                .collect();
            observer.level_started(next, direction, chosen.len() as u64);
            let capture = options.last_level.is_some();
            let (found, captured) = bottom_up(
                puzzle,
                store,
                &chosen,
                &last_written,
                depth,
                stop,
                capture,
                observer,
            );
            if let Some(last) = options.last_level.as_mut() {
                **last = captured.unwrap_or_default();
            }
            Some(found)
        } else {
            if let Some(last) = options.last_level.as_mut() {
                last.clear();
            }
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
                stop,
                observer,
            );
            if dense {
                for item in items.iter().filter(|i| i.class == target) {
                    last_written[item.chunk].store(next, Ordering::Relaxed);
                }
            }
            None
        }
        .filter(|_| !recount);
        if stopped() {
            return Err(EngineError::Interrupted { histogram });
        }
        if found.is_none() {
            found = Some(count_level(
                store,
                &items,
                &last_written,
                &histogram,
                next,
                target,
                &class_of,
            ));
        }
        recount = false;
        let found = found.unwrap_or(0);
        if found == 0 {
            break;
        }
        seen[target] += found;
        histogram.push(found);
        if let Some(checkpoint) = options.checkpoint.as_mut() {
            checkpoint(&histogram).map_err(EngineError::Checkpoint)?;
        }
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

/// The number of states at depth `next`, by scanning the chunks of its colour: only
/// those written at this level when the store is exact, all of them when it stores
/// depths mod p (then the earlier levels with the same residue are subtracted).
fn count_level<S: DepthStore>(
    store: &S,
    items: &[WorkItem],
    last_written: &[AtomicU32],
    histogram: &[u64],
    next: u32,
    target: usize,
    class_of: &dyn Fn(u32) -> usize,
) -> u64 {
    let exact = store.period().is_none();
    let chosen: Vec<&WorkItem> = items
        .iter()
        .filter(|i| {
            i.class == target && (!exact || last_written[i.chunk].load(Ordering::Relaxed) == next)
        })
        .collect();
    let raw: u64 = chosen
        .par_iter()
        // SAFETY: the level is over; no thread writes the store during the count.
        .map(|item| unsafe { store.count_exclusive(item.range.clone(), Wanted::Depth(next)) })
        .sum();
    match store.period() {
        None => raw,
        Some(p) => {
            let earlier: u64 = (0..next)
                .filter(|&d| d % p == next % p && class_of(d) == target)
                .map(|d| histogram[d as usize])
                .sum();
            raw - earlier
        }
    }
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

#[allow(clippy::too_many_arguments)]
fn top_down<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    items: &[&WorkItem],
    last_written: Option<&[AtomicU32]>,
    depth: u32,
    bipartite: bool,
    stop: Option<&AtomicBool>,
    observer: &dyn Observer,
) {
    let stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
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
            if stopped() {
                return;
            }
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
            if stopped() {
                return;
            }
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

/// Returns the states found and, if `capture` and there were at most
/// [`CAPTURE_LIMIT`], their indices.
#[allow(clippy::too_many_arguments)]
fn bottom_up<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    items: &[&WorkItem],
    last_written: &[AtomicU32],
    depth: u32,
    stop: Option<&AtomicBool>,
    capture: bool,
    observer: &dyn Observer,
) -> (u64, Option<Vec<u64>>) {
    let next = depth + 1;
    let captured = std::sync::atomic::AtomicUsize::new(0);
    let parts: Vec<(u64, Vec<u64>)> = items
        .par_iter()
        .map(|item| {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return (0, Vec::new());
            }
            let mut kept = Vec::new();
            let found = with_buffer(|unseen| {
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
                        if capture {
                            kept.push(index);
                        }
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
            });
            if capture && captured.fetch_add(kept.len(), Ordering::Relaxed) > CAPTURE_LIMIT {
                kept = Vec::new();
            }
            (found, kept)
        })
        .collect();
    let found = parts.iter().map(|(f, _)| f).sum();
    let complete = captured.load(Ordering::Relaxed) <= CAPTURE_LIMIT;
    let indices = (capture && complete).then(|| parts.into_iter().flat_map(|(_, k)| k).collect());
    (found, indices)
}

/// The first `limit` indices (ascending) whose entry matches `depth` (for stores with a
/// period: whose depth has that residue).
pub fn indices_at_depth<S: DepthStore>(store: &S, depth: u32, limit: usize) -> Vec<u64> {
    filter_at_depth(store, depth, limit, |_| {})
}

/// Chunks scanned in parallel before [`filter_at_depth`] checks whether it has enough.
const FILTER_BATCH: usize = 64;

/// The first `limit` indices (ascending) whose entry matches `depth` and that `filter`
/// keeps. `filter` gets one chunk's candidates at a time (ascending) and retains the
/// ones to keep in place. Batches of chunks run in parallel, in index order, until
/// `limit` are found, so candidates are never all held at once and a small `limit`
/// stops early.
pub fn filter_at_depth<S: DepthStore>(
    store: &S,
    depth: u32,
    limit: usize,
    filter: impl Fn(&mut Vec<u64>) + Sync,
) -> Vec<u64> {
    let len = store.len();
    let chunks: Vec<Range<u64>> = (0..len.div_ceil(1 << CHUNK_SHIFT))
        .map(|c| (c << CHUNK_SHIFT)..((c + 1) << CHUNK_SHIFT).min(len))
        .collect();
    let mut found = Vec::new();
    for batch in chunks.chunks(FILTER_BATCH) {
        let parts: Vec<Vec<u64>> = batch
            .par_iter()
            .map(|range| {
                let mut out = Vec::new();
                // SAFETY: called after the search; nobody writes the store.
                unsafe { store.collect_exclusive(range.clone(), Wanted::Depth(depth), &mut out) };
                filter(&mut out);
                out
            })
            .collect();
        for part in parts {
            found.extend_from_slice(&part);
        }
        if found.len() >= limit {
            break;
        }
    }
    found.truncate(limit);
    found
}
