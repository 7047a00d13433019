//! The service's requests.

use requests::{Named, Request};

/// A lookup in the workspace it borrows.
pub struct Lookup<'ws>(pub &'ws ());

impl<'ws> Request for Lookup<'ws> {
    type Answer<'a>
        = u8
    where
        Self: 'a;

    fn answer(_: Self::Answer<'_>) -> impl Sized {}
}

impl Named for Lookup<'_> {
    fn name(&self) -> &str {
        "lookup"
    }
}
