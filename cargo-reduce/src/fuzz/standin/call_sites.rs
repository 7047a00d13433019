//! Keeps each panic's call site in the debug information of a release
//! build. LLVM's SimplifyCFG sinks identical calls at the end of
//! several blocks into one: the `panic_fmt` calls of helpers inlined into
//! a target merge into a block with line 0 and no inline chain, and every
//! such panic's call path ends at the target's entry point, so that
//! several bugs share one signature. Turning the sinking off keeps the
//! calls, and so the frames, apart. Only the builds whose failures are
//! signed get it: the coverage builds keep `cargo fuzz build`'s code, so
//! that their edges are the real binary's.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::fuzz::toolchain::Toolchain;

/// The LLVM option, as rustc passes it on.
const NO_SINKING: &str = "-Cllvm-args=-simplifycfg-sink-common=false";

/// The flags that keep call sites apart, if the toolchain's LLVM has the
/// option (it is a hidden one: an LLVM without it fails every
/// compilation, so the build then goes without it).
pub(super) fn flags(dir: &Path, toolchain: &Toolchain) -> Vec<String> {
    if accepts(NO_SINKING, dir, toolchain) {
        vec![NO_SINKING.to_string()]
    } else {
        Vec::new()
    }
}

/// Whether rustc of `toolchain`, run in `dir`, accepts `flag`.
fn accepts(flag: &str, dir: &Path, toolchain: &Toolchain) -> bool {
    let mut probe = Command::new("rustc");
    probe
        .current_dir(dir)
        .args([flag, "--print", "target-cpus"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    toolchain.apply(&mut probe);
    probe.status().is_ok_and(|status| status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An option LLVM does not have is refused, so the build goes without
    /// it; a rustc flag that is always there is accepted.
    #[test]
    fn the_probe_tells_unknown_options() {
        let (here, user) = (Path::new("."), Toolchain::user());
        assert!(!accepts("-Cllvm-args=-no-such-llvm-option", here, &user));
        assert!(accepts("-Copt-level=3", here, &user));
    }
}
