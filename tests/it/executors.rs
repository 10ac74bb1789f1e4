//! The engine's executor seam, driven from outside the crate: an executor that wraps
//! the threads executor and records what the level loop asks of it.

use antipode::driver::Control;
use std::cell::Cell;
use std::ops::Range;

use antipode::engine::{
    Alone, Bfs, Capture, EngineError, Executor, InProcessRanks, LevelOutcome, LevelPlan, Silent,
    Threads,
};
use antipode::puzzles::blocks::{BlockPuzzle, library};
use antipode::puzzles::{Oshidori, SlidingPuzzle};
use antipode::store::{ByteDepths, Encoding};
use antipode::{Puzzle, analysis};

/// Delegates to [`Threads`] and counts the levels it ran and the counts it combined.
struct Recording<'a, E> {
    inner: E,
    levels: &'a Cell<u32>,
    combined: &'a Cell<u64>,
}

impl<E: Executor> Executor for Recording<'_, E> {
    fn indices(&self) -> Range<u64> {
        self.inner.indices()
    }
    fn class_of(&self, depth: u32) -> usize {
        self.inner.class_of(depth)
    }
    fn class_sizes(&self) -> [u64; 2] {
        self.inner.class_sizes()
    }
    fn max_depth(&self) -> u32 {
        self.inner.max_depth()
    }
    fn period(&self) -> Option<u32> {
        self.inner.period()
    }
    fn seed(&mut self) -> u64 {
        self.inner.seed()
    }
    fn resume(&mut self, levels: usize) {
        self.inner.resume(levels)
    }
    fn frontier_is_exact(&self, depth: u32) -> bool {
        self.inner.frontier_is_exact(depth)
    }
    fn work_units(&self, plan: &LevelPlan) -> u64 {
        self.inner.work_units(plan)
    }
    fn run_level(
        &mut self,
        plan: &LevelPlan,
        capture: Capture,
        control: &Control<'_>,
    ) -> Result<LevelOutcome, EngineError> {
        self.levels.set(self.levels.get() + 1);
        self.inner.run_level(plan, capture, control)
    }
    fn count_level(&self, plan: &LevelPlan) -> u64 {
        self.inner.count_level(plan)
    }
    fn combine(&self, local: u64) -> u64 {
        self.combined.set(self.combined.get() + local);
        self.inner.combine(local)
    }
}

#[test]
fn a_level_loop_over_another_executor_finds_the_same_histogram() {
    let puzzle = SlidingPuzzle::new(3, 3).unwrap();
    let store = ByteDepths::anonymous(puzzle.index_count()).unwrap();
    let (levels, combined) = (Cell::new(0), Cell::new(0));
    let threads = Threads::new(&puzzle, &store, puzzle.goal_indices());
    assert_eq!(threads.indices(), 0..181_440);
    let recording = Recording {
        inner: threads,
        levels: &levels,
        combined: &combined,
    };
    let bfs = Bfs::with_executor(Box::new(recording));
    let histogram = bfs.run(&Control::default()).unwrap();
    let (_, expected) = analysis::search(&puzzle, &Control::default()).unwrap();
    assert_eq!(histogram, expected);
    assert_eq!(histogram.gods_number(), 31);
    // Every level of depth 1 to 31 ran; the loop then stops when the class is full
    // or a level finds nothing. Every state but the goal passed through `combine`.
    assert!(levels.get() >= 31);
    assert_eq!(combined.get(), 181_440 - 1);
}

