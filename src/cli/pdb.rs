//! `antipode pdb`: builds the pattern databases of a partition as table files, and
//! `solve --pdb`: IDA* bounded by them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use antipode::jobs::{Databases, Projections, TABLES_DIR};
use antipode::pdb::{Partition, PartitionEvent, tile_list};
use antipode::puzzles::kpuzzle::KPuzzle;
use antipode::puzzles::{self, CatalogError, sliding::BoardShape};
use antipode::table::header::HEADER_BYTES;
use antipode::units::{human_bytes, thousands};

use super::progress::LevelPrinter;
use super::{Interrupt, PuzzleArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Split the tiles, in goal order, into patterns of these sizes, e.g. 7-8, 6-6-3,
    /// 5-5-5.
    #[arg(long, value_name = "SIZES", conflicts_with = "pattern")]
    partition: Option<String>,
    /// One pattern's tiles, e.g. 1,2,3,4,5,6,7 (repeat for several).
    #[arg(long, value_name = "TILES")]
    pattern: Vec<String>,
    /// Twisty puzzles: the projections to build, comma-separated: a name from the
    /// definition (3x3x3: corners, edges6a, edges6b, edges7a, edges7b, cross), an orbit
    /// (CORNERS), some of its pieces (EDGES:0-5, EDGES:0,2,4), joined by + (repeat
    /// for several).
    #[arg(long, value_name = "PROJECTIONS", conflicts_with_all = ["partition", "pattern"])]
    orbits: Vec<String>,
    /// Folder of the database files.
    #[arg(long, value_name = "DIR", default_value = TABLES_DIR)]
    dir: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    threads: Option<usize>,
    /// Quiet: no progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Save a build's progress at most every SECONDS (default 30 beside a sliding
    /// board's database, 2 in a twisty projection's table; 0: after every level); a
    /// checkpoint also waits thirty times as long as the last one took.
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds)]
    checkpoint_every: Option<std::time::Duration>,
}

pub fn run(args: Args, interrupt: &Interrupt) -> Result<()> {
    if let Some(puzzle) = twisty_puzzle(&args.puzzle)? {
        return run_twisty(&puzzle, &args, interrupt);
    }
    if !args.orbits.is_empty() {
        bail!(
            "--orbits is for twisty puzzles (KPuzzle definitions), not {}",
            args.puzzle.puzzle
        );
    }
    let board = sliding_board(&args.puzzle, "pattern databases are")?;
    let job = match &args.partition {
        Some(sizes) => Databases::partition(&board, sizes)?,
        None if args.pattern.is_empty() => {
            bail!("give --partition SIZES (e.g. 7-8) or --pattern TILES")
        }
        None => Databases::tile_lists(&board, &args.pattern).context("--pattern")?,
    };
    let started = Instant::now();
    let mut job = job.dir(&args.dir).threads_or_all(args.threads);
    if let Some(every) = args.checkpoint_every {
        job = job.checkpoint_every(every);
    }
    let partition = open(job, args.quiet, interrupt)?;
    let mut text = String::new();
    for db in partition.databases() {
        let header = db.header();
        let info = header.pattern.as_ref().context("a pattern database")?;
        text.push_str(&format!(
            "tiles {:<24} {:>13} placements  max {:>2}  {} bits ({} base)  {:>10}  {}\n",
            tile_list(&info.tiles),
            thousands(header.indices),
            header.histogram.len().saturating_sub(1),
            header.encoding.bits(),
            format!("{:?}", info.base).to_lowercase(),
            human_bytes((HEADER_BYTES as u64 + header.payload_bytes) as f64),
            db.path().display()
        ));
    }
    text.push_str(&format!(
        "{} database(s) ready in {:.1} s\n",
        partition.databases().len(),
        started.elapsed().as_secs_f64()
    ));
    super::print(&text)
}

/// The twisty puzzle a command names (with `--moves` and `--metric`), if it names one;
/// projections' databases are built for it even when it is too large for a table.
pub(super) fn twisty_puzzle(puzzle: &PuzzleArgs) -> Result<Option<KPuzzle>> {
    let name = puzzle.name()?;
    let base = name.split(" --").next().unwrap_or_default();
    if !puzzles::kpuzzle::library::is_kpuzzle_name(base) {
        return Ok(None);
    }
    if puzzle.goal.is_some() {
        bail!(
            "--goal with pattern databases: a twisty puzzle's databases bound the distance \
             to its solved state, not to a goal set (analyze the goal set with --table and \
             solve by it)"
        );
    }
    Ok(Some(puzzles::kpuzzle::library::open(&name)?))
}

/// Builds the missing databases of a twisty puzzle's projections (reporting on stderr
/// unless `quiet`) and opens them all as tables; Ctrl-C stops a build, which the same
/// command resumes.
pub(super) fn twisty_tables(
    puzzle: &KPuzzle,
    specs: &str,
    threads: Option<usize>,
    dir: &std::path::Path,
    quiet: bool,
    checkpoint_every: Option<std::time::Duration>,
    interrupt: &Interrupt,
) -> Result<Vec<(KPuzzle, antipode::table::Table)>> {
    let mut job = Projections::new(puzzle, specs)
        .dir(dir)
        .threads_or_all(threads);
    if let Some(every) = checkpoint_every {
        job = job.checkpoint_every(every);
    }
    let states = |p: &KPuzzle| p.layout().ok().and_then(|l| l.index_count()).unwrap_or(0);
    let indices = job
        .plan()?
        .iter()
        .map(|(p, _)| states(p))
        .max()
        .unwrap_or(0);
    let printer = LevelPrinter::new(quiet, antipode::driver::SearchShape::states(indices));
    let stop = interrupt.arm();
    let opened = job
        .observer(&printer)
        .stop(&stop)
        .tables_with(|projection, path| {
            if !quiet {
                eprintln!(
                    "building the pattern database of {} ({} states) into {}",
                    antipode::Notation::name(projection),
                    thousands(
                        projection
                            .layout()
                            .ok()
                            .and_then(|l| l.index_count())
                            .unwrap_or(0)
                    ),
                    path.display()
                );
            }
        });
    interrupt.disarm();
    Ok(opened?)
}

