//! Typed fuzz target for `textwrap::wrap_algorithms::wrap_optimal_fit` (textwrap 0.14.2).
//!
//! Mirrors upstream's `fuzz/fuzz_targets/wrap_optimal_fit.rs` ("Add fuzz tests with fully
//! arbitrary fragments", textwrap PR #423; 0.14.2 has no penalty parameters, so only the
//! fragments and line widths are generated): the input is a paragraph of arbitrary
//! fragments (word width, whitespace width, penalty width) plus a list of line widths.
//! It is typed because the algorithm works on these structured fragments, not on bytes;
//! `Arbitrary` builds them directly. In 0.14.2 the widths are `usize` and the internal
//! cost computation overflows on extreme values (issue #247, fixed in 0.15.0 by PR #421).
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use textwrap::core::Fragment;
use textwrap::wrap_algorithms::wrap_optimal_fit;

#[derive(Arbitrary, Debug, Clone, Copy)]
struct Word {
    width: usize,
    whitespace_width: usize,
    penalty_width: usize,
}

impl Fragment for Word {
    fn width(&self) -> usize {
        self.width
    }
    fn whitespace_width(&self) -> usize {
        self.whitespace_width
    }
    fn penalty_width(&self) -> usize {
        self.penalty_width
    }
}

#[derive(Arbitrary, Debug)]
struct Paragraph {
    words: Vec<Word>,
    line_widths: Vec<usize>,
}

fuzz_target!(|input: Paragraph| {
    let _ = wrap_optimal_fit(&input.words, &input.line_widths);
});
