//! Goal sets (a multi-source BFS) and index spaces that are mostly unreachable, on two
//! test puzzles built from the real sliding boards: the engine, the stores, descent,
//! tables and verification must handle both.

use antipode::driver::Control;
use std::sync::atomic::{AtomicU64, Ordering};

use antipode::analysis::analyze;
use antipode::engine::{self, Direction, Observer};
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::sliding::Board;
use antipode::store::{Encoding, PackedDepths};
use antipode::table::{self, Table};
use antipode::{Notation, PositionError, Puzzle, Segment, Successor};

use crate::figures::reference_histogram;

/// A sliding board whose goal set is every board with the tiles in order, the blank
/// anywhere (on 3 columns all of them share the goal's parity class).
struct BlankAnywhere(SlidingPuzzle);

impl BlankAnywhere {
    fn goal_boards(&self) -> Vec<Board> {
        let n = self.0.rows() * self.0.cols();
        (0..n)
            .map(|blank| {
                let mut tiles = (1..n as u8).collect::<Vec<u8>>();
                tiles.insert(blank, 0);
                Board::from_cells(&tiles)
            })
            .collect()
    }
}

impl Notation for BlankAnywhere {
    type State = Board;

    fn name(&self) -> String {
        format!("{}-blank-anywhere", self.0.name())
    }

    fn parse(&self, text: &str) -> Result<Board, PositionError> {
        self.0.parse(text)
    }

    fn format_line(&self, state: &Board) -> String {
        self.0.format_line(state)
    }

    fn render_board(&self, state: &Board) -> String {
        self.0.render_board(state)
    }
}

impl Puzzle for BlankAnywhere {
    type Move = u8;

    fn index_count(&self) -> u64 {
        self.0.index_count()
    }
    fn max_neighbours(&self) -> usize {
        4
    }
    fn goals(&self) -> Vec<Board> {
        self.goal_boards()
    }
    fn is_goal(&self, state: &Board) -> bool {
        self.goal_boards().contains(state)
    }
    fn rank(&self, state: &Board) -> u64 {
        self.0.rank(state)
    }
    fn unrank(&self, index: u64) -> Board {
        self.0.unrank(index)
    }
    fn successors(&self, state: &Board, out: &mut Vec<Successor<Board, u8>>) {
        self.0.successors(state, out)
    }
    fn segments(&self) -> Vec<Segment> {
        self.0.segments()
    }
    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        self.0.expand_sorted(indices, visit)
    }
}

/// `copies` disjoint copies of a board's index space; only copy 0 holds the goal, so
/// all but 1/copies of the indices are legal states that can never be reached.
struct Copies {
    board: SlidingPuzzle,
    copies: u64,
}

impl Notation for Copies {
    type State = (u64, Board);

    fn name(&self) -> String {
        format!("{}x{}-copies", self.board.name(), self.copies)
    }

    fn parse(&self, text: &str) -> Result<(u64, Board), PositionError> {
        let (copy, board) = text
            .split_once(':')
            .ok_or_else(|| PositionError::Malformed("COPY:BOARD".into()))?;
        let copy = copy
            .parse()
            .map_err(|_| PositionError::Malformed("COPY:BOARD".into()))?;
        Ok((copy, self.board.parse(board)?))
    }

    fn format_line(&self, (copy, board): &(u64, Board)) -> String {
        format!("{copy}:{}", self.board.format_line(board))
    }

    fn render_board(&self, (_, board): &(u64, Board)) -> String {
        self.board.render_board(board)
    }
}

impl Puzzle for Copies {
    type Move = u8;

    fn index_count(&self) -> u64 {
        self.board.index_count() * self.copies
    }
    fn max_neighbours(&self) -> usize {
        4
    }
    fn goals(&self) -> Vec<(u64, Board)> {
        vec![(0, self.board.goal())]
    }
    fn is_goal(&self, state: &(u64, Board)) -> bool {
        *state == (0, self.board.goal())
    }
    fn rank(&self, (copy, board): &(u64, Board)) -> u64 {
        copy * self.board.index_count() + self.board.rank(board)
    }
    fn unrank(&self, index: u64) -> (u64, Board) {
        let n = self.board.index_count();
        (index / n, self.board.unrank(index % n))
    }
    fn successors(&self, (copy, board): &(u64, Board), out: &mut Vec<Successor<(u64, Board), u8>>) {
        let mut inner = Vec::new();
        self.board.successors(board, &mut inner);
        out.extend(inner.into_iter().map(|s| Successor {
            moved: s.moved,
            state: (*copy, s.state),
        }));
    }
    fn segments(&self) -> Vec<Segment> {
        let n = self.board.index_count();
        (0..self.copies)
            .flat_map(|copy| {
                self.board.segments().into_iter().map(move |s| Segment {
                    indices: s.indices.start + copy * n..s.indices.end + copy * n,
                    colour: s.colour,
                })
            })
            .collect()
    }
    fn expand_sorted(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        let n = self.board.index_count();
        let mut local = Vec::new();
        let mut shifted = Vec::new();
        for run in indices.chunk_by(|a, b| a / n == b / n) {
            let base = run[0] / n * n;
            local.clear();
            local.extend(run.iter().map(|i| i - base));
            self.board.expand_sorted(&local, |i, neighbours| {
                shifted.clear();
                shifted.extend(neighbours.iter().map(|m| m + base));
                visit(i + base, &shifted);
            });
        }
    }
}

