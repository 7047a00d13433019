//! Finding an ICE's duplicates before filing it: searches of rust-lang/rust's
//! issues labelled `I-ICE` for the compiler's panic location and for the
//! words of its message (the forms reports quote them in), and with
//! `--rust-src DIR` the files of a rust-lang/rust checkout's
//! `tests/crashes/` that crash this compiler the same way, found by
//! compiling each with the MCVE's compiler (in parallel, with the run's
//! timeout and memory limit).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::engine::{Cancel, Limits};
use crate::error::{Error, Exit};
use crate::job::ice::rustc::args::RustcArgs;
use crate::job::ice::rustc::run::Rustc;
use crate::job::ice::rustc::signature::{Match, Signature, Spelled};
use crate::job::threads::map_in_order;

/// The issues page searched.
const ISSUES: &str = "https://github.com/rust-lang/rust/issues";

/// A search of the tracker: what it looks for, and its address.
pub(crate) struct Search {
    pub(crate) what: String,
    pub(crate) url: String,
}

/// A file of `tests/crashes/` with the same ICE.
pub(crate) struct Duplicate {
    /// The file, relative to the checkout (`tests/crashes/N.rs`).
    pub(crate) path: PathBuf,
    /// Its `//@ known-bug: #N` issue, if it names one.
    pub(crate) known_bug: Option<String>,
}

/// The searches for `signature`: its location without the column (the
/// compiler's file and line, as panics and issue titles quote it), and the
/// longest run of the message's words outside quoted names.
pub(crate) fn searches(signature: &Signature) -> Vec<Search> {
    let place = without_column(&signature.location);
    let mut out = vec![search(&place, "the panic's place")];
    if let Some(words) = constant_words(&signature.message) {
        out.push(search(&words, "the message"));
    }
    out
}

fn search(phrase: &str, what: &str) -> Search {
    let query = format!("is:issue label:I-ICE \"{phrase}\"");
    let encoded: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
    Search {
        what: format!("{what}: `{phrase}`"),
        url: format!("{ISSUES}?q={encoded}"),
    }
}

/// `compiler/x/src/y.rs:491:9` → `compiler/x/src/y.rs:491`.
fn without_column(location: &str) -> String {
    let mut parts: Vec<&str> = location.rsplitn(3, ':').collect();
    if parts.len() == 3 && parts[0].chars().all(|c| c.is_ascii_digit()) {
        parts.remove(0);
    }
    parts.into_iter().rev().collect::<Vec<_>>().join(":")
}

/// The longest stretch of `message`'s plain words: between its
/// backquoted parts and the paths and types it prints unquoted (names of
/// the user's code, which the MCVE renamed), if it has three words or
/// more.
fn constant_words(message: &str) -> Option<String> {
    message
        .split('`')
        .step_by(2)
        .flat_map(plain_runs)
        .map(|part| part.trim_matches(|c: char| c.is_whitespace() || c == ','))
        .filter(|part| part.split_whitespace().count() >= 3)
        .max_by_key(|part| part.len())
        .map(str::to_string)
}

/// The runs of `text` between the brackets, colons and quotes of the
/// paths and types a message prints (an apostrophe inside a word, as in
/// `isn't`, is none), each without the name that a `<` or `::` follows
/// (`selecting a<g/#0>`: `a` is the user's type).
fn plain_runs(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let letter = |k: usize| chars.get(k).is_some_and(|&(_, c)| c.is_alphanumeric());
    let mut runs = vec![];
    let mut start = 0;
    for (k, &(i, c)) in chars.iter().enumerate() {
        let in_word = c == '\'' && k > 0 && letter(k - 1) && letter(k + 1);
        if !"<>()[]{}:;'\"#".contains(c) || in_word {
            continue;
        }
        let run = &text[start..i];
        let path = c == '<' || text[i..].starts_with("::");
        runs.push(match path {
            true => run.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_'),
            false => run,
        });
        start = i + c.len_utf8();
    }
    runs.push(&text[start..]);
    runs
}

