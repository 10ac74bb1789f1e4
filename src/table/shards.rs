//! Tables in shards: the table of a partitioned search ([`crate::engine::Partitioned`])
//! is a folder of ordinary table files, one per rank, each covering its rank's slice of
//! the indices (the header's index range), and a small manifest, `manifest.toml`, that
//! names them: the puzzle, its definition digest, the entries, the rank count, and
//! every shard's file, range and payload checksum.
//!
//! Readers open the folder (or its manifest) like a table file: [`super::Table::open`]
//! checks the manifest and every shard against it, and maps the shards side by side
//! into one array (slices start on page boundaries where a space is large,
//! [`crate::engine::Slices`]; small ones are read into memory), so that every reader of
//! a table (lookup, descent, verify, plot) works on it unchanged. Its header is the
//! whole table's: the index range `0..N` and the checksum of the shards' payloads in a
//! row, the checksum a single process's table of the same puzzle has.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::{
    HEADER_BYTES, Header, Identity, TableError, blocks, check_size, header, io_error, not_depths,
    payload_crc32, read_header,
};
use crate::store::{Depths, Encoding};

/// The manifest's name in a table's folder.
pub const MANIFEST: &str = "manifest.toml";

/// The manifest's format version.
const FORMAT: u32 = 1;

/// The file name of rank `rank`'s shard of a table built by `ranks` ranks.
#[must_use]
pub fn shard_name(rank: usize, ranks: usize) -> String {
    format!("shard-{rank}-of-{ranks}.table")
}

/// The manifest of a table in shards (`manifest.toml`).
///
/// ```
/// use antipode::{engine::Slices, puzzles::SlidingPuzzle, store::Encoding};
/// use antipode::table::{self, shards::Manifest};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let manifest = Manifest::new(&table::identity(&board), 360, Encoding::Byte, &Slices::new(360, 2));
/// assert_eq!((manifest.ranks, manifest.complete), (2, false));
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("manifest.toml");
/// manifest.write(&path).unwrap();
/// assert_eq!(Manifest::read(&path).unwrap(), manifest);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The manifest's format version (1).
    pub format: u32,
    /// The puzzle's name.
    pub puzzle: String,
    /// Its goal, as a table header records it.
    pub goal: String,
    /// SHA-256 (hex) of the puzzle's canonical definition.
    pub definition_sha256: String,
    /// Indices of the whole space.
    pub indices: u64,
    /// Bits per entry: 8 or 2.
    pub entry_bits: u32,
    /// The ranks that build it, one shard each.
    pub ranks: usize,
    /// Whether every shard is complete and its checksum recorded below.
    pub complete: bool,
    /// The shards, in index order.
    pub shards: Vec<ShardEntry>,
}

/// One shard in a [`Manifest`].
///
/// ```
/// use antipode::{engine::Slices, puzzles::SlidingPuzzle, store::Encoding};
/// use antipode::table::{self, shards::Manifest};
///
/// let board = SlidingPuzzle::new(2, 3).unwrap();
/// let manifest = Manifest::new(&table::identity(&board), 360, Encoding::Byte, &Slices::new(360, 2));
/// let ranges: Vec<_> = manifest.shards.iter().map(|shard| shard.start..shard.end).collect();
/// assert_eq!(ranges, [0..180, 180..360]);
/// assert_eq!(manifest.shards[0].crc32(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardEntry {
    /// The file, relative to the manifest's folder.
    pub file: String,
    /// The first index it covers.
    pub start: u64,
    /// The end of its range (exclusive).
    pub end: u64,
    /// Its payload's CRC-32 in hex, once complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_crc32: Option<String>,
}

impl Manifest {
    /// The manifest of a table of the puzzle `identity` names, in shards over `ranks`
    /// (the ranges of `slices`), not complete yet.
    #[must_use]
    pub fn new(
        identity: &Identity,
        indices: u64,
        encoding: Encoding,
        slices: &crate::engine::Slices,
    ) -> Manifest {
        let ranks = slices.ranks();
        Manifest {
            format: FORMAT,
            puzzle: identity.name.clone(),
            goal: identity.goal.clone(),
            definition_sha256: identity.digest.clone(),
            indices,
            entry_bits: encoding.bits(),
            ranks,
            complete: false,
            shards: (0..ranks)
                .map(|rank| {
                    let range = slices.range(rank);
                    ShardEntry {
                        file: shard_name(rank, ranks),
                        start: range.start,
                        end: range.end,
                        payload_crc32: None,
                    }
                })
                .collect(),
        }
    }

