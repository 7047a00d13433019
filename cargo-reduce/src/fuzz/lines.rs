//! Line coverage of the coverage reports' build (`BuildKind::Lines`, a
//! counter in every block): each counter's block, the code from its
//! address in the PC table to the next block's (or its function's end),
//! alignment padding left out, mapped to source lines with the binary's
//! line tables (addr2line), every inlined call's line included; and a
//! corpus's covered counters counted per line.
//!
//! A line is instrumented when some block's code maps to it, and covered
//! when one of those blocks' counters was hit; its count is the number of
//! inputs that reached it (an 8-bit counter saturates, so hits are not
//! counted). A function is any that a block's code belongs to, inlined or
//! not, named as its symbol demangles without the hash (so a generic
//! function's instances, and its inlined copies, are one function), at its
//! `fn` line as the debug info declares it (else the first line of its
//! code); its count is the number of inputs that ran any of its code.
//! That line counts as reached by every input that
//! called the function: code there that no input runs (the unwinding
//! cleanup of a call inlined into another) is no line a source-based
//! report (`cargo fuzz coverage`'s llvm-cov) counts, and it would mark
//! the `fn` line of a function that ran as never run.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::fuzz::pool::PcTable;

/// Where each counter's block is in the source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineMap {
    /// The source files, as the debug info names them.
    pub files: Vec<String>,
    /// Per counter: its (file index, line)s, the innermost inlined
    /// function's first, then each call site's.
    pub lines: Vec<Vec<(u32, u32)>>,
    /// The functions whose code has counters.
    pub functions: Vec<Function>,
    /// Per counter: the indices in `functions` of the functions its
    /// block's code belongs to (the innermost inlined one's first).
    pub function_ids: Vec<Vec<u32>>,
}

/// A function of the coverage build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Function {
    /// Its demangled name, without the hash.
    pub name: String,
    /// Its file's index in [`LineMap::files`].
    pub file: u32,
    /// Its `fn` line as the debug info declares it, else the first line
    /// of its code.
    pub line: u32,
}

/// Per source file (as the debug info names it): per instrumented line,
/// how many inputs reached it (0: none).
pub(crate) type FileLines = BTreeMap<String, BTreeMap<u32, u64>>;

/// Per source file (as the debug info names it): per function (its name),
/// its line and how many inputs called it (0: none).
pub(crate) type FileFunctions = BTreeMap<String, BTreeMap<String, (u32, u64)>>;

/// A corpus's coverage, its files as the debug info names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SourceCounts {
    /// Per line.
    pub lines: FileLines,
    /// Per function.
    pub functions: FileFunctions,
}

