//! How the index space is cut into units of parallel work, and which colour class
//! each level lives in.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::puzzle::Segment;

/// log2 of the number of indices in one unit of parallel work (131,072 indices).
pub const CHUNK_SHIFT: u32 = 17;

/// "No level has written this chunk yet."
pub(super) const NEVER: u32 = u32::MAX;

/// One unit of parallel work: a run of indices inside one segment and one chunk.
pub(super) struct WorkItem {
    pub range: Range<u64>,
    pub chunk: usize,
    pub class: usize,
    /// The number of its segment ([`crate::Puzzle::segments`]).
    pub segment: usize,
    /// Every state of the range has been reached: bottom-up levels skip it.
    pub exhausted: AtomicBool,
}

/// The work items of a search and the two-colouring of its levels.
///
/// When the state graph is bipartite and the whole goal set has one colour, the states
/// at depth `d` all have colour `goal colour ^ (d & 1)`, so a level scans only its
/// half of the array. Otherwise everything is one class.
pub(super) struct Layout {
    pub items: Vec<WorkItem>,
    /// States per class.
    pub class_size: [u64; 2],
    /// Indices left out of class 0 ([`Layout::leave_out`]).
    pub left_out: u64,
    /// The puzzle's [`crate::Puzzle::bottom_up_gain`].
    pub bottom_up_gain: u64,
    bipartite: bool,
    goal_class: usize,
}

impl Layout {
    /// The layout of `segments`, for a goal set with the (ascending) `goals` indices.
    pub fn new(segments: &[Segment], goals: &[u64]) -> Layout {
        let mut items = Vec::new();
        for (number, segment) in segments.iter().enumerate() {
            let mut start = segment.indices.start;
            while start < segment.indices.end {
                let chunk = start >> CHUNK_SHIFT;
                let end = ((chunk + 1) << CHUNK_SHIFT).min(segment.indices.end);
                items.push(WorkItem {
                    range: start..end,
                    chunk: chunk as usize,
                    class: segment.colour.map_or(0, usize::from),
                    segment: number,
                    exhausted: AtomicBool::new(false),
                });
                start = end;
            }
        }
        items.sort_by_key(|item| item.range.start);
        let mut layout = Layout {
            items,
            class_size: [0; 2],
            left_out: 0,
            bottom_up_gain: 1,
            bipartite: segments.iter().all(|s| s.colour.is_some()),
            goal_class: 0,
        };
        layout.goal_class = goals.first().map_or(0, |&g| layout.class_at(g));
        layout.bipartite &= goals
            .iter()
            .all(|&g| layout.class_at(g) == layout.goal_class);
        if !layout.bipartite {
            layout.goal_class = 0;
            for item in &mut layout.items {
                item.class = 0;
            }
        }
        for item in &layout.items {
            layout.class_size[item.class] += item.range.end - item.range.start;
        }
        layout
    }

    /// Leaves out of the one class of a puzzle without colours the `slots` indices its
    /// ranking never reaches ([`crate::Puzzle::never_reached`]), so that the direction
    /// rule weighs the states a level can still find.
    pub fn leave_out(&mut self, slots: u64) {
        if !self.bipartite {
            self.class_size[0] = self.class_size[0].saturating_sub(slots);
            self.left_out = slots;
        }
    }

    /// Whether levels alternate between two classes.
    pub fn bipartite(&self) -> bool {
        self.bipartite
    }

    /// The class of the states at depth `depth`.
    pub fn class_of(&self, depth: u32) -> usize {
        if self.bipartite {
            self.goal_class ^ (depth as usize & 1)
        } else {
            0
        }
    }

    /// The class of the item holding `index`.
    pub fn class_at(&self, index: u64) -> usize {
        let at = self.items.partition_point(|item| item.range.end <= index);
        self.items.get(at).map_or(0, |item| item.class)
    }
}

/// Puts `goals` at depth 0 in `store` (which holds every index) and records level 0
/// in their chunks; returns how many.
pub(super) fn seed<S: crate::store::DepthStore>(
    store: &S,
    chunks: &ChunkLevels,
    goals: &[u64],
) -> u64 {
    for &goal in goals {
        store.set(goal, 0);
        chunks.set((goal >> CHUNK_SHIFT) as usize, 0);
    }
    goals.len() as u64
}

/// Per chunk of `2^CHUNK_SHIFT` indices, the last level that wrote into it, so that
/// sparse levels visit only the chunks that hold their frontier.
pub(super) struct ChunkLevels(Vec<AtomicU32>);

impl ChunkLevels {
    /// Every chunk of `indices` indices, none written yet.
    pub fn new(indices: u64) -> ChunkLevels {
        let count = ((indices >> CHUNK_SHIFT) + 1) as usize;
        ChunkLevels((0..count).map(|_| AtomicU32::new(NEVER)).collect())
    }

    /// The last level written into `chunk`.
    #[inline(always)]
    pub fn get(&self, chunk: usize) -> u32 {
        self.0[chunk].load(Ordering::Relaxed)
    }

    /// Records that level `depth` wrote into `chunk`.
    #[inline(always)]
    pub fn set(&self, chunk: usize, depth: u32) {
        self.0[chunk].store(depth, Ordering::Relaxed);
    }

    /// Records that level `depth` wrote entry `index` (one load, a store only on change).
    #[inline(always)]
    pub fn mark(&self, index: u64, depth: u32) {
        let slot = &self.0[(index >> CHUNK_SHIFT) as usize];
        if slot.load(Ordering::Relaxed) != depth {
            slot.store(depth, Ordering::Relaxed);
        }
    }

    /// Every chunk may hold level `depth` (after a resume, where it is not known).
    pub fn set_all(&self, depth: u32) {
        for slot in &self.0 {
            slot.store(depth, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments() -> Vec<Segment> {
        vec![
            Segment {
                indices: 0..300_000,
                colour: Some(0),
            },
            Segment {
                indices: 300_000..400_000,
                colour: Some(1),
            },
        ]
    }

    #[test]
    fn items_cover_the_segments_within_chunks() {
        let layout = Layout::new(&segments(), &[5]);
        let total: u64 = layout
            .items
            .iter()
            .map(|i| i.range.end - i.range.start)
            .sum();
        assert_eq!(total, 400_000);
        assert!(
            layout
                .items
                .iter()
                .all(|i| i.range.start >> CHUNK_SHIFT == i.chunk as u64)
        );
        assert!(layout.bipartite());
        assert_eq!(layout.class_size, [300_000, 100_000]);
        assert_eq!((layout.class_of(0), layout.class_of(1)), (0, 1));
        assert_eq!(layout.class_at(350_000), 1);
    }

    #[test]
    fn goals_of_both_colours_make_one_class() {
        let layout = Layout::new(&segments(), &[5, 350_000]);
        assert!(!layout.bipartite());
        assert_eq!(layout.class_size, [400_000, 0]);
        assert_eq!((layout.class_of(0), layout.class_of(1)), (0, 0));
    }
}
