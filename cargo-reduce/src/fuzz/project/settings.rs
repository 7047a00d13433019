//! The settings a fuzz crate keeps beside its targets, in its
//! `Cargo.toml`: `[package.metadata.cargo-reduce]` for every target and
//! `[package.metadata.cargo-reduce.targets.<name>]` for one. A target's
//! own table wins over the package's; the command line wins over both
//! ([`TargetSettings::under`]). An unknown key or value, or a table for a
//! target the package does not have, is an error naming it: a misspelt
//! setting silently ignored would be worse than none.
//!
//! The keys are the options whose meaning belongs to a target (its limits,
//! its build, when two of its failures are one, how its inputs are
//! reduced); the machine's (`-j`), the run's (`--max-time`, `--budget`)
//! and the ddmin variants have none.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::str::FromStr;
use std::time::Duration;

use cargo_metadata::Package;
use serde::{Deserialize, Deserializer};

use super::{DiscoveryError, FuzzTarget};
use crate::fuzz::effort::Effort;
use crate::fuzz::matching::MatchLevel;
use crate::fuzz::sanitizer::Sanitizer;
use crate::syntax::{LangChoice, Strategy};

/// The key under `[package.metadata]`.
const KEY: &str = "cargo-reduce";

/// The key of the per-target tables.
const TARGETS: &str = "targets";

/// The longest duration taken (as the flags'): a year.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// One target's options, each `None` when not given: from its `Cargo.toml`
/// tables, or the command line's (each field is the flag's value).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TargetSettings {
    /// `timeout`: seconds a test may take (`--timeout`).
    pub timeout: Option<Duration>,
    /// `rss-limit-mb`: a worker's memory limit (`--rss-limit-mb`).
    pub rss_limit_mb: Option<u64>,
    /// `sanitizer`: which build reproduces its inputs (`--sanitizer`).
    pub sanitizer: Option<Sanitizer>,
    /// `match`: when two of its failures are one (`--match`).
    pub matching: Option<MatchLevel>,
    /// `lang`: its inputs reduced as source text (`--lang`).
    pub lang: Option<LangChoice>,
    /// `strategy`: the syntax-aware strategy with `lang` (`--strategy`).
    pub strategy: Option<Strategy>,
    /// `effort`: the search past ddmin of a byte reduction (`--effort`).
    pub effort: Option<Effort>,
    /// `slow-unit-secs`: a `slow-unit-*` artifact's threshold
    /// (`--slow-unit-secs`).
    pub slow_unit: Option<Duration>,
}

impl TargetSettings {
    /// These settings where `over` (the command line) leaves a value out.
    pub(crate) fn under(self, over: TargetSettings) -> TargetSettings {
        TargetSettings {
            timeout: over.timeout.or(self.timeout),
            rss_limit_mb: over.rss_limit_mb.or(self.rss_limit_mb),
            sanitizer: over.sanitizer.or(self.sanitizer),
            matching: over.matching.or(self.matching),
            lang: over.lang.or(self.lang),
            strategy: over.strategy.or(self.strategy),
            effort: over.effort.or(self.effort),
            slow_unit: over.slow_unit.or(self.slow_unit),
        }
    }

    /// `--sanitizer`, or its default (`auto`).
    pub(crate) fn sanitizer(&self) -> Sanitizer {
        self.sanitizer.unwrap_or_default()
    }

    /// `--match`, or its default (`stack`).
    pub(crate) fn matching(&self) -> MatchLevel {
        self.matching.unwrap_or_default()
    }

    /// `--effort`, or its default.
    pub(crate) fn effort(&self) -> Effort {
        self.effort.unwrap_or_default()
    }
}

/// One table as written: the package's keys (less `targets`), or a
/// target's.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Table {
    timeout: Option<f64>,
    rss_limit_mb: Option<u64>,
    sanitizer: Option<Sanitizer>,
    #[serde(rename = "match")]
    matching: Option<MatchLevel>,
    #[serde(default, deserialize_with = "parsed")]
    lang: Option<LangChoice>,
    #[serde(default, deserialize_with = "parsed")]
    strategy: Option<Strategy>,
    effort: Option<Effort>,
    slow_unit_secs: Option<f64>,
}

/// A string value read by its type's `FromStr`, as the flag reads it.
fn parsed<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: Display,
{
    let text = String::deserialize(deserializer)?;
    text.parse().map(Some).map_err(serde::de::Error::custom)
}

