//! A libFuzzer target that only builds with the `strict` feature, and
//! brings its own global allocator (so the crate is built against the
//! stand-in without one).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[cfg(not(feature = "strict"))]
compile_error!("lf_strict needs the `strict` feature");

#[global_allocator]
static ALLOCATOR: std::alloc::System = std::alloc::System;

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'S') && data.contains(&b'!') {
        panic!("lf_strict rejects a shout");
    }
});
