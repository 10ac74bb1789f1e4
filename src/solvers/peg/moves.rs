//! The optimal solver of peg solitaire: the fewest moves (chains of jumps by one
//! peg) from a board to the goal, expanding only boards that can still reach it
//! ([`SolvableBoards`]: level sets computed backwards from the goal, or a peg table).
//! Up to [`MOVE_LEVELS_MAX_HOLES`] holes, iterative deepening over jumps finds every
//! solution; larger boards get one, by a breadth-first search over moves.

use std::hash::{BuildHasher, Hasher};

use crate::driver;
pub use crate::puzzles::peg::MOVE_LEVELS_MAX_HOLES;
use crate::puzzles::peg::{PegBoard, PegError, PegSolution};

/// The boards from which the goal can still be reached, as a search asks for them:
/// computed ([`crate::solvers::peg::levels::BoardSets`]) or read from a table
/// ([`crate::solvers::peg::table::SolvableTable`]).
pub trait SolvableBoards: Sync {
    /// Whether the goal can be reached from `board`.
    fn can_reach_goal(&self, board: u64) -> bool;
}

impl PegBoard {
    /// Appends every board one move (a chain of jumps by one peg) away to `out`,
    /// following only boards `alive` accepts; a board reached by several chains may
    /// come more than once.
    fn each_move(&self, board: u64, alive: &impl Fn(u64) -> bool, out: &mut Vec<u64>) {
        let mut pegs = board;
        while pegs != 0 {
            let from = pegs.trailing_zeros() as u8;
            pegs &= pegs - 1;
            self.continue_chain(board, from, alive, out);
        }
    }

    fn continue_chain(&self, board: u64, at: u8, alive: &impl Fn(u64) -> bool, out: &mut Vec<u64>) {
        for (to, jump) in self.jumps_from(at) {
            if let Some(next) = jump.forward(board).filter(|&next| alive(next)) {
                out.push(next);
                self.continue_chain(next, to, alive, out);
            }
        }
    }

    /// A chain of jumps by one peg that turns `board` into `target`, if any.
    fn chain_to(&self, board: u64, target: u64) -> Option<Vec<u8>> {
        let mut pegs = board;
        while pegs != 0 {
            let from = pegs.trailing_zeros() as u8;
            pegs &= pegs - 1;
            let mut path = vec![from];
            if self.search_chain(board, target, &mut path) {
                return Some(path);
            }
        }
        None
    }

