//! The executor of one rank of a partitioned search: it holds the entries of its slice
//! of the indices only ([`Slices`]), expands the frontier states it owns, marks the
//! neighbours it owns and sends every other neighbour to its owner, in bounded
//! batches ([`Transport::exchange`]).
//!
//! A top-down level goes through the rank's frontier in batches (pieces of 4,096
//! indices are scanned while fewer than `b` states are collected, so a batch holds at
//! most `B = b + 4,096` states; `b` is [`BATCH_STATES`], 262,144, where the slice's
//! entries are bytes, and down to [`MIN_BATCH_STATES`] for 2-bit entries:
//! [`batch_states`]); after each batch all ranks exchange what they produced and mark
//! what they received, and the level ends with the first round in which no rank had
//! frontier left. A neighbour travels as its offset into its owner's slice, one
//! 32-bit word where no slice holds more than 2^32 indices, else two
//! ([`WORD_BYTES`]). Memory per rank is its slice plus buffers whose size does not
//! depend on the level: the batch (`8 B` bytes), its neighbours (at most `8 B
//! max_neighbours` bytes: 6.3 MB for a board whose states have 3 neighbours and `b` =
//! 2^18), the outboxes (half that), what arrives (at most `ranks - 1` times the
//! outboxes), and on sparse levels the marks kept (as many as the neighbours), beside
//! the recent marks (with 2-bit entries: one bit per four entries of the slice, per
//! generation) and the bottom-up bit set.
//!
//! A bottom-up level asks whether a neighbour is in the frontier, and most neighbours
//! of a slice's states are another rank's: every rank sets its frontier's bits in one
//! bit per index of the whole space, the ranks share their parts
//! ([`Transport::share`]), and each answers from that. The bit
//! set is allowed where it takes at most half the memory of a slice's own entries (8-bit
//! entries on up to 4 ranks; never with 2-bit entries, which are chosen to save
//! memory); elsewhere every level runs top-down ([`Executor::top_down_only`]).
//! `scripts/EXPERIMENTS.md`, "Beyond one machine", has the measurements of both.

use std::ops::Range;

use super::layout::{ChunkLevels, Layout, NEVER};
use super::recent::{RecentMarks, Written};
use super::slices::Slices;
use super::strategy::DENSE_FRACTION;
use super::transport::Transport;
use super::{
    CHUNK_SHIFT, Capture, Direction, EngineError, Executor, LevelOutcome, LevelPlan, Observer,
};
use crate::driver::Control;
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, PackedMarks, Wanted};

/// States a level keeps of those it finds on one rank (the antipodes, should it be the
/// last level); with more, they are looked for after the search.
const KEEP_LIMIT: usize = 1 << 17;

/// Frontier states a rank expands between two exchanges, at most: where the slice's
/// entries take little memory (2-bit entries) fewer, so that the buffers a batch
/// fills stay near an eighth of the slice ([`batch_states`]), but never fewer than
/// [`MIN_BATCH_STATES`].
pub const BATCH_STATES: usize = 1 << 18;

/// Indices a top-down level scans for frontier states at a time: a batch ends as soon
/// as it has [`batch_states`] states, so it holds fewer than that plus this many.
const COLLECT_PIECE: u64 = 1 << 12;

/// Frontier states a rank expands between two exchanges, at least.
pub const MIN_BATCH_STATES: usize = 1 << 16;

/// The frontier states a batch collects on a slice of `slice_len` entries of
/// `entry_bits` bits each, for a puzzle whose states have up to `max_neighbours`
/// neighbours: the batch, its neighbours, the outboxes and what arrives (two ranks)
/// take about `8 (1 + 2 max_neighbours)` bytes per state, kept near an eighth of the
/// slice's bytes, within [`MIN_BATCH_STATES`]..=[`BATCH_STATES`].
#[must_use]
pub fn batch_states(slice_len: u64, entry_bits: u64, max_neighbours: usize) -> usize {
    let slice_bytes = slice_len.saturating_mul(entry_bits) / 8;
    let per_state = 8 * (1 + 2 * max_neighbours as u64);
    let fitting = slice_bytes / 8 / per_state.max(1);
    fitting.clamp(MIN_BATCH_STATES as u64, BATCH_STATES as u64) as usize
}

/// Bytes of a word of a batch on the wire: a neighbour sent is its offset into its
/// owner's slice, one word where every slice holds at most 2^32 indices, else two
/// (low, high).
pub const WORD_BYTES: u64 = 4;

/// Appends `index`'s offset into its owner's slice to the owner's outbox: one word,
/// or two where slices are `wide`.
#[inline(always)]
fn post(outboxes: &mut [Vec<u32>], slices: &Slices, starts: &[u64], wide: bool, index: u64) {
    let owner = slices.owner(index);
    let offset = index - starts[owner];
    let outbox = &mut outboxes[owner];
    outbox.push(offset as u32);
    if wide {
        outbox.push((offset >> 32) as u32);
    }
}

