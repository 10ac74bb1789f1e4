//! antipode: exhaustive state-space analysis of puzzles.
//!
//! Every reachable state of a puzzle gets an index from a minimal perfect hash
//! ([`rank`], [`puzzles`]); a level-by-level breadth-first search from the goal
//! ([`engine`]) fills a depth array ([`store`]); out come God's number, the antipodes
//! and the depth histogram ([`analysis`], [`report`]).
//!
//! ```
//! use antipode::{analysis, engine::Silent, puzzles::SlidingPuzzle};
//!
//! let eight = SlidingPuzzle::new(3, 3).unwrap();
//! let result = analysis::analyze(&eight, 0, &Silent).unwrap();
//! assert_eq!(result.gods_number, 31);
//! assert_eq!(result.antipodes, ["647/850/321", "867/254/301"]);
//! ```

pub mod analysis;
pub mod components;
mod cpu;
pub mod descent;
pub mod engine;
mod grid;
pub mod jobs;
pub mod pdb;
pub mod plot;
pub mod pool;
pub mod puzzle;
pub mod puzzles;
pub mod rank;
pub mod report;
pub mod solve;
mod stop;
pub mod store;
pub mod sys;
pub mod table;
pub mod units;

pub use jobs::Analyze;
pub use puzzle::{PositionError, Puzzle, Segment, Successor};
pub use stop::StopToken;
