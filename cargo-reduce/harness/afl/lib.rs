//! cargo-reduce's stand-in for `afl` (afl.rs).
//!
//! cargo-reduce writes this crate out under the exact version that the
//! project's `Cargo.lock` holds and builds the project's unedited afl.rs
//! targets against it (`--config patch.crates-io.afl.path=...`). The
//! public items of afl.rs are here with the same meaning for the code
//! under test: the same macro forms, `Arbitrary::arbitrary` on an
//! `Unstructured` for typed closures (afl.rs's decoding, not
//! libfuzzer-sys's `arbitrary_take_rest`), the same panic semantics (with
//! the hook every panic is a crash, even one the target catches; without
//! it only one that escapes), `reset` after each input. Instead of AFL++'s
//! persistent loop, `fuzz` runs the closure as a long-lived worker of
//! cargo-reduce's pool, which hands it whole batches of inputs through
//! shared memory (see `worker`). Run without the pool, the binary runs the
//! input on its standard input once, as an afl.rs binary does outside
//! afl-fuzz.
//!
//! Built with `cfg(cargo_reduce_companion)` it is a companion: it stands in
//! for afl.rs in the build of libFuzzer targets whose dependency depends on
//! afl under `cfg(fuzzing)`, so it keeps the API and leaves out
//! `pthread_create` and the global allocator, which the libfuzzer-sys
//! stand-in in the same program defines.

#![deny(missing_docs, missing_debug_implementations)]
#![cfg_attr(cargo_reduce_companion, allow(dead_code))]

mod altstack;
mod capture;
mod coverage;
mod decode;
mod fault_trace;
mod fork;
mod ijon;
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

use std::io::Read;

pub use ijon::*;

/// A closure run on each input, with what afl.rs's macros tell about it.
struct Closure<'a> {
    run: &'a mut dyn FnMut(&[u8]),
    reset: Option<&'a mut dyn FnMut()>,
    hook: bool,
    typed: bool,
}

impl worker::Target for Closure<'_> {
    fn run(&mut self, input: &[u8]) -> i32 {
        (self.run)(input);
        if let Some(reset) = &mut self.reset {
            reset();
        }
        0
    }

    fn any_panic_fails(&self) -> bool {
        self.hook
    }

    fn typed(&self) -> bool {
        self.typed
    }
}

/// Serves cargo-reduce's pool with `closure` (never returns then), or
/// runs it once on standard input and returns.
fn serve(mut closure: Closure<'_>) {
    if let Some(code) = worker::serve_if_worker(&mut closure) {
        std::process::exit(code);
    }
    let mut input = Vec::new();
    let read = std::io::stdin().read_to_end(&mut input).map(|_| input);
    let code = worker::standalone(
        &mut closure,
        &mut std::iter::once(("<stdin>".to_string(), read)),
    );
    if code != 0 {
        std::process::exit(code);
    }
}

/// Fuzz a closure by passing it a `&[u8]`, as `afl::fuzz`. With `hook`,
/// every panic is a crash, even one the closure catches itself; without,
/// only one that escapes the closure.
#[cfg(not(afl_fuzz_one_arg))]
pub fn fuzz<F>(hook: bool, mut closure: F)
where
    F: FnMut(&[u8]) + std::panic::RefUnwindSafe,
{
    __cargo_reduce_fuzz(hook, false, &mut closure, None);
}

/// Fuzz a closure by passing it a `&[u8]`, as afl.rs 0.4's `afl::fuzz`
/// (its panic hook always on): every panic is a crash.
#[cfg(afl_fuzz_one_arg)]
pub fn fuzz<F>(mut closure: F)
where
    F: FnMut(&[u8]) + std::panic::RefUnwindSafe,
{
    __cargo_reduce_fuzz(true, false, &mut closure, None);
}

/// The whole input as bytes, as afl.rs 0.2–0.9's `read_stdio_bytes`
/// (deprecated since 0.3.3): every panic is a crash.
#[cfg(afl_read_stdio)]
pub fn read_stdio_bytes<F>(closure: F)
where
    F: Fn(Vec<u8>),
{
    __cargo_reduce_fuzz(true, false, &mut |data: &[u8]| closure(data.to_vec()), None);
}

