#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    if data.windows(3).any(|w| w == b"BUG") {
        panic!("bug in process {}", pid > 0);
    }
});