    /// Reads and checks the manifest at `path`.
    ///
    /// # Errors
    /// [`TableError`] if the manifest cannot be read or parsed.
    pub fn read(path: &Path) -> Result<Manifest, TableError> {
        let bad = |reason: String| TableError::Shards {
            path: path.to_owned(),
            reason,
        };
        let text = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(bad(
                    "not found: a folder is a table only with the manifest of the shards \
                     `analyze --distributed --table` writes"
                        .into(),
                ));
            }
            read => read.map_err(io_error(path))?,
        };
        Manifest::parse(path, &text)
    }

    /// Reads and checks the text of a manifest (`path` names it in errors).
    ///
    /// # Errors
    /// [`TableError`] if the text is not a manifest.
    pub fn parse(path: &Path, text: &str) -> Result<Manifest, TableError> {
        let bad = |reason: String| TableError::Shards {
            path: path.to_owned(),
            reason,
        };
        let manifest: Manifest = toml::from_str(text)
            .map_err(|e| bad(format!("not a table manifest: {}", e.message())))?;
        manifest.check().map_err(bad)?;
        Ok(manifest)
    }

    /// What is wrong with the manifest's fields, if anything.
    fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "manifest format {} (this antipode reads {FORMAT})",
                self.format
            ));
        }
        self.encoding()?;
        if self.shards.len() != self.ranks || self.ranks == 0 {
            return Err(format!(
                "{} ranks but {} shards listed",
                self.ranks,
                self.shards.len()
            ));
        }
        let mut next = 0;
        for shard in &self.shards {
            if shard.start != next || shard.end < shard.start {
                return Err(format!(
                    "{} covers {}..{}: the shards must cover 0..{} in a row",
                    shard.file, shard.start, shard.end, self.indices
                ));
            }
            if shard.file.contains('/') {
                return Err(format!("{}: a shard is a file of the folder", shard.file));
            }
            if self.complete && shard.crc32().is_none() {
                return Err(format!("{}: no valid payload_crc32", shard.file));
            }
            next = shard.end;
        }
        if next != self.indices {
            return Err(format!(
                "the shards end at {next}, the table has {} indices",
                self.indices
            ));
        }
        Ok(())
    }

    /// The entries' encoding.
    ///
    /// # Errors
    /// A message if the text is not a known encoding.
    pub fn encoding(&self) -> Result<Encoding, String> {
        match self.entry_bits {
            8 => Ok(Encoding::Byte),
            2 => Ok(Encoding::Mod3),
            bits => Err(format!("{bits}-bit entries (depth tables have 8 or 2)")),
        }
    }

    /// Whether the table is of the puzzle `identity` names.
    #[must_use]
    pub fn is_for(&self, identity: &Identity) -> bool {
        self.definition_sha256 == identity.digest
    }

    /// Writes the manifest to `path` so that a reader sees the old one or the new one
    /// whole: to a temporary file, synced, renamed over `path`, the folder synced.
    ///
    /// # Errors
    /// [`TableError`] if the manifest cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), TableError> {
        let text = format!(
            "# A depth table in shards: one table file per rank (`antipode info` on \
             this folder).\n{}",
            toml::to_string(self).expect("a manifest serializes")
        );
        crate::persist::replace(path, |out| std::io::Write::write_all(out, text.as_bytes()))
            .map_err(io_error(path))
    }
}

impl ShardEntry {
    /// The recorded payload checksum.
    #[must_use]
    pub fn crc32(&self) -> Option<u32> {
        u32::from_str_radix(self.payload_crc32.as_deref()?, 16).ok()
    }
}

/// The manifest `path` names, if it names a table in shards: a folder (its
/// `manifest.toml`) or a file called `manifest.toml`.
#[must_use]
pub fn manifest_path(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        Some(path.join(MANIFEST))
    } else if path.file_name().is_some_and(|name| name == MANIFEST) {
        Some(path.to_owned())
    } else {
        None
    }
}

/// A shard's header, checked against its manifest entry.
struct Shard {
    path: PathBuf,
    file: File,
    header: Header,
}

