//! Which afl.rs API this stand-in presents: the version cargo-reduce wrote
//! it out as is the version the project locked.

fn main() {
    let part = |name: &str| -> u32 {
        std::env::var(name)
            .ok()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0)
    };
    let (major, minor) = (
        part("CARGO_PKG_VERSION_MAJOR"),
        part("CARGO_PKG_VERSION_MINOR"),
    );
    let before = |m: u32| major == 0 && minor < m;
    // afl.rs 0.8 and 0.9 still had the deprecated `read_stdio_bytes` and
    // `read_stdio_string`.
    if before(10) {
        println!("cargo:rustc-cfg=afl_read_stdio");
    }
    // Before 0.13 typed closures decoded through arbitrary 0.x's
    // `RingBuffer`; since, through arbitrary 1's `Unstructured`.
    if before(13) {
        println!("cargo:rustc-cfg=afl_ring_buffer");
    }
    // `fuzz_with_reset` and its macros since 0.18.
    if !before(18) {
        println!("cargo:rustc-cfg=afl_fuzz_with_reset");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
