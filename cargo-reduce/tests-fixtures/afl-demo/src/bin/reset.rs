//! `fuzz_with_reset!`: the reset closure runs after each input, so state
//! from one input never leaks into the next. The target panics if it sees
//! state left over.
use std::sync::Mutex;

static SEEN: Mutex<Option<Vec<u8>>> = Mutex::new(None);

fn main() {
    afl::fuzz_with_reset!(
        |data: &[u8]| {
            let mut seen = SEEN.lock().unwrap();
            assert!(seen.is_none(), "state left over from {:?}", seen);
            *seen = Some(data.to_vec());
            drop(seen);
            if data == b"R" {
                panic!("R");
            }
        },
        || {
            *SEEN.lock().unwrap() = None;
        }
    );
}
