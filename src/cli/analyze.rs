//! `antipode analyze`: the full breadth-first search and its report, optionally into a
//! table file that survives interruption.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use antipode::jobs::{AnalyzeJobError, AnalyzePeg, PegAnalyzed};
use antipode::puzzles::peg::PegBoard;
use antipode::puzzles::{AnyPuzzle, Opened};
use antipode::report;
use antipode::solvers::peg::report as peg_report;
use antipode::units::thousands;
use antipode::{Analyze, Puzzle, analysis, with_puzzle};

use super::progress::{LevelPrinter, PegLevels};
use super::{Bits, Format, Interrupt, PuzzleArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    threads: Option<usize>,
    /// Output format: text, json or csv.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json, Format::Csv]))]
    format: Format,
    /// Draw at most N antipodes as boards, each with moves that reach it from the goal
    /// (text; JSON lists the moves as `antipode_moves`).
    #[arg(long, value_name = "N", default_value_t = 8)]
    show: usize,
    /// Write the depth table to a file (default path: tables/PUZZLE-BITSbit.table). An
    /// unfinished table of the same puzzle there is resumed. Peg solitaire: the table
    /// of the boards that can still reach the goal (tables/BOARD-solvable.table). With
    /// --distributed: a folder, one shard per rank and a manifest.
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    table: Option<Option<PathBuf>>,
    /// Bits per state in the table (or, with --distributed, in memory): 8 (exact
    /// depth, the default) or 2 (depth mod 3, a quarter of the size); peg solitaire
    /// tables have one bit per board.
    #[arg(long, value_enum)]
    bits: Option<Bits>,
    /// Overwrite a complete table (or another puzzle's file) at the table path.
    #[arg(long, requires = "table")]
    force: bool,
    /// Save progress into the table at most every SECONDS (default 2; 0: after every
    /// level); a checkpoint also waits thirty times as long as the last one took.
    #[arg(long, value_name = "SECONDS", requires = "table", value_parser = super::seconds)]
    checkpoint_every: Option<std::time::Duration>,
    /// The memory the table's levels may use (e.g. 16MiB, 2GiB; default: this
    /// machine's). A table larger than that runs its levels on disk: a block of it in
    /// memory at a time, neighbours for other blocks in bucket files beside the table.
    #[arg(
        long,
        value_name = "SIZE",
        requires = "table",
        conflicts_with = "distributed",
        value_parser = antipode::units::parse_bytes
    )]
    memory: Option<u64>,
    /// No progress lines on standard error.
    #[arg(long, short)]
    quiet: bool,
    /// Search from one position instead of the goal set: `start` (the puzzle's own)
    /// or a POSITION. Reports its component's size and the positions farthest from it.
    /// Peg solitaire: another start.
    #[arg(long, value_name = "start|POSITION")]
    from: Option<String>,
    /// Count the connected components of the whole index space, with their sizes and
    /// one position of each.
    #[arg(long)]
    components: bool,
    /// Search over classes of positions under the puzzle's symmetries: one entry per
    /// class, and the report gives classes and positions per depth. Twisty puzzles:
    /// S⁻¹·P·S for every symmetry S (rotations and mirrors, found from the moves or
    /// named by the definition), one index per class. Peg solitaire: the board's
    /// rotations and reflections that fix the start, one board per class searched.
    #[arg(long)]
    symmetry: bool,
    /// Draw the depth histogram into an SVG file (linear and log scale).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Run as one rank of an MPI job, `mpirun -np N antipode-mpi analyze PUZZLE
    /// --distributed [--table DIR]`: each rank holds its slice of the depths (8 or 2
    /// bits each, --bits) and one thread, and writes its shard of the table; rank 0
    /// prints the report. Needs the `antipode-mpi` binary (`cargo build --release -p
    /// antipode-mpi`).
    #[arg(long, conflicts_with_all = ["from", "components", "threads"])]
    distributed: bool,
    /// Count instead of searching, in seconds: the positions, with --symmetry the
    /// classes (Burnside's count) and the slots of the class index, the table's bytes at
    /// 8 and 2 bits, and whether it fits this machine.
    #[arg(long, conflicts_with_all = ["from", "components", "distributed", "table", "plot"])]
    count: bool,
}

pub fn run(args: Args, interrupt: &Interrupt) -> Result<()> {
    run_analysis(&args, interrupt).map_err(|e| with_databases_hint(e, &args.puzzle.puzzle))
}

