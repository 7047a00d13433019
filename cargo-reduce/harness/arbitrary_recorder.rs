//! cargo-reduce's record of what decoding an input drew from it.
//!
//! Not part of `arbitrary`: cargo-reduce adds this module to the copy of
//! the locked `arbitrary` it builds fuzz targets against, and routes every
//! change of `Unstructured`'s data through [`consumed`] and [`length`].
//! Nothing is recorded unless the stand-in for the fuzz engine asked for it
//! ([`begin`]), so a normal test pays one thread-local check per read.
//!
//! The record is text, one draw per line: `<kind> <start> <len>`, and for a
//! length ` <value>`; kinds are `L` (a length, from the back), `R`
//! (`int_in_range`), `F` (`fill_buffer`) and `B` (`bytes`).

use std::cell::RefCell;
use std::fmt::Write;

/// The recording under way: the input's address range and the draws so far.
struct Recording {
    base: usize,
    len: usize,
    text: String,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = RefCell::new(None);
}

/// Starts recording the draws taken from `input` on this thread.
pub fn begin(input: &[u8]) {
    let recording = Recording {
        base: input.as_ptr() as usize,
        len: input.len(),
        text: String::new(),
    };
    RECORDING.with(|r| *r.borrow_mut() = Some(recording));
}

/// Stops recording; the draws since [`begin`], if it was called.
pub fn finish() -> Option<String> {
    RECORDING.with(|r| r.borrow_mut().take().map(|r| r.text))
}

/// `Unstructured`'s data went from `old` to `new` in a read of `kind`:
/// records the bytes taken from the front, and returns `new`.
pub(crate) fn consumed<'a>(kind: char, old: &'a [u8], new: &'a [u8]) -> &'a [u8] {
    RECORDING.with(|r| {
        if let Some(recording) = r.borrow_mut().as_mut() {
            recording.note(kind, old, new, None);
        }
    });
    new
}

/// `arbitrary_byte_size` read `value` and left `new` of `old`: records the
/// length and the bytes it took from the back.
pub(crate) fn length(old: &[u8], new: &[u8], value: usize) {
    RECORDING.with(|r| {
        if let Some(recording) = r.borrow_mut().as_mut() {
            recording.note('L', old, new, Some(value));
        }
    });
}

impl Recording {
    fn note(&mut self, kind: char, old: &[u8], new: &[u8], value: Option<usize>) {
        let start = old.as_ptr() as usize;
        // Only reads of the input itself, not of an `Unstructured` a
        // hand-written impl made over other bytes.
        if start < self.base || start + old.len() > self.base + self.len {
            return;
        }
        let at = start - self.base;
        let new_start = new.as_ptr() as usize;
        let front = if new_start >= start && new_start + new.len() <= start + old.len() {
            new_start - start
        } else {
            0 // `&[]`: everything went, from the back
        };
        let back = old.len().saturating_sub(front + new.len());
        let _ = match value {
            Some(value) => writeln!(self.text, "L {} {} {}", at + old.len() - back, back, value),
            // A byte string of nothing is recorded too: a `str` that took
            // no bytes (the first was not UTF-8) must not keep a count
            // that makes the decoder look at bytes after it.
            None if front > 0 || kind == 'B' => writeln!(self.text, "{} {} {}", kind, at, front),
            None => Ok(()),
        };
    }
}