impl LineMap {
    /// The lines of every block of `table`, from `binary`'s debug info;
    /// `Ok(None)` when `stop` is set before it is done (a large binary's
    /// blocks take seconds to map: Ctrl-C must not wait for them).
    pub(crate) fn new(
        binary: &Path,
        table: &PcTable,
        stop: &AtomicBool,
    ) -> Result<Option<LineMap>, String> {
        let loader = addr2line::Loader::new(binary)
            .map_err(|e| format!("cannot read the debug info of {}: {e}", binary.display()))?;
        let data =
            std::fs::read(binary).map_err(|e| format!("cannot read {}: {e}", binary.display()))?;
        let file = object::File::parse(&*data)
            .map_err(|e| format!("cannot parse {}: {e}", binary.display()))?;
        let ends = block_ends(&file, &table.pcs);
        let code = Code::new(&file);
        let mut map = LineMap::default();
        let mut files = Interner::default();
        let mut functions = Interner::default();
        for (&pc, &end) in table.pcs.iter().zip(&ends) {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let mut lines = Vec::new();
            let mut ids = Vec::new();
            for row in block_lines(&loader, &code, pc, end) {
                let (file, new) = files.id(&row.file);
                if new {
                    map.files.push(row.file);
                }
                if !lines.contains(&(file, row.line)) {
                    lines.push((file, row.line));
                }
                if let Some(name) = row.function {
                    let id = map.function_id(&mut functions, name, file, row.line);
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            map.lines.push(lines);
            map.function_ids.push(ids);
        }
        map.start_at_declarations(&file);
        Ok(Some(map))
    }

    /// Moves each function's line to its `fn` line, as the debug info
    /// declares it (its subprogram's `DW_AT_decl_line`), where that is in
    /// the function's file: the least line of its code is not the `fn`
    /// line where that code is a local `macro_rules!`'s, which keeps the
    /// macro's own lines, above the function (helper-47: `FN` records at a
    /// macro's line, and the `fn` lines of called functions shown as never
    /// run). Without a declaration, a function keeps its least line.
    fn start_at_declarations(&mut self, file: &object::File) {
        let declared = declared_lines(file);
        for f in &mut self.functions {
            let path = &self.files[f.file as usize];
            let ours = |(decl_file, _): &&(String, u32)| {
                Path::new(decl_file).file_name() == Path::new(path).file_name()
            };
            if let Some((_, line)) = declared.get(&f.name).filter(ours) {
                f.line = *line;
            }
        }
    }

    /// The index of function `name` of `file`, seen at `line` (its first
    /// line the least seen).
    fn function_id(&mut self, ids: &mut Interner, name: String, file: u32, line: u32) -> u32 {
        let (id, new) = ids.id(&format!("{file}:{name}"));
        match new {
            true => self.functions.push(Function { name, file, line }),
            false => {
                let function = &mut self.functions[id as usize];
                function.line = function.line.min(line);
            }
        }
        id
    }

    /// Every instrumented line and function, reached by no input yet.
    pub(crate) fn instrumented(&self) -> SourceCounts {
        let mut out = SourceCounts::default();
        for &(file, line) in self.lines.iter().flatten() {
            out.lines
                .entry(self.files[file as usize].clone())
                .or_default()
                .insert(line, 0);
        }
        for f in &self.functions {
            let file = &self.files[f.file as usize];
            out.lines
                .entry(file.clone())
                .or_default()
                .entry(f.line)
                .or_insert(0);
            out.functions
                .entry(file.clone())
                .or_default()
                .insert(f.name.clone(), (f.line, 0));
        }
        out
    }

    /// Counts one input that hit the counters `covered` (indices past the
    /// table are ignored): each line it reached and each function it
    /// called, once.
    pub(crate) fn add_input(&self, out: &mut SourceCounts, covered: impl Iterator<Item = usize>) {
        let covered: Vec<usize> = covered.filter(|&c| c < self.lines.len()).collect();
        let mut called: Vec<u32> = covered
            .iter()
            .flat_map(|&c| &self.function_ids[c])
            .copied()
            .collect();
        called.sort_unstable();
        called.dedup();
        let called: Vec<&Function> = called
            .iter()
            .map(|&i| &self.functions[i as usize])
            .collect();
        let mut reached: Vec<(u32, u32)> = covered
            .iter()
            .flat_map(|&counter| &self.lines[counter])
            .copied()
            .chain(called.iter().map(|f| (f.file, f.line)))
            .collect();
        reached.sort_unstable();
        reached.dedup();
        for (file, line) in reached {
            *out.lines
                .entry(self.files[file as usize].clone())
                .or_default()
                .entry(line)
                .or_default() += 1;
        }
        for f in called {
            let file = out.functions.entry(self.files[f.file as usize].clone());
            file.or_default()
                .entry(f.name.clone())
                .or_insert((f.line, 0))
                .1 += 1;
        }
    }
}

/// Each function's declared file and `fn` line (`DW_AT_decl_file`,
/// `DW_AT_decl_line`) by its linkage name, demangled without the hash as
/// the line map names functions; empty where the debug info cannot be read
/// (the functions then keep their least lines).
fn declared_lines(file: &object::File) -> BTreeMap<String, (String, u32)> {
    use addr2line::gimli;
    use object::{Object, ObjectSection};
    let endian = match file.is_little_endian() {
        true => gimli::RunTimeEndian::Little,
        false => gimli::RunTimeEndian::Big,
    };
    let load = |id: gimli::SectionId| -> Result<std::borrow::Cow<'_, [u8]>, gimli::Error> {
        let data = file
            .section_by_name(id.name())
            .and_then(|s| s.uncompressed_data().ok());
        Ok(data.unwrap_or_default())
    };
    let Ok(sections) = gimli::DwarfSections::load(load) else {
        return BTreeMap::new();
    };
    let dwarf = sections.borrow(|section| gimli::EndianSlice::new(section, endian));
    let mut declared = BTreeMap::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let mut entries = unit.entries();
        while let Ok(Some(entry)) = entries.next_dfs() {
            if entry.tag() != gimli::DW_TAG_subprogram {
                continue;
            }
            let line = entry
                .attr_value(gimli::DW_AT_decl_line)
                .and_then(|v| v.udata_value());
            let linkage = entry.attr_value(gimli::DW_AT_linkage_name);
            let (Some(line), Some(linkage)) = (line, linkage) else {
                continue;
            };
            let Ok(name) = dwarf.attr_string(&unit, linkage) else {
                continue;
            };
            let decl_file = entry
                .attr_value(gimli::DW_AT_decl_file)
                .and_then(|v| match v {
                    gimli::AttributeValue::FileIndex(index) => Some(index),
                    v => v.udata_value(),
                })
                .and_then(|index| declared_file(&dwarf, &unit, index));
            let (Some(decl_file), Ok(line)) = (decl_file, u32::try_from(line)) else {
                continue;
            };
            let name = addr2line::demangle_auto(name.to_string_lossy(), None).into_owned();
            // A function's closures share its name: the first one's line.
            let first = declared.entry(name).or_insert((decl_file.clone(), line));
            if first.0 == decl_file && line < first.1 {
                first.1 = line;
            }
        }
    }
    declared
}

