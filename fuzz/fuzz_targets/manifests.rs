//! The manifest of a table in shards (TOML).
#![no_main]

use antipode::table::shards::Manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Manifest::parse(std::path::Path::new("manifest.toml"), &text);
});
