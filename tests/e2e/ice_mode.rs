//! `cargo reduce ice` on real internal compiler errors of rustc 1.95.0,
//! which every command here runs ([`pinned_toolchain::ICE_TOOLCHAIN`], pinned; the tests
//! say they are skipped where it is not installed): the multi-file fixture crate
//! `cargo-reduce/tests-fixtures/ice-crate` (a delayed bug in borrowck,
//! rust-lang/rust#130797) reduced in place, whose tree must stay
//! byte-identical, and one file that panics the type checker
//! (rust-lang/rust#140099) in `FILE.rs` mode; a workspace whose ICE
//! needs its dependency as a crate of its own (rust-lang/rust#153375); a
//! crate whose documentation crashes rustdoc (rust-lang/rust#148095); a
//! crate whose ICE message names an async block by its place in a
//! module's file (rust-lang/rust#119095).

use std::path::Path;
use std::process::Command;

use crate::fuzz_fixture::{repo, snapshot};
use crate::util::{message, Sandbox};

#[path = "../../cargo-reduce/src/job/ice/pinned_toolchain.rs"]
mod pinned_toolchain;
pub(crate) use pinned_toolchain::{ice_toolchain, pinned};

/// rustc's (or rustdoc's) output on `file` compiled by `command` (the
/// report's, shell words without quotes) in a directory of its own.
pub(crate) fn compile(command: &str, file: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(file, dir.path().join(file.file_name().unwrap())).unwrap();
    let words: Vec<&str> = command.split(' ').collect();
    assert!(["rustc", "rustdoc"].contains(&words[0]), "{command}");
    let out = pinned(&mut Command::new(words[0]))
        .args(&words[1..])
        .args(["--out-dir", "out"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `cargo reduce ice` on the project of `manifest` into `mcve`, with JSON
/// messages and `extra` options; it must succeed.
pub(crate) fn reduce_ice(
    sandbox: &Sandbox,
    manifest: &Path,
    mcve: &Path,
    extra: &[&str],
) -> crate::util::Run {
    let mut args = vec![
        "ice",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "-o",
        mcve.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    args.extend(extra);
    let run = crate::util::Run(pinned(&mut sandbox.cmd(&args)).output().unwrap());
    run.expect_code(0);
    run
}

#[test]
fn the_fixture_crate_s_ice_becomes_a_small_mcve_and_a_report_and_its_tree_stays_as_it_was() {
    if !ice_toolchain(
        "the_fixture_crate_s_ice_becomes_a_small_mcve_and_a_report_and_its_tree_stays_as_it_was",
    ) {
        return;
    }
    let crate_dir = repo().join("cargo-reduce/tests-fixtures/ice-crate");
    let before = snapshot(&crate_dir);
    let sandbox = Sandbox::new();
    let manifest = crate_dir.join("Cargo.toml");
    let mcve = sandbox.join("scene.ice.rs");
    // A budget of tests keeps the run short on a loaded machine; the
    // result is already far smaller than the crate.
    let run = reduce_ice(&sandbox, &manifest, &mcve, &["--max-tests", "200"]);
    assert_eq!(snapshot(&crate_dir), before, "the fixture's tree changed");
    let messages = run.messages();
    let found = message(&messages, "ice-found");
    assert_eq!(found["crate"], "ice_crate");
    assert_eq!(
        found["message"],
        "error performing operation: fully_perform"
    );
    let location = found["location"].as_str().unwrap();
    assert!(
        location.starts_with("compiler/rustc_trait_selection/src/traits/query/type_op/custom.rs:"),
        "{location}"
    );
    let finished = message(&messages, "reduction-finished");
    let (original, reduced) = (
        finished["original_bytes"].as_u64().unwrap(),
        finished["reduced_bytes"].as_u64().unwrap(),
    );
    assert!(reduced * 5 < original, "{original} → {reduced} bytes");
    assert_eq!(crate::util::check_progress(&messages), 1);
    let reported = message(&messages, "ice-reported");
    assert_eq!(reported["mcve"], mcve.to_str().unwrap());
    let command = reported["command"].as_str().unwrap();
    assert_eq!(
        command,
        "rustc --crate-name ice_crate --edition=2021 scene.ice.rs --crate-type lib -C debuginfo=2"
    );
    // The MCVE crashes rustc the same way, with the report's command.
    let stderr = compile(command, &mcve);
    assert!(
        stderr
            .contains("error: internal compiler error: error performing operation: fully_perform"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: delayed at ") && stderr.contains(location),
        "{stderr}"
    );
    let report = std::fs::read_to_string(sandbox.join("scene.ice.md")).unwrap();
    let code = std::fs::read_to_string(&mcve).unwrap();
    // The crate's macro that writes the crashing impl is expanded.
    assert!(
        !code.contains("macro_rules") && code.contains("impl"),
        "{code}"
    );
    assert!(
        report.contains(&format!("```rust\n{}\n```", code.trim_end())),
        "{report}"
    );
    assert!(
        report.contains(command) && report.contains("commit-hash: "),
        "{report}"
    );
    assert!(
        report.contains("error: internal compiler error: error performing operation"),
        "{report}"
    );
    // Nothing but the two outputs was written where the run was.
    let mut names: Vec<_> = std::fs::read_dir(sandbox.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["scene.ice.md", "scene.ice.rs"]);
}

/// The fixture's message quotes the async block's span in
/// `src/pool/checkout.rs`; as one file the crate puts it in `ice_span.rs`
/// at other lines: the same ICE at the default `--match`, reduced, and
/// the MCVE crashes rustc the same way under the report's command.
#[test]
fn an_ice_whose_message_quotes_a_module_s_span_is_the_same_ice_in_one_file_and_reduced() {
    if !ice_toolchain(
        "an_ice_whose_message_quotes_a_module_s_span_is_the_same_ice_in_one_file_and_reduced",
    ) {
        return;
    }
    let crate_dir = repo().join("cargo-reduce/tests-fixtures/ice-span");
    let before = snapshot(&crate_dir);
    let sandbox = Sandbox::new();
    let mcve = sandbox.join("ice_span.ice.rs");
    let manifest = crate_dir.join("Cargo.toml");
    let run = reduce_ice(&sandbox, &manifest, &mcve, &["--max-tests", "300"]);
    assert_eq!(snapshot(&crate_dir), before, "the fixture's tree changed");
    let messages = run.messages();
    let found = message(&messages, "ice-found");
    let said = found["message"].as_str().unwrap();
    assert!(
        said.starts_with("failed to resolve instance for <{async block@src/pool/checkout.rs:"),
        "{said}"
    );
    let finished = message(&messages, "reduction-finished");
    let (original, reduced) = (
        finished["original_bytes"].as_u64().unwrap(),
        finished["reduced_bytes"].as_u64().unwrap(),
    );
    assert!(reduced * 3 < original, "{original} → {reduced} bytes");
    let command = message(&messages, "ice-reported")["command"]
        .as_str()
        .unwrap();
    let stderr = compile(command, &mcve);
    let location = found["location"].as_str().unwrap();
    assert!(
        stderr.contains(location)
            && stderr.contains("failed to resolve instance for <{async block@ice_span.ice.rs:"),
        "{stderr}"
    );
}

#[test]
fn an_ice_through_path_dependencies_takes_their_source_generated_code_and_derive_into_the_mcve() {
    if !ice_toolchain("an_ice_through_path_dependencies_takes_their_source_generated_code_and_derive_into_the_mcve") {
        return;
    }
    let workspace = repo().join("cargo-reduce/tests-fixtures/ice-workspace");
    let before = snapshot(&workspace);
    let sandbox = Sandbox::new();
    let manifest = workspace.join("app/Cargo.toml");
    // What is taken in, not how small the MCVE gets (the other tests'),
    // is tested here: the quickest strategy does.
    let run_with = |mcve: &Path, extra: &[&str]| {
        let extra = [&["--strategy", "coarse-hdd"], extra].concat();
        let messages = reduce_ice(&sandbox, &manifest, mcve, &extra).messages();
        let reported = message(&messages, "ice-reported");
        let command = reported["command"].as_str().unwrap().to_string();
        let code = std::fs::read_to_string(mcve).unwrap();
        (command, code)
    };
    // The MCVE crashes rustc on its own: no dependency, no environment.
    let mcve = sandbox.join("app.ice.rs");
    let (command, code) = run_with(&mcve, &[]);
    assert!(
        !command.contains("--extern") && !command.contains("-L"),
        "{command}"
    );
    // The app declares no trait: `shapes`' are in the MCVE now (its 2015
    // paths made to go through its module, then opened), and
    // what both build scripts generated (the traits' impls) with them,
    // the one `shapes_derive` writes expanded.
    assert!(code.contains("trait ") && code.contains("impl"), "{code}");
    assert!(
        !code.contains("include!") && !code.contains("OUT_DIR") && !code.contains("derive"),
        "{code}"
    );
    let stderr = compile(&command, &mcve);
    assert!(
        stderr
            .contains("error: internal compiler error: error performing operation: fully_perform"),
        "{stderr}"
    );
    // Kept as a dependency, it stays outside the MCVE.
    let kept = sandbox.join("kept.ice.rs");
    let (command, code) = run_with(&kept, &["--keep-dependencies"]);
    assert!(
        command.contains("--extern shapes=") && command.contains("--extern shapes_derive="),
        "{command}"
    );
    assert!(
        code.contains("shapes::") && code.contains("derive(") && !code.contains("trait "),
        "{code}"
    );
    // The app's generated code is in it still, and the command sets no
    // environment: OUT_DIR was a directory of the run, gone now.
    assert!(!code.contains("include!"), "{code}");
    assert!(
        code.ends_with('\n'),
        "a source file's last line ends: {code:?}"
    );
    assert!(command.starts_with("rustc "), "{command}");
    // The dependencies it names were copied beside it from the run's
    // target directory, and it crashes rustc with them, there.
    assert!(
        command.contains("--extern shapes=kept.ice.deps/libshapes-"),
        "{command}"
    );
    let words: Vec<&str> = command.split(' ').collect();
    let out = tempfile::tempdir().unwrap();
    let run = pinned(&mut Command::new("rustc"))
        .args(&words[1..])
        .arg("--out-dir")
        .arg(out.path())
        .current_dir(sandbox.join(""))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr
            .contains("error: internal compiler error: error performing operation: fully_perform"),
        "{stderr}"
    );
    assert_eq!(snapshot(&workspace), before, "the fixture's tree changed");
}

#[test]
fn cargo_doc_s_ice_is_reduced_with_rustdoc_and_reported_with_its_version() {
    if !ice_toolchain("cargo_doc_s_ice_is_reduced_with_rustdoc_and_reported_with_its_version") {
        return;
    }
    let crate_dir = repo().join("cargo-reduce/tests-fixtures/ice-rustdoc");
    let before = snapshot(&crate_dir);
    let sandbox = Sandbox::new();
    let mcve = sandbox.join("units.ice.rs");
    let extra = ["--cargo-subcmd", "doc", "--max-tests", "300"];
    let messages = reduce_ice(&sandbox, &crate_dir.join("Cargo.toml"), &mcve, &extra).messages();
    assert_eq!(snapshot(&crate_dir), before, "the fixture's tree changed");
    let found = message(&messages, "ice-found");
    assert_eq!(
        found["message"],
        "assertion failed: self.query_mode == TraitQueryMode::Canonical"
    );
    // rustdoc's command, with cargo's `-o target/doc` gone.
    let command = message(&messages, "ice-reported")["command"]
        .as_str()
        .unwrap();
    assert!(
        command.starts_with("rustdoc ") && !command.contains(" -o "),
        "{command}"
    );
    let code = std::fs::read_to_string(&mcve).unwrap();
    assert!(
        !code.contains("unit_name") && !code.contains("scale"),
        "{code}"
    );
    let stderr = compile(command, &mcve);
    assert!(
        stderr.contains("assertion failed: self.query_mode == TraitQueryMode::Canonical"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(sandbox.join("units.ice.md")).unwrap();
    assert!(
        report.contains("`rustdoc --version --verbose`:\n```\nrustdoc 1."),
        "{report}"
    );
}

#[test]
fn a_cross_crate_ice_keeps_its_dependency_as_a_reduced_crate_beside_the_mcve() {
    if !ice_toolchain("a_cross_crate_ice_keeps_its_dependency_as_a_reduced_crate_beside_the_mcve") {
        return;
    }
    let workspace = repo().join("cargo-reduce/tests-fixtures/ice-cross-crate");
    let before = snapshot(&workspace);
    let sandbox = Sandbox::new();
    let mcve = sandbox.join("app.ice.rs");
    let run = reduce_ice(
        &sandbox,
        &workspace.join("app/Cargo.toml"),
        &mcve,
        &["--pretty"],
    );
    let messages = run.messages();
    let reported = message(&messages, "ice-reported");
    // Taken in as a module, `requests` loses the ICE (the trait must be
    // foreign): it stays a crate, built first from its reduced source.
    let auxiliaries = reported["auxiliaries"].as_array().unwrap();
    assert_eq!(auxiliaries.len(), 1, "{reported}");
    let source = Path::new(auxiliaries[0]["source"].as_str().unwrap());
    assert_eq!(source, sandbox.join("app.ice.requests.rs"));
    let library = std::fs::read_to_string(source).unwrap();
    assert!(library.contains("pub trait "), "{library}");
    // The trait's name, spelled in both files, is renamed in both;
    // `--format` rustfmt'd it.
    assert!(!library.contains("Request"), "{library}");
    assert!(library.contains(" {\n    "), "{library}");
    // Only what the ICE needs is left of it: no helper, no other trait.
    assert!(
        !library.contains("words") && !library.contains("Named") && !library.contains("mod "),
        "{library}"
    );
    let code = std::fs::read_to_string(&mcve).unwrap();
    assert!(
        !code.contains("Request") && code.contains("requests"),
        "{code}"
    );
    let build = auxiliaries[0]["command"].as_str().unwrap();
    assert!(build.starts_with("rustc --crate-name requests "), "{build}");
    // `requests` built with `wording`; its reduced source needs it no more.
    assert!(
        !build.contains("--extern") && !build.contains("-L"),
        "{build}"
    );
    let command = reported["command"].as_str().unwrap();
    assert!(
        command.ends_with("--extern requests=librequests.rlib") && !command.contains("-L"),
        "{command}"
    );
    assert!(!sandbox.join("app.ice.deps").exists());
    // The two commands, run in a directory of their own as the report
    // says, crash rustc the same way.
    let dir = tempfile::tempdir().unwrap();
    for file in [source, mcve.as_path()] {
        std::fs::copy(file, dir.path().join(file.file_name().unwrap())).unwrap();
    }
    let run_in_dir = |command: &str| {
        let words: Vec<&str> = command.split(' ').collect();
        pinned(&mut Command::new(words[0]))
            .args(&words[1..])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    assert!(run_in_dir(build).status.success());
    let stderr = String::from_utf8_lossy(&run_in_dir(command).stderr).into_owned();
    assert!(
        stderr.contains("DefId::expect_local") && stderr.contains("isn't local"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(sandbox.join("app.ice.md")).unwrap();
    assert!(
        report.contains(&format!("```sh\n{build}\n{command}\n```")),
        "{report}"
    );
    assert_eq!(snapshot(&workspace), before, "the fixture's tree changed");
}

/// A panic in the type checker (an error first, then the ICE), written as
/// a crate author might meet it, with unused code around it.
const PANICS: &str = r#"use std::convert::Infallible;

struct Marker;

impl From for Marker where for<'any> &'any mut (): Clone {}

pub fn parse(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

fn never() -> Result<(), Infallible> {
    || -> Result<_, Marker> { never()? }
}

pub fn twice(x: u32) -> u32 {
    x * 2
}
"#;

#[test]
fn one_file_that_panics_rustc_is_reduced_without_a_cargo_project() {
    if !ice_toolchain("one_file_that_panics_rustc_is_reduced_without_a_cargo_project") {
        return;
    }
    let sandbox = Sandbox::new();
    let input = sandbox.write("panics.rs", PANICS);
    // The default output folder is under TMPDIR: the sandbox's own here,
    // so that runs of this test in parallel never share it.
    let output = pinned(&mut sandbox.cmd(&[
        "ice",
        "panics.rs",
        "--pretty",
        "--message-format",
        "json",
        "--",
        "--edition",
        "2021",
        "--crate-type",
        "lib",
        "-C",
        "debuginfo=2",
        "-W",
        "missing_docs",
        "--cfg",
        "feature=\"std\"",
    ]))
    .env("TMPDIR", sandbox.path())
    .output()
    .unwrap();
    let run = crate::util::Run(output);
    run.expect_code(0);
    assert_eq!(std::fs::read_to_string(&input).unwrap(), PANICS);
    let messages = run.messages();
    let found = message(&messages, "ice-found");
    assert_eq!(
        found["location"].as_str().unwrap().split(':').next(),
        Some("compiler/rustc_middle/src/ty/predicate.rs")
    );
    assert_eq!(found["queries"][0], "typeck");
    let reported = message(&messages, "ice-reported");
    let mcve = Path::new(reported["mcve"].as_str().unwrap());
    assert_eq!(mcve, sandbox.join("cargo-reduce-ice/panics.ice.rs"));
    let code = std::fs::read_to_string(mcve).unwrap();
    assert!(code.len() < PANICS.len() / 2, "{code}");
    assert!(!code.contains("twice") && !code.contains("parse"), "{code}");
    // `--format`: the syntax errors the smallest MCVE leans on (`fn d->T`)
    // repaired as rustc suggests, then rustfmt's layout.
    assert!(code.contains("() -> Result<(), Infallible> {\n"), "{code}");
    let check = pinned(&mut Command::new("rustfmt"))
        .args(["--edition", "2021", "--check"])
        .arg(mcve)
        .output()
        .unwrap();
    assert!(check.status.success(), "not formatted:\n{code}");
    // The flags the ICE does not need are gone from the report's command.
    let command = reported["command"].as_str().unwrap();
    assert_eq!(
        command,
        "rustc --crate-name panics --edition 2021 --crate-type lib panics.ice.rs"
    );
    let stderr = compile(command, mcve);
    assert!(
        stderr.contains("has escaping bound vars, so it cannot be wrapped in a dummy binder"),
        "{stderr}"
    );
}

#[test]
fn bisect_without_cargo_bisect_rustc_stops_before_any_work_and_says_how_to_install_it() {
    let sandbox = Sandbox::new();
    sandbox.write("panics.rs", PANICS);
    // A PATH with no cargo-bisect-rustc (nor rustc: nothing may run first).
    let output = sandbox
        .cmd(&["ice", "panics.rs", "--bisect"])
        .env("PATH", sandbox.path())
        .env("TMPDIR", sandbox.path())
        .output()
        .unwrap();
    let run = crate::util::Run(output);
    run.expect_code(15);
    let stderr = run.stderr();
    assert!(
        stderr.contains("cargo install cargo-bisect-rustc"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!sandbox.exists("cargo-reduce-ice"), "{stderr}");
}

/// rust-lang/rust#148095 (its `tests/crashes/` MCVE), which crashes rustc
/// 1.95's trait selection.
const CANONICAL_MODE_ICE: &str = "use std::ops::Mul;
struct Quantity<S>(S);
impl<S> Mul<Quantity<<f32 as Mul<S>>::Output>> for f32
where
    Quantity<Self::Output>:,
{
    type Output = ();
    fn mul(self, _: Quantity<<f32 as Mul<S>>::Output>) {}
}
";

#[test]
fn a_crate_that_builds_is_no_ice_and_its_tree_stays_as_it_was() {
    if !ice_toolchain("a_crate_that_builds_is_no_ice_and_its_tree_stays_as_it_was") {
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write(
        "Cargo.toml",
        "[package]\nname = \"fine\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    std::fs::create_dir(sandbox.join("src")).unwrap();
    sandbox.write("src/lib.rs", "pub fn f() {}\n");
    // `cargo build` does not compile examples: the ICE is met only with
    // `--example`.
    std::fs::create_dir(sandbox.join("examples")).unwrap();
    sandbox.write(
        "examples/units.rs",
        format!("{CANONICAL_MODE_ICE}fn main() {{ fine::f() }}\n"),
    );
    let before = snapshot(sandbox.path());
    let run = crate::util::Run(pinned(&mut sandbox.cmd(&["ice"])).output().unwrap());
    run.expect_code(5);
    assert!(
        run.error_line()
            .contains("`cargo build` succeeded: there is no ICE to reduce"),
        "{}",
        run.stderr()
    );
    assert_eq!(
        snapshot(sandbox.path()),
        before,
        "no Cargo.lock, no target/"
    );
    let out = tempfile::tempdir().unwrap();
    let mcve = out.path().join("units.ice.rs");
    let extra = ["--example", "units", "--max-tests", "20"];
    let messages = reduce_ice(&sandbox, &sandbox.join("Cargo.toml"), &mcve, &extra).messages();
    assert_eq!(message(&messages, "ice-found")["crate"], "units");
    assert!(mcve.is_file());
    assert_eq!(snapshot(sandbox.path()), before, "the tree changed");
}

#[test]
fn a_file_that_compiles_is_no_ice_and_no_project_is_a_clear_error() {
    let sandbox = Sandbox::new();
    sandbox.write("fine.rs", "pub fn f() {}\n");
    let run = sandbox.run(&["ice", "fine.rs"]);
    run.expect_code(5);
    assert!(
        run.error_line().contains("`fine.rs` does not crash rustc"),
        "{}",
        run.stderr()
    );
    let run = sandbox.run(&["ice"]);
    run.expect_code(3);
    assert!(
        run.error_line()
            .contains("no cargo project in the current directory or above"),
        "{}",
        run.stderr()
    );
}

/// The ICE of `DUPLICATED`, as a crash test of rust-lang/rust would have
/// it (`tests/crashes/`, its header read as compiletest reads it).
const DUPLICATED: &str = "use std::convert::Infallible;

struct Marker;

impl From for Marker where for<'any> &'any mut (): Clone {}

fn never() -> Result<(), Infallible> {
    || -> Result<_, Marker> { never()? }
}
";

/// `--rust-src DIR`: the report links the tracker's searches for the ICE
/// and names the files of `DIR/tests/crashes/` that crash this compiler
/// the same way, found by compiling them, and not the others.
#[test]
fn rust_src_finds_the_crash_test_of_the_same_ice() {
    if !ice_toolchain("rust_src_finds_the_crash_test_of_the_same_ice") {
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write("ice.rs", DUPLICATED);
    let crashes = "rust/tests/crashes";
    std::fs::create_dir_all(sandbox.join(crashes)).unwrap();
    let header = "//@ known-bug: #140099\n//@ edition:2021\n//@ compile-flags: --crate-type lib\n";
    sandbox.write(
        &format!("{crashes}/140099.rs"),
        format!("{header}{DUPLICATED}"),
    );
    sandbox.write(
        &format!("{crashes}/100000.rs"),
        "//@ known-bug: #100000\nfn main() {}\n",
    );
    let run = pinned(&mut sandbox.cmd(&[
        "ice",
        "ice.rs",
        "--rust-src",
        "rust",
        "--message-format",
        "json",
    ]))
    .env("TMPDIR", sandbox.path())
    .output()
    .unwrap();
    let run = crate::util::Run(run);
    run.expect_code(0);
    let messages = run.messages();
    let reported = message(&messages, "ice-reported");
    let report = std::fs::read_to_string(reported["report"].as_str().unwrap()).unwrap();
    assert!(
        report.contains("label%3AI-ICE+%22compiler%2Frustc_middle%2Fsrc%2Fty%2Fpredicate.rs%3A"),
        "{report}"
    );
    let listed: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("- `") && l.contains("tests/crashes/"))
        .collect();
    assert_eq!(listed.len(), 1, "{report}");
    assert!(
        listed[0] == "- `tests/crashes/140099.rs` (known bug #140099)",
        "{report}"
    );
}

/// Ctrl-C once the reduction has a first result (on its first
/// `reduction-progress` message, so never after it ended: the input is
/// long, hundreds of compilations from its end) keeps that result, and
/// its report still shows rustc's error output on it, whose run the
/// interrupted reduction's limits had cancelled (an empty block).
#[test]
fn ctrl_c_keeps_the_best_result_and_its_report_shows_rustc_s_output() {
    use std::io::{BufRead, BufReader};
    if !ice_toolchain("ctrl_c_keeps_the_best_result_and_its_report_shows_rustc_s_output") {
        return;
    }
    let sandbox = Sandbox::new();
    let padding: String = (0..300)
        .map(|i| format!("pub fn pad{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n"))
        .collect();
    sandbox.write("long.rs", format!("{PANICS}{padding}"));
    // An earlier run's finished MCVE and report, which a stopped run's
    // larger result must not replace.
    std::fs::create_dir_all(sandbox.path().join("cargo-reduce-ice")).unwrap();
    sandbox.write("cargo-reduce-ice/long.ice.rs", "// finished\n");
    sandbox.write("cargo-reduce-ice/long.ice.md", "finished\n");
    let mut child = pinned(&mut sandbox.cmd(&[
        "ice",
        "long.rs",
        "--message-format",
        "json",
        "--",
        "--edition",
        "2021",
        "--crate-type",
        "lib",
    ]))
    .env("TMPDIR", sandbox.path())
    .stdout(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = vec![];
    for line in lines.by_ref() {
        let line = line.unwrap();
        let found = line.contains("\"reason\":\"reduction-progress\"");
        seen.push(line);
        if found {
            // SAFETY: sending SIGINT to our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            break;
        }
    }
    seen.extend(lines.map(Result::unwrap));
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen:#?}");
    let reported: Vec<serde_json::Value> = (seen.iter())
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|m: &serde_json::Value| m["reason"] == "ice-reported")
        .collect();
    let report = std::fs::read_to_string(reported[0]["report"].as_str().unwrap()).unwrap();
    let output = report.split("### Error output").nth(1).unwrap();
    let block = output.split("```").nth(1).unwrap();
    assert!(block.contains("predicate.rs"), "{report}");
    assert!(report.contains("Not minimal yet"), "{report}");
    let mcve = reported[0]["mcve"].as_str().unwrap();
    assert!(mcve.ends_with("long.ice.partial.rs"), "{mcve}");
    assert!(report.contains("long.ice.partial.rs"), "{report}");
    assert_eq!(
        sandbox.read("cargo-reduce-ice/long.ice.rs"),
        b"// finished\n"
    );
    assert_eq!(sandbox.read("cargo-reduce-ice/long.ice.md"), b"finished\n");
}
