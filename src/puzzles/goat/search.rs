//! IDA* for Goat (seed 001).
//!
//! The bound is the seed's improved one: the sum over pieces of the Manhattan distance
//! to their goal cells, plus the big piece's horizontal distance, with the two `─`
//! pieces told apart. They can be told apart because the parity of the pieces' order
//! along the snake path through the board (bottom row left to right, middle row right
//! to left, top row left to right; blank skipped, big piece as two entries) never
//! changes: a horizontal move keeps the order, and a vertical move carries a piece past
//! an even number of cells. So in any position exactly one assignment of the goal's
//! "upper" and "lower" `─` to the two `─` pieces is consistent, and the distance of each
//! to its own goal cell counts. It is admissible: a move moves one piece by one cell,
//! changing the sum by at most one. It is at least the bound that sends each `─` to the
//! nearer goal cell (the seed's first bound), since each term is at least that.

use super::{BAR, BIG, CELLS, COLS, GRID, Goat, GoatBoard, big_piece_slide};
use crate::solve::{SearchSpace, Solvable};
/// Internal label of the `─` that ends on the lower goal cell.
const LOWER_BAR: u8 = 11;
/// Internal labels of the big piece's left and right halves.
const BIG_LEFT: u8 = 9;
const BIG_RIGHT: u8 = 10;
/// The snake path through the board.
const SNAKE: [usize; CELLS] = [8, 9, 10, 11, 7, 6, 5, 4, 0, 1, 2, 3];

/// A move: the piece that moved (internal label; both `─` print as 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoatMove(u8);

impl std::fmt::Display for GoatMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            LOWER_BAR => write!(f, "8"),
            BIG_LEFT | BIG_RIGHT => write!(f, "B"),
            p => write!(f, "{p}"),
        }
    }
}

/// A Goat board with the two `─` told apart, its blank and its bound.
#[derive(Debug, Clone)]
pub struct GoatNode {
    cells: [u8; CELLS],
    blank: u8,
    bound: u8,
}

/// Goat as a search space.
pub struct GoatSpace {
    goal: [u8; CELLS],
    /// `distance[piece][cell]`, 0 for plain iterative deepening.
    distance: [[u8; CELLS]; 12],
}

fn labelled(board: &GoatBoard, lower_first: bool) -> [u8; CELLS] {
    let mut cells = board.cells;
    let mut first = true;
    let mut big_seen = false;
    for cell in cells.iter_mut() {
        if *cell == BAR {
            if first == lower_first {
                *cell = LOWER_BAR;
            }
            first = false;
        } else if *cell == BIG {
            *cell = if big_seen { BIG_RIGHT } else { BIG_LEFT };
            big_seen = true;
        }
    }
    cells
}

fn snake_parity(cells: &[u8; CELLS]) -> u32 {
    let order: Vec<u8> = SNAKE
        .iter()
        .map(|&c| cells[c])
        .filter(|&p| p != 0)
        .collect();
    let mut inversions = 0;
    for i in 0..order.len() {
        for j in i + 1..order.len() {
            inversions += (order[i] > order[j]) as u32;
        }
    }
    inversions & 1
}

impl GoatSpace {
    /// The space for reaching `goal`; `bounded` false gives the plain iterative
    /// deepening.
    pub fn new(goal: &GoatBoard, bounded: bool) -> GoatSpace {
        // In the goal, the upper `─` keeps label 8, the lower one becomes 11.
        let goal = labelled(goal, false);
        let mut distance = [[0u8; CELLS]; 12];
        if bounded {
            for (home, &piece) in goal.iter().enumerate() {
                if piece == 0 || piece == BIG_RIGHT {
                    continue;
                }
                for (cell, d) in distance[piece as usize].iter_mut().enumerate() {
                    *d = if piece == BIG_LEFT {
                        // The big piece only moves along the top row.
                        (cell % COLS).abs_diff(home % COLS) as u8
                    } else {
                        GRID.manhattan(cell, home) as u8
                    };
                }
            }
        }
        GoatSpace { goal, distance }
    }

    /// The position of a node.
    pub fn board(&self, node: &GoatNode) -> GoatBoard {
        let mut cells = node.cells;
        for cell in cells.iter_mut() {
            *cell = match *cell {
                LOWER_BAR => BAR,
                BIG_LEFT | BIG_RIGHT => BIG,
                p => p,
            };
        }
        GoatBoard { cells }
    }

    /// The node of a position, with its `─` labelled consistently with the goal.
    pub fn node(&self, board: &GoatBoard) -> GoatNode {
        let want = snake_parity(&self.goal);
        let mut cells = labelled(board, false);
        if snake_parity(&cells) != want {
            cells = labelled(board, true);
        }
        let bound: u32 = cells
            .iter()
            .enumerate()
            .map(|(cell, &p)| self.distance[p as usize][cell] as u32)
            .sum();
        GoatNode {
            cells,
            blank: cells.iter().position(|&p| p == 0).unwrap_or(0) as u8,
            bound: bound as u8,
        }
    }
}

impl SearchSpace for GoatSpace {
    type Node = GoatNode;
    type Move = GoatMove;

    fn bound(&self, node: &GoatNode) -> u32 {
        node.bound as u32
    }

    fn is_goal(&self, node: &GoatNode) -> bool {
        node.cells == self.goal
    }

    fn for_each_child(
        &self,
        node: &mut GoatNode,
        last: Option<GoatMove>,
        mut visit: impl FnMut(GoatMove, &mut GoatNode, u32) -> bool,
    ) -> bool {
        let (blank, bound) = (node.blank as usize, node.bound);
        let big_last = matches!(last, Some(GoatMove(BIG_LEFT | BIG_RIGHT)));
        for from in GRID.neighbours(blank) {
            let piece = node.cells[from];
            if piece == BIG_LEFT || piece == BIG_RIGHT || Some(GoatMove(piece)) == last {
                continue;
            }
            let d = &self.distance[piece as usize];
            node.cells[blank] = piece;
            node.cells[from] = 0;
            node.blank = from as u8;
            node.bound = bound + d[blank] - d[from];
            let done = visit(GoatMove(piece), node, node.bound as u32);
            node.cells[from] = piece;
            node.cells[blank] = 0;
            node.blank = blank as u8;
            node.bound = bound;
            if done {
                return true;
            }
        }
        if blank < COLS && !big_last {
            let big = node.cells[..COLS]
                .iter()
                .position(|&p| p == BIG_LEFT)
                .expect("the big piece is on the top row");
            if let Some((new_big, new_blank)) = big_piece_slide(big, blank) {
                let d = &self.distance[BIG_LEFT as usize];
                let mut child = node.clone();
                child.cells[new_big] = BIG_LEFT;
                child.cells[new_big + 1] = BIG_RIGHT;
                child.cells[new_blank] = 0;
                child.blank = new_blank as u8;
                child.bound = bound + d[new_big] - d[big];
                let bound = child.bound as u32;
                return visit(GoatMove(BIG_LEFT), &mut child, bound);
            }
        }
        false
    }
}

impl Solvable for Goat {
    type Space = GoatSpace;

    fn search_space(&self, bounded: bool) -> GoatSpace {
        GoatSpace::new(&self.goal(), bounded)
    }

    fn node(space: &GoatSpace, state: &GoatBoard) -> GoatNode {
        space.node(state)
    }

    fn state(space: &GoatSpace, node: &GoatNode) -> GoatBoard {
        space.board(node)
    }
}
