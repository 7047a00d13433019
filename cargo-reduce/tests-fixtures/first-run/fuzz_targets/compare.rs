//! A target whose `assert_eq!` fails on inputs holding `=`: its panic
//! message spans lines (a message of two lines, then `left:` and `right:`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let equals = data.iter().filter(|&&b| b == b'=').count();
    assert_eq!(equals, 0, "the input holds `=`\nwhere no field may");
});
