//! Positions and scrambles in every family's notation (the puzzle chosen by the first
//! byte): a position that parses ranks inside the puzzle's index space.
#![no_main]

use std::sync::OnceLock;

use antipode::puzzles::{self, AnyPuzzle, Opened};
use antipode::{Puzzle as _, with_puzzle};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 7] = [
    "8puzzle", "11puzzle", "goat", "2x2x2", "klotski", "oshidori", "pyraminx",
];

/// The puzzles, opened once (opening some builds tables).
fn opened() -> &'static (Vec<AnyPuzzle>, Opened) {
    static OPENED: OnceLock<(Vec<AnyPuzzle>, Opened)> = OnceLock::new();
    OPENED.get_or_init(|| {
        let named = NAMES
            .iter()
            .map(|name| puzzles::lookup(name).expect("a shipped puzzle"))
            .collect();
        (named, puzzles::open("hoppers").expect("a shipped board"))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (named, hoppers) = opened();
    let puzzle = &named[which as usize % NAMES.len()];
    with_puzzle!(puzzle, p => {
        if let Ok(state) = p.parse(&text) {
            assert!(p.rank(&state) < p.index_count(), "{}: {text:?}", p.name());
        }
    });
    if let Opened::Peg(board) = hoppers {
        let _ = board.parse(&text);
        let _ = board.parse_goal(&text);
    }
});
