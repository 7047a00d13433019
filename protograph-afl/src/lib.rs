//! protograph's Prototype-Graph mutator as an AFL++ custom mutator.
//!
//! Build the library and hand it to `afl-fuzz`:
//!
//! ```sh
//! cargo build --release -p protograph-afl
//! AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/target/release/libprotograph_afl.so \
//!     cargo afl fuzz -i corpus/js/seeds -o out path/to/js-engine-target
//! ```
//!
//! AFL++ then runs a "protograph" stage before its havoc stage (with
//! `AFL_CUSTOM_MUTATOR_ONLY=1`, instead of all its own stages). Each call
//! applies one graph-guided mutation ([`protograph::mutate`]), or splices
//! another queue entry in, remapping variables by type ([`protograph::splice`]); the mutation's name
//! appears in the names of the inputs AFL++ keeps
//! (`id:…,execs:…,protograph-insert`). With the default feature `trim`, queue
//! entries are trimmed statement by statement ([`trim`]).
//!
//! Environment: `PROTOGRAPH_GRAPH=PATH`, the graph to generate from (default:
//! the learned Boa graph of `corpus/js/boa-learned.json`, compiled in);
//! `PROTOGRAPH_MAX_LEN=N`, the longest mutant in bytes (default 4096).
//!
//! AFL++'s `custom_mutator` crate is not published, so the few `extern "C"`
//! functions of its C API (`include/afl-fuzz.h`, `struct custom_mutator`)
//! are written out here; each only converts pointers and calls safe code.

use std::ffi::{c_char, c_uint, c_void};
use std::slice;

use protograph::{Config, Generator, Graph};

pub mod mutator;
pub mod trim;

pub use mutator::Mutator;
pub use trim::Trim;

/// The graph used unless `PROTOGRAPH_GRAPH` names another one.
const LEARNED_GRAPH: &str = include_str!("../../corpus/js/boa-learned.json");

/// What AFL++ holds between calls (`void *data`).
pub struct Session {
    mutator: Mutator,
    #[cfg(feature = "trim")]
    trim: Option<Trim>,
}

impl Session {
    /// A session configured from the environment, or a one-line reason.
    pub fn from_env(seed: u32) -> Result<Session, String> {
        let var = |name| std::env::var(name).ok();
        Session::new(var("PROTOGRAPH_GRAPH"), var("PROTOGRAPH_MAX_LEN"), seed)
    }

    /// A session from the values of `PROTOGRAPH_GRAPH` and
    /// `PROTOGRAPH_MAX_LEN`, or a one-line reason.
    pub fn new(
        graph: Option<String>,
        max_len: Option<String>,
        seed: u32,
    ) -> Result<Session, String> {
        let text = match graph {
            Some(path) => std::fs::read_to_string(&path)
                .map_err(|e| format!("PROTOGRAPH_GRAPH={path}: cannot read the graph: {e}"))?,
            None => LEARNED_GRAPH.to_string(),
        };
        let graph = Graph::from_json(&text).map_err(|e| {
            format!("PROTOGRAPH_GRAPH: not a protograph graph ({e}); write one with `protograph discover` or `protograph learn`")
        })?;
        let generator = Generator::new(&graph, Config::default())
            .map_err(|e| format!("PROTOGRAPH_GRAPH: the graph does not compile: {e}"))?;
        let max_len = match max_len {
            Some(n) => n.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                format!("PROTOGRAPH_MAX_LEN={n}: not a byte count; give a positive integer")
            })?,
            None => mutator::DEFAULT_MAX_LEN,
        };
        Ok(Session {
            mutator: Mutator::new(generator, seed, max_len),
            #[cfg(feature = "trim")]
            trim: None,
        })
    }
}

/// `afl_custom_init`: the session, or null (AFL++ then stops) after one
/// line on stderr saying what is wrong.
#[no_mangle]
pub extern "C" fn afl_custom_init(_afl: *mut c_void, seed: c_uint) -> *mut c_void {
    match Session::from_env(seed) {
        Ok(session) => Box::into_raw(Box::new(session)).cast(),
        Err(reason) => {
            eprintln!("error: protograph-afl: {reason}");
            std::ptr::null_mut()
        }
    }
}

