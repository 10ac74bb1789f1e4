//! The persistence kit: how every writer puts a file on disk so that a kill or a crash
//! at any moment leaves the old file or the new one whole, never half of one.
//!
//! - [`sibling`]: a path beside another (`t.table` -> `t.table.partial`), keeping names
//!   that are not UTF-8;
//! - [`replace`]: writes a small or medium file (a manifest, a checkpoint, a picture) to
//!   its `.tmp` sibling, syncs it, renames it over the path and syncs the folder;
//! - [`publish`]: the same last steps for a file written in place under another name (a
//!   table's or a database's `.partial`);
//! - [`checkpoint`]: the one checkpoint format of the builds that resume.
//!
//! ```
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("notes.txt");
//! antipode::persist::replace(&path, |out| out.write_all(b"first"))?;
//! antipode::persist::replace(&path, |out| out.write_all(b"second"))?;
//! assert_eq!(std::fs::read(&path)?, b"second");
//! assert!(!antipode::persist::sibling(&path, ".tmp").exists());
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod checkpoint;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The folder that tables and databases go to when no path is given.
pub const TABLES_DIR: &str = "tables";

/// Opens the file at `path` for reading, refusing anything but a regular file (a
/// FIFO, a device, a folder) with [`std::io::ErrorKind::InvalidInput`] instead of
/// waiting on it: the open does not block (`O_NONBLOCK`, which regular files ignore),
/// and the open file is checked, not the path.
///
/// # Errors
/// The system's error, or `InvalidInput` where the path is not a regular file.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let refused = antipode::persist::open_regular(dir.path()).unwrap_err();
/// assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
/// assert_eq!(refused.to_string(), "not a regular file");
/// ```
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    check_regular(&file)?;
    Ok(file)
}

/// Refuses an open file that is not a regular file, as [`open_regular`] does.
///
/// # Errors
/// The system's error, or `InvalidInput`.
pub fn check_regular(file: &File) -> std::io::Result<()> {
    if file.metadata()?.is_file() {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "not a regular file",
    ))
}

/// `path` with `suffix` added to its file name: `sibling("t.table", ".partial")` is
/// `t.table.partial`. Names that are not UTF-8 keep their bytes.
#[must_use]
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `path` whole or not at all: `write` fills its `.tmp` sibling (buffered), which
/// is synced, renamed over `path`, and the folder synced. On an error the sibling is
/// removed (a full disk gets its room back) and `path` is untouched.
///
/// # Errors
/// The system's error, or `write`'s; the sibling is removed and the old file kept.
pub fn replace(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let temporary = sibling(path, ".tmp");
    let written = (|| {
        let file = File::create(&temporary)?;
        let mut out = BufWriter::with_capacity(1 << 20, &file);
        write(&mut out)?;
        out.flush()?;
        drop(out);
        publish(&file, &temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Puts `file`, written at `from`, under the name `to`: syncs it, renames it, and syncs
/// the folder, so that after a crash `to` is either the old file or this one, complete.
///
/// # Errors
/// The system's error if syncing or renaming fails.
pub fn publish(file: &File, from: &Path, to: &Path) -> std::io::Result<()> {
    file.sync_all()?;
    std::fs::rename(from, to)?;
    sync_folder_of(to)
}

/// Syncs the folder holding `path`, so that a rename or a new file in it survives a
/// crash. Where folders cannot be opened (not Linux), it does nothing.
///
/// # Errors
/// The system's error if the folder cannot be opened or synced.
pub fn sync_folder_of(path: &Path) -> std::io::Result<()> {
    if !cfg!(unix) {
        return Ok(());
    }
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(folder)?.sync_all()
}

/// Removes `path`; a file already gone is not an error.
///
/// # Errors
/// The system's error other than a missing file.
pub fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sibling_keeps_names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"dir/t\xff.table"));
        assert_eq!(
            sibling(odd, ".partial").as_os_str().as_bytes(),
            b"dir/t\xff.table.partial"
        );
    }

    #[test]
    fn a_failed_replace_leaves_the_old_file_and_no_sibling() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.toml");
        replace(&path, |out| out.write_all(b"old")).unwrap();
        let failed = replace(&path, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("stopped"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert!(!sibling(&path, ".tmp").exists());
        remove_if_present(&path).unwrap();
        remove_if_present(&path).unwrap();
        assert!(!path.exists());
    }
}
