//! ClusterFuzz (OSS-Fuzz) testcases name their fuzz target:
//! `clusterfuzz-testcase-minimized-<target>-<id>`, or without
//! `minimized-`. `cargo reduce FILE` and `ci` read the target from it.

/// How every testcase's file name begins (OSS-Fuzz's and
/// ClusterFuzzLite's reports).
pub(crate) const PREFIX: &str = "clusterfuzz-testcase-";

/// The target a testcase's file `name` gives: the longest of `targets`
/// that fits; `None` for a name of another form.
pub(crate) fn target_of<'t>(name: &str, targets: &[&'t str]) -> Option<&'t str> {
    let rest = name.strip_prefix(PREFIX)?;
    let rest = rest.strip_prefix("minimized-").unwrap_or(rest);
    targets
        .iter()
        .filter(|t| {
            rest.strip_prefix(**t)
                .is_some_and(|after| after.is_empty() || after.starts_with('-'))
        })
        .max_by_key(|t| t.len())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn testcase_names_give_their_target() {
        let targets = ["parse", "parse_json", "lex"];
        let target = |name| target_of(name, &targets);
        assert_eq!(
            target("clusterfuzz-testcase-minimized-parse_json-5712345"),
            Some("parse_json")
        );
        assert_eq!(target("clusterfuzz-testcase-parse-1"), Some("parse"));
        assert_eq!(target("clusterfuzz-testcase-lexer-1"), None);
        assert_eq!(target("crash-parse-1"), None);
    }
}