/// The settings of each of `package`'s targets (keyed by name): its
/// table's over the package's. `names` are every target of the package
/// (of every engine), which the per-target tables must name.
pub(super) fn read(
    package: &Package,
    names: &[&str],
) -> Result<BTreeMap<String, TargetSettings>, DiscoveryError> {
    let manifest = package.manifest_path.as_std_path();
    let Some(value) = package.metadata.get(KEY) else {
        return Ok(BTreeMap::new());
    };
    let error = |table: String, reason: String| DiscoveryError::Settings {
        manifest: manifest.to_path_buf(),
        table,
        reason,
    };
    let package_table = format!("package.metadata.{KEY}");
    let (own, targets) = split_targets(value);
    let targets: BTreeMap<String, serde_json::Value> = BTreeMap::deserialize(targets)
        .map_err(|e| error(format!("{package_table}.{TARGETS}"), e.to_string()))?;
    let defaults = table(&own).map_err(|reason| error(package_table.clone(), reason))?;
    let mut resolved: BTreeMap<String, TargetSettings> =
        names.iter().map(|n| (n.to_string(), defaults)).collect();
    for (name, value) in &targets {
        let table_name = format!("{package_table}.{TARGETS}.{name}");
        let Some(slot) = resolved.get_mut(name) else {
            let known = names.join(", ");
            return Err(error(
                table_name,
                format!("no target `{name}` (targets: {known})"),
            ));
        };
        *slot = defaults.under(table(value).map_err(|r| error(table_name, r))?);
    }
    Ok(resolved)
}

/// The package's table without its `targets`, and `targets` (an empty
/// table when it has none).
fn split_targets(value: &serde_json::Value) -> (serde_json::Value, serde_json::Value) {
    let mut own = value.clone();
    let targets = own
        .as_object_mut()
        .and_then(|table| table.remove(TARGETS))
        .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
    (own, targets)
}

/// Gives each of `targets` its settings from `settings` (read by [`read`]).
pub(super) fn apply(targets: &mut [FuzzTarget], settings: &BTreeMap<String, TargetSettings>) {
    for target in targets {
        target.settings = settings.get(&target.name).copied().unwrap_or_default();
    }
}

/// One table's values, checked.
fn table(value: &serde_json::Value) -> Result<TargetSettings, String> {
    // The key a value of the wrong type is of: serde names only the type.
    let table: Table =
        serde_path_to_error::deserialize(value).map_err(|e| match e.path().iter().next() {
            Some(_) => format!("`{}`: {}", e.path(), e.inner()),
            None => e.inner().to_string(),
        })?;
    Ok(TargetSettings {
        timeout: seconds("timeout", table.timeout)?,
        rss_limit_mb: table.rss_limit_mb,
        sanitizer: table.sanitizer,
        matching: table.matching,
        lang: table.lang,
        strategy: table.strategy,
        effort: table.effort,
        slow_unit: seconds("slow-unit-secs", table.slow_unit_secs)?,
    })
}

