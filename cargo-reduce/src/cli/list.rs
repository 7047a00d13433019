//! `cargo reduce list`: the fuzz crates, fuzz targets, libFuzzer artifacts
//! and AFL++ instances with their crashes and hangs that `cargo reduce`
//! finds, and whether each input was reduced already, so users can see
//! what it would work on (and tools can read it as JSON lines) before
//! running anything.

use std::fs;
use std::path::Path;

use clap::Args;

use super::options::SelectOptions;
use super::render::Reporter;
use super::table::{self, Align};
use crate::error::{Error, Exit};
use crate::fuzz::project::{
    file_name, kind_from_file_name, original_of_copy, results_of_absent_inputs, Artifact,
    ArtifactKind, FuzzProject, FuzzTarget, Instance, Origin, MINIMIZED_PREFIX,
};
use crate::job::fuzz_mode::Duplicates;
use crate::job::{Events, Message};

/// Arguments of `cargo reduce list`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
}

/// Runs `cargo reduce list`: a table per fuzz crate on stdout (with `-v`,
/// each target's source, artifacts and corpus folders after it), or with
/// `--message-format json` one `fuzz-artifact` line per input, one
/// `fuzz-target` line per target without any, and one `afl-instance` line
/// per AFL++ instance.
pub(crate) fn run(args: &ListArgs, reporter: &Reporter) -> Result<Exit, Error> {
    let selection = args.select.selection();
    let projects = crate::job::fuzz_mode::discover(&selection)?;
    crate::job::fuzz_mode::warn_about_stray_artifacts(&projects, &selection, reporter);
    if reporter.is_json() {
        for message in messages(&projects) {
            reporter.emit(&message);
        }
    } else {
        let count: CountFiles<'_> = &crate::job::corpus::count_inputs;
        let details = reporter.is_verbose().then_some(count);
        print!("{}", table(&projects, details));
    }
    Ok(Exit::Success)
}

/// The messages for `projects`, in table order.
fn messages(projects: &[FuzzProject]) -> Vec<Message> {
    let mut messages = Vec::new();
    for project in projects {
        let duplicates = Duplicates::load(project);
        for target in &project.targets {
            if target.artifacts.is_empty() {
                messages.push(target_message(project, target));
            }
            for artifact in &target.artifacts {
                let of = duplicates.of(&artifact.path);
                messages.push(artifact_message(project, target, artifact, of));
            }
        }
        for (instance, target) in &project.instances {
            messages.push(instance_message(project, instance, target.as_deref()));
        }
    }
    messages
}

fn instance_message<'a>(
    project: &'a FuzzProject,
    instance: &'a Instance,
    target: Option<&'a str>,
) -> Message {
    let hangs = instance.inputs.iter().filter(|i| i.hang).count();
    Message::AflInstance {
        package: project.package.clone(),
        target: target.map(str::to_string),
        dir: instance.dir.clone(),
        name: instance.name.clone(),
        binary: instance.binary.clone(),
        exec_timeout_ms: instance.exec_timeout.map(|t| t.as_millis() as u64),
        mem_limit_mb: instance.mem_limit_mb,
        rebuilt: instance.rebuilt,
        crashes: instance.inputs.len() - hangs,
        hangs,
    }
}

fn target_message<'a>(project: &'a FuzzProject, target: &'a FuzzTarget) -> Message {
    Message::FuzzTarget {
        package: project.package.clone(),
        manifest_path: project.manifest_path.clone(),
        target: target.name.clone(),
        engine: project.engine.into(),
        source: target.source.clone(),
        artifacts_dir: target.artifacts_dir.clone(),
    }
}

