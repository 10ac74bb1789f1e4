//! `antipode list`: the puzzles, their index counts and the memory a full table needs.

use anyhow::Result;

use antipode::puzzles;
use antipode::report::thousands;
use antipode::sys::human_bytes;

pub fn run() -> Result<()> {
    let mut text = format!(
        "{:<14} {:>22} {:>12}  {}\n",
        "puzzle", "indices", "table (8-bit)", "description"
    );
    for entry in puzzles::catalog() {
        text.push_str(&format!(
            "{:<14} {:>22} {:>12}  {}\n",
            entry.name,
            thousands(entry.indices),
            human_bytes(entry.indices as f64),
            entry.description
        ));
    }
    text.push_str(&format!(
        "{:<14} {:>22} {:>12}  {}\n",
        "hoppers",
        "8,192 boards",
        "-",
        "Hoppers peg solitaire, 13 holes (seed 004; searched forward)"
    ));
    text.push_str("\nAny board `sliding:RxC` with 2 <= R, C and R*C <= 16 works too.\n");
    super::print(&text)
}
