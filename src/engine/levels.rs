//! The two ways of computing one level (direction-optimizing BFS, Beamer et al. 2012),
//! each as its [`super::strategy::Strategy`] says, and the count of a finished level.
//! Both directions get one [`LevelContext`].

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::StopToken;

use rayon::prelude::*;

use super::lanes::Writer;
use super::layout::{ChunkLevels, WorkItem};
use super::marking;
use super::strategy::{
    Capture, Chunks, Expansion, FrontierScan, Marks, TopDown, Translations, Writers,
};
use super::{CAPTURE_LIMIT, Observer};
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, PackedMarks, Wanted};

/// Work items scanned at once on levels that may write into the ranges they scan.
const SCAN_BATCH: usize = 64;

/// Everything one level needs: what to read and write, which items to visit, and
/// whom to tell.
pub(super) struct LevelContext<'a, P, S: DepthStore> {
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
    /// The recent marks' generation that holds exactly the frontier, if one does
    /// (top-down scans then read only the groups they mark).
    pub recent: Option<(&'a S::Packed, usize)>,
}

impl<P, S: DepthStore> LevelContext<'_, P, S> {
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

/// What a level found: the new states if it counted them, and their indices if it
/// kept them (at most [`CAPTURE_LIMIT`], ascending). `None` states: stopped, or
/// uncounted (a scan counts them).
pub(super) struct Found {
    pub states: Option<u64>,
    pub captured: Option<Vec<u64>>,
    /// Work items whose marks were streamed at once and prefetched.
    pub streamed: [u64; 2],
}

/// The new states a top-down level counted and kept, gathered from the threads.
struct Tally {
    found: AtomicU64,
    captured: AtomicUsize,
    kept: Mutex<Vec<Vec<u64>>>,
}

impl Tally {
    /// Whether the level still keeps indices (the limit not passed yet).
    fn keeping(&self, capture: Capture) -> Capture {
        match capture {
            Capture::Kept if self.captured.load(Ordering::Relaxed) <= CAPTURE_LIMIT => {
                Capture::Kept
            }
            _ => Capture::NotKept,
        }
    }

    /// Adds one work item's count and kept indices.
    fn add(&self, marked: u64, kept: Vec<u64>) {
        self.found.fetch_add(marked, Ordering::Relaxed);
        if !kept.is_empty()
            && self.captured.fetch_add(kept.len(), Ordering::Relaxed) <= CAPTURE_LIMIT
        {
            self.kept
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(kept);
        }
    }

    fn finish(self, how: &TopDown) -> Found {
        let complete = self.captured.load(Ordering::Relaxed) <= CAPTURE_LIMIT;
        let captured = (how.capture == Capture::Kept && complete).then(|| {
            let mut all = self
                .kept
                .into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .concat();
            all.sort_unstable();
            all
        });
        let states = (how.marks == Marks::Counted).then(|| self.found.into_inner());
        Found {
            states,
            captured,
            streamed: [0; 2],
        }
    }
}

/// Top-down: expands the frontier and marks its unseen neighbours, as `how` says
/// ([`super::strategy`]).
pub(super) fn top_down<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    how: &TopDown,
) -> Found {
    let tally = Tally {
        found: AtomicU64::new(0),
        captured: AtomicUsize::new(0),
        kept: Mutex::new(Vec::new()),
    };
    let level = marking::new_level();
    let streamed = marking::Streamed::default();
    let next = ctx.depth + 1;
    let expand = |item: &WorkItem, frontier: &[u64], writer: Writer| {
        let keeping = tally.keeping(how.capture);
        match how.expansion {
            Expansion::EachNeighbour
                if keeping == Capture::Kept || how.chunks == Chunks::Tracked =>
            {
                let (marked, kept) = mark_each(ctx, how, frontier, keeping);
                tally.add(marked, kept);
            }
            // Past the capture limit, an untracked counted level counts in a fold.
            Expansion::EachNeighbour | Expansion::CountFold => {
                let marked = count_marks(ctx.puzzle, ctx.store, frontier, |n| {
                    ctx.store.mark_if_unseen(n, next)
                });
                tally.add(marked, Vec::new());
            }
            Expansion::Stream => {
                let way = marking::Way {
                    stream: how.stream,
                    streamed: &streamed,
                    level,
                    segment: item.segment,
                    translations: how.translations,
                    writer,
                };
                marking::mark_frontier(ctx.puzzle, ctx.store, frontier, next, way);
            }
        }
    };
    let found = if for_each_frontier(ctx, how, expand) {
        tally.finish(how)
    } else {
        Found {
            states: None,
            captured: None,
            streamed: [0; 2],
        }
    };
    Found {
        streamed: streamed.counts(),
        ..found
    }
}

