//! Plain-text tables for the human output (and the coverage summary's): columns padded to their widest
//! cell, some right-aligned (numbers), the last one left free (it holds
//! long failure signatures that must not widen the others), one line per
//! row whatever the cells hold.

/// How a column is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// What separates the lines of a cell that holds several (an
/// `assert_eq!`'s `left:` and `right:`), shown on one.
const LINE_BREAK: &str = " ⏎ ";

/// `text` on one line: its lines trimmed and joined by [`LINE_BREAK`]
/// (empty ones dropped), cut to `max` characters with `…` when longer.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(LINE_BREAK);
    cut(&joined, max).unwrap_or(joined)
}

/// `text` cut to `max` characters, its last `…`; `None` when it fits.
pub(super) fn cut(text: &str, max: usize) -> Option<String> {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((end, _)) if text.chars().count() > max => Some(format!("{}…", &text[..end])),
        _ => None,
    }
}

/// `rows` as lines of columns separated by two spaces, each line starting
/// with `indent`; `align` gives every column but the last, which is not
/// padded. A cell of several lines is shown on one ([`one_line`]).
/// Trailing spaces are trimmed.
pub(super) fn render(rows: &[Vec<String>], align: &[Align], indent: &str) -> String {
    let flat: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| match cell.contains('\n') {
                    true => one_line(cell, usize::MAX),
                    false => cell.clone(),
                })
                .collect()
        })
        .collect();
    let rows = &flat;
    let mut widths = vec![0; align.len()];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = indent.to_string();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths
                .get(i)
                .map_or(0, |w| w - cell.chars().count().min(*w));
            let (left, right) = match align.get(i) {
                Some(Align::Right) => (" ".repeat(pad), String::new()),
                Some(Align::Left) => (String::new(), " ".repeat(pad)),
                None => (String::new(), String::new()),
            };
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(&left);
            line.push_str(cell);
            line.push_str(&right);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The terminal summary: per file, lines covered / instrumented and the
/// percentage, then the total.
pub(super) fn coverage(
    files: &[crate::job::message::FileCoverage],
    covered: usize,
    total: usize,
) -> String {
    let mut rows = vec![vec![
        "file".to_string(),
        "lines".to_string(),
        "covered".to_string(),
    ]];
    let row = |name: String, covered: usize, total: usize| {
        vec![
            name,
            format!("{covered}/{total}"),
            crate::job::coverage::percent(covered, total),
        ]
    };
    for f in files {
        rows.push(row(
            shown_file(&f.path),
            f.lines_covered,
            f.lines_instrumented,
        ));
    }
    rows.push(row("total".to_string(), covered, total));
    render(&rows, &[Align::Left, Align::Right, Align::Right], "")
}

/// A file as the summary shows it: a dependency's from its crate's folder
/// (`aho-corasick-1.1.5/src/lib.rs`, not from cargo's registry or git
/// checkouts), others as given (the JSON and lcov keep every full path).
fn shown_file(path: &std::path::Path) -> String {
    let parts: Vec<&std::ffi::OsStr> = path.iter().collect();
    let after = |first: &str, second: &str, skipped: usize| {
        let at = parts
            .windows(2)
            .position(|w| w[0] == first && w[1] == second)?;
        Some(at + 2 + skipped).filter(|&from| from < parts.len())
    };
    // registry/src/<index>/<crate>-<version>/…, git/checkouts/<repo>/<rev>/…
    let from = after("registry", "src", 1).or_else(|| after("git", "checkouts", 0));
    match from.filter(|_| path.is_absolute()) {
        Some(from) => parts[from..]
            .iter()
            .collect::<std::path::PathBuf>()
            .display()
            .to_string(),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dependencys_file_is_shown_from_its_crates_folder() {
        let shown = |p: &str| shown_file(std::path::Path::new(p));
        assert_eq!(
            shown("/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/aho-corasick-1.1.5/src/lib.rs"),
            "aho-corasick-1.1.5/src/lib.rs"
        );
        assert_eq!(
            shown("/home/u/.cargo/git/checkouts/png-3f2a/4f873e4/src/decoder.rs"),
            "png-3f2a/4f873e4/src/decoder.rs"
        );
        assert_eq!(shown("fuzz_targets/decode.rs"), "fuzz_targets/decode.rs");
        // The workspace's own files are shown relative to it, never cut.
        assert_eq!(
            shown("vendor/registry/src/x/a.rs"),
            "vendor/registry/src/x/a.rs"
        );
        assert_eq!(
            shown("/work/registry/src/lib.rs"),
            "/work/registry/src/lib.rs"
        );
    }

    #[test]
    fn columns_pad_to_the_widest_cell() {
        let rows = vec![
            vec!["NAME".into(), "BYTES".into(), "NOTE".into()],
            vec!["a/crash-1".into(), "12".into(), "a long note".into()],
            vec!["b".into(), "3".into(), String::new()],
        ];
        let text = render(&rows, &[Align::Left, Align::Right], "");
        assert_eq!(
            text,
            "NAME       BYTES  NOTE\na/crash-1     12  a long note\nb              3\n"
        );
    }

    /// An `assert_eq!` message's lines stay in their row.
    #[test]
    fn a_cell_of_several_lines_is_shown_on_one() {
        let message = "assertion `left == right` failed: bad\nheader\n  left: 1\n right: 0";
        let rows = vec![
            vec!["a/crash-1".into(), "12".into(), message.into()],
            vec!["b".into(), "3".into(), "one line".into()],
        ];
        let text = render(&rows, &[Align::Left, Align::Right], "");
        assert_eq!(
            text,
            "a/crash-1  12  assertion `left == right` failed: bad ⏎ header ⏎ left: 1 ⏎ right: 0\nb           3  one line\n"
        );
    }

    #[test]
    fn one_line_cuts_long_text_at_a_character() {
        assert_eq!(one_line("abc\ndéf", 100), "abc ⏎ déf");
        assert_eq!(one_line("abcdéfgh", 5), "abcd…");
        assert_eq!(one_line("abcde", 5), "abcde");
        assert_eq!(one_line("", 5), "");
    }

    #[test]
    fn the_summary_has_a_line_per_file_and_the_total() {
        let files = [
            crate::job::message::FileCoverage {
                path: "src/lib.rs".into(),
                lines_instrumented: 8,
                lines_covered: 6,
            },
            crate::job::message::FileCoverage {
                path: "fuzz_targets/parse.rs".into(),
                lines_instrumented: 3,
                lines_covered: 0,
            },
        ];
        assert_eq!(
            coverage(&files, 6, 11),
            "file                   lines  covered\n\
             src/lib.rs               6/8    75.0%\n\
             fuzz_targets/parse.rs    0/3     0.0%\n\
             total                   6/11    54.5%\n"
        );
    }
}