/// The whole input as a string, as afl.rs 0.2–0.9's `read_stdio_string`
/// (deprecated since 0.3.3): an input that is not UTF-8 is skipped.
#[cfg(afl_read_stdio)]
pub fn read_stdio_string<F>(closure: F)
where
    F: Fn(String),
{
    __cargo_reduce_fuzz(
        true,
        false,
        &mut |data: &[u8]| {
            if let Ok(text) = std::str::from_utf8(data) {
                closure(text.to_string());
            }
        },
        None,
    );
}

/// Like [`fuzz`], calling `reset` after each input, as
/// `afl::fuzz_with_reset`.
#[cfg(afl_fuzz_with_reset)]
pub fn fuzz_with_reset<F, R>(hook: bool, mut closure: F, mut reset: R)
where
    F: FnMut(&[u8]) + std::panic::RefUnwindSafe,
    R: FnMut(),
{
    __cargo_reduce_fuzz(hook, false, &mut closure, Some(&mut reset));
}

/// What the macros call: the closure with its reset function and whether
/// it decodes a typed value.
#[doc(hidden)]
pub fn __cargo_reduce_fuzz<'a>(
    hook: bool,
    typed: bool,
    run: &'a mut dyn FnMut(&[u8]),
    reset: Option<&'a mut dyn FnMut()>,
) {
    serve(Closure {
        run,
        reset,
        hook,
        typed,
    });
}

/// `RUST_LIBFUZZER_DEBUG_PATH`, read once, and the decoding hooks
/// `fuzz!` calls for typed targets: the libfuzzer-sys stand-in's.
#[doc(hidden)]
pub use decode::{
    debug_path as __cargo_reduce_debug_path, decode_begin as __cargo_reduce_decode_begin,
    decode_end as __cargo_reduce_decode_end,
};

/// Writes the `Debug` form of a decoded value (or the decoding error) to
/// the debug path; a type without `Debug` is written as such.
#[doc(hidden)]
pub fn __cargo_reduce_write_debug(path: &str, text: std::fmt::Arguments<'_>) {
    std::fs::write(path, format!("{text}\n"))
        .expect("failed to write to `RUST_LIBFUZZER_DEBUG_PATH` file");
}

/// Picks `Debug` when a type has it (method resolution prefers the
/// by-reference impl), so typed closures over types without `Debug` still
/// compile, as with afl.rs.
#[doc(hidden)]
#[derive(Debug)]
pub struct __CargoReduceShow<'a, T>(pub &'a T);

/// `Debug` of the value, for types that have it.
#[doc(hidden)]
pub trait __CargoReduceViaDebug {
    /// The pretty `Debug` form.
    fn __cargo_reduce_show(&self) -> String;
}

impl<T: std::fmt::Debug> __CargoReduceViaDebug for &__CargoReduceShow<'_, T> {
    fn __cargo_reduce_show(&self) -> String {
        format!("{:#?}", self.0)
    }
}

/// A placeholder for types without `Debug`.
#[doc(hidden)]
pub trait __CargoReduceViaNothing {
    /// The type's name.
    fn __cargo_reduce_show(&self) -> String;
}

impl<T> __CargoReduceViaNothing for __CargoReduceShow<'_, T> {
    fn __cargo_reduce_show(&self) -> String {
        format!("<{} has no Debug>", std::any::type_name::<T>())
    }
}

/// Decodes `bytes` as afl.rs does (`Arbitrary::arbitrary` on an
/// `Unstructured`), recording the draws and writing the `Debug` form when
/// cargo-reduce asks; `None` when the input does not decode or was only
/// shown.
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_decode {
    ($bytes:expr, $dty:ty) => {{
        let bytes: &[u8] = $bytes;
        $crate::__cargo_reduce_decode_begin(bytes);
        // The user's `arbitrary`, as afl.rs's macro names it.
        let mut data = ::arbitrary::Unstructured::new(bytes);
        let decoded: ::std::result::Result<$dty, _> = ::arbitrary::Arbitrary::arbitrary(&mut data);
        $crate::__cargo_reduce_decode_end();
        match $crate::__cargo_reduce_debug_path() {
            Some(path) => {
                #[allow(unused_imports)]
                use $crate::{__CargoReduceViaDebug, __CargoReduceViaNothing};
                match &decoded {
                    Ok(value) => $crate::__cargo_reduce_write_debug(
                        path,
                        format_args!(
                            "{}",
                            (&&$crate::__CargoReduceShow(value)).__cargo_reduce_show()
                        ),
                    ),
                    Err(err) => $crate::__cargo_reduce_write_debug(
                        path,
                        format_args!("Arbitrary Error: {}", err),
                    ),
                }
                None
            }
            None => decoded.ok(),
        }
    }};
}

