//! Peg solitaire's searches: boards as bit sets, level by level, one level per jump
//! ([`levels`] over [`level_set`]), with a checkpoint for long forward analyses
//! ([`checkpoint`]); the table of boards that can still reach the goal ([`table`]);
//! the optimal solver pruned by those boards ([`solutions`]); and the analysis's
//! report ([`report`]). The rules, ranking and notation are in
//! [`crate::puzzles::peg`].

pub mod checkpoint;
pub mod level_set;
pub mod levels;
pub mod moves;
pub mod report;
pub mod table;

use crate::puzzles::peg::{PegBoard, PegError, PegSolution};

/// The fewest-move solutions of `board` from `start` (every one with `all`; `first`
/// fixes the first jump, `max_moves` bounds the search). Boards that cannot reach the
/// goal are never expanded: the boards that can are found first, level by level
/// backwards from the goal ([`levels::solvable_sets`]); [`PegBoard::solutions_among`](moves)
/// takes them from elsewhere (a peg table).
///
/// # Errors
/// [`PegError`] if the board is too large for the level sets, the first jump is
/// illegal, or the goal cannot be reached.
///
/// ```
/// use antipode::puzzles::peg::PegBoard;
///
/// // Seed 004: with the first jump 0->6, exactly 18 solutions of 7 moves.
/// let hoppers = PegBoard::shipped("hoppers").unwrap();
/// let first = Some((0, 6));
/// let (moves, solutions) =
///     antipode::solvers::peg::solutions(&hoppers, hoppers.start(), first, true, 20)?;
/// assert_eq!((moves, solutions.len()), (7, 18));
/// # Ok::<(), antipode::puzzles::peg::PegError>(())
/// ```
pub fn solutions(
    board: &PegBoard,
    start: u64,
    first: Option<(u8, u8)>,
    all: bool,
    max_moves: u32,
) -> Result<(u32, Vec<PegSolution>), PegError> {
    let solvable = levels::solvable_sets(
        board,
        start.count_ones(),
        &crate::driver::Control::default(),
    )?;
    board.solutions_among(start, first, all, max_moves, &solvable)
}
