//! cargo-reduce's stand-in for `libfuzzer-sys` 0.1 to 0.4.
//!
//! cargo-reduce writes this crate out under the exact version that the fuzz
//! project's `Cargo.lock` holds, depending on the `arbitrary` that release
//! depends on there, and builds the project's unedited fuzz targets against
//! it (`--config patch.crates-io.libfuzzer-sys.path=...`). Every public item
//! of `libfuzzer-sys` 0.4.x is here (a superset of 0.1.x to 0.3.x, whose
//! `fuzz_target!` forms are those without `init:` and `-> Corpus`; 0.1.x
//! decodes typed inputs from arbitrary 0.1/0.2's `RingBuffer`), with the
//! same meaning for the code under test: the same macro forms, the same `Arbitrary` decoding
//! (`Unstructured::new`, `arbitrary_take_rest`, the `size_hint` check), the
//! same `RUST_LIBFUZZER_DEBUG_PATH` output. Instead of libFuzzer, the `main`
//! below runs the target as a long-lived worker of cargo-reduce's pool, which
//! hands it whole batches of inputs through shared memory (see `worker`).
//! Run without the pool, the binary runs the files named on its command line
//! once each, like a libFuzzer binary reproducing a crash.
//!
//! Built with `cfg(cargo_reduce_companion)` it is a companion: it stands in
//! for libfuzzer-sys in the build of another engine's targets (an afl.rs
//! crate whose dependency depends on libfuzzer-sys under `cfg(fuzzing)`, as
//! image-rs/image's rav1e does), so it keeps the API and leaves out what
//! only the engine's program has: `main`, `pthread_create` and the global
//! allocator, which the afl stand-in in the same program defines.

#![deny(missing_docs, missing_debug_implementations)]
#![cfg_attr(cargo_reduce_companion, allow(dead_code))]

pub use arbitrary;

mod altstack;
mod capture;
mod coverage;
mod decode;
mod fault_trace;
mod fork;
mod leaks;
mod pc_table;
#[allow(dead_code)] // Shared with the parent side, which uses other parts.
/// Parent <-> worker messages and shared-memory layout.
mod protocol;
mod random;
mod sanitizer;
mod snapshot;
mod stack;
#[allow(dead_code)] // Declares what the modules need, under libc's names.
mod sys;
mod trace;
mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Whether the input should be kept in the corpus or rejected. Return it from
/// a fuzz target; `()` means `Keep`. For reduction both mean "passed".
#[derive(Debug)]
pub enum Corpus {
    /// Keep the input in the corpus.
    Keep,
    /// Reject the input and do not keep it in the corpus.
    Reject,
}

impl From<()> for Corpus {
    fn from(_: ()) -> Self {
        Self::Keep
    }
}

impl Corpus {
    /// libFuzzer's code for this result: -1 for reject, 0 for keep.
    #[doc(hidden)]
    pub fn to_libfuzzer_code(self) -> i32 {
        match self {
            Corpus::Keep => 0,
            Corpus::Reject => -1,
        }
    }
}

// Defined by `fuzz_target!` in the binary. Unlike libfuzzer-sys (where a
// panic aborts anyway) these use the Rust ABI: panics must unwind through them.
extern "Rust" {
    fn rust_fuzzer_test_input(input: &[u8]) -> i32;
    // The `init:` code.
    fn LLVMFuzzerInitialize(argc: *const isize, argv: *const *const *const u8) -> isize;
}

/// Runs one input through the target, as libFuzzer's `LLVMFuzzerTestOneInput`.
/// Kept for code that calls it directly; a panic aborts, as in libfuzzer-sys.
///
/// # Safety
/// `data` must point to `size` readable bytes.
#[doc(hidden)]
#[export_name = "LLVMFuzzerTestOneInput"]
pub unsafe fn test_input_wrap(data: *const u8, size: usize) -> i32 {
    let input = unsafe { std::slice::from_raw_parts(data, size) };
    match std::panic::catch_unwind(|| unsafe { rust_fuzzer_test_input(input) }) {
        Ok(code) => code,
        Err(_) => std::process::abort(),
    }
}

/// `RUST_LIBFUZZER_DEBUG_PATH`, read once (libfuzzer-sys's name); the
/// decoding hooks `fuzz_target!` calls are shared with the afl stand-in.
#[doc(hidden)]
pub use decode::{
    debug_path as rust_libfuzzer_debug_path, decode_begin as __cargo_reduce_decode_begin,
    decode_end as __cargo_reduce_decode_end,
};

/// The debug path as libfuzzer-sys 0.4.2 to 0.4.7 exposed it; filled in by
/// `rust_fuzzer_initialize`.
#[doc(hidden)]
pub static RUST_LIBFUZZER_DEBUG_PATH: OnceLock<String> = OnceLock::new();

