//! `boa_eval` for afl.rs: the input as a classic script in a fresh Boa
//! context, with the same runtime limits as the libFuzzer target of the same
//! name (`fuzz-targets/boa/fuzz_targets/boa_eval.rs`; both run
//! `fuzz-targets/boa/shared/script.rs`).
//!
//! Mutation is AFL++'s own, or protograph's through the custom mutator
//! library `protograph-afl` (`AFL_CUSTOM_MUTATOR_LIBRARY`); the target does
//! not change between the two, which is what `bench/protograph/afl-run`
//! compares:
//!
//! ```sh
//! cargo afl build --release --manifest-path fuzz-targets-afl/boa/Cargo.toml
//! AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/target/release/libprotograph_afl.so \
//!     cargo afl fuzz -i corpus/js/seeds -o out fuzz-targets-afl/boa/target/release/boa_eval
//! ```

use boa_engine::Context;

#[path = "../../../../fuzz-targets/boa/shared/script.rs"]
mod script;

fn main() {
    afl::fuzz!(|data: &[u8]| script::run(&mut Context::default(), data));
}
