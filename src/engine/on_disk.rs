//! The executor of a search whose table is larger than the memory it may use: the
//! index space cut into blocks ([`DiskBlocks`]: the same slice of every part a
//! puzzle's moves keep to, [`crate::Puzzle::disk_regions`]) that are in memory one at
//! a time, and the neighbours found for other blocks kept in [`Buckets`] until their
//! block is.
//!
//! A level is two passes over the blocks, in index order:
//!
//! 1. **expand**: every block that holds frontier states is brought in; the bucket
//!    earlier blocks filled for it is marked, then its frontier (in groups of work
//!    items, scanned while nothing writes, then expanded on the pool) marks the
//!    neighbours inside the block at once and appends every other to the bucket of
//!    its block. Byte entries: the scans mark the puzzle's translated neighbours
//!    ([`crate::Puzzle::translations`]) many at a time where they stay in the block,
//!    and the block's new level is counted by a scan of the chunks it marked;
//! 2. **apply**: every block with a waiting bucket (neighbours from later blocks) is
//!    brought in and its bucket marked, each slot once, so that the marks that find
//!    an unseen state count the rest of the new level exactly. Packed entries count
//!    every mark in both passes, each one atomic read-modify-write.
//!
//! A bottom-up level (where the unseen states, each weighed by its far neighbours, are
//! fewer than the frontier: the last levels, [`Executor::bottom_up_cost`]) is three
//! passes:
//!
//! 1. **ask**: every block that holds unseen states of the new level's class is
//!    brought in, and each unseen state looks at its neighbours: one inside the block
//!    answers at once (a frontier neighbour marks the state, which asks no more), one
//!    in another block is a *question*, its slot appended to that block's bucket of
//!    questions;
//! 2. **answer**: every block asked about is brought in (its bucket of new states
//!    from earlier blocks marked first); the frontier states among its questions are
//!    expanded as a top-down level expands its frontier: every unseen neighbour of a
//!    frontier state is in the new level, and each state of the new level with no
//!    frontier neighbour in its own block asked every frontier neighbour it has;
//! 3. **apply**: the buckets of new states left for earlier blocks are marked.
//!
//! Only the frontier states some unseen state asked about are expanded: at the last
//! levels, a small part of the frontier.
//!
//! After a block the store is told it may drop the block's pages ([`Residency`]): the
//! depths stay in the table file, and the process holds about one block and the
//! buckets' share of its memory. Asked to capture a level ([`Capture::Kept`]), packed
//! entries (whose marks tell each new state once) keep its states' indices, up to
//! [`CAPTURE_LIMIT`]: the last level's, for the report.
//!
//! The table file holds every level as it is found, so a level is complete only after
//! its apply pass, and the file may hold states of levels past its last checkpoint.
//! A resumed run redoes the levels after the checkpoint's ([`Executor::resume`]), and
//! its buckets are rebuilt by the redo: the first level redone is counted by scans
//! (it may hold states the interrupted run marked anywhere); over exact depths every
//! later level too, each scanning every block, since the file may hold any number of
//! levels past the checkpoint (over depths mod 3 the build saves every level, so that
//! at most one is part-written: its codes would otherwise pass for older levels').

use std::cell::RefCell;
use std::ops::Range;

use rayon::prelude::*;

use super::buckets::{BucketError, Buckets};
use super::disk_blocks::DiskBlocks;
use super::layout::{ChunkLevels, Layout};
use super::marking::Ahead;
use super::{CAPTURE_LIMIT, Capture, Direction, EngineError, Executor, LevelOutcome, LevelPlan};
use crate::driver::{BlockStep, Control};
use crate::puzzle::Puzzle;
use crate::store::{DepthStore, Wanted};

/// Where the entries of the blocks live between visits: told when a block's entries
/// are no longer needed, it may drop them from memory (they are kept on disk).
pub trait Residency: Sync {
    /// The search is done with the entries of `indices` for now.
    fn release(&self, indices: Range<u64>);
}

/// What a level on disk moved: bytes of buckets written and read back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes of neighbours written to bucket files.
    pub written: u64,
    /// Bytes of neighbours read back from them.
    pub read: u64,
}

/// Work items a group scans at once, on the pool, at least: enough to share among
/// the threads.
const SCAN_BATCH: usize = 4;

