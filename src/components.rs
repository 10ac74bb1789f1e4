//! The connected components of a puzzle's whole index space: how many there are,
//! their sizes (largest first) and one position of each.
//!
//! Breadth-first searches one after the other, each from the smallest index not yet
//! reached and run by the level-loop driver ([`crate::driver`]), over one bit per
//! index that all of them share; each level expands its (ascending) frontier with
//! [`Puzzle::expand_sorted`].

use bitvec::prelude::BitVec;

use crate::driver::{self, Control, Next, Start};
use crate::puzzle::Puzzle;

/// One component as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ComponentRow {
    /// States in the component.
    pub size: u64,
    /// Its smallest index, as a position.
    pub representative: String,
}

/// What [`crate::jobs::components`] found, rendered by [`crate::report::render_components`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct ComponentsReport {
    /// The puzzle's name.
    pub puzzle: String,
    /// Its index space.
    pub indices: u64,
    /// How many components it falls into.
    pub components: usize,
    /// Every component, largest first.
    pub sizes: Vec<ComponentRow>,
    /// Wall time.
    pub seconds: f64,
}

/// One component: its size and its smallest index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Component {
    /// States in the component.
    pub size: u64,
    /// The component's smallest index.
    pub representative: u64,
}

/// One component's breadth-first search from its smallest index, as a build of the
/// level-loop driver, over the bit set that every component's search shares.
struct ComponentLevels<'a, P> {
    puzzle: &'a P,
    seen: &'a mut BitVec<u64>,
    /// The last level found, ascending.
    frontier: Vec<u64>,
}

impl<P: Puzzle> driver::Levels for ComponentLevels<'_, P> {
    type Error = driver::Interrupted;

    fn start(&mut self, _: &Control<'_>) -> Result<Start, driver::Interrupted> {
        Ok(Start::fresh(self.frontier.len() as u64))
    }

    fn next_level(&mut self, _: &Control<'_>) -> Result<Next, driver::Interrupted> {
        let mut next = Vec::new();
        let seen = &mut *self.seen;
        self.puzzle.expand_sorted(&self.frontier, |_, neighbours| {
            for &m in neighbours {
                if !seen[m as usize] {
                    seen.set(m as usize, true);
                    next.push(m);
                }
            }
        });
        next.sort_unstable();
        self.frontier = next;
        Ok(match self.frontier.len() as u64 {
            0 => Next::Done,
            found => Next::found(found),
        })
    }
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
        let mut search = ComponentLevels {
            puzzle,
            seen: &mut seen,
            frontier: vec![root as u64],
        };
        // Without a stop token the run cannot be interrupted.
        let levels = driver::run(&mut search, &Control::default()).unwrap_or_default();
        found.push(Component {
            size: levels.iter().sum(),
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
