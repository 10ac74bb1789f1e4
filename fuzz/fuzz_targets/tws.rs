//! twsearch's `.tws` definitions: an error or a definition, never a panic or a hang.
#![no_main]

use antipode::puzzles::kpuzzle::tws;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = tws::read("fuzz.tws", &text);
});