/// Work items a group scans at once at most, where the mean frontier of the block's
/// items so far says that they fit the group's share of the memory.
const SCAN_BATCH_MAX: usize = 32;

/// Frontier states a task of the pool expands at once, at most (fewer where a group
/// would not give each thread a few pieces), and at least.
const EXPAND_PIECE: usize = 1 << 14;
const EXPAND_PIECE_MIN: usize = 1 << 10;

/// The search of a store whose blocks are in memory one at a time ([`Residency`]):
/// see the module docs. The buckets live in a folder of their own, removed by
/// [`OnDisk::finish`].
pub struct OnDisk<'a, P: Puzzle, S: DepthStore> {
    puzzle: &'a P,
    store: &'a S,
    residency: &'a dyn Residency,
    layout: Layout,
    chunks: ChunkLevels,
    goals: Vec<u64>,
    blocks: DiskBlocks,
    buckets: Buckets,
    /// A bottom-up level's questions: frontier candidates by block, asked by unseen
    /// states of other blocks.
    questions: Buckets,
    /// The next level is the one an interrupted run left partly written.
    redoing: bool,
    /// The run was resumed over exact depths, whose file may hold states of any level
    /// past its checkpoint: every level scans every block and counts by the scans.
    resumed_exact: bool,
    /// The count of the level just computed, by the apply pass's scans (byte entries).
    counted: Option<(u32, u64)>,
    traffic: Vec<Traffic>,
    /// Frontier states a group of work items holds at most, beyond its last batch
    /// of items: they and their far neighbours are the memory a block needs beside
    /// its entries.
    group_states: u64,
    /// The far neighbours (in other blocks) and the frontier states a top-down level
    /// expanded, for the cost of a bottom-up level: of the last level that expanded
    /// enough states to tell ([`Executor::bottom_up_cost`]).
    far_per_expanded: (u64, u64),
    /// The indices of the level's new states, while the search asks for them and
    /// they are at most [`CAPTURE_LIMIT`] (packed entries, whose marks are exact).
    kept: Option<Vec<u64>>,
}

/// The states a piece of a group marked new: how many, and which if kept.
struct NewStates {
    count: u64,
    kept: Option<Vec<u64>>,
}

impl NewStates {
    fn new(keep: bool) -> NewStates {
        NewStates {
            count: 0,
            kept: keep.then(Vec::new),
        }
    }

    #[inline(always)]
    fn add(&mut self, index: u64) {
        self.count += 1;
        if let Some(kept) = &mut self.kept {
            kept.push(index);
        }
    }
}

/// Adds the states `new` kept to `kept`, or stops keeping past [`CAPTURE_LIMIT`].
fn keep_into(kept: &mut Option<Vec<u64>>, new: Option<Vec<u64>>) {
    if let (Some(all), Some(new)) = (kept.as_mut(), new) {
        if all.len() + new.len() > CAPTURE_LIMIT {
            *kept = None;
        } else {
            all.extend(new);
        }
    }
}

/// Frontier states a top-down level expands at least for its share of far neighbours
/// to set the cost of a bottom-up level.
const FAR_SAMPLE: u64 = 1 << 12;

impl<'a, P: Puzzle, S: DepthStore> OnDisk<'a, P, S> {
    /// The search of `puzzle` over `store` (its whole index space), in blocks of at
    /// most `block_entries` indices, with buckets in `folder` holding at most
    /// `bucket_memory` bytes in memory, and groups of frontier states taking about as
    /// much.
    ///
    /// # Errors
    /// [`BucketError::Io`] if the folder cannot be made.
    pub fn new(
        puzzle: &'a P,
        store: &'a S,
        residency: &'a dyn Residency,
        block_entries: u64,
        folder: &std::path::Path,
        bucket_memory: u64,
    ) -> Result<Self, BucketError> {
        let goals = puzzle.goal_indices();
        let mut layout = Layout::new(&puzzle.segments(), &goals);
        layout.leave_out(puzzle.never_reached());
        let count = puzzle.index_count();
        let blocks = DiskBlocks::new(count, puzzle.disk_regions(), block_entries);
        Ok(OnDisk {
            buckets: Buckets::new(folder, blocks.count(), blocks.slots(), bucket_memory)?,
            // Spilled whole after the ask pass: while the answers fill the buckets,
            // a run of questions at a time is in memory.
            questions: Buckets::without_bitmap(
                &folder.join("questions"),
                blocks.count(),
                blocks.slots(),
                bucket_memory / 4,
            )?,
            puzzle,
            store,
            residency,
            layout,
            chunks: ChunkLevels::new(count),
            goals,
            blocks,
            redoing: false,
            resumed_exact: false,
            counted: None,
            traffic: Vec::new(),
            group_states: bucket_memory / (8 + 4 * puzzle.max_neighbours() as u64).max(1),
            far_per_expanded: (0, 0),
            kept: None,
        })
    }