/// How the crash tests are compiled, and what the MCVE names.
pub(crate) struct Compiler<'a> {
    /// The MCVE's command line: its program and environment compile them.
    pub(crate) like: &'a RustcArgs,
    /// The MCVE's words and its crate's name: names in an ICE's message
    /// that either source spells are set aside, as for the reduction.
    pub(crate) spelled: &'a Spelled,
    pub(crate) timeout: Duration,
    pub(crate) memory: Option<u64>,
    pub(crate) jobs: usize,
    pub(crate) limits: &'a Limits,
}

/// The files of `rust_src`'s `tests/crashes/` whose ICE matches
/// `signature` at `level`, in path order.
pub(crate) fn in_crash_tests(
    rust_src: &Path,
    signature: &Signature,
    level: Match,
    compiler: &Compiler<'_>,
) -> Result<Vec<Duplicate>, Error> {
    let dir = rust_src.join("tests").join("crashes");
    let files = crash_tests(&dir)?;
    let same = map_in_order(&files, compiler.jobs, |file| {
        same_ice(file, signature, level, compiler)
    });
    let found = files.iter().zip(same).filter(|(_, same)| *same);
    Ok(found.map(|(file, _)| duplicate(file, rust_src)).collect())
}

/// The `.rs` files directly in `dir` (a test with auxiliary crates is a
/// folder of its own, left out), sorted.
fn crash_tests(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let listing = std::fs::read_dir(dir).map_err(|e| {
        Error::caused_with_hint(
            Exit::Usage,
            format!("cannot read `{}`", dir.display()),
            e,
            "--rust-src takes a rust-lang/rust checkout (its tests/crashes/)",
        )
    })?;
    let mut files: Vec<PathBuf> = listing
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    Ok(files)
}

/// Whether compiling `file` as its header says crashes `compiler` with
/// `signature`'s ICE (names that the MCVE or the crash test spells set
/// aside, as the reduction sets them aside).
fn same_ice(file: &Path, signature: &Signature, level: Match, compiler: &Compiler<'_>) -> bool {
    let Ok(source) = std::fs::read(file) else {
        return false;
    };
    let header = Header::of(&String::from_utf8_lossy(&source));
    let rustc = Rustc::new(
        header.invocation(compiler.like),
        format!("{CRATE}.rs"),
        compiler.timeout,
        compiler.memory,
        false,
    );
    let spelled = compiler.spelled.with(&source).with(CRATE.as_bytes());
    let run = rustc.run(&source, &Cancel::by_limits(compiler.limits));
    run.ok()
        .and_then(|r| r.signature())
        .is_some_and(|found| found.matches(signature, level, &|w| spelled.contains(w)))
}

/// The crate name a crash test is compiled under (its file's).
const CRATE: &str = "crash";

fn duplicate(file: &Path, rust_src: &Path) -> Duplicate {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    Duplicate {
        path: file.strip_prefix(rust_src).unwrap_or(file).to_path_buf(),
        known_bug: directive(&text, "known-bug").map(str::to_string),
    }
}

/// What compiletest reads of a crash test's header.
struct Header {
    edition: String,
    flags: Vec<String>,
}

