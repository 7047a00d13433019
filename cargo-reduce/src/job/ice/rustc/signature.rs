//! What identifies an internal compiler error in rustc's output: where the
//! compiler failed (its source location), what it said, and the queries it
//! was running. Two runs ICE "the same way" when their signatures agree at
//! the chosen [`Match`] level; the reduction keeps a candidate only then.

use std::collections::HashSet;
use std::fmt;

use crate::spans::blank_spans;

/// The words spelled in a source text: what a message may say of the
/// user's code outside backquotes (`<(utils::S,) as errors::Tr>` in a
/// `Debug` of a predicate), and what renaming changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spelled(HashSet<String>);

impl Spelled {
    /// Every word (`[A-Za-z_][A-Za-z0-9_]*`) of `text`, keywords and the
    /// words of comments and strings included.
    pub(crate) fn of(text: &[u8]) -> Spelled {
        let text = String::from_utf8_lossy(text);
        Spelled(words(&text).map(str::to_string).collect())
    }

    /// Whether `word` is spelled in the text.
    pub(crate) fn contains(&self, word: &str) -> bool {
        self.0.contains(word)
    }

    /// These words and those of `text`.
    pub(crate) fn with(&self, text: &[u8]) -> Spelled {
        let mut more = self.0.clone();
        more.extend(Spelled::of(text).0);
        Spelled(more)
    }
}

/// The maximal words of `text` that could be identifiers.
fn words(text: &str) -> impl Iterator<Item = &str> {
    word_runs(text.as_bytes())
        .map(|(_, w)| w)
        .filter(|w| w[0].is_ascii_alphabetic() || w[0] == b'_')
        .map(|w| std::str::from_utf8(w).expect("ASCII letters, digits and `_`"))
}

/// The maximal runs of ASCII letters, digits and `_` in `text`, with
/// where each starts.
pub(crate) fn word_runs(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < text.len() && !is_word(text[i]) {
            i += 1;
        }
        let start = i;
        while i < text.len() && is_word(text[i]) {
            i += 1;
        }
        (start < i).then(|| (start, &text[start..i]))
    })
}

/// How strictly two ICEs must agree (`--match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Match {
    /// The compiler's source location only.
    Location,
    /// The location, the message's words other than names and numbers
    /// ([`message_words`]) and the first query.
    #[default]
    Message,
    /// The location, the message verbatim but for the source places it
    /// quotes (a closure's `{closure@src/a.rs:3:5: 3:9}`: the crate as one
    /// file moves them) and every query frame.
    Strict,
}

impl std::str::FromStr for Match {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "location" => Ok(Match::Location),
            "message" => Ok(Match::Message),
            "strict" => Ok(Match::Strict),
            _ => Err(format!(
                "unknown match level `{s}`: use location, message or strict"
            )),
        }
    }
}

/// How the compiler failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A panic (`bug!`, `unwrap`, an assertion): `thread 'rustc' panicked`.
    Panic,
    /// A delayed bug that no error covered: `note: delayed at`.
    DelayedBug,
}

/// One ICE as rustc printed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signature {
    pub(crate) kind: Kind,
    /// Where in the compiler: `compiler/rustc_x/src/y.rs:LINE:COL` (the
    /// build's own path prefix dropped).
    pub(crate) location: String,
    /// The first line of what the compiler said.
    pub(crate) message: String,
    /// The query stack, innermost first: `typeck`, `analysis`.
    pub(crate) queries: Vec<String>,
}

impl Signature {
    /// The ICE in rustc's standard error `text`, if there is one.
    pub(crate) fn parse(text: &str) -> Option<Signature> {
        let lines: Vec<&str> = text.lines().collect();
        let ice_error = find_ice_error(&lines);
        let panic = find_panic(&lines);
        let (kind, location, message) = match (ice_error, panic) {
            // `bug!()` prints its location and message as the error, then
            // panics with an uninformative `Box<dyn Any>`.
            (Some((Some(location), message)), _) => (Kind::Panic, location, message),
            (Some((None, message)), _) => {
                let delayed = lines.iter().find_map(|l| delayed_at(l))?;
                (Kind::DelayedBug, compiler_path(delayed), message)
            }
            (None, Some((location, message))) => (Kind::Panic, location, message),
            (None, None) => return None,
        };
        Some(Signature {
            kind,
            location,
            message,
            queries: queries(&lines),
        })
    }

