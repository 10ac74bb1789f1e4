//! Rendering an [`Analysis`] as text (people), JSON or CSV (scripts).

use std::fmt::Write as _;

use crate::analysis::Analysis;
use crate::components::ComponentsReport;
use crate::units::{depth_table, human_bytes, thousands};

/// Output formats of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned text with boards.
    Text,
    /// One JSON object.
    Json,
    /// One row per depth, then one per antipode.
    Csv,
}

/// The report in the given format, ending with a newline.
#[must_use]
pub fn render(analysis: &Analysis, format: Format) -> String {
    match format {
        Format::Text => text(analysis),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(analysis).expect("analysis serializes");
            s.push('\n');
            s
        }
        Format::Csv => csv(analysis),
    }
}

/// The indices that are no reachable state: a class index's unused slots, the states
/// not connected to depth 0, and the goal set's size.
fn states_not_reached(s: &mut String, a: &Analysis) {
    if a.unused_slots > 0 {
        let _ = writeln!(
            *s,
            "unused slots    {} (indices of the class index that number no class)",
            thousands(a.unused_slots)
        );
    }
    let unreachable = a.indices.saturating_sub(a.reachable + a.unused_slots);
    if unreachable > 0 {
        let _ = writeln!(
            *s,
            "unreachable     {} (not connected to depth 0: the goal set, or the --from position)",
            thousands(unreachable)
        );
    }
    if a.goal_states > 1 {
        let _ = writeln!(*s, "goal states     {}", thousands(a.goal_states));
    }
}

fn text(a: &Analysis) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "puzzle          {}", a.puzzle);
    let _ = writeln!(s, "goal            {}", a.goal);
    let _ = writeln!(s, "indices         {}", thousands(a.indices));
    let _ = writeln!(s, "reachable       {}", thousands(a.reachable));
    if let Some(order) = a.group_order {
        let _ = writeln!(
            s,
            "group order     {} (Schreier-Sims: the states the moves reach{})",
            crate::units::thousands_wide(order),
            if order == a.reachable as u128 {
                ""
            } else {
                " with every piece told apart"
            }
        );
    }
    states_not_reached(&mut s, a);
    if let Some(c) = &a.classes {
        let of = if c.symmetries < c.puzzle_symmetries {
            format!(
                " of {}, those fixing the --from position",
                c.puzzle_symmetries
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "symmetries      {}{of} (one index per class of positions; Burnside: {} classes)",
            c.symmetries,
            crate::units::thousands_wide(c.burnside_classes)
        );
        let _ = writeln!(
            s,
            "positions       {}",
            crate::units::thousands_wide(c.positions)
        );
    }
    let _ = writeln!(s, "god's number    {}", a.gods_number);
    match &a.classes {
        Some(c) => {
            let _ = writeln!(
                s,
                "antipodes       {} classes, {} positions",
                thousands(a.antipode_count),
                crate::units::thousands_wide(c.antipode_positions)
            );
        }
        None => {
            let _ = writeln!(s, "antipodes       {}", thousands(a.antipode_count));
        }
    }
    let _ = writeln!(
        s,
        "time            {:.3} s on {} thread(s), peak memory {}",
        a.seconds,
        a.threads,
        human_bytes(a.peak_rss_bytes as f64)
    );
    if let Some(exchange) = &a.exchange {
        let _ = writeln!(
            s,
            "ranks           {}, peak memory per rank {}, {} of indices exchanged",
            exchange.ranks,
            exchange
                .peak_rss_bytes_per_rank
                .iter()
                .map(|&b| human_bytes(b as f64))
                .collect::<Vec<_>>()
                .join(" "),
            human_bytes(exchange.bytes_total as f64)
        );
    }
    antipode_boards(&mut s, a);
    s.push('\n');
    match &a.classes {
        None => s.push_str(&depth_table("depth  count", &a.histogram)),
        Some(c) => {
            let _ = writeln!(s, "depth  classes  positions");
            for (d, (count, positions)) in a.histogram.iter().zip(&c.positions_by_depth).enumerate()
            {
                let _ = writeln!(s, "{d:>5}  {count}  {positions}");
            }
        }
    }
    s
}

/// The antipodes drawn, each with its class's size where indices are classes.
fn antipode_boards(s: &mut String, a: &Analysis) {
    if a.antipode_boards.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nantipodes at distance {} ({} of {} shown):",
        a.gods_number,
        a.antipode_boards.len(),
        thousands(a.antipode_count)
    );
    for (k, (board, line)) in a.antipode_boards.iter().zip(&a.antipodes).enumerate() {
        match a
            .classes
            .as_ref()
            .and_then(|c| c.antipode_class_sizes.get(k))
        {
            Some(size) => {
                let plural = if *size == 1 { "" } else { "s" };
                let _ = writeln!(s, "\n{line}  (a class of {size} position{plural})");
            }
            None => {
                let _ = writeln!(s, "\n{line}");
            }
        }
        if let Some(moves) = a.antipode_moves.get(k) {
            let _ = writeln!(s, "from the goal: {moves}");
        }
        let _ = writeln!(s, "{board}");
    }
}

fn csv(a: &Analysis) -> String {
    let mut s = String::from(
        "puzzle,indices,reachable,gods_number,antipode_count,seconds,threads,peak_rss_bytes,depth,count,antipode\n",
    );
    let head = format!(
        "{},{},{},{},{},{:.6},{},{}",
        a.puzzle,
        a.indices,
        a.reachable,
        a.gods_number,
        a.antipode_count,
        a.seconds,
        a.threads,
        a.peak_rss_bytes
    );
    for (depth, count) in a.histogram.iter().enumerate() {
        let _ = writeln!(s, "{head},{depth},{count},");
    }
    for antipode in &a.antipodes {
        let _ = writeln!(s, "{head},{},,{antipode}", a.gods_number);
    }
    s
}

/// The components report in the given format, ending with a newline: text shows the
/// largest [`COMPONENTS_SHOWN`], JSON and CSV list all.
///
/// ```
/// use antipode::{jobs, puzzles::SlidingPuzzle, report};
///
/// let found = jobs::components(&SlidingPuzzle::new(2, 3).unwrap());
/// let csv = report::render_components(&found, report::Format::Csv);
/// assert_eq!(csv.lines().nth(1), Some("sliding:2x3,0,360,012/345"));
/// ```
#[must_use]
pub fn render_components(report: &ComponentsReport, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report).expect("a report serializes");
            s.push('\n');
            s
        }
        Format::Csv => {
            let mut s = String::from("puzzle,component,size,representative\n");
            for (k, row) in report.sizes.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "{},{k},{},{}",
                    report.puzzle, row.size, row.representative
                );
            }
            s
        }
        Format::Text => {
            let mut s = String::new();
            let _ = writeln!(s, "puzzle          {}", report.puzzle);
            let _ = writeln!(s, "indices         {}", thousands(report.indices));
            let _ = writeln!(s, "components      {}", thousands(report.components as u64));
            let _ = writeln!(s, "time            {:.3} s\n", report.seconds);
            let _ = writeln!(s, "{:>14}  representative (smallest index)", "size");
            for row in report.sizes.iter().take(COMPONENTS_SHOWN) {
                let _ = writeln!(s, "{:>14}  {}", thousands(row.size), row.representative);
            }
            if report.sizes.len() > COMPONENTS_SHOWN {
                let more = report.sizes.len() - COMPONENTS_SHOWN;
                let _ = writeln!(s, "{:>14}  ({more} more; --format json lists all)", "...");
            }
            s
        }
    }
}

/// The components a text report lists.
pub const COMPONENTS_SHOWN: usize = 20;
