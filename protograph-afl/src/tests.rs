//! The exported functions driven the way afl-fuzz drives them
//! (`src/afl-fuzz-one.c`, `src/afl-fuzz-mutators.c` of AFL++ 4.40c).

use std::ffi::CStr;
use std::ptr;

use protograph::program::parse_program;

use super::*;

/// A session handle as afl_custom_init returns it (the learned graph).
fn init(seed: u32) -> *mut c_void {
    let data = afl_custom_init(ptr::null_mut(), seed);
    assert!(!data.is_null());
    data
}

/// One afl_custom_fuzz call; the mutant copied out of the mutator's buffer.
fn fuzz(data: *mut c_void, input: &[u8], other: &[u8], max: usize) -> Vec<u8> {
    let mut out: *const u8 = ptr::null();
    // SAFETY: live session, valid slices, writable out pointer.
    let n = unsafe {
        afl_custom_fuzz(
            data,
            input.as_ptr(),
            input.len(),
            &mut out,
            other.as_ptr(),
            other.len(),
            max,
        )
    };
    assert!(!out.is_null());
    // SAFETY: the mutator returned `n` bytes at `out`.
    unsafe { slice::from_raw_parts(out, n) }.to_vec()
}

fn describe(data: *mut c_void, max: usize) -> String {
    // SAFETY: live session; the answer is a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(afl_custom_describe(data, max)) };
    text.to_str().unwrap().to_string()
}

fn deinit(data: *mut c_void) {
    // SAFETY: made by init, not used again.
    unsafe { afl_custom_deinit(data) };
}

fn defs(text: &[u8]) -> usize {
    let program = parse_program(std::str::from_utf8(text).unwrap());
    program.stmts.iter().filter(|s| s.is_generated()).count()
}

#[test]
fn mutants_grow_from_nothing_stay_programs_and_fit() {
    let data = init(7);
    let mut input = Vec::new();
    let mut names = std::collections::HashSet::new();
    for round in 0..300 {
        let max = if round % 3 == 0 { 300 } else { 100_000 };
        let mutant = fuzz(data, &input, b"", max);
        assert!(mutant.len() <= max.min(mutator::DEFAULT_MAX_LEN));
        let name = describe(data, 64);
        assert!(name.starts_with("protograph-"), "{name}");
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{name}"
        );
        names.insert(name);
        // A short max_size cuts the program: do not go on from such a mutant.
        if !mutant.is_empty() && max > 300 {
            assert!(defs(&mutant) > 0, "{}", String::from_utf8_lossy(&mutant));
            input = mutant;
        }
    }
    assert!(names.len() >= 6, "{names:?}");
    assert_eq!(describe(data, 12), "protograph-r");
    deinit(data);
}

#[test]
fn the_fallback_splices_the_other_entry_in() {
    let data = init(3);
    let mine = fuzz(data, b"", b"", 4096);
    let other = b"try { var v0 = this.Math.hypot(1, 2); } catch (e) {}\n".repeat(6);
    let spliced = (0..200)
        .map(|_| fuzz(data, &mine, &other, 4096))
        .filter(|_| describe(data, 64) == "protograph-splice")
        .filter(|m| String::from_utf8_lossy(m).contains("hypot"))
        .count();
    assert!(spliced > 0);
    deinit(data);
}

#[test]
fn same_seed_same_mutants() {
    let run = |seed| {
        let data = init(seed);
        let mut input = Vec::new();
        let outs: Vec<Vec<u8>> = (0..50)
            .map(|_| {
                input = fuzz(data, &input, b"", 4096);
                input.clone()
            })
            .collect();
        deinit(data);
        outs
    };
    assert_eq!(run(11), run(11));
    assert_ne!(run(11), run(12));
}

#[cfg(feature = "trim")]
/// AFL++'s loop in `trim_case_custom`: steps from init_trim, one candidate
/// per step, the verdict from the coverage (here: whether the candidate
/// still holds `needle`), ending when post_trim returns the step count.
fn afl_trim(data: *mut c_void, input: &[u8], needle: &str) -> (Vec<u8>, usize) {
    // SAFETY: live session, valid slice, writable out pointer below.
    let steps = unsafe { afl_custom_init_trim(data, input.as_ptr(), input.len()) };
    let (mut step, mut best, mut execs) = (0, input.to_vec(), 0);
    while step < steps {
        let mut out: *const u8 = ptr::null();
        // SAFETY: as above.
        let n = unsafe { afl_custom_trim(data, &mut out) };
        // SAFETY: the mutator returned `n` bytes at `out`.
        let candidate = unsafe { slice::from_raw_parts(out, n) }.to_vec();
        execs += 1;
        let same = String::from_utf8_lossy(&candidate).contains(needle);
        if same {
            best = candidate;
        }
        // SAFETY: live session.
        let next = unsafe { afl_custom_post_trim(data, u8::from(same)) };
        assert!(next > step && next <= steps, "{step} -> {next} of {steps}");
        step = next;
    }
    (best, execs)
}

#[cfg(feature = "trim")]
#[test]
fn trimming_removes_statements_that_do_not_matter() {
    let data = init(5);
    let text = "// a hand-written line stays\n\
        try { var v0 = this.Math.abs(1); } catch (e) {}\n\
        try { var v1 = this.Math.hypot(v0, 2); } catch (e) {}\n\
        try { var v2 = this.String(v1); } catch (e) {}\n\
        try { var v3 = this.Math.max(v2, v1); } catch (e) {}\n";
    let (best, execs) = afl_trim(data, text.as_bytes(), "hypot");
    let best = String::from_utf8(best).unwrap();
    assert_eq!(execs, 4);
    assert_eq!(
        best,
        "// a hand-written line stays\ntry { var v1 = this.Math.hypot(undefined, 2); } catch (e) {}\n"
    );
    // Nothing in generated form: no steps, AFL++ moves on.
    // SAFETY: live session, valid slice.
    assert_eq!(
        unsafe { afl_custom_init_trim(data, b"x = 1;".as_ptr(), 6) },
        0
    );
    deinit(data);
}

#[test]
fn bad_settings_are_one_line_errors() {
    let err = |graph: Option<&str>, max: Option<&str>| {
        Session::new(graph.map(str::to_string), max.map(str::to_string), 1)
            .err()
            .expect("an error")
    };
    let missing = err(Some("/nonexistent/graph.json"), None);
    assert!(
        missing.starts_with("PROTOGRAPH_GRAPH=/nonexistent/graph.json: cannot read"),
        "{missing}"
    );
    let dir = std::env::temp_dir().join(format!("protograph-afl-{}", std::process::id()));
    std::fs::write(&dir, "{\"not\": \"a graph\"}").unwrap();
    let bad = err(Some(dir.to_str().unwrap()), None);
    std::fs::remove_file(&dir).unwrap();
    assert!(bad.contains("not a protograph graph"), "{bad}");
    assert!(err(None, Some("0")).starts_with("PROTOGRAPH_MAX_LEN=0: not a byte count"));
    assert!(err(None, Some("4k")).contains("give a positive integer"));
    for e in [missing, bad] {
        assert!(!e.contains('\n'), "{e}");
    }
}
