//! The regression ledger: `<fuzz dir>/regressions/<target>/`, one input
//! per failure signature, named after the signature id and the input's
//! content (`<id>-<hash>`), beside a JSON sidecar (`<id>-<hash>.json`)
//! that says what it fails with. Writes are atomic and deterministic (the
//! same entry is the same bytes), so a run that finds nothing new changes
//! no file; committing the folder is the user's choice.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Exit};
use crate::fuzz::pool::{portable_location, FailureKind, MessageForm, Signature};
pub(crate) use crate::fuzz::project::ledger_dir;
use crate::fuzz::project::LEDGER_DIR;
use crate::output::write_if_changed;

/// Where `--prune-fixed` moves an entry, inside its target's folder.
pub(crate) const FIXED_DIR: &str = "fixed";
const SIDECAR_EXTENSION: &str = "json";

/// What an entry's sidecar records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sidecar {
    /// The signature's short id, at the `match` level.
    pub id: String,
    /// The `--match` level the entry was filed at.
    #[serde(rename = "match")]
    pub matching: String,
    /// The signature, as reports show it.
    pub signature: String,
    /// Its kind's tag (`panic`, `signal-6`, …).
    pub kind: String,
    /// A panic's `file:line:col`.
    pub location: Option<String>,
    /// A panic's call path, innermost first.
    pub call_path: Vec<String>,
    /// A panic's message, normalized.
    pub message: Option<String>,
    /// The file name of the input it was minimized from.
    pub original: String,
    /// A typed target's value, as its `Debug` form.
    pub debug: Option<String>,
    /// Whether the input is 1-minimal (false: a budget cut it short; a
    /// later run finishes it).
    pub minimal: bool,
    /// The cargo-reduce that wrote it.
    pub tool: String,
    /// How `message` was normalized ([`MessageForm`]'s number; entries
    /// before it have none: form 1).
    #[serde(default = "first_message_form")]
    pub message_form: u32,
}

fn first_message_form() -> u32 {
    MessageForm::BlankAllDigits as u32
}

impl Sidecar {
    /// The form its message was normalized in (an unknown, later one is
    /// taken as this cargo-reduce's).
    pub(crate) fn message_form(&self) -> MessageForm {
        MessageForm::from_number(self.message_form).unwrap_or(MessageForm::CURRENT)
    }

    /// The signature it records, for matching at any level (an absolute
    /// location, as entries before [`portable_location`] have for the
    /// files of a path dependency, read as it is now written).
    pub(crate) fn signature(&self) -> Option<Signature> {
        Some(Signature {
            kind: FailureKind::from_tag(&self.kind)?,
            location: self.location.clone().map(portable_location),
            call_path: self.call_path.clone(),
            message: self.message.clone(),
        })
    }
}

/// One entry: its input and what it fails with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The input file.
    pub input: PathBuf,
    /// Its sidecar.
    pub sidecar: Sidecar,
}

fn sidecar_path(input: &Path) -> PathBuf {
    let mut name = input.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{SIDECAR_EXTENSION}"));
    input.with_file_name(name)
}

/// An entry's file name: the signature id and the content hash.
pub(crate) fn entry_name(id: &str, bytes: &[u8]) -> String {
    format!("{id}-{}", super::content_hash(bytes))
}

/// The entries in `dir` (a target's folder; none if it is missing). A
/// sidecar that does not parse, or an input without one, is an error that
/// names the file: nothing is guessed, nothing is removed.
pub(crate) fn load(dir: &Path) -> Result<Vec<Entry>, Error> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(read_error(dir, e)),
    };
    let mut inputs = Vec::new();
    for entry in listing {
        let path = entry.map_err(|e| read_error(dir, e))?.path();
        let is_sidecar = path.extension().is_some_and(|e| e == SIDECAR_EXTENSION);
        if path.is_file() && !is_sidecar && !is_temporary(&path) {
            inputs.push(path);
        }
    }
    inputs.sort();
    inputs.into_iter().map(read_entry).collect()
}

