//! afl.rs 0.5–0.7's `afl::fuzz(hook, closure)` function: panics on input
//! containing `BUG`. (afl.rs 0.4's took only the closure; the test that
//! locks 0.4 rewrites this call.)
fn main() {
    afl::fuzz(true, |data| {
        if data.windows(3).any(|w| w == b"BUG") {
            panic!("bug");
        }
    });
}
