//! Pattern databases: exact distances in an abstraction of a sliding board, built by
//! a breadth-first search over the placements of a few tiles, stored as table files,
//! and summed over a partition of the tiles into a lower bound for IDA*.
//!
//! - [`pattern`]: a pattern's tiles, their placements' ranking and the board's masks;
//! - [`build`]: the search that fills a database (additive: only pattern moves count);
//! - `children`: the build's hot path, a search state's children;
//! - [`checkpoint`]: a build's progress on disk, to resume an interrupted build;
//! - [`file`](mod@file): databases as table files, and [`Pdb`], one opened for lookups;
//! - [`partition`]: the tiles split into patterns, and [`Partition::estimate`], the
//!   bound IDA* uses (`crate::solvers::sliding::pdb_search`);
//! - [`verify`]: an independent check of a database's entries.

pub mod build;
pub mod checkpoint;
mod children;
pub mod file;
pub mod partition;
pub mod pattern;
pub mod verify;

pub use build::{BuildControl, BuildError, Entries};
pub use file::Pdb;
pub use partition::{BuildSettings, Partition, PartitionEvent};
pub use pattern::Pattern;

pub use crate::table::header::tile_list;

/// The board a partition's databases are built for: its size, its goal and how its
/// positions are named in file headers. [`crate::puzzles::sliding::BoardShape`] is one.
pub trait Board: Sync {
    /// The board's command-line name (`15puzzle`, `sliding:3x5`).
    fn name(&self) -> String;
    /// Rows.
    fn rows(&self) -> usize;
    /// Columns.
    fn cols(&self) -> usize;
    /// The goal: row-major tile numbers, 0 for the blank.
    fn goal(&self) -> &[u8];
    /// A position's one-line form.
    fn format_line(&self, cells: &[u8]) -> String;
}

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
    /// Building the database needs more memory or disk than there is.
    #[error(
        "the database of tiles {tiles} has {} placements: building it needs {} of {what}, \
         only {} are free",
        crate::units::thousands(*placements),
        crate::units::human_bytes(*needed as f64),
        crate::units::human_bytes(*available as f64)
    )]
    TooLarge {
        /// The pattern's tiles, comma-separated.
        tiles: String,
        /// Its placements.
        placements: u64,
        /// `memory` or `disk`.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes free.
        available: u64,
    },
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
    /// The build failed or was stopped.
    #[error("building {}: {cause}", path.display())]
    Build {
        /// The database being built.
        path: std::path::PathBuf,
        /// What happened.
        cause: build::BuildError,
    },
}
