//! The executor of a search whose table is larger than the memory it may use: the
//! index space cut into blocks ([`Slices`], one per block) that are in memory one at
//! a time, and the neighbours found for other blocks kept in [`Buckets`] until their
//! block is.
//!
//! A level is two passes over the blocks, in index order:
//!
//! 1. **expand**: every block that holds frontier states is brought in; the bucket
//!    earlier blocks filled for it is marked, then its frontier (in groups of work
//!    items, scanned while nothing writes, then expanded on the pool) marks the
//!    neighbours inside the block at once and appends every other to the bucket of
//!    its block;
//! 2. **apply**: every block with a waiting bucket, or new states marked by pass 1, is
//!    brought in, its bucket marked, and (byte entries) its new level counted by a
//!    scan; packed entries count their marks, each mark one atomic read-modify-write.
//!
//! After a block the store is told it may drop the block's pages ([`Residency`]): the
//! depths stay in the table file, and the process holds about one block and the
//! buckets' share of its memory. Levels run top-down only: a bottom-up level would ask
//! about neighbours in blocks that are not in memory.
//!
//! The table file holds every level as it is found, so a level is complete only after
//! its apply pass, and the file may hold states of levels past its last checkpoint.
//! A resumed run redoes the levels after the checkpoint's ([`Executor::resume`]), and
//! its buckets are rebuilt by the redo: the first level redone is counted by scans
//! (it may hold states the interrupted run marked anywhere); over exact depths every
//! later level too, each scanning every block, since the file may hold any number of
//! levels past the checkpoint (over depths mod 3 the build saves every level, so that
//! at most one is part-written: its codes would otherwise pass for older levels').

use std::ops::Range;

use rayon::prelude::*;

