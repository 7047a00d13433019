//! Exits with status 3 on input that contains `EXIT`.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data.windows(4).any(|w| w == b"EXIT") {
            std::process::exit(3);
        }
    });
}
