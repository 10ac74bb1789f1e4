//! `antipode list`: the catalog's puzzles, their index counts, the size of a full table
//! at 8 and 2 bits per state, and whether it fits this machine's memory and disk now.

use std::path::Path;

use anyhow::Result;

use antipode::jobs::TABLES_DIR;
use antipode::puzzles;
use antipode::units::{human_bytes, thousands};

use super::Format;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format: text or json.
    #[arg(long, default_value = "text", value_parser = Format::parser(&[Format::Text, Format::Json]))]
    format: Format,
}

#[derive(serde::Serialize)]
struct Puzzle {
    name: String,
    description: String,
    indices: Option<u64>,
    /// Payload bytes of a table at 8 and at 2 bits per state.
    table_bytes_8bit: Option<u64>,
    table_bytes_2bit: Option<u64>,
    fits_memory_8bit: Option<bool>,
    fits_memory_2bit: Option<bool>,
    fits_disk_8bit: Option<bool>,
    fits_disk_2bit: Option<bool>,
    /// Whether `pdb` and `solve --pdb` take it.
    pattern_databases: bool,
    /// Puzzles searched forward (peg solitaire): the memory `analyze` needs.
    search_bytes: Option<u64>,
    fits_memory_search: Option<bool>,
}

#[derive(serde::Serialize)]
struct Family {
    pattern: &'static str,
    description: &'static str,
    parameters: &'static str,
}

#[derive(serde::Serialize)]
struct Catalog {
    memory_available_bytes: Option<u64>,
    disk_available_bytes: Option<u64>,
    disk_path: &'static str,
    puzzles: Vec<Puzzle>,
    families: Vec<Family>,
}

pub fn run(args: Args) -> Result<()> {
    let memory = antipode::sys::available_memory_bytes();
    let disk = antipode::sys::available_bytes(Path::new(TABLES_DIR));
    let fits = |bytes: Option<u64>, room: Option<u64>| match (bytes, room) {
        (Some(b), Some(r)) => Some(b <= r),
        _ => None,
    };
    let catalog = Catalog {
        memory_available_bytes: memory,
        disk_available_bytes: disk,
        disk_path: TABLES_DIR,
        puzzles: puzzles::catalog()
            .into_iter()
            .map(|entry| {
                let bytes8 = entry.indices;
                let bytes2 = entry.indices.map(|n| n.div_ceil(4));
                Puzzle {
                    name: entry.name,
                    description: entry.description,
                    indices: entry.indices,
                    table_bytes_8bit: bytes8,
                    table_bytes_2bit: bytes2,
                    fits_memory_8bit: fits(bytes8, memory),
                    fits_memory_2bit: fits(bytes2, memory),
                    fits_disk_8bit: fits(bytes8, disk),
                    fits_disk_2bit: fits(bytes2, disk),
                    pattern_databases: entry.databases,
                    search_bytes: entry.search_bytes,
                    fits_memory_search: fits(entry.search_bytes, memory),
                }
            })
            .collect(),
        families: puzzles::FAMILIES
            .iter()
            .map(|f| Family {
                pattern: f.pattern,
                description: f.description,
                parameters: f.parameters,
            })
            .collect(),
    };
    match args.format {
        Format::Json => super::print(&(serde_json::to_string_pretty(&catalog)? + "\n")),
        _ => super::print(&text(&catalog)),
    }
}

/// Whether a table fits: memory and disk, disk only (a table file larger than memory:
/// its levels run on disk, a block in memory at a time), or neither.
pub(super) fn fit_word(memory: Option<bool>, disk: Option<bool>) -> &'static str {
    match (memory, disk) {
        (Some(true), Some(true)) => "yes",
        (Some(false), Some(true)) => "disk",
        (Some(true), Some(false)) => "memory",
        (Some(false), Some(false)) => "no",
        _ => "?",
    }
}

fn text(catalog: &Catalog) -> String {
    let room = |bytes: Option<u64>| bytes.map_or("unknown".into(), |b| human_bytes(b as f64));
    let mut text = format!(
        "{:<16} {:>22} {:>10} {:>10}  {:<9}  {}\n",
        "puzzle", "indices", "8-bit", "2-bit", "fits 8/2", "description"
    );
    for p in &catalog.puzzles {
        let size = |bytes: Option<u64>| bytes.map_or("-".into(), |b| human_bytes(b as f64));
        let fit = match (p.indices, p.search_bytes) {
            (Some(_), _) => format!(
                "{}/{}",
                fit_word(p.fits_memory_8bit, p.fits_disk_8bit),
                fit_word(p.fits_memory_2bit, p.fits_disk_2bit)
            ),
            (None, Some(_)) => match p.fits_memory_search {
                Some(true) => "yes",
                Some(false) => "no",
                None => "?",
            }
            .into(),
            (None, None) if p.pattern_databases => "pdb".into(),
            (None, None) => "-".into(),
        };
        let mut description = p.description.clone();
        if let Some(bytes) = p.search_bytes {
            description.push_str(&format!(
                "; analyze needs {} of bit sets",
                human_bytes(bytes as f64)
            ));
        }
        if p.pattern_databases && p.fits_disk_2bit != Some(true) {
            description
                .push_str("; too large for a table: pattern databases, `pdb`, `solve --pdb`");
        }
        text.push_str(&format!(
            "{:<16} {:>22} {:>10} {:>10}  {:<9}  {}\n",
            p.name,
            p.indices.map_or("-".into(), thousands),
            size(p.table_bytes_8bit),
            size(p.table_bytes_2bit),
            fit,
            description
        ));
    }
    text.push_str(&format!(
        "\nTables in memory and on disk: {} of memory available now, {} free on the disk \
         of {}/.\n\"fits 8/2\": at 8 and at 2 bits per state, yes (memory and disk), disk \
         (larger than memory: its levels run on disk, a block at a time), memory (no room for \
         the file), no; peg \
         solitaire: whether the search's bit sets fit in memory; pdb: pattern databases only.\n",
        room(catalog.memory_available_bytes),
        room(catalog.disk_available_bytes),
        catalog.disk_path
    ));
    text.push_str("\nFamilies:\n");
    for f in &catalog.families {
        text.push_str(&format!("  {:<24} {}\n", f.pattern, f.description));
        if !f.parameters.is_empty() {
            text.push_str(&format!("  {:<24} parameters: {}\n", "", f.parameters));
        }
    }
    text
}
