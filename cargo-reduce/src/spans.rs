//! The places in source files that a message quotes (`src/lib.rs:12:5`,
//! `{async block@src/pool/a.rs:27:16: 27:21}`, `<impl at x.rs:3:1: 3:9>`),
//! found and blanked: one rule for rustc's ICE messages and for a fuzz
//! target's panic messages. Such a place names where the code was, not
//! what went wrong: making a crate one file renames its files and moves
//! their lines, and a build directory's absolute path differs between
//! runs and machines.

/// `message` with each source place it quotes replaced by `blank`: a file
/// path (relative or absolute, its last part with an extension) followed
/// by `:LINE:COL` and maybe `: LINE:COL` (rustc's span), or such a path
/// without a line that follows `@` or holds a `/`.
pub(crate) fn blank_spans(message: &str, blank: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    let mut after = None;
    while let Some(c) = rest.chars().next() {
        let starts = after.is_none_or(|p: char| !is_path_char(p));
        match starts.then(|| span_len(rest, after == Some('@'))).flatten() {
            Some(len) => {
                out.push_str(blank);
                rest = &rest[len..];
                after = blank.chars().last();
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
                after = Some(c);
            }
        }
    }
    out
}

/// The characters of a file path as messages print it.
fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '\\' | '~' | '+')
}

/// The length of the source place `text` starts with; `at` tells that it
/// follows `@`, where a path alone is one.
fn span_len(text: &str, at: bool) -> Option<usize> {
    let drive = drive_len(text);
    let run = text[drive..]
        .find(|c: char| !is_path_char(c))
        .unwrap_or(text.len() - drive);
    let path = text[drive..drive + run].trim_end_matches('.');
    if !has_extension(path) {
        return None;
    }
    let end = drive + path.len();
    match line_col(&text[end..], ":") {
        Some(first) => {
            let second = line_col(&text[end + first..], ": ").unwrap_or(0);
            Some(end + first + second)
        }
        None => (at || path.contains('/') || drive > 0).then_some(end),
    }
}

/// The length of a Windows drive (`C:\`, `C:/`) that `text` starts with.
fn drive_len(text: &str) -> usize {
    let b = text.as_bytes();
    let drive = b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    match drive && matches!(b[2], b'/' | b'\\') {
        true => 2,
        false => 0,
    }
}

/// Whether the last part of `path` is a file name with an extension that
/// starts with a letter (`lib.rs`, not `0.5` or `v1.`).
fn has_extension(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && ext.starts_with(|c: char| c.is_ascii_alphabetic())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// The length of `SEP LINE:COL` at the start of `text`.
fn line_col(text: &str, sep: &str) -> Option<usize> {
    let rest = text.strip_prefix(sep)?;
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let line = digits(rest);
    let col = digits(rest.get(line + 1..)?);
    (line > 0 && col > 0 && rest.as_bytes()[line] == b':').then_some(sep.len() + line + 1 + col)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rustc's ICE messages as 1.95 and nightly print them
    /// (rust-lang/rust#119095, #156081), in the crate and as one file.
    #[test]
    fn the_places_rustc_prints_are_blanked() {
        let crate_ = "failed to resolve instance for <{async block@src/pool/checkout.rs:27:16: 27:21} as Spawn>::spawn";
        let flat = "failed to resolve instance for <{async block@ice_span.rs:69:16: 69:21} as Spawn>::spawn";
        let blanked = "failed to resolve instance for <{async block@_} as Spawn>::spawn";
        assert_eq!(blank_spans(crate_, "_"), blanked);
        assert_eq!(blank_spans(flat, "_"), blanked);
        assert_eq!(
            blank_spans(
                "<{gen closure body@156081.rs:9:24: 9:29} as IntoFuture>::into_future",
                "_"
            ),
            "<{gen closure body@_} as IntoFuture>::into_future"
        );
        assert_eq!(
            blank_spans(
                "checking that `<impl at src/a-b/c.rs:11:1: 11:14>` holds",
                "_"
            ),
            "checking that `<impl at _>` holds"
        );
        assert_eq!(
            blank_spans("span: /tmp/x/src/lib.rs:1:1: 1:16 (#0)", "_"),
            "span: _ (#0)"
        );
    }

    #[test]
    fn paths_without_a_line_are_blanked_after_at_or_with_a_directory() {
        assert_eq!(blank_spans("{closure@lib.rs}", "_"), "{closure@_}");
        assert_eq!(
            blank_spans(
                "cannot read /home/u/.cargo/registry/src/x-1.0/build.rs.",
                "_"
            ),
            "cannot read _."
        );
        assert_eq!(blank_spans(r"at C:\work\src\lib.rs:3:4", "_"), "at _");
    }

    #[test]
    fn words_numbers_and_paths_of_items_stay() {
        for kept in [
            "DefId(0:11 ~ b[98d9]::B) for `Foo<'a>` at 12",
            "assertion failed: self.query_mode == TraitQueryMode::Canonical",
            "index 5 of 0.5 in v1. and a/b, x.rs without a line",
            "type parameter `T/#1` (T/#1/1) out of range",
        ] {
            assert_eq!(blank_spans(kept, "_"), kept);
        }
        // Part of a longer word is no path's start.
        assert_eq!(blank_spans("xsrc@a.rs", "_"), "xsrc@_");
        assert_eq!(blank_spans("a.rs:3", "_"), "a.rs:3", "no column");
    }
}
