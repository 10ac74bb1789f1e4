//! Description files: peg solitaire boards and sliding-block puzzles (TOML), selected
//! by the first byte.
#![no_main]

use antipode::puzzles::blocks::BlockPuzzle;
use antipode::puzzles::peg::description;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    if which % 2 == 0 {
        let _ = description::parse("fuzz.toml", &text);
    } else {
        let _ = BlockPuzzle::from_text("fuzz.toml", &text);
    }
});
