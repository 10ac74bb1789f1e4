//! Pattern databases: exact distances in an abstraction of a sliding board, built by
//! a breadth-first search over the placements of a few tiles, stored as table files,
//! and summed over a partition of the tiles into a lower bound for IDA*.
//!
//! - [`pattern`]: a pattern's tiles, their placements' ranking and the board's masks;
//! - [`build`]: the search that fills a database (additive: only pattern moves count);
//! - [`file`]: databases as table files, and [`Pdb`], one opened for lookups;
//! - [`partition`]: the tiles split into patterns, and [`Partition::estimate`], the
//!   bound IDA* uses (`crate::puzzles::sliding::pdb_search`).

pub mod build;
pub mod file;
pub mod partition;
pub mod pattern;

pub use build::{BuildProgress, Entries, Quiet};
pub use file::Pdb;
pub use partition::{Partition, PartitionEvent};
pub use pattern::Pattern;

/// Why a pattern database cannot be built, read or used.
#[derive(Debug, thiserror::Error)]
pub enum PdbError {
    /// The board is too small or too large.
    #[error("pattern databases need a board of 2x2 to 32 cells, not {rows}x{cols}")]
    Board {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// The goal has no blank.
    #[error("the goal has no blank")]
    Goal,
    /// The pattern's tiles are not a pattern of this board.
    #[error("bad pattern: {0}")]
    Tiles(String),
    /// Reading or writing a file failed.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The system's reason.
        cause: std::io::Error,
    },
    /// The file is not a readable table.
    #[error(transparent)]
    Table(#[from] crate::table::TableError),
    /// The file is a table, but not this database.
    #[error("{0}")]
    Other(String),
}
