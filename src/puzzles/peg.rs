//! Peg solitaire on any board: a peg jumps over a neighbouring peg into the empty hole
//! beyond, and the jumped peg is removed. A MOVE is one peg's chain of consecutive
//! jumps, so `[10,0,2,6]` is one move of three jumps (the seeds' count).
//!
//! Boards come from description files ([`description`]: the board drawn in TOML, its
//! lattice, start and goal); the shipped ones ([`library`]) run by name. A board is a
//! bit mask of pegs (hole `i` is bit `i`, holes numbered row by row in the drawing).
//!
//! Jumps cannot be undone, so there is no single ranked state space: a board with k
//! pegs is a k-subset of the holes, ranked among the boards with k pegs
//! ([`crate::rank::subsets`]), and the searches go level by level, one level per jump,
//! each level a bit set of `C(holes, k)` entries ([`crate::solvers::peg::levels`]). The
//! same levels run backwards from the goal (a reversed jump puts two pegs back) give,
//! per peg count, the boards that can still be solved: the pruning of
//! the optimal solver ([`crate::solvers::peg::moves`]) and the table files of [`crate::solvers::peg::table`].
//! This module holds the rules, the ranking and the notation; the searches are in
//! [`crate::solvers::peg`].

pub mod description;
pub mod library;
pub mod symmetry;

use crate::puzzle::PositionError;

/// Boards up to this many holes are solved by iterative deepening over jumps (every
/// solution with `--all`) and analysed by moves too; larger ones by a breadth-first
/// search over moves (one solution).
pub const MOVE_LEVELS_MAX_HOLES: usize = 20;

/// What the puzzle asks for at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PegGoal {
    /// One peg left, anywhere.
    OnePeg,
    /// One peg left, in this hole.
    Hole(u8),
    /// Exactly this board.
    Board(u64),
}

/// A jump as masks: the pegs it needs (`from` and `over`) and the hole it lands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JumpMask {
    pegs: u64,
    land: u64,
}

impl JumpMask {
    /// The board after the jump if it is legal on `board`.
    #[inline(always)]
    pub(crate) fn forward(self, board: u64) -> Option<u64> {
        (board & self.pegs == self.pegs && board & self.land == 0)
            .then_some(board ^ (self.pegs | self.land))
    }

    /// The board before the jump if `board` can be its result.
    #[inline(always)]
    fn backward(self, board: u64) -> Option<u64> {
        (board & self.land != 0 && board & self.pegs == 0)
            .then_some(board ^ (self.pegs | self.land))
    }
}

/// Why a peg solitaire board could not be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PegError {
    /// Large boards are solved by breadth-first search over moves: one solution.
    #[error(
        "{0} has more than {MOVE_LEVELS_MAX_HOLES} holes: it is solved by breadth-first \
         search over moves, one solution (not every one)"
    )]
    OneSolutionOnly(String),
    /// The fixed first jump is not legal on the board.
    #[error("the first jump {0}-{1} is not a legal jump on this board")]
    IllegalFirst(u8, u8),
    /// No solution within the limit (iterative deepening).
    #[error("no solution of at most {0} moves from this board")]
    TooDeep(u32),
    /// The goal cannot be reached at all.
    #[error("the goal ({0}) cannot be reached from this board")]
    Unreachable(String),
    /// The search was stopped (its checkpoint, if any, holds the levels done).
    #[error(transparent)]
    Interrupted(#[from] crate::driver::Interrupted),
    /// A checkpoint could not be written.
    #[error("{0}")]
    Checkpoint(String),
    /// The level sets do not fit in memory.
    #[error("{0}")]
    TooLarge(String),
}

/// A jump sequence grouped into moves: each move is the holes its peg visits.
pub type PegSolution = Vec<Vec<u8>>;

/// A peg solitaire board: its holes and jumps, its start and its goal.
#[derive(Debug, Clone)]
pub struct PegBoard {
    name: String,
    title: String,
    source: String,
    /// (row, column) of every hole in the drawing.
    places: Vec<(i32, i32)>,
    /// The lattice's lines of jumps, one step each.
    lines: Vec<(i32, i32)>,
    /// For every hole, the jumps `(over, to)` from it.
    jumps: Vec<Vec<(u8, u8)>>,
    by_from: Vec<Vec<JumpMask>>,
    by_land: Vec<Vec<JumpMask>>,
    start: u64,
    goal: PegGoal,
}

