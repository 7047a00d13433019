//! Where a failure other than a panic happened: what its [`Signature`]'s
//! location and call path hold, per kind, from the stack the worker noted
//! (the harness's `fault_trace`), named like a panic's call path. So two
//! segfaults, aborts, endless loops or recursions in different places of
//! one target are two failures.
//!
//! [`Signature`]: super::Signature

use std::collections::BTreeMap;

use super::call_path::{call_path_of, Symbolizer, UserFrame};
use super::failure::Failure;
use super::protocol::split_panic_text;

/// How a kind's stack becomes a location and a call path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A fault, an abort, an allocation over the malloc limit: the
    /// `file:line:column` of the innermost frame of the user's code (the
    /// faulting line, or the call into the runtime that aborted), and the
    /// call path.
    Line,
    /// A test killed for its time or memory, whose stack was taken just
    /// before: the innermost function of the user's code, by name only (a
    /// loop's line changes from one moment to the next), and the call path.
    Function,
    /// A stack overflow: the user's functions that recur on the stack,
    /// sorted (a recursion can overflow anywhere in its cycle), as the
    /// location; the call path stays empty.
    Recursion,
}

impl Failure {
    /// This failure, placed by the stack a worker noted (`text`, as the
    /// harness's `frames_text` writes it) as `place` says; unchanged
    /// without `symbols`.
    pub(crate) fn placed(
        mut self,
        place: Place,
        text: &[u8],
        symbols: Option<&mut Symbolizer>,
    ) -> Failure {
        if let Some(symbols) = symbols {
            let frames = symbols.user_frames(&split_panic_text(text).frames);
            (self.location, self.call_path) = locate(place, &frames);
        }
        self
    }
}

/// The location and call path of a stack whose user frames (innermost
/// first) are `frames`.
fn locate(place: Place, frames: &[UserFrame]) -> (Option<String>, Vec<String>) {
    let path = || call_path_of(frames.iter().map(|f| f.function.as_str()));
    match place {
        Place::Line => (frames.first().and_then(|f| f.location.clone()), path()),
        Place::Function => {
            let functions = enclosing_functions(frames);
            let first = functions.first().cloned();
            (first, call_path_of(functions.iter().map(String::as_str)))
        }
        Place::Recursion => (recursion(frames), Vec::new()),
    }
}

/// The stack common to several samples of one endless test (return
/// addresses, innermost first, as the harness notes them): a sample from
/// its innermost frame in the innermost function that every sample is in.
/// A loop that calls other functions may be in one of them or in itself
/// at any one moment; the loop itself is in every sample, so the hang is
/// placed by it however the samples fall. The samples are not lined up
/// frame by frame: a deep stack's note leaves out its middle, a different
/// number of frames in each sample. A callee inlined into the loop shares
/// its addresses, so a sample taken in the callee cannot be cut down to
/// the loop: the first sample that was in the loop's own code is taken.
/// A sample with no function of the user's (one the unwinder could not
/// walk) says nothing of where the loop is, and is left out.
pub(crate) fn common_stack(samples: &[Vec<u64>], symbols: &mut Symbolizer) -> Vec<u64> {
    let functions: Vec<Vec<String>> = samples
        .iter()
        .map(|sample| enclosing_functions(&symbols.user_frames(sample)))
        .collect();
    let shared = innermost_shared(&functions).cloned();
    let walked: Vec<&[u64]> = samples
        .iter()
        .zip(&functions)
        .filter(|(_, functions)| !functions.is_empty())
        .map(|(sample, _)| sample.as_slice())
        .collect();
    let Some(shared) = shared else {
        // No function in every sample: down to no function of the user's.
        let first = walked
            .first()
            .copied()
            .or(samples.first().map(Vec::as_slice));
        let first = first.unwrap_or_default();
        let rest = (0..first.len())
            .map(|skip| &first[skip..])
            .find(|rest| symbols.user_frames(rest).is_empty());
        return rest.unwrap_or_default().to_vec();
    };
    let innermost = |rest: &[u64], symbols: &mut Symbolizer| {
        enclosing_functions(&symbols.user_frames(rest))
            .first()
            .cloned()
    };
    let suffixes = || {
        walked
            .iter()
            .flat_map(|sample| (0..sample.len()).map(move |skip| &sample[skip..]))
    };
    if let Some(rest) = suffixes().find(|rest| innermost(rest, symbols).as_ref() == Some(&shared)) {
        return rest.to_vec();
    }
    // Every sample in a callee inlined into the shared function: the first
    // from the frame that holds both.
    let first = walked[0];
    let holds =
        |skip: &usize| enclosing_functions(&symbols.user_frames(&first[*skip..])).contains(&shared);
    let skip = (0..first.len()).rev().find(holds).unwrap_or(0);
    first[skip..].to_vec()
}

/// The innermost function of the first of `stacks` (innermost first)
/// that every one of them holds, the empty ones left out.
fn innermost_shared(stacks: &[Vec<String>]) -> Option<&String> {
    let walked: Vec<&Vec<String>> = stacks.iter().filter(|s| !s.is_empty()).collect();
    let (first, others) = walked.split_first()?;
    first
        .iter()
        .find(|function| others.iter().all(|stack| stack.contains(function)))
}

