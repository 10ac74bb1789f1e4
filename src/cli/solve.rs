//! `antipode solve`: an optimal solution by descending a table.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use antipode::table::Table;
use antipode::{Puzzle, with_puzzle};

use super::PuzzleArgs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The moved pieces on one line (with --boards, every board after it).
    Text,
    /// One JSON object.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The start position.
    position: String,
    /// The table to descend.
    #[arg(long, value_name = "PATH")]
    table: Option<PathBuf>,
    /// Also draw the board after every move.
    #[arg(long)]
    boards: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(serde::Serialize)]
struct Solved {
    puzzle: String,
    start: String,
    length: usize,
    solutions: Vec<Vec<String>>,
    seconds: f64,
}

pub fn run(args: Args) -> Result<()> {
    let Some(path) = &args.table else {
        bail!("solve needs --table PATH (build one with `antipode analyze PUZZLE --table`)");
    };
    let puzzle = args.puzzle.resolve()?;
    let started = Instant::now();
    let table = Table::open(path)?;
    let text = with_puzzle!(&puzzle, p => {
        let start = p.parse(&args.position)?;
        let steps = table.solve(p, &start)?;
        let moves: Vec<String> = steps.iter().map(|s| s.moved.to_string()).collect();
        match args.format {
            Format::Json => {
                let solved = Solved {
                    puzzle: p.name(),
                    start: p.format_line(&start),
                    length: moves.len(),
                    solutions: vec![moves],
                    seconds: started.elapsed().as_secs_f64(),
                };
                serde_json::to_string_pretty(&solved)? + "\n"
            }
            Format::Text => {
                let mut text = format!("{}\n", moves.join(" "));
                if args.boards {
                    text.push_str(&format!("\nstart\n{}", p.render_board(&start)));
                    for (k, step) in steps.iter().enumerate() {
                        text.push_str(&format!("\n{} move {}\n{}", k + 1, step.moved, p.render_board(&step.state)));
                    }
                }
                text
            }
        }
    });
    super::print(&text)
}
