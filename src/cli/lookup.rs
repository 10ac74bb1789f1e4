//! `antipode lookup`: exact distances of positions from a table.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use antipode::jobs::PegLookup;
use antipode::puzzles::Opened;
use antipode::puzzles::peg::PegBoard;
use antipode::table::Table;
use antipode::{jobs, with_puzzle};

use super::{Format, PuzzleArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The table file.
    #[arg(long, value_name = "PATH")]
    table: PathBuf,
    /// Positions (quote those with spaces); none: one per line on standard input.
    positions: Vec<String>,
    /// Output: text (`DISTANCE POSITION` per line, stops after the answers before the
    /// first bad position),
    /// json (one object per line: position and distance, or the error) or tsv.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json, Format::Tsv]))]
    format: Format,
}

pub fn run(args: Args) -> Result<()> {
    let opened = args.puzzle.open()?;
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
    let puzzle = match opened {
        Opened::Ranked(puzzle) => puzzle,
        Opened::Peg(board) => return lookup_peg(&board, &args, &lines, from_stdin),
    };
    let table = Table::open(&args.table)?;
    let answers = with_puzzle!(&puzzle, p => jobs::lookup(p, &table, &lines))?;
    let place = |k: usize, line: &str| {
        if from_stdin {
            format!("line {}", k + 1)
        } else {
            format!("`{line}`")
        }
    };
    let failed = answers.iter().filter(|a| a.is_err()).count();
    let out = match args.format {
        Format::Text => {
            let mut out = String::with_capacity(answers.len() * 32);
            for (k, (answer, line)) in answers.iter().zip(&lines).enumerate() {
                match answer {
                    Ok((position, distance)) => {
                        out.push_str(&format!("{distance} {position}\n"));
                    }
                    Err(e) => {
                        // The answers before the bad line are printed, as JSON's are.
                        super::print(&out)?;
                        bail!("{}: {e}", place(k, line))
                    }
                }
            }
            out
        }
        Format::Json | Format::Csv => {
            let mut out = String::with_capacity(answers.len() * 48);
            for (k, (answer, line)) in answers.iter().zip(&lines).enumerate() {
                let object = match answer {
                    Ok((position, distance)) => {
                        serde_json::json!({ "position": position, "distance": distance })
                    }
                    Err(e) => serde_json::json!({ "input": line, "line": k + 1, "error": e }),
                };
                out.push_str(&object.to_string());
                out.push('\n');
            }
            out
        }
        Format::Tsv => {
            let mut out = String::from("position\tdistance\terror\n");
            for (answer, line) in answers.iter().zip(&lines) {
                match answer {
                    Ok((position, distance)) => {
                        out.push_str(&format!("{position}\t{distance}\t\n"))
                    }
                    Err(e) => out.push_str(&format!("{line}\t\t{e}\n")),
                }
            }
            out
        }
    };
    super::print(&out)?;
    if failed > 0 {
        bail!(
            "{failed} of {} position(s) could not be looked up",
            answers.len()
        );
    }
    Ok(())
}

/// `lookup` on a peg solitaire board: whether each board can still reach the goal,
/// from the board's peg table.
fn lookup_peg(board: &PegBoard, args: &Args, lines: &[&str], from_stdin: bool) -> Result<()> {
    let table = PegLookup::open(&args.table, board)?;
    let mut out = String::new();
    if args.format == Format::Tsv {
        out.push_str("position\tsolvable\n");
    }
    for (k, line) in lines.iter().enumerate() {
        let (text, solvable) = match table.solvable(line) {
            Ok(answer) => answer,
            Err(e) => {
                super::print(&out)?;
                let place = if from_stdin {
                    format!("line {}", k + 1)
                } else {
                    format!("`{line}`")
                };
                bail!("{place}: {e}");
            }
        };
        match args.format {
            Format::Json => {
                out.push_str(
                    &serde_json::json!({ "position": text, "solvable": solvable }).to_string(),
                );
                out.push('\n');
            }
            Format::Tsv => out.push_str(&format!("{text}\t{solvable}\n")),
            _ => out.push_str(&format!(
                "{} {text}\n",
                if solvable { "solvable" } else { "unsolvable" }
            )),
        }
    }
    super::print(&out)
}