    /// Whether `other` is the same ICE at level `level`; `spelled` tells
    /// the words of the two sources compared, which a message's names
    /// blank (see [`blank_names`]).
    pub(crate) fn matches(
        &self,
        other: &Signature,
        level: Match,
        spelled: &dyn Fn(&str) -> bool,
    ) -> bool {
        if self.kind != other.kind || self.location != other.location {
            return false;
        }
        match level {
            Match::Location => true,
            Match::Message => {
                message_words(&self.message, spelled) == message_words(&other.message, spelled)
                    && self.queries.first() == other.queries.first()
            }
            Match::Strict => {
                blank_spans(&self.message, "_") == blank_spans(&other.message, "_")
                    && self.queries == other.queries
            }
        }
    }

    /// What `level` compares, as one line for humans.
    pub(crate) fn describe(&self, level: Match) -> String {
        let message = match level {
            Match::Strict => self.message.clone(),
            _ => blank_names(&self.message, &|_| false),
        };
        match (level, self.queries.first()) {
            (Match::Location, _) => self.location.clone(),
            (Match::Message, Some(query)) => format!("{} `{message}` in {query}", self.location),
            (Match::Strict, Some(_)) => format!(
                "{} `{message}` in {}",
                self.location,
                self.queries.join(" < ")
            ),
            (_, None) => format!("{} `{message}`", self.location),
        }
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(Match::Strict))
    }
}

/// `error: internal compiler error: MESSAGE`: the message, and the
/// compiler location when it leads the message (`bug!`'s form).
fn find_ice_error(lines: &[&str]) -> Option<(Option<String>, String)> {
    let rest = lines
        .iter()
        .find_map(|l| l.strip_prefix("error: internal compiler error: "))?;
    match split_location(rest) {
        Some((location, message)) => Some((Some(location), message.to_string())),
        None => Some((None, rest.trim().to_string())),
    }
}

/// `thread 'rustc' (PID) panicked at LOCATION:` and the message's first
/// line after it.
fn find_panic(lines: &[&str]) -> Option<(String, String)> {
    let at = lines
        .iter()
        .position(|l| l.starts_with("thread '") && l.contains(" panicked at "))?;
    let location = lines[at]
        .split(" panicked at ")
        .nth(1)?
        .trim_end_matches(':');
    let message = lines.get(at + 1).map_or("", |l| l.trim());
    Some((compiler_path(location), message.to_string()))
}

