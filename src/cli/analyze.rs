//! `antipode analyze`: the full breadth-first search and its report, optionally into a
//! table file that survives interruption.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::engine::{EngineError, Histogram};
use antipode::puzzles::{AnyPuzzle, CatalogError, Opened};
use antipode::report;
use antipode::store::Encoding;
use antipode::table::{self, TableError};
use antipode::{Puzzle, analysis, with_depths, with_puzzle};

use super::progress::LevelPrinter;
use super::{Bits, Format, PuzzleArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Output format: text, json or csv.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json, Format::Csv]))]
    format: Format,
    /// Draw at most N antipodes as boards (text format).
    #[arg(long, value_name = "N", default_value_t = 8)]
    show: usize,
    /// Write the depth table to a file (default path: tables/PUZZLE-BITSbit.table). An
    /// unfinished table of the same puzzle there is resumed.
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    #[allow(clippy::option_option)]
    table: Option<Option<PathBuf>>,
    /// Bits per state in the table: 8 (exact depth) or 2 (depth mod 3).
    #[arg(long, value_enum, default_value = "8", requires = "table")]
    bits: Bits,
    /// Overwrite a complete table (or another puzzle's file) at the table path.
    #[arg(long, requires = "table")]
    force: bool,
    /// No progress lines on standard error.
    #[arg(long, short)]
    quiet: bool,
}

/// Set by Ctrl-C: the search stops between work items.
static STOP: AtomicBool = AtomicBool::new(false);

pub fn run(args: Args) -> Result<()> {
    let puzzle = match args.puzzle.open()? {
        Opened::Ranked(puzzle) => puzzle,
        Opened::Peg(board) => {
            if args.table.is_some() {
                bail!(CatalogError::NotRanked(board.name().into()));
            }
            let analysis = super::with_threads(args.threads, || board.analysis())?;
            return super::print(&report::render_peg(&analysis, args.format.report()));
        }
    };
    let printer = LevelPrinter::new(args.quiet);
    let analysis = match &args.table {
        None => super::with_threads(
            args.threads,
            || with_puzzle!(&puzzle, p => analysis::analyze(p, args.show, &printer)),
        )??,
        Some(path) => {
            let encoding = args.bits.encoding();
            let path = path
                .clone()
                .unwrap_or_else(|| default_table_path(&puzzle, encoding));
            ctrlc::set_handler(|| STOP.store(true, Ordering::Relaxed))
                .context("cannot install the Ctrl-C handler")?;
            let result = super::with_threads(
                args.threads,
                || with_puzzle!(&puzzle, p => build_table(p, &path, encoding, &args, &printer)),
            )?;
            match result {
                Err(TableError::Engine(EngineError::Interrupted { histogram })) => bail!(
                    "interrupted: {} holds {} complete level(s); run the same command again \
                     to resume",
                    path.display(),
                    histogram.len()
                ),
                other => other?,
            }
        }
    };
    super::print(&report::render(&analysis, args.format.report()))
}

fn build_table<P: Puzzle>(
    puzzle: &P,
    path: &std::path::Path,
    encoding: Encoding,
    args: &Args,
    printer: &LevelPrinter,
) -> Result<analysis::Analysis, TableError> {
    let started = Instant::now();
    let options = table::BuildOptions {
        encoding,
        force: args.force,
        ..Default::default()
    };
    let built = table::build(puzzle, path, &options, printer, Some(&STOP))?;
    if !args.quiet {
        let resumed = match built.resumed_levels {
            0 => String::new(),
            n => format!(", resumed after {n} level(s)"),
        };
        eprintln!(
            "table {} complete: {}-bit entries, crc32 {:08x}{resumed}",
            path.display(),
            built.header.encoding.bits(),
            built.header.payload_crc32
        );
    }
    let histogram = Histogram(built.header.histogram.clone());
    let last_level = built.last_level;
    let mut depths = built.depths;
    Ok(with_depths!(&mut depths, s => {
        analysis::summarize(puzzle, s, histogram, last_level, args.show, started)
    }))
}

/// `tables/NAME-BITSbit.table`, with the goal in the name when it is not the usual one.
fn default_table_path(puzzle: &AnyPuzzle, encoding: Encoding) -> PathBuf {
    let name = puzzle.name().replace(':', "-");
    let usual = antipode::puzzles::lookup(&puzzle.name())
        .map(|p| with_puzzle!(&p, q => table::identity(q).goal))
        .ok();
    let goal = with_puzzle!(puzzle, p => table::identity(p).goal);
    let suffix = if usual.as_deref() == Some(goal.as_str()) {
        String::new()
    } else {
        let cleaned: String = goal
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("-goal-{cleaned}")
    };
    PathBuf::from("tables").join(format!("{name}{suffix}-{}bit.table", encoding.bits()))
}