use super::buckets::{BucketError, Buckets};
use super::layout::{ChunkLevels, Layout};
use super::slices::Slices;
use super::{Capture, Direction, EngineError, Executor, LevelOutcome, LevelPlan};
use crate::driver::Control;
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
    blocks: Slices,
    /// Every block's first index ([`Slices::start`] divides).
    starts: Vec<u64>,
    buckets: Buckets,
    /// The next level is the one an interrupted run left partly written.
    redoing: bool,
    /// The run was resumed over exact depths, whose file may hold states of any level
    /// past its checkpoint: every level scans every block and counts by the scans.
    resumed_exact: bool,
    /// The count of the level just computed, by the apply pass's scans (byte entries).
    counted: Option<(u32, u64)>,
    traffic: Vec<Traffic>,
    /// Indices a group of work items spans at most, beyond its first item: their
    /// frontier and its far neighbours are the memory a block needs beside its entries.
    group_indices: u64,
}

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
        let per_block = block_entries.clamp(1, 1 << 32);
        let blocks = Slices::new(count, count.div_ceil(per_block).max(1) as usize);
        let starts = (0..=blocks.ranks()).map(|b| blocks.start(b)).collect();
        Ok(OnDisk {
            buckets: Buckets::new(folder, blocks.ranks(), bucket_memory)?,
            puzzle,
            store,
            residency,
            layout,
            chunks: ChunkLevels::new(count),
            goals,
            blocks,
            starts,
            redoing: false,
            resumed_exact: false,
            counted: None,
            traffic: Vec::new(),
            group_indices: bucket_memory / (8 + 4 * puzzle.max_neighbours() as u64).max(1),
        })
    }

    /// The number of blocks.
    #[must_use]
    pub fn blocks(&self) -> usize {
        self.blocks.ranks()
    }

    /// The bucket bytes each level moved (levels 1, 2, ...).
    #[must_use]
    pub fn traffic(&self) -> &[Traffic] {
        &self.traffic
    }

    /// Removes the buckets' folder.
    pub fn finish(self) {
        self.buckets.remove();
    }

    fn block_range(&self, block: usize) -> Range<u64> {
        self.starts[block]..self.starts[block + 1]
    }

    /// The work items of class `class` inside `block`, cut to it, that a level from
    /// `depth` may find frontier in (all of them with `None`).
    fn items_in(&self, block: usize, class: usize, depth: Option<u32>) -> Vec<Range<u64>> {
        let range = self.block_range(block);
        // The items are in index order: from the first that ends inside the block.
        let first = self
            .layout
            .items
            .partition_point(|i| i.range.end <= range.start);
        self.layout.items[first..]
            .iter()
            .take_while(|i| i.range.start < range.end)
            .filter(|i| i.class == class)
            .filter(|i| depth.is_none_or(|d| self.chunks.get(i.chunk) == d))
            .map(|i| i.range.start.max(range.start)..i.range.end.min(range.end))
            .collect()
    }

    /// Pass 1 over `block`: expands its frontier at `depth`, marks the neighbours
    /// inside and buckets the others. Returns the states it marked new (a lower bound
    /// on byte entries, exact on packed ones) or `None` once stopped.
    fn expand_block(
        &mut self,
        block: usize,
        items: &[Range<u64>],
        depth: u32,
        control: &Control<'_>,
    ) -> Result<Option<u64>, BucketError> {
        let next = depth + 1;
        let range = self.block_range(block);
        let (store, puzzle, chunks) = (self.store, self.puzzle, &self.chunks);
        let mut found = 0;
        let mut at = 0;
        while at < items.len() {
            if control.stopped() {
                return Ok(None);
            }
            let mut end = at;
            let mut indices = 0;
            while end < items.len() && (end == at || indices < self.group_indices) {
                indices += items[end].end - items[end].start;
                end += 1;
            }
            let group = &items[at..end];
            at = end;
            let frontiers: Vec<Vec<u64>> = group
                .par_iter()
                .map(|item| {
                    let mut frontier = Vec::new();
                    // SAFETY: nothing writes the store while the group is scanned (the
                    // expansions start after every scan has joined).
                    unsafe {
                        store.collect_exclusive(item.clone(), Wanted::Depth(depth), &mut frontier)
                    };
                    frontier
                })
                .collect();
            let (blocks, starts) = (&self.blocks, &self.starts);
            // Each item's far neighbours sorted by block as offsets, on the pool: the
            // buckets then take whole runs.
            let expanded: Vec<(u64, Vec<Vec<u32>>)> = frontiers
                .par_iter()
                .map(|frontier| {
                    let mut far: Vec<Vec<u32>> = vec![Vec::new(); starts.len() - 1];
                    let mut marked = 0u64;
                    puzzle.expand_sorted(frontier, |_, neighbours| {
                        for &n in neighbours {
                            if range.contains(&n) {
                                if store.mark_if_unseen(n, next) {
                                    marked += 1;
                                    chunks.mark(n, next);
                                }
                            } else {
                                let owner = blocks.owner(n);
                                far[owner].push((n - starts[owner]) as u32);
                            }
                        }
                    });
                    (marked, far)
                })
                .collect();
            for (marked, far) in expanded {
                found += marked;
                for (owner, offsets) in far.iter().enumerate() {
                    self.buckets.extend(owner, offsets)?;
                }
            }
        }
        Ok(Some(found))
    }

    /// Pass 2 over `block`: marks its bucket. Returns the states it marked new.
    fn apply_block(&mut self, block: usize, next: u32) -> Result<u64, BucketError> {
        let start = self.starts[block];
        let (store, chunks) = (self.store, &self.chunks);
        let mut found = 0;
        self.buckets.drain(block, |offsets| {
            found += offsets
                .par_chunks(1 << 16)
                .map(|piece| {
                    let mut marked = 0u64;
                    for &offset in piece {
                        let n = start + u64::from(offset);
                        if store.mark_if_unseen(n, next) {
                            marked += 1;
                            chunks.mark(n, next);
                        }
                    }
                    marked
                })
                .sum::<u64>();
        })?;
        Ok(found)
    }

    /// The entries of `block` in class `class` holding `next`'s code.
    fn count_block(&self, block: usize, class: usize, next: u32) -> u64 {
        self.items_in(block, class, None)
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
        let redoing = std::mem::take(&mut self.redoing) || self.resumed_exact;
        let mut touched = vec![redoing; self.blocks()];
        let mut found = 0;
        // Chosen before any mark: a work item may span blocks, and the marks of one
        // block change its chunk's last level.
        let frontier_items: Vec<Vec<Range<u64>>> = (0..self.blocks())
            .map(|block| self.items_in(block, plan.source, Some(depth)))
            .collect();
        for (block, items) in frontier_items.iter().enumerate() {
            if items.is_empty() {
                control.observer.work_done(1);
                continue;
            }
            // What earlier blocks found here is marked while the block is in memory
            // (new states, not frontier): the buckets on disk hold about half the
            // level's far neighbours at most, not all of them.
            if self.buckets.holds(block) {
                found += self.apply_block(block, next)?;
                touched[block] = true;
            }
            let Some(marked) = self.expand_block(block, items, depth, control)? else {
                return Ok(None);
            };
            touched[block] |= marked > 0;
            found += marked;
            self.residency.release(self.block_range(block));
            control.observer.work_done(1);
        }
        let mut counted = 0;
        for (block, &touched) in touched.iter().enumerate() {
            if control.stopped() {
                return Ok(None);
            }
            if touched || self.buckets.holds(block) {
                found += self.apply_block(block, next)?;
                if !exact_marks {
                    counted += self.count_block(block, plan.target, next);
                }
                self.residency.release(self.block_range(block));
            }
            control.observer.work_done(1);
        }
        if !exact_marks {
            self.counted = Some((next, counted));
        }
        if redoing {
            // States of the new level may lie in chunks this run did not write to.
            for item in self.layout.items.iter().filter(|i| i.class == plan.target) {
                self.chunks.set(item.chunk, next);
            }
        }
        Ok(Some(found))
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

    fn never_reached(&self) -> u64 {
        self.layout.left_out
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
    }

    fn top_down_only(&self) -> bool {
        true
    }

    fn frontier_is_exact(&self, _depth: u32) -> bool {
        self.store.period().is_none()
    }

    fn work_units(&self, _plan: &LevelPlan) -> u64 {
        2 * self.blocks() as u64
    }

    fn run_level(
        &mut self,
        plan: &LevelPlan,
        _capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError> {
        debug_assert_eq!(plan.direction, Direction::TopDown);
        self.counted = None;
        let outcome = self.top_down(plan, control);
        let (written, read) = self.buckets.traffic();
        self.traffic.push(Traffic { written, read });
        control.observer.blocks_moved(self.blocks(), written, read);
        match outcome {
            Ok(Some(found)) => Ok(LevelOutcome {
                found: self.store.packed().is_some().then_some(found),
                captured: None,
            }),
            Ok(None) => {
                self.buckets.clear();
                Ok(LevelOutcome::default())
            }
            Err(error) => {
                // The level is redone whole by the next run.
                self.buckets.clear();
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
                    let count = self.count_block(block, plan.target, next);
                    self.residency.release(self.block_range(block));
                    count
                })
                .sum(),
        }
    }
}