/// Fills in `RUST_LIBFUZZER_DEBUG_PATH` (libfuzzer-sys 0.4.2 to 0.4.7).
#[doc(hidden)]
pub fn rust_fuzzer_initialize() {
    if let Some(path) = rust_libfuzzer_debug_path() {
        let _ = RUST_LIBFUZZER_DEBUG_PATH.set(path.clone());
    }
}

/// Called by the generated `LLVMFuzzerInitialize` before the `init:` code.
/// libfuzzer-sys installs a panic hook that aborts here; the worker installs
/// its own recording hook before init instead, so this only fills in the
/// debug path.
#[doc(hidden)]
pub fn initialize(_argc: *const isize, _argv: *const *const *const u8) -> isize {
    rust_fuzzer_initialize();
    0
}

static TYPED_INPUT: AtomicBool = AtomicBool::new(false);

/// Called by the generated `LLVMFuzzerInitialize` of targets that take an
/// `Arbitrary` type, so the pool knows their input has a `Debug` form.
/// libfuzzer-sys 0.1.x's typed targets need no `Debug`: their inputs are
/// reduced as bytes.
#[doc(hidden)]
pub fn __cargo_reduce_typed_input() {
    if cfg!(not(libfuzzer_sys_ring_buffer)) {
        TYPED_INPUT.store(true, Ordering::Relaxed);
    }
}

fn typed_input() -> bool {
    TYPED_INPUT.load(Ordering::Relaxed)
}

/// The process entry point of a `#![no_main]` fuzz target, as libFuzzer's C++
/// `main` is for the real crate: serve the pool, or run the files named on
/// the command line.
///
/// # Safety
/// Called by the C runtime with its `argc` and `argv`.
#[cfg(not(cargo_reduce_companion))]
#[no_mangle]
pub unsafe extern "C" fn main(
    argc: std::os::raw::c_int,
    argv: *const *const std::os::raw::c_char,
) -> std::os::raw::c_int {
    let mut target = FuzzTargetFns { argc, argv };
    if let Some(code) = worker::serve_if_worker(&mut target) {
        return code;
    }
    // Like a libFuzzer binary given crash files: flags are ignored.
    let mut files = target
        .args()
        .into_iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|path| {
            let bytes = std::fs::read(&path);
            (path, bytes)
        });
    worker::standalone(&mut target, &mut files)
}

/// The functions `fuzz_target!` defines, with the process arguments
/// `LLVMFuzzerInitialize` gets.
struct FuzzTargetFns {
    argc: std::os::raw::c_int,
    argv: *const *const std::os::raw::c_char,
}

impl FuzzTargetFns {
    fn args(&self) -> Vec<String> {
        (0..usize::try_from(self.argc).unwrap_or(0))
            .map(|i| {
                // SAFETY: the C runtime passes argc valid C strings.
                let arg = unsafe { std::ffi::CStr::from_ptr(*self.argv.add(i)) };
                arg.to_string_lossy().into_owned()
            })
            .collect()
    }
}

impl worker::Target for FuzzTargetFns {
    fn initialize(&mut self) {
        let argc = self.argc as isize;
        let argv = self.argv.cast::<*const u8>();
        // SAFETY: defined by `fuzz_target!`; the pointers outlive the call.
        unsafe { LLVMFuzzerInitialize(&argc, &argv) };
    }

    fn run(&mut self, input: &[u8]) -> i32 {
        // SAFETY: defined by `fuzz_target!`.
        unsafe { rust_fuzzer_test_input(input) }
    }

    fn typed(&self) -> bool {
        typed_input()
    }
}

/// `fuzz_target!`'s `LLVMFuzzerInitialize`: the worker's start, then
/// `$first` (a typed target's note that it decodes), then the target's
/// `init` expression. One definition for the byte and the typed forms.
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_initialize {
    ($init:expr $(, $first:expr)?) => {
        #[no_mangle]
        pub fn LLVMFuzzerInitialize(
            argc: *const isize,
            argv: *const *const *const u8,
        ) -> isize {
            $crate::initialize(argc, argv);
            $($first;)?
            $init;
            0
        }
    };
}

