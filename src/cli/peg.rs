//! `analyze hoppers` and `solve hoppers`: peg solitaire, searched forward from the
//! start because its moves cannot be undone.

use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::puzzles::peg::{self, PegBoard};
use antipode::report::thousands;

/// Whether a puzzle name is a peg solitaire board.
pub fn board(name: &str) -> Option<PegBoard> {
    match name {
        "hoppers" => Some(PegBoard::hoppers()),
        "english33" => Some(PegBoard::english33()),
        _ => None,
    }
}

#[derive(serde::Serialize)]
struct Analysis {
    puzzle: String,
    reachable: u64,
    /// Boards per number of jumps from the start.
    jumps_histogram: Vec<u64>,
    /// Boards per minimal number of moves (small boards only).
    moves_histogram: Option<Vec<u64>>,
    goal_moves: Option<u32>,
    solution: Option<String>,
    seconds: f64,
}

/// Boards reachable from the start by jumps, the fewest moves to the goal with one
/// solution, and (for small boards) every board's minimal number of moves.
pub fn analyze(board: &PegBoard, json: bool) -> Result<String> {
    let started = Instant::now();
    let jumps = board.jump_levels();
    let moves_histogram = (board.holes() <= 20).then(|| board.analyze().0);
    let solution = board.fewest_moves();
    let analysis = Analysis {
        puzzle: board.name().into(),
        reachable: jumps.iter().sum(),
        jumps_histogram: jumps,
        moves_histogram,
        goal_moves: solution.as_ref().map(|s| s.len() as u32),
        solution: solution.as_ref().map(peg::notation),
        seconds: started.elapsed().as_secs_f64(),
    };
    if json {
        return Ok(serde_json::to_string_pretty(&analysis)? + "\n");
    }
    let mut text = format!(
        "puzzle          {}\nreachable       {} boards from the start (centre empty)\n\
         goal            {}\nsolution        {}\ntime            {:.3} s\n\njumps  boards\n",
        analysis.puzzle,
        thousands(analysis.reachable),
        analysis
            .goal_moves
            .map_or("not reachable".to_string(), |m| format!(
                "one peg in the centre after {m} moves (fewest)"
            )),
        analysis.solution.as_deref().unwrap_or("-"),
        analysis.seconds
    );
    for (jumps, count) in analysis.jumps_histogram.iter().enumerate() {
        text.push_str(&format!("{jumps:>5}  {count}\n"));
    }
    if let Some(moves) = &analysis.moves_histogram {
        text.push_str("\nmoves  boards (by their fewest moves)\n");
        for (m, count) in moves.iter().enumerate() {
            text.push_str(&format!("{m:>5}  {count}\n"));
        }
    }
    Ok(text)
}

#[derive(serde::Serialize)]
struct Solved {
    puzzle: String,
    start: String,
    length: u32,
    solutions: Vec<Vec<Vec<u8>>>,
    seconds: f64,
}

/// Fewest-move solutions in the seed's notation, one per line.
pub fn solve(
    board: &PegBoard,
    position: Option<&str>,
    first: Option<&str>,
    all: bool,
    max_moves: u32,
    json: bool,
) -> Result<String> {
    let started = Instant::now();
    let start = match position {
        None => board.start(),
        Some(text) => parse_board(text)?,
    };
    if board.holes() > 20 {
        // Large boards: breadth-first over moves (iterative deepening would take ages).
        if position.is_some() || first.is_some() || all {
            bail!(
                "{} is solved from its start only, one solution (no POSITION, --first, --all)",
                board.name()
            );
        }
        let solution = board
            .fewest_moves()
            .context("the goal cannot be reached from the start")?;
        return Ok(if json {
            let solved = Solved {
                puzzle: board.name().into(),
                start: "centre empty".into(),
                length: solution.len() as u32,
                solutions: vec![solution],
                seconds: started.elapsed().as_secs_f64(),
            };
            serde_json::to_string_pretty(&solved)? + "\n"
        } else {
            peg::notation(&solution) + "\n"
        });
    }
    let first = first.map(parse_jump).transpose()?;
    if let Some((from, to)) = first.filter(|&(f, t)| !board.can_jump(start, f, t)) {
        bail!("--first {from}-{to} is not a legal jump on this board");
    }
    let Some((length, solutions)) = board.solve(start, first, all, max_moves) else {
        bail!("no solution of at most {max_moves} moves from this board");
    };
    if json {
        let solved = Solved {
            puzzle: board.name().into(),
            start: format!("{start:013b}").chars().rev().collect(),
            length,
            solutions,
            seconds: started.elapsed().as_secs_f64(),
        };
        return Ok(serde_json::to_string_pretty(&solved)? + "\n");
    }
    Ok(solutions.iter().map(|s| peg::notation(s) + "\n").collect())
}

/// A board as 13 characters in hole order: `1`/`o` a peg, `0`/`.` a hole.
fn parse_board(text: &str) -> Result<u64> {
    let cells: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '/')
        .collect();
    if cells.len() != 13 {
        bail!("a hoppers board has 13 holes: give 13 of `1`/`o` (peg) and `0`/`.` (empty)");
    }
    cells
        .iter()
        .enumerate()
        .try_fold(0u64, |acc, (i, c)| match c {
            '1' | 'o' => Ok(acc | 1 << i),
            '0' | '.' => Ok(acc),
            other => bail!("unknown hole mark `{other}`: use 1/o for a peg, 0/. for empty"),
        })
}

/// `0-6`: the first jump, from hole 0 to hole 6.
fn parse_jump(text: &str) -> Result<(u8, u8)> {
    let (from, to) = text
        .split_once('-')
        .context("--first takes FROM-TO, e.g. 0-6")?;
    Ok((
        from.trim().parse().context("--first: bad hole number")?,
        to.trim().parse().context("--first: bad hole number")?,
    ))
}