/// A sliding board too large for a table: the error, and the pattern databases that
/// solve its positions instead.
fn with_databases_hint(error: anyhow::Error, name: &str) -> anyhow::Error {
    use antipode::analysis::AnalyzeError;
    use antipode::jobs::AnalyzeJobError;
    use antipode::puzzles::CatalogError;
    let too_large = error.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<AnalyzeJobError>(),
            Some(AnalyzeJobError::Analyze(AnalyzeError::TooLarge { .. }))
        ) || matches!(
            cause.downcast_ref::<CatalogError>(),
            Some(CatalogError::OutOfRange(_))
        )
    });
    let Some(Ok(shape)) = antipode::puzzles::board_shape(name).filter(|_| too_large) else {
        return error;
    };
    let tiles = shape.rows() * shape.cols() - 1;
    let most = if tiles < 16 { 8 } else { 6 };
    let parts = tiles.div_ceil(most);
    let sizes: Vec<String> = (0..parts)
        .map(|k| (tiles / parts + usize::from(k >= parts - tiles % parts)).to_string())
        .collect();
    let sizes = sizes.join("-");
    anyhow::anyhow!(
        "{error}; pattern databases solve its positions: `antipode pdb {name} --partition \
         {sizes}`, then `antipode solve {name} --pdb {sizes} POSITION`"
    )
}

fn run_analysis(args: &Args, interrupt: &Interrupt) -> Result<()> {
    if args.count {
        let counting = super::progress::Working::start(args.quiet, "counting");
        let options = args.puzzle.options(args.symmetry);
        let census = antipode::jobs::census(&args.puzzle.puzzle, &options)?;
        drop(counting);
        return super::print(&super::census::report(&census, args.format)?);
    }
    if args.bits.is_some() && args.table.is_none() && !args.distributed {
        bail!("--bits sets the entries of a table: give --table too");
    }
    let opened = match args.puzzle.open()? {
        Opened::Ranked(_) if args.symmetry => {
            let _setting_up = super::progress::Working::start(args.quiet, "setting up the classes");
            args.puzzle.open_classes(true)?
        }
        other => other,
    };
    let puzzle = match opened {
        Opened::Ranked(puzzle) => puzzle,
        Opened::Peg(board) if args.distributed => bail!(
            "{} is peg solitaire, whose boards have no ranking to cut into slices: \
             --distributed analyzes ranked puzzles",
            board.name()
        ),
        Opened::Peg(board) => return analyze_peg(board, args, interrupt),
    };
    if args.distributed {
        let bits = args.bits.unwrap_or(Bits::Eight).encoding();
        if let Some(path) = &args.plot {
            super::plot::check_writable(path)?;
        }
        let table = match &args.table {
            None => None,
            Some(None) => {
                bail!("--distributed writes a table in shards: name its folder, --table DIR")
            }
            Some(Some(dir)) => Some(super::distributed::ShardedTable {
                dir: dir.clone(),
                options: antipode::table::BuildOptions {
                    encoding: bits,
                    force: args.force,
                    memory: None,
                },
                checkpoint_every: args.checkpoint_every,
            }),
        };
        let run = super::distributed::Run {
            encoding: bits,
            quiet: args.quiet,
            boards: args.show,
            table,
        };
        return match super::distributed::analyze(&puzzle, &run)? {
            Some(analysis) => finish(&analysis, args),
            None => Ok(()),
        };
    }
    if let Some(path) = &args.plot {
        super::plot::check_writable(path)?;
    }
    if args.components {
        if args.plot.is_some() {
            bail!("--components reports component sizes, not a depth histogram: no --plot");
        }
        if args.table.is_some() || args.from.is_some() {
            bail!("--components covers the whole index space: no --table or --from");
        }
        let text = super::with_threads(
            args.threads,
            || with_puzzle!(&puzzle, p => components_report(p, args.format)),
        )?;
        return super::print(&text);
    }
    let analysis = match &args.from {
        None => run_on(&puzzle, None, args, interrupt)?,
        Some(from) => run_on(
            &fixing(puzzle, from, args.quiet)?,
            Some(from),
            args,
            interrupt,
        )?,
    };
    finish(&analysis, args)
}

/// The puzzle a search from `from` runs over ([`AnyPuzzle::fixing`]); says so when
/// symmetry classes gave way to the positions, no symmetry but the identity fixing
/// the position.
fn fixing(puzzle: AnyPuzzle, from: &str, quiet: bool) -> Result<AnyPuzzle> {
    let classes = matches!(puzzle, AnyPuzzle::KClasses(_));
    let fixed = puzzle.fixing(from)?;
    if classes && !quiet && matches!(fixed, AnyPuzzle::KPuzzle(_)) {
        eprintln!(
            "symmetry: no symmetry but the identity fixes the --from position: its positions \
             are searched one by one"
        );
    }
    Ok(fixed)
}

/// Draws the plot if asked and prints the report.
fn finish(analysis: &analysis::Analysis, args: &Args) -> Result<()> {
    if let Some(path) = &args.plot {
        let histogram = antipode::plot::Histogram::new(
            &analysis.puzzle,
            analysis.indices,
            analysis.histogram.clone(),
        );
        super::plot::write_svg(path, &[histogram])?;
        if !args.quiet {
            eprintln!("plot {}: the depth histogram drawn (SVG)", path.display());
        }
    }
    super::print(&report::render(analysis, args.format.report()))
}

