//! The published figures, reproduced by the library on the real puzzles.

use std::collections::{HashMap, VecDeque};

use antipode::Notation;
use antipode::analysis::{self, analyze};
use antipode::driver::Control;
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::blocks::{BlockPuzzle, library};
use antipode::{Puzzle, Successor};

const EIGHT_PUZZLE_HISTOGRAM: [u64; 32] = [
    1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878,
    16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
];

#[test]
fn eight_puzzle_histogram_and_antipodes() {
    let p = SlidingPuzzle::new(3, 3).unwrap();
    let a = analyze(&p, 2, &Control::default()).unwrap();
    assert_eq!(a.histogram, EIGHT_PUZZLE_HISTOGRAM);
    assert_eq!(a.reachable, 181_440);
    assert_eq!(a.gods_number, 31);
    assert_eq!(a.antipode_count, 2);
    assert_eq!(a.antipodes, ["647/850/321", "867/254/301"]);
}

#[test]
fn small_boards_gods_numbers_and_antipodes() {
    for (rows, cols, gods, antipodes) in [(2, 2, 6, 1), (2, 3, 21, 1), (2, 4, 36, 1), (2, 5, 55, 2)]
    {
        let p = SlidingPuzzle::new(rows, cols).unwrap();
        let a = analyze(&p, 0, &Control::default()).unwrap();
        assert_eq!(a.reachable, p.index_count(), "{rows}x{cols}");
        assert_eq!(a.gods_number, gods, "{rows}x{cols}");
        assert_eq!(a.antipode_count, antipodes, "{rows}x{cols}");
    }
}

#[test]
fn goat_figures() {
    let goat = goat();
    let (depths, histogram) = analysis::search(&goat, &Control::default()).unwrap();
    assert_eq!(histogram.reachable(), 5_443_200);
    assert_eq!(histogram.gods_number(), 52);
    assert_eq!(histogram.0[52], 7);
    assert_eq!(depths.depth(goat.rank(&goat.start().unwrap())), Some(20));
    // The seed's 67BB/4528/0831 (both bars 8, the empty cell 0).
    let seed_antipode = goat.parse("67BB/4528/.931").unwrap();
    assert_eq!(depths.depth(goat.rank(&seed_antipode)), Some(52));
}

/// Goat (seed 001), shipped as a description.
fn goat() -> BlockPuzzle {
    let (file, text) = library::shipped("goat").unwrap();
    BlockPuzzle::from_text(file, text).unwrap()
}

#[test]
fn korf_goal_blank_first() {
    let base = SlidingPuzzle::new(3, 3).unwrap();
    let goal = base.parse_goal("012/345/678").unwrap();
    let p = base.with_goal(goal);
    let a = analyze(&p, 0, &Control::default()).unwrap();
    assert_eq!(a.reachable, 181_440);
    // The blank-first goal is the usual one turned half a turn with tiles relabelled.
    assert_eq!(a.gods_number, 31);
    assert_eq!(a.antipode_count, 2);
}

/// A plain queue-and-hash-map BFS over states, independent of ranking and engine.
pub fn reference_histogram<P: Puzzle>(p: &P) -> Vec<u64>
where
    P::State: std::hash::Hash + Eq,
{
    let mut depth = HashMap::new();
    let mut queue = VecDeque::new();
    for goal in p.goals() {
        depth.insert(goal.clone(), 0u32);
        queue.push_back(goal);
    }
    let mut successors: Vec<Successor<P::State, P::Move>> = Vec::new();
    let mut histogram = vec![queue.len() as u64];
    while let Some(state) = queue.pop_front() {
        let d = depth[&state];
        successors.clear();
        p.successors(&state, &mut successors);
        for s in successors.drain(..) {
            if !depth.contains_key(&s.state) {
                depth.insert(s.state.clone(), d + 1);
                if histogram.len() <= d as usize + 1 {
                    histogram.push(0);
                }
                histogram[d as usize + 1] += 1;
                queue.push_back(s.state);
            }
        }
    }
    histogram
}

#[test]
fn engine_agrees_with_a_plain_bfs() {
    for (rows, cols) in [(3, 3), (2, 4), (4, 2), (3, 2)] {
        let p = SlidingPuzzle::new(rows, cols).unwrap();
        let a = analyze(&p, 0, &Control::default()).unwrap();
        assert_eq!(a.histogram, reference_histogram(&p), "{rows}x{cols}");
    }
}

