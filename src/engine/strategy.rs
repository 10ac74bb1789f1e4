//! How one level runs on this process's threads, decided once per level by
//! [`decide`] from what the executor knows (the level's plan, the store, the layout,
//! the pool, the puzzle's lanes) and returned as one value, a [`Strategy`], on which
//! `levels::top_down` and `levels::bottom_up` dispatch. The same build, puzzle and
//! thread count always take the same strategy.
//!
//! | condition | strategy | why |
//! |---|---|---|
//! | bottom-up plan (the driver's [`Direction`]) | [`Strategy::BottomUp`]: counted, captured if asked | each unseen state is written by the thread that owns its work item |
//! | top-down, frontier over 1/[`DENSE_FRACTION`] of its class | [`Chunks::MarkedAfter`] | a dense frontier writes all over its class: per-write chunk bookkeeping costs, and buys nothing |
//! | top-down, sparser | [`Chunks::Tracked`] | the next level visits only the chunks written |
//! | depths mod 3, dense | [`Recent::Ahead`] | one pass over what the level may write replaces most scattered marks (`scripts/EXPERIMENTS.md`, "The 2-bit path: recent marks set ahead, a scan 64 entries at a time") |
//! | depths mod 3, sparse | [`Recent::Every`] | a sparse level writes few groups: a mark per write is cheaper than a pass |
//! | depths mod 3, marks not set ahead | [`Marks::Counted`] | the store's locked OR tells the first writer: the level counts as it marks, no scan after |
//! | exact bytes, or marks set ahead | [`Marks::Uncounted`] | plain stores (bytes), or a scan afterwards that costs less than a count per write (dense mod 3) |
//! | uncounted, colour classes | [`Translations::InScan`] | the frontier scan marks the translated neighbours 64 (bytes) or 256 (mod 3) at a time (`scripts/EXPERIMENTS.md`, "Ahead of the C BFS: translated moves in the scan, prefetched marks where they pay") |
//! | counted, or no colour classes | [`Translations::InExpansion`] | the scan must not write where it reads; a counted mark needs its answer |
//! | one worker thread | [`Writers::Alone`] | no other writer: mod 3 marks read and write their word back without a locked OR |
//! | several, mod 3, dense, translated in the scan, the puzzle has lanes | [`Writers::Lanes`] | each lane to one thread at a time, which marks as if alone (`lanes`; `scripts/EXPERIMENTS.md`, "The 2-bit path on two threads: one thread per lane") |
//! | otherwise | [`Writers::Shared`] | atomics |
//! | chunks tracked or states captured | [`Expansion::EachNeighbour`] | per-neighbour bookkeeping |
//! | counted, nothing else to record | [`Expansion::CountFold`] | the count travels in a register through the fold |
//! | uncounted, nothing else to record | [`Expansion::Stream`] | marks streamed, each at once or prefetched (`marking`) |
//! | streamed | [`Stream::Timed`] | which way is faster differs by segment and level; each thread times both on its first items and keeps the faster, and the level records how many items went each way (tests pin [`Stream::AtOnce`] and [`Stream::Prefetched`]; `scripts/EXPERIMENTS.md`, "Ahead of the C BFS: translated moves in the scan, prefetched marks where they pay") |
//! | colour classes | [`FrontierScan::WithWrites`] | the level writes only the other class: scans and writes run together |
//! | no colour classes | [`FrontierScan::Batched`] | writes may land where a scan reads: batches scan, then write |

use super::lanes::Lanes;
use super::{Direction, LevelPlan};

/// A top-down level whose frontier holds more than 1/DENSE_FRACTION of its class is
/// *dense*: it writes all over its class (both executors use it).
pub(super) const DENSE_FRACTION: u64 = 64;

/// What the executor knows when it decides a level's strategy.
pub(super) struct Facts<'a> {
    /// The driver's plan (direction, depth, frontier size, classes).
    pub plan: &'a LevelPlan,
    /// States of the frontier's class.
    pub source_class_size: u64,
    /// The layout has colour classes (each level writes only the other one).
    pub bipartite: bool,
    /// The store holds depths mod 3 with recent marks ([`crate::store::PackedMarks`]).
    pub recent_marks: bool,
    /// The store's fast paths exist ([`crate::store::DepthStore::packed`]).
    pub packed: bool,
    /// Worker threads of the pool.
    pub threads: usize,
    /// Whether the caller asked for the new states' indices.
    pub capture: Capture,
}

/// How one level runs: one value per level.
pub(super) enum Strategy<'a> {
    /// Every unseen state of the new level's class looks for a frontier neighbour.
    BottomUp(Capture),
    /// The frontier is expanded and its unseen neighbours marked.
    TopDown(TopDown<'a>),
}

