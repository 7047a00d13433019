//! The `fuzz(hook, closure)` function called directly, with IJON
//! annotations (no-ops outside AFL++) in the forms afl.rs users write:
//! panics on `DIRECT`.
use afl::{ijon_hashint, ijon_state};

fn main() {
    afl::fuzz(true, |data: &[u8]| {
        afl::ijon_max!(data.len() as u64);
        afl::ijon_set!(u32::from(data.first().copied().unwrap_or(0)));
        // html5gum's form: afl.rs's macro wraps its argument in `unsafe`.
        ijon_state!(ijon_hashint(ijon_hashint(1, 2), data.len() as u32));
        if data == b"DIRECT" {
            panic!("direct");
        }
    });
}
