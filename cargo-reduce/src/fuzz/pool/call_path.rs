//! A panic's call path in the user's code: the worker sends the return
//! addresses on the panicking stack (offsets into the target binary, see
//! the harness's `trace`), and [`Symbolizer`] names them from the binary's
//! debug information, inlined calls included, keeping the top
//! [`CALL_PATH_DEPTH`] frames that are neither the standard library, the
//! panic machinery, nor the stand-in. Two panics at one location reached
//! from different callers then have different signatures.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How many of the user's frames a signature keeps. Three is what
/// ClusterFuzz's crash state keeps: enough to tell callers apart, few
/// enough that a deeper refactoring does not make an old bug look new.
pub const CALL_PATH_DEPTH: usize = 3;

/// Names return addresses of one binary; each address once.
pub(crate) struct Symbolizer {
    binary: PathBuf,
    /// `None` until the first lookup; then the loaded binary, or `None`
    /// when it cannot be read (the call path is then empty).
    loader: Option<Option<addr2line::Loader>>,
    /// The function names at each address, innermost (inlined) first.
    names: HashMap<u64, Vec<String>>,
}

impl std::fmt::Debug for Symbolizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symbolizer")
            .field("binary", &self.binary)
            .field("names", &self.names.len())
            .finish()
    }
}

impl Symbolizer {
    /// A symbolizer for `binary`; it is read on the first lookup.
    pub fn new(binary: &Path) -> Self {
        Symbolizer {
            binary: binary.to_path_buf(),
            loader: None,
            names: HashMap::new(),
        }
    }

    /// The top user frames of the stack whose return addresses (innermost
    /// first) are `addresses`.
    pub fn call_path(&mut self, addresses: &[u64]) -> Vec<String> {
        let mut path = Vec::new();
        for &address in addresses {
            for name in self.names_at(address) {
                if path.len() < CALL_PATH_DEPTH && !is_runtime(name) {
                    path.push(name.clone());
                }
            }
        }
        path
    }

    /// The binary it names addresses of.
    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// The `file:line:column` of the innermost user frame of the stack
    /// whose return addresses are `addresses` (a sanitizer report's
    /// location), inlined calls included.
    pub fn location(&mut self, addresses: &[u64]) -> Option<String> {
        let binary = &self.binary;
        let loader = self
            .loader
            .get_or_insert_with(|| addr2line::Loader::new(binary).ok())
            .as_ref()?;
        for &address in addresses {
            let Ok(mut frames) = loader.find_frames(address.saturating_sub(1)) else {
                continue;
            };
            while let Ok(Some(frame)) = frames.next() {
                let name = frame.function.as_ref().and_then(|f| f.demangle().ok());
                if name.is_some_and(|n| !is_runtime(without_hash(&n))) {
                    let at = frame.location?;
                    let (file, line) = (at.file?, at.line?);
                    return Some(match at.column {
                        Some(column) => format!("{file}:{line}:{column}"),
                        None => format!("{file}:{line}"),
                    });
                }
            }
        }
        None
    }

    /// The function names at `address`, inlined ones first, from the debug
    /// information or else the symbol table.
    fn names_at(&mut self, address: u64) -> &[String] {
        if !self.names.contains_key(&address) {
            let binary = &self.binary;
            let loader = self
                .loader
                .get_or_insert_with(|| addr2line::Loader::new(binary).ok());
            let names = loader
                .as_ref()
                .map_or_else(Vec::new, |l| lookup(l, address));
            self.names.insert(address, names);
        }
        &self.names[&address]
    }
}

/// The names at a return address: the call instruction is just before it.
fn lookup(loader: &addr2line::Loader, address: u64) -> Vec<String> {
    let probe = address.saturating_sub(1);
    let mut names = Vec::new();
    if let Ok(mut frames) = loader.find_frames(probe) {
        while let Ok(Some(frame)) = frames.next() {
            if let Some(Ok(name)) = frame.function.as_ref().map(|f| f.demangle()) {
                names.push(without_hash(&name).to_string());
            }
        }
    }
    if names.is_empty() {
        if let Some(symbol) = loader.find_symbol(probe) {
            let name = addr2line::demangle_auto(symbol.into(), None);
            names.push(without_hash(&name).to_string());
        }
    }
    names
}

