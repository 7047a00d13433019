//! A panic's call path in the user's code: the worker sends the return
//! addresses on the panicking stack (offsets into the target binary, see
//! the harness's `trace`), and [`Symbolizer`] names them from the binary's
//! debug information, inlined calls included, keeping the top
//! [`CALL_PATH_DEPTH`] frames that are neither the standard library, the
//! panic machinery, nor the stand-in. Two panics at one location reached
//! from different callers then have different signatures. The stacks of
//! the other kinds of failure are named the same way ([`super::place`]).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::location::short_location;
use super::symbol_name;

/// How many of the user's frames a signature keeps. Three is what
/// ClusterFuzz's crash state keeps: enough to tell callers apart, few
/// enough that a deeper refactoring does not make an old bug look new.
pub(super) const CALL_PATH_DEPTH: usize = 3;

/// The call path of a stack whose user functions (innermost first) are
/// `functions`: the top [`CALL_PATH_DEPTH`] once every recursion is taken
/// out, so that a panic in a recursion has one call path at any depth. A
/// function met again further out, directly (`parse ← parse`) or through
/// others (`parse_inner ← parse_group ← parse_inner`), counts once: the
/// frames from its inner to its outer occurrence go.
pub(super) fn call_path_of<'f>(functions: impl IntoIterator<Item = &'f str>) -> Vec<String> {
    let mut path: Vec<&str> = Vec::new();
    for function in functions {
        match path.iter().position(|&f| f == function) {
            Some(inner) => path.truncate(inner + 1),
            None => path.push(function),
        }
    }
    path.into_iter()
        .take(CALL_PATH_DEPTH)
        .map(str::to_string)
        .collect()
}

/// Names return addresses of one binary; each address once.
pub(crate) struct Symbolizer {
    binary: PathBuf,
    /// `None` until the first lookup; then the loaded binary, or `None`
    /// when it cannot be read (the call path is then empty).
    loader: Option<Option<addr2line::Loader>>,
    /// The frames at each address, innermost (inlined) first.
    names: HashMap<u64, Vec<UserFrame>>,
}