/// `key`'s number of seconds, checked as the flags check theirs.
fn seconds(key: &str, secs: Option<f64>) -> Result<Option<Duration>, String> {
    match secs {
        Some(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_SECONDS => {
            Ok(Some(Duration::from_secs_f64(secs)))
        }
        Some(secs) => Err(format!(
            "`{key} = {secs}` is not a positive number of seconds up to a year"
        )),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(metadata: serde_json::Value) -> Package {
        let json = serde_json::json!({
            "name": "fuzz", "version": "0.1.0", "id": "fuzz 0.1.0",
            "dependencies": [], "targets": [], "features": {},
            "manifest_path": "/p/fuzz/Cargo.toml", "metadata": metadata,
        });
        serde_json::from_value(json).expect("a package")
    }

    fn read_line(metadata: serde_json::Value) -> Result<BTreeMap<String, TargetSettings>, String> {
        read(&package(metadata), &["parse", "decode"]).map_err(|e| e.to_string())
    }

    #[test]
    fn a_target_table_wins_over_the_package_table() {
        let read = read_line(serde_json::json!({"cargo-reduce": {
            "timeout": 5, "rss-limit-mb": 4096,
            "targets": {"parse": {"timeout": 0.5}},
        }}))
        .unwrap();
        assert_eq!(read["parse"].timeout, Some(Duration::from_millis(500)));
        assert_eq!(read["parse"].rss_limit_mb, Some(4096));
        assert_eq!(read["decode"].timeout, Some(Duration::from_secs(5)));
    }

    #[test]
    fn the_command_line_wins_over_the_tables() {
        let file = TargetSettings {
            timeout: Some(Duration::from_secs(30)),
            rss_limit_mb: Some(512),
            sanitizer: Some(Sanitizer::None),
            matching: Some(MatchLevel::Kind),
            effort: Some(Effort::Max),
            ..TargetSettings::default()
        };
        let cli = TargetSettings {
            timeout: Some(Duration::from_secs(2)),
            sanitizer: Some(Sanitizer::Address),
            ..TargetSettings::default()
        };
        let resolved = file.under(cli);
        assert_eq!(resolved.timeout, Some(Duration::from_secs(2)));
        assert_eq!(resolved.rss_limit_mb, Some(512));
        assert_eq!(resolved.sanitizer(), Sanitizer::Address);
        assert_eq!(resolved.matching(), MatchLevel::Kind);
        assert_eq!(resolved.effort(), Effort::Max);
        // Neither: the flags' defaults.
        let neither = TargetSettings::default().under(TargetSettings::default());
        assert_eq!(neither.sanitizer(), Sanitizer::Auto);
        assert_eq!(neither.matching(), MatchLevel::Stack);
        assert_eq!(neither.effort(), Effort::Default);
    }

    #[test]
    fn every_key_is_read_with_the_flags_values() {
        let read = read_line(serde_json::json!({"cargo-reduce": {
            "sanitizer": "none", "match": "location", "effort": "quick",
            "slow-unit-secs": 2.5,
            "targets": {"parse": {
                "sanitizer": "address", "match": "kind", "lang": "rust",
                "strategy": "hdd,+squeeze",
            }},
        }}))
        .unwrap();
        let parse = read["parse"];
        assert_eq!(parse.sanitizer, Some(Sanitizer::Address));
        assert_eq!(parse.matching, Some(MatchLevel::Kind));
        assert_eq!(parse.lang, Some(LangChoice::Is(crate::syntax::Lang::Rust)));
        assert_eq!(parse.strategy, Some("hdd,+squeeze".parse().unwrap()));
        assert_eq!(parse.effort, Some(Effort::Quick));
        assert_eq!(parse.slow_unit, Some(Duration::from_millis(2500)));
        let decode = read["decode"];
        assert_eq!(decode.sanitizer, Some(Sanitizer::None));
        assert_eq!(decode.matching, Some(MatchLevel::Location));
        assert_eq!(decode.lang, None);
        let auto = read_line(serde_json::json!({"cargo-reduce": {"lang": "auto"}})).unwrap();
        assert_eq!(auto["decode"].lang, Some(LangChoice::Auto));
    }

    #[test]
    fn a_bad_value_is_an_error_naming_the_key_and_the_values() {
        let bad = |table: serde_json::Value| {
            read_line(serde_json::json!({"cargo-reduce": {"targets": {"parse": table}}}))
                .unwrap_err()
        };
        let line = bad(serde_json::json!({"match": "stak"}));
        assert!(line.contains("unknown variant `stak`"), "{line}");
        assert!(line.contains("`stack`"), "{line}");
        assert!(line.contains("targets.parse]"), "{line}");
        let line = bad(serde_json::json!({"sanitizer": "memory"}));
        assert!(line.contains("`address`"), "{line}");
        let line = bad(serde_json::json!({"effort": "most"}));
        assert!(line.contains("`max`"), "{line}");
        let line = bad(serde_json::json!({"lang": "cobol"}));
        assert!(line.contains("unknown language `cobol`"), "{line}");
        let line = bad(serde_json::json!({"strategy": "hdd,+nope"}));
        assert!(line.contains("hdd,+nope"), "{line}");
        let line = bad(serde_json::json!({"slow-unit-secs": 0}));
        assert!(line.contains("`slow-unit-secs = 0`"), "{line}");
        let line = bad(serde_json::json!({"match": 3}));
        assert!(line.contains("invalid type"), "{line}");
        // helper-57: "expected f64", of no key.
        let line = bad(serde_json::json!({"timeout": "10s"}));
        assert!(line.contains("`timeout`: invalid type"), "{line}");
        let line = read_line(serde_json::json!({"cargo-reduce": {"targets": 3}})).unwrap_err();
        assert!(line.contains(".targets]"), "{line}");
    }

    #[test]
    fn no_table_is_no_settings() {
        let read = read_line(serde_json::json!({"cargo-fuzz": true})).unwrap();
        assert!(read.is_empty());
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_it_and_its_table() {
        let line = read_line(serde_json::json!({"cargo-reduce": {"timout": 5}})).unwrap_err();
        assert!(line.contains("unknown field `timout`"), "{line}");
        assert!(line.contains("[package.metadata.cargo-reduce]"), "{line}");
        assert!(line.contains("/p/fuzz/Cargo.toml"), "{line}");
        let line = read_line(serde_json::json!({"cargo-reduce": {
            "targets": {"parse": {"rss-limit": 5}},
        }}))
        .unwrap_err();
        assert!(line.contains("unknown field `rss-limit`"), "{line}");
        assert!(line.contains("targets.parse]"), "{line}");
    }

    #[test]
    fn a_table_for_no_target_and_a_bad_timeout_are_errors() {
        let line = read_line(serde_json::json!({"cargo-reduce": {
            "targets": {"pasre": {"timeout": 1}},
        }}))
        .unwrap_err();
        assert!(line.contains("no target `pasre`"), "{line}");
        let line = read_line(serde_json::json!({"cargo-reduce": {"timeout": -1}})).unwrap_err();
        assert!(line.contains("not a positive number"), "{line}");
    }
}