/// Marks every unseen neighbour of `frontier` one by one, counted or not as `how`
/// says, recording its chunk if tracked and its index if `keeping` keeps it; returns the new
/// states counted and the indices kept.
fn mark_each<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    how: &TopDown,
    frontier: &[u64],
    keeping: Capture,
) -> (u64, Vec<u64>) {
    let (store, next) = (ctx.store, ctx.depth + 1);
    let mut marked = 0u64;
    let mut kept = Vec::new();
    let mut mark = |n: u64| {
        if !store.matches(n, Wanted::Unseen) {
            return;
        }
        if how.marks == Marks::Counted {
            let new = store.mark_if_unseen(n, next);
            marked += u64::from(new);
            if keeping == Capture::Kept && new {
                kept.push(n);
            }
        } else {
            store.set(n, next);
        }
        if how.chunks == Chunks::Tracked {
            ctx.chunks.mark(n, next);
        }
    };
    let mut ahead = marking::Ahead::new(&mut mark);
    let visit = |(), _, neighbours: &[u64]| {
        for &n in neighbours {
            ahead.push(store, n);
        }
    };
    match how.translations {
        // The scan marked the translated neighbours and recorded their chunks.
        Translations::InScan => ctx.puzzle.expand_untranslated_fold(frontier, (), visit),
        Translations::InExpansion => ctx.puzzle.expand_sorted_fold(frontier, (), visit),
    }
    ahead.finish();
    (marked, kept)
}

/// Expands `frontier` and calls `mark` on every neighbour, each prefetched a few
/// neighbours ahead ([`marking::Ahead`]); returns how many times it returned true.
#[inline(always)]
fn count_marks<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    frontier: &[u64],
    mark: impl Fn(u64) -> bool,
) -> u64 {
    let mut marked = 0u64;
    let mut ahead = marking::Ahead::new(|n| marked += u64::from(mark(n)));
    puzzle.expand_sorted_fold(frontier, (), |(), _, neighbours| {
        for &n in neighbours {
            ahead.push(store, n);
        }
    });
    ahead.finish();
    marked
}

/// Calls `expand` with the frontier of every work item of the level and who writes
/// its marks, on the pool; returns false if the search was stopped between two
/// batches. With translations in the scan (colour classes only), the scan marks the
/// translated neighbours first.
fn for_each_frontier<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    how: &TopDown,
    expand: impl Fn(&WorkItem, &[u64], Writer) + Sync,
) -> bool {
    let writer = match how.writers {
        Writers::Alone => Writer::Alone,
        Writers::Lanes(_) | Writers::Shared => Writer::Shared,
    };
    if how.scan == FrontierScan::WithWrites {
        let visit = |item: &WorkItem, writer: Writer| {
            with_buffer(|frontier| {
                // SAFETY: in a bipartite layout this level only writes states of the other
                // class, so nobody writes this item's range during the scan; the
                // translated targets see only this level's marks.
                unsafe {
                    match how.translations {
                        Translations::InScan => {
                            collect_translating(ctx, item, how.chunks, frontier)
                        }
                        Translations::InExpansion => collect_frontier(ctx, item, frontier),
                    }
                };
                expand(item, frontier, writer);
                ctx.observer.work_done(1);
            })
        };
        if let Writers::Lanes(lanes) = &how.writers {
            lanes.run(|| ctx.stopped(), visit);
            return true;
        }
        ctx.items.par_iter().for_each(|item| {
            if !ctx.stopped() {
                visit(item, writer);
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
                expand(item, frontier, writer);
                ctx.observer.work_done(1);
            });
    }
    true
}

/// Appends the frontier states of `item` to `out` (scanned in full) and marks their
/// translated neighbours with the new depth; records the chunks they lie in if
/// `chunks` says so.
///
/// # Safety
/// No thread may write the store in `item`'s range meanwhile, and the translated
/// targets only with the new depth.
unsafe fn collect_translating<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    item: &WorkItem,
    chunks: Chunks,
    out: &mut Vec<u64>,
) {
    let translations = ctx.puzzle.translations(item.range.start);
    let deltas = translations.as_slice();
    let (range, wanted, next) = (item.range.clone(), Wanted::Depth(ctx.depth), ctx.depth + 1);
    // SAFETY: forwarded from this function's contract.
    let hits = unsafe {
        match ctx.recent {
            Some((marks, generation)) => marks.collect_recent_translating_exclusive(
                range.clone(),
                wanted,
                generation,
                deltas,
                next,
                out,
            ),
            None => {
                ctx.store
                    .collect_translating_exclusive(range.clone(), wanted, deltas, next, out)
            }
        }
    };
    if chunks == Chunks::Tracked {
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
            Some((marks, generation)) => {
                marks.collect_recent_exclusive(range, wanted, generation, out)
            }
            None => ctx.store.collect_exclusive(range, wanted, out),
        }
    }
}

/// Bottom-up: every unseen state of the new level's class looks for a neighbour in
/// the frontier. Finds the states of the level and, if `capture` keeps them and there
/// were at most [`CAPTURE_LIMIT`], their indices (ascending).
pub(super) fn bottom_up<P: Puzzle, S: DepthStore>(
    ctx: &LevelContext<'_, P, S>,
    capture: Capture,
) -> Found {
    let capture = capture == Capture::Kept;
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
                ctx.puzzle.expand_until_hit(
                    unseen,
                    |n| store.matches(n, Wanted::Depth(depth)),
                    |n| store.prefetch(n),
                    |index| {
                        store.set(index, next);
                        found += 1;
                        if capture {
                            kept.push(index);
                        }
                    },
                );
                // The states found, ascending (a puzzle may find them in any order).
                kept.sort_unstable();
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
    let captured = (capture && complete).then(|| parts.into_iter().flat_map(|(_, k)| k).collect());
    Found {
        states: Some(found),
        captured,
        streamed: [0; 2],
    }
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
