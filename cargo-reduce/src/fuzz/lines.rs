//! Line coverage of the coverage reports' build (`BuildKind::Lines`, a
//! counter in every block): each counter's block, the code from its
//! address in the PC table to the next block's (or its function's end),
//! mapped to source lines with the binary's line tables (addr2line), every
//! inlined call's line included; and a corpus's covered counters counted
//! per line.
//!
//! A line is instrumented when some block's code maps to it, and covered
//! when one of those blocks' counters was hit; its count is the number of
//! inputs that reached it (an 8-bit counter saturates, so hits are not
//! counted).

use std::collections::BTreeMap;
use std::path::Path;

use crate::fuzz::pool::PcTable;

/// Where each counter's block is in the source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineMap {
    /// The source files, as the debug info names them.
    pub files: Vec<String>,
    /// Per counter: its (file index, line)s, the innermost inlined
    /// function's first, then each call site's.
    pub lines: Vec<Vec<(u32, u32)>>,
}

/// Per source file (as the debug info names it): per instrumented line,
/// how many inputs reached it (0: none).
pub(crate) type FileLines = BTreeMap<String, BTreeMap<u32, u64>>;

impl LineMap {
    /// The lines of every block of `table`, from `binary`'s debug info.
    pub(crate) fn new(binary: &Path, table: &PcTable) -> Result<LineMap, String> {
        let loader = addr2line::Loader::new(binary)
            .map_err(|e| format!("cannot read the debug info of {}: {e}", binary.display()))?;
        let ends = block_ends(binary, &table.pcs)?;
        let mut map = LineMap::default();
        let mut index: BTreeMap<String, u32> = BTreeMap::new();
        for (&pc, &end) in table.pcs.iter().zip(&ends) {
            let mut lines = Vec::new();
            for (file, line) in block_lines(&loader, pc, end) {
                let next = index.len() as u32;
                let id = *index.entry(file.clone()).or_insert_with(|| {
                    map.files.push(file);
                    next
                });
                if !lines.contains(&(id, line)) {
                    lines.push((id, line));
                }
            }
            map.lines.push(lines);
        }
        Ok(map)
    }

    /// Every instrumented line, reached by no input yet.
    pub(crate) fn instrumented(&self) -> FileLines {
        let mut out = FileLines::new();
        for &(file, line) in self.lines.iter().flatten() {
            out.entry(self.files[file as usize].clone())
                .or_default()
                .insert(line, 0);
        }
        out
    }

    /// Counts one input that hit the counters `covered` (indices past the
    /// table are ignored): each line it reached, once.
    pub(crate) fn add_input(&self, out: &mut FileLines, covered: impl Iterator<Item = usize>) {
        let mut reached: Vec<(u32, u32)> = covered
            .filter_map(|counter| self.lines.get(counter))
            .flatten()
            .copied()
            .collect();
        reached.sort_unstable();
        reached.dedup();
        for (file, line) in reached {
            *out.entry(self.files[file as usize].clone())
                .or_default()
                .entry(line)
                .or_default() += 1;
        }
    }
}

/// Where each block's code ends: at the next block's address, or at the
/// end of its function (the symbol that holds it) when that is nearer.
fn block_ends(binary: &Path, pcs: &[u64]) -> Result<Vec<u64>, String> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let data =
        std::fs::read(binary).map_err(|e| format!("cannot read {}: {e}", binary.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", binary.display()))?;
    let mut functions: Vec<(u64, u64)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .map(|s| (s.address(), s.address() + s.size()))
        .collect();
    functions.sort_unstable();
    let mut starts: Vec<u64> = pcs.to_vec();
    starts.sort_unstable();
    starts.dedup();
    Ok(pcs
        .iter()
        .map(|&pc| {
            let next = starts
                .get(starts.partition_point(|&s| s <= pc))
                .copied()
                .unwrap_or(u64::MAX);
            let holder = functions.partition_point(|&(start, _)| start <= pc);
            let function_end = match holder.checked_sub(1).map(|i| functions[i]) {
                Some((_, end)) if end > pc => end,
                _ => next,
            };
            next.min(function_end)
        })
        .collect())
}

/// The (file, line)s of the code in `[pc, end)`: of each line-table row
/// there and of each call it is inlined into; line 0 (code of no line)
/// left out.
fn block_lines(loader: &addr2line::Loader, pc: u64, end: u64) -> Vec<(String, u32)> {
    let mut rows = vec![pc];
    if let Ok(ranges) = loader.find_location_range(pc, end) {
        rows.extend(ranges.map(|(address, _, _)| address.max(pc)));
    }
    rows.sort_unstable();
    rows.dedup();
    let mut out = Vec::new();
    for address in rows {
        let Ok(mut frames) = loader.find_frames(address) else {
            continue;
        };
        while let Ok(Some(frame)) = frames.next() {
            let located = frame.location.and_then(|l| Some((l.file?, l.line?)));
            if let Some((file, line)) = located.filter(|&(_, line)| line > 0) {
                out.push((file.to_string(), line));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line of `lines_test_function`'s first statement.
    const BODY_LINE: u32 = line!() + 6;

    /// A function whose address this test's own debug info maps to a line
    /// of this file.
    #[inline(never)]
    fn lines_test_function(x: u64) -> u64 {
        std::hint::black_box(x).wrapping_mul(3)
    }

    /// This test binary's address of `lines_test_function`.
    fn linked_address() -> u64 {
        let runtime = lines_test_function as *const () as u64;
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*exe).unwrap();
        use object::{Object, ObjectSymbol};
        let anchor = file
            .symbols()
            .find(|s| {
                s.name()
                    .is_ok_and(|n| n.contains("lines_test_function") && n.contains("tests"))
            })
            .unwrap();
        assert_eq!(runtime % 4096, anchor.address() % 4096);
        anchor.address()
    }

    #[test]
    fn a_blocks_code_maps_to_its_lines_and_inputs_count_once_per_line() {
        let exe = std::env::current_exe().unwrap();
        let pc = linked_address();
        // Counter 0: the function's entry, its block the whole function (no
        // other block in the table); counter 1: an address of no code.
        let table = PcTable {
            pcs: vec![pc, u64::MAX - 16],
        };
        let map = LineMap::new(&exe, &table).unwrap();
        assert_eq!(map.lines.len(), 2);
        assert!(map.lines[1].is_empty(), "{map:?}");
        // Its own lines (the `fn` line, the body's), and the lines of what
        // is inlined into it, in other files; none of this file's others.
        let own: Vec<u32> = map.lines[0]
            .iter()
            .filter(|(f, _)| map.files[*f as usize].ends_with("fuzz/lines.rs"))
            .map(|&(_, line)| line)
            .collect();
        assert!(own.contains(&BODY_LINE), "{own:?} for {BODY_LINE}");
        assert!(
            own.iter()
                .all(|l| (BODY_LINE - 1..=BODY_LINE + 1).contains(l)),
            "{own:?}"
        );
        let file = map
            .files
            .iter()
            .find(|f| f.ends_with("fuzz/lines.rs"))
            .unwrap();
        let mut lines = map.instrumented();
        assert_eq!(lines[file.as_str()][&BODY_LINE], 0);
        // An input that hits counter 0 twice (and one past the table)
        // counts once; a second input makes two.
        map.add_input(&mut lines, [0, 0, 7].into_iter());
        map.add_input(&mut lines, [0].into_iter());
        assert_eq!(lines[file.as_str()][&BODY_LINE], 2);
        let before = lines.clone();
        map.add_input(&mut lines, [1].into_iter());
        assert_eq!(lines, before, "a block of no code reaches no line");
    }
}