/// The functions of `frames`, innermost first, each closure named by the
/// function it is written in and each function once in a row: a test
/// stopped in a loop may be in the loop's closure (an iterator adapter's)
/// or in the function itself from one moment to the next, and both are
/// the same place.
fn enclosing_functions(frames: &[UserFrame]) -> Vec<String> {
    let mut functions: Vec<String> = Vec::new();
    for frame in frames {
        let mut name = frame.function.as_str();
        while let Some(outer) = name.strip_suffix("::{{closure}}") {
            name = outer;
        }
        if functions.last().is_none_or(|last| last != name) {
            functions.push(name.to_string());
        }
    }
    functions
}

/// The functions that occur more than once in `frames`, sorted and
/// joined by `, `; the innermost one when none does (one frame too large
/// for the stack).
fn recursion(frames: &[UserFrame]) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for frame in frames {
        *counts.entry(&frame.function).or_default() += 1;
    }
    let recurring: Vec<&str> = counts
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(name, _)| name)
        .collect();
    if recurring.is_empty() {
        return frames.first().map(|f| f.function.clone());
    }
    Some(recurring.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(names: &[&str]) -> Vec<UserFrame> {
        let at = |(i, name): (usize, &&str)| UserFrame {
            function: name.to_string(),
            location: Some(format!("src/a.rs:{i}:5")),
        };
        names.iter().enumerate().map(at).collect()
    }

    /// A mutual recursion is the same wherever in its cycle it overflows;
    /// the frames below it (who called it) do not count.
    #[test]
    fn a_recursion_is_its_recurring_functions() {
        let one = frames(&["demo::even", "demo::odd", "demo::even", "demo::odd"]);
        let other = frames(&[
            "demo::odd",
            "demo::even",
            "demo::odd",
            "demo::even",
            "demo::run",
        ]);
        assert_eq!(
            locate(Place::Recursion, &one),
            (Some("demo::even, demo::odd".into()), Vec::new())
        );
        assert_eq!(
            locate(Place::Recursion, &one),
            locate(Place::Recursion, &other)
        );
        let deep = frames(&["demo::big", "demo::run"]);
        assert_eq!(recursion(&deep).as_deref(), Some("demo::big"));
    }

    #[test]
    fn faults_are_placed_by_line_and_timeouts_by_function() {
        let stack = frames(&["demo::write", "demo::parse", "demo::run", "demo::main"]);
        let path: Vec<String> = ["demo::write", "demo::parse", "demo::run"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            locate(Place::Line, &stack),
            (Some("src/a.rs:0:5".into()), path.clone())
        );
        assert_eq!(
            locate(Place::Function, &stack),
            (Some("demo::write".into()), path)
        );
        assert_eq!(locate(Place::Line, &[]), (None, Vec::new()));
    }

    /// Samples of a loop that calls a helper share the loop, whichever
    /// sample was in the helper, and however many frames of a deep
    /// recursion below it each sample's note left out.
    #[test]
    fn samples_share_their_innermost_common_function() {
        let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let in_helper = names(&["demo::step", "demo::spin", "demo::run"]);
        let in_loop = names(&["demo::spin", "demo::run"]);
        let elsewhere = names(&["demo::other", "demo::run"]);
        let shared = |stacks: &[Vec<String>]| innermost_shared(stacks).cloned();
        let spin = Some("demo::spin".to_string());
        assert_eq!(shared(&[in_helper.clone(), in_loop.clone()]), spin);
        assert_eq!(shared(&[in_loop.clone(), in_helper.clone()]), spin);
        let step = Some("demo::step".to_string());
        assert_eq!(shared(&[in_helper.clone(), in_helper.clone()]), step);
        let three = [in_helper.clone(), in_loop.clone(), elsewhere];
        assert_eq!(shared(&three), Some("demo::run".to_string()));
        assert_eq!(shared(&[]), None);
        let gapped_helper = names(&["d::step", "d::spin", "d::v", "d::i", "d::a", "d::run"]);
        let gapped_loop = names(&["d::spin", "d::v", "d::i", "d::a", "d::v", "d::run"]);
        let gapped = shared(&[gapped_helper, gapped_loop]);
        assert_eq!(gapped.as_deref(), Some("d::spin"));
        // A sample the unwinder could not walk (no function of the user's)
        // leaves the others' common part as it was.
        let unwalked = [Vec::new(), in_helper, Vec::new(), in_loop];
        assert_eq!(shared(&unwalked), spin);
        assert_eq!(shared(&[Vec::new()]), None);
    }

    /// A loop stopped in its closure or in its function is one place
    /// (seen on a timeout whose stack was taken at either moment).
    #[test]
    fn a_timeout_in_a_closure_is_placed_by_its_function() {
        let in_closure = frames(&[
            "demo::wait_ready::{{closure}}",
            "demo::wait_ready",
            "demo::run",
            "demo::main::{{closure}}",
        ]);
        let in_function = frames(&["demo::wait_ready", "demo::run", "demo::main::{{closure}}"]);
        let placed = locate(Place::Function, &in_closure);
        assert_eq!(placed, locate(Place::Function, &in_function));
        assert_eq!(
            placed,
            (
                Some("demo::wait_ready".into()),
                ["demo::wait_ready", "demo::run", "demo::main"]
                    .map(String::from)
                    .to_vec()
            )
        );
    }
}
