//! AddressSanitizer builds of the stand-in (`--sanitizer`): `cargo fuzz`'s
//! default build is ASan, so a heap-buffer-overflow or a use-after-free in
//! `unsafe` code fails there and reads silently in the uninstrumented
//! stand-in. Such an artifact is reproduced on a second build of the
//! stand-in with `-Zsanitizer=address`, as `cargo fuzz build` makes it
//! (nightly, `--target <host>` so build scripts and proc macros are not
//! instrumented), in a target directory of its own; the tests still run
//! in-process, and the fork server takes each death.

use std::ffi::OsString;

/// Which build reproduces an artifact (`--sanitizer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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

/// The flags an ASan build adds to the engine's: the sanitizer, and the
/// `cfg` under which the stand-in hands ASan's report to the parent.
pub(crate) const ASAN_RUSTFLAGS: &str = "-Zsanitizer=address --cfg cargo_reduce_asan";

/// `ASAN_OPTIONS` for the workers, before the user's (which win):
/// * `abort_on_error=1`: the test process dies of SIGABRT after the report,
///   which the stand-in has already copied into its note;
/// * `handle_segv=1`, `handle_sigbus=1` (ASan's defaults, as under `cargo
///   fuzz`): a fault that is not a stack overflow goes on from the
///   stand-in's handler (which keeps the tripwire) to ASan's, which reports
///   it (`SEGV on unknown address`, with the access and the stack);
/// * `allocator_may_return_null=1`: an allocation ASan's allocator refuses
///   fails as out-of-memory, as in the uninstrumented stand-in (libFuzzer's
///   `-malloc_limit_mb` is the stand-in's own check, before ASan's);
/// * `detect_leaks=0`: test processes end with `_exit`, and leaks are not
///   reproduced in-process;
/// * `symbolize=0`: frames come as `(binary+offset)`, named by cargo-reduce;
/// * `malloc_context_size=0`: no stack is taken at each allocation (the
///   signature uses the access's stack only);
/// * `detect_odr_violation=0`, as `cargo fuzz` sets it.
pub(crate) const ASAN_OPTIONS: &str = "abort_on_error=1:handle_segv=1:handle_sigbus=1:allocator_may_return_null=1:detect_leaks=0:symbolize=0:malloc_context_size=0:detect_odr_violation=0";

/// The workers' `ASAN_OPTIONS`: ours, then the user's.
pub(crate) fn asan_options() -> OsString {
    with_users(std::env::var_os("ASAN_OPTIONS"))
}

fn with_users(user: Option<OsString>) -> OsString {
    let mut options = OsString::from(ASAN_OPTIONS);
    if let Some(user) = user.filter(|u| !u.is_empty()) {
        options.push(":");
        options.push(user);
    }
    options
}

/// The toolchain an ASan build runs with: a nightly one
/// ([`Toolchain::find`](crate::fuzz::toolchain::Toolchain::find)).
pub(crate) use crate::fuzz::toolchain::Toolchain as AsanToolchain;

/// What a "does not reproduce" message adds for an artifact that may
/// fail only under a sanitizer, given the `--sanitizer` choice and whether
/// the ASan build was tried.
pub(crate) fn hint(choice: Sanitizer, nightly: bool) -> &'static str {
    match (choice, nightly) {
        (Sanitizer::None, _) => "; it may need a sanitizer (`cargo fuzz` builds with AddressSanitizer, afl.rs with `AFL_USE_ASAN`): try --sanitizer auto",
        (_, false) => "; it may need a sanitizer (`cargo fuzz` builds with AddressSanitizer), whose build needs a nightly toolchain: `rustup toolchain install nightly`",
        (_, true) => " (nor on the AddressSanitizer build)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_asan_options_come_last() {
        let options = with_users(Some("detect_leaks=1".into()));
        let options = options.into_string().unwrap();
        assert_eq!(with_users(Some("".into())), ASAN_OPTIONS);
        assert!(options.starts_with("abort_on_error=1:"));
        assert!(options.ends_with(":detect_leaks=0:symbolize=0:malloc_context_size=0:detect_odr_violation=0:detect_leaks=1"));
    }

    #[test]
    fn the_hint_names_what_to_do() {
        assert!(hint(Sanitizer::None, true).contains("may need a sanitizer"));
        assert!(hint(Sanitizer::Auto, false).contains("rustup toolchain install nightly"));
        assert!(hint(Sanitizer::Address, false).contains("rustup toolchain install nightly"));
    }
}
