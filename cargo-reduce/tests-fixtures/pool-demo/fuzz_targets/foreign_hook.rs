#![no_main]
// A target that installs a panic hook of its own in its init code (to
// print, as some do): its panics still fail with their location.
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: {
        std::panic::set_hook(Box::new(|info| eprintln!("custom hook: {info}")));
    },
    |data| {
        if data.first() == Some(&b'P') {
            panic!("foreign {}", data.len());
        }
    }
);