#[test]
fn oshidori_tables_agree_with_a_plain_bfs() {
    use antipode::puzzles::Oshidori;
    for (p, gods, antipodes) in [
        (Oshidori::classic(), 6, 1),
        (Oshidori::with_kinds(3).unwrap(), 8, 4),
        (Oshidori::with_kinds(4).unwrap(), 9, 1),
        (Oshidori::with_kinds(5).unwrap(), 10, 574),
    ] {
        let a = analyze(&p, 0, &Control::default()).unwrap();
        assert_eq!(a.histogram, reference_histogram(&p), "{}", p.name());
        assert_eq!(a.reachable, p.index_count());
        assert_eq!(
            (a.gods_number, a.antipode_count),
            (gods, antipodes),
            "{}",
            p.name()
        );
    }
}

/// Oshidori with 6 kinds: 97,297,200 states, every one reachable (README table).
#[test]
fn oshidori_6_figures() {
    use antipode::puzzles::Oshidori;
    let p = Oshidori::with_kinds(6).unwrap();
    let a = analyze(&p, 0, &Control::default()).unwrap();
    assert_eq!(a.reachable, 97_297_200);
    assert_eq!(
        a.histogram,
        [
            1, 11, 100, 862, 6_843, 51_536, 367_505, 2_381_887, 12_584_865, 40_983_417, 38_922_102,
            1_998_061, 10
        ]
    );
    assert_eq!((a.gods_number, a.antipode_count), (12, 10));
}

#[test]
fn every_depth_is_consistent_with_its_neighbours() {
    let p = SlidingPuzzle::new(2, 4).unwrap();
    let (depths, _) = analysis::search(&p, &Control::default()).unwrap();
    let all: Vec<u64> = (0..p.index_count()).collect();
    p.expand_sorted(&all, |index, neighbours| {
        let d = depths.depth(index).unwrap();
        let around: Vec<u32> = neighbours
            .iter()
            .map(|&n| depths.depth(n).unwrap())
            .collect();
        assert!(around.iter().all(|&n| n + 1 >= d && n <= d + 1));
        assert!(d == 0 || around.contains(&(d - 1)));
    });
}

#[test]
fn thread_count_does_not_change_results() {
    let p = SlidingPuzzle::new(2, 5).unwrap();
    let run = |threads| {
        antipode::pool::run_on(Some(threads), || {
            analyze(&p, 0, &Control::default()).unwrap()
        })
        .unwrap()
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.histogram, two.histogram);
    assert_eq!(one.antipodes, two.antipodes);
}

/// One worker thread marks a 2-bit table plainly (the only writer), two mark it
/// atomically: the same bytes either way, on levels dense and sparse.
#[test]
fn a_two_bit_table_is_the_same_on_one_thread_and_two() {
    use antipode::store::PackedDepths;
    let p = SlidingPuzzle::new(2, 5).unwrap();
    let run = |threads| {
        let store = PackedDepths::anonymous(p.index_count()).unwrap();
        let search = || antipode::engine::search(&p, &store, &Control::default()).unwrap();
        let histogram = antipode::pool::run_on(Some(threads), search).unwrap();
        (histogram, store.map().to_vec())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(
        one.0.0,
        analyze(&p, 0, &Control::default()).unwrap().histogram
    );
    assert_eq!(one, two);
}

#[test]
fn depths_mod_3_give_the_same_results() {
    use antipode::store::PackedDepths;
    use std::time::Instant;
    fn both<P: Puzzle>(p: &P) {
        let exact = analyze(p, 0, &Control::default()).unwrap();
        let mut store = PackedDepths::anonymous(p.index_count()).unwrap();
        let histogram = antipode::engine::search(p, &store, &Control::default()).unwrap();
        let packed = analysis::summarize(p, &mut store, histogram, None, 0, Instant::now());
        assert_eq!(packed.histogram, exact.histogram, "{}", p.name());
        assert_eq!(packed.antipodes, exact.antipodes, "{}", p.name());
        for index in (0..p.index_count()).step_by(997) {
            // Goat's indices with the big piece off the top row are never reached.
            if antipode::store::DepthRead::value(&store, index).is_none() {
                continue;
            }
            let d = antipode::descent::distance(p, &store, index).unwrap();
            let start = p.unrank(index);
            let path = antipode::descent::solve(p, &store, &start).unwrap();
            assert_eq!(path.len() as u32, d);
        }
    }
    both(&SlidingPuzzle::new(3, 3).unwrap());
    both(&SlidingPuzzle::new(2, 5).unwrap());
    both(&goat());
}