    fn search_chain(&self, board: u64, target: u64, path: &mut Vec<u8>) -> bool {
        let at = *path.last().expect("a chain starts somewhere");
        if board.count_ones() <= target.count_ones() {
            return false;
        }
        for (to, jump) in self.jumps_from(at) {
            if let Some(next) = jump.forward(board) {
                path.push(to);
                if next == target || self.search_chain(next, target, path) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }

    /// Whether every fewest-move solution can be listed (`all`) on this board: up to
    /// [`MOVE_LEVELS_MAX_HOLES`] holes; larger boards give one. Checked before the
    /// boards that can reach the goal are computed, which takes seconds on them.
    ///
    /// # Errors
    /// [`PegError::OneSolutionOnly`] if `all` is asked of a larger board.
    pub fn check_all_solutions(&self, all: bool) -> Result<(), PegError> {
        if all && self.holes() > MOVE_LEVELS_MAX_HOLES {
            return Err(PegError::OneSolutionOnly(self.name().to_string()));
        }
        Ok(())
    }

    /// The fewest-move solutions from `start`, with the boards that can still reach the goal
    /// given (computed by `crate::solvers::peg::solutions`, or read from a table):
    /// only they are expanded. Up to [`MOVE_LEVELS_MAX_HOLES`] holes the search is
    /// iterative deepening over jumps (the seed's method; solutions in ascending order
    /// of their holes), on larger boards a breadth-first search over moves (one
    /// solution).
    ///
    /// # Errors
    /// [`PegError`] if the first jump is illegal, no solution is within the limit, or
    /// the goal cannot be reached.
    pub fn solutions_among(
        &self,
        start: u64,
        first: Option<(u8, u8)>,
        all: bool,
        max_moves: u32,
        solvable: &impl SolvableBoards,
    ) -> Result<(u32, Vec<PegSolution>), PegError> {
        let mut board = start;
        let mut jumps: Vec<(u8, u8)> = Vec::new();
        if let Some((from, to)) = first {
            board = self
                .jump(start, from, to)
                .ok_or(PegError::IllegalFirst(from, to))?;
            jumps.push((from, to));
        }
        if self.is_goal(board) {
            let solution = group(&jumps);
            return Ok((solution.len() as u32, vec![solution]));
        }
        self.check_all_solutions(all)?;
        let unreachable = || PegError::Unreachable(self.goal_text());
        if !solvable.can_reach_goal(board) {
            return Err(unreachable());
        }
        if self.holes() > MOVE_LEVELS_MAX_HOLES {
            let mut solution = self.fewest_moves(board, solvable).ok_or_else(unreachable)?;
            if let Some((from, to)) = first {
                match solution.first_mut() {
                    Some(chain) if chain[0] == to => chain.insert(0, from),
                    _ => solution.insert(0, vec![from, to]),
                }
            }
            return Ok((solution.len() as u32, vec![solution]));
        }
        let mut search = Search {
            board: self,
            solvable,
            all,
            found: Vec::new(),
        };
        let moves_made = jumps.len() as u32;
        for limit in 1..=max_moves {
            search.dive(board, &mut jumps, moves_made, limit);
            if !search.found.is_empty() {
                let mut found = search.found;
                found.sort();
                return Ok((limit, found));
            }
        }
        Err(PegError::TooDeep(max_moves))
    }

    /// One fewest-move solution from `from`, by breadth-first search over moves among
    /// the boards of `solvable`, and a walk back through the levels.
    fn fewest_moves(&self, from: u64, solvable: &impl SolvableBoards) -> Option<PegSolution> {
        use rayon::prelude::*;
        let levels = self.move_levels(from, |board| solvable.can_reach_goal(board), true);
        let mut target = *levels.last()?.iter().find(|&&b| self.is_goal(b))?;
        let mut moves = Vec::new();
        for level in levels.iter().rev().skip(1) {
            let (board, chain) = level.par_iter().find_map_first(|&board| {
                self.chain_to(board, target).map(|chain| (board, chain))
            })?;
            moves.push(chain);
            target = board;
        }
        moves.reverse();
        Some(moves)
    }

    /// The boards first reached from `from` after 0, 1, 2, ... moves, following only
    /// boards `alive` accepts: up to the first level with a goal board when
    /// `stop_at_goal`, else until no new board appears.
    fn move_levels(
        &self,
        from: u64,
        alive: impl Fn(u64) -> bool + Sync,
        stop_at_goal: bool,
    ) -> Vec<Vec<u64>> {
        let mut search = MoveLevels {
            board: self,
            alive,
            stop_at_goal,
            seen: std::collections::HashSet::with_hasher(BoardHash),
            levels: vec![vec![from]],
        };
        search.seen.insert(from);
        // Without a stop token the run cannot be interrupted: its levels are all in
        // `search`.
        let _complete = driver::run(&mut search, &driver::Control::default());
        search.levels
    }

    /// The number of boards per fewest number of moves from the start, and the goal's
    /// moves (boards up to [`MOVE_LEVELS_MAX_HOLES`] holes).
    #[must_use]
    pub fn moves_histogram(&self) -> (Vec<u64>, Option<u32>) {
        let levels = self.move_levels(self.start(), |_| true, false);
        let goal = levels
            .iter()
            .position(|level| level.iter().any(|&b| self.is_goal(b)));
        (
            levels.iter().map(|level| level.len() as u64).collect(),
            goal.map(|g| g as u32),
        )
    }
}

/// A breadth-first search by moves, as a build of the level-loop driver: every level
/// the boards first reached with one move more.
struct MoveLevels<'a, A> {
    board: &'a PegBoard,
    alive: A,
    stop_at_goal: bool,
    seen: std::collections::HashSet<u64, BoardHash>,
    /// The boards of every level found.
    levels: Vec<Vec<u64>>,
}

impl<A: Fn(u64) -> bool + Sync> driver::Levels for MoveLevels<'_, A> {
    type Error = driver::Interrupted;

