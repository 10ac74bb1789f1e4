//! `antipode solve`: optimal solutions by IDA* (the default, with pattern databases on
//! sliding boards with --pdb), plain iterative deepening, or by descending a table;
//! for one position or a batch from standard input.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use antipode::jobs::{
    Databases, Limits, MAX_LENGTH, PositionsError, Solution, Solve, SolvePdb, SolveTwisty,
    read_positions,
};
use antipode::puzzle::Notation;
use antipode::puzzles::Opened;
use antipode::puzzles::kpuzzle::KPuzzle;
use antipode::puzzles::peg::{self, PegBoard};
use antipode::puzzles::sliding::BoardShape;
use antipode::solvers::kpuzzle::Database;
use antipode::solvers::peg::table::SolvableTable;
use antipode::table::Table;
use antipode::{jobs, with_puzzle};

use super::{Format, Interrupt, PuzzleArgs};

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

impl Method {
    fn job(self) -> jobs::Method {
        match self {
            Method::Ida => jobs::Method::Ida,
            Method::Iddfs => jobs::Method::Iddfs,
            Method::Bibfs => jobs::Method::Bibfs,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The start position (default: the puzzle's own start, where it has one), or `-`
    /// for a batch: one position per line on standard input (blank lines and `#`
    /// comments skipped, every line checked before any search starts), each answered
    /// by a line `LENGTH NODES SECONDS POSITION` (JSON: one object per line).
    position: Option<String>,
    /// Descend this table instead of searching (peg solitaire: search only the boards
    /// its table marks as still solvable).
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
    /// A batch: also give one optimal solution's moves, at the end of each line
    /// (JSON: `moves`).
    #[arg(long)]
    with_moves: bool,
    /// Output format: text (the moved pieces, one solution per line; with --boards,
    /// every board after) or json.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json]))]
    format: Format,
    /// Peg solitaire: fix the first jump, e.g. `0-6`.
    #[arg(long, value_name = "FROM-TO")]
    first: Option<String>,
    /// Worker threads of the search (default: all cores).
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    threads: Option<usize>,
    /// Sliding boards (up to 32 cells, the 24-puzzle too): IDA* bounded by the
    /// pattern databases of this partition of the tiles (sizes in goal order, e.g.
    /// 7-8, 6-6-3, 5-5-5, 6-6-6-6); twisty puzzles: by the databases of these
    /// projections (e.g. corners,edges6a,edges6b); read from tables/ or built there
    /// first.
    #[arg(long, value_name = "SIZES")]
    pdb: Option<String>,
}

#[derive(serde::Serialize)]
struct Solved {
    puzzle: String,
    start: String,
    notation: String,
    length: usize,
    solutions: Vec<Vec<String>>,
    nodes: u64,
    seconds: f64,
}

pub fn run(args: Args, interrupt: &Interrupt) -> Result<()> {
    if let Some(specs) = &args.pdb
        && let Some(puzzle) = super::pdb::twisty_puzzle(&args.puzzle)?
    {
        if args.table.is_some() {
            bail!("--pdb searches; --table descends a table: give one of them");
        }
        if args.first.is_some() || args.method.is_some() {
            bail!("--pdb runs IDA*: no --first or --method");
        }
        return solve_twisty(&puzzle, specs, &args, interrupt);
    }
    if let Some(sizes) = &args.pdb {
        if args.table.is_some() {
            bail!("--pdb searches; --table descends a table: give one of them");
        }
        if args.first.is_some() || args.method.is_some() {
            bail!("--pdb runs IDA* on a sliding board: no --first or --method");
        }
        let board = super::pdb::sliding_board(&args.puzzle, "--pdb is")?;
        return solve_with_pdb(&board, sizes, &args, interrupt);
    }
    let puzzle = match args.puzzle.open()? {
        Opened::Ranked(puzzle) => puzzle,
        Opened::Peg(board) => return super::print(&solve_peg(&board, &args)?),
    };
    if args.first.is_some() {
        bail!("--first is for peg solitaire (hoppers, english33)");
    }
    let table = args.table.as_ref().map(Table::open).transpose()?;
    with_puzzle!(&puzzle, p => {
        let batch = wants_batch(args.position.as_deref(), Notation::start(p).is_some());
        let mut job = Solve::new(p).limits(limits(&args));
        if let Some(table) = &table {
            job = job.table(table);
        }
        if let Some(method) = args.method {
            job = job.method(method.job());
        }
        for start in read_starts(p, &args, batch)? {
            let started = Instant::now();
            let working = super::progress::Working::start(batch, "searching");
            let solution = job.solve(&start);
            drop(working);
            let solution = solution?;
            print_solution(p, &start, solution, &args, batch, started.elapsed())?;
        }
    });
    Ok(())
}

/// What the arguments ask a solve job for.
fn limits(args: &Args) -> Limits {
    Limits {
        all: args.all,
        max_length: args.max_length,
        threads: args.threads,
    }
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
fn read_starts<N: Notation>(p: &N, args: &Args, batch: bool) -> Result<Vec<N::State>> {
    if !batch {
        if args.with_moves {
            bail!(
                "--with-moves adds the moves to a batch's lines (POSITION `-`); one position prints its moves anyway"
            );
        }
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
    match read_positions(p, std::io::stdin().lock()) {
        Err(PositionsError::Position { line, cause }) => {
            bail!("standard input, line {line}: {cause}")
        }
        Err(PositionsError::Empty) => {
            bail!("give a POSITION, or positions one per line on standard input (none were there)")
        }
        other => Ok(other?),
    }
}

/// Prints what solving `start` found: its solutions (or one line of a batch).
fn print_solution<N: Notation>(
    p: &N,
    start: &N::State,
    solution: Solution<N::State>,
    args: &Args,
    batch: bool,
    elapsed: Duration,
) -> Result<()> {
    if !batch {
        let summary = format!(
            "{} moves{}, {} nodes",
            solution.length(),
            match solution.moves.len() {
                1 => String::new(),
                n => format!(", {n} optimal solutions"),
            },
            antipode::units::thousands(solution.nodes),
        );
        super::print(&render(p, start, solution, args, elapsed)?)?;
        if args.format == Format::Text {
            // The figures go to standard error: standard output is the moves alone.
            eprintln!("{summary}, {:.3} s", elapsed.as_secs_f64());
        }
        return Ok(());
    }
    let line = BatchLine {
        position: p.format_line(start),
        length: solution.length(),
        nodes: solution.nodes,
        seconds: elapsed.as_secs_f64(),
        moves: args
            .with_moves
            .then(|| solution.moves.into_iter().next().unwrap_or_default()),
    };
    super::print(&match args.format {
        Format::Text => format!(
            "{:>4} {:>14} {:>9.3}  {}{}\n",
            line.length,
            line.nodes,
            line.seconds,
            line.position,
            match &line.moves {
                Some(moves) => format!("  {}", moves.join(" ")),
                None => String::new(),
            }
        ),
        _ => serde_json::to_string(&line)? + "\n",
    })
}

/// `solve BOARD --pdb SIZES`: IDA* bounded by the partition's databases (built into
/// tables/ first when missing), for one position or a batch.
fn solve_with_pdb(
    board: &BoardShape,
    sizes: &str,
    args: &Args,
    interrupt: &Interrupt,
) -> Result<()> {
    let databases = Databases::partition(board, sizes)?.threads_or_all(args.threads);
    let batch = wants_batch(args.position.as_deref(), false);
    let starts = read_starts(board, args, batch)?;
    let partition = super::pdb::open(databases, false, interrupt)?;
    let job = SolvePdb::new(board, &partition).limits(limits(args));
    if !batch {
        for start in starts {
            let started = Instant::now();
            let solution = job.solve(&start)?;
            print_solution(board, &start, solution, args, batch, started.elapsed())?;
        }
        return Ok(());
    }
    // Positions are solved several at once and printed in order; the first failure
    // (a search or writing the line) ends the batch.
    let mut outcome = Ok(());
    job.solve_batch(&starts, |index, result, time| {
        outcome = result.map_err(anyhow::Error::from).and_then(|solution| {
            print_solution(board, &starts[index], solution, args, batch, time)
        });
        outcome.is_ok()
    })?;
    outcome
}

/// `solve PUZZLE --pdb PROJECTIONS` on a twisty puzzle: IDA* bounded by the
/// projections' databases (built into tables/ first when missing).
fn solve_twisty(puzzle: &KPuzzle, specs: &str, args: &Args, interrupt: &Interrupt) -> Result<()> {
    let batch = wants_batch(args.position.as_deref(), false);
    let starts = read_starts(puzzle, args, batch)?;
    let databases = super::pdb::twisty_tables(
        puzzle,
        specs,
        args.threads,
        std::path::Path::new(antipode::jobs::TABLES_DIR),
        false,
        None,
        interrupt,
    )?;
    let databases = databases
        .into_iter()
        .map(|(projection, table)| Database::new(projection, table))
        .collect::<Result<Vec<_>, _>>()?;
    let job = SolveTwisty::new(puzzle, databases)?.limits(limits(args));
    for start in starts {
        let started = Instant::now();
        let solution = job.solve(&start)?;
        print_solution(puzzle, &start, solution, args, batch, started.elapsed())?;
    }
    Ok(())
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
    if args.method.is_some() {
        bail!("peg solitaire is solved by its own search: no --method");
    }
    if args.with_moves {
        bail!("--with-moves is for batches of ranked puzzles; peg solitaire prints its moves");
    }
    board.check_all_solutions(args.all)?;
    let started = Instant::now();
    let start = match &args.position {
        None => board.start(),
        Some(text) => board.parse(text)?,
    };
    let first = args.first.as_deref().map(parse_jump).transpose()?;
    let max_length = args.max_length.unwrap_or(MAX_LENGTH);
    let fewest = || super::progress::Working::start(false, "the fewest moves");
    let (length, solutions) = match &args.table {
        // The table says which boards can still reach the goal.
        Some(path) => {
            let table = SolvableTable::open(path)?;
            table.check_board(board)?;
            let _working = fewest();
            board.solutions_among(start, first, args.all, max_length, &table)?
        }
        None => {
            let bar = super::progress::TaskBar::new(
                false,
                "the boards that can still reach the goal",
                "boards",
            );
            let control = antipode::driver::Control::new(&bar, None);
            let solvable =
                antipode::solvers::peg::levels::solvable_sets(board, start.count_ones(), &control)?;
            drop(bar);
            let _working = fewest();
            board.solutions_among(start, first, args.all, max_length, &solvable)?
        }
    };
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
        Format::Text => {
            let mut text = String::new();
            for solution in &solutions {
                text.push_str(&(peg::notation(solution) + "\n"));
                if args.boards {
                    text.push_str(&peg_boards(board, start, solution)?);
                }
            }
            // The figures go to standard error (after the moves): standard output is
            // the moves alone.
            let summary = format!(
                "{length} moves{}, {:.3} s",
                match solutions.len() {
                    1 => String::new(),
                    n => format!(", {n} solutions"),
                },
                started.elapsed().as_secs_f64()
            );
            super::print(&text)?;
            eprintln!("{summary}");
            String::new()
        }
    })
}

/// The holes' numbers, the start and the board after every move of `solution`.
fn peg_boards(board: &PegBoard, start: u64, solution: &peg::PegSolution) -> Result<String> {
    let mut text = format!(
        "\nholes\n{}\nstart\n{}",
        board.draw_holes(),
        board.draw(start)
    );
    let mut now = start;
    for (k, chain) in solution.iter().enumerate() {
        for jump in chain.windows(2) {
            now = board
                .jump(now, jump[0], jump[1])
                .context("a solution's jump is legal")?;
        }
        let holes: Vec<String> = chain.iter().map(u8::to_string).collect();
        text.push_str(&format!(
            "\n{} move [{}]\n{}",
            k + 1,
            holes.join(","),
            board.draw(now)
        ));
    }
    text.push('\n');
    Ok(text)
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
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<String>>,
}

fn render<N: Notation>(
    p: &N,
    start: &N::State,
    solution: Solution<N::State>,
    args: &Args,
    elapsed: Duration,
) -> Result<String> {
    let length = solution.length();
    Ok(match args.format {
        Format::Json | Format::Csv | Format::Tsv => {
            let solved = Solved {
                puzzle: p.name(),
                start: p.format_line(start),
                notation: p.notation(),
                length,
                solutions: solution.moves,
                nodes: solution.nodes,
                seconds: elapsed.as_secs_f64(),
            };
            serde_json::to_string_pretty(&solved)? + "\n"
        }
        Format::Text => {
            let mut text = String::new();
            for (moves, states) in solution.moves.iter().zip(&solution.paths) {
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
