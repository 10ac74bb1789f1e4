//! The 2-bit store (depths mod 3) does about the work of the exact one: recent marks tell its
//! frontier from older levels with the same code, with colour classes (bipartite
//! puzzles) and without (sliding blocks), and its last level is known without descent.

use std::sync::atomic::{AtomicU64, Ordering};

use antipode::driver::{self, Control};
use antipode::engine::Bfs;
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::blocks::{BlockPuzzle, library};
use antipode::store::{ByteDepths, DepthRead, DepthStore, PackedDepths};
use antipode::{Notation, PositionError, Puzzle, Segment, Successor};

/// `P`, counting the states the engine expands.
struct Counted<P> {
    puzzle: P,
    expanded: AtomicU64,
}

impl<P: Puzzle> Notation for Counted<P> {
    type State = P::State;

    fn name(&self) -> String {
        self.puzzle.name()
    }

    fn parse(&self, text: &str) -> Result<P::State, PositionError> {
        self.puzzle.parse(text)
    }

    fn format_line(&self, state: &P::State) -> String {
        self.puzzle.format_line(state)
    }

    fn render_board(&self, state: &P::State) -> String {
        self.puzzle.render_board(state)
    }
}

impl<P: Puzzle> Puzzle for Counted<P> {
    type Move = P::Move;

    fn index_count(&self) -> u64 {
        self.puzzle.index_count()
    }
    fn max_neighbours(&self) -> usize {
        self.puzzle.max_neighbours()
    }
    fn goals(&self) -> Vec<P::State> {
        self.puzzle.goals()
    }
    fn is_goal(&self, state: &P::State) -> bool {
        self.puzzle.is_goal(state)
    }
    fn goal_indices(&self) -> Vec<u64> {
        self.puzzle.goal_indices()
    }
    fn rank(&self, state: &P::State) -> u64 {
        self.puzzle.rank(state)
    }
    fn unrank(&self, index: u64) -> P::State {
        self.puzzle.unrank(index)
    }
    fn successors(&self, state: &P::State, out: &mut Vec<Successor<P::State, P::Move>>) {
        self.puzzle.successors(state, out)
    }
    fn segments(&self) -> Vec<Segment> {
        self.puzzle.segments()
    }
    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        self.expanded
            .fetch_add(indices.len() as u64, Ordering::Relaxed);
        self.puzzle.expand_sorted(indices, visit)
    }
}

/// The histogram, the states expanded and the captured last level of a search of
/// `puzzle` into `store`.
fn run<P: Puzzle, S: DepthStore>(puzzle: P, store: &S) -> (Vec<u64>, u64, Vec<u64>) {
    let counted = Counted {
        puzzle,
        expanded: AtomicU64::new(0),
    };
    let mut bfs = Bfs::new(&counted, store).unwrap();
    bfs.capture_last_level();
    let histogram = driver::run(&mut bfs, &Control::default()).unwrap();
    let last = bfs.take_last_level().unwrap_or_default();
    drop(bfs);
    (histogram, counted.expanded.into_inner(), last)
}

/// Both stores on `puzzle`: the same levels, about the same work, the same last level
/// (the exact store's is found by a scan).
fn same_work<P: Puzzle>(make: impl Fn() -> P) -> Vec<u64> {
    let n = make().index_count();
    let exact = ByteDepths::anonymous(n).unwrap();
    let (histogram, expanded, _) = run(make(), &exact);
    let packed = PackedDepths::anonymous(n).unwrap();
    let (packed_histogram, packed_expanded, last) = run(make(), &packed);
    assert_eq!(packed_histogram, histogram);
    // A mark covers a group of four entries, so an older state of the frontier's code
    // sharing a group with a frontier state is expanded again: up to a quarter more
    // here. Without marks, every older level of the code came back (Goat: 5.3 times).
    assert!(
        packed_expanded >= expanded && packed_expanded * 4 <= expanded * 5,
        "states expanded: 2-bit {packed_expanded}, 8-bit {expanded}"
    );
    let gods_number = histogram.len() - 1;
    let deepest: Vec<u64> = (0..n)
        .filter(|&i| exact.value(i) == Some(gods_number as u32))
        .collect();
    assert_eq!(last, deepest, "the captured last level");
    histogram
}

#[test]
fn two_bits_do_the_work_of_eight_without_colour_classes() {
    // Goat's moves do not alternate colour classes (a bar moving one cell is one move);
    // its last levels run top-down.
    let goat = || {
        let (file, text) = library::shipped("goat").unwrap();
        BlockPuzzle::from_text(file, text).unwrap()
    };
    assert_eq!(same_work(goat).len(), 53);
    let klotski = || {
        let (file, text) = library::shipped("klotski").unwrap();
        BlockPuzzle::from_text(file, text).unwrap()
    };
    assert_eq!(same_work(klotski).len(), 94);
}

#[test]
fn two_bits_do_the_work_of_eight_with_colour_classes() {
    let histogram = same_work(|| SlidingPuzzle::new(2, 5).unwrap());
    assert_eq!(histogram.iter().sum::<u64>(), 1_814_400);
}
