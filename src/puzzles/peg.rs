//! Peg solitaire on small boards (seed 004): a peg jumps over an adjacent peg into an
//! empty hole and the jumped peg is removed. A MOVE is one peg's chain of consecutive
//! jumps, so `[10,0,2,6]` is one move of three jumps.
//!
//! Boards are bit masks of pegs (hole `i` is bit `i`). This module does not use the
//! depth-array engine: moves are not reversible, so it searches forward from the start.

use std::collections::HashMap;

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

    /// The puzzle's name.
    pub fn name(&self) -> &'static str {
        self.name
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
        (from as usize) < self.holes
            && board & (1 << from) != 0
            && board & (1 << to) == 0
            && self.jumps[from as usize]
                .iter()
                .any(|&(over, t)| t == to && board & (1 << over) != 0)
    }

    /// The boards one move (a chain of one or more jumps by one peg) away, each once,
    /// with the chain that reaches it first.
    pub fn moves(&self, board: u64) -> Vec<(u64, Vec<u8>)> {
        let mut found: HashMap<u64, Vec<u8>> = HashMap::new();
        for from in 0..self.holes as u8 {
            if board & (1 << from) != 0 {
                self.chains(board, vec![from], &mut found);
            }
        }
        let mut out: Vec<(u64, Vec<u8>)> = found.into_iter().collect();
        out.sort();
        out
    }

    fn chains(&self, board: u64, path: Vec<u8>, found: &mut HashMap<u64, Vec<u8>>) {
        let at = *path.last().expect("a chain starts somewhere");
        for &(over, to) in &self.jumps[at as usize] {
            if board & (1 << over) != 0 && board & (1 << to) == 0 {
                let next = board & !(1 << at) & !(1 << over) | (1 << to);
                let mut longer = path.clone();
                longer.push(to);
                found.entry(next).or_insert_with(|| longer.clone());
                self.chains(next, longer, found);
            }
        }
    }

    /// Breadth-first search over moves from the start: for every reachable board its
    /// minimal number of moves; returns the count of boards per move number and the
    /// goal's distance.
    pub fn analyze(&self) -> (Vec<u64>, Option<u32>) {
        let mut seen: HashMap<u64, u32> = HashMap::new();
        seen.insert(self.start(), 0);
        let mut frontier = vec![self.start()];
        let mut histogram = vec![1u64];
        while !frontier.is_empty() {
            let depth = histogram.len() as u32;
            let mut next = Vec::new();
            for &board in &frontier {
                for (child, _) in self.moves(board) {
                    if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(child) {
                        e.insert(depth);
                        next.push(child);
                    }
                }
            }
            if !next.is_empty() {
                histogram.push(next.len() as u64);
            }
            frontier = next;
        }
        (histogram, seen.get(&self.goal()).copied())
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
            let (over, _) = *self.jumps[from as usize].iter().find(|&&(_, t)| t == to)?;
            if board & (1 << from) == 0 || board & (1 << over) == 0 || board & (1 << to) != 0 {
                return None;
            }
            board = board & !(1 << from) & !(1 << over) | (1 << to);
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
                if board & (1 << over) == 0 || board & (1 << to) != 0 {
                    continue;
                }
                let next = board & !(1 << from) & !(1 << over) | (1 << to);
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
    fn grouping() {
        let moves = group(&[(0, 6), (9, 3), (2, 0), (0, 6)]);
        assert_eq!(notation(&moves), "[0,6][9,3][2,0,6]");
    }
}