/// One rank's slice of a search: [`Executor`] for [`super::Bfs::with_executor`]. It
/// does not look at a stop request: the ranks would have to agree on the level to
/// stop at (stopping the job stops every rank; a table resumes from its last
/// checkpoint).
///
/// ```
/// use antipode::driver::Control;
/// use antipode::engine::{Bfs, InProcessRanks, Partitioned, Slices};
/// use antipode::{Puzzle, puzzles::SlidingPuzzle, store::ByteDepths};
///
/// // Two ranks, as threads of this process: each holds and computes half the indices.
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let ranks = InProcessRanks::new(2);
/// let histograms: Vec<_> = std::thread::scope(|scope| {
///     let runs: Vec<_> = (0..2)
///         .map(|r| {
///             let (transport, board) = (ranks.rank(r), &board);
///             scope.spawn(move || {
///                 let slice = Slices::new(board.index_count(), 2).range(r);
///                 let store = ByteDepths::anonymous(slice.end - slice.start).unwrap();
///                 let rank = Partitioned::new(board, &store, &transport);
///                 let bfs = Bfs::with_executor(Box::new(rank));
///                 bfs.run(&Control::default()).unwrap()
///             })
///         })
///         .collect();
///     runs.into_iter().map(|run| run.join().unwrap()).collect()
/// });
/// assert_eq!(histograms[0], histograms[1]);
/// assert_eq!(histograms[0].reachable(), 360);
/// ```
pub struct Partitioned<'a, P: Puzzle, S: DepthStore> {
    puzzle: &'a P,
    /// The slice's entries, indexed from the slice's start.
    store: &'a S,
    transport: &'a dyn Transport,
    slices: Slices,
    range: Range<u64>,
    layout: Layout,
    /// The work items of the layout that hold indices of the slice, cut to it.
    items: Vec<(Range<u64>, usize)>,
    /// Per item, a bottom-up level found no unseen state left in it.
    exhausted: Vec<bool>,
    chunks: ChunkLevels,
    goals: Vec<u64>,
    /// The store's recent marks, if it keeps them (depths mod 3).
    recent: Option<RecentMarks<'a, S::Packed>>,
    /// Bytes this rank sent, per level computed.
    sent: Vec<u64>,
    /// The next level is the one an interrupted run left partly written.
    redoing: bool,
    /// Every rank's first index, kept: [`Slices::start`] divides, and every neighbour
    /// sent needs its owner's.
    starts: Vec<u64>,
    /// A slice holds more than 2^32 indices: an offset sent takes two words.
    wide: bool,
    outboxes: Vec<Vec<u32>>,
    inbox: Vec<u32>,
    /// The neighbours of a batch (a scratch buffer).
    neighbours: Vec<u64>,
    frontier: Vec<u64>,
    /// The states the last level that found any on this rank found (the first
    /// [`KEEP_LIMIT`], one more if there were more), and that level.
    captured: Vec<u64>,
    captured_level: Option<u32>,
    /// Bottom-up levels: the whole frontier, one bit per index, shared by all ranks.
    frontier_bits: Vec<u64>,
    /// The states a batch marked (a scratch buffer).
    fresh: Vec<u64>,
    /// Frontier states a batch collects ([`batch_states`]).
    batch_states: usize,
    /// Indices of the slice whose depths are wanted after the search
    /// ([`Partitioned::watch`]), each with its depth once a level found it.
    watched: Vec<(u64, Option<u32>)>,
    /// Bits of an entry of the slice: 2 (depth mod 3) or 8.
    entry_bits: u64,
    /// Top-down levels are counted by a scan of the new level's chunks after them
    /// (byte entries), not mark by mark, as the threads executor counts them: a
    /// count kept through the expansion costs more than the scan (3x4 on two ranks,
    /// 2.34 against 2.55 s, medians of 9). Depths mod 3 cannot be told from older
    /// levels of their code by a scan: those count their marks.
    scan_counts: bool,
}

/// The marking of a slice's neighbours during an expansion.
struct Marking<'a, S> {
    store: &'a S,
    start: u64,
    len: u64,
    next: u32,
}

impl<S: DepthStore> Marking<'_, S> {
    /// Expands `frontier`, marks the neighbours in the slice and appends every other,
    /// `encode`d, to `remote`; returns the states marked if `COUNT`, else 0. The
    /// count and the place in `remote` travel through the expansion as values
    /// ([`Puzzle::expand_sorted_fold`]): reached through references, they went back
    /// to memory after every mark (3x4 on two ranks: 2.44 s that way, 2.18 s so).
    #[inline(always)]
    fn expand<const COUNT: bool, P: Puzzle, T>(
        &self,
        puzzle: &P,
        frontier: &[u64],
        remote: &mut Vec<T>,
        encode: impl Fn(u64) -> T,
    ) -> u64 {
        let (store, start, len, next) = (self.store, self.start, self.len, self.next);
        remote.reserve(frontier.len() * puzzle.max_neighbours());
        let spare = remote.spare_capacity_mut();
        let (found, sent) = puzzle.expand_sorted_fold(
            frontier,
            (0u64, 0usize),
            |(mut found, mut sent), _, neighbours| {
                for &n in neighbours {
                    let local = n.wrapping_sub(start);
                    if local < len {
                        let new = store.mark_if_unseen(local, next);
                        if COUNT {
                            found += new as u64;
                        }
                    } else {
                        spare[sent].write(encode(n));
                        sent += 1;
                    }
                }
                (found, sent)
            },
        );
        // SAFETY: the expansion wrote the first `sent` slots past the length.
        unsafe { remote.set_len(remote.len() + sent) };
        found
    }
}

