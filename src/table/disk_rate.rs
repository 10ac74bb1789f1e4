//! How fast the disk of the tables folder reads and writes, measured: what a level on
//! disk costs at least ([`DiskRate::level_seconds`]), which `list` and the census
//! report for every table larger than memory.
//!
//! A measurement writes a probe file of [`PROBE_BYTES`] beside the folder's tables,
//! syncs it, drops it from the page cache and reads it back; the rate is saved in the
//! folder ([`RATE_FILE`]) and taken from there for a week on the same device, so that
//! `list` measures once.
//!
//! ```
//! use antipode::table::disk_rate::DiskRate;
//!
//! let rate = DiskRate {
//!     write_bytes_per_second: 200_000_000,
//!     read_bytes_per_second: 400_000_000,
//!     measured_unix: 0,
//! };
//! // A 1.2 GB table: read once (3 s) and written back once (6 s) a level.
//! assert_eq!(rate.level_seconds(1_200_000_000), 9.0);
//! ```

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Bytes of the probe file a measurement writes and reads back.
pub const PROBE_BYTES: usize = 64 << 20;

/// The file, inside the tables folder, that keeps the last measurement.
pub const RATE_FILE: &str = ".disk-rate.json";

/// How long a saved measurement is taken as the disk's rate.
const KEPT_FOR: Duration = Duration::from_secs(7 * 24 * 3600);

/// Bytes written and read a second on one disk.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DiskRate {
    /// Bytes a second written and synced to the disk.
    pub write_bytes_per_second: u64,
    /// Bytes a second read back from the disk, past the page cache.
    pub read_bytes_per_second: u64,
    /// When it was measured (seconds since 1970).
    pub measured_unix: u64,
}

/// The saved measurement: the rate and the device it was measured on.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    #[serde(flatten)]
    rate: DiskRate,
    device: u64,
}

/// Why the disk could not be measured.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot measure the disk: {cause}", path.display())]
pub struct DiskRateError {
    /// The probe file.
    pub path: PathBuf,
    /// The system's reason.
    pub cause: std::io::Error,
}

impl DiskRate {
    /// Seconds of disk traffic a level on disk takes at least over a table of
    /// `payload_bytes`: every block read once and written back once, as at a level
    /// that reaches states everywhere (the computing, and the buckets' few bytes, come
    /// on top).
    #[must_use]
    pub fn level_seconds(&self, payload_bytes: u64) -> f64 {
        let bytes = payload_bytes as f64;
        bytes / self.read_bytes_per_second.max(1) as f64
            + bytes / self.write_bytes_per_second.max(1) as f64
    }

    /// The slower of the two rates, bytes a second.
    #[must_use]
    pub fn slower(&self) -> u64 {
        self.read_bytes_per_second.min(self.write_bytes_per_second)
    }
}

/// The rate of the disk that holds (or would hold) `folder`, and whether it was
/// measured now: the saved one if `folder` holds a measurement of the last week on the
/// same device, else measured now with a probe file in `folder` (or its nearest
/// existing ancestor) and saved in `folder` if it exists.
///
/// # Errors
/// [`DiskRateError`] if the probe cannot be written, synced or read back (a full or
/// read-only disk).
pub fn disk_rate(folder: &Path) -> Result<(DiskRate, bool), DiskRateError> {
    let place = existing_ancestor(folder);
    let device = device_of(&place);
    let saved_path = folder.join(RATE_FILE);
    if let Some(saved) = read_saved(&saved_path)
        && Some(saved.device) == device
        && now_unix().saturating_sub(saved.rate.measured_unix) < KEPT_FOR.as_secs()
    {
        return Ok((saved.rate, false));
    }
    let rate = measure(&place, PROBE_BYTES)?;
    if let (true, Some(device)) = (folder.is_dir(), device) {
        // Only a cache: a folder that cannot keep it measures again next time.
        let text = serde_json::to_string_pretty(&Saved { rate, device }).unwrap_or_default();
        let _ = std::fs::write(&saved_path, text + "\n");
    }
    Ok((rate, true))
}

