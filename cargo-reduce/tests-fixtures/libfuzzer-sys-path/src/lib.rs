//! Not the stand-in: building a target against this fails.
pub use arbitrary;

#[macro_export]
macro_rules! fuzz_target {
    ($($anything:tt)*) => {
        compile_error!("the path libfuzzer-sys was built instead of cargo-reduce's stand-in");
    };
}
