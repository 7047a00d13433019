//! An afl.rs target of the second package, with its own global allocator
//! (as programs that use jemalloc or mimalloc have).
#[global_allocator]
static ALLOCATOR: std::alloc::System = std::alloc::System;

fn main() {
    afl::fuzz!(|data: &[u8]| common::check(data, b"TWO"));
}