/// Runs `puzzle`'s analysis as `ranks` in-process ranks (threads meeting at a
/// barrier, the stand-in for MPI) and returns every rank's report.
fn partitioned<P: Puzzle + Sync>(
    puzzle: &P,
    ranks: usize,
    encoding: Encoding,
) -> Vec<analysis::Analysis> {
    let shared = InProcessRanks::new(ranks);
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..ranks)
            .map(|r| {
                let rank = shared.rank(r);
                scope.spawn(move || {
                    analysis::analyze_partitioned(puzzle, encoding, &rank, 0, &Silent).unwrap()
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    })
}

fn same_as_one_process<P: Puzzle + Sync>(puzzle: &P) {
    let one = analysis::analyze(puzzle, 0, &Control::default()).unwrap();
    // The transport of a search that is not partitioned: one rank, nothing sent.
    let alone = analysis::analyze_partitioned(puzzle, Encoding::Byte, &Alone, 0, &Silent).unwrap();
    assert_eq!(
        (&alone.histogram, &alone.antipodes),
        (&one.histogram, &one.antipodes)
    );
    assert_eq!(alone.exchange.unwrap().bytes_total, 0);
    for ranks in 1..=4 {
        for encoding in [Encoding::Byte, Encoding::Mod3] {
            for report in partitioned(puzzle, ranks, encoding) {
                let what = format!("{} on {ranks} ranks, {encoding:?}", puzzle.name());
                assert_eq!(report.histogram, one.histogram, "{what}");
                assert_eq!(report.gods_number, one.gods_number, "{what}");
                assert_eq!(report.antipodes, one.antipodes, "{what}");
                // Over classes: positions per depth, Burnside's count, class sizes.
                assert_eq!(report.classes, one.classes, "{what}");
                let exchange = report.exchange.unwrap();
                assert_eq!(exchange.ranks, ranks);
                // Levels 1 to God's number, and the one that found nothing if it ran.
                let levels = exchange.bytes_per_level.len() as u32;
                assert!(levels == one.gods_number || levels == one.gods_number + 1);
                // One rank sends nothing; on a sliding board every slice borders others.
                if ranks == 1 {
                    assert_eq!(exchange.bytes_total, 0, "{what}");
                } else if puzzle.name().starts_with("sliding") || puzzle.name() == "8puzzle" {
                    assert!(exchange.bytes_total > 0, "{what}");
                }
            }
        }
    }
}

/// The slices of 1 to 4 ranks (3 divides neither 181,440 + 1 nor Goat's count) give
/// the single process's histogram, God's number and antipodes, in both encodings; a
/// goal set too.
#[test]
fn partitioned_ranks_find_what_one_process_finds() {
    same_as_one_process(&SlidingPuzzle::new(3, 3).unwrap());
    same_as_one_process(&SlidingPuzzle::new(2, 5).unwrap());
    for name in ["goat", "klotski"] {
        let (file, text) = library::shipped(name).unwrap();
        same_as_one_process(&BlockPuzzle::from_text(file, text).unwrap());
    }
    same_as_one_process(&Oshidori::with_kinds(5).unwrap());
    // A twisty puzzle's goal set: the 2x2x2 with its U or its R layer solved.
    let layers = antipode::puzzles::kpuzzle::library::open(
        "2x2x2 --goal CORNERS: 0 1 2 3 ? ? ? ? / 0 0 0 0 ? ? ? ? \
         | CORNERS: 0 1 ? ? 4 ? ? 7 / 0 0 ? ? 0 ? ? 0",
    )
    .unwrap();
    assert_eq!(layers.goal_indices().len(), 107);
    same_as_one_process(&layers);
}

/// Over symmetry classes, the ranks gather the depths of the classes smaller than the
/// group (which every slice holds some of) and report the single process's positions
/// per depth: the 2x2x2 by class index, the 4x4x4's centres (identical pieces) by
/// their tight index, and a goal set whose symmetries map it onto itself.
#[test]
fn partitioned_ranks_count_the_positions_behind_classes() {
    for name in [
        "2x2x2 --symmetry",
        "4x4x4-centres --symmetry",
        "2x2x2 --goal CORNERS: 0 1 2 3 ? ? ? ? / 0 0 0 0 ? ? ? ? \
         | CORNERS: ? ? ? ? 4 5 6 7 / ? ? ? ? 0 0 0 0 --symmetry",
    ] {
        let classes = antipode::puzzles::lookup(name).unwrap();
        antipode::with_puzzle!(&classes, p => {
            let counts = analysis::analyze(p, 0, &Control::default()).unwrap().classes;
            let counts = counts.expect(name);
            assert!(counts.symmetries > 1, "{name}");
            assert_eq!(
                counts.positions_by_depth.iter().sum::<u128>(),
                counts.positions,
                "{name}"
            );
            same_as_one_process(p);
        });
    }
}
