//! Table headers (depth tables, pattern databases, peg tables): any 4096 bytes, once
//! as they are and once with the header checksum made right, so that the fields
//! behind the checksum are reached.
#![no_main]

use antipode::solvers::peg::table::PegHeader;
use antipode::table::header::VERSION;
use antipode::table::{HEADER_BYTES, Header};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut block = vec![0u8; HEADER_BYTES];
    let n = data.len().min(HEADER_BYTES);
    block[..n].copy_from_slice(&data[..n]);
    let _ = Header::decode(&block);
    let _ = PegHeader::decode(&block);
    block[..8].copy_from_slice(b"ANTIPODE");
    block[176..184].fill(0);
    let crc = crc32fast::hash(&block) as u64;
    block[176..184].copy_from_slice(&crc.to_le_bytes());
    if let Ok(header) = Header::decode(&block)
        && header.version == VERSION
        && header.fits()
    {
        // A header of this version that reads encodes to one that reads the same.
        assert_eq!(Header::decode(&header.encode()).as_ref(), Ok(&header));
    }
    let _ = PegHeader::decode(&block);
});
