//! Typed fuzz target for `fancy-regex` compilation and matching.
//!
//! Upstream's `fuzz/fuzz_targets/fuzz_parser.rs` only parses the pattern
//! (`Expr::parse_tree`); this target goes one step further, like a user of the
//! crate: compile the pattern (with an optional backtrack limit) and run the
//! search methods on a subject text.  Typed because the input is a struct of a
//! pattern, a text and options.
#![no_main]

use arbitrary::Arbitrary;
use fancy_regex::RegexBuilder;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Search {
    IsMatch,
    Find,
    Captures,
    FindIter,
}

#[derive(Arbitrary, Debug)]
struct Input {
    pattern: String,
    search: Search,
    backtrack_limit: Option<u16>,
    text: String,
}

fuzz_target!(|input: Input| {
    let mut builder = RegexBuilder::new(&input.pattern);
    if let Some(limit) = input.backtrack_limit {
        builder.backtrack_limit(usize::from(limit) + 1);
    }
    let Ok(re) = builder.build() else { return };
    let text = input.text.as_str();
    match input.search {
        Search::IsMatch => {
            let _ = re.is_match(text);
        }
        Search::Find => {
            let _ = re.find(text);
        }
        Search::Captures => {
            if let Ok(Some(caps)) = re.captures(text) {
                for m in caps.iter().flatten() {
                    let _ = m.as_str();
                }
            }
        }
        Search::FindIter => {
            for m in re.find_iter(text).take(64) {
                if m.is_err() {
                    break;
                }
            }
        }
    }
});
