//! A toy connection pool: settings, connection sources and a checkout
//! that warms connections up. Its `pool::checkout` module makes rustc 1.95
//! crash with a message that names an async block by its place in that
//! file, which is what `cargo reduce ice` is tested on.

pub mod config;
pub mod pool;

pub use pool::checkout::warm_up;

/// The pool's settings, read from `text`, or the defaults.
pub fn settings(text: &str) -> config::Settings {
    config::Settings::parse(text).unwrap_or_default()
}
