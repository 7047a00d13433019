//! Not the stand-in: building a target against this fails.
pub use arbitrary;

#[macro_export]
macro_rules! fuzz_target {
    ($($anything:tt)*) => {
        compile_error!("the git libfuzzer-sys 0.1 was built instead of cargo-reduce's stand-in");
    };
}