/// Analyzes `puzzle` (in memory, or into a table file), from the goal or from `from`,
/// as the arguments ask.
fn run_on(
    puzzle: &AnyPuzzle,
    from: Option<&str>,
    args: &Args,
    interrupt: &Interrupt,
) -> Result<analysis::Analysis> {
    let shape = with_puzzle!(puzzle, p => antipode::driver::SearchShape::of(p));
    let printer = LevelPrinter::new(args.quiet, shape);
    let mut job = Analyze::new(puzzle)
        .threads_or_all(args.threads)
        .observer(&printer)
        .boards(args.show);
    if let Some(from) = from {
        job = job.from(from);
    }
    match &args.table {
        None => return job.run().map_err(|e| from_error(e, from)),
        Some(None) => {
            job = job
                .encoding(args.bits.unwrap_or(Bits::Eight).encoding())
                .default_table()
        }
        Some(Some(path)) => {
            job = job
                .encoding(args.bits.unwrap_or(Bits::Eight).encoding())
                .table(path)
        }
    }
    if let Some(every) = args.checkpoint_every {
        job = job.checkpoint_every(every);
    }
    if let Some(memory) = args.memory {
        job = job.memory(memory);
    }
    let (report, table) = job
        .force(args.force)
        .stop(&interrupt.arm())
        .run_with_table()
        .map_err(|e| from_error(e, from))?;
    if let Some(table) = table
        && !args.quiet
    {
        if table.already_complete {
            eprintln!(
                "table {} was already complete: the report is read from it (--force builds it \
                 again)",
                table.path.display()
            );
            return Ok(report);
        }
        let resumed = match table.resumed_levels {
            0 => String::new(),
            n => format!(", resumed after {n} level(s)"),
        };
        eprintln!(
            "table {} complete: {}-bit entries, crc32 {:08x}{resumed}",
            table.path.display(),
            table.bits,
            table.crc32
        );
    }
    Ok(report)
}

/// A job's error, said in terms of `--from` where the position given there is at fault.
fn from_error(error: AnalyzeJobError, from: Option<&str>) -> anyhow::Error {
    match error {
        AnalyzeJobError::NoStart(name) => {
            anyhow::anyhow!("{name} has no start position of its own: give --from POSITION")
        }
        AnalyzeJobError::Analyze(analysis::AnalyzeError::Position(e)) if from.is_some() => {
            anyhow::Error::new(e).context("--from")
        }
        other => other.into(),
    }
}

/// The components of the whole index space, largest first, with one position each.
fn components_report<P: Puzzle>(puzzle: &P, format: Format) -> String {
    report::render_components(&antipode::jobs::components(puzzle), format.report())
}

/// `analyze` on a peg solitaire board: the boards reachable by jumps, per peg count;
/// with `--table`, also the file of the boards that can still reach the goal.
fn analyze_peg(board: PegBoard, args: &Args, interrupt: &Interrupt) -> Result<()> {
    if args.plot.is_some() || args.components {
        bail!(
            "{} is searched forward by jumps: no --plot or --components (the report lists \
             the boards per jump)",
            board.name()
        );
    }
    if args.bits.is_some() {
        bail!("a peg solitaire table has one bit per board: no --bits");
    }
    if args.memory.is_some() {
        bail!("a peg solitaire search keeps its levels as bit sets in memory: no --memory");
    }
    let board = match args.from.as_deref() {
        None | Some("start") => board,
        Some(position) => {
            let start = board.parse(position).context("--from")?;
            board.with_start(start)
        }
    };
    let stop = interrupt.arm();
    let forward = PegLevels::forward(args.quiet, board.start().count_ones());
    let backward = PegLevels::backward(args.quiet, board.goal_pegs());
    let mut job = AnalyzePeg::new(&board)
        .symmetry(args.symmetry)
        .default_checkpoint()
        .force(args.force)
        .threads_or_all(args.threads)
        .observers(&forward, &backward)
        .stop(&stop);
    if let Some(path) = &args.table {
        job = job.table(path.clone());
    }
    if let Some(every) = args.checkpoint_every {
        job = job.checkpoint_every(every);
    }
    let done = job.run();
    interrupt.disarm();
    let PegAnalyzed { analysis, table } = done?;
    let mut out = peg_report::render(&analysis, args.format.report());
    if let (Some((path, solvable)), Format::Text) = (&table, args.format) {
        out.push_str(&format!(
            "\ntable           {} ({} boards can reach the goal)\n",
            path.display(),
            thousands(*solvable)
        ));
    }
    super::print(&out)
}