/// `/rustc-dev/HASH/compiler/x.rs:1:2: message` split at the location's
/// end; a message that only quotes a span later (`broken MIR … {closure@
/// src/a.rs:3:5: 3:9}`) has none.
fn split_location(text: &str) -> Option<(String, &str)> {
    let path_end = text.find(".rs:")? + ".rs:".len();
    if text[..path_end].contains(char::is_whitespace) {
        return None;
    }
    let mut end = path_end;
    for _ in 0..2 {
        let digits = text[end..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        end += digits;
        if text[end..].starts_with(':') {
            end += 1;
        }
    }
    let location = text[..end].trim_end_matches(':');
    if !location.contains('/') {
        return None;
    }
    Some((compiler_path(location), text[end..].trim()))
}

/// Where a delayed bug was delayed, from its note: `note: delayed at
/// PATH:LINE:COL`, or, under an error without a span, `= note: delayed
/// at …` (nightly's form: rust-lang/rust#98322's ICE was not recognised).
fn delayed_at(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let line = line.strip_prefix("= ").unwrap_or(line);
    line.strip_prefix("note: delayed at ")
}

/// The location from the compiler's own tree on (`compiler/…` or
/// `library/…`); a build's prefix (`/rustc/HASH/`) varies between builds,
/// and what follows it (` - disabled backtrace` with `RUST_BACKTRACE=0`)
/// is no part of it.
fn compiler_path(location: &str) -> String {
    let location = location.split_whitespace().next().unwrap_or_default();
    ["/compiler/", "/library/"]
        .iter()
        .find_map(|root| location.find(root).map(|at| location[at + 1..].to_string()))
        .unwrap_or_else(|| location.to_string())
}

/// The query names of `query stack during panic:`, innermost first.
fn queries(lines: &[&str]) -> Vec<String> {
    let Some(start) = lines.iter().position(|l| *l == "query stack during panic:") else {
        return Vec::new();
    };
    lines[start + 1..]
        .iter()
        .take_while(|l| l.starts_with('#'))
        .filter_map(|l| {
            let open = l.find('[')?;
            let close = open + l[open..].find(']')?;
            Some(l[open + 1..close].to_string())
        })
        .collect()
}

/// `message` with what names the user's code blanked: the source places
/// it quotes (`{async block@src/a.rs:3:5: 3:9}` becomes `{async block@_}`:
/// making the crate one file renames its files, see [`blank_spans`]),
/// backquoted text (types, paths, items), the words for which `spelled`
/// holds (the words of the sources compared: names outside backquotes,
/// old and new; one that qualifies a path goes with its `::`), crate
/// disambiguators (`arrayvec[ef74]`: a hash of the crate's name and its
/// `-C metadata`, which cargo's command line and the MCVE's give
/// differently), numbers (ids, sizes, `#N` indices, `0x` values), hashes
/// and mangled symbol names, which reduction renames and renumbers.
pub(crate) fn blank_names(message: &str, spelled: &dyn Fn(&str) -> bool) -> String {
    let message = blank_spans(message, "_");
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    let mut rest = message.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            if !quoted {
                out.push_str("`_`");
            }
            quoted = !quoted;
            rest = &rest[1..];
            continue;
        }
        if !quoted && c == '[' && out.ends_with(|p: char| p.is_alphanumeric() || p == '_') {
            if let Some(after) = disambiguator(rest) {
                out.push_str("[_]");
                rest = after;
                continue;
            }
        }
        if !quoted && (c.is_ascii_alphanumeric() || c == '_') {
            rest = blank_word(rest, spelled, &mut out);
            continue;
        }
        if !quoted {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Writes the word or number that `text` starts with into `out` as
/// [`blank_names`] blanks it; returns the text after it.
fn blank_word<'a>(text: &'a str, spelled: &dyn Fn(&str) -> bool, out: &mut String) -> &'a str {
    let (_, run) = word_runs(text.as_bytes())
        .next()
        .expect("text starts with a word character");
    let word = std::str::from_utf8(run).expect("ASCII letters, digits and `_`");
    if is_hash(word) || word.starts_with(|c: char| c.is_ascii_digit()) {
        let digits = word.bytes().take_while(u8::is_ascii_digit).count();
        out.push('N');
        return &text[if is_hash(word) { word.len() } else { digits }..];
    }
    let rest = &text[word.len()..];
    match (spelled(word) || is_mangled(word), rest.strip_prefix("::")) {
        // A qualifier goes whole: reduction may open the module.
        (true, Some(after)) => after,
        (true, None) => {
            out.push('_');
            rest
        }
        (false, _) => {
            out.push_str(word);
            rest
        }
    }
}

/// Whether `word` is a value or a hash rather than a word: `0x` and hex
/// digits, `h` and sixteen hex digits (a symbol's hash), or eight hex
/// digits or more, a digit among them.
fn is_hash(word: &str) -> bool {
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let after = |prefix: &str| word.strip_prefix(prefix).is_some_and(hex);
    after("0x")
        || after("0X")
        || (word.len() == 17 && after("h"))
        || (word.len() >= 8 && hex(word) && word.bytes().any(|b| b.is_ascii_digit()))
}

/// Whether `word` is a mangled symbol name (`_ZN…E`, v0's `_RNv…`): it
/// spells the item's path, its crate's hash and numbers.
fn is_mangled(word: &str) -> bool {
    let v0 = ["_RN", "_RI", "_RC"].iter().any(|p| word.starts_with(p));
    (word.starts_with("_ZN") || v0) && word.bytes().any(|b| b.is_ascii_digit())
}

/// The words of `message` other than names and numbers (what
/// [`blank_names`] blanks), in order: what `--match message` compares. At
/// one compiler location the message's template is fixed, and what varies
/// is what it prints of the input: its names and numbers, and the shape of
/// a type it prints (`<((S,),) as b>` becomes `<[[u8]] as b>` as the
/// reducer changes the types, rust-lang/rust#141124), which is why the
/// punctuation does not count either.
pub(crate) fn message_words(message: &str, spelled: &dyn Fn(&str) -> bool) -> Vec<String> {
    let blanked = blank_names(message, spelled);
    blanked
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && *w != "_" && *w != "N")
        .map(str::to_string)
        .collect()
}