    fn start(&mut self, _: &driver::Control<'_>) -> Result<driver::Start, driver::Interrupted> {
        Ok(driver::Start::fresh(self.levels[0].len() as u64))
    }

    fn next_level(&mut self, _: &driver::Control<'_>) -> Result<driver::Next, driver::Interrupted> {
        use rayon::prelude::*;
        let (board, alive) = (self.board, &self.alive);
        let Some(frontier) = self.levels.last() else {
            return Ok(driver::Next::Done);
        };
        if self.stop_at_goal && frontier.iter().any(|&b| board.is_goal(b)) {
            return Ok(driver::Next::Done);
        }
        let mut children: Vec<u64> = frontier
            .par_chunks(1 << 12)
            .flat_map_iter(|piece| {
                let mut out = Vec::new();
                for &b in piece {
                    board.each_move(b, alive, &mut out);
                }
                out
            })
            .collect();
        children.par_sort_unstable();
        children.dedup();
        children.retain(|b| self.seen.insert(*b));
        if children.is_empty() {
            return Ok(driver::Next::Done);
        }
        let found = children.len() as u64;
        self.levels.push(children);
        Ok(driver::Next::found(found))
    }
}

struct Search<'a, S> {
    board: &'a PegBoard,
    solvable: &'a S,
    all: bool,
    found: Vec<PegSolution>,
}

impl<S: SolvableBoards> Search<'_, S> {
    /// Jumps until the goal; `moves` counts the moves so far. Only boards that can
    /// still reach the goal are entered.
    fn dive(&mut self, board: u64, jumps: &mut Vec<(u8, u8)>, moves: u32, limit: u32) -> bool {
        if moves > limit {
            return false;
        }
        if self.board.is_goal(board) {
            self.found.push(group(jumps));
            return !self.all;
        }
        let last_to = jumps.last().map(|&(_, to)| to);
        let mut pegs = board;
        while pegs != 0 {
            let from = pegs.trailing_zeros() as u8;
            pegs &= pegs - 1;
            for (to, jump) in self.board.jumps_from(from) {
                let Some(next) = jump
                    .forward(board)
                    .filter(|&b| self.solvable.can_reach_goal(b))
                else {
                    continue;
                };
                let cost = if Some(from) == last_to { 0 } else { 1 };
                jumps.push((from, to));
                let done = self.dive(next, jumps, moves + cost, limit);
                jumps.pop();
                if done {
                    return true;
                }
            }
        }
        false
    }
}

/// Groups jumps into moves: a jump from where the previous one landed continues it.
fn group(jumps: &[(u8, u8)]) -> PegSolution {
    let mut moves: PegSolution = Vec::new();
    for &(from, to) in jumps {
        match moves.last_mut() {
            Some(chain) if chain.last() == Some(&from) => chain.push(to),
            _ => moves.push(vec![from, to]),
        }
    }
    moves
}

/// A hasher for boards (already well mixed by one multiplication): the move search's
/// set of boards seen.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoardHash;

/// The state of [`BoardHash`].
#[derive(Debug, Default)]
pub struct BoardHasher(u64);

impl Hasher for BoardHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, board: u64) {
        self.0 = (board ^ board >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl BuildHasher for BoardHash {
    type Hasher = BoardHasher;

    fn build_hasher(&self) -> BoardHasher {
        BoardHasher(0)
    }
}

#[cfg(test)]
mod tests {
    use super::group;
    use crate::puzzles::peg::notation;

    #[test]
    fn grouping() {
        let moves = group(&[(0, 6), (9, 3), (2, 0), (0, 6)]);
        assert_eq!(notation(&moves), "[0,6][9,3][2,0,6]");
    }
}
