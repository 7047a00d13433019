//! The rustup toolchain whose ICEs the tests of ice mode reduce (its unit
//! tests and the end-to-end ones, which include this file by path): each
//! crash they need is rustc 1.95.0's, and a later release may fix it.

/// The pinned toolchain's name for `RUSTUP_TOOLCHAIN`.
pub(crate) const ICE_TOOLCHAIN: &str = "1.95.0";

/// Whether rustc [`ICE_TOOLCHAIN`] runs here, pinned by `RUSTUP_TOOLCHAIN`
/// whatever toolchain runs the tests (`cargo +nightly test`); if not,
/// says why `test` is skipped. The tests pin their commands with
/// [`pinned`].
pub(crate) fn ice_toolchain(test: &str) -> bool {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let found = *FOUND.get_or_init(|| {
        pinned(&mut std::process::Command::new("rustc"))
            .arg("-V")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("rustc 1.95.0 "))
    });
    if !found {
        eprintln!(
            "{test}: skipped: it needs the ICEs of rustc {ICE_TOOLCHAIN}, which is not installed \
             (`rustup toolchain install {ICE_TOOLCHAIN} --profile minimal --component rustfmt`)"
        );
    }
    found
}

/// `command` with rustc, rustdoc, rustfmt and cargo from [`ICE_TOOLCHAIN`].
pub(crate) fn pinned(command: &mut std::process::Command) -> &mut std::process::Command {
    command.env("RUSTUP_TOOLCHAIN", ICE_TOOLCHAIN)
}