fn is_temporary(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(".cargo-reduce-"))
}

fn read_entry(input: PathBuf) -> Result<Entry, Error> {
    let path = sidecar_path(&input);
    let text = fs::read_to_string(&path).map_err(|e| {
        let hint = "move the input to the target's artifacts folder (`cargo reduce ci --update` files it again) or delete it";
        let (input, path) = (input.display(), path.display());
        match e.kind() {
            io::ErrorKind::NotFound => Error::new(
                Exit::BadInput,
                format!("ledger input `{input}` has no sidecar `{path}`; {hint}"),
            ),
            _ => Error::caused_with_hint(
                Exit::BadInput,
                format!("ledger input `{input}` has an unreadable sidecar `{path}`"),
                e,
                hint,
            ),
        }
    })?;
    let sidecar: Sidecar = serde_json::from_str(&text).map_err(|e| {
        Error::caused_with_hint(
            Exit::BadInput,
            format!("corrupt ledger sidecar `{}`", path.display()),
            e,
            format!(
                "restore it (git checkout) or delete it with its input `{}`",
                input.display()
            ),
        )
    })?;
    if sidecar.signature().is_none() {
        return Err(Error::new(
            Exit::BadInput,
            format!(
                "corrupt ledger sidecar `{}`: unknown kind `{}`; restore it (git checkout) or delete it with its input",
                path.display(),
                sidecar.kind
            ),
        ));
    }
    Ok(Entry { input, sidecar })
}

fn read_error(dir: &Path, e: io::Error) -> Error {
    Error::caused(
        Exit::BadInput,
        format!("cannot read ledger folder `{}`", dir.display()),
        e,
    )
}

/// The folders of `<fuzz dir>/regressions/` that name none of `targets`.
pub(crate) fn strays(fuzz_dir: &Path, targets: &[&str]) -> Vec<PathBuf> {
    let Ok(listing) = fs::read_dir(fuzz_dir.join(LEDGER_DIR)) else {
        return Vec::new();
    };
    let mut strays: Vec<PathBuf> = listing
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            !targets.contains(&name.as_ref())
        })
        .collect();
    strays.sort();
    strays
}

/// Fails unless entries can be written into `dir`: checked before
/// anything runs, so a read-only ledger is found at once. Nothing is
/// created (a target's folder is made when its first entry is filed).
pub(crate) fn check_writable(dir: &Path) -> Result<(), Error> {
    let error = |e: io::Error| {
        Error::caused_with_hint(
            Exit::Usage,
            format!("cannot write the regression ledger `{}`", dir.display()),
            e,
            "check its permissions, or run without --update",
        )
    };
    crate::output::check_folder(dir).map_err(error)
}

/// Writes an entry (input and sidecar, each atomically) into `dir`; an
/// entry with the same name and bytes is left as it is.
pub(crate) fn write(dir: &Path, name: &str, bytes: &[u8], sidecar: &Sidecar) -> io::Result<Entry> {
    let input = dir.join(name);
    let mut text = serde_json::to_string_pretty(sidecar).map_err(io::Error::other)?;
    text.push('\n');
    write_if_changed(&input, bytes)?;
    write_if_changed(&sidecar_path(&input), text.as_bytes())?;
    Ok(Entry {
        input,
        sidecar: sidecar.clone(),
    })
}

/// The sidecar of the entry whose input is `input`, if it reads.
pub(crate) fn read_sidecar(input: &Path) -> Option<Sidecar> {
    serde_json::from_slice(&fs::read(sidecar_path(input)).ok()?).ok()
}

/// Removes the entry whose input is `input` (its input and sidecar), as
/// when a better input of the same failure replaces it.
pub(crate) fn remove(input: &Path) -> io::Result<()> {
    fs::remove_file(sidecar_path(input))?;
    fs::remove_file(input)
}