/// What a level keeps of the states it marks: the first ones (the antipodes, if it is
/// the last level) and, on a sparse level, the chunks they lie in (a dense level
/// records every chunk of its class as written after it). Once more states than can
/// be kept were found, a dense level only counts the rest.
struct LevelMarks {
    /// The first [`KEEP_LIMIT`] states, one more if there were more.
    kept: Vec<u64>,
    /// Record the chunks (a sparse level).
    tracking: bool,
}

impl LevelMarks {
    /// Whether a batch must keep what it marks.
    fn keeping(&self) -> bool {
        self.tracking || self.kept.len() <= KEEP_LIMIT
    }

    fn record(&mut self, fresh: &[u64], chunks: &ChunkLevels, level: u32) {
        if self.tracking {
            fresh.iter().for_each(|&n| chunks.mark(n, level));
        }
        let room = (KEEP_LIMIT + 1).saturating_sub(self.kept.len());
        self.kept.extend(fresh.iter().take(room));
    }
}

impl<'a, P: Puzzle, S: DepthStore> Partitioned<'a, P, S> {
    /// Rank `transport.rank()`'s part of the search of `puzzle`, whose slice's entries
    /// `store` holds (`store.len()` must be the slice's length).
    pub fn new(puzzle: &'a P, store: &'a S, transport: &'a dyn Transport) -> Self {
        let slices = Slices::new(puzzle.index_count(), transport.ranks());
        let range = slices.range(transport.rank());
        let slice_len = range.end - range.start;
        let entry_bits = if store.period().is_some() { 2 } else { 8 };
        let goals = puzzle.goal_indices();
        let mut layout = Layout::new(&puzzle.segments(), &goals);
        layout.leave_out(puzzle.never_reached());
        layout.bottom_up_gain = puzzle.bottom_up_gain();
        let items: Vec<(Range<u64>, usize)> = layout
            .items
            .iter()
            .filter(|i| i.range.start < range.end && range.start < i.range.end)
            .map(|i| {
                (
                    i.range.start.max(range.start)..i.range.end.min(range.end),
                    i.class,
                )
            })
            .collect();
        // With depths mod 3, the recent marks of the level being written tell the next
        // frontier from older levels of its code.
        let mut recent = RecentMarks::of(store, layout.bipartite());
        if let Some(recent) = &mut recent {
            // A fresh store: a resume says otherwise.
            recent.seeded();
        }
        Partitioned {
            exhausted: vec![false; items.len()],
            puzzle,
            store,
            transport,
            slices,
            range,
            layout,
            items,
            chunks: ChunkLevels::new(puzzle.index_count()),
            goals,
            recent,
            sent: Vec::new(),
            redoing: false,
            starts: (0..transport.ranks()).map(|r| slices.start(r)).collect(),
            wide: (0..transport.ranks()).any(|r| slices.range(r).end - slices.start(r) > 1 << 32),
            outboxes: vec![Vec::new(); transport.ranks()],
            inbox: Vec::new(),
            neighbours: Vec::new(),
            frontier: Vec::new(),
            captured: Vec::new(),
            captured_level: None,
            frontier_bits: Vec::new(),
            fresh: Vec::new(),
            batch_states: batch_states(slice_len, entry_bits, puzzle.max_neighbours()),
            entry_bits,
            scan_counts: entry_bits == 8,
            watched: Vec::new(),
        }
    }

    /// Watches `indices` (those of this rank's slice): after each level, the ones it
    /// found get its depth ([`Partitioned::watched_depths`]). A class search watches
    /// its classes with fewer positions than symmetries, which positions per depth
    /// need ([`Puzzle::uneven_classes`]). Call before the search; a resumed search
    /// cannot tell the depths its earlier levels found.
    pub fn watch(&mut self, indices: &[u64]) {
        self.watched = indices
            .iter()
            .filter(|i| self.range.contains(i))
            .map(|&i| (i, None))
            .collect();
    }

    /// Gives the watched indices found since the last call the depth of the level
    /// completed last: `depth`.
    fn resolve_watched(&mut self, depth: u32) {
        let (store, start) = (self.store, self.range.start);
        for (index, found) in &mut self.watched {
            if found.is_none() && store.value(*index - start).is_some() {
                *found = Some(depth);
            }
        }
    }

    /// The watched indices with their depths (those the search reached), once the
    /// search has ended with level `last`.
    pub fn watched_depths(&mut self, last: u32) -> Vec<(u64, u32)> {
        self.resolve_watched(last);
        self.watched
            .iter()
            .filter_map(|&(i, d)| d.map(|d| (i, d)))
            .collect()
    }

