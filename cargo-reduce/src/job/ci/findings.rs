//! The report of a `cargo reduce ci` run, made from what each target's
//! replay, grouping and minimization found.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::classify;
use super::report::{hex, CiReport, FailureRecord, FixedRecord, InputRecord, Reduced};
use super::{
    entry_keys, ledgered, level_name, name_of, seen, shown, tool, CiRequest, Group, TargetRun,
};
use crate::fuzz::pool::split_location;

/// The report of the whole run.
pub(super) fn build(runs: &[TargetRun], request: &CiRequest, elapsed: Duration) -> CiReport {
    let mut report = CiReport {
        version: super::report::REPORT_VERSION,
        tool: tool(),
        shard: request.shard.map(|s| s.to_string()),
        matching: level_name(request),
        inputs: Vec::new(),
        failures: Vec::new(),
        fixed: Vec::new(),
        elapsed_s: elapsed.as_secs_f64(),
    };
    for run in runs {
        let ids: Vec<(String, String)> = run.entries.iter().map(|e| entry_keys(run, e)).collect();
        // Each failing input's id is its group's.
        let mut group_ids: Vec<Option<&str>> = vec![None; run.inputs.len()];
        for group in &run.groups {
            for &member in &group.members {
                group_ids[member] = Some(&group.id);
            }
        }
        for ((input, (_, cached)), id) in run.inputs.iter().zip(&run.outcomes).zip(group_ids) {
            report.inputs.push(InputRecord {
                package: run.package.clone(),
                target: run.name.clone(),
                path: shown(&input.artifact.path),
                source: input.source,
                hash: input.hash.clone(),
                size: input.bytes.len() as u64,
                failure_id: id.map(str::to_string),
                cached: *cached,
            });
        }
        let packages = match run.groups.is_empty() {
            true => Vec::new(),
            false => packages_around(&run.workspace_root),
        };
        for group in &run.groups {
            report.failures.push(failure_record(run, group, &packages));
        }
        for i in classify::fixed(&seen(run), &ledgered(run, &ids)) {
            let entry = &run.entries[i];
            report.fixed.push(FixedRecord {
                package: run.package.clone(),
                target: run.name.clone(),
                id: ids[i].0.clone(),
                signature: entry.sidecar.signature.clone(),
                ledger: shown(&entry.input),
                pruned_from: None,
            });
        }
    }
    report.sort();
    report
}

fn failure_record(run: &TargetRun, group: &Group, packages: &[Package]) -> FailureRecord {
    let signature = group.failure.signature();
    let location = group.failure.location.as_deref();
    let position = source_position(location, packages, &group.failure.call_path);
    let (file, line, column) = match position {
        Some((file, line, column)) => (Some(file), Some(line), Some(column)),
        None => (None, None, None),
    };
    FailureRecord {
        package: run.package.clone(),
        target: run.name.clone(),
        id: group.id.clone(),
        matching: name_of(run.options.matching()),
        status: group.status,
        signature: signature.to_string(),
        kind: signature.kind.tag(),
        severity: signature.severity(),
        location: signature.location.clone(),
        call_path: signature.call_path.clone(),
        message: signature.message.clone(),
        file,
        line,
        column,
        source: shown(&run.source),
        inputs: group.members.len(),
        input: shown(&group.smallest(&run.inputs).artifact.path),
        reduced: group.reduced.as_ref().map(|m| Reduced {
            hex: hex(&m.bytes),
            size: m.bytes.len(),
            minimal: m.minimal,
            debug: m.debug.clone(),
        }),
        ledger: group.ledger.as_deref().map(shown),
        replaced: None,
    }
}

/// A package a location may be relative to: its folder, and its library
/// crate's name if its manifest says.
struct Package {
    root: PathBuf,
    crate_name: Option<String>,
}

/// The file (as shown), line and column of a panic location in the user's code:
/// locations are relative to the fuzz crate's workspace root (the build
/// remaps its path): the fuzz crate's own folder when it is a workspace
/// of its own, the project's when it is a member; a file of the library
/// that a standalone fuzz workspace tests, relative to its package, found
/// among `packages` ([`packages_around`]); of several that have the file,
/// the innermost frame's crate's.
fn source_position(
    location: Option<&str>,
    packages: &[Package],
    call_path: &[String],
) -> Option<(String, u32, u32)> {
    let (file, line, column) = split_location(location?)?;
    if Path::new(file).is_absolute() {
        return None;
    }
    let holding: Vec<&Package> = packages
        .iter()
        .filter(|p| p.root.join(file).is_file())
        .collect();
    // `src/lib.rs` is in every library: the crate of the innermost frame
    // tells which (a workspace's members side by side).
    let innermost = call_path.first().and_then(|frame| crate_of(frame));
    let of_crate = holding
        .iter()
        .find(|p| innermost.is_some_and(|name| p.crate_name.as_deref() == Some(name)));
    let package = of_crate.or(holding.first())?;
    Some((shown(&package.root.join(file)), line, column))
}

