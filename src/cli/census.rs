//! `antipode analyze PUZZLE --count`: the census report, text or JSON.

use std::path::Path;

use anyhow::Result;

use antipode::jobs::{Census, TABLES_DIR};
use antipode::units::{human_bytes, human_duration, thousands_wide};

use super::Format;

/// The census as JSON: numbers beyond 64 bits as strings.
#[derive(serde::Serialize)]
struct Json {
    puzzle: String,
    positions: Option<String>,
    positions_not_counted: Option<String>,
    group_order: Option<String>,
    symmetries: Option<usize>,
    classes: Option<String>,
    classes_counted_by: Option<&'static str>,
    indices: Option<String>,
    no_index: Option<String>,
    table_bytes_8bit: Option<String>,
    table_bytes_2bit: Option<String>,
    memory_available_bytes: Option<u64>,
    disk_available_bytes: Option<u64>,
    fits_8bit: Option<&'static str>,
    fits_2bit: Option<&'static str>,
    /// Where the table runs on disk: the seconds a level takes at least, at the disk's
    /// measured rate.
    disk_level_seconds_8bit: Option<f64>,
    disk_level_seconds_2bit: Option<f64>,
    #[serde(flatten)]
    disk_rate: super::list::DiskRateJson,
}

/// The census in `format` (text or JSON).
pub fn report(census: &Census, format: Format) -> Result<String> {
    let json = as_json(census);
    Ok(match format {
        Format::Json => serde_json::to_string_pretty(&json)? + "\n",
        Format::Csv | Format::Tsv => csv(&json)?,
        Format::Text => text(&json),
    })
}

/// One header line and one row, the JSON's fields as columns.
fn csv(json: &Json) -> Result<String> {
    let serde_json::Value::Object(fields) = serde_json::to_value(json)? else {
        unreachable!("a struct serializes as an object")
    };
    let cell = |v: &serde_json::Value| match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) if s.contains([',', '"']) => {
            format!("\"{}\"", s.replace('"', "\"\""))
        }
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let header: Vec<&str> = fields.keys().map(String::as_str).collect();
    let row: Vec<String> = fields.values().map(cell).collect();
    Ok(format!("{}\n{}\n", header.join(","), row.join(",")))
}

fn as_json(census: &Census) -> Json {
    let memory = antipode::sys::available_memory_bytes();
    let disk = antipode::sys::available_bytes(Path::new(TABLES_DIR));
    let (puzzle, positions, group_order, symmetry, indices) = match census {
        Census::Twisty(c) => (
            c.puzzle.clone(),
            Some(c.positions.clone()),
            Some(c.group_order),
            c.symmetry.clone(),
            c.indices.clone(),
        ),
        Census::Ranked { puzzle, indices } => {
            (puzzle.clone(), None, None, None, Ok(*indices as u128))
        }
    };
    // The group's order where it is not the positions (pieces that look alike).
    let group_order = group_order.filter(|&g| {
        positions
            .as_ref()
            .is_some_and(|p| p.as_ref().ok() != Some(&g))
    });
    let bytes = |per_state: u128| indices.as_ref().ok().map(|&n| n.div_ceil(per_state));
    // `list`'s words: yes, disk (levels on disk, a block in memory at a time), memory, no.
    let fits = |bytes: Option<u128>| {
        let bytes = bytes?;
        let room = |r: Option<u64>| r.map(|r| bytes <= r as u128);
        Some(super::list::fit_word(room(memory), room(disk)))
    };
    let (bytes8, bytes2) = (bytes(1), bytes(4));
    let (fits8, fits2) = (fits(bytes8), fits(bytes2));
    let (rate, disk_rate) =
        super::list::disk_rate_if(fits8 == Some("disk") || fits2 == Some("disk"));
    let level_seconds = |bytes: Option<u128>, fit: Option<&str>| {
        rate.filter(|_| fit == Some("disk"))
            .zip(bytes)
            .map(|(rate, bytes)| rate.level_seconds(u64::try_from(bytes).unwrap_or(u64::MAX)))
    };
    Json {
        puzzle,
        positions: positions
            .as_ref()
            .and_then(|p| p.as_ref().ok())
            .map(|n| n.to_string()),
        positions_not_counted: positions.and_then(Result::err),
        group_order: group_order.map(|n| n.to_string()),
        symmetries: symmetry.as_ref().map(|s| s.symmetries),
        classes: symmetry
            .as_ref()
            .and_then(|s| s.classes)
            .map(|n| n.to_string()),
        classes_counted_by: symmetry
            .as_ref()
            .and_then(|s| s.counted_by)
            .map(|c| c.name()),
        indices: indices.as_ref().ok().map(|n| n.to_string()),
        no_index: indices.as_ref().err().cloned(),
        table_bytes_8bit: bytes8.map(|n| n.to_string()),
        table_bytes_2bit: bytes2.map(|n| n.to_string()),
        memory_available_bytes: memory,
        disk_available_bytes: disk,
        fits_8bit: fits8,
        fits_2bit: fits2,
        disk_level_seconds_8bit: level_seconds(bytes8, fits8),
        disk_level_seconds_2bit: level_seconds(bytes2, fits2),
        disk_rate,
    }
}

