//! `fuzz!(|data: &[u8]| …)`: panics on `BUG` followed by a byte that says
//! where (the message quotes it).
use afl::fuzz;

fn main() {
    fuzz!(|data: &[u8]| {
        if data.len() >= 4 && &data[..3] == b"BUG" {
            panic!("bug {} at {}", data[3], data.len());
        }
    });
}
