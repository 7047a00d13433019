#![no_main]
// A typed target with init code, returning Corpus.
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::{fuzz_target, Corpus};

#[derive(Arbitrary, Debug)]
pub struct Command {
    op: u8,
    value: u32,
    name: String,
}

fuzz_target!(init: (), |cmd: Command| -> Corpus {
    if cmd.op == 0 {
        return Corpus::Reject;
    }
    if cmd.op == 42 && cmd.value > 1000 {
        panic!("value {} too large for {:?}", cmd.value, cmd.name);
    }
    Corpus::Keep
});
