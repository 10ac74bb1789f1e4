//! `antipode solve`: optimal solutions by IDA* (the default), plain iterative deepening,
//! or by descending a table.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use std::io::{BufRead, IsTerminal};

use antipode::puzzles::peg::{self, PegBoard};
use antipode::puzzles::{AnyPuzzle, Opened};
use antipode::solve::{self, Solvable};
use antipode::table::Table;
use antipode::{Puzzle, with_puzzle};

use super::{Format, PuzzleArgs};

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
    /// (default: ida; bibfs for sliding-block puzzles, whose bound is weak, unless
    /// --all)
    #[arg(long, value_enum)]
    method: Option<Method>,
    /// Every optimal solution, not just one (search methods only).
    #[arg(long)]
    all: bool,
    /// Give up beyond this many moves.
    #[arg(long, value_name = "N", default_value_t = 120)]
    max_length: u32,
    /// Also draw the board after every move.
    #[arg(long)]
    boards: bool,
    /// Output format: text (the moved pieces, one solution per line; with --boards,
    /// every board after) or json.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json]))]
    format: Format,
    /// Peg solitaire: fix the first jump, e.g. `0-6`.
    #[arg(long, value_name = "FROM-TO")]
    first: Option<String>,
    /// Worker threads of the search (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Sliding boards: IDA* bounded by the pattern databases of this partition of the
    /// tiles (sizes in goal order, e.g. 7-8, 6-6-3, 5-5-5), read from tables/ or built
    /// there first.
    #[arg(long, value_name = "SIZES")]
    pdb: Option<String>,
}

/// A solved position, as `--format json` writes it.
#[derive(serde::Serialize)]
pub struct Solved {
    pub puzzle: String,
    pub start: String,
    pub length: usize,
    pub solutions: Vec<Vec<String>>,
    pub nodes: u64,
    pub seconds: f64,
}

/// Solutions as moves and the positions after each move.
struct Outcome<S> {
    solutions: Vec<Vec<String>>,
    paths: Vec<Vec<S>>,
    nodes: u64,
}

