//! One writer at a time: a file that a run writes (a depth table, a pattern database's
//! `.partial` file, which also covers its checkpoint) is held under an exclusive
//! advisory lock (`flock` on Unix) from before the run's first write until the run
//! ends, however it ends: the system drops the lock with the process.
//!
//! Readers take no lock: they never block and are never blocked, and they refuse a
//! file whose header does not say complete. A second writer is refused at once, with
//! the holder's process id and name where the system tells them (Linux's
//! `/proc/locks`), before it has changed a byte.
//!
//! ```
//! use antipode::table::lock::WriteLock;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("x.table");
//! let first = WriteLock::acquire(&path).unwrap();
//! assert!(first.created());
//! let second = WriteLock::acquire(&path).unwrap_err();
//! assert!(second.to_string().contains("is writing this file"));
//! drop(first);
//! assert!(!WriteLock::acquire(&path).unwrap().created());
//! ```

use std::fs::{File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::TableError;

/// A file open for reading and writing under an exclusive lock, released on drop.
///
/// ```
/// use antipode::table::{TableError, lock::WriteLock};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("t.table.partial");
/// let lock = WriteLock::acquire(&path).unwrap();
/// assert!(lock.created());
/// // A second writer is refused while the first holds the lock.
/// let second = WriteLock::acquire(&path);
/// assert!(matches!(second, Err(TableError::Busy { .. })));
/// drop(lock);
/// assert!(!WriteLock::acquire(&path).unwrap().created());
/// ```
#[derive(Debug)]
pub struct WriteLock {
    file: File,
    path: PathBuf,
    created: bool,
}

/// The process that holds a lock, as far as the system says.
///
/// ```
/// use antipode::table::lock::Holder;
///
/// let holder = Holder { pid: 4242, name: Some("antipode".into()) };
/// assert_eq!(holder.to_string(), "process 4242 (antipode)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Its command name, if readable.
    pub name: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            Some(name) => write!(f, "process {} ({name})", self.pid),
            None => write!(f, "process {}", self.pid),
        }
    }
}

