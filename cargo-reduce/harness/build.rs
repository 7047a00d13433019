//! Which API a stand-in presents (shared by both stand-ins): the version
//! cargo-reduce wrote it out as is the version the project locked, so the
//! `cfg`s below pick the forms that release had.

fn main() {
    let part = |name: &str| -> u32 {
        std::env::var(name)
            .ok()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0)
    };
    let (major, minor, patch) = (
        part("CARGO_PKG_VERSION_MAJOR"),
        part("CARGO_PKG_VERSION_MINOR"),
        part("CARGO_PKG_VERSION_PATCH"),
    );
    let before = |m: u32, p: u32| major == 0 && (minor, patch) < (m, p);
    let cfgs: &[(&str, bool)] = match std::env::var("CARGO_PKG_NAME").as_deref() {
        Ok("afl") => &[
            // afl.rs 0.8 and 0.9 still had the deprecated `read_stdio_bytes`
            // and `read_stdio_string`.
            ("afl_read_stdio", before(10, 0)),
            // Before 0.5 `fuzz` took only the closure (its panic hook was
            // always on).
            ("afl_fuzz_one_arg", before(5, 0)),
            // Before 0.13 typed closures decoded through arbitrary 0.x's
            // `RingBuffer`; since, through arbitrary 1's `Unstructured`.
            ("afl_ring_buffer", before(13, 0)),
            // `fuzz_with_reset` and its macros since 0.18.
            ("afl_fuzz_with_reset", !before(18, 0)),
        ],
        // libfuzzer-sys 0.2.x and 0.3.0 (arbitrary 0.3 and 0.4) decode
        // inputs shorter than the type's size hint; 0.3.1 and later
        // reject them first.
        // libfuzzer-sys 0.1.x (arbitrary 0.1 and 0.2) decodes typed
        // inputs from a `RingBuffer`, and its targets need no `Debug`.
        _ => &[
            ("libfuzzer_sys_no_size_check", before(3, 1)),
            ("libfuzzer_sys_ring_buffer", before(2, 0)),
        ],
    };
    for (cfg, on) in cfgs {
        if *on {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    // The coverage builds compile this crate through a rustc wrapper
    // (cargo-reduce's `fuzz/standin/sancov_exempt.rs`), which cargo's
    // fingerprint does not see: the wrapper's hash, set here, rebuilds it
    // when the wrapper changes.
    println!("cargo:rerun-if-env-changed=CARGO_REDUCE_SANCOV_EXEMPT");
}