    /// Sends offsets as two words even where one would do (tests of wide slices).
    #[cfg(test)]
    fn wide_offsets(mut self) -> Self {
        self.wide = true;
        self
    }

    /// Bytes this rank sent per level (levels 1, 2, ...).
    #[must_use]
    pub fn bytes_sent(&self) -> &[u64] {
        &self.sent
    }

    /// The slice's items of class `class`.
    fn items_of(&self, class: usize) -> impl Iterator<Item = &Range<u64>> {
        self.items
            .iter()
            .filter(move |(_, c)| *c == class)
            .map(|(r, _)| r)
    }

    fn local(&self, range: &Range<u64>) -> Range<u64> {
        range.start - self.range.start..range.end - self.range.start
    }

    /// Expands the collected frontier: marks the neighbours the slice holds, puts the
    /// others in their owners' outboxes, and returns the states marked. While the
    /// level keeps what it marks ([`LevelMarks`]), they are recorded there too.
    fn expand_frontier(&mut self, next: u32, level: &mut LevelMarks) -> u64 {
        if !level.keeping() {
            return if self.scan_counts {
                self.expand_and_mark::<false>(next)
            } else {
                self.expand_and_mark::<true>(next)
            };
        }
        // The neighbours first, into one buffer (a closure small enough to be inlined
        // into the puzzle's expansion), then one pass that marks or sends each.
        let mut neighbours = std::mem::take(&mut self.neighbours);
        neighbours.clear();
        neighbours.reserve(self.frontier.len() * self.puzzle.max_neighbours());
        self.puzzle.expand_sorted(&self.frontier, |_, found| {
            // One push each, not `extend_from_slice`: a copy of a few indices is a
            // call of the C library's memcpy (a fifth of a rank's time, measured).
            for &n in found {
                neighbours.push(n);
            }
        });
        self.frontier.clear();
        let (start, end, slices, wide) = (self.range.start, self.range.end, self.slices, self.wide);
        let mut found = 0;
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.resize(neighbours.len(), 0);
        for &n in &neighbours {
            if n >= start && n < end {
                // Branch-free: nothing waits for a mark's outcome, so the loads of
                // many marks are in flight at once.
                let new = self.store.mark_if_unseen(n - start, next);
                fresh[found] = n;
                found += new as usize;
            } else {
                post(&mut self.outboxes, &slices, &self.starts, wide, n);
            }
        }
        level.record(&fresh[..found], &self.chunks, next);
        self.fresh = fresh;
        self.neighbours = neighbours;
        found as u64
    }

    /// [`Partitioned::expand_frontier`] where nothing is kept: the expansion marks the
    /// neighbours the slice holds as it lists them and collects the others, which
    /// then go to their owners' outboxes; with two ranks (and one-word offsets) it
    /// writes them straight into the other rank's outbox.
    fn expand_and_mark<const COUNT: bool>(&mut self, next: u32) -> u64 {
        let frontier = std::mem::take(&mut self.frontier);
        let marking = Marking {
            store: self.store,
            start: self.range.start,
            len: self.range.end - self.range.start,
            next,
        };
        let found = if self.slices.ranks() == 2 && !self.wide {
            let peer = 1 - self.transport.rank();
            let peer_start = self.starts[peer];
            let outbox = &mut self.outboxes[peer];
            marking
                .expand::<COUNT, _, _>(self.puzzle, &frontier, outbox, |n| (n - peer_start) as u32)
        } else {
            let mut remote = std::mem::take(&mut self.neighbours);
            remote.clear();
            let found = marking.expand::<COUNT, _, _>(self.puzzle, &frontier, &mut remote, |n| n);
            let (slices, wide) = (self.slices, self.wide);
            for &n in &remote {
                post(&mut self.outboxes, &slices, &self.starts, wide, n);
            }
            self.neighbours = remote;
            found
        };
        self.frontier = frontier;
        self.frontier.clear();
        found
    }

    /// One exchange: sends the outboxes, marks what arrives (as
    /// [`Partitioned::expand_frontier`]). Returns the states marked, the bytes sent
    /// and whether any rank has frontier left.
    fn exchange(&mut self, next: u32, level: &mut LevelMarks, more: bool) -> (u64, u64, bool) {
        let words = self.outboxes.iter().map(|o| o.len() as u64).sum::<u64>();
        let mut inbox = std::mem::take(&mut self.inbox);
        let any_more = self.transport.exchange(&self.outboxes, &mut inbox, more);
        self.outboxes.iter_mut().for_each(Vec::clear);
        let found = if self.wide {
            let offsets = inbox.chunks_exact(2);
            self.mark_received(
                offsets.map(|w| w[0] as u64 | (w[1] as u64) << 32),
                next,
                level,
            )
        } else {
            self.mark_received(inbox.iter().map(|&w| w as u64), next, level)
        };
        self.inbox = inbox;
        (found, words * WORD_BYTES, any_more)
    }

