//! Typed fuzz target for `unicode-bidi` line reordering.
//!
//! unicode-bidi has no in-tree fuzz target; this one exercises its public API the
//! way a text-layout engine does: resolve the paragraph(s) of `text` with an
//! optional forced base direction, break each paragraph into lines at the given
//! offsets, and for each line ask for the reordered string, the visual runs, the
//! per-character levels, and the visual index map computed from those levels
//! (`BidiInfo::reorder_visual`).  Typed because the input is a struct of options
//! (direction enum, line-break offsets) plus the text.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use unicode_bidi::{BidiInfo, Level};

#[derive(Arbitrary, Debug)]
enum BaseDirection {
    Auto,
    Ltr,
    Rtl,
}

#[derive(Arbitrary, Debug)]
struct Input {
    direction: BaseDirection,
    line_breaks: Vec<u16>,
    text: String,
}

fuzz_target!(|input: Input| {
    let text = input.text.as_str();
    let level = match input.direction {
        BaseDirection::Auto => None,
        BaseDirection::Ltr => Some(Level::ltr()),
        BaseDirection::Rtl => Some(Level::rtl()),
    };
    let bidi = BidiInfo::new(text, level);
    for para in &bidi.paragraphs {
        // Line boundaries: the requested offsets that fall inside the paragraph on
        // char boundaries, plus the paragraph end.
        let mut cuts: Vec<usize> = input
            .line_breaks
            .iter()
            .map(|&b| para.range.start + usize::from(b))
            .filter(|&b| b > para.range.start && b < para.range.end && text.is_char_boundary(b))
            .collect();
        cuts.push(para.range.end);
        cuts.sort_unstable();
        cuts.dedup();
        let mut start = para.range.start;
        for end in cuts {
            let line = start..end;
            let _ = bidi.reorder_line(para, line.clone());
            let (_, runs) = bidi.visual_runs(para, line.clone());
            assert_eq!(runs.iter().map(|r| r.len()).sum::<usize>(), line.len());
            let levels = bidi.reordered_levels_per_char(para, line.clone());
            let map = BidiInfo::reorder_visual(&levels);
            assert_eq!(map.len(), levels.len());
            start = end;
        }
    }
});
