//! Bidirectional breadth-first search (seed 003): a frontier grows from the start and
//! one from the whole goal set, a level at a time, the smaller one first, until they
//! meet.

use std::collections::HashMap;

use crate::puzzle::{Puzzle, Step};

/// A shortest solution from `start` and the number of positions generated, or `None`
/// if the goal cannot be reached.
pub fn solve<P: Puzzle>(puzzle: &P, start: &P::State) -> Option<(Vec<Step<P>>, u64)> {
    if puzzle.is_goal(start) {
        return Some((Vec::new(), 1));
    }
    let goals = puzzle.goal_positions();
    // Each side maps a position to the one it was reached from (None at the roots).
    let mut sides: [HashMap<P::State, Option<P::State>>; 2] = [HashMap::new(), HashMap::new()];
    sides[0].insert(start.clone(), None);
    for goal in &goals {
        sides[1].insert(goal.clone(), None);
    }
    let mut generated = 1 + goals.len() as u64;
    let mut frontiers = [vec![start.clone()], goals];
    let mut successors = Vec::new();
    loop {
        let side = if frontiers[0].len() <= frontiers[1].len() {
            0
        } else {
            1
        };
        if frontiers[side].is_empty() {
            return None;
        }
        let mut next = Vec::new();
        let mut meeting: Option<(P::State, P::State)> = None;
        for state in std::mem::take(&mut frontiers[side]) {
            successors.clear();
            puzzle.successors(&state, &mut successors);
            for s in successors.drain(..) {
                generated += 1;
                if sides[side].contains_key(&s.state) {
                    continue;
                }
                if sides[1 - side].contains_key(&s.state) && meeting.is_none() {
                    meeting = Some((s.state.clone(), state.clone()));
                }
                sides[side].insert(s.state.clone(), Some(state.clone()));
                next.push(s.state);
            }
        }
        frontiers[side] = next;
        if let Some((meet, _)) = meeting {
            return Some((path(puzzle, &sides, &meet), generated));
        }
    }
}

/// The moves start -> `meet` -> goal.
fn path<P: Puzzle>(
    puzzle: &P,
    sides: &[HashMap<P::State, Option<P::State>>; 2],
    meet: &P::State,
) -> Vec<Step<P>> {
    let mut states = vec![meet.clone()];
    while let Some(Some(parent)) = sides[0].get(states.last().expect("not empty")) {
        states.push(parent.clone());
    }
    states.reverse();
    let mut toward_goal = meet.clone();
    while let Some(Some(next)) = sides[1].get(&toward_goal) {
        states.push(next.clone());
        toward_goal = next.clone();
    }
    let mut steps = Vec::with_capacity(states.len());
    let mut successors = Vec::new();
    for pair in states.windows(2) {
        successors.clear();
        puzzle.successors(&pair[0], &mut successors);
        let step = successors
            .drain(..)
            .find(|s| s.state == pair[1])
            .expect("consecutive positions are one move apart");
        steps.push(step);
    }
    steps
}
