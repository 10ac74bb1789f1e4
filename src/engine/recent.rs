//! The recent-marks protocol of a search over depths mod 3, in one owner that both
//! executors hold ([`RecentMarks`]).
//!
//! A store of depths mod 3 ([`PackedMarks`]) cannot tell a level from older ones of its
//! code, so a frontier scan would find them all; its *recent marks*, one bit per group
//! of four entries, tell it which groups the newest level wrote. The protocol:
//!
//! - **Generations.** In a bipartite layout a level writes only the other colour
//!   class, so one generation of marks serves every level (each class's bits are its
//!   own newest level's); otherwise levels alternate between two generations by
//!   parity, and a level marks the generation its frontier does not use.
//! - **Before a level** ([`RecentMarks::prepare`]): either the generation it writes is
//!   cleared where the previous level of its slot wrote, and every write marks
//!   ([`WriteMarks::Every`]); or, for a dense level, one pass sets the marks ahead of
//!   it ([`PackedMarks::mark_recent_ahead`]) and its writes mark only groups that held
//!   its code already, or nothing ([`RecentMarks::ahead`] chooses).
//! - **During a level** the marks of the frontier's generation are read, never
//!   cleared: a mark cleared before its level ends loses frontier states.
//! - **After a level** ([`RecentMarks::written`]): the slot it wrote holds exactly its
//!   states, unless the level redid an interrupted run's (whose marks are gone).

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::store::{DepthStore, PackedMarks, WriteMarks};

/// A dense level marks ahead the groups that hold both an unseen entry and older
/// entries of its code (*shared* groups) too, so that no write marks, if it writes
/// at least [`SHARED_MARKS_FROM`] entries and the shared groups are at most
/// 1/SHARED_LIMIT of its frontier. The older entries of a shared group the level does
/// not write to cost an expansion each at the next level; every write spares a
/// scattered access to the marks (`scripts/EXPERIMENTS.md`, "The 2-bit path: recent marks set ahead, a scan 64 entries at a time" and "The 2-bit path: uncounted marks and translations").
const SHARED_LIMIT: u64 = 2;
/// The entries a dense level must write to mark shared groups ahead: 2^25, whose
/// marks (one bit per four) fill a core's second-level cache (1 MiB). Below it the
/// scattered marks mostly hit the cache and cost little against the expansions that
/// shared groups add, so small spaces keep the frontier that a mark per write gives
/// (`scripts/EXPERIMENTS.md`, "The 2-bit path: recent marks set ahead, a scan 64 entries at a time" and "The 2-bit path: uncounted marks and translations").
const SHARED_MARKS_FROM: u64 = 1 << 25;

/// Whether a level ran over everything its slot's marks should hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// This run wrote the whole level: its marks cover exactly its states.
    Whole,
    /// The level redid one an interrupted run left partly written: that run's marks
    /// are gone, so the slot holds only part of the level.
    Redone,
}

/// The recent marks of one store and one layout: which generation each level writes,
/// which slots hold a level exactly, and the marks readied before each level.
pub(super) struct RecentMarks<'a, M: PackedMarks> {
    marks: &'a M,
    bipartite: bool,
    /// Per slot ([`RecentMarks::slot`]): its marks cover exactly the groups its newest
    /// level wrote.
    exact: [bool; 2],
    /// [`SHARED_MARKS_FROM`] (tests lower it).
    pub shared_marks_from: u64,
    /// The levels that marked shared groups ahead.
    pub shared_levels: AtomicU32,
}

/// How a dense level's marks are set ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ahead {
    /// The groups with an unseen entry and none of the level's code; its writes mark
    /// the groups that held the code.
    WhereCodeWas,
    /// Every group with an unseen entry; no write marks.
    Shared,
}

impl<'a, M: PackedMarks> RecentMarks<'a, M> {
    /// The recent marks of `store` for a layout with colour classes (`bipartite`) or
    /// without, if the store keeps them (depths mod 3, with memory for the marks).
    /// No slot holds a level exactly until [`RecentMarks::seeded`] or a level is
    /// written.
    pub fn of<S: DepthStore<Packed = M>>(store: &'a S, bipartite: bool) -> Option<Self> {
        let generations = if bipartite { 1 } else { 2 };
        let marks = store.packed().filter(|m| m.track_recent(generations))?;
        Some(RecentMarks {
            marks,
            bipartite,
            exact: [false; 2],
            shared_marks_from: SHARED_MARKS_FROM,
            shared_levels: AtomicU32::new(0),
        })
    }

