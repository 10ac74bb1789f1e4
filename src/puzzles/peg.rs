//! Peg solitaire on small boards (seed 004): a peg jumps over an adjacent peg into an
//! empty hole and the jumped peg is removed. A MOVE is one peg's chain of consecutive
//! jumps, so `[10,0,2,6]` is one move of three jumps.
//!
//! Boards are bit masks of pegs (hole `i` is bit `i`). This module does not use the
//! depth-array engine: moves are not reversible, so it searches forward from the start.

use std::fmt::Write as _;

use bitvec::prelude::BitVec;
use rayon::prelude::*;

use crate::puzzle::PositionError;
use crate::report::Format;
use crate::units::{depth_table, thousands};

/// Boards up to this many holes also get every board's fewest moves (a list per move
/// level of all reachable boards); larger boards only the fewest moves to the goal.
pub const MOVE_LEVELS_MAX_HOLES: usize = 20;

/// The board after a peg on `from` jumps over `over` to `to`, if the jump is legal on
/// `board`: a peg on `from` and `over`, `to` empty. The one jump test of this module.
#[inline(always)]
fn try_jump(board: u64, from: u8, over: u8, to: u8) -> Option<u64> {
    let legal = board & (1 << from) != 0 && board & (1 << over) != 0 && board & (1 << to) == 0;
    legal.then(|| board & !(1 << from) & !(1 << over) | (1 << to))
}

/// Why a peg solitaire board could not be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PegError {
    /// Large boards are solved by breadth-first search over moves: one solution.
    #[error(
        "{0} is solved by breadth-first search over moves: one solution, without \
         --all or --first"
    )]
    OneSolutionOnly(String),
    /// The fixed first jump is not legal on the board.
    #[error("--first {0}-{1} is not a legal jump on this board")]
    IllegalFirst(u8, u8),
    /// No solution within the limit (iterative deepening).
    #[error("no solution of at most {0} moves from this board")]
    TooDeep(u32),
    /// The goal cannot be reached at all.
    #[error("one peg in the centre cannot be reached from this board")]
    Unreachable,
}

/// What a forward analysis of a peg solitaire board finds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PegAnalysis {
    /// The board's name.
    pub puzzle: String,
    /// Boards reachable from the start.
    pub reachable: u64,
    /// Boards per number of jumps from the start.
    pub jumps_histogram: Vec<u64>,
    /// Boards per fewest number of moves (boards up to [`MOVE_LEVELS_MAX_HOLES`] holes).
    pub moves_histogram: Option<Vec<u64>>,
    /// The fewest moves from the start to the goal, if it can be reached.
    pub goal_moves: Option<u32>,
    /// One such solution in the seed's notation.
    pub solution: Option<String>,
    /// Wall time.
    pub seconds: f64,
}
/// A board: its holes and, for every hole, the jumps `(over, to)` from it.
#[derive(Debug, Clone)]
pub struct PegBoard {
    name: &'static str,
    holes: usize,
    jumps: Vec<Vec<(u8, u8)>>,
    centre: u8,
}

/// A jump sequence grouped into moves: each move is the holes its peg visits.
pub type PegSolution = Vec<Vec<u8>>;

impl PegBoard {
    /// Hoppers: 13 holes, the centre (6) empty at the start (seed 004).
    pub fn hoppers() -> PegBoard {
        let table: [&[(u8, u8)]; 13] = [
            &[(1, 2), (3, 6), (5, 10)],
            &[(3, 5), (6, 11), (4, 7)],
            &[(1, 0), (4, 6), (7, 12)],
            &[(6, 9)],
            &[(6, 8)],
            &[(3, 1), (6, 7), (8, 11)],
            &[(3, 0), (4, 2), (8, 10), (9, 12)],
            &[(4, 1), (6, 5), (9, 11)],
            &[(6, 4)],
            &[(6, 3)],
            &[(5, 0), (8, 6), (11, 12)],
            &[(8, 5), (6, 1), (9, 7)],
            &[(11, 10), (9, 6), (7, 2)],
        ];
        PegBoard {
            name: "hoppers",
            holes: 13,
            jumps: table.iter().map(|j| j.to_vec()).collect(),
            centre: 6,
        }
    }