pub fn run(args: Args) -> Result<()> {
    let puzzle = match args.puzzle.open()? {
        Opened::Ranked(puzzle) => puzzle,
        Opened::Peg(board) => return super::print(&solve_peg(&board, &args)?),
    };
    if args.first.is_some() {
        bail!("--first is for peg solitaire (hoppers, english33)");
    }
    if let Some(sizes) = &args.pdb {
        let AnyPuzzle::Sliding(board) = &puzzle else {
            bail!("--pdb is for sliding boards, not {}", puzzle.name());
        };
        return super::pdb::solve(board, sizes, &args.position, &PdbOptions::of(&args));
    }
    let batch = match args.position.as_deref() {
        Some("-") => true,
        Some(_) => false,
        None => !std::io::stdin().is_terminal() && with_puzzle!(&puzzle, p => p.start().is_none()),
    };
    if batch {
        return solve_batch(&puzzle, &args);
    }
    let started = Instant::now();
    let text = with_puzzle!(&puzzle, p => {
        let start = match &args.position {
            Some(text) => p.parse(text)?,
            None => match p.start() {
                Some(start) => start,
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
            None => super::with_threads(args.threads, || search(p, &args, &start))??,
        };
        render(p, &start, outcome, &args, started)?
    });
    super::print(&text)
}

#[derive(serde::Serialize)]
struct PegSolved {
    puzzle: String,
    start: String,
    length: u32,
    solutions: Vec<peg::PegSolution>,
    seconds: f64,
}

/// Fewest-move solutions of a peg solitaire board, in the seed's notation.
fn solve_peg(board: &PegBoard, args: &Args) -> Result<String> {
    if args.table.is_some() {
        bail!(antipode::puzzles::CatalogError::NotRanked(
            board.name().into()
        ));
    }
    if args.method.is_some() || args.boards {
        bail!("peg solitaire is solved by its own search: no --method or --boards");
    }
    let started = Instant::now();
    let start = match &args.position {
        None => board.start(),
        Some(text) => board.parse(text)?,
    };
    let first = args.first.as_deref().map(parse_jump).transpose()?;
    let (length, solutions) = board.solutions(start, first, args.all, args.max_length)?;
    Ok(match args.format {
        Format::Json | Format::Csv | Format::Tsv => {
            let solved = PegSolved {
                puzzle: board.name().into(),
                start: board.format(start),
                length,
                solutions,
                seconds: started.elapsed().as_secs_f64(),
            };
            serde_json::to_string_pretty(&solved)? + "\n"
        }
        Format::Text => solutions.iter().map(|s| peg::notation(s) + "\n").collect(),
    })
}

/// `0-6`: a jump from hole 0 to hole 6.
fn parse_jump(text: &str) -> Result<(u8, u8)> {
    let (from, to) = text
        .split_once('-')
        .context("--first takes FROM-TO, e.g. 0-6")?;
    Ok((
        from.trim().parse().context("--first: bad hole number")?,
        to.trim().parse().context("--first: bad hole number")?,
    ))
}

/// Options of a search with pattern databases.
pub struct PdbOptions {
    pub all: bool,
    pub max_length: u32,
    pub threads: Option<usize>,
    pub format: Format,
    pub boards: bool,
}

impl PdbOptions {
    fn of(args: &Args) -> PdbOptions {
        PdbOptions {
            all: args.all,
            max_length: args.max_length,
            threads: args.threads,
            format: args.format,
            boards: args.boards,
        }
    }
}

/// One line of a batch.
#[derive(serde::Serialize)]
pub struct BatchLine {
    pub position: String,
    pub length: usize,
    pub nodes: u64,
    pub seconds: f64,
}

impl BatchLine {
    /// The line in `format`: JSON, or length, nodes, seconds and the position.
    pub fn render(&self, format: Format) -> Result<String> {
        Ok(match format {
            Format::Text => format!(
                "{:>4} {:>14} {:>9.3}  {}\n",
                self.length, self.nodes, self.seconds, self.position
            ),
            _ => serde_json::to_string(self)? + "\n",
        })
    }
}

/// The positions of a batch: one per line of standard input, blank lines and `#`
/// comments skipped, with their line numbers.
pub fn batch_positions() -> Result<Vec<(usize, String)>> {
    let mut positions = Vec::new();
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read the positions from standard input")?;
        let text = line.trim();
        if !text.is_empty() && !text.starts_with('#') {
            positions.push((number + 1, text.to_string()));
        }
    }
    if positions.is_empty() {
        bail!("give a POSITION, or positions one per line on standard input (none were there)");
    }
    Ok(positions)
}

/// Solves every position of standard input, one output line each.
fn solve_batch(puzzle: &AnyPuzzle, args: &Args) -> Result<()> {
    if args.table.is_some() || args.boards || args.all {
        bail!("a batch prints one line per position: no --table, --boards or --all");
    }
    let positions = batch_positions()?;
    with_puzzle!(puzzle, p => {
        for (number, text) in positions {
            let started = Instant::now();
            let start = p
                .parse(&text)
                .with_context(|| format!("standard input, line {number}"))?;
            let outcome = super::with_threads(args.threads, || search(p, args, &start))??;
            let line = BatchLine {
                position: p.format_line(&start),
                length: outcome.solutions.first().map_or(0, Vec::len),
                nodes: outcome.nodes,
                seconds: started.elapsed().as_secs_f64(),
            };
            super::print(&line.render(args.format)?)?;
        }
    });
    Ok(())
}

fn search<P: Solvable>(p: &P, args: &Args, start: &P::State) -> Result<Outcome<P::State>> {
    let chosen = args
        .method
        .unwrap_or(if P::PREFERS_BIDIRECTIONAL && !args.all {
            Method::Bibfs
        } else {
            Method::Ida
        });
    let method = match chosen {
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
        Format::Json | Format::Csv | Format::Tsv => {
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