impl PegBoard {
    /// The board with its jump masks indexed (by the hole a jump leaves and the hole
    /// it lands in) from its jump lists: the last step of [`description::parse`].
    fn with_jump_masks(mut self) -> PegBoard {
        let holes = self.places.len();
        self.by_from = vec![Vec::new(); holes];
        self.by_land = vec![Vec::new(); holes];
        for (from, list) in self.jumps.iter().enumerate() {
            for &(over, to) in list {
                let mask = JumpMask {
                    pegs: 1 << from | 1 << over,
                    land: 1 << to,
                };
                self.by_from[from].push(mask);
                self.by_land[to as usize].push(mask);
            }
        }
        self
    }

    /// A board from a description's text; `file` names it in errors.
    ///
    /// # Errors
    /// [`crate::puzzles::description::DescriptionError`] naming the line of the first
    /// thing that is not valid.
    ///
    /// ```
    /// use antipode::puzzles::peg::PegBoard;
    ///
    /// let text = "name = \"row5\"\nlattice = \"square\"\nboard = \"oo.o.\"\n";
    /// let board = PegBoard::from_text("row5.toml", text).unwrap();
    /// assert_eq!(board.holes(), 5);
    /// // One move: the peg on hole 0 jumps twice, to hole 4.
    /// let (moves, solutions) =
    ///     antipode::solvers::peg::solutions(&board, board.start(), None, false, 10).unwrap();
    /// assert_eq!(moves, 1);
    /// assert_eq!(solutions, [[[0, 2, 4]]]);
    /// ```
    pub fn from_text(
        file: &str,
        text: &str,
    ) -> Result<PegBoard, crate::puzzles::description::DescriptionError> {
        description::parse(file, text)
    }

    /// The shipped board named `name` ([`library::SHIPPED`]).
    #[must_use]
    pub fn shipped(name: &str) -> Option<PegBoard> {
        let (file, text) = library::shipped(name)?;
        Some(description::parse(file, text).expect("shipped descriptions are valid"))
    }

    /// The board's command-line name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A readable title.
    #[must_use]
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Where the board comes from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The number of holes.
    #[must_use]
    pub fn holes(&self) -> usize {
        self.places.len()
    }

    /// Every hole filled.
    #[must_use]
    pub fn full(&self) -> u64 {
        u64::MAX >> (64 - self.holes())
    }

    /// The start as drawn in the description.
    #[must_use]
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The goal.
    #[must_use]
    pub fn goal(&self) -> PegGoal {
        self.goal
    }

    /// The same board with another goal.
    #[must_use]
    pub fn with_goal(mut self, goal: PegGoal) -> PegBoard {
        self.goal = goal;
        self
    }

    /// The same board with another start.
    #[must_use]
    pub fn with_start(mut self, start: u64) -> PegBoard {
        self.start = start;
        self
    }

    /// Whether `board` is a goal board.
    #[inline]
    #[must_use]
    pub fn is_goal(&self, board: u64) -> bool {
        match self.goal {
            PegGoal::OnePeg => board.count_ones() == 1,
            PegGoal::Hole(hole) => board == 1 << hole,
            PegGoal::Board(goal) => board == goal,
        }
    }

    /// The pegs a goal board has.
    #[must_use]
    pub fn goal_pegs(&self) -> u32 {
        match self.goal {
            PegGoal::OnePeg | PegGoal::Hole(_) => 1,
            PegGoal::Board(goal) => goal.count_ones(),
        }
    }

    /// Every goal board.
    #[must_use]
    pub fn goal_boards(&self) -> Vec<u64> {
        match self.goal {
            PegGoal::OnePeg => (0..self.holes()).map(|h| 1u64 << h).collect(),
            PegGoal::Hole(hole) => vec![1 << hole],
            PegGoal::Board(goal) => vec![goal],
        }
    }

