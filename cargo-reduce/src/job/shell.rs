//! Command lines as a user types them in a POSIX shell: the ICE report's
//! rustc command, the `cargo reduce run …` a reduction prints.

use std::path::Path;

/// `word` as a shell reads it: bare when it can be.
pub(crate) fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_=./,:+@%".contains(c);
    match !word.is_empty() && word.chars().all(plain) {
        true => word.to_string(),
        false => shlex::try_quote(word).map_or(word.to_string(), |q| q.into_owned()),
    }
}

/// `words` as one command line, each [`quoted`].
pub(crate) fn line<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words
        .into_iter()
        .map(|w| quoted(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `cargo reduce run` command line for `file`, an input of fuzz target
/// `target`, as a reduction prints it: `--manifest-path` when the run had
/// one, `--fuzz-target` always (a result may lie outside the target's
/// `artifacts/<target>/`, under `--out-dir` or beside a named input).
pub(crate) fn run_command(manifest_path: Option<&Path>, target: &str, file: &Path) -> String {
    let mut words = vec!["cargo".to_string(), "reduce".into(), "run".into()];
    if let Some(manifest) = manifest_path {
        words.push("--manifest-path".into());
        words.push(manifest.to_string_lossy().into_owned());
    }
    words.extend(["--fuzz-target".into(), target.to_string()]);
    words.push(file.to_string_lossy().into_owned());
    line(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_words_a_shell_would_split_are_quoted() {
        assert_eq!(quoted("cfg(a, b)"), "'cfg(a, b)'");
        assert_eq!(quoted("--fuzz-target=x"), "--fuzz-target=x");
        assert_eq!(quoted(""), "''");
        assert_eq!(line(["a b", "c"]), "'a b' c");
    }

    #[test]
    fn the_printed_command_names_the_target_and_the_users_manifest() {
        assert_eq!(
            run_command(
                None,
                "parse",
                Path::new("/p/fuzz/artifacts/parse/minimized-from-crash-1")
            ),
            "cargo reduce run --fuzz-target parse /p/fuzz/artifacts/parse/minimized-from-crash-1"
        );
        assert_eq!(
            run_command(
                Some(Path::new("my project/fuzz/Cargo.toml")),
                "parse",
                Path::new("out/x y")
            ),
            "cargo reduce run --manifest-path 'my project/fuzz/Cargo.toml' --fuzz-target parse 'out/x y'"
        );
    }
}