fn text(json: &Json) -> String {
    let wide = |n: &str| n.parse::<u128>().map_or(n.to_string(), thousands_wide);
    let size = |n: &str| n.parse::<f64>().map_or(n.to_string(), human_bytes);
    let mut out = format!("puzzle          {}\n", json.puzzle);
    if let Some(p) = &json.positions {
        out += &format!("positions       {}\n", wide(p));
    }
    if let Some(why) = &json.positions_not_counted {
        out += &format!("positions       {why}\n");
    }
    if let Some(g) = &json.group_order {
        out += &format!(
            "group order     {} (every piece told apart: the positions are the patterns of \
             pieces that look alike)\n",
            wide(g)
        );
    }
    if let Some(g) = json.symmetries {
        out += &format!("symmetries      {g}\n");
        out += &match (&json.classes, json.classes_counted_by) {
            (Some(c), Some(by)) => format!("classes         {} (Burnside; counted by {by})\n", wide(c)),
            _ => "classes         not counted (no class index, and not a puzzle counted orbit by orbit)\n".into(),
        };
    }
    match (&json.indices, &json.no_index) {
        (Some(n), _) => {
            let per_class = match (&json.classes, json.symmetries) {
                (Some(c), Some(_)) => match (n.parse::<f64>(), c.parse::<f64>()) {
                    (Ok(n), Ok(c)) if c > 0.0 => format!(" ({:.3}x the classes)", n / c),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            out += &format!("indices         {}{per_class}\n", wide(n));
        }
        (None, Some(why)) => out += &format!("indices         none: {why}\n"),
        (None, None) => {}
    }
    if let (Some(b8), Some(b2)) = (&json.table_bytes_8bit, &json.table_bytes_2bit) {
        out += &format!(
            "table           {} at 8 bits, {} at 2 bits\n",
            size(b8),
            size(b2)
        );
        out += &format!(
            "fits            8 bits: {}; 2 bits: {}\n",
            json.fits_8bit.unwrap_or("?"),
            json.fits_2bit.unwrap_or("?")
        );
        let room = |b: Option<u64>| b.map_or("?".to_string(), |b| human_bytes(b as f64));
        out += &format!(
            "                ({} of memory available now, {} free on the disk of {TABLES_DIR}/; \
             yes: memory and disk, disk: larger than memory, its levels run on disk a block \
             at a time, memory: no room for the file)\n",
            room(json.memory_available_bytes),
            room(json.disk_available_bytes)
        );
        for (bits, seconds) in [
            (8, json.disk_level_seconds_8bit),
            (2, json.disk_level_seconds_2bit),
        ] {
            if let Some(seconds) = seconds {
                out += &format!(
                    "on disk         {bits} bits: {} a level at least\n",
                    human_duration(seconds)
                );
            }
        }
        if let Some(words) = super::list::rate_words(&json.disk_rate) {
            out += &format!("                ({words})\n");
        }
    }
    out
}
