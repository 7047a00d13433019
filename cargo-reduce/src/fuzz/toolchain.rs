//! Which Rust toolchain builds a fuzz crate's targets, chosen as a
//! cargo-fuzz user gets it: the one named with `cargo +toolchain` (or in
//! `RUSTUP_TOOLCHAIN` by hand), else the one rustup picks in the fuzz
//! crate's folder (its or its workspace's `rust-toolchain.toml`, a
//! `rustup override`, else the default). A nightly one, for the builds
//! that need it (AddressSanitizer, `#![feature]`), is looked for here too.
//!
//! rustup 1.28 and later set `RUSTUP_TOOLCHAIN` for every program a proxy
//! starts, with `RUSTUP_TOOLCHAIN_SOURCE` saying why: `cli` for `+toolchain`,
//! `env` when the user set it, `toolchain-file`, `override` or `default`
//! when rustup found it from the folder `cargo reduce` ran in. Only the
//! first two are the user's choice; in the others the build's cargo would
//! inherit the toolchain of the folder the user stood in rather than the
//! fuzz crate's, so the variable is dropped and rustup looks again from
//! the fuzz crate's folder (the build's working directory).

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

/// The toolchain a build runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Toolchain {
    /// `RUSTUP_TOOLCHAIN` for cargo and rustc; `None`: the one rustup
    /// picks in the build's working directory (the fuzz crate's folder).
    pub rustup_toolchain: Option<String>,
}

/// The installed nightly that builds needing one fall back to.
const NIGHTLY: &str = "nightly";

/// What to run when a build needs a nightly toolchain and none is installed.
pub(crate) const INSTALL_NIGHTLY: &str = "rustup toolchain install nightly";

impl Toolchain {
    /// The user's toolchain: the one named with `+toolchain` or set in
    /// `RUSTUP_TOOLCHAIN`, else the fuzz crate's folder's.
    pub(crate) fn user() -> Toolchain {
        Toolchain {
            rustup_toolchain: chosen(
                std::env::var_os("RUSTUP_TOOLCHAIN").as_deref(),
                std::env::var_os("RUSTUP_TOOLCHAIN_SOURCE").as_deref(),
            ),
        }
    }

    /// A nightly toolchain, if one is installed: the user's (see
    /// [`Toolchain::user`], from the current folder) when it is one, else
    /// rustup's `nightly`.
    pub(crate) fn find() -> Option<Toolchain> {
        let user = Toolchain::user();
        if user.is_nightly(Path::new(".")) {
            return Some(user);
        }
        let nightly = Toolchain {
            rustup_toolchain: Some(NIGHTLY.to_string()),
        };
        nightly.is_nightly(Path::new(".")).then_some(nightly)
    }

    /// Sets the toolchain on `command` (a cargo or rustc command that runs
    /// in the fuzz crate's folder).
    pub(crate) fn apply(&self, command: &mut Command) {
        match &self.rustup_toolchain {
            Some(toolchain) => command.env("RUSTUP_TOOLCHAIN", toolchain),
            None => command
                .env_remove("RUSTUP_TOOLCHAIN")
                .env_remove("RUSTUP_TOOLCHAIN_SOURCE"),
        };
    }

    /// Whether `rustc`, run in `dir` with this toolchain, is a nightly.
    pub(crate) fn is_nightly(&self, dir: &Path) -> bool {
        let mut command = Command::new("rustc");
        command.current_dir(dir).arg("-V").stderr(Stdio::null());
        self.apply(&mut command);
        command.output().is_ok_and(|out| {
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("-nightly")
        })
    }

    /// The toolchain the user chose (with `+toolchain` or
    /// `RUSTUP_TOOLCHAIN`), when this one, found for a build that needs a
    /// nightly, is another: the user is told which one builds.
    pub(crate) fn replaces_users(&self) -> Option<String> {
        self.replaces(Toolchain::user())
    }

    /// `users`' toolchain, if they chose one and it is not this one.
    fn replaces(&self, users: Toolchain) -> Option<String> {
        users
            .rustup_toolchain
            .filter(|users| Some(users) != self.rustup_toolchain.as_ref())
    }

    /// Its name for messages.
    pub(crate) fn name(&self) -> &str {
        self.rustup_toolchain
            .as_deref()
            .unwrap_or("the fuzz crate's")
    }
}

/// The toolchain the user chose, from rustup's `RUSTUP_TOOLCHAIN` and
/// `RUSTUP_TOOLCHAIN_SOURCE`: a toolchain without a source (rustup before
/// 1.28 set none, so it was the user's) or whose source is `cli` or `env`.
fn chosen(toolchain: Option<&OsStr>, source: Option<&OsStr>) -> Option<String> {
    let toolchain = toolchain.filter(|t| !t.is_empty())?;
    let users = source.is_none_or(|s| s == "cli" || s == "env");
    users.then(|| toolchain.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_users_own_choice_is_kept() {
        let chose = |toolchain: &str, source: Option<&str>| {
            chosen(Some(OsStr::new(toolchain)), source.map(OsStr::new))
        };
        assert_eq!(chose("nightly", Some("cli")).as_deref(), Some("nightly"));
        assert_eq!(chose("1.95.0", Some("env")).as_deref(), Some("1.95.0"));
        assert_eq!(chose("nightly", None).as_deref(), Some("nightly"));
        // Found from the folder cargo-reduce runs in: the fuzz crate's
        // folder decides instead.
        for source in ["default", "toolchain-file", "override"] {
            assert_eq!(chose("stable", Some(source)), None, "{source}");
        }
        assert_eq!(chose("", Some("cli")), None);
        assert_eq!(chosen(None, Some(OsStr::new("cli"))), None);
    }

    /// A build that needs a nightly names the one it took when the user
    /// chose another, and only then.
    #[test]
    fn a_nightly_in_place_of_the_users_choice_is_told() {
        let toolchain = |name: Option<&str>| Toolchain {
            rustup_toolchain: name.map(String::from),
        };
        let nightly = toolchain(Some("nightly"));
        let stable = nightly.replaces(toolchain(Some("stable")));
        assert_eq!(stable.as_deref(), Some("stable"));
        assert_eq!(nightly.replaces(toolchain(Some("nightly"))), None);
        assert_eq!(nightly.replaces(toolchain(None)), None);
    }

    /// rustup honours a `rust-toolchain.toml` from the working directory
    /// once the inherited variable is dropped (skipped without rustup).
    #[test]
    fn the_folders_toolchain_file_decides_when_none_was_chosen() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("rust-toolchain.toml"),
            "[toolchain]\nchannel = \"nightly\"\n",
        )
        .unwrap();
        let toolchain = Toolchain {
            rustup_toolchain: None,
        };
        let mut command = Command::new("rustup");
        command
            .current_dir(tmp.path())
            .args(["show", "active-toolchain"]);
        command.env("RUSTUP_TOOLCHAIN", "stable");
        toolchain.apply(&mut command);
        let Ok(out) = command.output() else {
            eprintln!("skipped: no rustup");
            return;
        };
        let active = String::from_utf8_lossy(&out.stdout);
        assert!(active.starts_with("nightly"), "{active}");
    }
}