/// `reset` or a closure that does nothing (afl.rs's `__reset_or_noop!`).
#[doc(hidden)]
#[macro_export]
macro_rules! __reset_or_noop {
    () => {
        || {}
    };
    ($reset:expr) => {
        $reset
    };
}

/// Decodes `bytes` with the user's `arbitrary`, as afl.rs's macro does:
/// arbitrary 1's `Unstructured` (afl.rs 0.13 and later).
#[cfg(not(afl_ring_buffer))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_arbitrary {
    ($bytes:expr) => {{
        let mut data = ::arbitrary::Unstructured::new($bytes);
        ::arbitrary::Arbitrary::arbitrary(&mut data)
    }};
}

/// Decodes `bytes` with the user's `arbitrary`, as afl.rs 0.8–0.12's macro
/// does: arbitrary 0.x's `RingBuffer` over the whole input.
#[cfg(afl_ring_buffer)]
#[doc(hidden)]
#[macro_export]
macro_rules! __cargo_reduce_arbitrary {
    ($bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        ::arbitrary::RingBuffer::new(bytes, bytes.len())
            .map_err(|_| "")
            .and_then(|mut b| ::arbitrary::Arbitrary::arbitrary(&mut b).map_err(|_| ""))
    }};
}

/// The body of `fuzz!` and its variants: the forms of afl.rs's `__fuzz!`,
/// each with an optional reset closure after the body.
#[doc(hidden)]
#[macro_export]
macro_rules! __fuzz {
    ($hook:expr, |$buf:ident| $body:expr $(, $reset:expr)?) => {
        $crate::__fuzz!($hook, |$buf: &[u8]| $body $(, $reset)?)
    };
    ($hook:expr, |$buf:ident: &[u8]| $body:expr $(, $reset:expr)?) => {
        $crate::__cargo_reduce_fuzz(
            $hook,
            false,
            &mut |$buf: &[u8]| {
                $body;
            },
            Some(&mut $crate::__reset_or_noop!($($reset)?)),
        )
    };
    ($hook:expr, |$buf:ident: $dty:ty| $body:expr $(, $reset:expr)?) => {
        $crate::__cargo_reduce_fuzz(
            $hook,
            true,
            &mut |bytes: &[u8]| {
                let $buf: $dty = match $crate::__cargo_reduce_decode!(bytes, $dty) {
                    Some(value) => value,
                    None => return,
                };
                $body;
            },
            Some(&mut $crate::__reset_or_noop!($($reset)?)),
        )
    };
}

/// Fuzz a closure, as afl.rs's `fuzz!`: `|data| …`, `|data: &[u8]| …`, or
/// `|value: T| …` with `T: Arbitrary`. Every panic is a crash.
#[macro_export]
macro_rules! fuzz {
    ( $($x:tt)* ) => { $crate::__fuzz!(true, $($x)*) };
}

/// Like `fuzz!`, without afl.rs's panic hook: only a panic that escapes
/// the closure is a crash.
#[macro_export]
macro_rules! fuzz_nohook {
    ( $($x:tt)* ) => { $crate::__fuzz!(false, $($x)*) };
}

/// Like `fuzz!`, with a closure that resets state after each input.
#[macro_export]
macro_rules! fuzz_with_reset {
    ( $($x:tt)* ) => { $crate::__fuzz!(true, $($x)*) };
}

/// Like `fuzz_with_reset!`, without the panic hook.
#[macro_export]
macro_rules! fuzz_with_reset_nohook {
    ( $($x:tt)* ) => { $crate::__fuzz!(false, $($x)*) };
}

/// afl.rs's marker that AFL++ delivers inputs through shared memory; read
/// by nothing here.
#[allow(non_upper_case_globals)]
#[doc(hidden)]
#[no_mangle]
pub static mut __afl_sharedmem_fuzzing: i32 = 1;