    /// The number of blocks.
    #[must_use]
    pub fn blocks(&self) -> usize {
        self.blocks.count()
    }

    /// The bucket bytes each level moved (levels 1, 2, ...).
    #[must_use]
    pub fn traffic(&self) -> &[Traffic] {
        &self.traffic
    }

    /// Removes the buckets' folder.
    pub fn finish(self) {
        self.questions.remove();
        self.buckets.remove();
    }

    /// What a block's search may use at once: see [`Near`].
    fn near(&self) -> Near<'_, P, S> {
        Near {
            puzzle: self.puzzle,
            store: self.store,
            chunks: &self.chunks,
            blocks: &self.blocks,
            group_states: self.group_states,
            keep: self.kept.is_some(),
        }
    }

    /// Tells the store the search is done with `block`'s entries for now.
    fn release(&self, block: usize) {
        for range in self.blocks.ranges(block) {
            self.residency.release(range);
        }
    }

    /// The work items of class `class` inside `block`, cut to its ranges, that a level
    /// from `depth` may find frontier in (all of them with `None`).
    fn items_in(&self, block: usize, class: usize, depth: Option<u32>) -> Vec<Range<u64>> {
        let mut pieces = Vec::new();
        for range in self.blocks.ranges(block) {
            // The items are in index order: from the first that ends inside the range.
            let first = self
                .layout
                .items
                .partition_point(|i| i.range.end <= range.start);
            pieces.extend(
                self.layout.items[first..]
                    .iter()
                    .take_while(|i| i.range.start < range.end)
                    .filter(|i| i.class == class)
                    .filter(|i| depth.is_none_or(|d| self.chunks.get(i.chunk) == d))
                    .map(|i| i.range.start.max(range.start)..i.range.end.min(range.end)),
            );
        }
        pieces
    }

    /// Pass 1 over `block`: expands its frontier at `depth`, marks the neighbours
    /// inside and buckets the others, adding them and the states expanded to
    /// `tally` (far, expanded). Returns the states it marked new (exact on packed
    /// entries; byte entries are counted by scans) or `None` once stopped.
    fn expand_block(
        &mut self,
        block: usize,
        items: &[Range<u64>],
        depth: u32,
        translating: bool,
        control: &Control<'_>,
        tally: &mut (u64, u64),
    ) -> Result<Option<u64>, BucketError> {
        let next = depth + 1;
        let (store, puzzle, chunks, blocks) = (self.store, self.puzzle, &self.chunks, &self.blocks);
        let mut found = 0;
        let mut at = 0;
        // The frontier states of the block's items scanned so far, for the batches' size.
        let mut scanned_states = 0u64;
        while at < items.len() {
            if control.stopped() {
                return Ok(None);
            }
            // Items scanned in batches until the group's frontier fills its share of the
            // memory (or a batch's items, at most, past it): each batch as many items as
            // the room left holds at the mean so far, so that the threads share many.
            let mut frontiers: Vec<(Vec<u64>, bool)> = Vec::new();
            let mut states = 0;
            while at < items.len() && (frontiers.is_empty() || states < self.group_states) {
                let mean = scanned_states.div_ceil(at.max(1) as u64).max(1);
                let room = self.group_states.saturating_sub(states) / mean;
                let size = if at == 0 {
                    SCAN_BATCH
                } else {
                    (room as usize).clamp(SCAN_BATCH, SCAN_BATCH_MAX)
                };
                let batch = &items[at..(at + size).min(items.len())];
                at += batch.len();
                let scanned: Vec<(Vec<u64>, bool)> = batch
                    .par_iter()
                    .map(|item| {
                        let mut frontier = Vec::new();
                        let deltas = puzzle.translations(item.start);
                        let deltas = deltas.as_slice();
                        let translated = translating
                            && !deltas.is_empty()
                            && deltas.iter().all(|&d| blocks.holds_shifted(block, item, d));
                        if translated {
                            // SAFETY: the scan writes only the shifted ranges, which lie in
                            // the other colour class (`translating`): no scan of the group
                            // reads them, and the expansions start after every scan.
                            let hits = unsafe {
                                store.collect_translating_exclusive(
                                    item.clone(),
                                    Wanted::Depth(depth),
                                    deltas,
                                    next,
                                    &mut frontier,
                                )
                            };
                            for (k, &delta) in deltas.iter().enumerate() {
                                if hits & (1 << k) != 0 {
                                    // A piece lies in one chunk; shifted, in at most two.
                                    chunks.mark(item.start.wrapping_add_signed(delta), next);
                                    chunks.mark((item.end - 1).wrapping_add_signed(delta), next);
                                }
                            }
                        } else {
                            // SAFETY: nothing writes the store while the group is scanned
                            // (the expansions start after every scan has joined).
                            unsafe {
                                store.collect_exclusive(
                                    item.clone(),
                                    Wanted::Depth(depth),
                                    &mut frontier,
                                )
                            };
                        }
                        (frontier, translated)
                    })
                    .collect();
                let batch_states = scanned.iter().map(|(f, _)| f.len() as u64).sum::<u64>();
                states += batch_states;
                scanned_states += batch_states;
                frontiers.extend(scanned);
            }
            let expanded = self.near().expand_group(block, &frontiers, next);
            tally.1 += states;
            for (new, far) in expanded {
                found += new.count;
                keep_into(&mut self.kept, new.kept);
                for (owner, slots) in far.iter().enumerate() {
                    tally.0 += slots.len() as u64;
                    self.buckets.extend(owner, slots)?;
                }
            }
        }
        Ok(Some(found))
    }

    /// Marks `block`'s bucket (pass 2, or before pass 1 expands the block). Returns
    /// the states it marked new, exactly: the bucket hands over runs of distinct
    /// slots, one run at a time.
    fn apply_block(&mut self, block: usize, next: u32) -> Result<u64, BucketError> {
        let (store, chunks, blocks) = (self.store, &self.chunks, &self.blocks);
        let (keep, kept) = (self.kept.is_some(), &mut self.kept);
        let mut found = 0;
        self.buckets.drain(block, |slots| {
            let pieces: Vec<NewStates> = slots
                .par_chunks(1 << 12)
                .map(|piece| {
                    let mut new = NewStates::new(keep);
                    for &slot in piece {
                        let n = blocks.index(block, slot);
                        if store.mark_if_unseen(n, next) {
                            new.add(n);
                            chunks.mark(n, next);
                        }
                    }
                    new
                })
                .collect();
            for new in pieces {
                found += new.count;
                keep_into(kept, new.kept);
            }
        })?;
        Ok(found)
    }

    /// The entries of `block` in class `class` holding `next`'s code: in every work
    /// item if `everywhere`, else in those whose chunk this run marked at `next`.
    fn count_block(&self, block: usize, class: usize, next: u32, everywhere: bool) -> u64 {
        self.items_in(block, class, (!everywhere).then_some(next))
            .par_iter()
            // SAFETY: between the passes' writes nothing writes the store.
            .map(|r| unsafe { self.store.count_exclusive(r.clone(), Wanted::Depth(next)) })
            .sum()
    }

    /// Both passes of a top-down level; `None` once stopped.
    fn top_down(
        &mut self,
        plan: &LevelPlan,
        control: &Control<'_>,
    ) -> Result<Option<u64>, BucketError> {
        let (depth, next) = (plan.depth, plan.depth + 1);
        let exact_marks = self.store.packed().is_some();
        // A level redone after a resume may find states of its own marked anywhere by
        // the interrupted run: every block is visited by pass 2 and counted by a scan.
        let redoing = std::mem::take(&mut self.redoing) || self.resumed_exact;
        // The puzzle's translated neighbours marked by the frontier scans, many at a
        // time, where they lie in the other colour class (the scans of a group then
        // write nothing another reads) and the level is counted by scans (the
        // translated marks are not counted one by one).
        let translating = !exact_marks && plan.source != plan.target;
        let mut found = 0;
        // Byte entries: the states of the new level each block holds after pass 1 (a
        // scan while it is in memory), to which pass 2 adds what its bucket marks.
        let mut counted = 0;
        // Chosen before any mark: a work item may span blocks, and the marks of one
        // block change its chunk's last level.
        let frontier_items: Vec<Vec<Range<u64>>> = (0..self.blocks())
            .map(|block| self.items_in(block, plan.source, Some(depth)))
            .collect();
        let mut tally = (0, 0);
        for (block, items) in frontier_items.iter().enumerate() {
            self.block_started(control, (1, 2), block);
            if items.is_empty() {
                control.observer.work_done(1);
                continue;
            }
            // What earlier blocks found here is marked while the block is in memory
            // (new states, not frontier): the buckets on disk hold about half the
            // level's far neighbours at most, not all of them.
            if self.buckets.holds(block) {
                found += self.apply_block(block, next)?;
            }
            let Some(marked) =
                self.expand_block(block, items, depth, translating, control, &mut tally)?
            else {
                return Ok(None);
            };
            found += marked;
            if !exact_marks && !redoing {
                counted += self.count_block(block, plan.target, next, false);
            }
            self.release(block);
            control.observer.work_done(1);
        }
        if tally.1 >= FAR_SAMPLE {
            self.far_per_expanded = tally;
        }
        for block in 0..self.blocks() {
            if control.stopped() {
                return Ok(None);
            }
            self.block_started(control, (2, 2), block);
            if redoing || self.buckets.holds(block) {
                // Marks of distinct states, counted exactly: they add to pass 1's scan.
                let marked = self.apply_block(block, next)?;
                found += marked;
                if redoing && !exact_marks {
                    counted += self.count_block(block, plan.target, next, true);
                } else {
                    counted += marked;
                }
                self.release(block);
            }
            control.observer.work_done(1);
        }
        self.close_level(plan, (!exact_marks).then_some(counted), redoing);
        Ok(Some(found))
    }

    /// Ends a level to `plan.depth + 1`: keeps the scans' count of byte entries,
    /// if any, and after a redone level takes every chunk of the new level's class
    /// to hold it (the interrupted run may have written anywhere).
    fn close_level(&mut self, plan: &LevelPlan, counted: Option<u64>, redoing: bool) {
        let next = plan.depth + 1;
        self.counted = counted.map(|count| (next, count));
        if redoing {
            for item in self.layout.items.iter().filter(|i| i.class == plan.target) {
                self.chunks.set(item.chunk, next);
            }
        }
    }

    /// Tells the observer that pass `pass` (of `passes`) turns to `block`, with the
    /// bucket bytes the level has moved so far.
    fn block_started(&self, control: &Control<'_>, (pass, passes): (usize, usize), block: usize) {
        let (written, read) = self.buckets.moved();
        let (asked, answered) = self.questions.moved();
        control.observer.block_started(&BlockStep {
            pass,
            passes,
            block,
            blocks: self.blocks(),
            written: written + asked,
            read: read + answered,
        });
    }

    /// The three passes of a bottom-up level (see the module docs); `None` once
    /// stopped.
    fn bottom_up(
        &mut self,
        plan: &LevelPlan,
        control: &Control<'_>,
    ) -> Result<Option<u64>, BucketError> {
        let (depth, next) = (plan.depth, plan.depth + 1);
        let exact_marks = self.store.packed().is_some();
        let redoing = std::mem::take(&mut self.redoing) || self.resumed_exact;
        let mut found = 0;
        // Byte entries: the states of the new level each block holds when the level is
        // done with it (the ask pass's marks, exact, or a scan after the answer pass),
        // to which the apply pass adds its marks.
        let mut asked_found = vec![0; self.blocks()];
        for (block, asked) in asked_found.iter_mut().enumerate() {
            self.block_started(control, (1, 3), block);
            let items = self.items_in(block, plan.target, None);
            if !items.is_empty() {
                let Some(marked) = self.ask_block(block, &items, depth, control)? else {
                    return Ok(None);
                };
                found += marked;
                *asked = marked;
                self.release(block);
            }
            control.observer.work_done(1);
        }
        // On disk while the answers fill the buckets.
        self.questions.spill()?;
        let mut counted = 0;
        for (block, asked) in asked_found.into_iter().enumerate() {
            if control.stopped() {
                return Ok(None);
            }
            self.block_started(control, (2, 3), block);
            let (applying, answering) = (self.buckets.holds(block), self.questions.holds(block));
            if applying {
                found += self.apply_block(block, next)?;
            }
            if answering {
                found += self.answer_block(block, depth)?;
            }
            if applying || answering {
                if !exact_marks && !redoing {
                    counted += self.count_block(block, plan.target, next, false);
                }
                self.release(block);
            } else {
                counted += asked;
            }
            control.observer.work_done(1);
        }
        for block in 0..self.blocks() {
            if control.stopped() {
                return Ok(None);
            }
            self.block_started(control, (3, 3), block);
            if self.buckets.holds(block) {
                // Distinct states, counted exactly.
                let marked = self.apply_block(block, next)?;
                found += marked;
                counted += marked;
                self.release(block);
            }
            control.observer.work_done(1);
        }
        // A redone level's marks miss what the interrupted run marked: scanned then.
        self.close_level(plan, (!exact_marks && !redoing).then_some(counted), redoing);
        Ok(Some(found))
    }

    /// The ask pass over `block`: the unseen states of its `items` ask their
    /// neighbours ([`Near::ask_group`]), a group that fits the memory at a time.
    /// Returns the states marked, or `None` once stopped.
    fn ask_block(
        &mut self,
        block: usize,
        items: &[Range<u64>],
        depth: u32,
        control: &Control<'_>,
    ) -> Result<Option<u64>, BucketError> {
        let store = self.store;
        let mut found = 0;
        let mut at = 0;
        while at < items.len() {
            if control.stopped() {
                return Ok(None);
            }
            let mut unseen: Vec<Vec<u64>> = Vec::new();
            let mut states = 0;
            while at < items.len() && states < self.group_states {
                let batch = &items[at..(at + SCAN_BATCH_MAX).min(items.len())];
                at += batch.len();
                let scanned: Vec<Vec<u64>> = batch
                    .par_iter()
                    .map(|item| {
                        let mut states = Vec::new();
                        // SAFETY: nothing writes the store while the group is scanned
                        // (its questions start after every scan has joined).
                        unsafe {
                            store.collect_exclusive(item.clone(), Wanted::Unseen, &mut states)
                        };
                        states
                    })
                    .collect();
                states += scanned.iter().map(|u| u.len() as u64).sum::<u64>();
                unseen.extend(scanned);
            }
            for (new, questions) in self.near().ask_group(block, &unseen, depth) {
                found += new.count;
                keep_into(&mut self.kept, new.kept);
                for (owner, slots) in questions.iter().enumerate() {
                    self.questions.extend(owner, slots)?;
                }
            }
        }
        Ok(Some(found))
    }

    /// The answer pass over `block`: the states at `depth` among the questions asked
    /// of it are expanded as a top-down level's frontier, a group at a time. Returns
    /// the states marked.
    fn answer_block(&mut self, block: usize, depth: u32) -> Result<u64, BucketError> {
        // Field by field, not `self.near()`: the buckets are borrowed apart.
        let near = Near {
            puzzle: self.puzzle,
            store: self.store,
            chunks: &self.chunks,
            blocks: &self.blocks,
            group_states: self.group_states,
            keep: self.kept.is_some(),
        };
        let (buckets, kept) = (&mut self.buckets, &mut self.kept);
        let (mut frontier, mut found, mut failed) = (Vec::new(), 0, None);
        self.questions.drain(block, |slots| {
            frontier.extend(
                slots
                    .iter()
                    .map(|&slot| near.blocks.index(block, slot))
                    .filter(|&n| near.store.matches(n, Wanted::Depth(depth))),
            );
            if failed.is_none() && frontier.len() as u64 >= near.group_states {
                match near.answer(block, &mut frontier, depth + 1, buckets, kept) {
                    Ok(marked) => found += marked,
                    Err(error) => failed = Some(error),
                }
            }
        })?;
        if let Some(error) = failed {
            return Err(error);
        }
        Ok(found + near.answer(block, &mut frontier, depth + 1, buckets, kept)?)
    }
}

