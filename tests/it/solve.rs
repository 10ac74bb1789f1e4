//! The seeds' search methods: IDA* with Manhattan distance and parity stepping, plain
//! iterative deepening, all optimal solutions.

use crate::common::{antipode, assert_error, assert_measured, run_ok};

use antipode::Notation;
use antipode::puzzles::SlidingPuzzle;
use antipode::puzzles::blocks::{BlockPuzzle, library};
use antipode::search::{self, Method};
use antipode::solvers::sliding::search::SlidingSpace;
use antipode::{Puzzle, Successor};

/// Applies the moves (the seeds' notation: the piece moved) and returns the end.
fn replay<P: Puzzle>(p: &P, start: &P::State, moves: &[String]) -> P::State {
    let mut state = start.clone();
    for m in moves {
        let mut next: Vec<Successor<P::State, P::Move>> = Vec::new();
        p.successors(&state, &mut next);
        state = next
            .into_iter()
            .find(|s| s.moved.to_string() == *m)
            .unwrap_or_else(|| panic!("move {m} is not legal"))
            .state;
    }
    state
}

#[test]
fn eight_puzzle_longest_position_has_40_optimal_solutions() {
    let p = SlidingPuzzle::new(3, 3).unwrap();
    let start = p.parse("867254301").unwrap();
    assert_eq!(SlidingSpace::manhattan(&p, &start), 21);
    let found = search::solve(&p, &start, Method::Ida, true, 40).unwrap();
    assert_eq!(found.length, 31);
    assert_eq!(found.solutions.len(), 40);
    let mut distinct: Vec<String> = found
        .solutions
        .iter()
        .map(|s| {
            s.iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 40);
    for solution in &found.solutions {
        let moves: Vec<String> = solution.iter().map(|m| m.to_string()).collect();
        assert_eq!(replay(&p, &start, &moves), p.goal());
    }
    assert_eq!(found.paths[0].last(), Some(&p.goal()));
}

#[test]
fn plain_iterative_deepening_agrees() {
    let p = SlidingPuzzle::new(3, 3).unwrap();
    let start = p.parse("8 6 7/2 5 4/3 0 1").unwrap();
    let found = search::solve(&p, &start, Method::Iddfs, false, 40).unwrap();
    assert_eq!(found.length, 31);
    let shallow = p.parse("123/456/078").unwrap();
    let found = search::solve(&p, &shallow, Method::Iddfs, true, 10).unwrap();
    assert_eq!(found.length, 2);
    assert_eq!(found.solutions.len(), 1);
}

/// Checks that every step of a path is a legal move labelled as the solution says.
fn assert_legal_path<P: Puzzle>(p: &P, start: &P::State, moves: &[String], path: &[P::State]) {
    let mut previous = start.clone();
    for (m, state) in moves.iter().zip(path) {
        let mut next: Vec<Successor<P::State, P::Move>> = Vec::new();
        p.successors(&previous, &mut next);
        assert!(
            next.iter()
                .any(|s| s.moved.to_string() == *m && s.state == *state)
        );
        previous = state.clone();
    }
    assert!(p.is_goal(&previous));
}

#[test]
fn goat_start_takes_20_moves() {
    let (file, text) = library::shipped("goat").unwrap();
    let goat = BlockPuzzle::from_text(file, text).unwrap();
    let start = goat.start().unwrap();
    // IDA* (seed 001's method) and bidirectional BFS agree.
    let found = search::solve(&goat, &start, Method::Ida, false, 60).unwrap();
    assert_eq!(found.length, 20);
    let moves: Vec<String> = found.solutions[0].iter().map(|m| m.to_string()).collect();
    assert_legal_path(&goat, &start, &moves, &found.paths[0]);
    let (steps, _) = search::bibfs::solve(&goat, &start).unwrap();
    assert_eq!(steps.len(), 20);
}

#[test]
fn other_goals_are_searched_too() {
    let base = SlidingPuzzle::new(2, 4).unwrap();
    let goal = base.parse_goal("0123/4567").unwrap();
    let p = base.with_goal(goal);
    let start = p.parse("1023/4567").unwrap();
    let found = search::solve(&p, &start, Method::Ida, false, 60).unwrap();
    assert_eq!(found.length, 1);
}

#[test]
fn solve_from_the_command_line() {
    let (out, wall) = run_ok(&["solve", "8puzzle", "867254301", "--all", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["puzzle"], "8puzzle");
    assert_eq!(json["start"], "867/254/301");
    assert_eq!(json["length"], 31);
    assert_eq!(json["solutions"].as_array().unwrap().len(), 40);
    // IDA* with parity stepping tries limits 21, 23, ..., 31 on this position.
    let nodes = json["nodes"].as_u64().unwrap();
    assert!(nodes > 1_000, "{nodes} nodes");
    assert_measured(&json["seconds"], wall);

    let (text, _) = run_ok(&["solve", "goat"]);
    assert_eq!(text.lines().count(), 1);
    assert_eq!(text.lines().next().unwrap().split(' ').count(), 20);

    let (text, _) = run_ok(&["solve", "8puzzle", "123/456/708", "--boards"]);
    assert!(text.starts_with("8\n"));
    assert!(text.contains("1 move 8"));

    assert_error(&["solve", "8puzzle"], "give a POSITION");
    assert_error(&["solve", "8puzzle", "687254301"], "wrong parity");
    assert_error(
        &["solve", "8puzzle", "867254301", "--max-length", "20"],
        "no solution of at most 20",
    );
}

#[test]
fn oshidori_shortest_solutions_match_the_seed() {
    use antipode::puzzles::Oshidori;
    let classic = Oshidori::classic();
    let (steps, _) = search::bibfs::solve(&classic, &classic.start().unwrap()).unwrap();
    assert_eq!(steps.len(), 4);
    let found =
        search::solve(&classic, &classic.start().unwrap(), Method::Iddfs, true, 10).unwrap();
    assert_eq!(found.length, 4);
    for (k, shortest) in [(3, 3), (4, 7), (5, 5), (6, 7), (7, 8), (8, 11), (9, 10)] {
        let p = Oshidori::with_kinds(k).unwrap();
        let (steps, _) = search::bibfs::solve(&p, &p.start().unwrap()).unwrap();
        assert_eq!(steps.len(), shortest, "oshidori:{k} by bidirectional BFS");
        assert_eq!(steps.last().unwrap().state, p.goal());
        let found = search::solve(&p, &p.start().unwrap(), Method::Ida, false, 20).unwrap();
        assert_eq!(found.length as usize, shortest, "oshidori:{k} by IDA*");
        assert_eq!(found.paths[0].last(), Some(&p.goal()));
    }
    // IDA* is the default method, and its solution replays to the goal.
    let (text, _) = run_ok(&["solve", "oshidori:8", "--boards"]);
    assert_eq!(text.lines().next().unwrap().split(' ').count(), 11);
    assert!(
        text.trim_end()
            .ends_with("1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 . .")
    );
    let (out, _) = run_ok(&["solve", "oshidori", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["start"], "BWBWBW..");
    assert_eq!(json["length"], 4);
}

/// Seed 004 lists these, in this order: every 7-move solution starting 0 -> 6.
const HOPPERS_SOLUTIONS: [&str; 18] = [
    "[0,6][9,3][2,0,6][11,1][10,0,2,6][8,4][12,2,6]",
    "[0,6][9,3][2,0,6][11,1][10,6][4,8][12,2,0,10,6]",
    "[0,6][9,3][2,0,6][11,1][12,2,6][8,4][10,0,2,6]",
    "[0,6][9,3][2,6][8,4][10,0,2,6][7,5][12,10,0,6]",
    "[0,6][9,3][2,6][8,4][10,0,2,6][11,1][12,2,0,6]",
    "[0,6][9,3][2,6][8,4][10,0,6][7,5][12,10,0,2,6]",
    "[0,6][9,3][2,6][8,4][12,2,0,6][5,7][10,12,2,6]",
    "[0,6][9,3][2,6][8,4][12,2,0,6][11,1][10,0,2,6]",
    "[0,6][9,3][2,6][8,4][12,2,6][5,7][10,12,2,0,6]",
    "[0,6][9,3][10,0,6][7,5][2,0,10,6][4,8][12,10,6]",
    "[0,6][9,3][10,0,6][7,5][2,6][8,4][12,10,0,2,6]",
    "[0,6][9,3][10,0,6][7,5][12,10,6][4,8][2,0,10,6]",
    "[0,6][9,3][10,6][4,8][2,0,6][11,1][12,2,0,10,6]",
    "[0,6][9,3][10,6][4,8][2,0,10,6][7,5][12,10,0,6]",
    "[0,6][9,3][10,6][4,8][2,0,10,6][11,1][12,2,0,6]",
    "[0,6][9,3][10,6][4,8][12,10,0,6][1,11][2,12,10,6]",
    "[0,6][9,3][10,6][4,8][12,10,0,6][7,5][2,0,10,6]",
    "[0,6][9,3][10,6][4,8][12,10,6][1,11][2,12,10,0,6]",
];

#[test]
fn hoppers_solutions_match_the_seed() {
    let (text, _) = run_ok(&["solve", "hoppers", "--all", "--first", "0-6"]);
    assert_eq!(text.lines().collect::<Vec<_>>(), HOPPERS_SOLUTIONS);

    let (out, _) = run_ok(&["solve", "hoppers", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["length"], 7);
    assert_eq!(json["start"], "1111110111111");

    // A position of its own: pegs on holes 0 and 3, one jump (0 over 3) from the goal.
    let (text, _) = run_ok(&["solve", "hoppers", "1001000000000"]);
    assert_eq!(text, "[0,6]\n");

    let (out, wall) = run_ok(&["analyze", "hoppers", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_measured(&json["seconds"], wall);
    assert_eq!(json["goal_moves"], 7);
    assert_eq!(json["goal_reachable"], true);
    let sum = |key: &str| {
        let levels = json[key].as_array().unwrap();
        assert_eq!(levels[0], 1);
        levels.iter().map(|v| v.as_u64().unwrap()).sum::<u64>()
    };
    // Every reachable board is counted once by jumps and once by fewest moves.
    assert_eq!(sum("jumps_histogram"), json["reachable"].as_u64().unwrap());
    assert_eq!(sum("moves_histogram"), json["reachable"].as_u64().unwrap());
    assert_eq!(json["jumps_histogram"].as_array().unwrap().len(), 12);
    // One peg can be left in the corners and the centre only.
    assert_eq!(
        json["one_peg_finishes"],
        serde_json::json!([0, 2, 6, 10, 12])
    );

    assert_error(
        &["solve", "hoppers", "--first", "0-5"],
        "the first jump 0-5 is not a legal jump",
    );
    assert_error(&["solve", "hoppers", "1111"], "expected 13 holes");
}

/// The English board's boards per number of jumps from the centre-empty start, as
/// published (OEIS A112737, George I. Bell): 187,636,299 in all.
const ENGLISH33_BY_JUMPS: [u64; 32] = [
    1, 4, 12, 60, 296, 1_338, 5_648, 21_842, 77_559, 249_690, 717_788, 1_834_379, 4_138_302,
    8_171_208, 14_020_166, 20_773_236, 26_482_824, 28_994_876, 27_286_330, 22_106_348, 15_425_572,
    9_274_496, 4_792_664, 2_120_101, 800_152, 255_544, 68_236, 14_727, 2_529, 334, 32, 5,
];

/// The same counts up to the board's 8 symmetries (OEIS A112737): 23,475,688 in all.
const ENGLISH33_BY_JUMPS_UP_TO_SYMMETRY: [u64; 32] = [
    1, 1, 2, 8, 39, 171, 719, 2_757, 9_751, 31_312, 89_927, 229_614, 517_854, 1_022_224, 1_753_737,
    2_598_215, 3_312_423, 3_626_632, 3_413_313, 2_765_623, 1_930_324, 1_160_977, 600_372, 265_865,
    100_565, 32_250, 8_688, 1_917, 348, 50, 7, 2,
];

/// About 15 s on two cores and 0.3 GB (two levels of bit sets, one per peg count).
#[test]
fn english33_boards_by_jumps_up_to_symmetry() {
    let output = antipode(&[
        "analyze",
        "english33",
        "--symmetry",
        "-q",
        "--format",
        "json",
    ]);
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let column = |value: &serde_json::Value| -> Vec<u64> {
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect()
    };
    // The search runs over classes (one board of each expanded): classes per jump,
    // and the boards they hold.
    assert_eq!(
        column(&json["jumps_histogram"]),
        ENGLISH33_BY_JUMPS_UP_TO_SYMMETRY
    );
    assert_eq!(json["reachable"], 23_475_688);
    let classes = &json["classes"];
    assert_eq!(column(&classes["positions_by_depth"]), ENGLISH33_BY_JUMPS);
    assert_eq!(classes["positions"], 187_636_299);
    assert_eq!(classes["symmetries"], 8);
    assert_eq!(json["goal_reachable"], true);
    // The centre, and the four holes three steps from it (the rule of three).
    assert_eq!(
        json["one_peg_finishes"],
        serde_json::json!([1, 13, 16, 19, 31])
    );
}

/// About 25 s and 2 GB: the boards that can reach the centre, per peg count, then a
/// breadth-first search over moves among them.
#[test]
fn english33_central_game_in_18_moves() {
    use antipode::puzzles::peg::PegBoard;
    let (out, _) = run_ok(&["solve", "english33", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Bergholt (1912), proved minimal by Beasley (1964).
    assert_eq!(json["length"], 18);
    // The solution is legal, has 18 moves, and leaves one peg in the centre.
    let board = PegBoard::shipped("english33").unwrap();
    let solution = &json["solutions"][0];
    let mut position = board.start();
    let mut moves = 0;
    for chain in solution.as_array().unwrap() {
        let holes: Vec<u8> = chain
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_u64().unwrap() as u8)
            .collect();
        for pair in holes.windows(2) {
            position = board
                .jump(position, pair[0], pair[1])
                .expect("a legal jump");
        }
        moves += 1;
    }
    assert_eq!(moves, 18);
    assert!(board.is_goal(position) && position == 1 << 16);
}

#[test]
fn the_search_counts_the_same_nodes_on_one_thread_and_on_several() {
    let solved = |threads: &str| {
        let (out, _) = run_ok(&[
            "solve",
            "11puzzle",
            "1 2 3 0/4 5 6 7/8 9 10 11",
            "--all",
            "--threads",
            threads,
            "--format",
            "json",
        ]);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let mut solutions: Vec<String> = json["solutions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.to_string())
            .collect();
        solutions.sort();
        (
            json["length"].as_u64().unwrap(),
            json["nodes"].as_u64().unwrap(),
            solutions,
        )
    };
    let (length, nodes, solutions) = solved("1");
    assert!(
        length > 10 && nodes > 10_000,
        "{length} moves, {nodes} nodes"
    );
    assert_eq!(solved("2"), (length, nodes, solutions.clone()));
    assert_eq!(solved("3"), (length, nodes, solutions));
    assert_error(
        &["solve", "8puzzle", "867254301", "--threads", "0"],
        "at least 1",
    );
}
