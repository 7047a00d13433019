//! The instrumented `arbitrary`: a copy of the exact `arbitrary` 1.x the
//! fuzz crate's lock holds, taken from cargo's registry cache, in which
//! every read of `Unstructured`'s data is recorded
//! (`harness/arbitrary_recorder.rs`). Patched in like the engine stand-in,
//! under the same version, so cargo re-resolves nothing and the user's lock
//! stays as it is. The typed reduction ([`crate::typed`]) decodes inputs
//! with it to see which bytes each field took.
//!
//! Why a copy and not a re-implementation of the decoding: a target's own
//! `Arbitrary` impls (derived or hand-written, against any 1.x) call
//! `Unstructured` directly, so only `Unstructured` itself sees every read.
//! All 1.x releases change its data in one way, `self.data = <rest>;`, in
//! the same few methods; the copy routes those assignments through the
//! recorder and wraps `arbitrary_byte_size` to record the lengths it
//! reads. When a release does not have that shape, nothing is patched and
//! the typed reduction is simply unavailable for it.

use std::path::{Path, PathBuf};

use cargo_metadata::MetadataCommand;

use super::error::{io_error, BuildError};
use super::lockfile::registry_versions;

/// The recorder module added to the copy.
const RECORDER: &str = include_str!("../../../harness/arbitrary_recorder.rs");

/// Written into a finished copy; a copy with another stamp is redone.
const STAMP_FILE: &str = ".cargo-reduce-instrumented";

/// The `cfg` the stand-in's recording hooks are compiled under.
pub(crate) const TRACE_CFG: &str = "--cfg cargo_reduce_trace";

/// An instrumented copy, ready to be patched in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Instrumented {
    /// Its directory.
    pub dir: PathBuf,
}

/// Makes (or finds, when made before) the instrumented copy of the
/// `arbitrary` 1.x locked in `lock_text`, under `root`. `None` when the
/// lock has no `arbitrary` 1.x from crates.io, cargo does not have its
/// source, or the source does not have the shape the instrumentation
/// expects. `metadata_args` are the `--config` options the build uses
/// (so that `cargo metadata` resolves what the build resolves).
pub(crate) fn prepare(
    lock_text: &str,
    manifest: &Path,
    metadata_args: &[String],
    root: &Path,
) -> Result<Option<Instrumented>, BuildError> {
    let Some(version) = registry_versions(lock_text, "arbitrary")
        .into_iter()
        .find(|v| v.starts_with("1."))
    else {
        return Ok(None);
    };
    let dir = root.join(format!("arbitrary-{version}"));
    let stamp = stamp(&version);
    if std::fs::read_to_string(dir.join(STAMP_FILE)).is_ok_and(|s| s == stamp) {
        return Ok(Some(Instrumented { dir }));
    }
    let Some(source) = registry_source(manifest, metadata_args, &version) else {
        return Ok(None);
    };
    let unstructured = read(&source.join("src/unstructured.rs"))?;
    let lib = read(&source.join("src/lib.rs"))?;
    let Some(unstructured) = instrument_unstructured(&unstructured) else {
        return Ok(None);
    };
    let staging = root.join(format!(".arbitrary-{version}.tmp"));
    let _ = std::fs::remove_dir_all(&staging);
    copy_dir(&source, &staging)?;
    write(&staging.join("src/unstructured.rs"), &unstructured)?;
    write(&staging.join("src/lib.rs"), &instrument_lib(&lib))?;
    write(&staging.join("src/__cargo_reduce.rs"), RECORDER)?;
    write(&staging.join(STAMP_FILE), &stamp)?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&staging, &dir).map_err(io_error(&dir))?;
    Ok(Some(Instrumented { dir }))
}

/// Bumped whenever [`instrument_unstructured`] or [`instrument_lib`]
/// change what they write, so that older copies are redone.
const PATCH: u32 = 1;

/// What a copy is stamped with: the version, the patch and the recorder.
fn stamp(version: &str) -> String {
    let recorder = crate::engine::Candidate::whole(RECORDER.as_bytes()).content_hash();
    format!("{version} patch {PATCH} recorder {recorder:x}")
}

/// The directory of the registry source of `arbitrary` `version`, as
/// `cargo metadata` (which unpacks it) reports it.
fn registry_source(manifest: &Path, args: &[String], version: &str) -> Option<PathBuf> {
    // The build's flags, not a config's (see `with_build_rustflags`).
    let metadata = MetadataCommand::new()
        .manifest_path(manifest)
        .other_options(args.to_vec())
        .env_remove("RUSTFLAGS")
        .env(
            "CARGO_ENCODED_RUSTFLAGS",
            super::user_rustflags().join("\x1f"),
        )
        .exec()
        .ok()?;
    let package = metadata.packages.into_iter().find(|p| {
        p.name.as_str() == "arbitrary"
            && p.version.to_string() == version
            && p.source.as_ref().is_some_and(|s| s.is_crates_io())
    })?;
    Some(package.manifest_path.parent()?.as_std_path().to_path_buf())
}

