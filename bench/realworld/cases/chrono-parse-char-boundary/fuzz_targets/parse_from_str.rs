//! Typed fuzz target for `chrono` string parsing.
//!
//! Upstream's `fuzz/fuzz_targets/fuzz_reader.rs` feeds the input text to
//! `DateTime::parse_from_rfc2822` / `parse_from_rfc3339`; we do the same and also
//! parse it with a strftime-style format string, as `DateTime::parse_from_str`
//! users do (the panic reported in chronotope/chrono#600 was found by fuzzing that
//! call).  Typed because the input is a struct: which chrono type to parse into,
//! the format string and the text.
#![no_main]

use arbitrary::Arbitrary;
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Kind {
    DateTime,
    NaiveDateTime,
    NaiveDate,
    NaiveTime,
}

#[derive(Arbitrary, Debug)]
struct Input {
    kind: Kind,
    format: String,
    text: String,
}

fuzz_target!(|input: Input| {
    let (s, f) = (input.text.as_str(), input.format.as_str());
    let _ = DateTime::parse_from_rfc2822(s);
    let _ = DateTime::parse_from_rfc3339(s);
    match input.kind {
        Kind::DateTime => {
            let _ = DateTime::parse_from_str(s, f);
        }
        Kind::NaiveDateTime => {
            let _ = NaiveDateTime::parse_from_str(s, f);
        }
        Kind::NaiveDate => {
            let _ = NaiveDate::parse_from_str(s, f);
        }
        Kind::NaiveTime => {
            let _ = NaiveTime::parse_from_str(s, f);
        }
    }
});
