//! Every parser over arbitrary input and over mutated valid files: an error or a
//! valid result, never a panic. The case counts are bounded so that CI runs them in
//! seconds; `PROPTEST_CASES=100000 cargo test --release --test it parsers` runs more.

use proptest::prelude::*;

use antipode::Notation;
use antipode::puzzles::blocks::{BlockPuzzle, library as blocks};
use antipode::puzzles::kpuzzle::{definition::Definition, tws};
use antipode::puzzles::peg::description as peg_description;
use antipode::solvers::peg::table::PegHeader;
use antipode::store::Encoding;
use antipode::table::{Header, shards::Manifest};
use antipode::{Puzzle as _, puzzles, with_puzzle};

const KPUZZLES: [&str; 3] = [
    include_str!("../../src/puzzles/kpuzzle/library/2x2x2.kpuzzle.json"),
    include_str!("../../src/puzzles/kpuzzle/library/pyraminx.kpuzzle.json"),
    include_str!("../../src/puzzles/kpuzzle/library/skewb.kpuzzle.json"),
];
const PEGS: [&str; 2] = [
    include_str!("../../src/puzzles/peg/library/hoppers.toml"),
    include_str!("../../src/puzzles/peg/library/triangle15.toml"),
];
const MANIFEST: &str = "format = 1\npuzzle = \"2x5\"\ngoal = \"12345/6789 \"\n\
                        definition_sha256 = \"00\"\nindices = 1814400\nentry_bits = 8\nranks = 2\n\
                        complete = false\n\n[[shards]]\nfile = \"shard-0-of-2.table\"\n\
                        start = 0\nend = 907200\n\n[[shards]]\nfile = \"shard-1-of-2.table\"\n\
                        start = 907200\nend = 1814400\n";

const TWS: &str = "Name Triangle\nSet P 3 2\nSet Q 2 1\nSolved\nP\n1 2 3\nQ\n1 2\nEnd\n\
                   Move A\nP\n2 3 1\n1 0 0\nEnd\nMoveTransformation B\nP\n0 2 1\n0 1 1\nQ\n1 0\n\
                   End\nRotation R\nP\n2 3 1\nEnd\n";

/// One change to a file: overwrite, delete or insert a byte at a position (taken
/// modulo the length).
fn edit() -> impl Strategy<Value = (usize, u8, u8)> {
    (any::<usize>(), any::<u8>(), 0u8..3)
}

/// `text` with `edits` applied, read back as (lossy) UTF-8.
fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(at, byte, kind) in edits {
        let i = at % (bytes.len() + 1);
        match kind {
            0 if i < bytes.len() => bytes[i] = byte,
            1 if i < bytes.len() => {
                bytes.remove(i);
            }
            _ => bytes.insert(i, byte),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Text made mostly of the characters the formats use, so that more of it gets past
/// the first token.
fn formatted_text() -> impl Strategy<Value = String> {
    prop_oneof![".{0,200}", "[ \\[\\]{}\":,=0-9a-zA-Z_'\\-./\n]{0,200}",]
}

/// 300 cases a property, or `PROPTEST_CASES`.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn kpuzzle_definitions(text in formatted_text(), edits in prop::collection::vec(edit(), 1..6), which in 0usize..3) {
        let _ = Definition::from_json("x.json", &text);
        let _ = Definition::from_json("x.json", &mutate(KPUZZLES[which], &edits));
    }

    #[test]
    fn tws_definitions(text in formatted_text(), edits in prop::collection::vec(edit(), 1..6)) {
        let _ = tws::read("x.tws", &text);
        let _ = tws::read("x.tws", &mutate(TWS, &edits));
    }

    #[test]
    fn peg_descriptions(text in formatted_text(), edits in prop::collection::vec(edit(), 1..6), which in 0usize..2) {
        let _ = peg_description::parse("x.toml", &text);
        let _ = peg_description::parse("x.toml", &mutate(PEGS[which], &edits));
    }

    #[test]
    fn block_descriptions(text in formatted_text(), edits in prop::collection::vec(edit(), 1..6), which in 0usize..2) {
        let _ = BlockPuzzle::from_text("x.toml", &text);
        let (_, shipped) = blocks::shipped(["goat", "klotski"][which]).unwrap();
        let _ = BlockPuzzle::from_text("x.toml", &mutate(shipped, &edits));
    }

    #[test]
    fn positions_and_scrambles(text in formatted_text(), which in 0usize..6) {
        let name = ["8puzzle", "11puzzle", "goat", "2x2x2", "klotski", "oshidori"][which];
        let puzzle = puzzles::lookup(name).unwrap();
        with_puzzle!(&puzzle, p => {
            if let Ok(state) = p.parse(&text) {
                // A position that parses ranks inside the index space.
                prop_assert!(p.rank(&state) < p.index_count(), "{name}: {text:?}");
            }
        });
        if let Ok(puzzles::Opened::Peg(board)) = puzzles::open("hoppers") {
            let _ = board.parse(&text);
            let _ = board.parse_goal(&text);
        }
    }

    /// Headers whose checksum is right but whose fields are anything.
    #[test]
    fn table_headers(
        indices in any::<u64>(),
        histogram in prop::collection::vec(any::<u64>(), 0..300),
        range in (any::<u64>(), any::<u64>()),
        payload_bytes in any::<u64>(),
        encoding in 0usize..3,
        slot in 0u8..3,
        noise in prop::collection::vec((0usize..4096, any::<u8>()), 0..4),
    ) {
        let header = Header {
            version: 2,
            puzzle: "8puzzle".into(),
            goal: "123/456/780".into(),
            definition_sha256: None,
            indices,
            encoding: [Encoding::Byte, Encoding::Mod3, Encoding::Nibble][encoding],
            complete: slot == 0,
            histogram,
            index_range: range.0..range.1,
            payload_bytes,
            payload_crc32: 0,
            pattern: None,
            checkpoint_slot: slot,
            block_sums: None,
        };
        let mut block = header.encode();
        let _ = Header::decode(&block);
        for (at, byte) in noise {
            block[at] = byte;
        }
        let _ = Header::decode(&block);
        let _ = PegHeader::decode(&block);
    }

    #[test]
    fn shard_manifests(text in formatted_text(), edits in prop::collection::vec(edit(), 1..6)) {
        let dir = tempfile::tempdir().unwrap();
        for (i, candidate) in [text, mutate(MANIFEST, &edits)].iter().enumerate() {
            let path = dir.path().join(format!("manifest-{i}.toml"));
            std::fs::write(&path, candidate).unwrap();
            let _ = Manifest::read(&path);
        }
    }
}

#[test]
fn the_valid_files_used_above_are_valid() {
    for text in KPUZZLES {
        Definition::from_json("x.json", text).unwrap();
    }
    tws::read("x.tws", TWS).unwrap();
    for text in PEGS {
        peg_description::parse("x.toml", text).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.toml");
    std::fs::write(&path, MANIFEST).unwrap();
    Manifest::read(&path).unwrap();
}
