//! `antipode lookup` as a library call: the exact distances of many positions from a
//! table, in parallel.

use rayon::prelude::*;

use crate::Puzzle;
use crate::table::{Table, TableError};

/// One position's answer: its one-line form and distance, or why it has none.
pub type Lookup = Result<(String, u32), String>;

/// The distance of each position in `lines` (text in the puzzle's notation) from the
/// table of `puzzle`; a line that is no position of the puzzle, or is not reached in
/// the table, gets the reason. Fails only if the table is another puzzle's.
///
/// # Errors
/// [`TableError`] if the table cannot be opened or is another puzzle's.
///
/// ```
/// use antipode::{Analyze, jobs, puzzles::SlidingPuzzle, table::Table};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("8puzzle.table");
/// Analyze::new(&eight).table(&path).run().unwrap();
/// let table = Table::open(&path).unwrap();
/// let answers = jobs::lookup(&eight, &table, &["867254301", "12345678"]).unwrap();
/// assert_eq!(answers[0], Ok(("867/254/301".to_string(), 31)));
/// assert!(answers[1].is_err());
/// ```
pub fn lookup<P: Puzzle>(
    puzzle: &P,
    table: &Table,
    lines: &[&str],
) -> Result<Vec<Lookup>, TableError> {
    const BATCH: usize = 1 << 14;
    let table = table.for_puzzle(puzzle)?;
    Ok(lines
        .par_chunks(BATCH)
        .flat_map_iter(|chunk| {
            chunk.iter().map(|line| {
                let position = puzzle.parse(line).map_err(|e| e.to_string())?;
                let distance = table.distance(&position).map_err(|e| e.to_string())?;
                Ok((puzzle.format_line(&position), distance))
            })
        })
        .collect())
}