/// `a::b` for the legacy-mangled `a::b::h0123456789abcdef`: the hash
/// changes with every build.
fn without_hash(name: &str) -> &str {
    match name.rsplit_once("::h") {
        Some((path, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            path
        }
        _ => name,
    }
}

/// Paths of code that is not the user's: the standard library, the panic
/// runtime, the stand-ins (`libfuzzer_sys`, `afl`) and the C runtime.
const RUNTIME_PREFIXES: &[&str] = &[
    "std::",
    "core::",
    "alloc::",
    "panic_unwind::",
    "panic_abort::",
    "libfuzzer_sys::",
    "afl::",
    "__rust",
    "__rustc::",
    "rust_begin_unwind",
    "rust_panic",
    "_Unwind_",
    "__libc_",
    "_start",
    "__asan",
    "__interceptor_",
    "___interceptor_",
    "__sanitizer",
];

/// Function names that are glue, not the user's code: the C `main` and the
/// entry point `fuzz_target!` generates.
const RUNTIME_NAMES: &[&str] = &["main", "rust_fuzzer_test_input"];

/// True for a frame of the runtime rather than of the user's code (a
/// trait impl counts by its type: `<alloc::vec::Vec<T> as …>` is runtime,
/// `<my::Type as core::fmt::Debug>` is the user's).
fn is_runtime(name: &str) -> bool {
    let path = name.trim_start_matches('<');
    RUNTIME_NAMES.contains(&name) || RUNTIME_PREFIXES.iter().any(|p| path.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_dropped() {
        assert_eq!(
            without_hash("demo::parse::h0123456789abcdef"),
            "demo::parse"
        );
        assert_eq!(without_hash("demo::hex"), "demo::hex");
        assert_eq!(without_hash("demo::hash::hot"), "demo::hash::hot");
    }

    #[test]
    fn the_runtime_is_not_the_users_code() {
        for name in [
            "core::panicking::panic_fmt",
            "std::panicking::begin_panic_handler::{{closure}}",
            "<alloc::vec::Vec<T> as core::ops::index::Index<I>>::index",
            "libfuzzer_sys::capture::install::{{closure}}",
            "__rustc::rust_begin_unwind",
            "rust_fuzzer_test_input",
            "main",
        ] {
            assert!(is_runtime(name), "{name}");
        }
        for name in [
            "two_callers::expect_digit",
            "<demo::Token as core::fmt::Debug>::fmt",
            "boa_engine::builtins::array::Array::splice",
            "demo::main::{{closure}}",
        ] {
            assert!(!is_runtime(name), "{name}");
        }
    }

    /// This test binary itself: a function of it is named, and the call
    /// path of a real stack starts at the innermost user frame.
    #[test]
    fn names_a_real_stack() {
        let exe = std::env::current_exe().unwrap();
        let mut symbolizer = Symbolizer::new(&exe);
        let address = names_a_real_stack as *const () as u64 - load_bias();
        let names = symbolizer.names_at(address + 1).to_vec();
        assert!(
            names.iter().any(|n| n.ends_with("names_a_real_stack")),
            "{names:?}"
        );
    }

    /// The test binary's load bias, as the harness computes it.
    fn load_bias() -> u64 {
        unsafe extern "C" fn first(
            info: *mut libc::dl_phdr_info,
            _: usize,
            data: *mut std::ffi::c_void,
        ) -> std::ffi::c_int {
            // SAFETY: dl_iterate_phdr passes a valid info; data is our u64.
            unsafe { *data.cast::<u64>() = (*info).dlpi_addr };
            1
        }
        let mut bias = 0u64;
        // SAFETY: `first` writes only the u64 passed as data.
        unsafe { libc::dl_iterate_phdr(Some(first), (&mut bias as *mut u64).cast()) };
        bias
    }
}