fn artifact_message<'a>(
    project: &'a FuzzProject,
    target: &'a FuzzTarget,
    artifact: &'a Artifact,
    duplicate_of: Option<&Path>,
) -> Message {
    Message::FuzzArtifact {
        package: project.package.clone(),
        manifest_path: project.manifest_path.clone(),
        target: target.name.clone(),
        path: artifact.path.clone(),
        name: artifact.name.clone(),
        kind: artifact.kind,
        size: artifact.size,
        engine: project.engine.into(),
        instance: match &artifact.origin {
            Origin::Afl(afl) => Some(afl.instance.clone()),
            Origin::LibFuzzer => None,
        },
        output: artifact.output.clone(),
        minimized: artifact.minimized.clone(),
        minimized_size: minimized_size(artifact),
        tmin: artifact.tmin.clone(),
        duplicate_of: duplicate_of.map(Path::to_path_buf),
    }
}

/// The size of the artifact's minimized copy, if it has a readable one.
fn minimized_size(artifact: &Artifact) -> Option<u64> {
    file_size(artifact.minimized.as_deref()?)
}

/// The size of the file at `path`, if it can be read.
fn file_size(path: &Path) -> Option<u64> {
    fs::metadata(path).ok().map(|m| m.len())
}

const HEADER: [&str; 5] = ["TARGET", "ARTIFACT", "KIND", "SIZE", "REDUCED"];

/// Counts the input files of a corpus folder (`None`: unreadable).
type CountFiles<'a> = &'a dyn Fn(&Path) -> Option<usize>;

/// The human table: per fuzz crate a heading line, then one row per
/// artifact, and one per target without artifacts; with `details`, a line
/// per target with its folders.
fn table(projects: &[FuzzProject], details: Option<CountFiles<'_>>) -> String {
    let mut out = String::new();
    for (i, project) in projects.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!(
            "{}  {}  ({})\n",
            project.package,
            project.manifest_path.display(),
            project.engine.as_str()
        ));
        out.push_str(&aligned(&rows(project)));
        for (instance, target) in &project.instances {
            out.push_str(&instance_line(instance, target.as_deref()));
        }
        if let Some(count) = details {
            for target in &project.targets {
                out.push_str(&target_line(project, target, count));
            }
        }
    }
    out
}

/// `  T: source S; artifacts A; corpus C (N files)[, Q (M files)]`: where
/// a target's code and inputs are (its corpus as `cargo reduce corpus`
/// reads it by default).
fn target_line(project: &FuzzProject, target: &FuzzTarget, count: CountFiles<'_>) -> String {
    let corpora: Vec<String> = crate::job::corpus::default_dirs(project, &target.name)
        .iter()
        .map(|dir| match count(dir) {
            Some(0) if !dir.exists() => format!("{} (none yet)", dir.display()),
            Some(files) => format!("{} ({files} files)", dir.display()),
            None if dir.is_file() => format!("{} (a file, not a folder)", dir.display()),
            None => format!("{} (unreadable)", dir.display()),
        })
        .collect();
    format!(
        "  {}: source {}; artifacts {}; corpus {}\n",
        target.name,
        target.source.display(),
        target.artifacts_dir.display(),
        corpora.join(", ")
    )
}

/// `  AFL instance NAME  DIR: N crashes, M hangs → target T`.
fn instance_line(instance: &Instance, target: Option<&str>) -> String {
    let hangs = instance.inputs.iter().filter(|i| i.hang).count();
    let ran = match (target, &instance.binary) {
        (Some(target), _) => format!("target {target}"),
        (None, Some(binary)) => format!("no target builds `{}`", binary.display()),
        (None, None) => "its binary is unknown (no cmdline)".into(),
    };
    let rebuilt = if instance.rebuilt == Some(true) {
        " (its binary was rebuilt since)"
    } else {
        ""
    };
    format!(
        "  AFL instance {}  {}: {} crashes, {hangs} hangs, {ran}{rebuilt}\n",
        instance.name,
        instance.dir.display(),
        instance.inputs.len() - hangs
    )
}

