//! `antipode info` and `antipode verify`: what a table file says, and whether it holds.

use std::path::PathBuf;

use anyhow::{Result, bail};

use antipode::jobs::{VerifyOptions, verify_file_observed};
use antipode::puzzles;
use antipode::table;
use antipode::units::{depth_table, human_bytes, thousands};

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
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
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
    let header = match table::read_header_of(&args.path) {
        Err(table::TableError::Header {
            cause: table::HeaderError::PegTable,
            ..
        }) => return peg_info(&args),
        other => other?,
    };
    let manifest = match table::shards::manifest_path(&args.path) {
        Some(path) => Some(table::shards::read_whole_header(&path)?.0),
        None => None,
    };
    let text = match args.format {
        Format::Json | Format::Csv | Format::Tsv => {
            let mut json = serde_json::to_value(&header)?;
            if let Some(manifest) = &manifest {
                json["shards"] = serde_json::to_value(&manifest.shards)?;
            }
            serde_json::to_string_pretty(&json)? + "\n"
        }
        Format::Text => {
            let levels = header.histogram.len();
            let reached: u64 = header.histogram.iter().sum();
            let mut s = format!(
                "table           {}\nformat          version {}\npuzzle          {}\n\
                 goal            {}\ndefinition      sha256 {}\nindices         {}\n\
                 covers          {}\nreached         {}{}\n\
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
                covers(&header),
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
            if let Some(manifest) = &manifest {
                s.push_str(&shard_lines(manifest));
            }
            s.push('\n');
            s.push_str(&depth_table("depth  count", &header.histogram));
            s
        }
    };
    super::print(&text)?;
    // The header is shown either way; a complete table's payload must match it (its
    // size and checksum, every shard's through a manifest).
    if header.complete
        && let Err(e) = table::check_file(&args.path, true)
    {
        bail!("the file does not match the header shown: {e}");
    }
    Ok(())
}

/// A table in shards: its shards, one line each.
fn shard_lines(manifest: &table::shards::Manifest) -> String {
    let mut s = format!(
        "shards          {} ({}, one per rank)\n",
        manifest.shards.len(),
        table::shards::MANIFEST
    );
    for shard in &manifest.shards {
        s.push_str(&format!(
            "  {}  indices {}..{}  crc32 {}\n",
            shard.file,
            thousands(shard.start),
            thousands(shard.end),
            shard.payload_crc32.as_deref().unwrap_or("- (incomplete)")
        ));
    }
    s
}

/// The index range a file covers, in words.
fn covers(header: &table::Header) -> String {
    let range = &header.index_range;
    if *range == (0..header.indices) {
        "the whole table".into()
    } else {
        format!(
            "indices {}..{} (a shard)",
            thousands(range.start),
            thousands(range.end)
        )
    }
}

pub fn verify(args: VerifyArgs) -> Result<()> {
    let options = VerifyOptions {
        puzzle: args.puzzle.clone(),
        metric: args
            .metric
            .as_deref()
            .map(|m| puzzles::Metric::from_name(m).expect("clap checked the name")),
        goal: args.goal.clone(),
        threads: args.threads,
    };
    let bar = super::progress::TaskBar::new(
        false,
        &format!("verifying {}", args.path.display()),
        "entries",
    );
    let checks = verify_file_observed(&args.path, &options, &bar);
    drop(bar);
    report(&args, &checks?)
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

/// `info` on a peg solitaire table: its header.
fn peg_info(args: &InfoArgs) -> Result<()> {
    let header = antipode::solvers::peg::table::read_header(&args.path)?;
    let text = match args.format {
        Format::Text => {
            let mut s = format!(
                "table           {}\nkind            peg solitaire: the boards that can still reach the goal\n\
                 puzzle          {}\ngoal            {}\ndefinition      sha256 {}\n\
                 holes           {}\nsolvable        {} boards{}\nstate           {}\n\
                 crc32           {:08x}\n\n",
                args.path.display(),
                header.puzzle,
                header.goal,
                header.definition_sha256,
                header.holes,
                thousands(header.histogram.iter().sum()),
                if header.complete { "" } else { " so far" },
                if header.complete {
                    "complete"
                } else {
                    "incomplete (resume with analyze --table)"
                },
                header.payload_crc32,
            );
            s.push_str(&depth_table("pegs  solvable boards", &header.histogram));
            s
        }
        _ => serde_json::to_string_pretty(&header)? + "\n",
    };
    super::print(&text)?;
    if header.complete
        && let Err(e) = antipode::solvers::peg::table::SolvableTable::open(&args.path)
    {
        bail!("the file does not match the header shown: {e}");
    }
    Ok(())
}