    /// Marks the received `offsets` into the slice; returns the states marked.
    fn mark_received(
        &mut self,
        offsets: impl ExactSizeIterator<Item = u64>,
        next: u32,
        level: &mut LevelMarks,
    ) -> u64 {
        let mut found = 0;
        if level.keeping() {
            let mut fresh = std::mem::take(&mut self.fresh);
            fresh.resize(offsets.len(), 0);
            for local in offsets {
                let new = self.store.mark_if_unseen(local, next);
                fresh[found] = self.range.start + local;
                found += new as usize;
            }
            level.record(&fresh[..found], &self.chunks, next);
            self.fresh = fresh;
        } else {
            for local in offsets {
                found += self.store.mark_if_unseen(local, next) as usize;
            }
        }
        found as u64
    }

    /// Clears the recent marks of the generation level `next` writes, where it may
    /// write (its class, or all without colour classes), and makes every write mark.
    fn forget_recent(&self, target: usize, next: u32) {
        let Some(recent) = &self.recent else { return };
        let bipartite = self.layout.bipartite();
        let stale: Vec<Range<u64>> = self
            .items
            .iter()
            .filter(|(_, class)| !bipartite || *class == target)
            .map(|(range, _)| self.local(range))
            .collect();
        // SAFETY: between levels nothing else touches the store.
        unsafe { recent.prepare(next, &stale) };
    }

    /// Appends the frontier states of `item` (global indices) to the frontier.
    fn collect(&mut self, item: &Range<u64>, depth: u32) {
        self.collect_matching(item, Wanted::Depth(depth));
    }

    /// Appends the states of `item` that match `wanted` (global indices) to the
    /// frontier buffer; a wanted depth is looked for among the recent marks.
    fn collect_matching(&mut self, item: &Range<u64>, wanted: Wanted) {
        let local = self.local(item);
        let start = self.frontier.len();
        // SAFETY: this rank's only thread runs here; nothing writes the store meanwhile.
        unsafe {
            let recent = match wanted {
                Wanted::Depth(depth) => self.recent.as_ref().and_then(|r| {
                    let generation = r.holding(depth)?;
                    Some((r.store(), generation))
                }),
                Wanted::Unseen => None,
            };
            if let Some((marks, generation)) = recent {
                marks.collect_recent_exclusive(local, wanted, generation, &mut self.frontier);
            } else {
                self.store
                    .collect_exclusive(local, wanted, &mut self.frontier);
            }
        }
        let offset = self.range.start;
        self.frontier[start..].iter_mut().for_each(|i| *i += offset);
    }

    /// The states of the slice at depth `depth`, the last level of a finished search:
    /// how many there are and the first `limit` of them, ascending. With depths mod 3
    /// and a last level too large to have been kept as it was marked, the recent
    /// marks give candidates that may include older levels with the same code: the
    /// caller checks their total against the histogram.
    pub fn last_level_indices(&mut self, depth: u32, limit: usize) -> (u64, Vec<u64>) {
        if self.captured_level != Some(depth) {
            return (0, Vec::new());
        }
        if self.captured.len() <= KEEP_LIMIT {
            let mut found = std::mem::take(&mut self.captured);
            found.sort_unstable();
            let count = found.len() as u64;
            found.truncate(limit);
            return (count, found);
        }
        let class = self.layout.class_of(depth);
        let items: Vec<Range<u64>> = self.items_of(class).cloned().collect();
        let (mut count, mut first) = (0, Vec::new());
        for item in &items {
            self.frontier.clear();
            self.collect(item, depth);
            count += self.frontier.len() as u64;
            let room = limit.saturating_sub(first.len());
            first.extend(self.frontier.iter().take(room));
        }
        self.frontier.clear();
        (count, first)
    }
}

