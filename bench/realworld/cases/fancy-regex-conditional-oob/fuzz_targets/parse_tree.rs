//! Byte-level fuzz target for the `fancy-regex` pattern parser.
//!
//! Mirrors upstream `fuzz/fuzz_targets/fuzz_parser.rs`, which hands the input
//! to `fancy_regex::Expr::parse_tree`.  Not typed: the input is the pattern
//! text; non-UTF-8 inputs are skipped.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(pattern) = std::str::from_utf8(data) {
        let _ = fancy_regex::Expr::parse_tree(pattern);
    }
});