/// Counts the work items the engine visits.
#[derive(Default)]
struct WorkCounter {
    units: AtomicU64,
    bottom_up_levels: AtomicU64,
}

impl Observer for WorkCounter {
    fn level_started(&self, _depth: u32, direction: Direction, work_units: u64) {
        self.units.fetch_add(work_units, Ordering::Relaxed);
        if direction == Direction::BottomUp {
            self.bottom_up_levels.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[test]
fn a_goal_set_is_depth_zero_of_a_multi_source_search() {
    let puzzle = BlankAnywhere(SlidingPuzzle::new(3, 3).unwrap());
    let a = analyze(&puzzle, 0, &Control::default()).unwrap();
    assert_eq!(a.goal_states, 9);
    assert_eq!(a.histogram[0], 9);
    assert_eq!(a.histogram, reference_histogram(&puzzle));
    assert_eq!(a.reachable, 181_440);
    // Nearest goal: never farther than from the one usual goal.
    assert!(a.gods_number < 31);
}

#[test]
fn descent_and_tables_stop_at_any_goal() {
    let puzzle = BlankAnywhere(SlidingPuzzle::new(3, 3).unwrap());
    let (exact, _) = antipode::analysis::search(&puzzle, &Control::default()).unwrap();
    let packed = PackedDepths::anonymous(puzzle.index_count()).unwrap();
    engine::search(&puzzle, &packed, &Control::default()).unwrap();
    for index in (0..puzzle.index_count()).step_by(101) {
        let d = exact.depth(index).unwrap();
        assert_eq!(antipode::descent::distance(&puzzle, &packed, index), Ok(d));
        let path = antipode::descent::solve(&puzzle, &packed, &puzzle.unrank(index)).unwrap();
        assert_eq!(path.len() as u32, d);
        let end = path.last().map_or(puzzle.unrank(index), |s| s.state);
        assert!(puzzle.is_goal(&end), "index {index} ends off the goal set");
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.table");
    let options = table::BuildOptions {
        encoding: Encoding::Mod3,
        ..Default::default()
    };
    table::build(&puzzle, &path, &options, &Control::default()).unwrap();
    let table = Table::open(&path).unwrap();
    assert_eq!(table.header().goal, "9 goal states");
    assert!(table::verify(&table, &puzzle).iter().all(|c| c.ok));
    let position = puzzle.parse("867254301").unwrap();
    assert_eq!(
        table.distance(&puzzle, &position).unwrap(),
        exact.depth(puzzle.rank(&position)).unwrap()
    );
    // The same board with its usual single goal is another puzzle.
    let usual = SlidingPuzzle::new(3, 3).unwrap();
    let refused = table.distance(&usual, &position).unwrap_err().to_string();
    assert!(refused.contains("this table is for"), "{refused}");
}

#[test]
fn unreachable_indices_stay_apart_and_cost_no_work() {
    let board = SlidingPuzzle::new(2, 5).unwrap();
    let single = WorkCounter::default();
    let alone = analyze(&board, 0, &Control::new(&single, None)).unwrap();
    let sixteen = Copies {
        board: board.clone(),
        copies: 16,
    };
    let many = WorkCounter::default();
    let a = analyze(&sixteen, 0, &Control::new(&many, None)).unwrap();
    assert_eq!(a.indices, 16 * 1_814_400);
    assert_eq!(a.reachable, 1_814_400);
    assert_eq!(a.histogram, alone.histogram);
    assert_eq!(a.antipode_count, 2);
    assert!(a.antipodes.iter().all(|line| line.starts_with("0:")));
    // Top-down levels visit only the chunks that hold the frontier, and no level scans
    // the fifteen unreachable copies bottom-up: the work does not grow with them.
    assert_eq!(many.bottom_up_levels.load(Ordering::Relaxed), 0);
    let units = |c: &WorkCounter| c.units.load(Ordering::Relaxed);
    assert!(
        units(&many) <= 2 * units(&single),
        "{} work items with 16 copies, {} alone",
        units(&many),
        units(&single)
    );

    // The same with depths mod 3, where levels are counted by scanning.
    let mut packed = PackedDepths::anonymous(sixteen.index_count()).unwrap();
    let histogram = engine::search(&sixteen, &packed, &Control::default()).unwrap();
    assert_eq!(histogram.0, alone.histogram);
    let summary = antipode::analysis::summarize(
        &sixteen,
        &mut packed,
        histogram,
        None,
        0,
        std::time::Instant::now(),
    );
    assert_eq!(summary.antipodes, a.antipodes);
}
