//! Reading distances and optimal solutions out of a depth array by descent: from a
//! position, step to a neighbour one level closer until the goal.
//!
//! With exact depths a distance is one look-up; with depths mod 3 it is the length of
//! the descent (a neighbour's residue tells closer, same or farther apart, because
//! neighbours' depths differ by at most one).

use crate::puzzle::{Puzzle, Step};
use crate::store::DepthStore;

/// Why a descent failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DescentError {
    /// The table has no depth for the position.
    #[error("the table has no distance for this position (not reached from the goal)")]
    Unreached,
    /// No neighbour is one level closer: the table is inconsistent.
    #[error("the table is inconsistent: no neighbour of index {0} is one move closer")]
    Inconsistent(u64),
}

/// The value one level closer than `value`.
fn closer(value: u32, period: Option<u32>) -> u32 {
    match period {
        Some(p) => (value + p - 1) % p,
        None => value.wrapping_sub(1),
    }
}

/// The exact distance of the state with index `index` from the goal.
pub fn distance<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    index: u64,
) -> Result<u32, DescentError> {
    let value = store.value(index).ok_or(DescentError::Unreached)?;
    if store.period().is_none() {
        return Ok(value);
    }
    let goal = puzzle.rank(&puzzle.goal());
    let (mut current, mut value, mut steps) = (index, value, 0u32);
    while current != goal {
        let wanted = closer(value, store.period());
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
        if steps > store.len() as u32 {
            return Err(DescentError::Inconsistent(index));
        }
    }
    Ok(steps)
}

/// An optimal solution from `start`: each move to a neighbour one level closer.
pub fn solve<P: Puzzle, S: DepthStore>(
    puzzle: &P,
    store: &S,
    start: &P::State,
) -> Result<Vec<Step<P>>, DescentError> {
    let goal = puzzle.goal();
    let mut state = start.clone();
    let mut value = store
        .value(puzzle.rank(&state))
        .ok_or(DescentError::Unreached)?;
    let mut moves = Vec::new();
    let mut successors = Vec::new();
    while state != goal {
        let wanted = closer(value, store.period());
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
