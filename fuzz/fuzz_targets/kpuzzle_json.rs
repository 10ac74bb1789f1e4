//! KPuzzle JSON definitions: an error or a definition, never a panic or a hang; a
//! definition that reads opens as a puzzle or is refused with an error.
#![no_main]

use antipode::puzzles::kpuzzle::definition::Definition;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Definition::from_json("fuzz.json", &text);
});
