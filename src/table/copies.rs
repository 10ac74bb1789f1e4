//! The payload of a table under construction: two copies in the file, written from
//! memory at checkpoints.
//!
//! The search runs on anonymous memory (huge pages, and no write-back of pages the
//! search dirties between checkpoints). A checkpoint writes the whole array to the
//! copy the header does not point at, syncs it, and only then points the header at it:
//! whenever the process dies, the copy the header names holds exactly the levels it
//! lists. Copy 0 is the payload at offset 4096 of the finished format; copy 1, the
//! spare, follows it (page-aligned), and the spare header follows that (the header
//! written and synced just before the one at offset 0, so that a header torn by a
//! power cut has an intact twin); both are cut off when the table is complete.
//!
//! Copies are written and read with `O_DIRECT` where the file system allows it: the
//! bytes go from the array to the disk without passing through the page cache (about
//! five times faster here than buffered writes of the same size, and no cache to evict).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::HEADER_BYTES;

/// Alignment of direct I/O: offsets, lengths and buffer addresses.
const ALIGN: u64 = 4096;
/// Bytes per direct write or read call.
const PIECE: usize = 64 << 20;

/// Where copy `slot` of a `payload_bytes` payload starts.
pub(super) fn offset(payload_bytes: u64, slot: u8) -> u64 {
    match slot {
        0 => HEADER_BYTES as u64,
        _ => HEADER_BYTES as u64 + payload_bytes.next_multiple_of(ALIGN),
    }
}

/// Where the spare header goes while the table is built: the page after copy 1.
pub(super) fn spare_header_offset(payload_bytes: u64) -> u64 {
    (offset(payload_bytes, 1) + payload_bytes).next_multiple_of(ALIGN)
}

/// The file's length while the table is built: header, both copies and the spare
/// header.
pub(super) fn building_len(payload_bytes: u64) -> u64 {
    spare_header_offset(payload_bytes) + HEADER_BYTES as u64
}

/// Where the spare header goes while a table is built with its levels on disk (one
/// copy, the payload itself): the page after the payload.
pub(super) fn single_spare_header_offset(payload_bytes: u64) -> u64 {
    offset(payload_bytes, 1)
}

/// The file's length while a table is built with its levels on disk: header, the
/// payload (copy 0, written in place) and the spare header.
pub(super) fn single_building_len(payload_bytes: u64) -> u64 {
    single_spare_header_offset(payload_bytes) + HEADER_BYTES as u64
}

/// The file's payload I/O: a direct handle where possible, the buffered one otherwise.
pub(super) struct Copies {
    buffered: File,
    direct: Option<File>,
}

impl Copies {
    /// I/O on `file` (open for reading and writing) at `path`.
    pub(super) fn new(path: &Path, file: &File) -> std::io::Result<Copies> {
        Ok(Copies {
            buffered: file.try_clone()?,
            direct: open_direct(path),
        })
    }

    /// Writes `bytes` at `offset` (a multiple of 4096) and waits until they are on disk.
    pub(super) fn write(&mut self, bytes: &[u8], offset: u64) -> std::io::Result<()> {
        let aligned = self.aligned_len(bytes);
        let direct = self.in_pieces(aligned, |file, done, end| {
            file.write_all_at(&bytes[done..end], offset + done as u64)
        })?;
        if !direct {
            return self.write(bytes, offset);
        }
        if let Some(file) = &self.direct {
            file.sync_data()?;
        }
        self.buffered
            .write_all_at(&bytes[aligned..], offset + aligned as u64)?;
        self.buffered.sync_data()
    }

    /// Fills `bytes` from `offset` (a multiple of 4096).
    pub(super) fn read(&mut self, bytes: &mut [u8], offset: u64) -> std::io::Result<()> {
        let aligned = self.aligned_len(bytes);
        let direct = self.in_pieces(aligned, |file, done, end| {
            file.read_exact_at(&mut bytes[done..end], offset + done as u64)
        })?;
        if !direct {
            return self.read(bytes, offset);
        }
        self.buffered
            .read_exact_at(&mut bytes[aligned..], offset + aligned as u64)
    }

    /// Runs `io(file, start, end)` over `0..aligned` in pieces on the direct handle.
    /// Returns false if the file system refused direct I/O (the handle is dropped, and
    /// the caller starts over buffered).
    fn in_pieces(
        &mut self,
        aligned: usize,
        mut io: impl FnMut(&File, usize, usize) -> std::io::Result<()>,
    ) -> std::io::Result<bool> {
        let Some(file) = &self.direct else {
            return Ok(true);
        };
        let mut done = 0;
        while done < aligned {
            let end = (done + PIECE).min(aligned);
            match io(file, done, end) {
                Ok(()) => done = end,
                // The file system takes direct opens but not direct transfers.
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    self.direct = None;
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// How much of `bytes` goes through the direct handle: the whole pages, if the
    /// buffer starts on a page (a memory mapping does); nothing without direct I/O.
    fn aligned_len(&self, bytes: &[u8]) -> usize {
        let usable = self.direct.is_some() && (bytes.as_ptr() as u64).is_multiple_of(ALIGN);
        if usable {
            bytes.len() / ALIGN as usize * ALIGN as usize
        } else {
            0
        }
    }
}

/// `path` opened again for direct I/O, if the system and file system allow it.
fn open_direct(path: &Path) -> Option<File> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        None
    }
}