/// What the search of one block in memory uses: the puzzle, the store, the chunks'
/// levels and the blocks (borrowed apart from the buckets, which the search fills).
struct Near<'n, P, S> {
    puzzle: &'n P,
    store: &'n S,
    chunks: &'n ChunkLevels,
    blocks: &'n DiskBlocks,
    group_states: u64,
    /// Whether the new states' indices are kept.
    keep: bool,
}

impl<P: Puzzle, S: DepthStore> Near<'_, P, S> {
    /// States a task of the pool takes at once: a few pieces a thread in a group.
    fn piece(&self) -> usize {
        (self.group_states as usize / (4 * rayon::current_num_threads()))
            .clamp(EXPAND_PIECE_MIN, EXPAND_PIECE)
    }

    /// Expands a group of `block`'s frontier (scanned items, each with whether its
    /// translated neighbours are marked) on the pool, in pieces of equal size (items
    /// hold very different numbers of states): marks the neighbours inside the block
    /// and returns, per piece, the states it marked new and its far neighbours as
    /// slots by block (the buckets then take whole runs).
    fn expand_group(
        &self,
        block: usize,
        frontiers: &[(Vec<u64>, bool)],
        next: u32,
    ) -> Vec<(NewStates, Vec<Vec<u32>>)> {
        let (store, puzzle, chunks, blocks) = (self.store, self.puzzle, self.chunks, self.blocks);
        let piece = self.piece();
        let pieces: Vec<(&[u64], bool)> = frontiers
            .iter()
            .flat_map(|(frontier, translated)| {
                frontier.chunks(piece).map(|piece| (piece, *translated))
            })
            .collect();
        pieces
            .par_iter()
            .map(|&(frontier, translated)| {
                let mut far: Vec<Vec<u32>> = vec![Vec::new(); blocks.count()];
                let mut new = NewStates::new(self.keep);
                // Near neighbours marked at once (the block is in memory), each
                // prefetched a few neighbours ahead; a seen one is only read (its page
                // stays clean, nothing to write back).
                let mut ahead = Ahead::new(|n| {
                    if store.matches(n, Wanted::Unseen) && store.mark_if_unseen(n, next) {
                        new.add(n);
                        chunks.mark(n, next);
                    }
                });
                let visit = |(), _, neighbours: &[u64]| {
                    for &n in neighbours {
                        match blocks.outside(block, n) {
                            None => ahead.push(store, n),
                            Some((owner, slot)) => far[owner].push(slot),
                        }
                    }
                };
                if translated {
                    puzzle.expand_untranslated_fold(frontier, (), visit);
                } else {
                    puzzle.expand_sorted_fold(frontier, (), visit);
                }
                ahead.finish();
                (new, far)
            })
            .collect()
    }

    /// Expands `frontier` (states of `block` at `next - 1`, from the questions of
    /// several runs: sorted here, once each) and empties it: the neighbours inside
    /// the block marked (kept into `kept`), the others to `buckets`. Returns the
    /// states marked.
    fn answer(
        &self,
        block: usize,
        frontier: &mut Vec<u64>,
        next: u32,
        buckets: &mut Buckets,
        kept: &mut Option<Vec<u64>>,
    ) -> Result<u64, BucketError> {
        frontier.par_sort_unstable();
        frontier.dedup();
        let mut found = 0;
        for (new, far) in self.expand_group(block, &[(std::mem::take(frontier), false)], next) {
            found += new.count;
            keep_into(kept, new.kept);
            for (owner, slots) in far.iter().enumerate() {
                buckets.extend(owner, slots)?;
            }
        }
        Ok(found)
    }

    /// Asks for every state of `unseen` (states of `block` not reached yet) whether
    /// a neighbour is at `depth`, on the pool, in pieces: a neighbour inside the block
    /// answers at once (the state is marked at `depth + 1`), one outside is a question
    /// for its block. Returns, per piece, the states it marked and its questions as
    /// slots by block.
    fn ask_group(
        &self,
        block: usize,
        unseen: &[Vec<u64>],
        depth: u32,
    ) -> Vec<(NewStates, Vec<Vec<u32>>)> {
        let (store, puzzle, chunks, blocks) = (self.store, self.puzzle, self.chunks, self.blocks);
        let next = depth + 1;
        let piece = self.piece();
        let pieces: Vec<&[u64]> = unseen.iter().flat_map(|u| u.chunks(piece)).collect();
        pieces
            .par_iter()
            .map(|&states| {
                let questions = RefCell::new(vec![Vec::new(); blocks.count()]);
                let mut new = NewStates::new(self.keep);
                puzzle.expand_until_hit(
                    states,
                    |n| match blocks.outside(block, n) {
                        None => store.matches(n, Wanted::Depth(depth)),
                        Some((owner, slot)) => {
                            questions.borrow_mut()[owner].push(slot);
                            false
                        }
                    },
                    |n| {
                        if blocks.outside(block, n).is_none() {
                            store.prefetch(n);
                        }
                    },
                    |state| {
                        // Its piece alone marks it: counted once.
                        if store.mark_if_unseen(state, next) {
                            new.add(state);
                            chunks.mark(state, next);
                        }
                    },
                );
                (new, questions.into_inner())
            })
            .collect()
    }
}

