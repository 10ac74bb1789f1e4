//! Goat, the "Get My Goat" variant of seed 001: a 3 x 4 board with eight kinds of small
//! pieces (two identical `─`), one blank, and a big piece covering two cells of the
//! top row that can only slide left or right.
//!
//! **Index** (the seed's minimal perfect hash, "permutation ranking with big-piece
//! offsets") = `1,814,400 * (column of the big piece's left half)` + the rank of what
//! the other ten cells hold: `8! * (rank of the pair of cells holding the two ─)` +
//! `(rank of the order of the other eight items: blank and pieces 1..7)`.
//! 3 x 45 x 40,320 = 5,443,200 indices, all reachable from the goal.

mod expand;
pub mod search;

use crate::grid::Grid;
use crate::puzzle::{PositionError, Puzzle, Successor};
use crate::puzzles::notation;
use crate::rank::{combination, factorial, permutation};

/// Cells on the board.
pub const CELLS: usize = 12;
const COLS: usize = 4;
/// The board's geometry.
const GRID: Grid = Grid::new(3, COLS);

/// The big piece (left half on top-row column `big`) next to the blank on top-row
/// column `blank`: where the big piece's left half and the blank are after it slides
/// into the blank, or `None` if it is not next to the blank. The one rule of the big
/// piece's move, used by the successors, the fast expansion and the IDA* space.
#[inline(always)]
pub(crate) fn big_piece_slide(big: usize, blank: usize) -> Option<(usize, usize)> {
    if blank + 1 == big {
        Some((blank, big + 1))
    } else if blank == big + 2 {
        Some((big + 1, big))
    } else {
        None
    }
}
/// The code of the big piece in [`GoatBoard`] cells.
pub const BIG: u8 = 9;
/// The code of the two identical `─` pieces.
pub const BAR: u8 = 8;
const FREE_CELLS: usize = CELLS - 2;
const DISTINCT: usize = FREE_CELLS - 2;
const PER_BIG_PLACE: u64 = 45 * factorial(DISTINCT);

/// The seed's START position.
pub const START: &str = "18BB/2075/3846";
/// The seed's GOAL position: the goat (5) in the pen.
pub const GOAL: &str = "18BB/2570/3846";

/// A position: `cells[i]` is the piece on cell `i` (row-major): 0 blank, 1..8 the seed's
/// piece numbers, [`BIG`] on both cells of the big piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GoatBoard {
    /// Pieces by cell.
    pub cells: [u8; CELLS],
}

impl GoatBoard {
    /// The column of the big piece's left half (0..=2).
    pub fn big_column(&self) -> usize {
        self.cells[..COLS]
            .iter()
            .position(|&c| c == BIG)
            .unwrap_or(0)
    }

    fn blank(&self) -> usize {
        self.cells.iter().position(|&c| c == 0).unwrap_or(0)
    }
}

/// The Goat puzzle.
#[derive(Debug, Clone, Default)]
pub struct Goat;

impl Goat {
    /// The seed's GOAL position.
    pub fn goal(&self) -> GoatBoard {
        self.parse(GOAL).expect("GOAL is a valid position")
    }
}

fn symbol(piece: u8) -> &'static str {
    match piece {
        0 => "□",
        1 => "┌ ",
        2 => "│ ",
        3 => "└ ",
        4 => "┘ ",
        5 => "羊",
        6 => "狼",
        7 => "‖ ",
        _ => "─ ",
    }
}

impl Puzzle for Goat {
    type State = GoatBoard;
    type Move = char;

    fn name(&self) -> String {
        "goat".into()
    }

    fn index_count(&self) -> u64 {
        3 * PER_BIG_PLACE
    }

    fn max_neighbours(&self) -> usize {
        4
    }

    fn goals(&self) -> Vec<GoatBoard> {
        vec![self.goal()]
    }

    fn is_goal(&self, board: &GoatBoard) -> bool {
        *board == self.goal()
    }

    /// The seed's START position.
    fn start(&self) -> Option<GoatBoard> {
        Some(self.parse(START).expect("START is a valid position"))
    }

    fn rank(&self, board: &GoatBoard) -> u64 {
        let big = board.big_column();
        let mut bars = 0u32;
        let mut order = [0u8; DISTINCT];
        let (mut free, mut k) = (0, 0);
        for (cell, &piece) in board.cells.iter().enumerate() {
            if cell == big || cell == big + 1 {
                continue;
            }
            if piece == BAR {
                bars |= 1 << free;
            } else {
                order[k] = piece;
                k += 1;
            }
            free += 1;
        }
        big as u64 * PER_BIG_PLACE
            + combination::rank(bars) * factorial(DISTINCT)
            + permutation::rank(&order)
    }

    fn unrank(&self, index: u64) -> GoatBoard {
        let big = (index / PER_BIG_PLACE) as usize;
        let rest = index % PER_BIG_PLACE;
        let bars = combination::unrank(rest / factorial(DISTINCT), FREE_CELLS, 2);
        let mut order = [0u8; DISTINCT];
        permutation::unrank(rest % factorial(DISTINCT), &mut order);
        let mut cells = [0u8; CELLS];
        let (mut free, mut k) = (0, 0);
        for (cell, slot) in cells.iter_mut().enumerate() {
            if cell == big || cell == big + 1 {
                *slot = BIG;
                continue;
            }
            if bars & (1 << free) != 0 {
                *slot = BAR;
            } else {
                *slot = order[k];
                k += 1;
            }
            free += 1;
        }
        GoatBoard { cells }
    }