    /// The store's marks.
    pub fn store(&self) -> &'a M {
        self.marks
    }

    /// Where level `level`'s marks are kept track of: its colour class in a bipartite
    /// layout (classes alternate by level), else its parity.
    fn slot(&self, level: u32) -> usize {
        (level % 2) as usize
    }

    /// The generation of marks level `level` writes.
    pub fn generation(&self, level: u32) -> usize {
        if self.bipartite {
            0
        } else {
            (level % 2) as usize
        }
    }

    /// Whether a scan of `store` for level `depth`'s code finds exactly that level:
    /// always with exact depths; with depths mod 3 where the recent marks (`recent`)
    /// hold it.
    pub fn frontier_is_exact<S: DepthStore<Packed = M>>(
        store: &S,
        recent: Option<&Self>,
        depth: u32,
    ) -> bool {
        store.period().is_none() || recent.is_some_and(|r| r.holding(depth).is_some())
    }

    /// The generation holding exactly level `depth`'s states, if one does.
    pub fn holding(&self, depth: u32) -> Option<usize> {
        self.exact[self.slot(depth)].then(|| self.generation(depth))
    }

    /// A fresh store took its goals: every slot is exact (the goals' marks are the
    /// only ones, and the other class holds nothing yet).
    pub fn seeded(&mut self) {
        self.exact = [true; 2];
    }

    /// A resumed search: no slot is exact until this run writes a level.
    pub fn resumed(&mut self) {
        self.exact = [false; 2];
    }

    /// Level `level` was written, whole or redone.
    pub fn written(&mut self, level: u32, written: Written) {
        let slot = self.slot(level);
        self.exact[slot] = written == Written::Whole;
    }

    /// Readies the marks level `level` writes: clears them over `stale` (where the
    /// previous level of its slot wrote) and makes every write mark.
    ///
    /// # Safety
    /// No thread may use the store meanwhile (between levels).
    pub unsafe fn prepare(&self, level: u32, stale: &[Range<u64>]) -> WriteMarks {
        let generation = self.generation(level);
        stale
            .par_iter()
            // SAFETY: forwarded from this function's contract; ranges do not overlap.
            .for_each(|range| unsafe { self.marks.forget_recent(range.clone(), generation) });
        self.marks.write_recent_to(generation, WriteMarks::Every);
        WriteMarks::Every
    }

    /// Readies the marks of a dense level `level` (a frontier of `frontier` states)
    /// ahead, over `written`, everything it may write: the shared groups too where
    /// that pays ([`SHARED_LIMIT`], [`SHARED_MARKS_FROM`]; one pass, two if it turns
    /// out not to), and returns how its writes mark.
    ///
    /// # Safety
    /// No thread may use the store meanwhile (between levels).
    pub unsafe fn ahead(&self, level: u32, frontier: u64, written: &[Range<u64>]) -> WriteMarks {
        let entries: u64 = written.iter().map(|r| r.end - r.start).sum();
        let shared_pays = entries >= self.shared_marks_from && {
            // SAFETY: forwarded from this function's contract.
            let shared = unsafe { self.mark_ahead(level, written, Ahead::Shared) };
            shared * SHARED_LIMIT <= frontier
        };
        let marks = if shared_pays {
            self.shared_levels.fetch_add(1, Ordering::Relaxed);
            WriteMarks::None
        } else {
            // SAFETY: as above.
            unsafe { self.mark_ahead(level, written, Ahead::WhereCodeWas) };
            WriteMarks::WhereCodeWas(level)
        };
        self.marks.write_recent_to(self.generation(level), marks);
        marks
    }

    /// Sets the marks of `level` over `ranges` ahead; returns the shared groups.
    ///
    /// # Safety
    /// As [`RecentMarks::ahead`].
    unsafe fn mark_ahead(&self, level: u32, ranges: &[Range<u64>], ahead: Ahead) -> u64 {
        let generation = self.generation(level);
        let shared = ahead == Ahead::Shared;
        ranges
            .par_iter()
            // SAFETY: forwarded from this function's contract; ranges do not overlap.
            .map(|r| unsafe {
                self.marks
                    .mark_recent_ahead(r.clone(), generation, level, shared)
            })
            .sum()
    }
}
