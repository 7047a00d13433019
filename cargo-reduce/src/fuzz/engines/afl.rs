//! What is particular to AFL++ through afl.rs: the stand-in for the `afl`
//! crate and how `cargo afl build` builds. Discovery of afl.rs crates and
//! AFL++ output is in [`crate::fuzz::project`]; everything else about building
//! and running targets is shared with libFuzzer.

use crate::fuzz::pool::Exits;
use crate::fuzz::standin::crate_files::StandIn;

/// The afl.rs stand-in: `cargo-reduce/harness/afl/` (its lib and IJON
/// modules) with the worker, capture and protocol modules of the
/// libfuzzer-sys stand-in.
pub(crate) const AFL: StandIn = StandIn {
    package: "afl",
    files: &[
        (
            "Cargo.toml",
            include_str!("../../../harness/afl/Cargo.toml.in"),
        ),
        ("build.rs", include_str!("../../../harness/build.rs")),
        ("src/lib.rs", include_str!("../../../harness/afl/lib.rs")),
        ("src/ijon.rs", include_str!("../../../harness/afl/ijon.rs")),
    ],
    versions: "0.2 to 0.18",
    suggest: "0.18",
    supports: supported_version,
    rustflags: "--cfg fuzzing -Cdebug-assertions -Coverflow-checks",
    release: false,
};

/// The afl.rs versions the stand-in implements: 0.2 and 0.3 had only
/// `read_stdio_bytes` and `read_stdio_string`, 0.4 added `fuzz` and
/// `fuzz!`; 0.1.x was a compiler plugin.
fn supported_version(version: &str) -> bool {
    let mut parts = version.split('.');
    let (Some("0"), Some(minor)) = (parts.next(), parts.next()) else {
        return false;
    };
    minor.parse::<u32>().is_ok_and(|m| (2..=18).contains(&m))
}

/// The environment variable with which AFL++ counts an exit with its
/// status as a crash.
const CRASH_EXITCODE: &str = "AFL_CRASH_EXITCODE";

/// Which exits of an afl.rs target fail a test: as afl-fuzz counts them
/// under this environment, only one with `AFL_CRASH_EXITCODE`'s status.
/// Err: the one-line error for a value afl-fuzz refuses.
pub(crate) fn exits() -> Result<Exits, String> {
    match std::env::var(CRASH_EXITCODE) {
        Ok(value) => crash_exit_code(&value).map(|code| Exits::FailWith(Some(code))),
        Err(_) => Ok(Exits::FailWith(None)),
    }
}

/// `AFL_CRASH_EXITCODE`'s status as afl-fuzz reads it: a decimal number
/// from -127 to 128, taken modulo 256 (-1 is 255).
fn crash_exit_code(value: &str) -> Result<u8, String> {
    match value.trim().parse::<i16>() {
        Ok(code @ -127..=128) => Ok(code as u8),
        _ => Err(format!(
            "{CRASH_EXITCODE}={value:?} is not an exit status: set it to a number from -127 to 128, as afl-fuzz requires, or unset it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn afl_crash_exitcode_is_read_as_afl_fuzz_reads_it() {
        assert_eq!(crash_exit_code("3"), Ok(3));
        assert_eq!(crash_exit_code("-1"), Ok(255));
        assert_eq!(crash_exit_code("128"), Ok(128));
        for refused in ["129", "-128", "x", ""] {
            let error = crash_exit_code(refused).unwrap_err();
            assert!(error.starts_with("AFL_CRASH_EXITCODE="), "{error}");
        }
    }

    #[test]
    fn afl_0_2_to_0_18_is_supported() {
        assert!(supported_version("0.8.0"));
        assert!(supported_version("0.7.0"));
        assert!(supported_version("0.4.3"));
        assert!(supported_version("0.2.0"));
        assert!(!supported_version("0.1.5"));
        assert!(supported_version("0.15.24"));
        assert!(supported_version("0.18.1"));
        assert!(!supported_version("1.0.0"));
    }
}
