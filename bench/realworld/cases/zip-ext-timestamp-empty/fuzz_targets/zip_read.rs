//! Byte-level fuzz target for the `zip` crate's reader (ZIP is a container of
//! length-prefixed records: local headers, central directory entries and their
//! extra-data fields each carry their own length fields).
//!
//! Mirrors upstream `fuzz_read` (zip 5.x, `fuzz_read/src/main.rs`): open the
//! bytes as a `ZipArchive`, read every entry, then walk the same bytes again as
//! a stream with `read_zipfile_from_stream`.  Not typed: the input is the file.
#![no_main]

use std::io::{Cursor, Read, Seek, SeekFrom};

use libfuzzer_sys::fuzz_target;
use zip::read::read_zipfile_from_stream;

const MAX_BYTES_TO_READ: u64 = 1 << 24;

fn read_all(data: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(data))?;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i)?.take(MAX_BYTES_TO_READ);
        std::io::copy(&mut file, &mut std::io::sink())?;
    }
    let mut reader = archive.into_inner();
    reader.seek(SeekFrom::Start(0))?;
    while let Ok(Some(mut file)) = read_zipfile_from_stream(&mut reader) {
        std::io::copy(&mut file, &mut std::io::sink())?;
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = read_all(data);
});
