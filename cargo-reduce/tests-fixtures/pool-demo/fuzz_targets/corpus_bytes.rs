#![no_main]
// Raw bytes returning Corpus (libfuzzer-sys 0.4.10 and later).
use libfuzzer_sys::{fuzz_target, Corpus};

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.is_empty() {
        return Corpus::Reject;
    }
    assert_ne!(data, b"corpus", "rejected input {:?}", data);
    Corpus::Keep
});
