//! AddressSanitizer builds of the stand-in (`--sanitizer`): `cargo fuzz`'s
//! default build is ASan, so a heap-buffer-overflow or a use-after-free in
//! `unsafe` code fails there and reads silently in the uninstrumented
//! stand-in. Such an artifact is reproduced on a second build of the
//! stand-in with `-Zsanitizer=address`, as `cargo fuzz build` makes it
//! (nightly, `--target <host>` so build scripts and proc macros are not
//! instrumented), in a target directory of its own; the tests still run
//! in-process, and the fork server takes each death.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use xxhash_rust::xxh3::xxh3_64;

/// Which build reproduces an artifact (`--sanitizer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(
    feature = "fuzz",
    derive(serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub(crate) enum Sanitizer {
    /// The uninstrumented build, and the AddressSanitizer one for an
    /// artifact that does not fail there (when nightly is installed).
    #[default]
    Auto,
    /// The AddressSanitizer build only.
    Address,
    /// The uninstrumented build only.
    None,
}

/// The flags an ASan build adds to the engine's: the sanitizer, the
/// `cfg` under which the stand-in hands ASan's report to the parent, and
/// one codegen unit, as `cargo fuzz build` forces in release, so that a
/// report's innermost user frame is the one cargo fuzz's report shows
/// (with several, an allocation in an outlined `Map::fold` kept none of
/// the user's inlined frames, and a leak was named by the `collect()`
/// calling it: bench/results/notes/leaks.md).
pub(crate) const ASAN_RUSTFLAGS: &str =
    "-Zsanitizer=address --cfg cargo_reduce_asan -Ccodegen-units=1";

/// `ASAN_OPTIONS` for the workers, before the user's (which win):
/// * `abort_on_error=1`: the test process dies of SIGABRT after the report,
///   which the stand-in has already copied into its note;
/// * `handle_segv=1`, `handle_sigbus=1` (ASan's defaults, as under `cargo
///   fuzz`): a fault that is not a stack overflow goes on from the
///   stand-in's handler (which keeps the tripwire) to ASan's, which reports
///   it (`SEGV on unknown address`, with the access and the stack);
/// * `allocator_may_return_null` left at ASan's default, as under `cargo
///   fuzz`: an allocation ASan's allocator refuses is its report
///   (`allocation-size-too-big`, `out-of-memory`); libFuzzer's
///   `-malloc_limit_mb` is the stand-in's own check, after ASan's allocator
///   gave the block, as libFuzzer's malloc hook runs;
/// * `detect_leaks=0`: test processes end with `_exit`; leaks are looked
///   for only where asked ([`LEAK_OPTIONS`]);
/// * `symbolize=0`: frames come as `(binary+offset)`, named by cargo-reduce;
/// * `malloc_context_size=0`: no stack is taken at each allocation (the
///   signature uses the access's stack only);
/// * `detect_odr_violation=0`, as `cargo fuzz` sets it.
pub(crate) const ASAN_OPTIONS: &str = "abort_on_error=1:handle_segv=1:handle_sigbus=1:detect_leaks=0:symbolize=0:malloc_context_size=0:detect_odr_violation=0";

/// What a pool that looks for leaks adds (`PoolOptions::detect_leaks`):
/// LeakSanitizer on, for the stand-in's check after each test, and a stack
/// for each allocation (ASan's default depth), which a leak's report gives
/// as its call path.
pub(crate) const LEAK_OPTIONS: &str = "detect_leaks=1:malloc_context_size=30";

/// The workers' `ASAN_OPTIONS`: ours (with [`LEAK_OPTIONS`] when
/// `detect_leaks`), then the user's.
pub(crate) fn asan_options(detect_leaks: bool) -> OsString {
    with_users(detect_leaks, std::env::var_os("ASAN_OPTIONS"))
}

fn with_users(detect_leaks: bool, user: Option<OsString>) -> OsString {
    let mut options = OsString::from(ASAN_OPTIONS);
    if detect_leaks {
        options.push(":");
        options.push(LEAK_OPTIONS);
    }
    if let Some(user) = user.filter(|u| !u.is_empty()) {
        options.push(":");
        options.push(user);
    }
    options
}

/// The toolchain an ASan build runs with: a nightly one
/// ([`Toolchain::find`](crate::fuzz::toolchain::Toolchain::find)).
pub(crate) use crate::fuzz::toolchain::Toolchain as AsanToolchain;

/// What the AddressSanitizer build told of an input the uninstrumented
/// build could not explain (it passed, or ran out of memory as a
/// `crash-`), remembered so that the next run need not ask again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AsanVerdict {
    /// It reported a bug of its own: the input belongs on that build.
    Bug,
    /// It told nothing more (a stale artifact's fixed bug passes there too).
    NoBug,
}

