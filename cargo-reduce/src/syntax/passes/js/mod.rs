//! The passes for JavaScript only:
//!
//! - [`calls`]: a call replaced by the body of the function it calls.

pub(super) mod calls;
