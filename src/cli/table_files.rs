//! `antipode info` and `antipode verify`: what a table file says, and whether it holds.

use std::path::PathBuf;

use anyhow::{Result, bail};

use antipode::puzzles::BuiltIn;
use antipode::report::thousands;
use antipode::sys::human_bytes;
use antipode::table::{self, Table};
use antipode::with_puzzle;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Words.
    Text,
    /// One JSON object.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// The table file.
    path: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The table file.
    path: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

pub fn info(args: InfoArgs) -> Result<()> {
    let header = table::read_header_of(&args.path)?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&header)? + "\n",
        Format::Text => {
            let levels = header.histogram.len();
            let mut s = format!(
                "table           {}\npuzzle          {}\ngoal            {}\nindices         {}\n\
                 entries         {} bits ({})\npayload         {} bytes ({})\n\
                 state           {}\nlevels          {levels}\ncrc32           {:08x}\n",
                args.path.display(),
                header.puzzle,
                header.goal,
                thousands(header.indices),
                header.encoding.bits(),
                if header.encoding.bits() == 8 {
                    "exact depth"
                } else {
                    "depth mod 3"
                },
                thousands(header.payload_bytes),
                human_bytes(header.payload_bytes as f64),
                if header.complete {
                    "complete"
                } else {
                    "incomplete (resume with analyze --table)"
                },
                header.payload_crc32,
            );
            s.push_str("\ndepth  count\n");
            for (d, c) in header.histogram.iter().enumerate() {
                s.push_str(&format!("{d:>5}  {c}\n"));
            }
            s
        }
    };
    super::print(&text)
}

pub fn verify(args: VerifyArgs) -> Result<()> {
    let table = Table::open_unverified(&args.path)?;
    let header = table.header();
    let puzzle = BuiltIn::from_identity(&header.puzzle, &header.goal)?;
    let checks = super::with_threads(
        args.threads,
        || with_puzzle!(&puzzle, p => table::verify(&table, p)),
    )?;
    let mut text = String::new();
    for check in &checks {
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