/// A function on a stack, and where in it the stack was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UserFrame {
    /// The function's path, spelled alike for either mangling scheme
    /// (`symbol_name`).
    pub function: String,
    /// `file:line:column`, the file relative to its package (see
    /// [`package_relative`]), if the debug information says.
    pub location: Option<String>,
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
    pub(crate) fn new(binary: &Path) -> Self {
        Symbolizer {
            binary: binary.to_path_buf(),
            loader: None,
            names: HashMap::new(),
        }
    }

    /// The top user frames of the stack whose return addresses (innermost
    /// first) are `addresses`.
    pub(crate) fn call_path(&mut self, addresses: &[u64]) -> Vec<String> {
        let frames = self.user_frames(addresses);
        call_path_of(frames.iter().map(|f| f.function.as_str()))
    }

    /// The binary it names addresses of.
    pub(crate) fn binary(&self) -> &Path {
        &self.binary
    }

    /// The `file:line:column` of the innermost user frame of the stack
    /// whose addresses are `addresses` (a sanitizer report's location),
    /// inlined calls included, that has one (a frame at compiler-made code
    /// has none).
    pub(crate) fn location(&mut self, addresses: &[u64]) -> Option<String> {
        self.user_frames(addresses)
            .into_iter()
            .find_map(|frame| frame.location)
    }

    /// Every frame of the user's code on the stack whose addresses
    /// (innermost first) are `addresses`, inlined calls included.
    pub(crate) fn user_frames(&mut self, addresses: &[u64]) -> Vec<UserFrame> {
        let mut frames = Vec::new();
        for &address in addresses {
            let at = self.names_at(address);
            frames.extend(at.iter().filter(|f| !is_runtime(&f.function)).cloned());
        }
        frames
    }

    /// The frames at `address`, inlined ones first, from the debug
    /// information or else the symbol table.
    fn names_at(&mut self, address: u64) -> &[UserFrame] {
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

/// The frames at a return address: the call instruction is just before
/// it (the harness sends an interrupted instruction's address plus one).
fn lookup(loader: &addr2line::Loader, address: u64) -> Vec<UserFrame> {
    let probe = address.saturating_sub(1);
    let mut names = Vec::new();
    let mut named_library = false;
    if let Ok(mut frames) = loader.find_frames(probe) {
        while let Ok(Some(frame)) = frames.next() {
            let Some(function) = frame.function.as_ref() else {
                continue;
            };
            if is_library_code(frame.location.as_ref()) {
                named_library = true;
                continue;
            }
            if let (Ok(raw), Ok(name)) = (function.raw_name(), function.demangle()) {
                names.push(UserFrame {
                    function: symbol_name::spelled(&raw, &name),
                    location: frame.location.as_ref().and_then(location),
                });
            }
        }
    }
    if names.is_empty() && !named_library {
        if let Some(symbol) = loader.find_symbol(probe) {
            let name = addr2line::demangle_auto(symbol.into(), None);
            names.push(UserFrame {
                function: symbol_name::spelled(symbol, &name),
                location: None,
            });
        }
    }
    names
}

/// Whether a frame at `location` runs the standard library's code,
/// whatever its function's name (`<u64>::wrapping_add` is not the user's).
/// A location without a line (DWARF's line 0: code the optimizer made or
/// merged, attributed to no line) says nothing of whose code it is: the
/// head of a loop inlined into its caller may carry the file of a standard
/// function inlined into the loop, and dropping its frame there would
/// place one stack sample of an endless loop in the caller.
fn is_library_code(location: Option<&addr2line::Location<'_>>) -> bool {
    location
        .filter(|l| l.line.is_some_and(|line| line > 0))
        .and_then(|l| l.file)
        .is_some_and(is_library_file)
}

/// `file:line:column` of a debug-information location.
fn location(at: &addr2line::Location<'_>) -> Option<String> {
    let file = package_relative(Path::new(at.file?));
    Some(format!("{file}:{}:{}", at.line?, at.column.unwrap_or(0)))
}

/// The directory cargo-reduce builds fuzz crates in (`fuzz::standin`'s
/// shadow of the user's crate): rustc's working directory, so the debug
/// information names the user's files from there on.
const SHADOW_DIR: &str = "cargo-reduce-shadow";

/// A source file as panics in the user's code name it, so a location is
/// the same in every checkout: relative to the user's workspace root (the
/// build remaps that prefix away, and the debug information puts the
/// build's directory, [`SHADOW_DIR`], in front of the fuzz crate's own
/// files), or, for an absolute path (a path dependency outside the
/// workspace), to its package (the nearest directory with a
/// `Cargo.toml`); without `.` and `..` (`#[path = "../x.rs"]`).
/// Dependencies' and the standard library's files as the debug
/// information has them (see `location::short_location`).
pub(crate) fn package_relative(file: &Path) -> String {
    let shown = file.to_string_lossy();
    if short_location(&shown) != shown {
        return shown.into_owned();
    }
    let parts: Vec<Component<'_>> = file.components().collect();
    if let Some(at) = parts.iter().rposition(|c| c.as_os_str() == SHADOW_DIR) {
        return lexically_normal(&parts[at + 1..]);
    }
    // Named from the workspace root already: looking for its package would
    // look from the directory cargo-reduce runs in.
    if file.is_relative() {
        return lexically_normal(&parts);
    }
    let package = file
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("Cargo.toml").is_file());
    match package.and_then(|dir| file.strip_prefix(dir).ok()) {
        Some(relative) => lexically_normal(&relative.components().collect::<Vec<_>>()),
        None => shown.into_owned(),
    }
}

