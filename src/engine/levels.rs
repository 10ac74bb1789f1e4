//! The two ways of computing one level (direction-optimizing BFS, Beamer et al. 2012)
//! and the count of a finished level. Both directions get one [`LevelContext`].

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::StopToken;

use rayon::prelude::*;

use super::lanes::Lanes;
use super::layout::{ChunkLevels, WorkItem};
use super::marking;
use super::{CAPTURE_LIMIT, Observer};
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, Wanted};

/// Work items scanned at once on levels that may write into the ranges they scan.
const SCAN_BATCH: usize = 64;

/// Everything one level needs: what to read and write, which items to visit, and
/// whom to tell.
pub(super) struct LevelContext<'a, P, S> {
    pub puzzle: &'a P,
    pub store: &'a S,
    pub observer: &'a dyn Observer,
    pub stop: Option<&'a StopToken>,
    /// The work items this level visits (of the frontier's class top-down, of the new
    /// level's class bottom-up).
    pub items: Vec<&'a WorkItem>,
    pub chunks: &'a ChunkLevels,
    /// The frontier's depth; the level computes `depth + 1`.
    pub depth: u32,
    /// Whether the frontier's class and the new level's class are disjoint.
    pub bipartite: bool,
    /// The generation of the store's recent marks that holds the frontier, if they
    /// hold it exactly (top-down scans use them).
    pub recent: Option<usize>,
    /// The recent marks of the new level were set ahead (a dense level): writes mark
    /// only in groups that held the level's code, or nothing, so the level marks
    /// uncounted ([`DepthStore::mark_unseen`]) and translates as a store without
    /// marks does, and a scan counts it.
    pub marked_ahead: bool,
}

impl<P, S> LevelContext<'_, P, S> {
    fn stopped(&self) -> bool {
        self.stop.is_some_and(StopToken::is_stopped)
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

/// Top-down: expands the frontier and marks its unseen neighbours. With `track`, it
/// records per chunk that this level wrote there (sparse levels); without, the caller
/// marks every chunk of the new level's class (dense levels touch them all anyway).
/// Returns the new states if the store marks exactly once (else the count is a scan's)
/// and then, if `capture` and there were at most [`CAPTURE_LIMIT`], their indices
/// (ascending).
pub(super) fn top_down<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    track: bool,
    capture: bool,
) -> (Option<u64>, Option<Vec<u64>>) {
    let (store, chunks) = (ctx.store, ctx.chunks);
    let next = ctx.depth + 1;
    let found = AtomicU64::new(0);
    // A level whose recent marks were set ahead needs no first writer either: a scan
    // counting its code afterwards costs less than a count per write, and leaves the
    // innermost step small.
    let counts = store.marks_exactly_once() && !ctx.marked_ahead;
    // Only a store that tells the first writer of an entry knows which states are new.
    let capture = capture && counts;
    let captured = AtomicUsize::new(0);
    let kept_parts = Mutex::new(Vec::new());
    // Uncounted marks of a bipartite level: the scan marks the puzzle's translated
    // neighbours, 64 at a time in the byte store, up to 256 in the packed store.
    let translate = !counts && ctx.bipartite;
    let level = marking::new_level();
    let expand = |item: &WorkItem, frontier: &[u64], alone: bool| {
        let mut marked = 0u64;
        // Levels past the limit stop capturing at the next work item.
        let capturing = capture && captured.load(Ordering::Relaxed) <= CAPTURE_LIMIT;
        let mut kept = Vec::new();
        let mut mark_unseen = |n: u64| {
            if store.matches(n, Wanted::Unseen) {
                if counts {
                    let new = store.mark_if_unseen(n, next);
                    marked += new as u64;
                    if capturing && new {
                        kept.push(n);
                    }
                } else {
                    store.set(n, next);
                }
                if track {
                    chunks.mark(n, next);
                }
            }
        };
        if track || capturing {
            let mark = |(), _, neighbours: &[u64]| neighbours.iter().for_each(|&n| mark_unseen(n));
            if translate {
                // The scan marked the translated neighbours and recorded their chunks.
                ctx.puzzle.expand_untranslated_fold(frontier, (), mark);
            } else {
                ctx.puzzle.expand_sorted_fold(frontier, (), mark);
            }
        } else if counts {
            // The count travels as a value (`expand_sorted_fold`), in a register: a
            // captured counter would go back to memory after every mark.
            marked = count_marks(ctx.puzzle, frontier, |n| store.mark_if_unseen(n, next));
        } else {
            // Stores counted by a scan anyway (two threads may both mark an entry)
            // take this path: no count at all, marks at once or prefetched.
            let way = marking::Way {
                level,
                segment: item.segment,
                untranslated: translate,
                alone,
            };
            marking::mark_frontier(ctx.puzzle, store, frontier, next, way);
        }
        found.fetch_add(marked, Ordering::Relaxed);
        if !kept.is_empty() && captured.fetch_add(kept.len(), Ordering::Relaxed) <= CAPTURE_LIMIT {
            kept_parts
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(kept);
        }
    };
    let translation = translate.then_some(Translation { track });
    // Uncounted, untracked marks on several threads: one thread per lane at a time
    // marks plainly, where the store gains from it.
    let lanes = (translate
        && !track
        && rayon::current_num_threads() > 1
        && store.marks_alone_save_atomics())
    .then(|| Lanes::new(ctx.puzzle, &ctx.items))
    .flatten();
    if !for_each_frontier(ctx, translation, lanes, expand) {
        return (None, None);
    }
    let found = counts.then(|| found.load(Ordering::Relaxed));
    let indices = (capture && captured.load(Ordering::Relaxed) <= CAPTURE_LIMIT).then(|| {
        let mut all: Vec<u64> = kept_parts
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .concat();
        all.sort_unstable();
        all
    });
    (found, indices)
}

