//! `antipode solve`: optimal solutions by IDA* (the default, with pattern databases on
//! sliding boards with --pdb), plain iterative deepening, or by descending a table;
//! for one position or a batch from standard input.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::pdb::Partition;
use antipode::puzzles::Opened;
use antipode::puzzles::peg::{self, PegBoard};
use antipode::puzzles::sliding::BoardShape;
use antipode::puzzles::sliding::pdb_search::PdbSpace;
use antipode::solve::{self, Solvable, ida};
use antipode::table::Table;
use antipode::{PositionError, Puzzle, with_puzzle};

use super::{Format, PuzzleArgs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// IDA*: iterative deepening with the puzzle's lower bound (Manhattan distance for
    /// sliding boards and the goal's pieces of sliding-block puzzles, misplaced stones
    /// for Oshidori).
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
    /// Give up beyond this many moves (default: 120; 300 on boards of more than 16
    /// cells).
    #[arg(long, value_name = "N")]
    max_length: Option<u32>,
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
    /// Sliding boards (up to 32 cells, the 24-puzzle too): IDA* bounded by the
    /// pattern databases of this partition of the tiles (sizes in goal order, e.g.
    /// 7-8, 6-6-3, 5-5-5, 6-6-6-6), read from tables/ or built there first.
    #[arg(long, value_name = "SIZES")]
    pdb: Option<String>,
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

impl<S> Outcome<S> {
    /// What a search found, its nodes turned into positions by `state`.
    fn of<M: std::fmt::Display, N>(found: solve::Found<M, N>, state: impl Fn(&N) -> S) -> Self {
        Outcome {
            solutions: found
                .solutions
                .iter()
                .map(|moves| moves.iter().map(M::to_string).collect())
                .collect(),
            paths: found
                .paths
                .iter()
                .map(|nodes| nodes.iter().map(&state).collect())
                .collect(),
            nodes: found.nodes,
        }
    }
}

/// The longest solution searched for unless --max-length says otherwise.
const MAX_LENGTH: u32 = 120;

/// The same on boards of more than 16 cells (the 24-puzzle's diameter is unknown; its
/// hardest known positions take 152 moves).
const MAX_LENGTH_BIG_BOARDS: u32 = 300;

pub fn run(args: Args) -> Result<()> {
    if let Some(sizes) = &args.pdb {
        if args.table.is_some() {
            bail!("--pdb searches; --table descends a table: give one of them");
        }
        if args.first.is_some() || args.method.is_some() {
            bail!("--pdb runs IDA* on a sliding board: no --first or --method");
        }
        let board = super::pdb::sliding_board(&args.puzzle, "--pdb is")?;
        return solve_with_pdb(&board, sizes, &args);
    }
    let puzzle = match args.puzzle.open()? {
        Opened::Ranked(puzzle) => puzzle,
        Opened::Peg(board) => return super::print(&solve_peg(&board, &args)?),
    };
    if args.first.is_some() {
        bail!("--first is for peg solitaire (hoppers, english33)");
    }
    with_puzzle!(&puzzle, p => {
        let p = &Ranked(p);
        let batch = wants_batch(args.position.as_deref(), p.start().is_some());
        let table = match &args.table {
            Some(path) => {
                if args.all {
                    bail!("--all needs a search method, not --table");
                }
                Some(Table::open(path)?)
            }
            None => None,
        };
        for start in read_starts(p, &args, batch)? {
            let started = Instant::now();
            let outcome = match &table {
                Some(table) => {
                    let steps = table.solve(p.0, &start)?;
                    Outcome {
                        solutions: vec![steps.iter().map(|s| s.moved.to_string()).collect()],
                        paths: vec![steps.into_iter().map(|s| s.state).collect()],
                        nodes: 0,
                    }
                }
                None => super::with_threads(args.threads, || search(p.0, &args, &start))??,
            };
            print_outcome(p, &start, outcome, &args, batch, started)?;
        }
    });
    Ok(())
}

/// Whether the command solves a batch from standard input: POSITION `-`, or no
/// POSITION for a puzzle without a start of its own while the input is not a
/// terminal.
fn wants_batch(position: Option<&str>, has_start: bool) -> bool {
    match position {
        Some("-") => true,
        Some(_) => false,
        None => !has_start && !std::io::stdin().is_terminal(),
    }
}

/// The start positions: the one given (or the puzzle's own), or in a batch every
/// line of standard input, all read before any search starts.
fn read_starts<P: Notation>(p: &P, args: &Args, batch: bool) -> Result<Vec<P::State>> {
    if !batch {
        return Ok(vec![match &args.position {
            Some(text) => p.parse(text)?,
            None => match p.start() {
                Some(start) => start,
                None => bail!(
                    "{} has no start position of its own: give a POSITION",
                    p.name()
                ),
            },
        }]);
    }
    if args.boards || args.all {
        bail!("a batch prints one line per position: no --boards or --all");
    }
    let mut starts = Vec::new();
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read the positions from standard input")?;
        let text = line.trim();
        if !text.is_empty() && !text.starts_with('#') {
            starts.push(
                p.parse(text)
                    .with_context(|| format!("standard input, line {}", number + 1))?,
            );
        }
    }
    if starts.is_empty() {
        bail!("give a POSITION, or positions one per line on standard input (none were there)");
    }
    Ok(starts)
}

