//! `antipode info` and `antipode verify`: what a table file says, and whether it holds.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use antipode::pdb::{Pattern, Pdb, tile_list};
use antipode::puzzles;
use antipode::table::{self, Table};
use antipode::units::{depth_table, human_bytes, thousands};
use antipode::with_puzzle;

use super::Format;

#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// The table file.
    path: PathBuf,
    /// Output format: text or json.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json]))]
    format: Format,
}

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The table file.
    path: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// The puzzle, when its name alone does not find it: the description file a table
    /// of a sliding-block puzzle was built from.
    #[arg(long, value_name = "NAME|FILE")]
    puzzle: Option<String>,
    /// The move metric the table was built with, if not the description's.
    #[arg(long, value_name = "METRIC", value_parser = ["step", "line", "path"])]
    metric: Option<String>,
    /// The goal a pattern database was built for, when its header holds it cut short
    /// (long boards such as the 24-puzzle's).
    #[arg(long, value_name = "POSITION")]
    goal: Option<String>,
}

pub fn info(args: InfoArgs) -> Result<()> {
    let header = table::read_header_of(&args.path)?;
    let text = match args.format {
        Format::Json | Format::Csv | Format::Tsv => serde_json::to_string_pretty(&header)? + "\n",
        Format::Text => {
            let levels = header.histogram.len();
            let reached: u64 = header.histogram.iter().sum();
            let mut s = format!(
                "table           {}\nformat          version {}\npuzzle          {}\n\
                 goal            {}\ndefinition      sha256 {}\nindices         {}\n\
                 reached         {}{}\n\
                 entries         {} bits ({})\npayload         {} bytes ({})\n\
                 state           {}\nlevels          {levels}\ncrc32           {:08x}\n",
                args.path.display(),
                header.version,
                header.puzzle,
                header.goal,
                header
                    .definition_sha256
                    .as_deref()
                    .unwrap_or("- (version 1: name and goal)"),
                thousands(header.indices),
                thousands(reached),
                if header.complete { "" } else { " so far" },
                header.encoding.bits(),
                header.entries_meaning(),
                thousands(header.payload_bytes),
                human_bytes(header.payload_bytes as f64),
                match (header.complete, &header.pattern) {
                    (true, _) => "complete",
                    (false, None) => "incomplete (resume with analyze --table)",
                    (false, Some(_)) => "incomplete",
                },
                header.payload_crc32,
            );
            s.push('\n');
            s.push_str(&depth_table("depth  count", &header.histogram));
            s
        }
    };
    super::print(&text)
}

pub fn verify(args: VerifyArgs) -> Result<()> {
    let header = table::read_header_of(&args.path)?;
    if header.pattern.is_some() {
        let checks = super::with_threads(args.threads, || verify_pdb(&args, &header))??;
        return report(&args, &checks);
    }
    if args.goal.is_some() {
        bail!("--goal is for pattern databases; a depth table's puzzle has its goal");
    }
    let table = Table::open_unverified(&args.path)?;
    let header = table.header();
    let mut puzzle = match &args.puzzle {
        Some(name) => puzzles::lookup(name)?,
        None => puzzles::from_identity(&header.puzzle, &header.goal).with_context(|| {
            format!(
                "{}: cannot find the puzzle `{}` by name (give its description with --puzzle FILE)",
                args.path.display(),
                header.puzzle
            )
        })?,
    };
    if let Some(metric) = &args.metric {
        puzzle = puzzle.with_metric(puzzles::Metric::from_name(metric).expect("clap checked"))?;
    }
    let checks = super::with_threads(
        args.threads,
        || with_puzzle!(&puzzle, p => table::verify(&table, p)),
    )?;
    report(&args, &checks)
}

/// Checks a pattern database: opening it checks its payload and definition (a
/// failure there is the command's error), then every entry.
fn verify_pdb(args: &VerifyArgs, header: &table::Header) -> Result<Vec<table::Check>> {
    if args.puzzle.is_some() || args.metric.is_some() {
        bail!("a pattern database names its board and goal itself: no --puzzle or --metric");
    }
    let info = header.pattern.as_ref().context("a pattern database")?;
    let shape = puzzles::board_shape(&header.puzzle).with_context(|| {
        format!(
            "{}: `{}` is not a sliding board",
            args.path.display(),
            header.puzzle
        )
    })??;
    let goal = match &args.goal {
        Some(goal) => shape.parse(goal).context("--goal")?,
        None if header.goal.ends_with('…') => bail!(
            "{}: the header holds the goal cut short ({}): give it with --goal",
            args.path.display(),
            header.goal
        ),
        None => shape
            .parse(&header.goal)
            .with_context(|| format!("{}: its goal", args.path.display()))?,
    };
    let pattern = Pattern::new(shape.rows(), shape.cols(), &goal, &info.tiles)?;
    let pdb = Pdb::open(&args.path, &pattern, &goal)?;
    let mut checks = vec![
        table::Check {
            name: "payload checksum".into(),
            ok: true,
            detail: format!("{:08x}", header.payload_crc32),
        },
        table::Check {
            name: "definition".into(),
            ok: true,
            detail: format!(
                "tiles {} of {} (goal {})",
                tile_list(&info.tiles),
                header.puzzle,
                header.goal
            ),
        },
    ];
    checks.extend(antipode::pdb::verify::verify(&pdb));
    Ok(checks)
}

/// Prints the checks; fails with the first that does not hold.
fn report(args: &VerifyArgs, checks: &[table::Check]) -> Result<()> {
    let mut text = String::new();
    for check in checks {
        text.push_str(&format!(
            "{} {}: {}\n",
            if check.ok { "ok  " } else { "FAIL" },
            check.name,
            check.detail
        ));
    }
    super::print(&text)?;
    if let Some(failed) = checks.iter().find(|c| !c.ok) {
        bail!(
            "{}: verification failed: {}",
            args.path.display(),
            failed.name
        );
    }
    Ok(())
}
