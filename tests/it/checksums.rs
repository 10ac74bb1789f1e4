//! Checksums per block (format version 3): a damaged table never answers from the
//! damaged bytes, whoever reads it (the library, the binary, the shards' reader, the
//! stdlib-only Python reader), and tables of older versions are still read.

use std::path::{Path, PathBuf};

use antipode::driver::Control;
use antipode::engine::InProcessRanks;
use antipode::puzzles::SlidingPuzzle;
use antipode::store::Encoding;
use antipode::table::{self, BLOCK_LOG2, BuildOptions, HEADER_BYTES, Table, TableError};
use antipode::{Puzzle, analysis};

use crate::common::{antipode, assert_error};

/// The 2x5 board: 1,814,400 indices, so its 8-bit payload has two blocks of 1 MiB.
fn board() -> SlidingPuzzle {
    SlidingPuzzle::new(2, 5).unwrap()
}

fn build(dir: &Path, encoding: Encoding) -> PathBuf {
    let path = dir.join(format!("2x5-{}bit.table", encoding.bits()));
    let options = BuildOptions {
        encoding,
        ..Default::default()
    };
    table::build(&board(), &path, &options, &Control::default()).unwrap();
    path
}

/// A copy of `path` with payload byte `at` changed.
fn damaged(path: &Path, at: usize) -> PathBuf {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[HEADER_BYTES + at] ^= 0x10;
    let copy = path.with_extension("damaged");
    std::fs::write(&copy, bytes).unwrap();
    copy
}

/// The first index whose entry lies in payload block `block` (8-bit entries).
fn index_in_block(block: u64) -> u64 {
    block << BLOCK_LOG2
}

#[test]
fn a_table_ends_with_the_checksums_of_its_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), Encoding::Byte);
    let bytes = std::fs::read(&path).unwrap();
    let header = Table::open(&path).unwrap().header().clone();
    assert_eq!(header.version, 3);
    let sums = header.block_sums.unwrap();
    assert_eq!(sums.block_log2, 20);
    let payload = &bytes[HEADER_BYTES..HEADER_BYTES + 1_814_400];
    assert_eq!(bytes.len(), HEADER_BYTES + 1_814_400 + 2 * 4);
    let list = &bytes[HEADER_BYTES + 1_814_400..];
    assert_eq!(crc32fast::hash(list), sums.list_crc32);
    for (block, crc) in list.chunks(4).enumerate() {
        let end = ((block + 1) << 20).min(payload.len());
        let expected = crc32fast::hash(&payload[block << 20..end]);
        assert_eq!(u32::from_le_bytes(crc.try_into().unwrap()), expected);
    }
    assert_eq!(crc32fast::hash(payload), header.payload_crc32);
}

#[test]
fn an_answer_from_a_damaged_block_is_an_error_and_the_others_still_answer() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(dir.path(), Encoding::Byte);
    let bad = damaged(&good, 1_500_000);
    let puzzle = board();
    // Opening reads the header and the list only: it does not see the damage.
    let table = Table::open(&bad).unwrap();
    let reference = Table::open(&good).unwrap();
    let in_good_block = index_in_block(0) + 12_345;
    assert_eq!(
        table.distance_of_index(&puzzle, in_good_block).unwrap(),
        reference.distance_of_index(&puzzle, in_good_block).unwrap()
    );
    for index in [index_in_block(1), 1_500_000, 1_814_399] {
        match table.distance_of_index(&puzzle, index) {
            Err(TableError::BlockChecksum { block: 1, .. }) => {}
            other => panic!("index {index}: {other:?}"),
        }
    }
    // A solution by descent that passes through the damaged block fails the same way.
    let goal = puzzle.goal_indices()[0];
    assert!(goal >= index_in_block(1), "the goal lies in block 1");
    let far = puzzle.unrank(in_good_block);
    assert!(matches!(
        table.solve(&puzzle, &far),
        Err(TableError::BlockChecksum { block: 1, .. })
    ));
    assert!(matches!(
        table.check_all(),
        Err(TableError::BlockChecksum { block: 1, .. })
    ));

    // The binary: lookup fails with one line naming the block, info and verify too.
    let file = bad.to_str().unwrap();
    assert_error(
        &["lookup", "sliding:2x5", "--table", file, "12345/67890"],
        "block 1 (bytes 1048576..1814400 of the payload)",
    );
    assert_error(&["info", file], "block 1");
    let output = antipode(&["verify", file]);
    assert!(!output.status.success());
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("FAIL block checksums"), "{report}");

    // The plain Python reader answers from the good block, refuses the damaged one.
    let read = |index: u64| {
        std::process::Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scripts/read_table.py"
            ))
            .args([file, &index.to_string()])
            .output()
            .unwrap()
    };
    let output = read(in_good_block);
    assert!(output.status.success(), "{output:?}");
    let expected = reference.distance_of_index(&puzzle, in_good_block).unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout).ends_with(&format!("{in_good_block} {expected}\n"))
    );
    let output = read(1_500_000);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("block 1 of the payload is corrupted")
    );
}

