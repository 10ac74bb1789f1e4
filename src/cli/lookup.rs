//! `antipode lookup`: exact distances of positions from a table.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use rayon::prelude::*;

use antipode::table::Table;
use antipode::{Puzzle, with_puzzle};

use super::PuzzleArgs;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The table file.
    #[arg(long, value_name = "PATH")]
    table: PathBuf,
    /// Positions (quote those with spaces); none: one per line on standard input.
    positions: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    let puzzle = args.puzzle.ranked()?;
    let table = Table::open(&args.table)?;
    let from_stdin = args.positions.is_empty();
    let mut input = String::new();
    let lines: Vec<&str> = if from_stdin {
        std::io::stdin()
            .read_to_string(&mut input)
            .context("cannot read positions from standard input")?;
        input.lines().filter(|l| !l.trim().is_empty()).collect()
    } else {
        args.positions.iter().map(String::as_str).collect()
    };
    const BATCH: usize = 1 << 14;
    let answers: Vec<Result<String>> = with_puzzle!(&puzzle, p => {
        let table = table.for_puzzle(p)?;
        lines
            .par_chunks(BATCH)
            .enumerate()
            .map(|(batch, chunk)| {
                let mut out = String::with_capacity(chunk.len() * 32);
                for (k, line) in chunk.iter().enumerate() {
                    let position = p.parse(line).map_err(|e| {
                        let place = if from_stdin {
                            format!("line {}", batch * BATCH + k + 1)
                        } else {
                            format!("`{line}`")
                        };
                        anyhow!("{place}: {e}")
                    })?;
                    let distance = table.distance(&position)?;
                    out.push_str(&distance.to_string());
                    out.push(' ');
                    out.push_str(&p.format_line(&position));
                    out.push('\n');
                }
                Ok(out)
            })
            .collect()
    });
    let mut out = String::new();
    for answer in answers {
        out.push_str(&answer?);
    }
    super::print(&out)
}
