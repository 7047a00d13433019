//! Fuzz targets that need a nightly toolchain (`#![feature]`), on
//! `cargo-reduce/tests-fixtures/nightly-feature`: the `featured` target is
//! built with nightly, in a build of its own, and the `plain` one keeps
//! the stable build; a `rust-toolchain.toml` of the fuzz crate is honoured;
//! without a nightly, the target's error says how to install one. The
//! tests that need nightly are skipped (the reason printed) without one.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{command, fixture_copy, minimized_path, nightly, target_dir};
use crate::util::Run;

/// The user's toolchain a stable one, whatever the tests run under.
fn stable() -> (&'static str, &'static Path) {
    ("RUSTUP_TOOLCHAIN", Path::new("stable"))
}

/// The fixture's two artifacts, `featured`'s then `plain`'s.
fn artifacts(fuzz: &Path) -> [PathBuf; 2] {
    ["featured/crash-0002", "plain/crash-0001"].map(|a| fuzz.join("artifacts").join(a))
}

/// `cargo reduce --manifest-path FUZZ --message-format json`, from a
/// folder outside the fuzz crate (rustup would find no toolchain file
/// there), with `env` set.
fn reduce(fuzz: &Path, env: &[(&str, &Path)]) -> Run {
    reduce_with(&[], fuzz, env)
}

/// [`reduce`] with `first` before the other arguments.
fn reduce_with(first: &[&str], fuzz: &Path, env: &[(&str, &Path)]) -> Run {
    let manifest = fuzz.join("Cargo.toml");
    let mut args = vec!["reduce"];
    args.extend(first);
    args.extend([
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    let mut command = command(&args, &target_dir());
    command.current_dir(std::env::temp_dir());
    // Not the toolchain the tests run under (`cargo +nightly test` sets it,
    // and it would win over a toolchain file): each test says its own.
    command.env_remove("RUSTUP_TOOLCHAIN");
    for (name, value) in env {
        command.env(name, value);
    }
    Run(command.output().expect("spawn cargo-reduce"))
}

/// Both artifacts reduced, and no target built again with nightly: the
/// toolchain chosen built them all.
fn every_target_on_one_toolchain(run: &Run, fuzz: &Path) {
    run.expect_code(0);
    for artifact in artifacts(fuzz) {
        assert_eq!(fs::read(minimized_path(&artifact)).unwrap(), b"BUG");
    }
    let warnings = run.warnings();
    assert!(
        !warnings.iter().any(|w| w.contains("toolchain `nightly`")),
        "{warnings:?}"
    );
}

#[test]
fn a_feature_target_is_built_with_nightly_and_reduced() {
    if !nightly("a_feature_target_is_built_with_nightly_and_reduced") {
        return;
    }
    let (_dir, fuzz) = fixture_copy("nightly-feature");
    let run = reduce(&fuzz, &[stable()]);
    run.expect_code(0);
    for artifact in artifacts(&fuzz) {
        assert_eq!(fs::read(minimized_path(&artifact)).unwrap(), b"BUG");
    }
    let warnings = run.warnings();
    let told: Vec<&String> = warnings
        .iter()
        .filter(|w| w.contains("toolchain `nightly`"))
        .collect();
    assert_eq!(told.len(), 1, "{warnings:?}");
    assert!(told[0].starts_with("built `featured` with "), "{told:?}");
}

/// A `rust-toolchain.toml` beside the fuzz crate picks its toolchain, as
/// for `cargo fuzz build` run there, even from another folder: the whole
/// build is a nightly one, and nothing falls back.
#[test]
fn the_fuzz_crates_toolchain_file_is_honoured() {
    if !nightly("the_fuzz_crates_toolchain_file_is_honoured") {
        return;
    }
    let (_dir, fuzz) = fixture_copy("nightly-feature");
    fs::write(
        fuzz.join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"nightly\"\n",
    )
    .unwrap();
    let run = reduce(&fuzz, &[]);
    every_target_on_one_toolchain(&run, &fuzz);
}

/// `cargo reduce +nightly`, as cargo takes `cargo +nightly reduce`: the
/// whole build is a nightly one, and nothing falls back.
#[test]
fn a_toolchain_named_with_a_plus_builds_every_target() {
    if !nightly("a_toolchain_named_with_a_plus_builds_every_target") {
        return;
    }
    let (_dir, fuzz) = fixture_copy("nightly-feature");
    let run = reduce_with(&["+nightly"], &fuzz, &[]);
    every_target_on_one_toolchain(&run, &fuzz);
}

/// A rustup home with the installed toolchains but the nightly ones (as
/// links), so that no nightly is installed there; `None` without rustup.
fn rustup_home_without_nightly(dir: &Path) -> Option<PathBuf> {
    let home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rustup")))?;
    let toolchains = fs::read_dir(home.join("toolchains")).ok()?;
    let copy = dir.join("rustup-home");
    fs::create_dir_all(copy.join("toolchains")).unwrap();
    fs::copy(home.join("settings.toml"), copy.join("settings.toml")).ok()?;
    for toolchain in toolchains.flatten() {
        let name = toolchain.file_name();
        if !name.to_string_lossy().starts_with("nightly") {
            std::os::unix::fs::symlink(toolchain.path(), copy.join("toolchains").join(name))
                .unwrap();
        }
    }
    Some(copy)
}

#[test]
fn without_nightly_the_error_names_the_install_command() {
    let (dir, fuzz) = fixture_copy("nightly-feature");
    let Some(home) = rustup_home_without_nightly(dir.path()) else {
        eprintln!("without_nightly_the_error_names_the_install_command: skipped: no rustup");
        return;
    };
    let run = reduce(&fuzz, &[("RUSTUP_HOME", &home), stable()]);
    run.expect_code(8);
    let [featured, plain] = artifacts(&fuzz);
    assert_eq!(fs::read(minimized_path(&plain)).unwrap(), b"BUG");
    assert!(!minimized_path(&featured).exists());
    let stdout = run.stdout();
    assert!(
        stdout.contains("needs a nightly toolchain")
            && stdout.contains("`rustup toolchain install nightly`"),
        "{stdout}"
    );
}

/// `--sanitizer address` without a nightly toolchain is a missing tool
/// (exit 15, as `run` says it), named with its install command, before
/// any build.
#[test]
fn sanitizer_address_without_nightly_is_a_missing_tool() {
    let (dir, fuzz) = fixture_copy("nightly-feature");
    let Some(home) = rustup_home_without_nightly(dir.path()) else {
        eprintln!("sanitizer_address_without_nightly_is_a_missing_tool: skipped: no rustup");
        return;
    };
    let run = reduce_with(
        &["--sanitizer", "address"],
        &fuzz,
        &[("RUSTUP_HOME", &home), stable()],
    );
    run.expect_code(15);
    assert!(
        run.error_line()
            .contains("rustup toolchain install nightly"),
        "{}",
        run.stderr()
    );
}
