//! Oshidori (seed 003): a row of 2k stones and two adjacent blanks. A move takes two
//! adjacent stones and slides them, keeping their order, into the two blanks.
//!
//! `oshidori` is the classic `B W B W B W . .` -> `B B B W W W . .`; `oshidori:K` has K
//! kinds of two stones each, from `1 2 .. K 1 2 .. K . .` to `1 1 2 2 .. K K . .`.
//!
//! **Index** = `(place of the blank pair) * M + (multiset rank of the stones' order)`,
//! M = (2k)! / prod(count!), so `(2k + 1) * M` indices in all.

use crate::puzzle::{Notation, PositionError, Puzzle, Successor};
use crate::puzzles::notation;
use crate::rank::multiset;

mod expand;

/// The most kinds: one digit each.
pub const MAX_KINDS: usize = 9;
/// The most cells a row may have (two stones of each of [`MAX_KINDS`] kinds, two blanks).
pub const MAX_CELLS: usize = 2 * MAX_KINDS + 2;

/// A row: 0 for a blank, 1.. for the stone kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Row {
    cells: [u8; MAX_CELLS],
    len: u8,
}

impl Row {
    /// A row from its cells (0 for a blank), at most [`MAX_CELLS`].
    #[must_use]
    pub fn from_cells(cells: &[u8]) -> Row {
        row(cells)
    }

    /// The cells, left to right.
    #[must_use]
    pub fn cells(&self) -> &[u8] {
        &self.cells[..self.len as usize]
    }

    /// The cell of the left blank.
    pub(crate) fn blank(&self) -> usize {
        self.cells().iter().position(|&c| c == 0).unwrap_or(0)
    }

    /// The left cells of the pairs of stones that can move: every two adjacent cells that
    /// hold no blank, given the left blank's cell.
    pub(crate) fn movable_pairs(&self, blank: usize) -> impl Iterator<Item = usize> {
        (0..self.len as usize - 1).filter(move |&i| i + 1 < blank || i > blank + 1)
    }

    /// The row after the stones at `i` and `i + 1` slide, in order, into the blanks at
    /// `blank` and `blank + 1`.
    pub(crate) fn with_pair_moved(&self, i: usize, blank: usize) -> Row {
        let mut next = *self;
        next.cells[blank] = self.cells[i];
        next.cells[blank + 1] = self.cells[i + 1];
        next.cells[i] = 0;
        next.cells[i + 1] = 0;
        next
    }
}

/// The seed's name of a move: the place (0-based, one base-36 digit) of the left stone
/// moved.
pub(crate) fn move_name(left_stone: usize) -> char {
    char::from_digit(left_stone as u32, 36).unwrap_or('?')
}

/// An Oshidori puzzle.
#[derive(Debug, Clone)]
pub struct Oshidori {
    /// Kinds of stones for `oshidori:K`, `None` for the classic black and white.
    kinds: Option<usize>,
    /// Stones per kind.
    counts: Vec<u8>,
    start: Row,
    goal: Row,
}

/// Why a variant is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("oshidori:{0}: the number of kinds must be 1 to 9")]
pub struct KindsError(pub usize);

fn row(cells: &[u8]) -> Row {
    let mut r = Row {
        cells: [0; MAX_CELLS],
        len: cells.len() as u8,
    };
    r.cells[..cells.len()].copy_from_slice(cells);
    r
}

impl Oshidori {
    /// The classic puzzle: three black and three white stones.
    #[must_use]
    pub fn classic() -> Oshidori {
        Oshidori {
            kinds: None,
            counts: vec![3, 3],
            start: row(&[1, 2, 1, 2, 1, 2, 0, 0]),
            goal: row(&[1, 1, 1, 2, 2, 2, 0, 0]),
        }
    }

    /// K kinds of two stones each.
    ///
    /// # Errors
    /// [`KindsError`] unless `k` is 1 to 9.
    pub fn with_kinds(k: usize) -> Result<Oshidori, KindsError> {
        if !(1..=MAX_KINDS).contains(&k) {
            return Err(KindsError(k));
        }
        let kinds: Vec<u8> = (1..=k as u8).collect();
        let start: Vec<u8> = kinds.iter().chain(&kinds).copied().chain([0, 0]).collect();
        let goal: Vec<u8> = kinds.iter().flat_map(|&s| [s, s]).chain([0, 0]).collect();
        Ok(Oshidori {
            kinds: Some(k),
            counts: vec![2; k],
            start: row(&start),
            goal: row(&goal),
        })
    }

    /// The goal: the stones in pairs, the two blanks on the right.
    #[must_use]
    pub fn goal(&self) -> Row {
        self.goal
    }

    fn cells(&self) -> usize {
        self.goal.len as usize
    }

    fn per_place(&self) -> u64 {
        multiset::arrangements(&self.counts)
    }

    fn symbol(&self, stone: u8) -> char {
        match (self.kinds, stone) {
            (_, 0) => '.',
            (None, 1) => 'B',
            (None, _) => 'W',
            (Some(_), s) => char::from(b'0' + s),
        }
    }
}

impl Notation for Oshidori {
    type State = Row;

    fn name(&self) -> String {
        match self.kinds {
            None => "oshidori".into(),
            Some(k) => format!("oshidori:{k}"),
        }
    }

