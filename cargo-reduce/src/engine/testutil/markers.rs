//! The "keep N marker atoms" oracle, over a candidate's parts so that it
//! copies nothing: the engine's unit tests use it, and so does the engine
//! benchmark (`benches/engine.rs` includes this file), where a copy of a
//! 1 MB candidate per test would swamp the engine's own cost it measures.
//! It depends on nothing but `std`, so that it compiles in both.

/// Whether `parts` (a candidate's slices, as `Candidate::parts` gives
/// them) hold at least `need` atoms that `marked` picks. Monotone: the
/// 1-minimal results are exactly `need` marked atoms.
pub(crate) fn holds_markers<A>(parts: &[&[A]], marked: impl Fn(&A) -> bool, need: usize) -> bool {
    let count = |part: &&[A]| part.iter().filter(|a| marked(a)).count();
    parts.iter().map(count).sum::<usize>() >= need
}