/// How a top-down level runs.
pub(super) struct TopDown<'a> {
    /// Whether marks count the new states.
    pub marks: Marks,
    /// Where the translated neighbours are marked.
    pub translations: Translations,
    /// Who writes where.
    pub writers: Writers<'a>,
    /// How the chunks written are recorded.
    pub chunks: Chunks,
    /// How the recent marks of depths mod 3 are readied.
    pub recent: Recent,
    /// Whether the new states' indices are kept.
    pub capture: Capture,
    /// How a work item's frontier is expanded.
    pub expansion: Expansion,
    /// How streamed marks are placed ([`Expansion::Stream`]).
    pub stream: Stream,
    /// How frontier scans and writes interleave.
    pub scan: FrontierScan,
}

/// Whether a level's marks count its new states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Marks {
    /// Each mark tells the first writer: the level counts as it marks.
    Counted,
    /// A scan counts the level afterwards.
    Uncounted,
}

/// Where a top-down level marks the puzzle's translated neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Translations {
    /// The frontier scan marks them, many at a time; the expansion leaves them out.
    InScan,
    /// The expansion marks them as it marks the others.
    InExpansion,
}

/// Who writes the store during a level.
pub(super) enum Writers<'a> {
    /// One worker thread: marks need no atomic read-modify-write.
    Alone,
    /// Each lane to one thread at a time, whose marks need none either.
    Lanes(Lanes<'a>),
    /// Every thread anywhere: atomic marks.
    Shared,
}

/// How a level records the chunks it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Chunks {
    /// Per write.
    Tracked,
    /// Every chunk of the new level's class, after the level.
    MarkedAfter,
}

/// How the recent marks of depths mod 3 are readied before a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Recent {
    /// The store keeps none.
    Untracked,
    /// Cleared where they are stale; every write marks.
    Every,
    /// Set ahead over everything the level may write.
    Ahead,
}

/// Whether a level keeps its new states' indices (the search keeps the last levels'
/// states, the antipodes, when it may be the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// Kept (up to [`super::CAPTURE_LIMIT`]).
    Kept,
    /// Not kept.
    NotKept,
}

/// How a top-down level expands a work item's frontier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expansion {
    /// Per neighbour: a counted or uncounted mark, the chunk written, the index kept.
    EachNeighbour,
    /// Counted marks only, the count folded through the expansion.
    CountFold,
    /// Uncounted marks only, streamed (`marking`).
    Stream,
}

/// How a level streams its marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "a search times its choice; tests pin each way")
)]
pub(super) enum Stream {
    /// Each thread times both ways on its first work items of each segment of the
    /// level, then keeps the faster (`marking`); the items marked each way are
    /// counted (`marking::Streamed`).
    Timed,
    /// Every neighbour marked at once.
    AtOnce,
    /// Every neighbour prefetched and marked a few dozen neighbours later.
    Prefetched,
}

/// How a top-down level's frontier scans and writes interleave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FrontierScan {
    /// Together: the level writes only the other colour class.
    WithWrites,
    /// In batches, each scanned before any of it writes.
    Batched,
}

/// The strategy of one level; `lanes` gives the puzzle's lanes over the level's work
/// items, if it has them (asked only where they would be used).
pub(super) fn decide<'a>(facts: &Facts, lanes: impl FnOnce() -> Option<Lanes<'a>>) -> Strategy<'a> {
    let capture = facts.capture;
    if facts.plan.direction == Direction::BottomUp {
        return Strategy::BottomUp(capture);
    }
    let dense = facts.plan.frontier * DENSE_FRACTION > facts.source_class_size;
    let chunks = if dense {
        Chunks::MarkedAfter
    } else {
        Chunks::Tracked
    };
    let recent = match (facts.recent_marks, dense) {
        (false, _) => Recent::Untracked,
        (true, true) => Recent::Ahead,
        (true, false) => Recent::Every,
    };
    let marks = if facts.packed && recent != Recent::Ahead {
        Marks::Counted
    } else {
        Marks::Uncounted
    };
    // Only a store that tells the first writer of an entry knows which states are new.
    let capture = if marks == Marks::Counted {
        capture
    } else {
        Capture::NotKept
    };
    let translations = if marks == Marks::Uncounted && facts.bipartite {
        Translations::InScan
    } else {
        Translations::InExpansion
    };
    let writers = if facts.threads == 1 {
        Writers::Alone
    } else if facts.packed && chunks == Chunks::MarkedAfter && translations == Translations::InScan
    {
        lanes().map_or(Writers::Shared, Writers::Lanes)
    } else {
        Writers::Shared
    };
    let expansion = if chunks == Chunks::Tracked || capture == Capture::Kept {
        Expansion::EachNeighbour
    } else if marks == Marks::Counted {
        Expansion::CountFold
    } else {
        Expansion::Stream
    };
    let scan = if facts.bipartite {
        FrontierScan::WithWrites
    } else {
        FrontierScan::Batched
    };
    Strategy::TopDown(TopDown {
        marks,
        translations,
        writers,
        chunks,
        recent,
        capture,
        expansion,
        stream: Stream::Timed,
        scan,
    })
}
