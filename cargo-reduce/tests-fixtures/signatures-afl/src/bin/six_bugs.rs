//! The six bugs of `../signatures/bugs.rs` (`src/bugs.rs` links to it), as
//! afl.rs runs them.
#[path = "../bugs.rs"]
mod bugs;

fn main() {
    afl::fuzz!(|data: &[u8]| bugs::run(data));
}
