//! `analyze hoppers` and `solve hoppers`: peg solitaire, searched forward from the
//! start because its moves cannot be undone.

use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::puzzles::peg::{self, PegBoard};
use antipode::report::thousands;

/// Whether a puzzle name is a peg solitaire board.
pub fn board(name: &str) -> Option<PegBoard> {
    (name == "hoppers").then(PegBoard::hoppers)
}

#[derive(serde::Serialize)]
struct Analysis {
    puzzle: String,
    reachable: u64,
    histogram: Vec<u64>,
    goal_moves: Option<u32>,
    seconds: f64,
}

/// Boards reachable from the start and their minimal numbers of moves.
pub fn analyze(board: &PegBoard, json: bool) -> Result<String> {
    let started = Instant::now();
    let (histogram, goal_moves) = board.analyze();
    let analysis = Analysis {
        puzzle: board.name().into(),
        reachable: histogram.iter().sum(),
        histogram,
        goal_moves,
        seconds: started.elapsed().as_secs_f64(),
    };
    if json {
        return Ok(serde_json::to_string_pretty(&analysis)? + "\n");
    }
    let mut text = format!(
        "puzzle          {}\nreachable       {} boards from the start (centre empty)\n\
         goal            {}\ntime            {:.3} s\n\nmoves  boards\n",
        analysis.puzzle,
        thousands(analysis.reachable),
        analysis
            .goal_moves
            .map_or("not reachable".to_string(), |m| format!(
                "one peg in the centre after {m} moves"
            )),
        analysis.seconds
    );
    for (moves, count) in analysis.histogram.iter().enumerate() {
        text.push_str(&format!("{moves:>5}  {count}\n"));
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
