//! A target that does not compile: it calls a misspelt function, so
//! rustc's error ends with a `help:` that suggests the right name.
#![no_main]

fn parse_header(data: &[u8]) -> usize {
    data.len()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = parse_headers(data);
});
