//! The `fuzz(hook, closure)` function called directly, with IJON
//! annotations (no-ops outside AFL++): panics on `DIRECT`.
fn main() {
    afl::fuzz(true, |data: &[u8]| {
        afl::ijon_max!(data.len() as u64);
        afl::ijon_set!(u32::from(data.first().copied().unwrap_or(0)));
        if data == b"DIRECT" {
            panic!("direct");
        }
    });
}
