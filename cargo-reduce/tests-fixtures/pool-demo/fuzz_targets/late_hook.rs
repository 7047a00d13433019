#![no_main]
// A target that installs a panic hook of its own while running its first
// input, one that prints the panic and aborts: that input's panic is not
// recorded by cargo-reduce's hook, and is read from what it printed.
use libfuzzer_sys::fuzz_target;
use std::sync::Once;

static HOOK: Once = Once::new();

fuzz_target!(|data| {
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            eprintln!("{info}");
            std::process::abort();
        }))
    });
    if data.first() == Some(&b'P') {
        panic!("late {}", data.len());
    }
});
