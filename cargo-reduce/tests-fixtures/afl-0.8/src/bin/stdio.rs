//! afl.rs 0.8's deprecated `read_stdio_bytes`: panics on `BAD`.
fn main() {
    #[allow(deprecated)]
    afl::read_stdio_bytes(|data| {
        if data.starts_with(b"BAD") {
            panic!("bad");
        }
    });
}
