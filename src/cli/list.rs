//! `antipode list`: the catalog's puzzles, their index counts, the size of a full table
//! at 8 and 2 bits per state, and whether it fits this machine's memory and disk now.

use std::path::Path;

use anyhow::Result;

use antipode::jobs::TABLES_DIR;
use antipode::puzzles;
use antipode::table::disk_rate::DiskRate;
use antipode::units::{human_bytes, human_duration, thousands};

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
    /// Where the table is larger than memory and fits the disk: the seconds a level
    /// on disk takes at least, at the disk's measured rate.
    disk_level_seconds_8bit: Option<f64>,
    disk_level_seconds_2bit: Option<f64>,
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
    /// The disk's rate, measured where some table runs on disk.
    #[serde(flatten)]
    disk_rate: DiskRateJson,
    puzzles: Vec<Puzzle>,
    families: Vec<Family>,
}

/// The disk's measured rate in the JSON of `list` and the census.
#[derive(serde::Serialize, Default)]
pub(super) struct DiskRateJson {
    pub disk_write_bytes_per_second: Option<u64>,
    pub disk_read_bytes_per_second: Option<u64>,
    /// Measured by this command (else taken from the folder's saved measurement).
    pub disk_rate_measured_now: Option<bool>,
    /// Why the disk could not be measured.
    pub disk_rate_error: Option<String>,
}

/// The rate of the tables' disk if `needed` (a table runs on disk): measured once a
/// week, kept in the folder ([`antipode::table::disk_rate`]).
pub(super) fn disk_rate_if(needed: bool) -> (Option<DiskRate>, DiskRateJson) {
    if !needed {
        return (None, DiskRateJson::default());
    }
    match antipode::table::disk_rate::disk_rate(Path::new(TABLES_DIR)) {
        Ok((rate, now)) => (
            Some(rate),
            DiskRateJson {
                disk_write_bytes_per_second: Some(rate.write_bytes_per_second),
                disk_read_bytes_per_second: Some(rate.read_bytes_per_second),
                disk_rate_measured_now: Some(now),
                disk_rate_error: None,
            },
        ),
        Err(error) => (
            None,
            DiskRateJson {
                disk_rate_error: Some(error.to_string()),
                ..DiskRateJson::default()
            },
        ),
    }
}

/// What the text says of the disk's rate: the two rates and where they come from.
pub(super) fn rate_words(json: &DiskRateJson) -> Option<String> {
    if let Some(error) = &json.disk_rate_error {
        return Some(format!("no time on disk: {error}"));
    }
    let (write, read) = (
        json.disk_write_bytes_per_second?,
        json.disk_read_bytes_per_second?,
    );
    let when = if json.disk_rate_measured_now == Some(true) {
        "measured now"
    } else {
        "measured this week"
    };
    Some(format!(
        "the disk of {TABLES_DIR}/ writes {}/s and reads {}/s, {when} and kept in \
         {TABLES_DIR}/{} for a week; a level on disk reads its table and writes it back \
         once at least, and computes besides",
        human_bytes(write as f64),
        human_bytes(read as f64),
        antipode::table::disk_rate::RATE_FILE
    ))
}

pub fn run(args: Args) -> Result<()> {
    let memory = antipode::sys::available_memory_bytes();
    let disk = antipode::sys::available_bytes(Path::new(TABLES_DIR));
    let fits = |bytes: Option<u64>, room: Option<u64>| match (bytes, room) {
        (Some(b), Some(r)) => Some(b <= r),
        _ => None,
    };
    let entries = puzzles::catalog();
    let on_disk =
        |bytes: Option<u64>| fits(bytes, memory) == Some(false) && fits(bytes, disk) == Some(true);
    let needed = entries
        .iter()
        .any(|e| on_disk(e.indices) || on_disk(e.indices.map(|n| n.div_ceil(4))));
    let (rate, rate_json) = disk_rate_if(needed);
    let level_seconds = |bytes: Option<u64>| {
        rate.filter(|_| on_disk(bytes))
            .zip(bytes)
            .map(|(rate, bytes)| rate.level_seconds(bytes))
    };
    let catalog = Catalog {
        memory_available_bytes: memory,
        disk_available_bytes: disk,
        disk_path: TABLES_DIR,
        disk_rate: rate_json,
        puzzles: entries
            .into_iter()
            .map(|entry| {
                let bytes8 = entry.indices;
                let bytes2 = entry.indices.map(|n| n.div_ceil(4));
                Puzzle {
                    disk_level_seconds_8bit: level_seconds(bytes8),
                    disk_level_seconds_2bit: level_seconds(bytes2),
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
        for (bits, seconds) in [
            (8, p.disk_level_seconds_8bit),
            (2, p.disk_level_seconds_2bit),
        ] {
            if let Some(seconds) = seconds {
                description.push_str(&format!(
                    "; on disk at {bits} bits: {} a level at least",
                    human_duration(seconds)
                ));
            }
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
    if let Some(words) = rate_words(&catalog.disk_rate) {
        text.push_str(&format!("Levels on disk: {words}.\n"));
    }
    text.push_str("\nFamilies:\n");
    for f in &catalog.families {
        text.push_str(&format!("  {:<24} {}\n", f.pattern, f.description));
        if !f.parameters.is_empty() {
            text.push_str(&format!("  {:<24} parameters: {}\n", "", f.parameters));
        }
    }
    text
}