/// Expands `frontier` and calls `mark` on every neighbour; returns how many times it
/// returned true (the count travels through the fold, in a register).
#[inline(always)]
fn count_marks<P: Puzzle>(puzzle: &P, frontier: &[u64], mark: impl Fn(u64) -> bool) -> u64 {
    puzzle.expand_sorted_fold(frontier, 0, move |mut marked, _, neighbours| {
        for &n in neighbours {
            marked += mark(n) as u64;
        }
        marked
    })
}

/// A top-down level's scan marks the translated neighbours of its frontier
/// ([`crate::Puzzle::translations`]); with `track`, it records the chunks it wrote.
#[derive(Clone, Copy)]
struct Translation {
    track: bool,
}

/// Calls `expand` with the frontier of every work item of the level, on the pool;
/// returns false if the search was stopped between two batches. With `translation`
/// (bipartite levels only), the scan marks the translated neighbours first.
fn for_each_frontier<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    translation: Option<Translation>,
    lanes: Option<Lanes>,
    expand: impl Fn(&WorkItem, &[u64], bool) + Sync,
) -> bool {
    // On one worker thread, nobody else writes the store during the level.
    let alone = rayon::current_num_threads() == 1;
    if ctx.bipartite {
        let visit = |item: &WorkItem, alone: bool| {
            with_buffer(|frontier| {
                // SAFETY: in a bipartite layout this level only writes states of the other
                // class, so nobody writes this item's range during the scan; the
                // translated targets see only this level's marks.
                unsafe {
                    match translation {
                        Some(t) => collect_translating(ctx, item, t, frontier),
                        None => collect_frontier(ctx, item, frontier),
                    }
                };
                expand(item, frontier, alone);
                ctx.observer.work_done(1);
            })
        };
        if let Some(lanes) = lanes {
            lanes.run(|| ctx.stopped(), visit);
            return true;
        }
        ctx.items.par_iter().for_each(|item| {
            if !ctx.stopped() {
                visit(item, alone);
            }
        });
        return true;
    }
    // Writes may land anywhere, so scanning and writing alternate batch by batch.
    for batch in ctx.items.chunks(SCAN_BATCH) {
        if ctx.stopped() {
            return false;
        }
        let frontiers: Vec<Vec<u64>> = batch
            .par_iter()
            .map(|item| {
                let mut frontier = Vec::new();
                // SAFETY: no thread writes the store while a batch is scanned.
                unsafe { collect_frontier(ctx, item, &mut frontier) };
                frontier
            })
            .collect();
        frontiers
            .par_iter()
            .zip(batch)
            .for_each(|(frontier, item)| {
                expand(item, frontier, alone);
                ctx.observer.work_done(1);
            });
    }
    true
}