/// Define a fuzz target, exactly as `libfuzzer_sys::fuzz_target!`.
///
/// Forms: `|data| body`, `|data: &[u8]| body`, `|data: &[u8]| -> Corpus { .. }`,
/// `|x: T| body` and `|x: T| -> Corpus { .. }` with `T: Arbitrary`, each also
/// with a leading `init: expr,` that runs once before the first input.
#[macro_export]
macro_rules! fuzz_target {
    (|$bytes:ident| $body:expr) => {
        $crate::fuzz_target!(init: (), |$bytes: &[u8]| -> () { $body });
    };
    (|$bytes:ident: &[u8]| $body:expr) => {
        $crate::fuzz_target!(init: (), |$bytes: &[u8]| -> () { $body });
    };
    (|$bytes:ident: &[u8]| -> $rty:ty $body:block) => {
        $crate::fuzz_target!(init: (), |$bytes: &[u8]| -> $rty { $body });
    };
    (init: $init:expr, |$bytes:ident| $body:expr) => {
        $crate::fuzz_target!(init: $init, |$bytes: &[u8]| -> () { $body });
    };
    (init: $init:expr, |$bytes:ident: &[u8]| $body:expr) => {
        $crate::fuzz_target!(init: $init, |$bytes: &[u8]| -> () { $body });
    };
    (init: $init:expr, |$bytes:ident: &[u8]| -> $rty:ty $body:block) => {
        const _: () = {
            $crate::__cargo_reduce_initialize!($init);

            #[no_mangle]
            pub fn rust_fuzzer_test_input(bytes: &[u8]) -> i32 {
                if let Some(path) = $crate::rust_libfuzzer_debug_path() {
                    std::fs::write(path, format!("{:?}\n", bytes))
                        .expect("failed to write to `RUST_LIBFUZZER_DEBUG_PATH` file");
                    return 0;
                }
                $crate::Corpus::from(__libfuzzer_sys_run(bytes)).to_libfuzzer_code()
            }

            // A frame named after this target, as in libfuzzer-sys.
            #[inline(never)]
            fn __libfuzzer_sys_run($bytes: &[u8]) -> $rty {
                $body
            }
        };
    };
    (|$data:ident: $dty:ty| $body:expr) => {
        $crate::fuzz_target!(init: (), |$data: $dty| -> () { $body });
    };
    (|$data:ident: $dty:ty| -> $rty:ty $body:block) => {
        $crate::fuzz_target!(init: (), |$data: $dty| -> $rty { $body });
    };
    (init: $init:expr, |$data:ident: $dty:ty| $body:expr) => {
        $crate::fuzz_target!(init: $init, |$data: $dty| -> () { $body });
    };
    (init: $init:expr, |$data:ident: $dty:ty| -> $rty:ty $body:block) => {
        const _: () = {
            $crate::__cargo_reduce_initialize!($init, $crate::__cargo_reduce_typed_input());

            #[no_mangle]
            pub fn rust_fuzzer_test_input(bytes: &[u8]) -> i32 {
                // Too short for the type: rejected before decoding, as in
                // libfuzzer-sys (and nothing is written to the debug path).
                if $crate::__cargo_reduce_too_short!($dty, bytes) {
                    return -1;
                }
                $crate::__cargo_reduce_decode_begin(bytes);
                let data = $crate::__cargo_reduce_take_rest!($dty, bytes);
                $crate::__cargo_reduce_decode_end();

                if let Some(path) = $crate::rust_libfuzzer_debug_path() {
                    // One write: the file unbuffered, `{:#?}` would make
                    // a system call of each piece, and the typed reduction
                    // decodes for every candidate.
                    let text = match data {
                        Ok(data) => $crate::__cargo_reduce_show!(data),
                        Err(err) => format!("Arbitrary Error: {}\n", err),
                    };
                    std::fs::write(path, text)
                        .expect("failed to write to `RUST_LIBFUZZER_DEBUG_PATH` file");
                    return -1;
                }

                let data = match data {
                    Ok(data) => data,
                    Err(_) => return -1,
                };
                $crate::Corpus::from(__libfuzzer_sys_run(data)).to_libfuzzer_code()
            }

            // A frame named after this target, as in libfuzzer-sys.
            #[inline(never)]
            fn __libfuzzer_sys_run($data: $dty) -> $rty {
                $body
            }
        };
    };
}

/// Whether `bytes` are too short for `$dty`'s size hint, which
/// libfuzzer-sys 0.3.1 and later check before decoding.
#[cfg(not(libfuzzer_sys_no_size_check))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_too_short {
    ($dty:ty, $bytes:expr) => {
        $bytes.len() < <$dty as $crate::arbitrary::Arbitrary>::size_hint(0).0
    };
}

/// Decodes `$bytes` as the whole input of a typed target, as
/// libfuzzer-sys 0.2 and later do: `arbitrary_take_rest`.
#[cfg(not(libfuzzer_sys_ring_buffer))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_take_rest {
    ($dty:ty, $bytes:expr) => {
        <$dty as $crate::arbitrary::Arbitrary>::arbitrary_take_rest(
            $crate::arbitrary::Unstructured::new($bytes),
        )
    };
}