impl Header {
    /// `//@ edition:` (2015 when absent, as compiletest has it) and
    /// `//@ compile-flags:` of `text`.
    fn of(text: &str) -> Header {
        let edition = directive(text, "edition").unwrap_or("2015").to_string();
        let flags = directive(text, "compile-flags")
            .map(|f| f.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        Header { edition, flags }
    }

    /// The command line that compiles the test: `like`'s program and
    /// environment, the header's flags, and its edition unless the flags
    /// give one (rustc refuses two).
    fn invocation(self, like: &RustcArgs) -> RustcArgs {
        let has_edition = self.flags.iter().any(|f| f.starts_with("--edition"));
        let mut args = match has_edition {
            true => Vec::new(),
            false => vec!["--edition".to_string(), self.edition],
        };
        args.extend(self.flags);
        args.push(format!("{CRATE}.rs"));
        RustcArgs {
            source: args.len() - 1,
            args,
            ..like.clone()
        }
    }
}

/// The value of `//@ NAME: VALUE` (or `//@ NAME:VALUE`) in `text`.
fn directive<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    text.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix("//@")?.trim_start();
        let value = rest.strip_prefix(name)?.trim_start().strip_prefix(':')?;
        Some(value.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signature(location: &str, message: &str) -> Signature {
        let text = format!(
            "thread 'rustc' (1) panicked at /rustc-dev/abc/{location}:\n{message}\nstack backtrace:\n"
        );
        Signature::parse(&text).expect("an ICE")
    }

    #[test]
    fn searches_name_the_place_without_its_column_and_the_messages_constant_words() {
        let ice = signature(
            "compiler/rustc_middle/src/ty/predicate.rs:491:9",
            "`<&'any mut () as From<Infallible>>` has escaping bound vars, so it cannot be wrapped in a dummy binder.",
        );
        let found = searches(&ice);
        assert_eq!(
            found[0].what,
            "the panic's place: `compiler/rustc_middle/src/ty/predicate.rs:491`"
        );
        assert_eq!(
            found[0].url,
            "https://github.com/rust-lang/rust/issues?q=is%3Aissue+label%3AI-ICE+%22compiler%2Frustc_middle%2Fsrc%2Fty%2Fpredicate.rs%3A491%22"
        );
        assert_eq!(
            found[1].what,
            "the message: `has escaping bound vars, so it cannot be wrapped in a dummy binder.`"
        );
        let short = signature("compiler/rustc_x/src/y.rs:1:2", "`T` unexpected");
        assert_eq!(searches(&short).len(), 1, "no phrase of three words");
        let unquoted = signature(
            "compiler/rustc_middle/src/ty/instance.rs:570:21",
            "failed to resolve instance for <fn(u8, ()) as a>::g",
        );
        assert_eq!(
            searches(&unquoted)[1].what,
            "the message: `failed to resolve instance for`"
        );
    }

    /// Found by a first-time user: a type the MCVE renamed ended a phrase,
    /// and a contraction cut one.
    #[test]
    fn a_phrase_leaves_out_the_user_s_names_and_keeps_contractions() {
        let words = |message: &str| constant_words(message).unwrap();
        assert_eq!(
            words("Unexpected result when selecting a<g/#0> Obligation(predicate=Binder { value: x }, depth=2)"),
            "Unexpected result when selecting"
        );
        assert_eq!(
            words("intrinsic rustc_peek must be overridden by codegen backend, but isn't"),
            "intrinsic rustc_peek must be overridden by codegen backend, but isn't"
        );
        assert_eq!(
            words("no entry found for key in map c::d::e of the crate"),
            "no entry found for key in map"
        );
    }

    #[test]
    fn a_headers_edition_and_flags_are_read_as_compiletest_reads_them() {
        let header = Header::of(
            "//@ known-bug: #140099\n//@ compile-flags: -Zvalidate-mir --crate-type lib\n//@edition:2021\nfn main() {}\n",
        );
        assert_eq!(header.edition, "2021");
        assert_eq!(header.flags, ["-Zvalidate-mir", "--crate-type", "lib"]);
        assert_eq!(Header::of("fn main() {}").edition, "2015");
        let like = RustcArgs::parse("rustc x.rs", Path::new("/")).unwrap();
        let given = Header::of("//@ compile-flags: --edition=2024 -Copt-level=3\n");
        assert_eq!(
            given.invocation(&like).args,
            ["--edition=2024", "-Copt-level=3", "crash.rs"],
            "no second --edition"
        );
        assert_eq!(
            directive("//@ known-bug: #140099\n", "known-bug"),
            Some("#140099")
        );
    }
}
