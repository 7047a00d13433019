//! The pool's settings as `key = value` lines.

/// How many connections, and how long to wait for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub size: usize,
    pub timeout_ms: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { size: 4, timeout_ms: 500 }
    }
}

impl Settings {
    /// The settings `text` sets over the defaults; `None` on a bad line.
    pub fn parse(text: &str) -> Option<Settings> {
        let mut settings = Settings::default();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (key, value) = line.split_once('=')?;
            match key.trim() {
                "size" => settings.size = value.trim().parse().ok()?,
                "timeout_ms" => settings.timeout_ms = value.trim().parse().ok()?,
                _ => return None,
            }
        }
        Some(settings)
    }
}
