//! `antipode list`: the catalog's puzzles, their index counts and the memory a full
//! table needs.

use anyhow::Result;

use antipode::puzzles;
use antipode::units::{human_bytes, thousands};

pub fn run() -> Result<()> {
    let mut text = format!(
        "{:<16} {:>22} {:>13}  {}\n",
        "puzzle", "indices", "table (8-bit)", "description"
    );
    for entry in puzzles::catalog() {
        let (indices, bytes) = match entry.indices {
            Some(n) => (thousands(n), human_bytes(n as f64)),
            None => ("-".into(), "-".into()),
        };
        text.push_str(&format!(
            "{:<16} {:>22} {:>13}  {}\n",
            entry.name, indices, bytes, entry.description
        ));
    }
    text.push_str("\nFamilies:\n");
    for family in puzzles::FAMILIES {
        text.push_str(&format!(
            "  {:<20} {}\n",
            family.pattern, family.description
        ));
    }
    super::print(&text)
}
