#![no_main]
// The shortest form: `|data|` means `|data: &[u8]|`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data| {
    if data.starts_with(b"panic") {
        panic!("boom after {} bytes at 0x{:x}", data.len(), data.as_ptr() as usize);
    }
});
