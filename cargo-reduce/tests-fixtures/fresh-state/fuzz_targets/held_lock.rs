#![no_main]
//! A global tally under a lock, which an input starting with `M` panics
//! while holding: every later test of a process that went on would fail
//! to take the poisoned lock, passing inputs included.
use libfuzzer_sys::fuzz_target;
use std::sync::Mutex;

static TALLY: Mutex<usize> = Mutex::new(0);

fuzz_target!(|data: &[u8]| {
    let mut tally = TALLY.lock().unwrap();
    *tally += data.len();
    if data.first() == Some(&b'M') {
        panic!("panicked holding the lock");
    }
});
