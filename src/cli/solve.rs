//! `antipode solve`: optimal solutions by IDA* (the default), plain iterative deepening,
//! or by descending a table.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use antipode::puzzles::BuiltIn;
use antipode::solve::{self, Solvable};
use antipode::table::Table;
use antipode::{Puzzle, with_puzzle};

use super::PuzzleArgs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The moved pieces, one solution per line (with --boards, every board after).
    Text,
    /// One JSON object.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// IDA*: iterative deepening with the puzzle's lower bound (Manhattan distance for
    /// sliding boards and Goat, misplaced stones for Oshidori).
    Ida,
    /// Plain iterative deepening, as in the seeds, for comparison.
    Iddfs,
    /// Bidirectional breadth-first search (one solution).
    Bibfs,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The start position (default: the puzzle's own start, where it has one).
    position: Option<String>,
    /// Descend this table instead of searching.
    #[arg(long, value_name = "PATH")]
    table: Option<PathBuf>,
    /// Search method when no table is given.
    #[arg(long, value_enum, default_value = "ida")]
    method: Method,
    /// Every optimal solution, not just one (search methods only).
    #[arg(long)]
    all: bool,
    /// Give up beyond this many moves.
    #[arg(long, value_name = "N", default_value_t = 120)]
    max_length: u32,
    /// Also draw the board after every move.
    #[arg(long)]
    boards: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Peg solitaire: fix the first jump, e.g. `0-6`.
    #[arg(long, value_name = "FROM-TO")]
    first: Option<String>,
}

#[derive(serde::Serialize)]
struct Solved {
    puzzle: String,
    start: String,
    length: usize,
    solutions: Vec<Vec<String>>,
    nodes: u64,
    seconds: f64,
}

/// Solutions as moves and the positions after each move.
struct Outcome<S> {
    solutions: Vec<Vec<String>>,
    paths: Vec<Vec<S>>,
    nodes: u64,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(board) = super::peg::board(&args.puzzle.puzzle) {
        let text = super::peg::solve(
            &board,
            args.position.as_deref(),
            args.first.as_deref(),
            args.all,
            args.max_length,
            args.format == Format::Json,
        )?;
        return super::print(&text);
    }
    if args.first.is_some() {
        bail!("--first is for peg solitaire (hoppers)");
    }
    let puzzle = args.puzzle.resolve()?;
    let started = Instant::now();
    let text = with_puzzle!(&puzzle, p => {
        let start = match &args.position {
            Some(text) => p.parse(text)?,
            None => match start_of(&puzzle) {
                Some(text) => p.parse(&text)?,
                None => bail!("{} has no start position of its own: give a POSITION", p.name()),
            },
        };
        let outcome = match &args.table {
            Some(path) => {
                if args.all {
                    bail!("--all needs a search method, not --table");
                }
                let table = Table::open(path)?;
                let steps = table.solve(p, &start)?;
                Outcome {
                    solutions: vec![steps.iter().map(|s| s.moved.to_string()).collect()],
                    paths: vec![steps.into_iter().map(|s| s.state).collect()],
                    nodes: 0,
                }
            }
            None => search(p, &args, &start)?,
        };
        render(p, &start, outcome, &args, started)?
    });
    super::print(&text)
}

/// The puzzle's own start position, if it has one.
fn start_of(puzzle: &BuiltIn) -> Option<String> {
    match puzzle {
        BuiltIn::Goat(_) => Some(antipode::puzzles::goat::START.to_string()),
        BuiltIn::Oshidori(o) => Some(o.format_line(&o.start())),
        BuiltIn::Sliding(_) => None,
    }
}

fn search<P: Solvable>(p: &P, args: &Args, start: &P::State) -> Result<Outcome<P::State>> {
    let method = match args.method {
        Method::Ida => solve::Method::Ida,
        Method::Iddfs => solve::Method::Iddfs,
        Method::Bibfs => {
            if args.all {
                bail!("--all needs ida or iddfs: bidirectional search finds one solution");
            }
            let (steps, nodes) = solve::bibfs::solve(p, start)
                .ok_or_else(|| anyhow::anyhow!("the goal cannot be reached from this position"))?;
            return Ok(Outcome {
                solutions: vec![steps.iter().map(|s| s.moved.to_string()).collect()],
                paths: vec![steps.into_iter().map(|s| s.state).collect()],
                nodes,
            });
        }
    };
    let found = solve::solve(p, start, method, args.all, args.max_length)?;
    Ok(Outcome {
        solutions: found
            .solutions
            .iter()
            .map(|moves| moves.iter().map(|m| m.to_string()).collect())
            .collect(),
        paths: found.paths,
        nodes: found.nodes,
    })
}

fn render<P: Puzzle>(
    p: &P,
    start: &P::State,
    outcome: Outcome<P::State>,
    args: &Args,
    started: Instant,
) -> Result<String> {
    let length = outcome.solutions.first().map_or(0, Vec::len);
    Ok(match args.format {
        Format::Json => {
            let solved = Solved {
                puzzle: p.name(),
                start: p.format_line(start),
                length,
                solutions: outcome.solutions,
                nodes: outcome.nodes,
                seconds: started.elapsed().as_secs_f64(),
            };
            serde_json::to_string_pretty(&solved)? + "\n"
        }
        Format::Text => {
            let mut text = String::new();
            for (moves, states) in outcome.solutions.iter().zip(&outcome.paths) {
                text.push_str(&moves.join(" "));
                text.push('\n');
                if args.boards {
                    text.push_str(&format!("\nstart\n{}", p.render_board(start)));
                    for (k, (moved, state)) in moves.iter().zip(states).enumerate() {
                        text.push_str(&format!(
                            "\n{} move {moved}\n{}",
                            k + 1,
                            p.render_board(state)
                        ));
                    }
                    text.push('\n');
                }
            }
            text
        }
    })
}