/// The text after a crate disambiguator (`[` four hex digits `]`) that
/// `text` starts with.
fn disambiguator(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('[')?.get(..5)?;
    let (hash, close) = inner.split_at(4);
    (close == "]" && hash.bytes().all(|b| b.is_ascii_hexdigit())).then(|| &text[6..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const PANIC: &str = include_str!("../testdata/panic-1.95.txt");
    const PANIC_NIGHTLY: &str = include_str!("../testdata/panic-nightly.txt");
    const DELAYED: &str = include_str!("../testdata/delayed-1.95.txt");
    const BUG: &str = include_str!("../testdata/bug-1.95.txt");

    #[test]
    fn a_panic_gives_its_location_message_and_queries() {
        let sig = Signature::parse(PANIC).unwrap();
        assert_eq!(sig.kind, Kind::Panic);
        assert_eq!(
            sig.location,
            "compiler/rustc_middle/src/ty/predicate.rs:491:9"
        );
        assert!(
            sig.message
                .ends_with("has escaping bound vars, so it cannot be wrapped in a dummy binder."),
            "{sig:?}"
        );
        assert_eq!(sig.queries, ["typeck", "analysis"]);
        assert_eq!(
            sig.describe(Match::Message),
            "compiler/rustc_middle/src/ty/predicate.rs:491:9 `\
             `_` has escaping bound vars, so it cannot be wrapped in a dummy binder.` in typeck"
        );
    }

    /// With `RUST_BACKTRACE=0` rustc prints two query frames, not all:
    /// still the same ICE unless `--match strict`.
    #[test]
    fn a_panic_without_backtraces_is_the_same_ice_but_strictly() {
        let quiet = Signature::parse(include_str!("../testdata/panic-quiet-1.95.txt")).unwrap();
        assert_eq!(
            quiet.location,
            "compiler/rustc_trait_selection/src/traits/select/mod.rs:262:17"
        );
        assert_eq!(quiet.queries, ["evaluate_obligation", "compare_impl_item"]);
        let mut full = quiet.clone();
        full.queries
            .extend(["check_well_formed", "check_type_wf", "analysis"].map(String::from));
        assert!(quiet.matches(&full, Match::Message, &|_| false));
        assert!(!quiet.matches(&full, Match::Strict, &|_| false));
    }

    #[test]
    fn a_delayed_bug_gives_where_it_was_delayed() {
        let quiet = Signature::parse(include_str!("../testdata/delayed-quiet-1.95.txt"));
        assert_eq!(
            quiet,
            Signature::parse(DELAYED),
            "RUST_BACKTRACE=0 changes nothing"
        );
        let sig = Signature::parse(DELAYED).unwrap();
        assert_eq!(sig.kind, Kind::DelayedBug);
        assert_eq!(
            sig.location,
            "compiler/rustc_trait_selection/src/traits/query/type_op/custom.rs:95:25"
        );
        assert_eq!(sig.message, "error performing operation: fully_perform");
        assert!(sig.queries.is_empty());
    }

    /// Nightly prints a delayed bug under an error without a span as a
    /// `= note:`, and twice.
    #[test]
    fn a_spanless_delayed_bug_is_recognised() {
        let text = include_str!("../testdata/delayed-spanless-nightly.txt");
        let sig = Signature::parse(text).unwrap();
        assert_eq!(sig.kind, Kind::DelayedBug);
        assert_eq!(
            sig.location,
            "compiler/rustc_trait_selection/src/traits/const_evaluatable.rs:74:68"
        );
        assert_eq!(
            sig.message,
            "Missing value for constant, but no error reported?"
        );
    }

    /// A delayed bug's message that quotes a span is no `bug!` location.
    #[test]
    fn a_delayed_bug_whose_message_quotes_a_span_keeps_its_message() {
        let message = "broken MIR in DefId(0:5 ~ a[1636]::f) (_1 = {closure@src/a.rs:3:5: 3:9}): bad assignment";
        let delayed = DELAYED.replace("error performing operation: fully_perform", message);
        let sig = Signature::parse(&delayed).unwrap();
        assert_eq!(sig.kind, Kind::DelayedBug);
        assert_eq!(sig.message, message);
        assert_eq!(
            sig.location,
            "compiler/rustc_trait_selection/src/traits/query/type_op/custom.rs:95:25"
        );
    }

    #[test]
    fn a_bug_macro_gives_its_own_location_not_the_box_dyn_any_panic() {
        let sig = Signature::parse(BUG).unwrap();
        assert_eq!(sig.kind, Kind::Panic);
        assert_eq!(
            sig.location,
            "compiler/rustc_const_eval/src/interpret/eval_context.rs:620:33"
        );
        assert!(
            sig.message
                .starts_with("interpret const eval failure of Unevaluated"),
            "{sig:?}"
        );
        assert_eq!(
            sig.queries,
            [
                "eval_to_allocation_raw",
                "eval_to_const_value_raw",
                "analysis"
            ]
        );
    }

    #[test]
    fn output_without_an_ice_has_no_signature() {
        let plain = "error[E0308]: mismatched types\n --> a.rs:1:14\n\nerror: aborting due to 1 previous error\n";
        assert_eq!(Signature::parse(plain), None);
        assert_eq!(Signature::parse(""), None);
    }

    #[test]
    fn levels_compare_more_or_less() {
        let a = Signature::parse(PANIC).unwrap();
        let mut renamed = a.clone();
        renamed.message = a.message.replace("&'any mut ()", "&'x mut u8");
        assert_ne!(renamed.message, a.message);
        assert!(a.matches(&renamed, Match::Message, &|_| false));
        assert!(!a.matches(&renamed, Match::Strict, &|_| false));
        let mut other_query = a.clone();
        other_query.queries = vec!["mir_borrowck".into()];
        assert!(a.matches(&other_query, Match::Location, &|_| false));
        assert!(!a.matches(&other_query, Match::Message, &|_| false));
        let delayed = Signature::parse(DELAYED).unwrap();
        assert!(!a.matches(&delayed, Match::Location, &|_| false));
    }

    #[test]
    fn another_compiler_build_moves_the_line_so_only_the_same_build_matches() {
        let stable = Signature::parse(PANIC).unwrap();
        let nightly = Signature::parse(PANIC_NIGHTLY).unwrap();
        assert_eq!(
            nightly.location,
            "compiler/rustc_middle/src/ty/predicate.rs:498:9"
        );
        assert_eq!(nightly.queries, ["typeck_root", "analysis"]);
        assert!(!stable.matches(&nightly, Match::Location, &|_| false));
    }

    #[test]
    fn blanking_hides_names_and_numbers() {
        assert_eq!(
            blank_names("DefId(0:11 ~ b[98d9]::B) for `Foo<'a>` at 12", &|_| false),
            "DefId(N:N ~ b[_]::B) for `_` at N"
        );
    }

    #[test]
    fn a_crate_disambiguator_is_blanked_whole() {
        // The same ICE under cargo's command line and the MCVE's: only the
        // crate's hash differs (rust-lang/rust#141124 spread into arrayvec).
        let cargo = "impl DefId(0:113 ~ arrayvec[ef74]::errors::{impl#3}) was matchable against Binder { bound_vars: [] } but now is not";
        let mcve = "impl DefId(0:17 ~ arrayvec[1636]::errors::{impl#0}) was matchable against Binder { bound_vars: [] } but now is not";
        assert_eq!(
            blank_names(cargo, &|_| false),
            blank_names(mcve, &|_| false)
        );
        // Brackets that are no disambiguator stay: an index, an empty list,
        // a hex-looking word that follows no name.
        assert_eq!(
            blank_names("a[beef] x [cafe] v[12345]", &|_| false),
            "a[_] x [cafe] v[N]"
        );
    }

    /// Names outside backquotes (a predicate's `Debug`) are blanked where
    /// the sources spell them, so renaming keeps the ICE; the rest of the
    /// message still counts.
    #[test]
    fn names_the_sources_spell_are_blanked_outside_backquotes() {
        let before = "impl DefId(0:13 ~ arrayvec[ef74]::utils::{impl#0}) was matchable against Binder { value: TraitPredicate(<((utils::S,),) as errors::SimpleTrait>) }";
        let after = "impl DefId(0:9 ~ arrayvec[1636]::{impl#0}) was matchable against Binder { value: TraitPredicate(<((a,),) as b>) }";
        let original = Spelled::of(b"mod utils { struct S; } mod errors { trait SimpleTrait {} }");
        let reduced = Spelled::of(b"struct a; trait b {}");
        let spelled = |w: &str| original.contains(w) || reduced.contains(w);
        assert_eq!(blank_names(before, &spelled), blank_names(after, &spelled));
        assert_ne!(
            blank_names(before, &|_| false),
            blank_names(after, &|_| false)
        );
        let other = after.replace("was matchable", "was never matchable");
        assert_ne!(blank_names(before, &spelled), blank_names(&other, &spelled));
    }

    /// rust-lang/rust#119095 in a module of the `ice-span` fixture, and
    /// the same crate as one file: only the async block's file and lines
    /// differ, at every level; the kind of block the message names counts.
    #[test]
    fn a_span_the_message_quotes_does_not_count_its_words_do() {
        let crate_ = Signature::parse(include_str!("../testdata/span-1.95.txt")).unwrap();
        assert_eq!(
            crate_.message,
            "failed to resolve instance for <{async block@src/pool/checkout.rs:27:16: 27:21} as Spawn>::spawn"
        );
        let mut flat = crate_.clone();
        flat.message = "failed to resolve instance for <{async block@ice_span.rs:69:16: 69:21} as Spawn>::spawn".into();
        let spelled = Spelled::of(b"trait Spawn { fn spawn(self); }");
        let spelled = |w: &str| spelled.contains(w);
        for level in [Match::Message, Match::Strict] {
            assert!(crate_.matches(&flat, level, &spelled), "{level:?}");
        }
        assert_eq!(
            crate_.describe(Match::Message),
            "compiler/rustc_middle/src/ty/instance.rs:570:21 \
             `failed to resolve instance for <{async block@_} as Spawn>::spawn` in items_of_instance"
        );
        let mut closure = flat.clone();
        closure.message = flat.message.replace("async block", "closure");
        assert!(!crate_.matches(&closure, Match::Message, &spelled));
        // Nightly's coroutines and gen closures are printed the same way.
        let gen = "failed to resolve instance for <{gen closure body@156081.rs:9:24: 9:29} as IntoFuture>::into_future";
        let moved = "failed to resolve instance for <{gen closure body@/tmp/x/src/a/b.rs:90:1: 91:2} as IntoFuture>::into_future";
        assert_eq!(blank_names(gen, &|_| false), blank_names(moved, &|_| false));
    }

    /// Values, hashes and symbol names a message prints change as the
    /// input does; the message's own words stay.
    #[test]
    fn hex_values_hashes_and_mangled_symbols_are_blanked() {
        let op = |a: &str| {
            format!("invalid asymmetric binary op AddWithOverflow: {a} (i64), 0x0000000000000002 (usize)")
        };
        assert_eq!(
            blank_names(&op("0x0000000000000001"), &|_| false),
            "invalid asymmetric binary op AddWithOverflow: N (i64), N (usize)"
        );
        assert_eq!(
            blank_names(&op("0x00000000000000ff"), &|_| false),
            blank_names(&op("0x1"), &|_| false)
        );
        let symbol = "symbol `x` is _ZN8ice_span4pool8checkout7warm_up17h5f9a3b2c1d0e4f67E in 5f9a3b2c1d0e4f67";
        assert_eq!(blank_names(symbol, &|_| false), "symbol `_` is _ in N");
        assert_eq!(
            blank_names("_RNvCs1234_8ice_span7warm_up, h5f9a3b2c1d0e4f67", &|_| {
                false
            }),
            "_, N"
        );
        // Words that merely look so stay: short hex, letters only.
        assert_eq!(
            blank_names("a deadbeef cafe 0xg _Rx", &|_| false),
            "a deadbeef cafe Nxg _Rx"
        );
    }

    /// The shape of a type the message prints is the input's, as its
    /// names are; the message's own words still count.
    #[test]
    fn a_printed_type_s_shape_does_not_count() {
        let before = "impl DefId(0:9 ~ a[1636]::{impl#0}) was matchable against Binder { value: TraitPredicate(<((u8,),) as b>) }";
        let after = "impl DefId(0:9 ~ a[1636]::{impl#0}) was matchable against Binder { value: TraitPredicate(<[[u8]] as b>) }";
        let spelled = Spelled::of(b"trait b {} impl b for u8 {}");
        let spelled = |w: &str| spelled.contains(w);
        assert_eq!(
            message_words(before, &spelled),
            message_words(after, &spelled)
        );
        let other = after.replace("was matchable", "was never matchable");
        assert_ne!(
            message_words(before, &spelled),
            message_words(&other, &spelled)
        );
    }
}