/// Where a location relative to a package may start, read once per run:
/// the workspace root, the packages around it (folders above it with a
/// `Cargo.toml`), then the packages beside those (their subfolders with
/// one), in that order.
fn packages_around(workspace_root: &Path) -> Vec<Package> {
    let mut roots = workspace_root.ancestors();
    let Some(first) = roots.next() else {
        return Vec::new();
    };
    let around: Vec<PathBuf> = std::iter::once(first)
        .chain(roots.take_while(|dir| dir.join("Cargo.toml").is_file()))
        .map(Path::to_path_buf)
        .collect();
    let beside = around.iter().flat_map(|dir| {
        let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|child| child.join("Cargo.toml").is_file() && !around.contains(child))
            .collect();
        children.sort();
        children
    });
    let beside: Vec<PathBuf> = beside.collect();
    around
        .into_iter()
        .chain(beside)
        .map(|root| Package {
            crate_name: crate_name(&root),
            root,
        })
        .collect()
}

/// The crate a frame (`krate::module::function`, `<krate::T as …>::f`)
/// belongs to.
fn crate_of(frame: &str) -> Option<&str> {
    let name = frame.trim_start_matches('<').split("::").next()?;
    (!name.is_empty()).then_some(name)
}

/// The library crate name of the package at `root`: `[lib] name`, else
/// its package name with `-` as `_`.
fn crate_name(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
    let doc = text.parse::<toml_edit::DocumentMut>().ok()?;
    let lib = doc.get("lib").and_then(|lib| lib.get("name")?.as_str());
    let package = doc.get("package").and_then(|p| p.get("name")?.as_str());
    Some(lib.or(package)?.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_the_user_s_files_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "").unwrap();
        let (file, line, column) =
            source_position(Some("src/a.rs:12:5"), &packages_around(dir.path()), &[]).unwrap();
        assert!(file.ends_with("src/a.rs"));
        assert_eq!((line, column), (12, 5));
        assert_eq!(
            source_position(Some("src/b.rs:1:1"), &packages_around(dir.path()), &[]),
            None
        );
        assert_eq!(
            source_position(
                Some("/rustc/x/lib.rs:1:1"),
                &packages_around(dir.path()),
                &[]
            ),
            None
        );
        assert_eq!(
            source_position(None, &packages_around(dir.path()), &[]),
            None
        );
        // A fuzz crate that is a member of the project's workspace: its
        // target's locations start at the workspace root.
        std::fs::create_dir_all(dir.path().join("fuzz/fuzz_targets")).unwrap();
        std::fs::write(dir.path().join("fuzz/fuzz_targets/t.rs"), "").unwrap();
        let location = Some("fuzz/fuzz_targets/t.rs:8:13");
        let (file, line, _) = source_position(location, &packages_around(dir.path()), &[]).unwrap();
        assert!(file.ends_with("fuzz/fuzz_targets/t.rs"));
        assert_eq!(line, 8);
        // A standalone fuzz workspace beside the library it tests: the
        // library's files are named by its package, the folder above.
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        let (file, _, _) = source_position(
            Some("src/a.rs:2:1"),
            &packages_around(&dir.path().join("fuzz")),
            &[],
        )
        .unwrap();
        assert_eq!(Path::new(&file), dir.path().join("src/a.rs"));
    }

    /// A workspace of libraries side by side, the fuzz crate in one of
    /// them: `src/lib.rs` is the file of the crate the panic's innermost
    /// frame is in (helper-38 on mp4parse-rust: the panic in
    /// mp4parse/src/lib.rs was placed in mp4parse_capi/src/lib.rs).
    #[test]
    fn a_file_every_member_has_is_the_innermost_frame_s_crate_s() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let package = |folder: &str, manifest: &str| {
            std::fs::create_dir_all(root.join(folder).join("src")).unwrap();
            std::fs::write(root.join(folder).join("Cargo.toml"), manifest).unwrap();
            std::fs::write(root.join(folder).join("src/lib.rs"), "").unwrap();
        };
        std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
        package("parse", "[package]\nname = \"mp4-parse\"\n");
        package(
            "capi",
            "[package]\nname = \"capi\"\n[lib]\nname = \"mp4parse_capi\"\n",
        );
        std::fs::create_dir_all(root.join("capi/fuzz")).unwrap();
        let fuzz = root.join("capi/fuzz");
        let packages = packages_around(&fuzz);
        let at = |frame: &str| {
            let call_path = [frame.to_string(), "fuzz::run".to_string()];
            let (file, _, _) =
                source_position(Some("src/lib.rs:9:1"), &packages, &call_path).unwrap();
            PathBuf::from(file)
        };
        assert_eq!(at("mp4_parse::read_ftyp"), root.join("parse/src/lib.rs"));
        assert_eq!(
            at("<mp4parse_capi::Parser as Drop>::drop"),
            root.join("capi/src/lib.rs")
        );
        // No crate that holds the file: the nearest package, as before.
        assert_eq!(at("elsewhere::f"), root.join("capi/src/lib.rs"));
    }
}