/// Decodes `$bytes` as libfuzzer-sys 0.1.x does (arbitrary 0.1 and 0.2):
/// `Arbitrary::arbitrary` on a `RingBuffer` over the whole input.
#[cfg(libfuzzer_sys_ring_buffer)]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_take_rest {
    ($dty:ty, $bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        $crate::arbitrary::RingBuffer::new(bytes, bytes.len())
            .map_err(|_| "the input is empty")
            .and_then(|mut b| {
                <$dty as $crate::arbitrary::Arbitrary>::arbitrary(&mut b)
                    .map_err(|_| "the input does not decode")
            })
    }};
}

/// The `Debug` form of a decoded input, for the debug path.
#[cfg(not(libfuzzer_sys_ring_buffer))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_show {
    ($data:expr) => {
        format!("{:#?}\n", $data)
    };
}

/// Never asked for: libfuzzer-sys 0.1.x's typed targets need no `Debug`,
/// so the pool reduces their inputs as bytes and never shows them.
#[cfg(libfuzzer_sys_ring_buffer)]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_show {
    ($data:expr) => {{
        let _ = &$data;
        String::new()
    }};
}

/// Never: libfuzzer-sys 0.1.x to 0.3.0 decode every input (and arbitrary
/// 0.3's `size_hint` takes no depth; 0.1 and 0.2 have none).
#[cfg(libfuzzer_sys_no_size_check)]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_too_short {
    ($dty:ty, $bytes:expr) => {
        false
    };
}

/// Define a custom mutator, as `libfuzzer_sys::fuzz_mutator!`. Reduction
/// never mutates, so the function is compiled (the body must type-check as
/// with libFuzzer) but never called.
#[macro_export]
macro_rules! fuzz_mutator {
    (
        |
        $data:ident : &mut [u8] ,
        $size:ident : usize ,
        $max_size:ident : usize ,
        $seed:ident : u32 $(,)*
        |
        $body:block
    ) => {
        /// Auto-generated custom mutator; unused by cargo-reduce.
        #[export_name = "LLVMFuzzerCustomMutator"]
        #[doc(hidden)]
        pub unsafe fn rust_fuzzer_custom_mutator(
            $data: *mut u8,
            $size: usize,
            $max_size: usize,
            $seed: std::os::raw::c_uint,
        ) -> usize {
            let len = std::cmp::max($max_size, $size);
            let $data: &mut [u8] = std::slice::from_raw_parts_mut($data, len);
            let $seed = $seed as u32;

            fn custom_mutator(
                $data: &mut [u8],
                $size: usize,
                $max_size: usize,
                $seed: u32,
            ) -> usize {
                $body
            }
            std::cmp::min(custom_mutator($data, $size, $max_size, $seed), $max_size)
        }
    };
}

/// Define a custom cross-over, as `libfuzzer_sys::fuzz_crossover!`. Compiled
/// but never called, like `fuzz_mutator!`.
#[macro_export]
macro_rules! fuzz_crossover {
    (
        |
        $data1:ident : &[u8] ,
        $data2:ident : &[u8] ,
        $out:ident : &mut [u8] ,
        $seed:ident : u32 $(,)*
        |
        $body:block
    ) => {
        /// Auto-generated custom cross-over; unused by cargo-reduce.
        #[export_name = "LLVMFuzzerCustomCrossOver"]
        #[doc(hidden)]
        pub unsafe fn rust_fuzzer_custom_crossover(
            $data1: *const u8,
            size1: usize,
            $data2: *const u8,
            size2: usize,
            $out: *mut u8,
            max_out_size: usize,
            $seed: std::os::raw::c_uint,
        ) -> usize {
            let $data1: &[u8] = std::slice::from_raw_parts($data1, size1);
            let $data2: &[u8] = std::slice::from_raw_parts($data2, size2);
            let $out: &mut [u8] = std::slice::from_raw_parts_mut($out, max_out_size);
            let $seed = $seed as u32;

            fn custom_crossover(
                $data1: &[u8],
                $data2: &[u8],
                $out: &mut [u8],
                $seed: u32,
            ) -> usize {
                $body
            }
            custom_crossover($data1, $data2, $out, $seed)
        }
    };
}

/// libFuzzer's default mutator. There is no libFuzzer here and reduction never
/// mutates, so this leaves the data as it is and returns its size, capped at
/// `max_size`; the same assertions as libfuzzer-sys hold.
pub fn fuzzer_mutate(data: &mut [u8], size: usize, max_size: usize) -> usize {
    assert!(size <= data.len());
    assert!(max_size <= data.len());
    size.min(max_size)
}
