//! afl.rs 0.2–0.9's `read_stdio_bytes`: panics on input starting `OLD`.
fn main() {
    #[allow(deprecated)]
    afl::read_stdio_bytes(|data| {
        if data.starts_with(b"OLD") {
            panic!("old");
        }
    });
}