/// Prints what solving `start` found: its solutions (or one line of a batch).
fn print_outcome<P: Notation>(
    p: &P,
    start: &P::State,
    outcome: Outcome<P::State>,
    args: &Args,
    batch: bool,
    started: Instant,
) -> Result<()> {
    if !batch {
        return super::print(&render(p, start, outcome, args, started)?);
    }
    let line = BatchLine {
        position: p.format_line(start),
        length: outcome.solutions.first().map_or(0, Vec::len),
        nodes: outcome.nodes,
        seconds: started.elapsed().as_secs_f64(),
    };
    super::print(&match args.format {
        Format::Text => format!(
            "{:>4} {:>14} {:>9.3}  {}\n",
            line.length, line.nodes, line.seconds, line.position
        ),
        _ => serde_json::to_string(&line)? + "\n",
    })
}

/// `solve BOARD --pdb SIZES`: IDA* bounded by the partition's databases (built into
/// tables/ first when missing), for one position or a batch.
fn solve_with_pdb(board: &BoardShape, sizes: &str, args: &Args) -> Result<()> {
    let patterns = Partition::split(board.rows(), board.cols(), board.goal(), sizes)?;
    let batch = wants_batch(args.position.as_deref(), false);
    let starts = read_starts(board, args, batch)?;
    let max_length = args.max_length.unwrap_or(if board.indexable() {
        MAX_LENGTH
    } else {
        MAX_LENGTH_BIG_BOARDS
    });
    let partition = super::with_threads(args.threads, || {
        super::pdb::open(board, Path::new(super::pdb::TABLES), &patterns, false)
    })??;
    let space = PdbSpace::new(board, &partition);
    for start in starts {
        let started = Instant::now();
        let found = super::with_threads(args.threads, || {
            ida::search(&space, &space.node(&start), args.all, max_length)
        })??;
        let outcome = Outcome::of(found, |node| space.position(node).to_vec());
        print_outcome(board, &start, outcome, args, batch, started)?;
    }
    Ok(())
}

/// What reading positions and printing solutions needs of a puzzle.
trait Notation {
    type State;
    fn name(&self) -> String;
    fn start(&self) -> Option<Self::State>;
    fn parse(&self, text: &str) -> Result<Self::State, PositionError>;
    fn format_line(&self, state: &Self::State) -> String;
    fn render_board(&self, state: &Self::State) -> String;
}

/// An indexed puzzle's notation.
struct Ranked<'a, P>(&'a P);

impl<P: Puzzle> Notation for Ranked<'_, P> {
    type State = P::State;
    fn name(&self) -> String {
        self.0.name()
    }
    fn start(&self) -> Option<P::State> {
        self.0.start()
    }
    fn parse(&self, text: &str) -> Result<P::State, PositionError> {
        self.0.parse(text)
    }
    fn format_line(&self, state: &P::State) -> String {
        self.0.format_line(state)
    }
    fn render_board(&self, state: &P::State) -> String {
        self.0.render_board(state)
    }
}

/// A board's notation: positions as row-major tile numbers, which must reach the goal.
impl Notation for BoardShape {
    type State = Vec<u8>;
    fn name(&self) -> String {
        BoardShape::name(self)
    }
    fn start(&self) -> Option<Vec<u8>> {
        None
    }
    fn parse(&self, text: &str) -> Result<Vec<u8>, PositionError> {
        self.parse_position(text)
    }
    fn format_line(&self, cells: &Vec<u8>) -> String {
        BoardShape::format_line(self, cells)
    }
    fn render_board(&self, cells: &Vec<u8>) -> String {
        self.render(cells)
    }
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
    let max_length = args.max_length.unwrap_or(MAX_LENGTH);
    let (length, solutions) = board.solutions(start, first, args.all, max_length)?;
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

/// One line of a batch.
#[derive(serde::Serialize)]
struct BatchLine {
    position: String,
    length: usize,
    nodes: u64,
    seconds: f64,
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
    let max_length = args.max_length.unwrap_or(MAX_LENGTH);
    let found = solve::solve(p, start, method, args.all, max_length)?;
    Ok(Outcome::of(found, P::State::clone))
}

fn render<P: Notation>(
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
