//! Typed fuzz target: pulldown-cmark 0.13.3 option bits + markdown text.
//!
//! Mirrors upstream's `fuzz/fuzz_targets/parse.rs` at 0.13.3 (since PR #980 "Ensure
//! parse fuzz target covers all options"): a struct of an option bit set and the
//! markdown source; the bits become `Options::from_bits_truncate`, and every event of
//! `Parser::new_ext` is pulled. It is typed because the option bits select whole
//! extensions (tables, task lists, footnotes, math, wikilinks, ...) and `Arbitrary`
//! builds the bit set and the text together.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use pulldown_cmark::{Options, Parser};

#[derive(Arbitrary, Debug)]
struct Input {
    options: u32,
    markdown: String,
}

fuzz_target!(|input: Input| {
    let options = Options::from_bits_truncate(input.options);
    for _event in Parser::new_ext(&input.markdown, options) {}
});
