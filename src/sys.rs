//! Facts about the running machine that reports and safety checks need, and the one
//! file-system call the standard library lacks.
//!
//! Linux answers from `/proc` and reserves disk blocks with `posix_fallocate`; on other
//! systems the facts are unknown (`None`) and a reservation only sets the file's length,
//! so callers must treat every answer here as advisory.

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
#[must_use]
pub fn peak_rss_bytes() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM:")
}

/// Physical memory of the machine in bytes, if known.
#[must_use]
pub fn total_memory_bytes() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemTotal:")
}

/// Memory this process can still be given without swapping or being refused, in
/// bytes, if known: the machine's `MemAvailable`, less where this process's limits
/// are tighter (its address-space and data limits, `ulimit -v` and `ulimit -d`, less
/// what it already maps; its cgroup's `memory.max` less `memory.current`).
#[must_use]
pub fn available_memory_bytes() -> Option<u64> {
    let machine = proc_kib("/proc/meminfo", "MemAvailable:");
    [machine, rlimit_room(), cgroup_room()]
        .into_iter()
        .flatten()
        .min()
}

/// Room left under `ulimit -v` (address space) and `ulimit -d` (data), if either is set.
#[cfg(target_os = "linux")]
fn rlimit_room() -> Option<u64> {
    let limit = |resource| {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit into the struct it is given, which
        // lives for the call.
        let ok = unsafe { libc::getrlimit(resource, &mut limit) } == 0;
        (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
    };
    let room = |resource, used_key| {
        let used = proc_kib("/proc/self/status", used_key).unwrap_or(0);
        limit(resource).map(|l: u64| l.saturating_sub(used))
    };
    [
        room(libc::RLIMIT_AS, "VmSize:"),
        room(libc::RLIMIT_DATA, "VmData:"),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// Room left under this process's cgroup (v2) memory limit, if it has one.
#[cfg(target_os = "linux")]
fn cgroup_room() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
    let folder = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| std::fs::read_to_string(folder.join(name)).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?; // "max": no limit
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

#[cfg(not(target_os = "linux"))]
fn rlimit_room() -> Option<u64> {
    None
}

#[cfg(not(target_os = "linux"))]
fn cgroup_room() -> Option<u64> {
    None
}

/// Asks the kernel to back the pages that hold `region` with huge pages where it can
/// (Linux `MADV_HUGEPAGE`): memory this process allocated and has not yet touched (a
/// level's bit set, a database's entries), or a mapped table file, whose lookups then
/// cost a cache miss and not also a walk of the page tables (Korf's 100: 0.30 s
/// against 0.39 s on 4 KiB pages). A hint only; elsewhere it does nothing.
pub fn advise_huge_pages<T>(region: &[T]) {
    #[cfg(target_os = "linux")]
    {
        // madvise wants a page-aligned start: from the page that holds the first byte.
        // SAFETY: sysconf only reads a system constant.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
        let start = region.as_ptr() as usize;
        let aligned = start & !(page - 1);
        let len = std::mem::size_of_val(region) + (start - aligned);
        // SAFETY: the pages hold `region`, memory this process owns (allocated or
        // mapped); MADV_HUGEPAGE changes how the kernel backs them, never their
        // contents, protection or validity, and a failure is harmless (the advice is
        // ignored).
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = region;
}

/// A vector with room for `capacity` values, its pages advised onto huge pages before
/// anything touches them ([`advise_huge_pages`]): for tables read at random.
#[must_use]
pub fn huge_vec<T>(capacity: usize) -> Vec<T> {
    let mut values = Vec::with_capacity(capacity);
    advise_huge_pages(values.spare_capacity_mut());
    values
}

/// Allocates the first `len` bytes of `file` on disk, so that writing through a memory
/// map later cannot run out of space (which would kill the process with `SIGBUS`).
/// Fails with [`std::io::ErrorKind::StorageFull`] when the disk is too small. Where
/// the system has no `posix_fallocate` (macOS), only the length is set.
///
/// # Errors
/// The system's error if the space cannot be reserved (a full disk, a file system
/// without `fallocate`).
#[cfg(target_os = "linux")]
pub fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(len).map_err(|_| std::io::ErrorKind::FileTooLarge)?;
    // SAFETY: the descriptor is open for writing for the duration of the call;
    // posix_fallocate reads no memory of ours.
    let code = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) };
    match code {
        0 => Ok(()),
        code => Err(std::io::Error::from_raw_os_error(code)),
    }
}

/// Sets the file's length: the portable fallback of the Linux reservation.
#[cfg(not(target_os = "linux"))]
pub fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    if file.metadata()?.len() < len {
        file.set_len(len)?;
    }
    Ok(())
}

/// Bytes available to this user on the file system that holds `path` (or would hold it:
/// its nearest existing ancestor), if known.
#[cfg(unix)]
#[must_use]
pub fn available_bytes(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = path
        .ancestors()
        .map(|p| {
            if p.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                p
            }
        })
        .find(|p| p.exists())?;
    let path = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statvfs is a valid value of this plain C struct.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is NUL-terminated and `stats` is a valid place to write to.
    let code = unsafe { libc::statvfs(path.as_ptr(), &mut stats) };
    (code == 0).then(|| stats.f_bavail as u64 * stats.f_frsize as u64)
}

/// Unknown where the system has no `statvfs`.
#[cfg(not(unix))]
pub fn available_bytes(_path: &std::path::Path) -> Option<u64> {
    None
}

/// A `key: N kB` line of a Linux `/proc` file, in bytes.
#[cfg(target_os = "linux")]
fn proc_kib(path: &str, key: &str) -> Option<u64> {
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

/// Unknown: no `/proc` here.
#[cfg(not(target_os = "linux"))]
fn proc_kib(_path: &str, _key: &str) -> Option<u64> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn machine_facts_on_linux() {
        // This test itself holds a megabyte resident: the peak is at least that.
        let ballast = std::hint::black_box(vec![1u8; 1 << 20]);
        assert!(peak_rss_bytes().expect("VmHWM on Linux") >= ballast.len() as u64);
        assert!(total_memory_bytes().expect("MemTotal on Linux") > 1 << 20);
        assert!(available_bytes(std::path::Path::new(".")).is_some());
        // A path that does not exist yet is measured at its nearest existing ancestor.
        assert_eq!(
            available_bytes(std::path::Path::new("no/such/dir/file")).map(|b| b > 0),
            available_bytes(std::path::Path::new(".")).map(|b| b > 0)
        );
    }

    #[test]
    fn reserving_allocates_the_blocks() {
        use std::os::unix::fs::MetadataExt;
        let file = tempfile::tempfile().unwrap();
        file.set_len(1 << 20).unwrap();
        reserve(&file, 1 << 20).unwrap();
        assert!(file.metadata().unwrap().blocks() * 512 >= 1 << 20);
    }
}
