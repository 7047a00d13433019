//! The settings a fuzz crate keeps beside its targets, in its
//! `Cargo.toml`: `[package.metadata.cargo-reduce]` for every target and
//! `[package.metadata.cargo-reduce.targets.<name>]` for one. A target's
//! own table wins over the package's; the command line wins over both
//! (the modes apply [`TargetSettings::under`]). An unknown key, or a
//! table for a target the package does not have, is an error naming it:
//! a misspelt limit silently ignored would be worse than none.

use std::collections::BTreeMap;
use std::time::Duration;

use cargo_metadata::Package;
use serde::Deserialize;

use super::{DiscoveryError, FuzzTarget};

/// The key under `[package.metadata]`.
const KEY: &str = "cargo-reduce";

/// The longest timeout taken (as `--timeout`'s): a year.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// One target's settings (each `None` when neither its table nor the
/// package's sets it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TargetSettings {
    /// `timeout`: seconds a test may take (as `--timeout`).
    pub timeout: Option<Duration>,
    /// `rss-limit-mb`: a worker's memory limit (as `--rss-limit-mb`).
    pub rss_limit_mb: Option<u64>,
}

impl TargetSettings {
    /// These settings where `over` (the command line) leaves a value out.
    pub(crate) fn under(self, over: TargetSettings) -> TargetSettings {
        TargetSettings {
            timeout: over.timeout.or(self.timeout),
            rss_limit_mb: over.rss_limit_mb.or(self.rss_limit_mb),
        }
    }
}

/// One table as written: the package's keys, or a target's.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Table {
    timeout: Option<f64>,
    rss_limit_mb: Option<u64>,
}

/// `[package.metadata.cargo-reduce]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PackageTable {
    timeout: Option<f64>,
    rss_limit_mb: Option<u64>,
    /// Each target's table, read apart so that its errors name it.
    #[serde(default)]
    targets: BTreeMap<String, serde_json::Value>,
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
    let whole: PackageTable = PackageTable::deserialize(value)
        .map_err(|e| error(package_table.clone(), e.to_string()))?;
    let defaults = settings(whole.timeout, whole.rss_limit_mb)
        .map_err(|reason| error(package_table.clone(), reason))?;
    let mut resolved: BTreeMap<String, TargetSettings> =
        names.iter().map(|n| (n.to_string(), defaults)).collect();
    for (name, value) in &whole.targets {
        let table = format!("{package_table}.targets.{name}");
        let Some(slot) = resolved.get_mut(name) else {
            let known = names.join(", ");
            return Err(error(
                table,
                format!("no target `{name}` (targets: {known})"),
            ));
        };
        let own = Table::deserialize(value).map_err(|e| error(table.clone(), e.to_string()))?;
        let own = settings(own.timeout, own.rss_limit_mb).map_err(|r| error(table, r))?;
        *slot = defaults.under(own);
    }
    Ok(resolved)
}

/// Gives each of `targets` its settings from `settings` (read by [`read`]).
pub(super) fn apply(targets: &mut [FuzzTarget], settings: &BTreeMap<String, TargetSettings>) {
    for target in targets {
        target.settings = settings.get(&target.name).copied().unwrap_or_default();
    }
}

/// One table's values, checked.
fn settings(timeout: Option<f64>, rss_limit_mb: Option<u64>) -> Result<TargetSettings, String> {
    let timeout = match timeout {
        Some(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_SECONDS => {
            Some(Duration::from_secs_f64(secs))
        }
        Some(secs) => {
            return Err(format!(
                "`timeout = {secs}` is not a positive number of seconds up to a year"
            ))
        }
        None => None,
    };
    Ok(TargetSettings {
        timeout,
        rss_limit_mb,
    })
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
        };
        let cli = TargetSettings {
            timeout: Some(Duration::from_secs(2)),
            rss_limit_mb: None,
        };
        let resolved = file.under(cli);
        assert_eq!(resolved.timeout, Some(Duration::from_secs(2)));
        assert_eq!(resolved.rss_limit_mb, Some(512));
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
