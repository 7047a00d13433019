#![no_main]
// Takes source text, like a JavaScript engine target: panics on a call of
// `crash` in a text whose parentheses balance, so only a syntax-aware
// reduction keeps both of them.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let balanced = text.matches('(').count() == text.matches(')').count();
    if balanced && text.contains("crash(") {
        panic!("planted: crash called");
    }
});
