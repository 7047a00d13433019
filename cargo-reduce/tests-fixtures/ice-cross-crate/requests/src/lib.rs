//! Requests a service answers, and helpers around them.

/// A request, and the answer it borrows from the service.
pub trait Request {
    /// What the service lends back.
    type Answer<'a>
    where
        Self: 'a;

    /// Handles an answer.
    fn answer(_: Self::Answer<'_>) -> impl Sized;
}

/// A request that only names itself.
pub trait Named {
    /// Its name, for logs.
    fn name(&self) -> &str;
}

/// How many words `text` has.
pub fn words(text: &str) -> usize {
    wording::split(text).count()
}

/// Log lines.
pub mod log {
    /// `message` as one log line.
    pub fn line(message: &str) -> String {
        format!("[requests] {message}")
    }
}