/// The header and the rows of `project`'s table.
fn rows(project: &FuzzProject) -> Vec<[String; 5]> {
    let duplicates = Duplicates::load(project);
    let mut rows = vec![HEADER.map(String::from)];
    for target in &project.targets {
        let results_dir = project.results_dir(&target.name);
        let elsewhere = results_of_absent_inputs(&results_dir, &target.artifacts);
        if target.artifacts.is_empty() && elsewhere.is_empty() {
            rows.push([
                target.name.clone(),
                "(none)".into(),
                "".into(),
                "".into(),
                "".into(),
            ]);
        }
        for artifact in &target.artifacts {
            rows.push([
                target.name.clone(),
                shown_name(artifact),
                artifact.kind.to_string(),
                artifact.size.to_string(),
                reduced(artifact, duplicates.of(&artifact.path)),
            ]);
        }
        rows.extend(
            elsewhere
                .iter()
                .map(|result| absent_input_row(target, result)),
        );
    }
    rows
}

/// The row of a result whose input is not in the artifacts folder (it
/// was named from another): the input's name, its kind as the name says,
/// no size, and the result's.
fn absent_input_row(target: &FuzzTarget, result: &Path) -> [String; 5] {
    let name = file_name(result);
    let input = original_of_copy(&name).unwrap_or(&name);
    let what = match name.starts_with(MINIMIZED_PREFIX) {
        true => "yes",
        false => "partial",
    };
    let kind = kind_from_file_name(&name).unwrap_or(ArtifactKind::Unknown);
    let size = file_size(result).map_or(String::new(), |size| format!(" ({size} B)"));
    [
        target.name.clone(),
        format!("{input} (input elsewhere)"),
        kind.to_string(),
        String::new(),
        format!("{what}{size}"),
    ]
}

/// An artifact's name; an AFL input's with its instance and folder
/// (`main/crashes/id:000001,sig:06,…`).
fn shown_name(artifact: &Artifact) -> String {
    match &artifact.origin {
        Origin::LibFuzzer => artifact.name.clone(),
        Origin::Afl(afl) => format!("{}/{}/{}", afl.instance, afl.folder, artifact.name),
    }
}

/// `yes (N B)` with the minimized copy's size; `duplicate of NAME` for an
/// input a run found failing like another (`of`), which it did not reduce;
/// `partial (N B)` with the size of a reduction a limit or Ctrl-C stopped
/// (both when a reduction again, `--force`, was stopped); `tmin (N B)`
/// with the size of `cargo fuzz tmin`'s result when cargo-reduce has none;
/// or `no`.
fn reduced(artifact: &Artifact, of: Option<&Path>) -> String {
    let sized = |what: &str, path: &Path| match file_size(path) {
        Some(size) => format!("{what} ({size} B)"),
        None => what.to_string(),
    };
    let minimized = artifact.minimized.as_deref().map(|p| sized("yes", p));
    let partial = artifact
        .partial
        .is_file()
        .then(|| sized("partial", &artifact.partial));
    let (duplicate, tmin) = match minimized {
        Some(_) => (None, None),
        None => (
            of.map(|of| format!("duplicate of {}", file_name(of))),
            artifact.tmin.as_deref().map(|p| sized("tmin", p)),
        ),
    };
    let parts: Vec<String> = [minimized, duplicate, partial, tmin]
        .into_iter()
        .flatten()
        .collect();
    match parts.is_empty() {
        true => "no".into(),
        false => parts.join(", "),
    }
}

