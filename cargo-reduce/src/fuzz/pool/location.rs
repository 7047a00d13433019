//! How a location (`file:line:column`) is shown: one function that both
//! the failure's text and the call path's file names use.

/// A panic location as people read it: a dependency's file from the
/// crate on (`boa_engine-0.22.0/src/lib.rs:1:2`, not the cargo registry's
/// absolute path), the standard library's from `library/` (not
/// `/rustc/<commit>/`). Matching uses the whole location.
pub(super) fn short_location(location: &str) -> &str {
    if let Some((_, rest)) = location.split_once("/registry/src/") {
        return rest
            .split_once('/')
            .map_or(rest, |(_, crate_path)| crate_path);
    }
    match location.strip_prefix("/rustc/") {
        Some(rest) => rest.split_once('/').map_or(rest, |(_, path)| path),
        None => location,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_read_from_the_crate_or_the_library_on() {
        let registry = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/boa_engine-0.22.0/src/property/mod.rs:257:14";
        assert_eq!(
            short_location(registry),
            "boa_engine-0.22.0/src/property/mod.rs:257:14"
        );
        let std =
            "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/num/mod.rs:418:5";
        assert_eq!(short_location(std), "library/core/src/num/mod.rs:418:5");
        assert_eq!(
            short_location("fuzz_targets/a.rs:1:2"),
            "fuzz_targets/a.rs:1:2"
        );
    }
}