/// 2-bit tables answer by descent: a damaged byte must not become "unreached" or
/// "inconsistent", but the checksum error.
#[test]
fn a_descent_through_a_damaged_block_of_a_two_bit_table_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(dir.path(), Encoding::Mod3);
    let puzzle = board();
    let table = Table::open(damaged(&good, 200_000)).unwrap();
    for index in [0, 777_777, 1_814_399] {
        match table.distance_of_index(&puzzle, index) {
            Err(TableError::BlockChecksum { block: 0, .. }) => {}
            other => panic!("index {index}: {other:?}"),
        }
    }
    let intact = Table::open(&good).unwrap();
    assert_eq!(intact.distance_of_index(&puzzle, 0).unwrap(), 31);
}

#[test]
fn a_damaged_list_of_block_checksums_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(dir.path(), Encoding::Byte);
    let mut bytes = std::fs::read(&good).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let bad = dir.path().join("list.table");
    std::fs::write(&bad, bytes).unwrap();
    let error = Table::open(&bad).err().unwrap().to_string();
    assert!(error.contains("list of block checksums"), "{error}");
    assert_error(
        &[
            "lookup",
            "sliding:2x5",
            "--table",
            bad.to_str().unwrap(),
            "12345/67890",
        ],
        "list of block checksums",
    );
}

/// The same table as format 2 wrote it: no list, version 2, checked whole at open.
fn as_version_two(path: &Path) -> PathBuf {
    let bytes = std::fs::read(path).unwrap();
    let header = Table::open(path).unwrap().header().clone();
    let mut old = bytes[..HEADER_BYTES + header.payload_bytes as usize].to_vec();
    old[8..12].copy_from_slice(&2u32.to_le_bytes());
    old[280..288].fill(0);
    old[176..184].fill(0);
    let crc = crc32fast::hash(&old[..HEADER_BYTES]) as u64;
    old[176..184].copy_from_slice(&crc.to_le_bytes());
    let copy = path.with_extension("v2");
    std::fs::write(&copy, old).unwrap();
    copy
}

#[test]
fn version_two_tables_are_read_and_checked_whole_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(dir.path(), Encoding::Byte);
    let old = as_version_two(&good);
    let puzzle = board();
    let table = Table::open(&old).unwrap();
    assert_eq!(table.header().version, 2);
    assert!(!table.checks_blocks());
    assert_eq!(table.distance_of_index(&puzzle, 0).unwrap(), 31);
    let bad = damaged(&old, 1_500_000);
    assert!(matches!(
        Table::open(&bad),
        Err(TableError::Checksum { .. })
    ));
    // Unverified, an old table answers unchecked: the documented risk of that call.
    assert!(Table::open_unverified(&bad).is_ok());
    let (report, _) = crate::common::run_ok(&["verify", old.to_str().unwrap()]);
    assert!(!report.contains("block checksums"), "{report}");
}

#[test]
fn a_damaged_shard_fails_the_answers_that_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sharded");
    let puzzle = board();
    let options = BuildOptions {
        encoding: Encoding::Byte,
        ..Default::default()
    };
    let transport = InProcessRanks::new(2);
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|r| {
                let (rank, puzzle, folder, options) =
                    (transport.rank(r), &puzzle, &folder, &options);
                scope.spawn(move || {
                    analysis::analyze_partitioned_table(
                        puzzle,
                        folder,
                        options,
                        &rank,
                        0,
                        &Control::default(),
                    )
                })
            })
            .collect();
        for run in runs {
            run.join().unwrap().unwrap();
        }
    });
    assert!(Table::open(&folder).unwrap().checks_blocks());
    let shard = folder.join("shard-1-of-2.table");
    let mut bytes = std::fs::read(&shard).unwrap();
    bytes[HEADER_BYTES + 10] ^= 0x10;
    std::fs::write(&shard, bytes).unwrap();
    let table = Table::open(&folder).unwrap();
    let last = puzzle.index_count() - 1;
    match table.distance_of_index(&puzzle, last) {
        Err(TableError::BlockChecksum { path, block: 0, .. }) => assert_eq!(path, shard),
        other => panic!("{other:?}"),
    }
    assert_eq!(table.distance_of_index(&puzzle, 0).unwrap(), 31);
    assert_error(&["info", folder.to_str().unwrap()], "shard-1-of-2.table");
}