/// The name of file `index` of `unit`'s line program.
fn declared_file<R: addr2line::gimli::Reader>(
    dwarf: &addr2line::gimli::Dwarf<R>,
    unit: &addr2line::gimli::Unit<R>,
    index: u64,
) -> Option<String> {
    let header = unit.line_program.as_ref()?.header();
    let entry = header.file(index)?;
    let name = dwarf.attr_string(unit, entry.path_name()).ok()?;
    Some(name.to_string_lossy().ok()?.into_owned())
}

/// Indices given to names in the order first seen.
#[derive(Default)]
struct Interner(BTreeMap<String, u32>);

impl Interner {
    /// `name`'s index, and whether it is new.
    fn id(&mut self, name: &str) -> (u32, bool) {
        if let Some(&id) = self.0.get(name) {
            return (id, false);
        }
        let id = self.0.len() as u32;
        self.0.insert(name.to_string(), id);
        (id, true)
    }
}

/// Where each block's code ends: at the next block's address, or at the
/// end of its function (the symbol that holds it) when that is nearer.
fn block_ends(file: &object::File, pcs: &[u64]) -> Vec<u64> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let mut functions: Vec<(u64, u64)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .map(|s| (s.address(), s.address() + s.size()))
        .collect();
    functions.sort_unstable();
    let mut starts: Vec<u64> = pcs.to_vec();
    starts.sort_unstable();
    starts.dedup();
    pcs.iter()
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
        .collect()
}

/// The binary's code, to tell alignment padding from instructions: the
/// padding before a block (a loop's head, say) follows the previous
/// block's jump, is never run, and has a line-table row of its own whose
/// inlined calls are the next block's; read as the previous block's code,
/// it gave that block's counter lines it never runs.
struct Code<'data> {
    /// The executable sections: (address, bytes).
    sections: Vec<(u64, &'data [u8])>,
    /// Padding is recognised in x86-64 code only (its `nop` forms).
    x86_64: bool,
}