/// `rows` as indented columns; the size column is right-aligned.
fn aligned(rows: &[[String; 5]]) -> String {
    let rows: Vec<Vec<String>> = rows.iter().map(|r| r.to_vec()).collect();
    let align = [Align::Left, Align::Left, Align::Left, Align::Right];
    table::render(&rows, &align, "  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::project::ArtifactKind;
    use std::path::PathBuf;

    fn artifact(name: &str, kind: ArtifactKind, size: u64) -> Artifact {
        Artifact {
            path: PathBuf::from(format!("/p/fuzz/artifacts/parse/{name}")),
            name: name.into(),
            kind,
            size,
            output: PathBuf::from(format!("/p/fuzz/artifacts/parse/minimized-from-{name}")),
            partial: PathBuf::from(format!("/p/fuzz/artifacts/parse/partial-from-{name}")),
            minimized: None,
            tmin: None,
            origin: Origin::LibFuzzer,
        }
    }

    fn target(name: &str, artifacts: Vec<Artifact>) -> FuzzTarget {
        FuzzTarget {
            name: name.into(),
            source: PathBuf::from(format!("/p/fuzz/fuzz_targets/{name}.rs")),
            kind: crate::fuzz::project::BinKind::Bin,
            features: Vec::new(),
            artifacts_dir: PathBuf::from(format!("/p/fuzz/artifacts/{name}")),
            artifacts,
            settings: Default::default(),
        }
    }

    fn project() -> FuzzProject {
        let mut reduced = artifact("crash-1", ArtifactKind::Crash, 1234);
        // A minimized copy that cannot be read still counts as reduced.
        reduced.minimized = Some(PathBuf::from("/p/nonexistent/minimized-from-crash-1"));
        FuzzProject {
            engine: crate::fuzz::project::Engine::LibFuzzer,
            instances: Vec::new(),
            package: "app-fuzz".into(),
            manifest_path: PathBuf::from("/p/fuzz/Cargo.toml"),
            fuzz_dir: PathBuf::from("/p/fuzz"),
            workspace_root: PathBuf::from("/p/fuzz"),
            target_dir: PathBuf::from("/p/fuzz/target"),
            lock_file: PathBuf::from("/p/fuzz/Cargo.lock"),
            results_root: None,
            targets: vec![
                target("decode", vec![]),
                target(
                    "parse",
                    vec![reduced, artifact("slow-unit-2", ArtifactKind::SlowUnit, 7)],
                ),
            ],
        }
    }

    #[test]
    fn the_table_lists_targets_without_artifacts_too() {
        let expected = "\
app-fuzz  /p/fuzz/Cargo.toml  (libfuzzer)
  TARGET  ARTIFACT     KIND       SIZE  REDUCED
  decode  (none)
  parse   crash-1      crash      1234  yes
  parse   slow-unit-2  slow-unit     7  no
";
        assert_eq!(table(&[project()], None), expected);
    }

    /// An artifact whose reduction was stopped shows its partial result's
    /// size (helper-40: `no`, with a `partial-from-` file beside it).
    #[test]
    fn cargo_fuzz_tmin_s_result_shows_until_cargo_reduce_has_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut tminned = artifact("crash-3", ArtifactKind::Crash, 12);
        tminned.partial = dir.path().join("partial-from-crash-3");
        let tmin = dir.path().join("minimized-from-0123");
        std::fs::write(&tmin, [0; 5]).unwrap();
        tminned.tmin = Some(tmin);
        assert_eq!(reduced(&tminned, None), "tmin (5 B)");
        let minimized = dir.path().join("minimized-from-crash-3");
        std::fs::write(&minimized, [0; 2]).unwrap();
        tminned.minimized = Some(minimized);
        assert_eq!(reduced(&tminned, None), "yes (2 B)");
    }

    /// A reduction of an input named from another folder shows in its
    /// target's folder (helper-57: `(none)` beside its result); the
    /// results of the folder's own artifacts and `cargo fuzz tmin`'s do
    /// not show twice.
    #[test]
    fn a_result_whose_input_is_elsewhere_has_a_row() {
        let dir = tempfile::tempdir().unwrap();
        let mut own = artifact("crash-1", ArtifactKind::Crash, 9);
        own.output = dir.path().join("minimized-from-crash-1");
        own.partial = dir.path().join("partial-from-crash-1");
        let tmin = format!("minimized-from-{}", "a".repeat(40));
        for (name, size) in [
            ("minimized-from-crash-1", 3),
            ("partial-from-crash-1", 4),
            (tmin.as_str(), 5),
            ("minimized-from-mycrash", 6),
            ("partial-from-timeout-7", 7),
        ] {
            std::fs::write(dir.path().join(name), vec![0; size]).unwrap();
        }
        let mut parse = target("parse", vec![own]);
        parse.artifacts_dir = dir.path().to_path_buf();
        let rows: Vec<[String; 5]> = results_of_absent_inputs(dir.path(), &parse.artifacts)
            .iter()
            .map(|result| absent_input_row(&parse, result))
            .collect();
        let row = |cells: [&str; 5]| cells.map(String::from);
        assert_eq!(
            rows,
            [
                row([
                    "parse",
                    "mycrash (input elsewhere)",
                    "unknown",
                    "",
                    "yes (6 B)"
                ]),
                row([
                    "parse",
                    "timeout-7 (input elsewhere)",
                    "timeout",
                    "",
                    "partial (7 B)"
                ]),
            ]
        );
    }

    #[test]
    fn a_duplicate_names_the_input_it_fails_like() {
        let found = artifact("crash-4", ArtifactKind::Crash, 12);
        let of = Path::new("/p/fuzz/artifacts/parse/crash-1");
        assert_eq!(reduced(&found, Some(of)), "duplicate of crash-1");
    }

    #[test]
    fn a_stopped_reduction_shows_as_partial() {
        let dir = tempfile::tempdir().unwrap();
        let mut stopped = artifact("crash-2", ArtifactKind::Crash, 500);
        assert_eq!(reduced(&stopped, None), "no");
        stopped.partial = dir.path().join("partial-from-crash-2");
        std::fs::write(&stopped.partial, [0; 17]).unwrap();
        assert_eq!(reduced(&stopped, None), "partial (17 B)");
        // Reduced, then reduced again (`--force`) and stopped.
        stopped.minimized = Some(dir.path().join("minimized-from-crash-2"));
        std::fs::write(stopped.minimized.as_ref().unwrap(), [0; 9]).unwrap();
        assert_eq!(reduced(&stopped, None), "yes (9 B), partial (17 B)");
    }

    #[test]
    fn verbose_lists_each_targets_folders_and_corpus_size() {
        let count = |dir: &Path| Some(if dir.ends_with("corpus/parse") { 12 } else { 0 });
        let text = table(&[project()], Some(&count));
        let details: Vec<&str> = text.lines().filter(|l| l.contains(": source ")).collect();
        assert_eq!(
            details,
            [
                "  decode: source /p/fuzz/fuzz_targets/decode.rs; artifacts /p/fuzz/artifacts/decode; corpus /p/fuzz/corpus/decode (none yet)",
                "  parse: source /p/fuzz/fuzz_targets/parse.rs; artifacts /p/fuzz/artifacts/parse; corpus /p/fuzz/corpus/parse (12 files)",
            ]
        );
    }

    #[test]
    fn json_lines_have_a_reason_and_every_field() {
        let project = project();
        let lines: Vec<String> = messages(std::slice::from_ref(&project))
            .iter()
            .map(|m| serde_json::to_string(m).expect("serializes"))
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            r#"{"reason":"fuzz-target","package":"app-fuzz","manifest_path":"/p/fuzz/Cargo.toml","target":"decode","engine":"libfuzzer","source":"/p/fuzz/fuzz_targets/decode.rs","artifacts_dir":"/p/fuzz/artifacts/decode"}"#
        );
        assert_eq!(
            lines[2],
            r#"{"reason":"fuzz-artifact","package":"app-fuzz","manifest_path":"/p/fuzz/Cargo.toml","target":"parse","path":"/p/fuzz/artifacts/parse/slow-unit-2","name":"slow-unit-2","kind":"slow-unit","size":7,"engine":"libfuzzer","output":"/p/fuzz/artifacts/parse/minimized-from-slow-unit-2","minimized":null,"minimized_size":null}"#
        );
        assert!(lines[1].contains(r#""minimized":"/p/nonexistent/minimized-from-crash-1""#));
    }
}