    /// The seed's start position.
    fn start(&self) -> Option<Row> {
        Some(self.start)
    }

    fn parse(&self, text: &str) -> Result<Row, PositionError> {
        let tokens = notation::tokenize(text, true)?;
        let tokens = notation::cells_of_shape(tokens, 1, self.cells())?;
        let mut cells = Vec::with_capacity(self.cells());
        let mut counts = vec![0u8; self.counts.len() + 1];
        for token in tokens {
            let stone = match (self.kinds, token) {
                (_, "." | "0") => 0,
                (None, "B" | "b") => 1,
                (None, "W" | "w") => 2,
                (Some(k), t) => match t.parse::<usize>() {
                    Ok(s) if (1..=k).contains(&s) => s as u8,
                    _ => return Err(PositionError::UnknownPiece(t.to_string())),
                },
                (None, t) => return Err(PositionError::UnknownPiece(t.to_string())),
            };
            counts[stone as usize] += 1;
            cells.push(stone);
        }
        let wanted = |s: usize| if s == 0 { 2 } else { self.counts[s - 1] };
        if let Some(s) = (0..counts.len()).find(|&s| counts[s] > wanted(s)) {
            return Err(PositionError::Duplicate(self.symbol(s as u8).to_string()));
        }
        if let Some(s) = (0..counts.len()).find(|&s| counts[s] < wanted(s)) {
            return Err(PositionError::Missing(self.symbol(s as u8).to_string()));
        }
        let blank = cells.iter().position(|&c| c == 0).unwrap_or(0);
        if cells.get(blank + 1) != Some(&0) {
            return Err(PositionError::Malformed(
                "the two blanks must be adjacent".into(),
            ));
        }
        Ok(row(&cells))
    }

    fn format_line(&self, state: &Row) -> String {
        state.cells().iter().map(|&c| self.symbol(c)).collect()
    }

    fn render_board(&self, state: &Row) -> String {
        let mut text: String = state
            .cells()
            .iter()
            .map(|&c| self.symbol(c).to_string())
            .collect::<Vec<_>>()
            .join(" ");
        text.push('\n');
        text
    }
}

impl Puzzle for Oshidori {
    type Move = char;

    fn index_count(&self) -> u64 {
        (self.cells() as u64 - 1) * self.per_place()
    }

    fn max_neighbours(&self) -> usize {
        self.cells()
    }

    fn goals(&self) -> Vec<Row> {
        vec![self.goal]
    }

    fn is_goal(&self, state: &Row) -> bool {
        *state == self.goal
    }

    fn rank(&self, state: &Row) -> u64 {
        let blank = state.blank();
        let stones: Vec<u8> = state
            .cells()
            .iter()
            .filter(|&&c| c != 0)
            .map(|&c| c - 1)
            .collect();
        blank as u64 * self.per_place() + multiset::rank(&stones, &self.counts)
    }

    fn unrank(&self, index: u64) -> Row {
        let blank = (index / self.per_place()) as usize;
        let mut stones = vec![0u8; self.cells() - 2];
        multiset::unrank(index % self.per_place(), &self.counts, &mut stones);
        let mut cells = Vec::with_capacity(self.cells());
        let mut next = stones.iter();
        for cell in 0..self.cells() {
            if cell == blank || cell == blank + 1 {
                cells.push(0);
            } else {
                cells.push(next.next().map_or(0, |s| s + 1));
            }
        }
        row(&cells)
    }

    fn successors(&self, state: &Row, out: &mut Vec<Successor<Row, char>>) {
        let blank = state.blank();
        for i in state.movable_pairs(blank) {
            out.push(Successor {
                moved: move_name(i),
                state: state.with_pair_moved(i, blank),
            });
        }
    }

    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        match self.kinds {
            Some(kinds) => expand::expand_sorted(kinds, indices, visit),
            None => crate::puzzle::expand_each(self, indices, visit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sizes_and_forms() {
        assert_eq!(Oshidori::classic().index_count(), 140);
        assert_eq!(Oshidori::with_kinds(3).unwrap().index_count(), 7 * 90);
        let p = Oshidori::classic();
        assert_eq!(p.format_line(&p.start().unwrap()), "BWBWBW..");
        assert_eq!(p.parse("B W B W B W . .").ok(), p.start());
        assert!(matches!(
            p.parse("BWBWB.W."),
            Err(PositionError::Malformed(_))
        ));
        assert!(matches!(
            p.parse("BBBBWW.."),
            Err(PositionError::Duplicate(_))
        ));
        assert!(matches!(
            p.parse("BWBWBX.."),
            Err(PositionError::UnknownPiece(_))
        ));
        assert!(Oshidori::with_kinds(10).is_err());
    }

    proptest! {
        #[test]
        fn ranking_moves_and_fast_expansion(k in 1usize..=MAX_KINDS, seed in any::<u64>()) {
            let p = Oshidori::with_kinds(k).unwrap();
            crate::puzzle::assert_consistent_at(&p, seed % p.index_count());
        }

        #[test]
        fn classic_ranking_and_moves(seed in any::<u64>()) {
            let p = Oshidori::classic();
            crate::puzzle::assert_consistent_at(&p, seed % p.index_count());
        }
    }
}
