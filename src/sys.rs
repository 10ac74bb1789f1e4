//! Facts about the running machine that reports and safety checks need.

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    status_kib("/proc/self/status", "VmHWM:")
}

/// Physical memory of the machine in bytes, if known.
pub fn total_memory_bytes() -> Option<u64> {
    status_kib("/proc/meminfo", "MemTotal:")
}

fn status_kib(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// A byte count in binary units, e.g. `228.4 MiB`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(239_500_800.0), "228.4 MiB");
        assert!(peak_rss_bytes().unwrap_or(1) > 0);
    }
}
