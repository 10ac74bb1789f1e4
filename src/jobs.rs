//! Every command of the `antipode` binary as a library call: the layer the command line
//! (and any other program) drives. Each job takes what the command's arguments say,
//! runs on its own pool of worker threads, and returns what the command prints,
//! never printing itself.
//!
//! | command | job |
//! |---|---|
//! | `analyze` | [`Analyze`]; peg solitaire: [`AnalyzePeg`]; `--components`: [`components`]; `--count`: [`census()`] |
//! | `solve` | [`Solve`] (one position or a batch: [`read_positions`]) and [`SolvePdb`]; twisty puzzles with databases: [`Projections`] and [`crate::solvers::kpuzzle::KSearch`]; peg solitaire: [`crate::solvers::peg::solutions`] |
//! | `pdb` | [`Databases`]; twisty puzzles: [`Projections`] |
//! | `verify` | [`verify_file`] |
//! | `lookup` | [`lookup()`]; peg solitaire: [`PegLookup`] |
//! | `info` | [`crate::table::read_header_of`] |
//! | `plot` | `plot::Histogram::read`, `plot::histogram_svg` (feature `plot`) |
//! | `list` | [`crate::puzzles::catalog`] |
//!
//! Jobs sit above every other module and nothing but the command line imports them.

mod analyze;
mod census;
mod components;
mod databases;
mod identity;
mod lookup;
mod peg;
mod projections;
mod solve;
mod verify;

pub use crate::components::{ComponentRow, ComponentsReport};
pub use analyze::{Analyze, AnalyzeJobError, TABLES_DIR, TableWritten, default_table_path};
pub use census::{Census, census};
pub use components::components;
pub use databases::{Databases, DatabasesError};
pub use identity::puzzle_from_identity;
pub use lookup::{Lookup, lookup};
pub use peg::{AnalyzePeg, PegAnalyzed, PegJobError, PegLookup};
pub use projections::{Projections, ProjectionsError};
pub use solve::{
    Limits, MAX_LENGTH, MAX_LENGTH_BIG_BOARDS, Method, PositionsError, Solution, Solve, SolveError,
    SolvePdb, SolveTwisty, read_positions,
};
pub use verify::{VerifyError, VerifyOptions, verify_file, verify_file_observed};