/// Measures the disk of the folder `dir` with a probe file of `bytes` bytes: written
/// and synced, dropped from the page cache, read back, removed.
///
/// # Errors
/// [`DiskRateError`] if the probe cannot be written, synced or read back.
pub fn measure(dir: &Path, bytes: usize) -> Result<DiskRate, DiskRateError> {
    let path = dir.join(format!(".antipode-disk-probe-{}", std::process::id()));
    let result = probe(&path, bytes);
    let _ = std::fs::remove_file(&path);
    result.map_err(|cause| DiskRateError { path, cause })
}

fn probe(path: &Path, bytes: usize) -> std::io::Result<DiskRate> {
    const PIECE: usize = 1 << 20;
    // Bytes that no file system compresses away.
    let mut piece = vec![0u8; PIECE];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for chunk in piece.chunks_mut(8) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
    }
    let pieces = bytes.div_ceil(PIECE).max(1);
    let started = Instant::now();
    let mut file = File::create(path)?;
    for _ in 0..pieces {
        file.write_all(&piece)?;
    }
    file.sync_all()?;
    let written = started.elapsed();
    drop_cached(&file);
    drop(file);
    let started = Instant::now();
    let mut file = File::open(path)?;
    let mut read = 0usize;
    loop {
        let n = file.read(&mut piece)?;
        if n == 0 {
            break;
        }
        read += n;
    }
    let read_time = started.elapsed();
    let total = (pieces * PIECE) as f64;
    if read != pieces * PIECE {
        return Err(std::io::Error::other("the probe file came back short"));
    }
    Ok(DiskRate {
        write_bytes_per_second: (total / written.as_secs_f64().max(1e-6)) as u64,
        read_bytes_per_second: (total / read_time.as_secs_f64().max(1e-6)) as u64,
        measured_unix: now_unix(),
    })
}

/// Asks the kernel to drop `file`'s clean pages from the page cache, so that the
/// read-back comes from the disk (advice only: where it is ignored, the read rate is
/// the cache's).
fn drop_cached(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: the descriptor is open for the call's length; the advice changes no
        // memory of this process.
        let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

fn read_saved(path: &Path) -> Option<Saved> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn existing_ancestor(folder: &Path) -> PathBuf {
    folder
        .ancestors()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .find(|p| p.is_dir())
        .unwrap_or(Path::new("."))
        .to_owned()
}

#[cfg(unix)]
fn device_of(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| m.dev())
}

#[cfg(not(unix))]
fn device_of(_path: &Path) -> Option<u64> {
    None
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_measures_both_ways_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let rate = measure(dir.path(), 4 << 20).unwrap();
        assert!(rate.write_bytes_per_second > 0 && rate.read_bytes_per_second > 0);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_measurement_is_saved_in_the_folder_and_taken_from_there() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables");
        // No folder yet: measured in its parent, nothing saved.
        let (_, now) = disk_rate(&tables).unwrap();
        assert!(now);
        assert!(!tables.exists());
        std::fs::create_dir(&tables).unwrap();
        let (first, now) = disk_rate(&tables).unwrap();
        assert!(now);
        let (again, now) = disk_rate(&tables).unwrap();
        assert!(!now, "the saved measurement is taken");
        assert_eq!(again, first);
        // A measurement older than a week is measured again.
        let path = tables.join(RATE_FILE);
        let mut saved = read_saved(&path).unwrap();
        saved.rate.measured_unix -= KEPT_FOR.as_secs() + 1;
        std::fs::write(&path, serde_json::to_string(&saved).unwrap()).unwrap();
        assert!(disk_rate(&tables).unwrap().1);
    }

    #[test]
    fn a_level_reads_and_writes_the_table_once() {
        let rate = DiskRate {
            write_bytes_per_second: 100,
            read_bytes_per_second: 400,
            measured_unix: 0,
        };
        assert_eq!(rate.level_seconds(800), 10.0);
        assert_eq!(rate.slower(), 100);
    }

    #[test]
    fn a_folder_that_cannot_hold_the_probe_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, b"x").unwrap();
        let error = measure(&file, 1 << 20).unwrap_err();
        assert!(
            error.to_string().contains("cannot measure the disk"),
            "{error}"
        );
    }
}