/// `pdb PUZZLE --orbits ...` on a twisty puzzle.
fn run_twisty(puzzle: &KPuzzle, args: &Args, interrupt: &Interrupt) -> Result<()> {
    if args.orbits.is_empty() {
        bail!(
            "name the projections of {} with --orbits, e.g. --orbits {}",
            puzzle.base_name(),
            puzzle.kdefinition().projections.first().map_or_else(
                || puzzle.kdefinition().orbits[0].name.clone(),
                |(n, _)| n.clone()
            )
        );
    }
    let started = Instant::now();
    let specs = args.orbits.join(",");
    let tables = twisty_tables(
        puzzle,
        &specs,
        args.threads,
        &args.dir,
        args.quiet,
        args.checkpoint_every,
        interrupt,
    )?;
    let mut text = String::new();
    for (_, table) in &tables {
        let header = table.header();
        text.push_str(&format!(
            "{:<36} {:>13} states  max {:>2}  {} bits  {:>10}  {}\n",
            header.puzzle,
            thousands(header.indices),
            header.histogram.len().saturating_sub(1),
            header.encoding.bits(),
            human_bytes((HEADER_BYTES as u64 + header.payload_bytes) as f64),
            table.path().display()
        ));
    }
    text.push_str(&format!(
        "{} database(s) ready in {:.1} s\n",
        tables.len(),
        started.elapsed().as_secs_f64()
    ));
    super::print(&text)
}

/// The sliding board a command names, with its goal; `what` names what asks for it
/// in the refusal of another puzzle.
pub(super) fn sliding_board(puzzle: &PuzzleArgs, what: &str) -> Result<BoardShape> {
    let shape = match puzzles::sliding_board(&puzzle.puzzle, puzzle.goal.as_deref()) {
        Err(CatalogError::NotSliding(name)) => bail!("{what} for sliding boards, not {name}"),
        other => other?,
    };
    if puzzle.metric.is_some() {
        bail!(
            "--metric is for sliding-block puzzles from description files, not {}",
            shape.name()
        );
    }
    Ok(shape)
}

/// Opens (or builds, reporting on stderr unless `quiet`) the databases of a job;
/// Ctrl-C stops a build with a checkpoint.
pub(super) fn open(job: Databases<'_>, quiet: bool, interrupt: &Interrupt) -> Result<Partition> {
    let bar = BuildBar::default();
    let report = move |event: PartitionEvent| {
        if !quiet {
            bar.event(event);
        }
    };
    // After the databases are open (while `solve --pdb` searches, say) Ctrl-C ends the
    // process as usual.
    let opened = job.stop(&interrupt.arm()).events(report).open();
    interrupt.disarm();
    Ok(opened?)
}

/// A database build's progress on standard error: a line when it starts, a bar of the
/// placements reached (with the rate and the time left) while it runs, a line when it
/// is written.
#[derive(Default)]
struct BuildBar {
    bar: std::sync::Mutex<Option<indicatif::ProgressBar>>,
}

impl BuildBar {
    fn event(&self, event: PartitionEvent) {
        let mut bar = self.bar.lock().expect("progress lock");
        match event {
            PartitionEvent::Building {
                tiles,
                path,
                placements,
            } => {
                eprintln!(
                    "building the pattern database of tiles {} ({} placements) into {}",
                    tile_list(&tiles),
                    thousands(placements),
                    path.display()
                );
                let progress = indicatif::ProgressBar::new(placements);
                progress.set_style(
                    indicatif::ProgressStyle::with_template(
                        "  distance {prefix:>3} [{bar:30}] {percent:>3}% {elapsed}  {msg}",
                    )
                    .expect("valid template")
                    .progress_chars("=> "),
                );
                *bar = Some(progress);
            }
            PartitionEvent::Level { depth, placements } => {
                if let Some(progress) = bar.as_ref() {
                    progress.set_prefix(depth.to_string());
                    progress.inc(placements);
                    let seconds = progress.elapsed().as_secs_f64().max(1e-3);
                    let rate = progress.position() as f64 / seconds;
                    let left = (progress.length().unwrap_or(0) - progress.position()) as f64
                        / rate.max(1.0);
                    progress.set_message(format!(
                        "{} placements/s, ~{left:.0} s left",
                        antipode::units::compact(rate)
                    ));
                }
            }
            PartitionEvent::Built {
                path,
                bytes,
                seconds,
            } => {
                if let Some(progress) = bar.take() {
                    progress.finish_and_clear();
                }
                eprintln!(
                    "  built in {seconds:.1} s: {} ({})",
                    path.display(),
                    human_bytes(bytes as f64)
                );
            }
            PartitionEvent::Resumed { checkpoint, depth } => eprintln!(
                "  resuming from {} (distances up to {depth} done)",
                checkpoint.display()
            ),
            PartitionEvent::Opened { .. } => {}
        }
    }
}