impl<P: Puzzle, S: DepthStore> Partitioned<'_, P, S> {
    /// A top-down level: the slice's frontier in batches, an exchange after each.
    /// Returns the states found in the slice and the bytes sent.
    fn top_down(
        &mut self,
        plan: &LevelPlan,
        level: &mut LevelMarks,
        observer: &dyn Observer,
    ) -> (u64, u64) {
        let (depth, next) = (plan.depth, plan.depth + 1);
        let items: Vec<Range<u64>> = self
            .items_of(plan.source)
            .filter(|r| self.chunks.get((r.start >> CHUNK_SHIFT) as usize) == depth)
            .cloned()
            .collect();
        let (mut found, mut sent) = (0, 0);
        // Items are collected in pieces, so that a batch ends within a piece of its
        // size; the last piece of an item is one unit of work done.
        let mut pending = items
            .iter()
            .flat_map(|item| {
                (item.start..item.end)
                    .step_by(COLLECT_PIECE as usize)
                    .map(|s| {
                        (
                            s..(s + COLLECT_PIECE).min(item.end),
                            s + COLLECT_PIECE >= item.end,
                        )
                    })
            })
            .peekable();
        loop {
            while let Some((piece, last)) =
                pending.next_if(|_| self.frontier.len() < self.batch_states)
            {
                self.collect(&piece, depth);
                if last {
                    observer.work_done(1);
                }
            }
            found += self.expand_frontier(next, level);
            let more = pending.peek().is_some();
            let (received, bytes, any_more) = self.exchange(next, level, more);
            found += received;
            sent += bytes;
            if !any_more {
                break;
            }
        }
        (found, sent)
    }

    /// The bottom-up search of the new level's class: its unseen states that have a
    /// neighbour in the frontier (`bits`) get the new depth. Items with no unseen
    /// state left are skipped from then on. Returns the states found.
    fn search_unseen(
        &mut self,
        plan: &LevelPlan,
        bits: &[u64],
        level: &mut LevelMarks,
        observer: &dyn Observer,
    ) -> u64 {
        let next = plan.depth + 1;
        let mut found = 0;
        for at in self.unexhausted(plan.target) {
            let item = self.items[at].0.clone();
            self.frontier.clear();
            self.collect_matching(&item, Wanted::Unseen);
            let unseen = std::mem::take(&mut self.frontier);
            let mut in_item = 0;
            self.puzzle.expand_sorted(&unseen, |index, neighbours| {
                if neighbours
                    .iter()
                    .any(|&n| bits[(n / 64) as usize] >> (n % 64) & 1 == 1)
                {
                    self.store.set(index - self.range.start, next);
                    in_item += 1;
                    if level.kept.len() <= KEEP_LIMIT {
                        level.kept.push(index);
                    }
                }
            });
            if in_item > 0 {
                self.chunks.set((item.start >> CHUNK_SHIFT) as usize, next);
            }
            self.exhausted[at] = in_item == unseen.len();
            found += in_item as u64;
            self.frontier = unseen;
            observer.work_done(1);
        }
        found
    }

    /// The positions in `items` of the items of class `class` that may hold unseen
    /// states.
    fn unexhausted(&self, class: usize) -> Vec<usize> {
        (0..self.items.len())
            .filter(|&at| self.items[at].1 == class && !self.exhausted[at])
            .collect()
    }

    /// Whether a bit per index (the whole frontier, for bottom-up levels) takes at
    /// most half the memory of a slice's own entries (the same answer on every rank).
    fn frontier_bits_fit(&self) -> bool {
        let count = self.puzzle.index_count();
        2 * count <= count / self.slices.ranks() as u64 * self.entry_bits
    }

    /// Gives every rank the whole frontier's bits, each rank having set those of its
    /// slice: word `w` is the part of the rank that owns index `64 w`, and a rank whose
    /// slice starts inside a word (small spaces only: large ones are cut at multiples
    /// of [`super::slices::BLOCK`]) sends its bits of that word apart, to be ORed in.
    fn share_frontier_bits(&self, bits: &mut [u64]) {
        let ranks = self.slices.ranks();
        let parts: Vec<Range<usize>> = (0..ranks)
            .map(|r| {
                let slice = self.slices.range(r);
                slice.start.div_ceil(64) as usize..slice.end.div_ceil(64) as usize
            })
            .collect();
        let head = |r: usize| {
            let slice = self.slices.range(r);
            (!slice.start.is_multiple_of(64) && !slice.is_empty())
                .then_some((slice.start / 64) as usize)
        };
        let my_head = head(self.transport.rank()).map_or(0, |w| bits[w]);
        self.transport.share(bits, &parts);
        if (0..ranks).all(|r| head(r).is_none()) {
            return;
        }
        let heads = self.transport.gather(&[my_head]);
        for (r, bits_of_r) in heads.into_iter().enumerate() {
            if let Some(w) = head(r) {
                bits[w] |= bits_of_r;
            }
        }
    }

    /// A bottom-up level: every rank sets its frontier's bits in a bit set of all
    /// indices and the ranks share them, then a rank's unseen states of the new
    /// level's class look for a neighbour in it.
    /// Returns the states found in the slice.
    fn bottom_up(
        &mut self,
        plan: &LevelPlan,
        level: &mut LevelMarks,
        observer: &dyn Observer,
    ) -> u64 {
        let depth = plan.depth;
        // Zero between levels; allocated by the first bottom-up level.
        let mut bits = std::mem::take(&mut self.frontier_bits);
        let words = self.puzzle.index_count().div_ceil(64) as usize;
        if bits.len() != words {
            bits.clear();
            bits.resize(words, 0);
        }
        // A small frontier (the last levels) travels as a list of indices, fewer
        // bytes than the bit set (the same choice on every rank: the count is global).
        let sparse = plan.frontier < words as u64 / 8;
        let mut listed = Vec::new();
        let sources: Vec<Range<u64>> = self
            .items_of(plan.source)
            .filter(|r| self.chunks.get((r.start >> CHUNK_SHIFT) as usize) == depth)
            .cloned()
            .collect();
        for item in &sources {
            self.frontier.clear();
            self.collect(item, depth);
            if sparse {
                listed.extend_from_slice(&self.frontier);
            } else {
                for &i in &self.frontier {
                    bits[(i / 64) as usize] |= 1 << (i % 64);
                }
            }
        }
        if sparse {
            listed = self.transport.gather(&listed);
            for &i in &listed {
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
        } else {
            self.share_frontier_bits(&mut bits);
        }
        let found = self.search_unseen(plan, &bits, level, observer);
        self.frontier.clear();
        if sparse {
            listed.iter().for_each(|&i| bits[(i / 64) as usize] = 0);
        } else {
            bits.fill(0);
        }
        self.frontier_bits = bits;
        found
    }
}

