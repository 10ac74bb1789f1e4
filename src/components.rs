//! The connected components of a puzzle's whole index space: how many there are,
//! their sizes (largest first) and one position of each.
//!
//! Breadth-first searches one after the other, each from the smallest index not yet
//! reached, over a bit per index; each level expands its (ascending) frontier with
//! [`Puzzle::expand_sorted`].

use bitvec::prelude::BitVec;

use crate::puzzle::Puzzle;

/// One component: its size and its smallest index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Component {
    /// States in the component.
    pub size: u64,
    /// The component's smallest index.
    pub representative: u64,
}

/// Every component, largest first (equal sizes by representative).
///
/// ```
/// use antipode::{components, puzzles::SlidingPuzzle};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let all = components::components(&board);
/// assert_eq!(all.len(), 1);
/// assert_eq!(all[0].size, 360);
/// ```
pub fn components<P: Puzzle>(puzzle: &P) -> Vec<Component> {
    let n = puzzle.index_count();
    let mut seen: BitVec<u64> = BitVec::repeat(false, n as usize);
    let mut found = Vec::new();
    let mut next_unseen = 0usize;
    while let Some(root) = seen[next_unseen..].first_zero().map(|k| k + next_unseen) {
        next_unseen = root + 1;
        seen.set(root, true);
        let mut size = 1u64;
        let mut frontier = vec![root as u64];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            puzzle.expand_sorted(&frontier, |_, neighbours| {
                for &m in neighbours {
                    if !seen[m as usize] {
                        seen.set(m as usize, true);
                        next.push(m);
                    }
                }
            });
            size += next.len() as u64;
            next.sort_unstable();
            frontier = next;
        }
        found.push(Component {
            size,
            representative: root as u64,
        });
    }
    found.sort_by(|a, b| {
        b.size
            .cmp(&a.size)
            .then(a.representative.cmp(&b.representative))
    });
    found
}