/// Opens every shard `manifest` lists and checks it against the manifest; `complete`
/// asks for complete shards with the checksums the manifest records. Without it a
/// shard not yet created is `None`, but only while the manifest says the build is
/// in progress: a complete table's missing shard is an error all the same.
fn shards(
    folder: &Path,
    manifest: &Manifest,
    complete: bool,
) -> Result<Vec<Option<Shard>>, TableError> {
    let encoding = manifest.encoding().expect("checked when read");
    let mut found = Vec::new();
    for entry in &manifest.shards {
        let path = folder.join(&entry.file);
        if !complete && !manifest.complete && !path.exists() {
            found.push(None);
            continue;
        }
        let (file, header) = read_header(&path)?;
        let bad = |reason: String| TableError::Shards {
            path: path.clone(),
            reason,
        };
        if header.definition_sha256.as_deref() != Some(&manifest.definition_sha256) {
            return Err(TableError::OtherPuzzle {
                path: path.clone(),
                table: format!("{} (goal {})", header.puzzle, header.goal),
                wanted: format!(
                    "{} (goal {}) as its manifest says",
                    manifest.puzzle, manifest.goal
                ),
            });
        }
        if header.encoding != encoding
            || header.indices != manifest.indices
            || header.index_range != (entry.start..entry.end)
        {
            return Err(bad(format!(
                "covers indices {}..{} of {} with {}-bit entries, the manifest lists \
                 {}..{} of {} with {}-bit entries",
                header.index_range.start,
                header.index_range.end,
                header.indices,
                header.encoding.bits(),
                entry.start,
                entry.end,
                manifest.indices,
                manifest.entry_bits
            )));
        }
        check_size(&path, &file, &header)?;
        if complete {
            if !header.complete {
                return Err(TableError::Incomplete {
                    path: path.clone(),
                    levels: header.histogram.len(),
                });
            }
            if entry.crc32() != Some(header.payload_crc32) {
                return Err(bad(format!(
                    "its checksum {:08x} is not the manifest's {}",
                    header.payload_crc32,
                    entry.payload_crc32.as_deref().unwrap_or("(none)")
                )));
            }
        }
        found.push(Some(Shard { path, file, header }));
    }
    Ok(found)
}

/// The header of the whole table a manifest describes, from its shards' headers: a
/// complete table's when the manifest and every shard are complete, else an
/// incomplete one with the levels every shard holds.
fn whole_header(manifest: &Manifest, shards: &[Option<&Header>]) -> Header {
    let encoding = manifest.encoding().expect("checked when read");
    let histograms: Vec<&[u64]> = shards
        .iter()
        .map(|s| s.map_or(&[][..], |h| &h.histogram[..]))
        .collect();
    let levels = histograms.iter().map(|h| h.len()).min().unwrap_or(0);
    let complete = manifest.complete && shards.iter().all(|s| s.is_some_and(|h| h.complete));
    let mut crc = crc32fast::Hasher::new();
    if complete {
        for h in shards.iter().flatten() {
            crc.combine(&crc32fast::Hasher::new_with_initial_len(
                h.payload_crc32,
                h.payload_bytes,
            ));
        }
    }
    Header {
        version: header::VERSION,
        puzzle: manifest.puzzle.clone(),
        goal: manifest.goal.clone(),
        definition_sha256: Some(manifest.definition_sha256.clone()),
        indices: manifest.indices,
        encoding,
        complete,
        histogram: histograms
            .first()
            .map_or(Vec::new(), |h| h[..levels].to_vec()),
        index_range: 0..manifest.indices,
        payload_bytes: encoding.payload_bytes(manifest.indices),
        payload_crc32: if complete { crc.finalize() } else { 0 },
        pattern: None,
        checkpoint_slot: 0,
        block_sums: None,
    }
}

