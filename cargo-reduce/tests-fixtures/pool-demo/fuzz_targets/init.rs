#![no_main]
// `init:` code runs once, before the first input, in the test thread.
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();

fuzz_target!(
    init: {
        if std::env::var_os("POOL_DEMO_INIT_PANIC").is_some() {
            panic!("init asked to fail");
        }
        WORDS.set(vec!["init", "fini"]).unwrap();
    },
    |data| {
        let words = WORDS.get().expect("init code ran");
        if words.iter().any(|w| data.starts_with(w.as_bytes())) {
            panic!("starts with a word");
        }
    }
);