impl<P: Puzzle, S: DepthStore> Executor for OnDisk<'_, P, S> {
    fn indices(&self) -> Range<u64> {
        0..self.store.len()
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

    /// A question on disk stops at its first hit only inside the state's block: the
    /// others are all asked.
    fn bottom_up_gain(&self) -> u64 {
        1
    }

    /// An unseen state asks each of its far neighbours, and an asked frontier state
    /// is expanded whole to answer: a state costs one expansion (its own, stopped at
    /// its first hit) and one per far neighbour, at most. The far neighbours a state
    /// has are those of the last top-down level, or before it every neighbour outside
    /// the state's block of an even spread.
    fn bottom_up_cost(&self) -> (u64, u64) {
        match self.far_per_expanded {
            (far, expanded) if expanded >= FAR_SAMPLE => (expanded + far, expanded),
            _ => {
                let blocks = self.blocks() as u64;
                let far = self.puzzle.max_neighbours() as u64 * (blocks - 1);
                (blocks + far, blocks)
            }
        }
    }

    fn max_depth(&self) -> u32 {
        self.store.max_depth()
    }

    fn period(&self) -> Option<u32> {
        self.store.period()
    }

    fn seed(&mut self) -> u64 {
        super::layout::seed(self.store, &self.chunks, &self.goals)
    }

    fn resume(&mut self, levels: usize) {
        self.chunks.set_all(levels as u32 - 1);
        self.redoing = true;
        self.resumed_exact = self.store.period().is_none();
        self.buckets.clear();
        self.questions.clear();
    }

    fn frontier_is_exact(&self, _depth: u32) -> bool {
        self.store.period().is_none()
    }

    fn work_units(&self, plan: &LevelPlan) -> u64 {
        let passes = match plan.direction {
            Direction::TopDown => 2,
            Direction::BottomUp => 3,
        };
        passes * self.blocks() as u64
    }

    fn run_level(
        &mut self,
        plan: &LevelPlan,
        capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError> {
        self.counted = None;
        // Only packed entries mark each new state exactly once.
        let keeping = capture == Capture::Kept && self.store.packed().is_some();
        self.kept = keeping.then(Vec::new);
        let outcome = match plan.direction {
            Direction::TopDown => self.top_down(plan, control),
            Direction::BottomUp => self.bottom_up(plan, control),
        };
        let (written, read) = self.buckets.traffic();
        let (asked, answered) = self.questions.traffic();
        let (written, read) = (written + asked, read + answered);
        self.traffic.push(Traffic { written, read });
        control.observer.blocks_moved(self.blocks(), written, read);
        match outcome {
            Ok(Some(found)) => Ok(LevelOutcome {
                found: self.store.packed().is_some().then_some(found),
                captured: self.kept.take().map(|mut kept| {
                    kept.par_sort_unstable();
                    kept
                }),
            }),
            Ok(None) => {
                self.buckets.clear();
                self.questions.clear();
                Ok(LevelOutcome::default())
            }
            Err(error) => {
                // The level is redone whole by the next run.
                self.buckets.clear();
                self.questions.clear();
                Err(error.into())
            }
        }
    }

    fn count_level(&self, plan: &LevelPlan) -> u64 {
        let next = plan.depth + 1;
        match self.counted {
            Some((level, count)) if level == next => count,
            // A level redone after a resume, over packed entries: every block's scan.
            _ => (0..self.blocks())
                .map(|block| {
                    let count = self.count_block(block, plan.target, next, true);
                    self.release(block);
                    count
                })
                .sum(),
        }
    }
}