impl<'data> Code<'data> {
    fn new(file: &object::File<'data>) -> Code<'data> {
        use object::{Object, ObjectSection, SectionKind};
        let sections = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .filter_map(|s| Some((s.address(), s.data().ok()?)))
            .collect();
        let x86_64 = file.architecture() == object::Architecture::X86_64;
        Code { sections, x86_64 }
    }

    /// Whether the code in `[start, stop)` is alignment padding only.
    fn is_padding(&self, start: u64, stop: u64) -> bool {
        if !self.x86_64 || stop <= start {
            return false;
        }
        self.sections.iter().any(|&(address, bytes)| {
            let from = start.wrapping_sub(address) as usize;
            let to = stop.wrapping_sub(address) as usize;
            start >= address && to <= bytes.len() && x86_nops(&bytes[from..to])
        })
    }
}

/// Whether `code` is x86-64 `nop`s only, in the forms assemblers pad with
/// (`nop`, `nopl`/`nopw` with `0x66` and `cs` prefixes), and not empty.
fn x86_nops(mut code: &[u8]) -> bool {
    const FORMS: [&[u8]; 6] = [
        &[0x90],
        &[0x0f, 0x1f, 0x00],
        &[0x0f, 0x1f, 0x40, 0x00],
        &[0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
        &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    ];
    if code.is_empty() {
        return false;
    }
    while !code.is_empty() {
        let prefixes = code.iter().take_while(|&&b| b == 0x66).count();
        let mut rest = &code[prefixes..];
        if rest.first() == Some(&0x2e) {
            rest = &rest[1..];
        }
        match FORMS.iter().find(|form| rest.starts_with(form)) {
            Some(form) => code = &rest[form.len()..],
            None => return false,
        }
    }
    true
}

/// A line-table row of a block's code, as one frame sees it: the code's
/// place, or the call site of what is inlined there, and the function it
/// is in.
struct Row {
    file: String,
    line: u32,
    function: Option<String>,
}

/// The rows of the code in `[pc, end)`: of each line-table row there and
/// of each call it is inlined into; line 0 (code of no line) and rows of
/// alignment padding left out.
fn block_lines(loader: &addr2line::Loader, code: &Code, pc: u64, end: u64) -> Vec<Row> {
    let mut rows = vec![pc];
    let mut padding = Vec::new();
    if let Ok(ranges) = loader.find_location_range(pc, end) {
        for (address, len, _) in ranges {
            let (start, stop) = (address.max(pc), address.saturating_add(len).min(end));
            rows.push(start);
            if code.is_padding(start, stop) {
                padding.push(start);
            }
        }
    }
    rows.sort_unstable();
    rows.dedup();
    rows.retain(|row| !padding.contains(row));
    let mut out = Vec::new();
    for address in rows {
        let Ok(mut frames) = loader.find_frames(address) else {
            continue;
        };
        while let Ok(Some(frame)) = frames.next() {
            let located = frame.location.and_then(|l| Some((l.file?, l.line?)));
            if let Some((file, line)) = located.filter(|&(_, line)| line > 0) {
                let function = frame.function.as_ref().and_then(|f| f.demangle().ok());
                out.push(Row {
                    file: file.to_string(),
                    line,
                    function: function.map(|name| name.into_owned()),
                });
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

    /// Code of a local macro keeps the macro's own lines, above the
    /// function that uses it.
    macro_rules! doubled {
        ($x:expr) => {
            std::hint::black_box($x).wrapping_mul(2)
        };
    }

    /// The `fn` line of `macro_test_function`.
    const MACRO_FN_LINE: u32 = line!() + 2;
    #[inline(never)]
    fn macro_test_function(x: u64) -> u64 {
        doubled!(x)
    }

    /// A function's line is its `fn` line as the debug info declares it,
    /// not the least line of its code (a macro's, above it).
    #[test]
    fn a_function_is_declared_at_its_fn_line_not_at_its_macros() {
        assert_eq!(std::hint::black_box(macro_test_function(3)), 6);
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*exe).unwrap();
        let declared = declared_lines(&file);
        let (decl_file, line) = &declared["cargo_reduce::fuzz::lines::tests::macro_test_function"];
        let decl_file = Path::new(decl_file).file_name();
        assert_eq!(
            (decl_file, *line),
            (Some("lines.rs".as_ref()), MACRO_FN_LINE)
        );
    }

    #[test]
    fn alignment_padding_is_told_from_code() {
        // The padding of proc-macro2's coverage build, after a `jmp` and
        // before a loop's head: `cs nopw 0x0(%rax,%rax,1)`, `nopw`.
        assert!(x86_nops(&[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0]));
        assert!(x86_nops(&[0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0]));
        // Longer padding: prefixes, and several `nop`s in a row.
        let long = [
            0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0, 0x0f, 0x1f, 0x40, 0, 0x90,
        ];
        assert!(x86_nops(&long));
        assert!(x86_nops(&[0x66, 0x90]));
        // Code is not padding, nor is nothing, nor a `nop` cut short.
        assert!(!x86_nops(&[]));
        assert!(!x86_nops(&[0xc3]));
        assert!(!x86_nops(&[0x90, 0xeb, 0x05]));
        assert!(!x86_nops(&[0x0f, 0x1f, 0x84, 0, 0]));
        assert!(!x86_nops(&[0x66]));
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
        let map = LineMap::new(&exe, &table, &AtomicBool::new(false))
            .unwrap()
            .unwrap();
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
        let mut counts = map.instrumented();
        assert_eq!(counts.lines[file.as_str()][&BODY_LINE], 0);
        // Counter 0's code is the function's (and what is inlined into
        // it), named without the hash, at the line where its code begins;
        // counter 1's is no function's.
        assert!(map.function_ids[1].is_empty());
        let function = map.function_ids[0]
            .iter()
            .map(|&i| &map.functions[i as usize])
            .find(|f| f.name.ends_with("::lines_test_function"))
            .unwrap_or_else(|| panic!("{map:?}"));
        assert!(function.name.ends_with("lines::tests::lines_test_function"));
        assert!((BODY_LINE - 1..=BODY_LINE).contains(&function.line));
        assert_eq!(map.files[function.file as usize], *file);
        let named = |counts: &SourceCounts| counts.functions[file.as_str()][&function.name];
        assert_eq!(named(&counts), (function.line, 0));
        // An input that hits counter 0 twice (and one past the table)
        // counts once; a second input makes two.
        map.add_input(&mut counts, [0, 0, 7].into_iter());
        map.add_input(&mut counts, [0].into_iter());
        assert_eq!(counts.lines[file.as_str()][&BODY_LINE], 2);
        assert_eq!(named(&counts), (function.line, 2));
        let before = counts.clone();
        map.add_input(&mut counts, [1].into_iter());
        assert_eq!(counts, before, "a block of no code reaches no line");
    }

    /// A function's first line is reached whenever the function is, even
    /// where the only block of that line never runs (an inlined call's
    /// unwinding cleanup, at the `fn` line).
    #[test]
    fn a_function_that_ran_reached_its_first_line() {
        let map = LineMap {
            files: vec!["src/lib.rs".into()],
            // Counter 0: the body (line 8); counter 1: the cleanup (line 7).
            lines: vec![vec![(0, 8)], vec![(0, 7)]],
            functions: vec![Function {
                name: "lib::decode".into(),
                file: 0,
                line: 7,
            }],
            function_ids: vec![vec![0], vec![0]],
        };
        let mut counts = map.instrumented();
        assert_eq!(counts.lines["src/lib.rs"][&7], 0);
        map.add_input(&mut counts, [0].into_iter());
        map.add_input(&mut counts, [0, 1].into_iter());
        assert_eq!(counts.lines["src/lib.rs"][&7], 2);
        assert_eq!(counts.lines["src/lib.rs"][&8], 2);
        assert_eq!(counts.functions["src/lib.rs"]["lib::decode"], (7, 2));
    }
}
