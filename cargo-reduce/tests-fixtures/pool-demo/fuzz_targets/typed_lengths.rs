#![no_main]
// A typed target whose strings take their lengths from the end of the data,
// as `arbitrary` reads them: deleting one byte of `path` re-cuts every field
// after it, so a 1-minimal ddmin stops with bytes of `path` it cannot
// delete alone.
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
pub struct Request {
    path: String,
    verb: u8,
    body: String,
}

fuzz_target!(|r: Request| {
    if r.path.contains("..") && r.body.starts_with("rm") {
        panic!("path traversal");
    }
});