impl AsanVerdict {
    /// The record's content.
    fn as_bytes(self) -> &'static [u8] {
        match self {
            AsanVerdict::Bug => b"bug",
            AsanVerdict::NoBug => b"",
        }
    }
}

/// Where an input's [`AsanVerdict`]s are kept, beside the uninstrumented
/// binary (so they go with its build directory):
/// `<binary>.asan-verdicts/`, one file per input and build,
/// `<build>-<input>` (`build` the binary's size and modification time:
/// a rebuild may bring or fix a bug there), and a `bug-<input>` for every
/// input whose ASan build ever reported a bug, which a rebuild keeps: an
/// input reduced on that build is tried there again after a change of the
/// target, so that its duplicates are grouped with it, not reduced anew.
struct VerdictRecords {
    dir: PathBuf,
    build: String,
}

impl VerdictRecords {
    /// The records of `binary`'s inputs; `None` when it cannot be read.
    fn of(binary: &Path) -> Option<VerdictRecords> {
        let metadata = std::fs::metadata(binary).ok()?;
        let modified = metadata.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        let build = xxh3_64(format!("{}:{}", metadata.len(), modified.as_nanos()).as_bytes());
        let mut dir = binary.as_os_str().to_owned();
        dir.push(".asan-verdicts");
        Some(VerdictRecords {
            dir: PathBuf::from(dir),
            build: format!("{build:016x}"),
        })
    }

    /// The record of what this build told of `bytes`.
    fn this_build(&self, bytes: &[u8]) -> PathBuf {
        self.dir
            .join(format!("{}-{:016x}", self.build, xxh3_64(bytes)))
    }

    /// The record that some build reported a bug of `bytes`.
    fn ever_a_bug(&self, bytes: &[u8]) -> PathBuf {
        self.dir.join(format!("bug-{:016x}", xxh3_64(bytes)))
    }
}

/// What an earlier run's ASan build told of `bytes`, for targets whose
/// uninstrumented binary is `binary`, as it is now; without a record of
/// this build, [`AsanVerdict::Bug`] where an earlier build reported one.
pub(crate) fn asan_verdict_before(binary: &Path, bytes: &[u8]) -> Option<AsanVerdict> {
    let records = VerdictRecords::of(binary)?;
    let Ok(content) = std::fs::read(records.this_build(bytes)) else {
        return records
            .ever_a_bug(bytes)
            .is_file()
            .then_some(AsanVerdict::Bug);
    };
    [AsanVerdict::Bug, AsanVerdict::NoBug]
        .into_iter()
        .find(|v| v.as_bytes() == content)
}

/// Records what the ASan build of `binary`'s target told of `bytes`
/// ([`asan_verdict_before`]), dropping the records of earlier builds but
/// the `bug-` ones. Best effort: a record that cannot be written only costs
/// a retry.
pub(crate) fn remember_asan_verdict(binary: &Path, bytes: &[u8], verdict: AsanVerdict) {
    let Some(records) = VerdictRecords::of(binary) else {
        return;
    };
    for old in std::fs::read_dir(&records.dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = old.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&records.build) && !name.starts_with("bug-") {
            let _ = std::fs::remove_file(old.path());
        }
    }
    let write = |path: PathBuf| std::fs::write(path, verdict.as_bytes());
    let _ = std::fs::create_dir_all(&records.dir).and_then(|()| {
        write(records.this_build(bytes))?;
        match verdict {
            AsanVerdict::Bug => write(records.ever_a_bug(bytes)),
            AsanVerdict::NoBug => Ok(()),
        }
    });
}

