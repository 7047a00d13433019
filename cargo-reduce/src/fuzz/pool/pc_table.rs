//! The coverage build's PC table, as its workers write it when asked
//! (`protocol::PC_TABLE_ENV`): the address of each counter's block, in
//! counter order, made an address of the binary file (the load bias taken
//! out through `__sanitizer_cov_pcs_init`, whose address the file carries
//! and the binary's symbol table names), ready for its debug info.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol};

use super::protocol::{pc_table_pcs, PC_TABLE_ENV};
use super::PoolError;

/// The symbol whose run-time address the table's file carries.
const ANCHOR: &str = "__sanitizer_cov_pcs_init";

/// The PC table of a coverage build: one block address per counter, as
/// the binary file's (link-time) addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PcTable {
    /// Counter `i`'s block address.
    pub pcs: Vec<u64>,
}

/// Where a coverage pool's workers write the PC table.
#[derive(Debug)]
pub(crate) struct PcTableFile {
    dir: tempfile::TempDir,
}

impl PcTableFile {
    /// A new place for it.
    pub(crate) fn new() -> Result<Self, PoolError> {
        let dir = tempfile::Builder::new()
            .prefix("cargo-reduce-pcs")
            .tempdir()
            .map_err(|e| PoolError::Protocol(format!("cannot make a PC table directory: {e}")))?;
        Ok(PcTableFile { dir })
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("pcs")
    }

    /// The workers' environment that asks for it
    /// (`CoveragePool::start_with_env`).
    pub(crate) fn env(&self) -> (OsString, OsString) {
        (OsString::from(PC_TABLE_ENV), self.path().into())
    }

    /// The table a worker of `binary` wrote (after a replay: every worker
    /// writes it when it starts).
    pub(crate) fn read(&self, binary: &Path) -> Result<PcTable, PoolError> {
        self.read_anchored(binary, ANCHOR)
    }

    /// The table, its bias found from the symbol `anchor`.
    fn read_anchored(&self, binary: &Path, anchor: &str) -> Result<PcTable, PoolError> {
        let error = |what: String| PoolError::Protocol(format!("PC table: {what}"));
        let file =
            std::fs::read(self.path()).map_err(|e| error(format!("no worker wrote it ({e})")))?;
        let (at, pcs) = pc_table_pcs(&file).ok_or_else(|| error("not a PC table".to_string()))?;
        let linked = symbol_address(binary, anchor).map_err(error)?;
        let bias = at.wrapping_sub(linked);
        Ok(PcTable {
            pcs: pcs.into_iter().map(|pc| pc.wrapping_sub(bias)).collect(),
        })
    }
}

/// The address of symbol `name` in the binary file `binary`.
fn symbol_address(binary: &Path, name: &str) -> Result<u64, String> {
    let data =
        std::fs::read(binary).map_err(|e| format!("cannot read {}: {e}", binary.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", binary.display()))?;
    file.symbols()
        .find(|s| s.name() == Ok(name))
        .map(|s| s.address())
        .ok_or_else(|| format!("{} has no symbol {name} (stripped?)", binary.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symbol of this test binary: its run-time address minus its
    /// address in the file is the load bias the table's PCs lose.
    #[no_mangle]
    #[inline(never)]
    extern "C" fn cargo_reduce_pc_table_test_anchor() -> u64 {
        7
    }

    #[test]
    fn a_table_loses_the_load_bias_its_anchor_shows() {
        let exe = std::env::current_exe().unwrap();
        let runtime = cargo_reduce_pc_table_test_anchor as *const () as u64;
        let linked = symbol_address(&exe, "cargo_reduce_pc_table_test_anchor").unwrap();
        let bias = runtime - linked;
        assert_eq!(bias % 4096, 0, "a load bias is page-aligned");
        let file = PcTableFile::new().unwrap();
        // Written as a worker writes it (`harness/src/pc_table.rs`), with
        // this binary's anchor in place of the stand-in's.
        let pairs = [linked + bias + 16, 1, linked + bias + 64, 0];
        let written = super::super::protocol::pc_table_file(runtime, &pairs);
        std::fs::write(file.path(), written).unwrap();
        let table = file
            .read_anchored(&exe, "cargo_reduce_pc_table_test_anchor")
            .unwrap();
        assert_eq!(table.pcs, [linked + 16, linked + 64]);
        assert!(symbol_address(&exe, "no_such_symbol_here").is_err());
        std::fs::write(file.path(), [0; 12]).unwrap();
        assert!(file.read(&exe).is_err(), "a cut file is refused");
    }
}
