//! Which afl.rs API this stand-in presents: the version cargo-reduce wrote
//! it out as is the version the project locked.

fn main() {
    let minor: u32 = std::env::var("CARGO_PKG_VERSION_MINOR")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    let major: u32 = std::env::var("CARGO_PKG_VERSION_MAJOR")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    let at_least = |m: u32| major > 0 || minor >= m;
    // `fuzz(hook, closure)` since afl.rs 0.11; `fuzz(closure)` before.
    if at_least(11) {
        println!("cargo:rustc-cfg=afl_fuzz_takes_hook");
    }
    // `fuzz_with_reset` since 0.18.
    if at_least(18) {
        println!("cargo:rustc-cfg=afl_fuzz_with_reset");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
