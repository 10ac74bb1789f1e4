//! Reading distances and optimal solutions out of a depth array by descent: from a
//! position, step to a neighbour one level closer until a state of the goal set.
//!
//! With exact depths a distance is one look-up; with depths mod 3 it is the length of
//! the descent (a neighbour's residue tells closer, same or farther apart, because
//! neighbours' depths differ by at most one). A descent ends at a state whose depth
//! is 0: with exact depths the value says so, with depths mod 3 the residue 0 is
//! shared by depths 3, 6, ... and the puzzle is asked whether the state is a goal.

use crate::puzzle::{Puzzle, Step};
use crate::store::DepthRead;

/// Why a descent failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DescentError {
    /// The table has no depth for the position.
    #[error("the table has no distance for this position (it cannot reach the goal)")]
    Unreached,
    /// No neighbour is one level closer: the table is inconsistent.
    #[error("the table is inconsistent: no neighbour of index {0} is one move closer")]
    Inconsistent(u64),
    /// A move of the descent has no move back among the puzzle's moves.
    #[error("a move of the descent cannot be undone by one of the puzzle's moves")]
    Irreversible,
}

/// Whether a state holding `value` is at depth 0.
fn at_goal<P: Puzzle, R: DepthRead + ?Sized>(
    puzzle: &P,
    store: &R,
    state: &P::State,
    value: u32,
) -> bool {
    value == 0 && (store.period().is_none() || puzzle.is_goal(state))
}

/// The exact distance of the state with index `index` from the goal set.
///
/// # Errors
/// [`DescentError`] if the entry is unreached or the table is inconsistent (no
/// neighbour one step closer).
pub fn distance<P: Puzzle, R: DepthRead + ?Sized>(
    puzzle: &P,
    store: &R,
    index: u64,
) -> Result<u32, DescentError> {
    let value = store.value(index).ok_or(DescentError::Unreached)?;
    if store.period().is_none() {
        return Ok(value);
    }
    let (mut current, mut value, mut steps) = (index, value, 0u32);
    while !at_goal(puzzle, store, &puzzle.unrank(current), value) {
        let wanted = store.closer(value);
        let mut next = None;
        puzzle.expand_sorted(&[current], |_, neighbours| {
            next = neighbours
                .iter()
                .copied()
                .find(|&n| store.value(n) == Some(wanted));
        });
        current = next.ok_or(DescentError::Inconsistent(current))?;
        value = wanted;
        steps += 1;
        if steps as u64 > store.len() {
            return Err(DescentError::Inconsistent(index));
        }
    }
    Ok(steps)
}

/// An optimal solution from `start` to the goal set: each move to a neighbour one
/// level closer.
///
/// # Errors
/// [`DescentError`] if the position is unreached or the table is inconsistent (no
/// neighbour one step closer).
pub fn solve<P: Puzzle, R: DepthRead + ?Sized>(
    puzzle: &P,
    store: &R,
    start: &P::State,
) -> Result<Vec<Step<P>>, DescentError> {
    let mut state = start.clone();
    let mut value = store
        .value(puzzle.rank(&state))
        .ok_or(DescentError::Unreached)?;
    let mut moves = Vec::new();
    let mut successors = Vec::new();
    while !at_goal(puzzle, store, &state, value) {
        let wanted = store.closer(value);
        successors.clear();
        puzzle.successors(&state, &mut successors);
        let index = puzzle.rank(&state);
        let step = successors
            .drain(..)
            .find(|s| store.value(puzzle.rank(&s.state)) == Some(wanted))
            .ok_or(DescentError::Inconsistent(index))?;
        state = step.state.clone();
        moves.push(step);
        value = wanted;
        if moves.len() as u64 > store.len() {
            return Err(DescentError::Inconsistent(index));
        }
    }
    Ok(moves)
}

/// Moves that reach `target` from the goal set, as few as can: an optimal solution
/// from `target` ([`solve`]) walked back, each step undone by the move that leads
/// from its position to the one before. Where indices are positions up to rotation
/// and the solution ends at a rotation of the one goal, the path is first turned
/// with it ([`Puzzle::carry_path_onto`]): the moves then reach a position of
/// `target`'s class from the goal itself.
///
/// ```
/// use antipode::{Analyze, puzzles::SlidingPuzzle};
///
/// // The 2x3 board's one antipode, reached from the goal by moving 21 tiles in turn
/// // (found this way for each antipode an analysis draws).
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let report = Analyze::new(&board).boards(1).run().unwrap();
/// assert_eq!(report.gods_number, 21);
/// assert_eq!(report.antipode_moves[0].split(' ').count(), 21);
/// ```
///
/// # Errors
/// [`DescentError`] if the position is unreached, the table is inconsistent, or a move
/// cannot be undone.
pub fn moves_from_goal<P: Puzzle, R: DepthRead + ?Sized>(
    puzzle: &P,
    store: &R,
    target: &P::State,
) -> Result<Vec<P::Move>, DescentError> {
    let steps = solve(puzzle, store, target)?;
    let mut path: Vec<P::State> = std::iter::once(target.clone())
        .chain(steps.into_iter().map(|step| step.state))
        .collect();
    // A descent may end at a rotation of the goal (positions up to rotation): the
    // path is turned with it, to end at the goal and start in the target's class.
    if let [goal] = puzzle.goals().as_slice()
        && path.last() != Some(goal)
    {
        puzzle.carry_path_onto(&mut path, goal);
    }
    let mut moves = Vec::with_capacity(path.len() - 1);
    let mut successors = Vec::new();
    for pair in path.windows(2).rev() {
        successors.clear();
        puzzle.successors(&pair[1], &mut successors);
        let back = successors
            .iter()
            .find(|s| s.state == pair[0])
            .ok_or(DescentError::Irreversible)?;
        moves.push(back.moved);
    }
    Ok(moves)
}