/// What a "does not reproduce" message adds for an artifact that may
/// fail only under a sanitizer, given the `--sanitizer` choice and whether
/// the ASan build was tried.
pub(crate) fn hint(choice: Sanitizer, nightly: bool) -> &'static str {
    match (choice, nightly) {
        (Sanitizer::None, _) => "; it may need a sanitizer (`cargo fuzz` builds with AddressSanitizer, afl.rs with `AFL_USE_ASAN`): try --sanitizer auto",
        (_, false) => "; it may need a sanitizer (`cargo fuzz` builds with AddressSanitizer, afl.rs with `AFL_USE_ASAN`), whose build needs a nightly toolchain: `rustup toolchain install nightly`",
        (_, true) => " (nor on the AddressSanitizer build)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_asan_build_has_one_codegen_unit_as_cargo_fuzz_build() {
        let flags: Vec<&str> = ASAN_RUSTFLAGS.split(' ').collect();
        assert!(flags.contains(&"-Zsanitizer=address"));
        assert!(flags.contains(&"-Ccodegen-units=1"), "{flags:?}");
    }

    #[test]
    fn user_asan_options_come_last() {
        let options = with_users(false, Some("detect_leaks=1".into()));
        let options = options.into_string().unwrap();
        assert_eq!(with_users(false, Some("".into())), ASAN_OPTIONS);
        assert!(options.starts_with("abort_on_error=1:"));
        assert!(options.ends_with(":detect_leaks=0:symbolize=0:malloc_context_size=0:detect_odr_violation=0:detect_leaks=1"));
        let leaks = with_users(true, Some("malloc_context_size=5".into()));
        let leaks = leaks.into_string().unwrap();
        assert!(leaks.ends_with(
            ":detect_odr_violation=0:detect_leaks=1:malloc_context_size=30:malloc_context_size=5"
        ));
    }

    /// A record holds for the binary it was made with; a rebuild (a new
    /// modification time) drops it, but that an input ever had a bug there.
    #[test]
    fn a_verdict_holds_until_the_binary_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let binary = tmp.path().join("target");
        std::fs::write(&binary, b"one").unwrap();
        assert_eq!(asan_verdict_before(&binary, b"input"), None);
        remember_asan_verdict(&binary, b"input", AsanVerdict::NoBug);
        remember_asan_verdict(&binary, b"bug", AsanVerdict::Bug);
        assert_eq!(
            asan_verdict_before(&binary, b"input"),
            Some(AsanVerdict::NoBug)
        );
        assert_eq!(asan_verdict_before(&binary, b"bug"), Some(AsanVerdict::Bug));
        assert_eq!(asan_verdict_before(&binary, b"other input"), None);
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&binary)
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(asan_verdict_before(&binary, b"input"), None);
        assert_eq!(asan_verdict_before(&binary, b"bug"), Some(AsanVerdict::Bug));
        remember_asan_verdict(&binary, b"other input", AsanVerdict::NoBug);
        remember_asan_verdict(&binary, b"bug", AsanVerdict::NoBug);
        assert_eq!(
            asan_verdict_before(&binary, b"bug"),
            Some(AsanVerdict::NoBug),
            "this build's own verdict first"
        );
        let records = std::fs::read_dir(tmp.path().join("target.asan-verdicts")).unwrap();
        assert_eq!(
            records.count(),
            3,
            "the old build's records are gone, but its bug"
        );
    }

    #[test]
    fn the_hint_names_what_to_do() {
        assert!(hint(Sanitizer::None, true).contains("may need a sanitizer"));
        assert!(hint(Sanitizer::Auto, false).contains("rustup toolchain install nightly"));
        assert!(hint(Sanitizer::Address, false).contains("rustup toolchain install nightly"));
    }
}