/// `afl_custom_fuzz`: one mutant of `buf` in `*out_buf`, which stays ours
/// (valid until the next call); `add_buf` is another queue entry to splice.
///
/// # Safety
/// `data` comes from `afl_custom_init`; `buf`/`add_buf` point to the given
/// number of bytes (or are null with size 0); `out_buf` is writable.
#[no_mangle]
pub unsafe extern "C" fn afl_custom_fuzz(
    data: *mut c_void,
    buf: *const u8,
    buf_size: usize,
    out_buf: *mut *const u8,
    add_buf: *const u8,
    add_buf_size: usize,
    max_size: usize,
) -> usize {
    // SAFETY: the caller's contract above.
    let (session, input, other) = unsafe {
        (
            session(data),
            bytes(buf, buf_size),
            bytes(add_buf, add_buf_size),
        )
    };
    let mutant = session.mutator.fuzz(input, other, max_size);
    // SAFETY: `out_buf` is writable.
    unsafe { *out_buf = mutant.as_ptr() };
    mutant.len()
}

/// `afl_custom_describe`: the last mutation, for the kept input's file name.
///
/// # Safety
/// `data` comes from `afl_custom_init`.
#[no_mangle]
pub unsafe extern "C" fn afl_custom_describe(data: *mut c_void, max_len: usize) -> *const c_char {
    // SAFETY: the caller's contract.
    unsafe { session(data) }.mutator.describe(max_len).as_ptr()
}

/// `afl_custom_init_trim`: starts trimming `buf`; returns the step count.
///
/// # Safety
/// As for `afl_custom_fuzz`.
#[cfg(feature = "trim")]
#[no_mangle]
pub unsafe extern "C" fn afl_custom_init_trim(
    data: *mut c_void,
    buf: *const u8,
    buf_size: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    let (session, input) = unsafe { (session(data), bytes(buf, buf_size)) };
    let (trim, steps) = Trim::start(input);
    session.trim = Some(trim);
    i32::try_from(steps).unwrap_or(i32::MAX)
}

/// `afl_custom_trim`: the next candidate in `*out_buf` (ours, as in fuzz).
///
/// # Safety
/// As for `afl_custom_fuzz`; called after `afl_custom_init_trim`.
#[cfg(feature = "trim")]
#[no_mangle]
pub unsafe extern "C" fn afl_custom_trim(data: *mut c_void, out_buf: *mut *const u8) -> usize {
    // SAFETY: the caller's contract.
    let session = unsafe { session(data) };
    let trim = session.trim.as_mut().expect("AFL++ calls init_trim first");
    let candidate = trim.candidate();
    // SAFETY: `out_buf` is writable.
    unsafe { *out_buf = candidate.as_ptr() };
    candidate.len()
}

/// `afl_custom_post_trim`: AFL++'s verdict (non-zero: same coverage, keep
/// the cut); returns the next step index.
///
/// # Safety
/// As for `afl_custom_trim`.
#[cfg(feature = "trim")]
#[no_mangle]
pub unsafe extern "C" fn afl_custom_post_trim(data: *mut c_void, success: u8) -> i32 {
    // SAFETY: the caller's contract.
    let session = unsafe { session(data) };
    let trim = session.trim.as_mut().expect("AFL++ calls init_trim first");
    i32::try_from(trim.answer(success != 0)).unwrap_or(i32::MAX)
}

/// `afl_custom_deinit`: frees the session.
///
/// # Safety
/// `data` comes from `afl_custom_init` and is not used again.
#[no_mangle]
pub unsafe extern "C" fn afl_custom_deinit(data: *mut c_void) {
    if !data.is_null() {
        // SAFETY: made by Box::into_raw in afl_custom_init, freed once.
        drop(unsafe { Box::from_raw(data.cast::<Session>()) });
    }
}

/// # Safety
/// `data` comes from `afl_custom_init` and no other reference to it lives.
unsafe fn session<'a>(data: *mut c_void) -> &'a mut Session {
    // SAFETY: the caller's contract.
    unsafe { &mut *data.cast::<Session>() }
}

/// # Safety
/// `ptr` points to `len` readable bytes, or `len` is 0.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { slice::from_raw_parts(ptr, len) }
}

#[cfg(test)]
mod tests;