impl<P: Puzzle, S: DepthStore> Executor for Partitioned<'_, P, S> {
    fn indices(&self) -> Range<u64> {
        self.range.clone()
    }

    fn class_of(&self, depth: u32) -> usize {
        self.layout.class_of(depth)
    }

    fn class_sizes(&self) -> [u64; 2] {
        self.layout.class_size
    }

    fn never_reached_unchecked(&self) -> u64 {
        self.layout.left_out
    }

    fn bottom_up_gain(&self) -> u64 {
        self.layout.bottom_up_gain
    }

    fn max_depth(&self) -> u32 {
        self.store.max_depth()
    }

    fn period(&self) -> Option<u32> {
        self.store.period()
    }

    fn seed(&mut self) -> u64 {
        let mut local = 0;
        for &goal in self.goals.iter().filter(|g| self.range.contains(g)) {
            self.store.set(goal - self.range.start, 0);
            self.chunks.set((goal >> CHUNK_SHIFT) as usize, 0);
            local += 1;
        }
        self.transport.sum(local)
    }

    fn resume(&mut self, levels: usize) {
        self.chunks.set_all(levels as u32 - 1);
        self.redoing = true;
        if let Some(recent) = &mut self.recent {
            recent.resumed();
        }
    }

    fn frontier_is_exact(&self, depth: u32) -> bool {
        RecentMarks::frontier_is_exact(self.store, self.recent.as_ref(), depth)
    }

    fn top_down_only(&self) -> bool {
        !self.frontier_bits_fit()
    }

    fn work_units(&self, plan: &LevelPlan) -> u64 {
        match plan.direction {
            Direction::TopDown => self
                .items_of(plan.source)
                .filter(|r| self.chunks.get((r.start >> CHUNK_SHIFT) as usize) == plan.depth)
                .count() as u64,
            Direction::BottomUp => self.unexhausted(plan.target).len() as u64,
        }
    }

    fn run_level(
        &mut self,
        plan: &LevelPlan,
        _capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError> {
        let next = plan.depth + 1;
        // Levels up to `plan.depth` are complete: what they found and no watched
        // index was given, the last of them found.
        self.resolve_watched(plan.depth);
        self.forget_recent(plan.target, next);
        let redoing = std::mem::take(&mut self.redoing);
        // A dense frontier writes all over its class: its chunks are recorded after.
        let dense = plan.frontier * DENSE_FRACTION > self.layout.class_size[plan.source];
        let mut level = LevelMarks {
            kept: Vec::new(),
            tracking: !dense,
        };
        let (found, sent) = match plan.direction {
            Direction::TopDown => self.top_down(plan, &mut level, control.observer),
            Direction::BottomUp => (self.bottom_up(plan, &mut level, control.observer), 0),
        };
        // The interrupted run's marks of this level may lie anywhere in its class, and
        // the recent marks hold only this run's.
        if let Some(recent) = &mut self.recent {
            recent.written(
                next,
                if redoing {
                    Written::Redone
                } else {
                    Written::Whole
                },
            );
        }
        if redoing || dense {
            let targets: Vec<u64> = self.items_of(plan.target).map(|r| r.start).collect();
            for start in targets {
                self.chunks.set((start >> CHUNK_SHIFT) as usize, next);
            }
        }
        self.sent.push(sent);
        // While a level keeps what it marks it keeps every state it marks: it found
        // some here if it kept some (its count may be left to a scan).
        if !level.kept.is_empty() {
            self.captured = level.kept;
            self.captured_level = Some(next);
        }
        let scanned = self.scan_counts && plan.direction == Direction::TopDown;
        Ok(LevelOutcome {
            found: (!scanned).then_some(found),
            captured: None,
        })
    }

    fn count_level(&self, plan: &LevelPlan) -> u64 {
        let next = plan.depth + 1;
        let exact = self.store.period().is_none();
        self.items_of(plan.target)
            .filter(|r| {
                let written = self.chunks.get((r.start >> CHUNK_SHIFT) as usize);
                !exact || (written == next && written != NEVER)
            })
            // SAFETY: between levels nothing writes the store.
            .map(|r| unsafe {
                self.store
                    .count_exclusive(self.local(r), Wanted::Depth(next))
            })
            .sum()
    }

    fn combine(&self, local: u64) -> u64 {
        self.transport.sum(local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2-bit slices get batches whose buffers take about an eighth of them, byte
    /// slices the largest batches, tiny slices the smallest.
    #[test]
    fn batches_follow_the_slice_memory() {
        // 2x6 on 2 ranks with 2-bit entries: a 29.9 MB slice, 3 neighbours a state.
        assert_eq!(batch_states(119_750_400, 2, 3), 66_825);
        // 3x4 on 2 ranks with 2-bit entries, 4 neighbours: 59.9 MB, 72 bytes a state.
        assert_eq!(batch_states(239_500_800, 2, 4), 103_950);
        assert_eq!(batch_states(239_500_800, 8, 4), BATCH_STATES);
        assert_eq!(batch_states(1000, 2, 3), MIN_BATCH_STATES);
        assert_eq!(batch_states(u64::MAX, 8, 4), BATCH_STATES);
    }

    /// One rank's search of `puzzle`: the histogram and the bytes sent per level.
    fn search<S: DepthStore>(
        puzzle: &crate::puzzles::SlidingPuzzle,
        store: &S,
        transport: &dyn Transport,
        wide: bool,
    ) -> (Vec<u64>, Vec<u64>) {
        use crate::driver::Control;
        use crate::engine::Bfs;
        let mut rank = Partitioned::new(puzzle, store, transport);
        if wide {
            rank = rank.wide_offsets();
        }
        let bfs = Bfs::with_executor(Box::new(&mut rank));
        let levels = bfs.run(&Control::default()).unwrap().0;
        (levels, rank.bytes_sent().to_vec())
    }

    /// Offsets sent as two words (slices of more than 2^32 indices) find the same
    /// histogram as one word, with twice the bytes, in both encodings.
    #[test]
    fn wide_offsets_find_the_same_levels() {
        use crate::engine::InProcessRanks;
        use crate::puzzles::SlidingPuzzle;
        use crate::store::{ByteDepths, PackedDepths};
        let puzzle = SlidingPuzzle::new(3, 3).unwrap();
        let ranks = 3;
        let run = |wide: bool, packed: bool| {
            let shared = InProcessRanks::new(ranks);
            std::thread::scope(|scope| {
                let runs: Vec<_> = (0..ranks)
                    .map(|r| {
                        let (transport, puzzle) = (shared.rank(r), &puzzle);
                        scope.spawn(move || {
                            let slice = Slices::new(puzzle.index_count(), ranks).range(r);
                            let len = slice.end - slice.start;
                            if packed {
                                let store = PackedDepths::anonymous(len).unwrap();
                                search(puzzle, &store, &transport, wide)
                            } else {
                                let store = ByteDepths::anonymous(len).unwrap();
                                search(puzzle, &store, &transport, wide)
                            }
                        })
                    })
                    .collect();
                runs.into_iter()
                    .map(|r| r.join().unwrap())
                    .collect::<Vec<_>>()
            })
        };
        for packed in [false, true] {
            let (narrow, wide) = (run(false, packed), run(true, packed));
            for ((levels, sent), (wide_levels, wide_sent)) in narrow.iter().zip(&wide) {
                assert_eq!(levels.len(), 32, "God's number 31");
                assert_eq!(levels[31], 2);
                assert_eq!(levels, wide_levels);
                let doubled: Vec<u64> = sent.iter().map(|b| 2 * b).collect();
                assert_eq!(&doubled, wide_sent);
                assert!(sent.iter().sum::<u64>() > 0);
            }
        }
    }

    /// Every rank sets the bits of the multiples of 3 in its slice; after sharing,
    /// every rank holds all of them, also where slices start inside a word (2x3's 360
    /// indices on 3 ranks start at 0, 120 and 240; on 7 ranks at multiples of 52).
    #[test]
    fn shared_frontier_bits_reach_every_rank() {
        use crate::engine::InProcessRanks;
        use crate::puzzles::SlidingPuzzle;
        use crate::store::ByteDepths;
        let puzzle = SlidingPuzzle::new(2, 3).unwrap();
        let count = puzzle.index_count();
        let wanted: Vec<u64> = (0..count.div_ceil(64))
            .map(|w| (0..64).filter(move |b| (w * 64 + b) % 3 == 0 && w * 64 + b < count))
            .map(|bits| bits.fold(0, |word, b| word | 1 << b))
            .collect();
        for ranks in [2, 3, 7] {
            let shared = InProcessRanks::new(ranks);
            std::thread::scope(|scope| {
                for r in 0..ranks {
                    let (transport, puzzle, wanted) = (shared.rank(r), &puzzle, &wanted);
                    scope.spawn(move || {
                        let slice = Slices::new(count, ranks).range(r);
                        let store = ByteDepths::anonymous(slice.end - slice.start).unwrap();
                        let rank = Partitioned::new(puzzle, &store, &transport);
                        let mut bits = vec![0u64; wanted.len()];
                        for i in slice.filter(|i| i % 3 == 0) {
                            bits[(i / 64) as usize] |= 1 << (i % 64);
                        }
                        rank.share_frontier_bits(&mut bits);
                        assert_eq!(&bits, wanted, "rank {r} of {ranks}");
                    });
                }
            });
        }
    }
}
