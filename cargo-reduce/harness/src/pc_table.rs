//! The coverage build's PC table (`-sanitizer-coverage-pc-table`): the
//! address of each counter's block, registered by SanitizerCoverage's
//! constructor through `__sanitizer_cov_pcs_init` (below), and
//! written for the parent when it asks (`PC_TABLE_ENV`), which maps the
//! covered counters to source lines with the binary's debug info.

use crate::protocol::{pc_table_file, PC_TABLE_ENV};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most tables kept, one per counter region (`coverage::MAX_REGIONS`).
const MAX_TABLES: usize = 8;

/// The registered tables: (begin, end) addresses of (PC, flags) pairs.
static TABLES: [(AtomicUsize, AtomicUsize); MAX_TABLES] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; MAX_TABLES];
static TABLE_COUNT: AtomicUsize = AtomicUsize::new(0);

/// The PC table (pairs of a block's address and flags), one entry per
/// counter, as SanitizerCoverage's constructor registers it.
#[cfg(all(cargo_reduce_coverage, not(cargo_reduce_companion)))]
#[no_mangle]
pub extern "C" fn __sanitizer_cov_pcs_init(begin: *const usize, end: *const usize) {
    register(begin, end);
}

/// Keeps one module's table, in registration order (the counter regions'
/// order); a table already known is not added twice, as its counters are
/// not.
#[cfg_attr(not(cargo_reduce_coverage), allow(dead_code))]
pub(crate) fn register(begin: *const usize, end: *const usize) {
    let (begin, end) = (begin as usize, end as usize);
    let count = TABLE_COUNT.load(Ordering::Acquire);
    let known = TABLES[..count]
        .iter()
        .any(|t| t.0.load(Ordering::Relaxed) == begin);
    if begin >= end || known || count == MAX_TABLES {
        return;
    }
    TABLES[count].0.store(begin, Ordering::Relaxed);
    TABLES[count].1.store(end, Ordering::Relaxed);
    TABLE_COUNT.store(count + 1, Ordering::Release);
}

/// Writes the table to the file the parent named, if it named one: under
/// a name of this worker's, then renamed over it (every worker writes the
/// same table). Exits the process when it cannot (the parent sees a dead
/// worker).
pub(crate) fn write_if_asked(slot: usize) {
    let Some(path) = std::env::var_os(PC_TABLE_ENV) else {
        return;
    };
    let path = std::path::PathBuf::from(path);
    let mut staged = path.clone().into_os_string();
    staged.push(format!(".{slot}"));
    let written = std::fs::write(&staged, pc_table_file(anchor() as u64, &pairs()))
        .and_then(|()| std::fs::rename(&staged, &path));
    if let Err(err) = written {
        eprintln!(
            "cargo-reduce stand-in: cannot write {}: {err}",
            path.display()
        );
        // SAFETY: _exit has no preconditions.
        unsafe { crate::sys::_exit(2) }
    }
}

/// Every registered (PC, flags) pair, in registration order.
fn pairs() -> Vec<u64> {
    let count = TABLE_COUNT.load(Ordering::Acquire);
    let mut pairs = Vec::new();
    for (begin, end) in &TABLES[..count] {
        let begin = begin.load(Ordering::Relaxed) as *const usize;
        let len = end.load(Ordering::Relaxed) - begin as usize;
        // SAFETY: a table SanitizerCoverage registered, static for the
        // program's life.
        let table = unsafe { std::slice::from_raw_parts(begin, len / size_of::<usize>()) };
        pairs.extend(table.iter().map(|&word| word as u64));
    }
    pairs
}

/// The run-time address of a symbol the parent finds in the binary.
#[cfg(all(cargo_reduce_coverage, not(cargo_reduce_companion)))]
fn anchor() -> usize {
    __sanitizer_cov_pcs_init as *const () as usize
}

/// No coverage build: no table, and nothing to anchor.
#[cfg(not(all(cargo_reduce_coverage, not(cargo_reduce_companion))))]
fn anchor() -> usize {
    0
}
