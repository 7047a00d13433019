//! An app built on `requests`.

mod service;

pub use service::Lookup;

/// How many words the app sees in `text`.
pub fn count(text: &str) -> usize {
    requests::words(text)
}

/// The app's greeting, as a log line.
pub fn greeting() -> String {
    requests::log::line("hello")
}
