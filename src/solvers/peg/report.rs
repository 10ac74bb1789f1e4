//! The report of a peg solitaire analysis: text, JSON or CSV.

use std::fmt::Write as _;

use super::levels::PegAnalysis;
use crate::report::Format;
use crate::units::thousands;

/// The report in the given format (CSV: one row per number of jumps), ending with a
/// newline.
#[must_use]
pub fn render(a: &PegAnalysis, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(a).expect("analysis serializes");
            s.push('\n');
            s
        }
        Format::Csv => {
            let mut s = String::from("puzzle,reachable,jumps,pegs,boards,classes\n");
            let start_pegs = a.start.matches('1').count();
            for (jumps, &count) in a.jumps_histogram.iter().enumerate() {
                let (boards, classes) = match &a.classes {
                    Some(c) => (c.positions_by_depth[jumps], count.to_string()),
                    None => (count, String::new()),
                };
                let _ = writeln!(
                    s,
                    "{},{},{jumps},{},{boards},{classes}",
                    a.puzzle,
                    a.reachable,
                    start_pegs - jumps
                );
            }
            s
        }
        Format::Text => text(a),
    }
}

fn text(a: &PegAnalysis) -> String {
    let mut s = String::new();
    let start_pegs = a.start.matches('1').count();
    let _ = writeln!(s, "puzzle          {} ({} holes)", a.puzzle, a.holes);
    let _ = writeln!(s, "start           {} ({start_pegs} pegs)", a.start);
    match &a.classes {
        None => {
            let _ = writeln!(s, "reachable       {} boards", thousands(a.reachable));
        }
        Some(c) => {
            let _ = writeln!(
                s,
                "reachable       {} classes of boards",
                thousands(a.reachable)
            );
            let _ = writeln!(
                s,
                "symmetries      {} (those fixing the start; one board per class searched)",
                c.symmetries
            );
            let _ = writeln!(s, "positions       {} boards", thousands(c.positions));
        }
    }
    let finishes = if a.one_peg_finishes.is_empty() {
        "none".to_string()
    } else {
        let holes: Vec<String> = a.one_peg_finishes.iter().map(u8::to_string).collect();
        format!("hole {}", holes.join(", "))
    };
    let _ = writeln!(s, "one peg left    {finishes}");
    let goal = match (a.goal_reachable, a.goal_moves) {
        (false, _) => "cannot be reached".to_string(),
        (true, Some(moves)) => format!("reached in {moves} moves (fewest)"),
        (true, None) => "reachable (`antipode solve` finds the fewest moves)".to_string(),
    };
    let _ = writeln!(s, "goal            {}: {goal}", a.goal);
    let _ = writeln!(
        s,
        "memory          {:.1} MiB of level bit sets",
        a.level_bytes as f64 / (1 << 20) as f64
    );
    let _ = writeln!(s, "time            {:.3} s\n", a.seconds);
    match &a.classes {
        None => {
            let _ = writeln!(s, "jumps  pegs  boards");
            for (jumps, count) in a.jumps_histogram.iter().enumerate() {
                let _ = writeln!(s, "{jumps:>5}  {:>4}  {count}", start_pegs - jumps);
            }
        }
        Some(c) => {
            let _ = writeln!(s, "jumps  pegs  classes  boards");
            for (jumps, count) in a.jumps_histogram.iter().enumerate() {
                let boards = c.positions_by_depth[jumps];
                let _ = writeln!(
                    s,
                    "{jumps:>5}  {:>4}  {count}  {boards}",
                    start_pegs - jumps
                );
            }
        }
    }
    if let Some(moves) = &a.moves_histogram {
        s.push('\n');
        s.push_str(&crate::units::depth_table(
            "moves  boards (by their fewest moves)",
            moves,
        ));
    }
    s
}
