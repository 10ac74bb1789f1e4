//! The report of a peg solitaire analysis: text, JSON or CSV.

use std::fmt::Write as _;

use super::levels::PegAnalysis;
use crate::report::Format;
use crate::units::thousands;

/// The report in the given format (CSV: one row per number of jumps), ending with a
/// newline.
pub fn render(a: &PegAnalysis, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(a).expect("analysis serializes");
            s.push('\n');
            s
        }
        Format::Csv => {
            let mut s = String::from("puzzle,reachable,jumps,pegs,boards,boards_up_to_symmetry\n");
            let start_pegs = a.start.matches('1').count();
            for (jumps, count) in a.jumps_histogram.iter().enumerate() {
                let classes = a
                    .jumps_histogram_up_to_symmetry
                    .as_ref()
                    .map_or(String::new(), |c| c[jumps].to_string());
                let _ = writeln!(
                    s,
                    "{},{},{jumps},{},{count},{classes}",
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
    let _ = writeln!(s, "reachable       {} boards", thousands(a.reachable));
    if let (Some(classes), Some(symmetries)) = (a.reachable_up_to_symmetry, a.symmetries) {
        let _ = writeln!(
            s,
            "up to symmetry  {} boards ({symmetries} symmetries fix the start)",
            thousands(classes)
        );
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
    let _ = write!(s, "jumps  pegs  boards");
    if a.jumps_histogram_up_to_symmetry.is_some() {
        let _ = write!(s, "  up to symmetry");
    }
    s.push('\n');
    for (jumps, count) in a.jumps_histogram.iter().enumerate() {
        let _ = write!(s, "{jumps:>5}  {:>4}  {count}", start_pegs - jumps);
        if let Some(classes) = &a.jumps_histogram_up_to_symmetry {
            let _ = write!(s, "  {}", classes[jumps]);
        }
        s.push('\n');
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