/// Moves the entry whose input is `input` into its folder's `fixed/`
/// (`--prune-fixed`); returns the input's new path.
pub(crate) fn prune(input: &Path) -> io::Result<PathBuf> {
    let dir = input.parent().unwrap_or(Path::new(".")).join(FIXED_DIR);
    fs::create_dir_all(&dir)?;
    let moved = dir.join(input.file_name().unwrap_or_default());
    fs::rename(sidecar_path(input), sidecar_path(&moved))?;
    fs::rename(input, &moved)?;
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sidecar(id: &str) -> Sidecar {
        Sidecar {
            id: id.into(),
            matching: "stack".into(),
            signature: "panic at a.rs:1:2 (in demo::f)".into(),
            kind: "panic".into(),
            location: Some("a.rs:1:2".into()),
            call_path: vec!["demo::f".into()],
            message: Some("bad _".into()),
            original: "crash-1".into(),
            debug: None,
            minimal: true,
            tool: "cargo-reduce test".into(),
            message_form: MessageForm::CURRENT as u32,
        }
    }

    #[test]
    fn entries_round_trip_and_rewrite_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let name = entry_name("0badcafe", b"AB");
        let written = write(dir.path(), &name, b"AB", &sidecar("0badcafe")).unwrap();
        let before = fs::metadata(sidecar_path(&written.input))
            .unwrap()
            .modified()
            .unwrap();
        write(dir.path(), &name, b"AB", &sidecar("0badcafe")).unwrap();
        let after = fs::metadata(sidecar_path(&written.input))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after, "the same entry is not written again");
        assert_eq!(load(dir.path()).unwrap(), vec![written.clone()]);
        assert_eq!(
            written.sidecar.signature().unwrap().kind,
            FailureKind::Panic
        );
        let moved = prune(&written.input).unwrap();
        assert!(moved.ends_with(format!("fixed/{name}")));
        assert!(load(dir.path()).unwrap().is_empty(), "fixed/ is not read");
    }

    #[test]
    fn writability_is_checked_without_making_folders() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("regressions/t");
        check_writable(&ledger).unwrap();
        assert!(!dir.path().join("regressions").exists(), "nothing made");
        std::fs::write(dir.path().join("regressions"), "a file").unwrap();
        let error = check_writable(&ledger).unwrap_err();
        assert_eq!(error.exit(), Exit::Usage);
        assert!(
            error
                .line()
                .starts_with("cannot write the regression ledger `"),
            "{}",
            error.line()
        );
        std::fs::remove_file(dir.path().join("regressions")).unwrap();
        std::fs::create_dir(dir.path().join("regressions")).unwrap();
        std::fs::write(&ledger, "a file").unwrap();
        let error = check_writable(&ledger).unwrap_err();
        assert!(error.line().contains("is not a folder"), "{}", error.line());
        assert!(
            error
                .line()
                .ends_with("; check its permissions, or run without --update"),
            "{}",
            error.line()
        );
        let cause = std::error::Error::source(&error).and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(
            cause.map(io::Error::kind),
            Some(io::ErrorKind::NotADirectory)
        );
    }

    #[test]
    fn a_corrupt_sidecar_or_a_lone_input_is_named() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x"), b"input").unwrap();
        let lone = load(dir.path()).unwrap_err();
        assert!(lone.line().contains("has no sidecar"), "{}", lone.line());
        fs::write(dir.path().join("x.json"), b"{ not json").unwrap();
        let corrupt = load(dir.path()).unwrap_err();
        assert_eq!(corrupt.exit(), Exit::BadInput);
        assert!(corrupt.line().starts_with("corrupt ledger sidecar `"));
        let hint = format!(
            "; restore it (git checkout) or delete it with its input `{}`",
            dir.path().join("x").display()
        );
        assert!(corrupt.line().ends_with(&hint), "{}", corrupt.line());
        let cause = std::error::Error::source(&corrupt).expect("the JSON error is the source");
        assert!(cause.is::<serde_json::Error>());
        assert!(fs::read(dir.path().join("x")).is_ok(), "nothing removed");
    }
}
