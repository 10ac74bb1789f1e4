//! Numbers as people read them: `1,234,567` and `228.4 MiB`.

/// `1234567` as `1,234,567`.
///
/// ```
/// assert_eq!(antipode::units::thousands(239_500_800), "239,500,800");
/// ```
#[must_use]
pub fn thousands(n: u64) -> String {
    thousands_wide(n as u128)
}

/// [`thousands`] for numbers beyond 64 bits (a twisty puzzle's group order).
#[must_use]
pub fn thousands_wide(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A byte count in binary units, e.g. `228.4 MiB`.
#[must_use]
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A byte count as a user writes it: a number (fractions allowed) and an optional
/// binary unit, `B`, `K`/`KiB`, `M`/`MiB`, `G`/`GiB`, `T`/`TiB` (case ignored; `KB`,
/// `MB`, ... are read as binary units too).
///
/// ```
/// use antipode::units::parse_bytes;
///
/// assert_eq!(parse_bytes("16MiB"), Ok(16 << 20));
/// assert_eq!(parse_bytes("1.5g"), Ok(3 << 29));
/// assert_eq!(parse_bytes("4096"), Ok(4096));
/// assert!(parse_bytes("lots").is_err());
/// ```
///
/// # Errors
/// A text that is not a size, with what was expected.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "`{text}` is not a size (a number and B, KiB, MiB, GiB or TiB)"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (a number and B, KiB, MiB, GiB or TiB)"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is too large a size"));
    }
    Ok(bytes as u64)
}

/// A guess of a duration in seconds, rounded to what a guess can tell: `<1 s`,
/// `~42 s`, `~10 min`, `~2.0 h`, `~3.5 days`.
///
/// ```
/// assert_eq!(antipode::units::human_duration(600.0), "~10 min");
/// ```
#[must_use]
pub fn human_duration(seconds: f64) -> String {
    if seconds < 1.0 {
        "<1 s".into()
    } else if seconds < 90.0 {
        format!("~{seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("~{:.0} min", seconds / 60.0)
    } else if seconds < 2.0 * 86400.0 {
        format!("~{:.1} h", seconds / 3600.0)
    } else {
        format!("~{:.1} days", seconds / 86400.0)
    }
}

/// A count in few characters, for axes and rates: `250`, `1k`, `21.5M`, `3G`.
///
/// ```
/// assert_eq!(antipode::units::compact(21_500_000.0), "21.5M");
/// ```
#[must_use]
pub fn compact(value: f64) -> String {
    let magnitude = value.abs();
    let (scaled, unit) = if magnitude < 1e3 {
        return format!("{value:.0}");
    } else if magnitude < 1e6 {
        (value / 1e3, "k")
    } else if magnitude < 1e9 {
        (value / 1e6, "M")
    } else {
        (value / 1e9, "G")
    };
    let text = format!("{scaled:.1}");
    text.strip_suffix(".0").unwrap_or(&text).to_string() + unit
}

/// The `depth  count` table of a histogram, one line per depth, under a heading.
#[must_use]
pub fn depth_table(heading: &str, counts: &[u64]) -> String {
    let mut text = format!("{heading}\n");
    for (depth, count) in counts.iter().enumerate() {
        text.push_str(&format!("{depth:>5}  {count}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(239_500_800), "239,500,800");
    }

    #[test]
    fn binary_units() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(239_500_800.0), "228.4 MiB");
        assert_eq!(human_bytes(1024.0 * 1024.0 * 1024.0 * 10.0), "10.0 GiB");
    }

    #[test]
    fn compact_counts() {
        assert_eq!(compact(250.0), "250");
        assert_eq!(compact(1000.0), "1k");
        assert_eq!(compact(21_500_000.0), "21.5M");
        assert_eq!(compact(3e9), "3G");
    }

    #[test]
    fn histogram_lines() {
        assert_eq!(
            depth_table("depth  count", &[1, 2]),
            "depth  count\n    0  1\n    1  2\n"
        );
    }
}
