//! The puzzle a table file names.

use crate::puzzle::Puzzle;
use crate::puzzles::{self, AnyPuzzle, CatalogError};
use crate::table::header::fit_text;
use crate::with_puzzle;

/// The puzzle a table names: its command-line name and its goal's one-line form (or a
/// goal-set summary, which the puzzle's own goal set must then match), as the header
/// holds them (cut to the header's field).
///
/// # Errors
/// [`CatalogError`] if no puzzle has this name or the goal does not parse as one of its
/// positions.
///
/// ```
/// use antipode::{Notation, Puzzle};
///
/// let korf = antipode::jobs::puzzle_from_identity("8puzzle", "0 1 2/3 4 5/6 7 8")?;
/// assert_eq!(antipode::with_puzzle!(&korf, p => p.name()), "8puzzle");
/// # Ok::<(), antipode::puzzles::CatalogError>(())
/// ```
pub fn puzzle_from_identity(name: &str, goal: &str) -> Result<AnyPuzzle, CatalogError> {
    if name.ends_with('…') {
        // A long goal set on the command line: the header keeps its start only.
        return Err(CatalogError::Option(format!(
            "the table's header holds its puzzle's name cut short (`{name}`): give the puzzle"
        )));
    }
    let puzzle = puzzles::lookup(name)?;
    let own = with_puzzle!(&puzzle, p => fit_text(&p.goal_summary()));
    if own == goal {
        Ok(puzzle)
    } else {
        puzzle.with_goal(goal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Notation;

    #[test]
    fn goals_by_identity() {
        let korf = puzzle_from_identity("8puzzle", "0 1 2/3 4 5/6 7 8").unwrap();
        assert_eq!(with_puzzle!(&korf, p => p.name()), "8puzzle");
        assert!(puzzle_from_identity("goat", "18BB/257./3946").is_ok());
        assert!(matches!(
            puzzle_from_identity("goat", "18BB/2.75/3946"),
            Err(CatalogError::Goal(_))
        ));
        // A name cut to the header's field is no puzzle's: the reader must give it.
        let cut = puzzle_from_identity("3x3x3-corners --goal CORNERS: 0 1 2 3 ? ? …", "…");
        assert!(matches!(cut, Err(CatalogError::Option(m)) if m.contains("give the puzzle")));
    }
}