/// A relative path of `parts` without `.`, and without `..` where a
/// component before it can go instead.
fn lexically_normal(parts: &[Component<'_>]) -> String {
    let mut normal: Vec<Component<'_>> = Vec::new();
    for &part in parts {
        match part {
            Component::CurDir => {}
            Component::ParentDir if matches!(normal.last(), Some(Component::Normal(_))) => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
        .iter()
        .collect::<PathBuf>()
        .to_string_lossy()
        .into_owned()
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

/// Function names that are glue, not the user's code: the C `main`, the
/// entry point `fuzz_target!` generates, and the C allocator's entry points
/// (ASan's, at the top of a leak's allocation stack).
const RUNTIME_NAMES: &[&str] = &[
    "main",
    "rust_fuzzer_test_input",
    "malloc",
    "calloc",
    "realloc",
    "posix_memalign",
    "aligned_alloc",
    "memalign",
];

/// The primitive types, whose methods (`<u64>::wrapping_mul`,
/// `<[T]>::len`, `<*const T>::add`) are the standard library's.
const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str", "[", "*", "&", "(", "!",
];

/// True for a frame of the runtime rather than of the user's code (a
/// trait impl counts by its type: `<alloc::vec::Vec<T> as …>` is
/// runtime, `<my::Type as core::fmt::Debug>` is the user's; a primitive
/// type's by its trait: `<u64>::wrapping_mul` is runtime, `<u64 as
/// my::Checksum>::sum` the user's).
fn is_runtime(name: &str) -> bool {
    let path = name.trim_start_matches('<');
    let runtime_path = |path: &str| RUNTIME_PREFIXES.iter().any(|p| path.starts_with(p));
    if RUNTIME_NAMES.contains(&name) || runtime_path(path) || sanitizer_runtime(name) {
        return true;
    }
    match primitive_impl(path) {
        Some(Some(trait_path)) => runtime_path(trait_path),
        Some(None) => true,
        None => false,
    }
}

/// Whether `file` (as the debug information names it) is the standard
/// library's: its crates' sources are under `/rustc/<commit>/library/`,
/// its own dependencies' (its copy of `hashbrown` under `HashMap`,
/// `addr2line`, …) under `/rust/deps/`. Their functions may be named after
/// the user's types (`<my::Type as core::convert::Into<U>>::into`, core's
/// blanket impl) or keep their crates' names (`hashbrown::raw::…`, which
/// the user may depend on too), so only the file tells.
fn is_library_file(file: &str) -> bool {
    file.starts_with("/rustc/") || file.starts_with("/rust/deps/")
}

/// True for the C++ of a sanitizer's runtime, linked into an ASan build,
/// named as the symbol table has it (`_ZL17asan_thread_startPv`, the
/// start of every thread ASan sees, below the test thread's frames) or as
/// the debug info does (`asan_thread_start`): a signature from the ASan
/// build must not differ from the plain build's by them.
fn sanitizer_runtime(name: &str) -> bool {
    let mangled = name.starts_with("_Z")
        && ["asan", "sanitizer", "interception"]
            .iter()
            .any(|word| name.contains(word));
    let named = [
        "asan_",
        "__asan",
        "__sanitizer",
        "__interceptor",
        "__interception",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix));
    mangled || named
}

/// For the path of a `<…>` impl (from inside the bracket) whose type is a
/// primitive: its trait's path, or `None` for an inherent method.
fn primitive_impl(path: &str) -> Option<Option<&str>> {
    let end = path.find(['>', ' ', '<', ';']).unwrap_or(path.len());
    let head = &path[..end];
    let primitive = PRIMITIVES
        .iter()
        .any(|p| head == *p || (p.len() == 1 && head.starts_with(p)));
    primitive.then(|| path.split_once(" as ").map(|(_, t)| t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in a recursive function has one call path at any depth
    /// (helper-40: semver's `version_req` gave one id per depth).
    #[test]
    fn a_recursion_is_one_call_path_at_any_depth() {
        let shallow = ["comparator", "version_req", "from_str", "parse"];
        let deep = [
            "comparator",
            "version_req",
            "version_req",
            "version_req",
            "from_str",
        ];
        assert_eq!(
            call_path_of(shallow),
            ["comparator", "version_req", "from_str"]
        );
        assert_eq!(call_path_of(deep), call_path_of(shallow));
    }

    /// Through other functions too (helper-41: regex-lite's
    /// `parse_inner ← parse_group ← parse_inner` made a panic in a nested
    /// group a failure apart from the same panic at the top level).
    #[test]
    fn a_mutual_recursion_is_one_call_path_at_any_depth() {
        let top = ["parse_decimal", "parse_inner", "parse", "fuzz"];
        let nested = [
            "parse_decimal",
            "parse_inner",
            "parse_group",
            "parse_inner",
            "parse_group",
            "parse_inner",
            "parse",
            "fuzz",
        ];
        assert_eq!(call_path_of(top), ["parse_decimal", "parse_inner", "parse"]);
        assert_eq!(call_path_of(nested), call_path_of(top));
        assert_eq!(call_path_of(["a", "b", "c", "b", "a"]), ["a"]);
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
            "<u64>::wrapping_mul",
            "<[T]>::copy_from_slice",
            "<*const T>::add",
            "<&T as core::fmt::Debug>::fmt",
            "_ZL17asan_thread_startPv",
            "asan_thread_start",
            "__interceptor_pthread_create",
            "_ZN11__sanitizer16BufferedStackTrace13UnwindImplEmmPvbj",
            "<str>::parse",
        ] {
            assert!(is_runtime(name), "{name}");
        }
        for name in [
            "two_callers::expect_digit",
            "<demo::Token as core::fmt::Debug>::fmt",
            "boa_engine::builtins::array::Array::splice",
            "demo::main::{{closure}}",
            "<u64 as demo::Checksum>::sum",
            "<u8x16 as demo::Lanes>::splat",
            "_ZN6parser5parseEPKc",
        ] {
            assert!(!is_runtime(name), "{name}");
        }
    }

    #[test]
    fn the_standard_librarys_files_are_not_the_users_code() {
        for file in [
            "/rust/deps/hashbrown-0.17.1/src/raw.rs",
            "/rustc/e50aa6fba4e63ab34c72bf9acfd2c307c1155d1a/library/core/src/convert/mod.rs",
        ] {
            assert!(is_library_file(file), "{file}");
        }
        for file in [
            "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/hashbrown-0.17.1/src/raw.rs",
            "/tmp/leakhunt/rhai/src/module/mod.rs",
            "fuzz_targets/cycle.rs",
            "library/core/src/lib.rs",
        ] {
            assert!(!is_library_file(file), "{file}");
        }
    }

    /// This test binary itself: a function of it is named, and the call
    /// path of a real stack starts at the innermost user frame.
    #[test]
    fn names_a_real_stack() {
        let exe = std::env::current_exe().unwrap();
        let mut symbolizer = Symbolizer::new(&exe);
        let address = names_a_real_stack as *const () as u64 - load_bias();
        let frames = symbolizer.names_at(address + 1).to_vec();
        let here = frames
            .iter()
            .find(|f| f.function.ends_with("names_a_real_stack"))
            .unwrap_or_else(|| panic!("{frames:?}"));
        let location = here.location.as_deref().unwrap();
        assert!(
            location.starts_with("src/fuzz/pool/call_path.rs:"),
            "{location}"
        );
    }

    #[test]
    fn files_are_named_from_their_package_on() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/fuzz/pool/call_path.rs");
        assert_eq!(package_relative(&here), "src/fuzz/pool/call_path.rs");
        let included = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/fuzz/../lib.rs");
        assert_eq!(package_relative(&included), "src/lib.rs");
        let std = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/num/mod.rs";
        assert_eq!(package_relative(Path::new(std)), std);
        let nowhere = "/nonexistent/src/a.rs";
        assert_eq!(package_relative(Path::new(nowhere)), nowhere);
    }

    /// A standard library file with a line is the library's code; without
    /// one (line 0) it names no code, and the frame stays the user's.
    #[test]
    fn a_library_file_without_a_line_is_not_the_librarys_code() {
        let at = |file, line| addr2line::Location {
            file: Some(file),
            line,
            column: None,
        };
        let std = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/slice/mod.rs";
        assert!(is_library_code(Some(&at(std, Some(491)))));
        assert!(!is_library_code(Some(&at(std, None))));
        assert!(!is_library_code(Some(&at(std, Some(0)))));
        assert!(!is_library_code(Some(&at("fuzz_targets/a.rs", Some(3)))));
        assert!(!is_library_code(None));
    }

    /// A workspace member's file, which the remapped build names from the
    /// workspace root, keeps its package's folder whatever directory
    /// cargo-reduce runs in (tests run in this package's, where the
    /// fixture's `Cargo.toml` lies at that relative path): two members'
    /// `src/lib.rs` stay apart.
    #[test]
    fn a_workspace_members_file_keeps_its_folder() {
        let member = Path::new("tests-fixtures/pool-demo/fuzz_targets/./x.rs");
        assert!(Path::new("tests-fixtures/pool-demo/Cargo.toml").is_file());
        assert_eq!(
            package_relative(member),
            "tests-fixtures/pool-demo/fuzz_targets/x.rs"
        );
    }

    /// The build's directory comes first, absolute or (inside the user's
    /// workspace, whose prefix the build remaps) relative.
    #[test]
    fn files_of_a_build_are_named_from_the_workspace_on() {
        for built in [
            "/tmp/t/cargo-reduce/build/cargo-reduce-shadow/fuzz_targets/../bugs.rs",
            "target/cargo-reduce/build/cargo-reduce-shadow/./fuzz_targets/../bugs.rs",
        ] {
            assert_eq!(package_relative(Path::new(built)), "bugs.rs", "{built}");
        }
        let outside = "/b/cargo-reduce-shadow/src/bin/../../../common/a.rs";
        assert_eq!(package_relative(Path::new(outside)), "../common/a.rs");
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
