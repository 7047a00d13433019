/// The version this crate was built as.
pub const VERSION: &str = "0.0.0";