    fn successors(&self, board: &GoatBoard, out: &mut Vec<Successor<GoatBoard, char>>) {
        let blank = board.blank();
        for from in GRID.neighbours(blank) {
            let piece = board.cells[from];
            if piece == BIG {
                continue;
            }
            let mut next = *board;
            next.cells.swap(blank, from);
            out.push(Successor {
                moved: char::from(b'0' + piece),
                state: next,
            });
        }
        if blank < COLS
            && let Some((new_big, new_blank)) = big_piece_slide(board.big_column(), blank)
        {
            let mut next = *board;
            next.cells[new_big] = BIG;
            next.cells[new_big + 1] = BIG;
            next.cells[new_blank] = 0;
            out.push(Successor {
                moved: 'B',
                state: next,
            });
        }
    }

    fn parse(&self, text: &str) -> Result<GoatBoard, PositionError> {
        let tokens = notation::tokenize(text, true)?;
        let tokens = notation::cells_of_shape(tokens, 3, COLS)?;
        let mut cells = [0u8; CELLS];
        let mut counts = [0usize; 10];
        for (slot, token) in cells.iter_mut().zip(&tokens) {
            let piece = match *token {
                "." => 0,
                "B" | "b" => BIG,
                t => match t.parse::<u8>() {
                    Ok(v) if v <= 8 => v,
                    _ => return Err(PositionError::UnknownPiece(token.to_string())),
                },
            };
            counts[piece as usize] += 1;
            *slot = piece;
        }
        let name = |p: usize| match p {
            9 => "B".to_string(),
            p => p.to_string(),
        };
        let wanted = |piece: usize| {
            if piece == BAR as usize || piece == BIG as usize {
                2
            } else {
                1
            }
        };
        if let Some(piece) = (0..counts.len()).find(|&p| counts[p] > wanted(p)) {
            return Err(PositionError::Duplicate(name(piece)));
        }
        if let Some(piece) = (0..counts.len()).find(|&p| counts[p] < wanted(p)) {
            return Err(PositionError::Missing(name(piece)));
        }
        let big = cells.iter().position(|&c| c == BIG).unwrap_or(0);
        if big >= COLS - 1 || cells[big + 1] != BIG {
            return Err(PositionError::Malformed(
                "the big piece `B B` must cover two adjacent cells of the top row".into(),
            ));
        }
        Ok(GoatBoard { cells })
    }

    fn format_line(&self, board: &GoatBoard) -> String {
        board
            .cells
            .chunks(COLS)
            .map(|row| {
                row.iter()
                    .map(|&p| if p == BIG { 'B' } else { char::from(b'0' + p) })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        expand::expand_sorted(indices, visit);
    }

    fn render_board(&self, board: &GoatBoard) -> String {
        let mut text = String::new();
        for row in board.cells.chunks(COLS) {
            let mut col = 0;
            while col < COLS {
                if row[col] == BIG {
                    text.push_str("[BB]");
                    col += 2;
                } else {
                    text.push_str(symbol(row[col]));
                    col += 1;
                }
            }
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn index_space_and_goal() {
        let g = Goat;
        assert_eq!(g.index_count(), 5_443_200);
        let goal = g.goal();
        assert_eq!(g.unrank(g.rank(&goal)), goal);
        assert_eq!(
            g.format_line(&g.parse("67BB/4528/0831").unwrap()),
            "67BB/4528/0831"
        );
    }

    #[test]
    fn big_piece_moves() {
        let g = Goat;
        let board = g.parse("0BB1/2875/3846").unwrap();
        let mut succ = Vec::new();
        g.successors(&board, &mut succ);
        let lines: Vec<String> = succ.iter().map(|s| g.format_line(&s.state)).collect();
        assert!(lines.contains(&"BB01/2875/3846".to_string()), "{lines:?}");
        assert!(lines.contains(&"2BB1/0875/3846".to_string()), "{lines:?}");
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn bad_positions() {
        let g = Goat;
        assert!(matches!(
            g.parse("18BB/2075/384"),
            Err(PositionError::WrongSize { .. })
        ));
        assert!(matches!(
            g.parse("18BB/2075/3886"),
            Err(PositionError::Duplicate(_))
        ));
        assert!(matches!(
            g.parse("18BB/2075/3849"),
            Err(PositionError::UnknownPiece(_))
        ));
        assert!(matches!(
            g.parse("B18B/2075/3846"),
            Err(PositionError::Malformed(_))
        ));
        assert!(matches!(
            g.parse("18BB/2B75/3846"),
            Err(PositionError::Duplicate(_))
        ));
    }

    proptest! {
        #[test]
        fn ranking_moves_and_fast_expansion(seed in any::<u64>()) {
            crate::puzzle::assert_consistent_at(&Goat, seed % Goat.index_count());
        }
    }
}
