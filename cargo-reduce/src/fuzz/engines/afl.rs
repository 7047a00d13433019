//! What is particular to AFL++ through afl.rs: the stand-in for the `afl`
//! crate and how `cargo afl build` builds. Discovery of afl.rs crates and
//! AFL++ output is in [`crate::fuzz::project`]; everything else about building
//! and running targets is shared with libFuzzer.

use crate::fuzz::build::standin::StandIn;

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

#[cfg(test)]
mod tests {
    use super::*;

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
