fn main() {
    afl::fuzz!(|data: &[u8]| fuzzing_dependency::check(data));
}