    /// The goal in words: `one peg`, `one peg in hole 16`, or the board.
    #[must_use]
    pub fn goal_text(&self) -> String {
        match self.goal {
            PegGoal::OnePeg => "one peg".into(),
            PegGoal::Hole(hole) => format!("one peg in hole {hole}"),
            PegGoal::Board(goal) => self.format(goal),
        }
    }

    /// The canonical definition: what a table's digest is taken of.
    #[must_use]
    pub fn definition(&self) -> String {
        let places: Vec<String> = self
            .places
            .iter()
            .map(|(r, c)| format!("{r},{c}"))
            .collect();
        let jumps: Vec<String> = self
            .jumps
            .iter()
            .enumerate()
            .flat_map(|(from, list)| {
                list.iter()
                    .map(move |(over, to)| format!("{from}-{over}-{to}"))
            })
            .collect();
        format!(
            "peg solitaire\nholes {}\njumps {}\ngoal {}\n",
            places.join(" "),
            jumps.join(" "),
            self.goal_text()
        )
    }

    /// Reads a goal: `one-peg`, a hole number, or a board.
    ///
    /// # Errors
    /// [`PositionError`] if the text is neither a board nor a goal in words.
    pub fn parse_goal(&self, text: &str) -> Result<PegGoal, PositionError> {
        let text = text.trim();
        if text == "one-peg" {
            return Ok(PegGoal::OnePeg);
        }
        // A hole number is written without leading zeros and is shorter than a board
        // (`0000000000000` is Hoppers' empty board, not hole 0).
        if let Ok(hole) = text.parse::<usize>()
            && text == hole.to_string()
            && text.len() < self.holes()
        {
            return if hole < self.holes() {
                Ok(PegGoal::Hole(hole as u8))
            } else {
                Err(PositionError::Malformed(format!(
                    "hole {hole}: the board has {} holes, 0 to {}",
                    self.holes(),
                    self.holes() - 1
                )))
            };
        }
        let board = self.parse(text)?;
        if board == 0 {
            return Err(PositionError::Malformed("a goal needs a peg".into()));
        }
        Ok(PegGoal::Board(board))
    }