/// `unstructured.rs` with every `self.data = <rest>;` outside
/// `arbitrary_byte_size` routed through the recorder (the read's kind
/// named after the method it is in) and `arbitrary_byte_size` wrapped to
/// record the length. `None` if the source does not have that shape.
pub(crate) fn instrument_unstructured(source: &str) -> Option<String> {
    const BYTE_SIZE: &str = "fn arbitrary_byte_size(&mut self) -> Result<usize> {";
    let mut out = String::with_capacity(source.len() + 1024);
    let mut method = "";
    let (mut sites, mut wrapped) = (0, false);
    for line in source.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(name) = method_name(trimmed) {
            method = name;
        }
        if trimmed == BYTE_SIZE {
            out.push_str(&byte_size_wrapper(indent));
            out.push_str(&line.replace("fn arbitrary_byte_size(", "fn __cargo_reduce_byte_size("));
            out.push('\n');
            wrapped = true;
            continue;
        }
        let assignment = trimmed
            .strip_prefix("self.data = ")
            .and_then(|rest| rest.strip_suffix(';'));
        match assignment {
            Some(rest) if method != "arbitrary_byte_size" => {
                let kind = match method {
                    "int_in_range" => 'R',
                    "bytes" => 'B',
                    _ => 'F',
                };
                out.push_str(&format!(
                    "{indent}self.data = crate::__cargo_reduce::consumed('{kind}', self.data, {rest});\n"
                ));
                sites += 1;
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    (wrapped && sites >= 3).then_some(out)
}

/// The name of the function `line` (trimmed) declares, if it does.
fn method_name(line: &str) -> Option<&str> {
    let rest = ["fn ", "pub fn ", "pub(crate) fn "]
        .iter()
        .find_map(|prefix| line.strip_prefix(prefix))?;
    let end = rest.find(['<', '('])?;
    Some(&rest[..end])
}

fn byte_size_wrapper(indent: &str) -> String {
    [
        "fn arbitrary_byte_size(&mut self) -> Result<usize> {",
        "    let before = self.data;",
        "    let size = self.__cargo_reduce_byte_size();",
        "    if let Ok(size) = size {",
        "        crate::__cargo_reduce::length(before, self.data, size);",
        "    }",
        "    size",
        "}",
        "",
    ]
    .iter()
    .map(|l| format!("{indent}{l}\n"))
    .collect()
}

/// `lib.rs` with the recorder module declared, and without its
/// `#![deny(...)]` lints: a path dependency's lints are not capped like a
/// registry one's, and a newer compiler's lints must not break the copy.
pub(crate) fn instrument_lib(source: &str) -> String {
    let mut out: String = source
        .lines()
        .filter(|l| !l.trim_start().starts_with("#![deny("))
        .flat_map(|l| [l, "\n"])
        .collect();
    out.push_str("\n#[doc(hidden)]\n#[allow(missing_docs)]\npub mod __cargo_reduce;\n");
    out
}

fn read(path: &Path) -> Result<String, BuildError> {
    std::fs::read_to_string(path).map_err(io_error(path))
}

fn write(path: &Path, text: &str) -> Result<(), BuildError> {
    std::fs::write(path, text).map_err(io_error(path))
}

/// Copies the regular files and directories under `from` into `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<(), BuildError> {
    std::fs::create_dir_all(to).map_err(io_error(to))?;
    for entry in std::fs::read_dir(from).map_err(io_error(from))? {
        let entry = entry.map_err(io_error(from))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(io_error(&source))?;
        if kind.is_dir() {
            copy_dir(&source, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target).map_err(io_error(&source))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape every arbitrary 1.x has, in small.
    const UNSTRUCTURED: &str = "impl<'a> Unstructured<'a> {
    fn arbitrary_byte_size(&mut self) -> Result<usize> {
        if self.data.len() == 1 {
            self.data = &[];
            Ok(0)
        } else {
            let (rest, for_size) = self.data.split_at(1);
            self.data = rest;
            Ok(for_size[0] as usize)
        }
    }

    pub fn int_in_range<T>(&mut self, range: T) -> Result<T> {
        self.data = &self.data[1..];
    }

    pub fn fill_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {
        self.data = &self.data[n..];
    }

    pub fn bytes(&mut self, size: usize) -> Result<&'a [u8]> {
        self.data = rest;
    }
}
";

    #[test]
    fn every_read_is_routed_through_the_recorder() {
        let out = instrument_unstructured(UNSTRUCTURED).unwrap();
        assert!(out.contains(
            "self.data = crate::__cargo_reduce::consumed('R', self.data, &self.data[1..]);"
        ));
        assert!(out.contains("consumed('F', self.data, &self.data[n..]);"));
        assert!(out.contains("consumed('B', self.data, rest);"));
        assert!(out.contains("fn __cargo_reduce_byte_size(&mut self) -> Result<usize> {"));
        assert!(out.contains("crate::__cargo_reduce::length(before, self.data, size);"));
        assert!(
            out.contains("            self.data = &[];\n"),
            "the length's own reads are recorded by the wrapper"
        );
    }

    #[test]
    fn another_shape_is_left_alone() {
        assert!(instrument_unstructured("fn bytes(&mut self) { self.data = rest; }").is_none());
    }

    #[test]
    fn the_lib_declares_the_recorder_and_denies_nothing() {
        let out = instrument_lib("//! docs\n#![deny(unused)]\n#![warn(x)]\nmod error;\n");
        assert!(!out.contains("deny"));
        assert!(out.contains("#![warn(x)]"));
        assert!(out.ends_with("pub mod __cargo_reduce;\n"));
    }

    /// The arbitrary this crate is tested with (a dev-dependency, so its
    /// source is unpacked) has the shape.
    #[test]
    fn the_real_arbitrary_has_the_shape() {
        let metadata = MetadataCommand::new()
            .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .exec()
            .unwrap();
        let sources: Vec<_> = metadata
            .packages
            .iter()
            .filter(|p| p.name.as_str() == "arbitrary" && p.version.major == 1)
            .map(|p| {
                p.manifest_path
                    .parent()
                    .unwrap()
                    .join("src/unstructured.rs")
            })
            .collect();
        assert!(!sources.is_empty(), "arbitrary 1.x is a dev-dependency");
        for source in sources {
            let text = std::fs::read_to_string(&source).unwrap();
            let out = instrument_unstructured(&text).unwrap();
            assert!(
                out.matches("__cargo_reduce::consumed(").count() >= 3,
                "{source}"
            );
        }
    }
}
