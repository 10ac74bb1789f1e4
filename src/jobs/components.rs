//! `antipode analyze --components` as a job: the connected components of a puzzle's
//! whole index space, with one position of each in the puzzle's notation.

use std::time::Instant;

use crate::components::{self, ComponentRow, ComponentsReport};
use crate::puzzle::Puzzle;

/// The components of the whole index space of `puzzle`, largest first, each with its
/// smallest index as a position.
///
/// ```
/// use antipode::jobs;
/// use antipode::puzzles::SlidingPuzzle;
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let found = jobs::components(&board);
/// assert_eq!((found.indices, found.components), (360, 1));
/// assert_eq!(found.sizes[0].size, 360);
/// ```
#[must_use]
pub fn components<P: Puzzle>(puzzle: &P) -> ComponentsReport {
    let started = Instant::now();
    let all = components::components(puzzle);
    let seconds = started.elapsed().as_secs_f64();
    ComponentsReport {
        puzzle: puzzle.name(),
        indices: puzzle.index_count(),
        components: all.len(),
        sizes: all
            .iter()
            .map(|c| ComponentRow {
                size: c.size,
                representative: puzzle.format_line(&puzzle.unrank(c.representative)),
            })
            .collect(),
        seconds,
    }
}
