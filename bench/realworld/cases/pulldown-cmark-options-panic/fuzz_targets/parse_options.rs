//! Typed fuzz target: pulldown-cmark 0.9.1 parser options + markdown text.
//!
//! Mirrors upstream's `fuzz/fuzz_targets/parse.rs` (added in 0.9.1, "Fuzz options too"):
//! a struct of the markdown source and one flag per optional extension, turned into
//! `Options` for `Parser::new_ext`, whose events are all pulled. It is typed because the
//! extension flags change which parsing code runs at all; `Arbitrary` generates the
//! flags and the text together instead of hand-decoding bytes.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use pulldown_cmark::{Options, Parser};

#[derive(Arbitrary, Debug)]
struct Input {
    markdown: String,
    tables: bool,
    footnotes: bool,
    strikethrough: bool,
    tasklists: bool,
    smart_punctuation: bool,
    heading_attributes: bool,
}

fuzz_target!(|input: Input| {
    let mut opts = Options::empty();
    let flags = [
        (input.tables, Options::ENABLE_TABLES),
        (input.footnotes, Options::ENABLE_FOOTNOTES),
        (input.strikethrough, Options::ENABLE_STRIKETHROUGH),
        (input.tasklists, Options::ENABLE_TASKLISTS),
        (input.smart_punctuation, Options::ENABLE_SMART_PUNCTUATION),
        (input.heading_attributes, Options::ENABLE_HEADING_ATTRIBUTES),
    ];
    for (on, flag) in flags {
        if on {
            opts.insert(flag);
        }
    }
    for _event in Parser::new_ext(&input.markdown, opts) {}
});
