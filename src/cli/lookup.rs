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
    let puzzle = args.puzzle.resolve()?;
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
    let answers: Vec<Result<String>> = with_puzzle!(&puzzle, p => {
        table.check_puzzle(p)?;
        lines
            .par_iter()
            .enumerate()
            .map(|(i, line)| {
                let position = p.parse(line).map_err(|e| {
                    let place = if from_stdin { format!("line {}", i + 1) } else { format!("`{line}`") };
                    anyhow!("{place}: {e}")
                })?;
                let distance = table.distance(p, &position)?;
                Ok(format!("{distance} {}", p.format_line(&position)))
            })
            .collect()
    });
    let mut out = String::with_capacity(answers.len() * 24);
    for answer in answers {
        out.push_str(&answer?);
        out.push('\n');
    }
    super::print(&out)
}