impl WriteLock {
    /// Opens `path` for writing, creating it empty if it does not exist, and locks it;
    /// refuses with [`TableError::Busy`] at once if another open file holds the lock
    /// (in this process or another). The lock is on the file `path` names when it
    /// returns: a file removed or replaced between opening and locking is opened again.
    ///
    /// # Errors
    /// [`TableError`] if the file cannot be created or another process holds its lock.
    pub fn acquire(path: &Path) -> Result<WriteLock, TableError> {
        let io = |cause| TableError::Io {
            path: path.to_owned(),
            cause,
        };
        loop {
            let (file, created) = match open(path, true) {
                Ok(file) => (file, true),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => match open(path, false) {
                    Ok(file) => (file, false),
                    // Removed since: start over.
                    Err(e) if e.kind() == ErrorKind::NotFound => continue,
                    Err(e) => return Err(io(e)),
                },
                Err(e) => return Err(io(e)),
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(TableError::Busy {
                        path: path.to_owned(),
                        holder: holder(&file),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
            if names_the_same_file(path, &file).map_err(io)? {
                return Ok(WriteLock {
                    file,
                    path: path.to_owned(),
                    created,
                });
            }
        }
    }

    /// Whether [`acquire`](Self::acquire) created the file (it was not there).
    #[must_use]
    pub fn created(&self) -> bool {
        self.created
    }

    /// The locked file.
    #[must_use]
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The path it was locked at.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file from its folder while still holding the lock, so that no
    /// other writer can take the name's old file in between: one that opened it
    /// finds, once it has the lock, that the name is gone.
    ///
    /// # Errors
    /// The system's error if the file cannot be removed.
    pub fn remove(self) -> std::io::Result<()> {
        std::fs::remove_file(&self.path)
    }
}

impl Drop for WriteLock {
    /// Unlocks before the file is closed: closing alone releases the lock only once
    /// nothing else refers to the open file, and a memory map of it or a child
    /// process between `fork` and `exec` (which holds a copy of every descriptor)
    /// would keep it locked.
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Opens the table for reading and writing; anything but a regular file (a FIFO, a
/// device) is refused without waiting on it (`O_NONBLOCK`, which regular files ignore).
fn open(path: &Path, create_new: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(create_new)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    crate::persist::check_regular(&file)?;
    Ok(file)
}

/// Whether `path` still names the open `file` (same device and inode).
fn names_the_same_file(path: &Path, file: &File) -> std::io::Result<bool> {
    let open = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(named) => Ok(named.dev() == open.dev() && named.ino() == open.ino()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// The process holding the lock on `file`, from `/proc/locks` (Linux).
#[cfg(target_os = "linux")]
fn holder(file: &File) -> Option<Holder> {
    let meta = file.metadata().ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let pid = holder_in(&locks, meta.dev(), meta.ino())?;
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    Some(Holder { pid, name })
}

/// Unknown: no lock list to read here.
#[cfg(not(target_os = "linux"))]
fn holder(_file: &File) -> Option<Holder> {
    None
}

/// The pid of the `flock` holder of inode `ino` on device `dev` in the text of
/// `/proc/locks` (lines `1: FLOCK  ADVISORY  WRITE 4027 00:1f:1234 0 EOF`; waiters'
/// lines have `->` after the number). The device is matched where it can be: some
/// file systems (btrfs) report another device number to `stat` than to the lock list,
/// and then the inode alone decides if it is the only one listed.
#[cfg(target_os = "linux")]
fn holder_in(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    let device = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    let mut same_inode = Vec::new();
    for line in locks.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 6 || fields[1] == "->" || fields[1] != "FLOCK" {
            continue;
        }
        let Ok(pid) = fields[4].parse::<u32>() else {
            continue;
        };
        if fields[5] == device {
            return Some(pid);
        }
        if fields[5].rsplit(':').next() == Some(&ino.to_string()) {
            same_inode.push(pid);
        }
    }
    match same_inode[..] {
        [pid] => Some(pid),
        _ => None,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_lock_list_names_the_holder() {
        let dev = libc::makedev(0, 0x1f);
        let locks = "1: FLOCK  ADVISORY  WRITE 4027 00:1f:1234 0 EOF\n\
                     1: -> FLOCK  ADVISORY  WRITE 4100 00:1f:1234 0 EOF\n\
                     2: POSIX  ADVISORY  WRITE 77 00:1f:99 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 5000 00:2a:55 0 EOF\n";
        assert_eq!(holder_in(locks, dev, 1234), Some(4027));
        // Only POSIX locks on that inode: none of ours.
        assert_eq!(holder_in(locks, dev, 99), None);
        // Another device number than the list's: the inode alone, when unique.
        assert_eq!(holder_in(locks, libc::makedev(0, 0x33), 55), Some(5000));
        assert_eq!(holder_in(locks, dev, 1), None);
    }

    #[test]
    fn a_second_writer_is_refused_and_names_this_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        let first = WriteLock::acquire(&path).unwrap();
        let Err(TableError::Busy { holder, .. }) = WriteLock::acquire(&path) else {
            panic!("a second lock was granted");
        };
        assert_eq!(holder.map(|h| h.pid), Some(std::process::id()));
        drop(first);
        WriteLock::acquire(&path).unwrap();
    }

    /// The lock belongs to the open file, which outlives its descriptor while
    /// anything else refers to it: here a memory map of it (a child process between
    /// `fork` and `exec`, which holds a copy of every descriptor, is another). A
    /// dropped lock is released all the same.
    #[test]
    fn a_dropped_lock_is_released_while_its_file_is_still_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        let first = WriteLock::acquire(&path).unwrap();
        first.file().set_len(4096).unwrap();
        // SAFETY: a private mapping of a file only this test touches.
        let map = unsafe { memmap2::MmapOptions::new().map_copy_read_only(first.file()) }.unwrap();
        drop(first);
        WriteLock::acquire(&path).unwrap();
        drop(map);
    }

    #[test]
    fn a_removed_file_is_not_locked_under_its_old_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        let first = WriteLock::acquire(&path).unwrap();
        // Another writer opened the file before it went, and locks it after.
        let stale = File::open(&path).unwrap();
        first.remove().unwrap();
        stale.try_lock().unwrap();
        assert!(!names_the_same_file(&path, &stale).unwrap());
        let second = WriteLock::acquire(&path).unwrap();
        assert!(second.created());
        assert!(names_the_same_file(&path, second.file()).unwrap());
    }
}