/// Appends the frontier states of `item` to `out` (scanned in full) and marks their
/// translated neighbours with the new depth.
///
/// # Safety
/// No thread may write the store in `item`'s range meanwhile, and the translated
/// targets only with the new depth.
unsafe fn collect_translating<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    item: &WorkItem,
    translation: Translation,
    out: &mut Vec<u64>,
) {
    let translations = ctx.puzzle.translations(item.range.start);
    let deltas = translations.as_slice();
    let (range, wanted, next) = (item.range.clone(), Wanted::Depth(ctx.depth), ctx.depth + 1);
    // SAFETY: forwarded from this function's contract.
    let hits = unsafe {
        ctx.store.collect_translating_exclusive(
            range.clone(),
            wanted,
            ctx.recent,
            deltas,
            next,
            out,
        )
    };
    if translation.track {
        for (k, &delta) in deltas.iter().enumerate() {
            if hits & (1 << k) != 0 {
                // The shifted range spans at most two chunks (a range lies in one).
                ctx.chunks
                    .mark(range.start.wrapping_add_signed(delta), next);
                ctx.chunks
                    .mark((range.end - 1).wrapping_add_signed(delta), next);
            }
        }
    }
}

/// Appends the frontier states of `item` to `out`, through the recent marks if they
/// hold the frontier.
///
/// # Safety
/// No thread may write the store in `item`'s range meanwhile.
unsafe fn collect_frontier<P, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    item: &WorkItem,
    out: &mut Vec<u64>,
) {
    let (range, wanted) = (item.range.clone(), Wanted::Depth(ctx.depth));
    // SAFETY: forwarded from this function's contract.
    unsafe {
        match ctx.recent {
            Some(generation) => ctx
                .store
                .collect_recent_exclusive(range, wanted, generation, out),
            None => ctx.store.collect_exclusive(range, wanted, out),
        }
    }
}

/// Bottom-up: every unseen state of the new level's class looks for a neighbour in
/// the frontier. Returns the states found and, if `capture` and there were at most
/// [`CAPTURE_LIMIT`], their indices (ascending).
pub(super) fn bottom_up<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    capture: bool,
) -> (u64, Option<Vec<u64>>) {
    let (store, depth, next) = (ctx.store, ctx.depth, ctx.depth + 1);
    let captured = AtomicUsize::new(0);
    let parts: Vec<(u64, Vec<u64>)> = ctx
        .items
        .par_iter()
        .map(|item| {
            if ctx.stopped() {
                return (0, Vec::new());
            }
            let mut kept = Vec::new();
            let found = with_buffer(|unseen| {
                // SAFETY: in bottom-up mode a state is written only by the thread that
                // owns its work item, and this thread scans before it writes.
                unsafe { store.collect_exclusive(item.range.clone(), Wanted::Unseen, unseen) };
                let mut found = 0u64;
                ctx.puzzle.expand_sorted(unseen, |index, neighbours| {
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
                    ctx.chunks.set(item.chunk, next);
                }
                if found == unseen.len() as u64 {
                    item.exhausted.store(true, Ordering::Relaxed);
                }
                ctx.observer.work_done(1);
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

/// Clears the store's recent marks of `generation` over `items`.
///
/// # Safety
/// No thread may use the store meanwhile (the engine calls it between levels).
pub(super) unsafe fn forget_recent<S: DepthStore>(
    store: &S,
    items: &[&WorkItem],
    generation: usize,
) {
    items
        .par_iter()
        // SAFETY: forwarded from this function's contract; items do not overlap.
        .for_each(|item| unsafe { store.forget_recent(item.range.clone(), generation) });
}

/// Sets the store's recent marks of `generation` over `items` ahead of the level that
/// writes `depth` ([`DepthStore::mark_recent_ahead`]); returns the shared groups.
///
/// # Safety
/// No thread may use the store meanwhile (the engine calls it between levels).
pub(super) unsafe fn mark_recent_ahead<S: DepthStore>(
    store: &S,
    items: &[&WorkItem],
    generation: usize,
    depth: u32,
    shared: bool,
) -> u64 {
    items
        .par_iter()
        // SAFETY: forwarded from this function's contract; items do not overlap.
        .map(|item| unsafe {
            store.mark_recent_ahead(item.range.clone(), generation, depth, shared)
        })
        .sum()
}

/// The entries of `items` that match `wanted`, counted by scanning.
///
/// # Safety
/// No thread may write the store meanwhile (the engine counts between levels).
pub(super) unsafe fn count_matching<S: DepthStore>(
    store: &S,
    items: &[&WorkItem],
    wanted: Wanted,
) -> u64 {
    items
        .par_iter()
        // SAFETY: forwarded from this function's contract.
        .map(|item| unsafe { store.count_exclusive(item.range.clone(), wanted) })
        .sum()
}