    /// Reads a board: one mark per hole in hole order, `1` or `o` a peg, `0` or `.`
    /// empty; spaces and `/` are ignored.
    ///
    /// # Errors
    /// [`PositionError`] if the text is not a board of this puzzle.
    pub fn parse(&self, text: &str) -> Result<u64, PositionError> {
        let marks: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '/')
            .collect();
        if marks.len() != self.holes() {
            return Err(PositionError::WrongSize {
                expected: format!(
                    "{} holes ({} of `1`/`o` for a peg, `0`/`.` for empty)",
                    self.holes(),
                    self.name
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
    #[must_use]
    pub fn format(&self, board: u64) -> String {
        (0..self.holes())
            .map(|hole| if board >> hole & 1 == 1 { '1' } else { '0' })
            .collect()
    }

    /// The board drawn as its description draws it: `o` a peg, `.` an empty hole.
    ///
    /// ```
    /// use antipode::puzzles::peg::PegBoard;
    ///
    /// let board = PegBoard::shipped("triangle15").unwrap();
    /// assert_eq!(board.draw(board.start()).lines().next(), Some("    ."));
    /// ```
    #[must_use]
    pub fn draw(&self, board: u64) -> String {
        self.drawing(1, |hole| {
            if board >> hole & 1 == 1 { "o" } else { "." }.to_string()
        })
    }

    /// The holes' numbers drawn where the holes are (the numbers that positions,
    /// `--first` and the jumps `[from,to]` use: row by row, from 0).
    ///
    /// ```
    /// use antipode::puzzles::peg::PegBoard;
    ///
    /// let hoppers = PegBoard::shipped("hoppers").unwrap();
    /// assert_eq!(hoppers.draw_holes().lines().nth(1), Some("     3     4"));
    /// ```
    #[must_use]
    pub fn draw_holes(&self) -> String {
        self.drawing(3, |hole| hole.to_string())
    }

    /// The holes' places, `width` characters per column of the description, each
    /// filled with `mark(hole)` right-aligned.
    fn drawing(&self, width: usize, mark: impl Fn(usize) -> String) -> String {
        let rows = self.places.iter().map(|p| p.0);
        let cols = self.places.iter().map(|p| p.1);
        let (Some(top), Some(left)) = (rows.clone().min(), cols.clone().min()) else {
            return String::new();
        };
        let (bottom, right) = (rows.max().unwrap_or(top), cols.max().unwrap_or(left));
        let mut text = String::new();
        for row in top..=bottom {
            let mut line = String::new();
            for col in left..=right {
                let cell = match self.places.iter().position(|&p| p == (row, col)) {
                    Some(hole) => mark(hole),
                    None => String::new(),
                };
                line.push_str(&format!("{cell:>width$}"));
            }
            text.push_str(line.trim_end());
            text.push('\n');
        }
        text
    }

    /// Calls `f` with every board one jump after `board`: the jumps from its pegs or
    /// the jumps into its empty holes, whichever are fewer.
    #[inline]
    pub fn for_each_jump(&self, board: u64, mut f: impl FnMut(u64)) {
        let empty = self.full() & !board;
        if board.count_ones() <= empty.count_ones() {
            legal_jumps(&self.by_from, board, board, &mut f);
        } else {
            legal_jumps(&self.by_land, empty, board, &mut f);
        }
    }

    /// Calls `f` with every board from which one jump leads to `board`.
    #[inline]
    pub fn for_each_unjump(&self, board: u64, mut f: impl FnMut(u64)) {
        let mut pegs = board;
        while pegs != 0 {
            let to = pegs.trailing_zeros() as usize;
            pegs &= pegs - 1;
            for jump in &self.by_land[to] {
                if let Some(before) = jump.backward(board) {
                    f(before);
                }
            }
        }
    }

    /// The jumps from hole `from`: where each lands, and its masks.
    pub(crate) fn jumps_from(&self, from: u8) -> impl Iterator<Item = (u8, JumpMask)> + '_ {
        self.jumps[from as usize]
            .iter()
            .zip(&self.by_from[from as usize])
            .map(|(&(_, to), &mask)| (to, mask))
    }

    /// The board after a peg on `from` jumps to `to`, if that is a legal jump.
    #[must_use]
    pub fn jump(&self, board: u64, from: u8, to: u8) -> Option<u64> {
        let (list, masks) = (self.jumps.get(from as usize)?, &self.by_from[from as usize]);
        list.iter()
            .zip(masks)
            .filter(|((_, t), _)| *t == to)
            .find_map(|(_, jump)| jump.forward(board))
    }
}

/// Calls `f` with the board after every jump of `lists[h]`, for the holes `h` of
/// `holes`, that is legal on `board`. Inlined into each caller, so each of
/// [`PegBoard::for_each_jump`]'s two cases gets its own loop.
#[inline(always)]
fn legal_jumps(lists: &[Vec<JumpMask>], holes: u64, board: u64, f: &mut impl FnMut(u64)) {
    let mut rest = holes;
    while rest != 0 {
        let hole = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        for jump in &lists[hole] {
            if let Some(next) = jump.forward(board) {
                f(next);
            }
        }
    }
}

/// A solution in the seed's notation: `[0,6][9,3][2,0,6]...`.
#[must_use]
pub fn notation(solution: &PegSolution) -> String {
    solution
        .iter()
        .map(|chain| {
            let holes: Vec<String> = chain.iter().map(u8::to_string).collect();
            format!("[{}]", holes.join(","))
        })
        .collect()
}

/// The largest bit sets of two adjacent levels between `low` and `high` pegs, in bytes.
#[must_use]
pub fn two_levels_bytes(holes: usize, low: u32, high: u32) -> u64 {
    let level_bytes = |p: u32| crate::rank::binomial(holes, p as usize).div_ceil(64) * 8;
    (low..high)
        .map(|p| level_bytes(p) + level_bytes(p + 1))
        .max()
        .unwrap_or_else(|| level_bytes(low))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 004's jump table: from -> (over, to).
    const SEED_HOPPERS: [&[(u8, u8)]; 13] = [
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

    fn sorted(list: &[(u8, u8)]) -> Vec<(u8, u8)> {
        let mut v = list.to_vec();
        v.sort();
        v
    }

    #[test]
    fn hoppers_description_has_the_seeds_jumps() {
        let b = PegBoard::shipped("hoppers").unwrap();
        assert_eq!(b.holes(), 13);
        for (from, seed) in SEED_HOPPERS.iter().enumerate() {
            assert_eq!(sorted(&b.jumps[from]), sorted(seed), "hole {from}");
        }
        assert_eq!(b.start(), b.full() & !(1 << 6));
        assert!(b.is_goal(1 << 6) && !b.is_goal(1 << 5));
    }

    #[test]
    fn english_board_geometry() {
        let b = PegBoard::shipped("english33").unwrap();
        assert_eq!(b.holes(), 33);
        assert_eq!(b.jumps.iter().map(Vec::len).sum::<usize>(), 76);
        let mut first = Vec::new();
        b.for_each_jump(b.start(), |next| first.push(next));
        assert_eq!(first.len(), 4);
        assert!(first.iter().all(|&n| n & 1 << 16 != 0));
    }

    #[test]
    fn every_shipped_board_has_reversible_jumps() {
        for &(name, _, _) in library::SHIPPED {
            let b = PegBoard::shipped(name).unwrap();
            for (from, jumps) in b.jumps.iter().enumerate() {
                for &(over, to) in jumps {
                    assert!(b.jumps[to as usize].contains(&(over, from as u8)), "{name}");
                }
            }
        }
        let t = PegBoard::shipped("triangle15").unwrap();
        // Six directions inside, two from a corner: 36 jumps on the 15-hole triangle.
        assert_eq!(t.jumps.iter().map(Vec::len).sum::<usize>(), 36);
        assert_eq!(t.jumps[0].len(), 2);
        assert_eq!(PegBoard::shipped("french37").unwrap().holes(), 37);
        assert_eq!(PegBoard::shipped("wiegleb45").unwrap().holes(), 45);
    }

    #[test]
    fn jumps_and_unjumps_are_inverse() {
        let b = PegBoard::shipped("english33").unwrap();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..500 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let board = (seed >> 7) & b.full();
            b.for_each_jump(board, |next| {
                let mut back = Vec::new();
                b.for_each_unjump(next, |before| back.push(before));
                assert!(back.contains(&board));
            });
            b.for_each_unjump(board, |before| {
                let mut forward = Vec::new();
                b.for_each_jump(before, |next| forward.push(next));
                assert!(forward.contains(&board));
            });
        }
    }

    #[test]
    fn positions_of_any_board() {
        let hoppers = PegBoard::shipped("hoppers").unwrap();
        assert_eq!(hoppers.parse("1111 11011 1111"), Ok(hoppers.start()));
        assert_eq!(hoppers.format(hoppers.start()), "1111110111111");
        // Holes as drawn: the alternate places of a 5 x 5 grid, row by row.
        assert_eq!(
            hoppers.places,
            [
                (0, 0),
                (0, 2),
                (0, 4),
                (1, 1),
                (1, 3),
                (2, 0),
                (2, 2),
                (2, 4),
                (3, 1),
                (3, 3),
                (4, 0),
                (4, 2),
                (4, 4)
            ]
        );
        assert!(matches!(
            hoppers.parse("1111"),
            Err(PositionError::WrongSize { .. })
        ));
        assert!(matches!(
            hoppers.parse("111111x111111"),
            Err(PositionError::UnknownPiece(_))
        ));
        assert_eq!(hoppers.parse_goal("one-peg"), Ok(PegGoal::OnePeg));
        assert_eq!(hoppers.parse_goal("12"), Ok(PegGoal::Hole(12)));
        assert!(hoppers.parse_goal("13").is_err());
        // A board of zeros is a board (with no peg), not hole 0.
        assert_eq!(
            hoppers.parse_goal("0000000000000"),
            Err(PositionError::Malformed("a goal needs a peg".into()))
        );
        assert_eq!(
            hoppers.parse_goal("0000000000001"),
            Ok(PegGoal::Board(hoppers.parse("0000000000001").unwrap()))
        );
    }
}