    /// The English board: 33 holes in a cross, numbered row by row, centre 16.
    pub fn english33() -> PegBoard {
        let on_board = |r: i32, c: i32| {
            (0..7).contains(&r)
                && (0..7).contains(&c)
                && ((2..5).contains(&r) || (2..5).contains(&c))
        };
        let mut number = [[u8::MAX; 7]; 7];
        let mut next = 0u8;
        for r in 0..7 {
            for c in 0..7 {
                if on_board(r, c) {
                    number[r as usize][c as usize] = next;
                    next += 1;
                }
            }
        }
        let mut jumps = vec![Vec::new(); 33];
        for r in 0..7 {
            for c in 0..7 {
                if !on_board(r, c) {
                    continue;
                }
                for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let (r1, c1, r2, c2) = (r + dr, c + dc, r + 2 * dr, c + 2 * dc);
                    if on_board(r2, c2) {
                        let from = number[r as usize][c as usize] as usize;
                        jumps[from].push((
                            number[r1 as usize][c1 as usize],
                            number[r2 as usize][c2 as usize],
                        ));
                    }
                }
            }
        }
        PegBoard {
            name: "english33",
            holes: 33,
            jumps,
            centre: 16,
        }
    }

    /// The number of holes.
    pub fn holes(&self) -> usize {
        self.holes
    }

    /// Appends every board one jump away to `out`.
    #[inline]
    fn each_jump(&self, board: u64, out: &mut Vec<u64>) {
        let mut pegs = board;
        while pegs != 0 {
            let from = pegs.trailing_zeros() as usize;
            pegs &= pegs - 1;
            out.extend(
                self.jumps[from]
                    .iter()
                    .filter_map(|&(over, to)| try_jump(board, from as u8, over, to)),
            );
        }
    }

    /// Appends every board one move (a chain of jumps by one peg) away to `out`; a board
    /// reached by several chains may come more than once.
    fn each_move(&self, board: u64, out: &mut Vec<u64>) {
        let mut pegs = board;
        while pegs != 0 {
            let from = pegs.trailing_zeros() as u8;
            pegs &= pegs - 1;
            self.continue_chain(board, from, out);
        }
    }

    fn continue_chain(&self, board: u64, at: u8, out: &mut Vec<u64>) {
        for &(over, to) in &self.jumps[at as usize] {
            if let Some(next) = try_jump(board, at, over, to) {
                out.push(next);
                self.continue_chain(next, to, out);
            }
        }
    }

    /// Boards reachable from the start, by number of jumps (level k holds the boards
    /// with k pegs fewer than the start).
    pub fn jump_levels(&self) -> Vec<u64> {
        let mut seen = self.no_board_seen();
        seen.set(self.start() as usize, true);
        let mut frontier = vec![self.start()];
        let mut counts = Vec::new();
        while !frontier.is_empty() {
            counts.push(frontier.len() as u64);
            frontier = next_level(&frontier, &mut seen, |board, out| {
                self.each_jump(board, out)
            });
        }
        counts
    }

    /// Breadth-first search over moves from `from` until the goal: the boards of
    /// each move level, or `None` if the goal is unreachable.
    pub fn move_levels_to_goal(&self, from: u64) -> Option<Vec<Vec<u64>>> {
        let levels = self.move_levels(from, true);
        levels
            .last()
            .is_some_and(|level| level.contains(&self.goal()))
            .then_some(levels)
    }

    /// The boards first reached from `from` after 0, 1, 2, ... moves, up to the
    /// goal's level when `stop_at_goal`, else until no new board appears.
    fn move_levels(&self, from: u64, stop_at_goal: bool) -> Vec<Vec<u64>> {
        let mut seen = self.no_board_seen();
        seen.set(from as usize, true);
        let mut levels = vec![vec![from]];
        loop {
            let frontier = levels.last().expect("not empty");
            if stop_at_goal && frontier.contains(&self.goal()) {
                return levels;
            }
            let next = next_level(frontier, &mut seen, |board, out| self.each_move(board, out));
            if next.is_empty() {
                return levels;
            }
            levels.push(next);
        }
    }

    /// One fewest-move solution from `from`, by breadth-first search over moves and a
    /// walk back through the levels. Works for any board size (one bit per board).
    pub fn fewest_moves(&self, from: u64) -> Option<PegSolution> {
        let levels = self.move_levels_to_goal(from)?;
        let mut target = self.goal();
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
        for &(over, to) in &self.jumps[at as usize] {
            if let Some(next) = try_jump(board, at, over, to) {
                path.push(to);
                if next == target || self.search_chain(next, target, path) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }

    /// One bit per possible board (2^holes bits: 1 GiB for 33 holes), all clear.
    fn no_board_seen(&self) -> BitVec<u64> {
        BitVec::repeat(false, 1usize << self.holes)
    }

    /// The puzzle's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Reads a board: one mark per hole in hole order, `1` or `o` a peg, `0` or `.`
    /// empty; spaces and `/` are ignored.
    pub fn parse(&self, text: &str) -> Result<u64, PositionError> {
        let marks: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '/')
            .collect();
        if marks.len() != self.holes {
            return Err(PositionError::WrongSize {
                expected: format!(
                    "{} holes ({} of `1`/`o` for a peg, `0`/`.` for empty)",
                    self.holes, self.name
                ),
                found: marks.len().to_string(),
            });
        }
        marks
            .iter()
            .enumerate()
            .try_fold(0u64, |board, (hole, &mark)| match mark {
                '1' | 'o' => Ok(board | 1 << hole),
                '0' | '.' => Ok(board),
                other => Err(PositionError::UnknownPiece(other.to_string())),
            })
    }

    /// A board as [`PegBoard::parse`] reads it: `1` a peg, `0` empty, in hole order.
    pub fn format(&self, board: u64) -> String {
        (0..self.holes)
            .map(|hole| if board >> hole & 1 == 1 { '1' } else { '0' })
            .collect()
    }

    /// The fewest-move solutions from `start` (every one with `all`; `first` fixes the
    /// first jump, `max_moves` bounds the search): iterative deepening on boards up to
    /// [`MOVE_LEVELS_MAX_HOLES`] holes (the seed's method), breadth-first search over
    /// moves, one solution, on larger ones.
    pub fn solutions(
        &self,
        start: u64,
        first: Option<(u8, u8)>,
        all: bool,
        max_moves: u32,
    ) -> Result<(u32, Vec<PegSolution>), PegError> {
        if let Some((from, to)) = first.filter(|&(f, t)| !self.can_jump(start, f, t)) {
            return Err(PegError::IllegalFirst(from, to));
        }
        if self.holes > MOVE_LEVELS_MAX_HOLES {
            if first.is_some() || all {
                return Err(PegError::OneSolutionOnly(self.name.into()));
            }
            let solution = self.fewest_moves(start).ok_or(PegError::Unreachable)?;
            return Ok((solution.len() as u32, vec![solution]));
        }
        self.solve(start, first, all, max_moves)
            .ok_or(PegError::TooDeep(max_moves))
    }

    /// The boards reachable from the start by number of jumps, the fewest moves to the
    /// goal with one solution, and (boards up to [`MOVE_LEVELS_MAX_HOLES`] holes) every
    /// board's fewest moves.
    pub fn analysis(&self) -> PegAnalysis {
        let started = std::time::Instant::now();
        let jumps = self.jump_levels();
        let moves_histogram = (self.holes <= MOVE_LEVELS_MAX_HOLES).then(|| self.analyze().0);
        let solution = self.fewest_moves(self.start());
        PegAnalysis {
            puzzle: self.name.into(),
            reachable: jumps.iter().sum(),
            jumps_histogram: jumps,
            moves_histogram,
            goal_moves: solution.as_ref().map(|s| s.len() as u32),
            solution: solution.as_ref().map(notation),
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// Every hole filled but the centre.
    pub fn start(&self) -> u64 {
        ((1u64 << self.holes) - 1) & !(1 << self.centre)
    }

    /// One peg, in the centre.
    pub fn goal(&self) -> u64 {
        1 << self.centre
    }

    /// Whether a peg on `from` can jump to `to` on `board`.
    pub fn can_jump(&self, board: u64, from: u8, to: u8) -> bool {
        self.jump(board, from, to).is_some()
    }

    /// The board after a peg on `from` jumps to `to`, if that is a legal jump.
    pub fn jump(&self, board: u64, from: u8, to: u8) -> Option<u64> {
        self.jumps
            .get(from as usize)?
            .iter()
            .filter(|&&(_, t)| t == to)
            .find_map(|&(over, _)| try_jump(board, from, over, to))
    }

    /// Breadth-first search over moves from the start: for every reachable board its
    /// minimal number of moves; returns the count of boards per move number and the
    /// goal's distance.
    pub fn analyze(&self) -> (Vec<u64>, Option<u32>) {
        let levels = self.move_levels(self.start(), false);
        let goal = levels.iter().position(|level| level.contains(&self.goal()));
        (
            levels.iter().map(|level| level.len() as u64).collect(),
            goal.map(|g| g as u32),
        )
    }

    /// The fewest moves from `start` to the goal and the solutions of that length
    /// (every one with `all`), found by iterative deepening over jumps that counts a
    /// jump by the peg that just landed as part of the same move (the seed's method).
    /// `first` fixes the first jump.
    pub fn solve(
        &self,
        start: u64,
        first: Option<(u8, u8)>,
        all: bool,
        max_moves: u32,
    ) -> Option<(u32, Vec<PegSolution>)> {
        let mut board = start;
        let mut jumps: Vec<(u8, u8)> = Vec::new();
        if let Some((from, to)) = first {
            board = self.jump(board, from, to)?;
            jumps.push((from, to));
        }
        let pegs_left = board.count_ones();
        let mut search = Search {
            board: self,
            all,
            found: Vec::new(),
            target: self.goal(),
        };
        let moves_made = jumps.len() as u32;
        for limit in 1..=max_moves {
            search.dive(board, &mut jumps, moves_made, limit, pegs_left);
            if !search.found.is_empty() {
                return Some((limit, search.found));
            }
        }
        None
    }
}

/// Boards of a frontier expanded at once: bounds the memory of the children lists.
const EXPAND_BATCH: usize = 1 << 20;
/// Boards expanded by one task; its children are grouped by bucket on the spot.
const PIECE: usize = 1 << 14;
/// log2 of the boards per bucket: a bucket's stretch of the bit set is 256 KiB, so the
/// children of one bucket are checked within a cache-sized region.
const BUCKET_SHIFT: usize = 21;

/// The children of one piece of a frontier, grouped by bucket (a counting sort).
struct Grouped {
    children: Vec<u64>,
    /// `children[starts[b]..starts[b + 1]]` fall in bucket `b`.
    starts: Vec<u32>,
}

/// The boards not seen before among the children of `frontier`, marking them seen.
///
/// No sort and no lock: tasks expand pieces of the frontier and group the children by
/// bucket (the high bits of the board); then each bucket owns its stretch of the bit
/// set, so the buckets are checked in parallel, each in a cache-sized region.
fn next_level(
    frontier: &[u64],
    seen: &mut BitVec<u64>,
    children: impl Fn(u64, &mut Vec<u64>) + Sync,
) -> Vec<u64> {
    let boards = seen.len();
    let shift = BUCKET_SHIFT.min(boards.trailing_zeros() as usize);
    let buckets = boards >> shift;
    let words_per_bucket = (1usize << shift).div_ceil(64);
    let words = seen.as_raw_mut_slice();
    let mut next = Vec::new();
    for batch in frontier.chunks(EXPAND_BATCH) {
        let pieces: Vec<Grouped> = batch
            .par_chunks(PIECE)
            .map(|piece| {
                let mut raw = Vec::with_capacity(piece.len() * 4);
                for &board in piece {
                    children(board, &mut raw);
                }
                group_by_bucket(&raw, shift, buckets)
            })
            .collect();
        let found: Vec<Vec<u64>> = words
            .par_chunks_mut(words_per_bucket)
            .enumerate()
            .fold(Vec::new, |mut out, (bucket, region)| {
                for piece in &pieces {
                    let range = piece.starts[bucket] as usize..piece.starts[bucket + 1] as usize;
                    for &child in &piece.children[range] {
                        let bit = child as usize & ((1 << shift) - 1);
                        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
                        if region[word] & mask == 0 {
                            region[word] |= mask;
                            out.push(child);
                        }
                    }
                }
                out
            })
            .collect();
        for part in found {
            next.extend_from_slice(&part);
        }
    }
    next
}

/// Counting sort of `raw` by bucket (`board >> shift`).
fn group_by_bucket(raw: &[u64], shift: usize, buckets: usize) -> Grouped {
    let mut starts = vec![0u32; buckets + 1];
    for &child in raw {
        starts[(child >> shift) as usize + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut fill = starts.clone();
    let mut children = vec![0u64; raw.len()];
    for &child in raw {
        let slot = &mut fill[(child >> shift) as usize];
        children[*slot as usize] = child;
        *slot += 1;
    }
    Grouped { children, starts }
}

struct Search<'a> {
    board: &'a PegBoard,
    all: bool,
    found: Vec<PegSolution>,
    target: u64,
}

impl Search<'_> {
    /// Jumps until one peg is left; `moves` counts the moves so far.
    fn dive(
        &mut self,
        board: u64,
        jumps: &mut Vec<(u8, u8)>,
        moves: u32,
        limit: u32,
        pegs: u32,
    ) -> bool {
        if moves > limit {
            return false;
        }
        if pegs == 1 {
            if board == self.target {
                self.found.push(group(jumps));
                return !self.all;
            }
            return false;
        }
        let last_to = jumps.last().map(|&(_, to)| to);
        for from in 0..self.board.holes as u8 {
            if board & (1 << from) == 0 {
                continue;
            }
            for &(over, to) in &self.board.jumps[from as usize] {
                let Some(next) = try_jump(board, from, over, to) else {
                    continue;
                };
                let cost = if Some(from) == last_to { 0 } else { 1 };
                jumps.push((from, to));
                let done = self.dive(next, jumps, moves + cost, limit, pegs - 1);
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

/// A solution in the seed's notation: `[0,6][9,3][2,0,6]...`.
pub fn notation(solution: &PegSolution) -> String {
    solution
        .iter()
        .map(|chain| {
            let holes: Vec<String> = chain.iter().map(u8::to_string).collect();
            format!("[{}]", holes.join(","))
        })
        .collect()
}

/// The report of a peg solitaire analysis in the given format (CSV: one row per
/// number of jumps), ending with a newline.
pub fn render(a: &PegAnalysis, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(a).expect("analysis serializes");
            s.push('\n');
            s
        }
        Format::Csv => {
            let mut s = String::from("puzzle,reachable,goal_moves,jumps,boards\n");
            let goal = a.goal_moves.map_or(String::new(), |m| m.to_string());
            for (jumps, count) in a.jumps_histogram.iter().enumerate() {
                let _ = writeln!(s, "{},{},{goal},{jumps},{count}", a.puzzle, a.reachable);
            }
            s
        }
        Format::Text => {
            let mut s = String::new();
            let _ = writeln!(s, "puzzle          {}", a.puzzle);
            let _ = writeln!(
                s,
                "reachable       {} boards from the start (centre empty)",
                thousands(a.reachable)
            );
            let _ = writeln!(
                s,
                "goal            {}",
                a.goal_moves
                    .map_or("not reachable".to_string(), |m| format!(
                        "one peg in the centre after {m} moves (fewest)"
                    ))
            );
            let _ = writeln!(
                s,
                "solution        {}",
                a.solution.as_deref().unwrap_or("-")
            );
            let _ = writeln!(s, "time            {:.3} s\n", a.seconds);
            s.push_str(&depth_table("jumps  boards", &a.jumps_histogram));
            if let Some(moves) = &a.moves_histogram {
                s.push('\n');
                s.push_str(&depth_table("moves  boards (by their fewest moves)", moves));
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jump_table_is_symmetric() {
        let b = PegBoard::hoppers();
        for (from, jumps) in b.jumps.iter().enumerate() {
            for &(over, to) in jumps {
                assert!(b.jumps[to as usize].contains(&(over, from as u8)));
            }
        }
    }

    #[test]
    fn english_board_geometry() {
        let b = PegBoard::english33();
        assert_eq!(b.holes(), 33);
        assert_eq!(b.jumps.iter().map(Vec::len).sum::<usize>(), 76);
        for (from, jumps) in b.jumps.iter().enumerate() {
            for &(over, to) in jumps {
                assert!(b.jumps[to as usize].contains(&(over, from as u8)));
            }
        }
        // The first move: four jumps into the centre.
        let mut first = Vec::new();
        b.each_jump(b.start(), &mut first);
        assert_eq!(first.len(), 4);
    }

    #[test]
    fn hoppers_by_jumps_and_by_moves_cover_the_same_boards() {
        let b = PegBoard::hoppers();
        let jumps: u64 = b.jump_levels().iter().sum();
        let (moves, goal) = b.analyze();
        assert_eq!(jumps, moves.iter().sum::<u64>());
        assert_eq!(goal, Some(7));
        assert_eq!(b.fewest_moves(b.start()).map(|s| s.len()), Some(7));
    }

    #[test]
    fn positions_of_any_board() {
        let hoppers = PegBoard::hoppers();
        assert_eq!(hoppers.parse("1111 11011 1111"), Ok(hoppers.start()));
        assert_eq!(hoppers.format(hoppers.start()), "1111110111111");
        let english = PegBoard::english33();
        let start = english.format(english.start());
        assert_eq!(english.parse(&start), Ok(english.start()));
        assert!(matches!(
            english.parse("1111111111111"),
            Err(PositionError::WrongSize { .. })
        ));
        assert!(matches!(
            hoppers.parse("111111x111111"),
            Err(PositionError::UnknownPiece(_))
        ));
    }

    #[test]
    fn grouping() {
        let moves = group(&[(0, 6), (9, 3), (2, 0), (0, 6)]);
        assert_eq!(notation(&moves), "[0,6][9,3][2,0,6]");
    }
}