/// The header of the whole table whose manifest is at `path`, whatever its state
/// (`antipode info` on a table being built).
///
/// # Errors
/// [`TableError`] if a shard cannot be read or the shards do not form one table.
pub fn read_whole_header(path: &Path) -> Result<(Manifest, Header), TableError> {
    let manifest = Manifest::read(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let shards = shards(folder, &manifest, false)?;
    let headers: Vec<Option<&Header>> = shards
        .iter()
        .map(|s| s.as_ref().map(|s| &s.header))
        .collect();
    let header = whole_header(&manifest, &headers);
    Ok((manifest, header))
}

/// Opens the complete table whose manifest is at `path`: every shard checked against
/// it (with `check_payload`, each payload against its checksum) and the shards'
/// payloads side by side in one array.
pub(super) fn open(
    path: &Path,
    check_payload: bool,
) -> Result<(Header, Depths, blocks::Guard), TableError> {
    let manifest = Manifest::read(path)?;
    if !manifest.complete {
        let (_, header) = read_whole_header(path)?;
        return Err(TableError::Incomplete {
            path: path.to_owned(),
            levels: header.histogram.len(),
        });
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    let shards: Vec<Shard> = shards(folder, &manifest, true)?
        .into_iter()
        .flatten()
        .collect();
    let headers: Vec<Option<&Header>> = shards.iter().map(|s| Some(&s.header)).collect();
    let header = whole_header(&manifest, &headers);
    if let Some(first) = shards.first()
        && let Some(other) = shards
            .iter()
            .find(|s| s.header.histogram != first.header.histogram)
    {
        return Err(TableError::Shards {
            path: other.path.clone(),
            reason: format!(
                "its histogram differs from {}'s: shards of different searches",
                first.path.display()
            ),
        });
    }
    let mut map =
        memmap2::MmapMut::map_anon(header.payload_bytes.max(1) as usize).map_err(|cause| {
            crate::store::StoreError::Map {
                bytes: header.payload_bytes,
                cause,
            }
        })?;
    let encoding = manifest.encoding().expect("checked when read");
    place_shards(&mut map, &shards, encoding)?;
    crate::sys::advise_huge_pages(&map);
    let mut guard = blocks::Guard::default();
    let mut to_check = Vec::new();
    for shard in &shards {
        let at = byte_offset(encoding, shard.header.index_range.start);
        match blocks::read_list(&shard.path, &shard.file, &shard.header)? {
            Some(list) => guard.add(&shard.path, at, &shard.header, list),
            None if check_payload => to_check.push(shard),
            None => {}
        }
    }
    for shard in to_check {
        let at = byte_offset(encoding, shard.header.index_range.start) as usize;
        let found = payload_crc32(&map[at..at + shard.header.payload_bytes as usize]);
        if found != shard.header.payload_crc32 {
            return Err(TableError::Checksum {
                path: shard.path.clone(),
                expected: shard.header.payload_crc32,
                found,
            });
        }
    }
    let depths =
        Depths::from_map(header.encoding, map, header.indices).ok_or_else(|| not_depths(path))?;
    Ok((header, depths, guard))
}

/// Where entry `index` starts in the payload.
fn byte_offset(encoding: Encoding, index: u64) -> u64 {
    index * encoding.bits() as u64 / 8
}

/// Puts every shard's payload at its place in `map` (the whole payload): mapped from
/// the shard files where every shard starts on a page (copy-on-write, nothing is
/// written back), read into it otherwise.
fn place_shards(
    map: &mut memmap2::MmapMut,
    shards: &[Shard],
    encoding: Encoding,
) -> Result<(), TableError> {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
    let aligned = (HEADER_BYTES as u64).is_multiple_of(page)
        && shards
            .iter()
            .all(|s| byte_offset(encoding, s.header.index_range.start).is_multiple_of(page));
    for shard in shards {
        let at = byte_offset(encoding, shard.header.index_range.start) as usize;
        let len = shard.header.payload_bytes as usize;
        if len == 0 {
            continue;
        }
        let target = &mut map[at..at + len];
        if !aligned {
            shard
                .file
                .read_exact_at(target, HEADER_BYTES as u64)
                .map_err(io_error(&shard.path))?;
            continue;
        }
        // SAFETY: `target` lies inside `map`, which this function borrows mutably, and
        // starts on a page. MAP_FIXED replaces the anonymous pages of `map` there with
        // a private (copy-on-write) mapping of the shard's payload, which the file
        // holds whole (`check_size`): up to the end of the page of its last byte, which
        // is the next shard's first page only if that shard did not start on a page
        // (then `aligned` is false) and is otherwise the tail of `map`'s own last
        // page. `map` stays valid memory throughout, and its unmapping on drop covers
        // these pages.
        let mapped = unsafe {
            libc::mmap(
                target.as_mut_ptr().cast(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                std::os::fd::AsRawFd::as_raw_fd(&shard.file),
                HEADER_BYTES as libc::off_t,
            )
        };
        if mapped == libc::MAP_FAILED {
            return Err(io_error(&shard.path)(std::io::Error::last_os_error()));
        }
    }
    Ok(())
}
