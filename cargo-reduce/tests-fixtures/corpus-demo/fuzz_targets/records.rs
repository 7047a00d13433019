#![no_main]
// Records `KIND:VALUE;`: each kind takes its own branch, a number's digits
// loop (hit counts), and `boom` panics.
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fn record(kind: &[u8], value: &[u8]) -> u64 {
    match kind {
        b"num" => value
            .iter()
            .filter(|b| b.is_ascii_digit())
            .fold(0u64, |n, d| n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'))),
        b"text" => value.iter().filter(|b| b.is_ascii_alphabetic()).count() as u64,
        b"flag" if value == b"on" => 1,
        b"flag" => 0,
        b"boom" => panic!("boom record {:?}", value),
        _ => u64::MAX,
    }
}

fuzz_target!(|data: &[u8]| {
    for item in data.split(|&b| b == b';') {
        if let Some(colon) = item.iter().position(|&b| b == b':') {
            black_box(record(&item[..colon], &item[colon + 1..]));
        }
    }
});
