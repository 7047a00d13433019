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
//! the `fn` line of a function that ran as never run. A line is unknown
//! (left out) where its code is only in copies of its function (its
//! out-of-line code, or its code inlined at one chain of call sites) that
//! never ran, while another copy ran: see [`Tally::finish`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::fuzz::pool::PcTable;

/// Where each counter's block is in the source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineMap {
    /// The source files, as the debug info names them.
    pub files: Vec<String>,
    /// Per counter: the places of its block's code, the innermost inlined
    /// function's first, then each call site's.
    pub blocks: Vec<Vec<Place>>,
    /// The functions whose code has counters.
    pub functions: Vec<Function>,
    /// Per copy of a function in the binary (its out-of-line code, or its
    /// code inlined at one chain of call sites): the function's index in
    /// `functions`.
    pub copies: Vec<u32>,
}

/// A line of a block's code, and the copy of a function it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// The file's index in [`LineMap::files`].
    pub file: u32,
    pub line: u32,
    /// The copy's index in [`LineMap::copies`] (none where the debug info
    /// names no function).
    pub copy: Option<u32>,
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
    /// The lines of every block of `table`, from `binary`'s debug info,
    /// each file by its `file_name` (the debug info names one file in
    /// several ways: relative to the workspace or to the shadow build, so
    /// that an input reaching its line under two names would count twice);
    /// `Ok(None)` when `stop` is set before it is done (a large binary's
    /// blocks take seconds to map: Ctrl-C must not wait for them).
    pub(crate) fn new(
        binary: &Path,
        table: &PcTable,
        file_name: &dyn Fn(&str) -> String,
        stop: &AtomicBool,
    ) -> Result<Option<LineMap>, String> {
        let loader = addr2line::Loader::new(binary)
            .map_err(|e| format!("cannot read the debug info of {}: {e}", binary.display()))?;
        let data =
            std::fs::read(binary).map_err(|e| format!("cannot read {}: {e}", binary.display()))?;
        let file = object::File::parse(&*data)
            .map_err(|e| format!("cannot parse {}: {e}", binary.display()))?;
        let symbols = Symbols::new(&file);
        let ends = symbols.block_ends(&table.pcs);
        let code = Code::new(&file);
        let mut map = LineMap::default();
        let mut names = Names::default();
        for (&pc, &end) in table.pcs.iter().zip(&ends) {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let holder = symbols.holder(pc).unwrap_or(pc);
            let mut places = Vec::new();
            for mut row in block_lines(&loader, &code, pc, end) {
                row.file = file_name(&row.file);
                let place = map.place(&mut names, row, holder);
                if !places.contains(&place) {
                    places.push(place);
                }
            }
            map.blocks.push(places);
        }
        map.start_at_declarations(&file, file_name);
        Ok(Some(map))
    }

    /// Where `row` of a block of the function at address `holder` is: its
    /// file and line, and the copy of its function (the function's code
    /// at `holder`, inlined at the row's call sites).
    fn place(&mut self, names: &mut Names, row: Row, holder: u64) -> Place {
        let (file, new) = names.files.id(&row.file);
        if new {
            self.files.push(row.file);
        }
        let copy = row.function.map(|name| {
            // A function is one per file (a macro's lines are another
            // file's), and so is its copy.
            let function = self.function_id(&mut names.functions, name, file, row.line);
            let (copy, new) = names
                .copies
                .id(&format!("{holder:x} {function} {}", row.call_sites));
            if new {
                self.copies.push(function);
            }
            copy
        });
        Place {
            file,
            line: row.line,
            copy,
        }
    }

    /// Moves each function's line to its `fn` line, as the debug info
    /// declares it (its subprogram's `DW_AT_decl_line`), where that is in
    /// the function's file: the least line of its code is not the `fn`
    /// line where that code is a local `macro_rules!`'s, which keeps the
    /// macro's own lines, above the function (helper-47: `FN` records at a
    /// macro's line, and the `fn` lines of called functions shown as never
    /// run). The whole path is compared: a function a dependency's macro
    /// declares (`bitflags!`) is declared in that crate's `src/lib.rs`,
    /// not the one its code is in (helper-57 on pulldown-cmark: `FN` and
    /// covered lines at bitflags' line numbers). Without a declaration, a
    /// function keeps its least line.
    fn start_at_declarations(&mut self, file: &object::File, file_name: &dyn Fn(&str) -> String) {
        let declared = declared_lines(file);
        for f in &mut self.functions {
            let path = &self.files[f.file as usize];
            let ours = |(decl_file, _): &&(String, u32)| file_name(decl_file) == *path;
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

    /// A tally of a corpus's coverage, no input counted yet.
    pub(crate) fn tally(&self) -> Tally<'_> {
        Tally {
            map: self,
            counts: self.instrumented(),
            ran: vec![false; self.copies.len()],
        }
    }

    /// The copies block `counter`'s code is in.
    fn copies_of(&self, counter: usize) -> impl Iterator<Item = u32> + '_ {
        self.blocks[counter].iter().filter_map(|p| p.copy)
    }

    /// Every instrumented line and function, reached by no input yet.
    fn instrumented(&self) -> SourceCounts {
        let mut out = SourceCounts::default();
        for place in self.blocks.iter().flatten() {
            out.lines
                .entry(self.files[place.file as usize].clone())
                .or_default()
                .insert(place.line, 0);
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
}

/// A corpus's coverage being counted, input by input.
pub(crate) struct Tally<'map> {
    map: &'map LineMap,
    counts: SourceCounts,
    /// Per copy of a function: whether an input ran any of its code.
    ran: Vec<bool>,
}

impl Tally<'_> {
    /// Counts one input that hit the counters `covered` (indices past the
    /// table are ignored): each line it reached and each function it
    /// called, once.
    pub(crate) fn add_input(&mut self, covered: impl Iterator<Item = usize>) {
        let map = self.map;
        let covered: Vec<usize> = covered.filter(|&c| c < map.blocks.len()).collect();
        let copies: Vec<u32> = covered.iter().flat_map(|&c| map.copies_of(c)).collect();
        for &copy in &copies {
            self.ran[copy as usize] = true;
        }
        let mut called: Vec<u32> = copies.iter().map(|&c| map.copies[c as usize]).collect();
        called.sort_unstable();
        called.dedup();
        let called: Vec<&Function> = called.iter().map(|&i| &map.functions[i as usize]).collect();
        let mut reached: Vec<(u32, u32)> = covered
            .iter()
            .flat_map(|&counter| &map.blocks[counter])
            .map(|place| (place.file, place.line))
            .chain(called.iter().map(|f| (f.file, f.line)))
            .collect();
        reached.sort_unstable();
        reached.dedup();
        for (file, line) in reached {
            *self
                .counts
                .lines
                .entry(map.files[file as usize].clone())
                .or_default()
                .entry(line)
                .or_default() += 1;
        }
        for f in called {
            let file = self
                .counts
                .functions
                .entry(map.files[f.file as usize].clone());
            file.or_default()
                .entry(f.name.clone())
                .or_insert((f.line, 0))
                .1 += 1;
        }
    }

    /// Per line and per function, how many inputs reached it. A line no
    /// input reached is left out (unknown) where every copy holding its
    /// code never ran while another copy of its function did: the
    /// optimizer can leave a line's code in the function's out-of-line
    /// copy only, merged into other lines' code in the inlined copies
    /// that ran, and a source-based report counts it run there
    /// (helper-56 on ron: a small `if c { Ok(()) } else { Err(e) }`'s
    /// `Ok(())`, its out-of-line copy never called).
    pub(crate) fn finish(mut self) -> SourceCounts {
        for (file, line) in self.unknown_lines() {
            let path = &self.map.files[file as usize];
            if let Some(lines) = self.counts.lines.get_mut(path) {
                lines.remove(&line);
            }
        }
        self.counts.lines.retain(|_, lines| !lines.is_empty());
        self.counts
    }

    /// The lines no input reached whose code is only in copies that never
    /// ran of functions that ran in another copy.
    fn unknown_lines(&self) -> Vec<(u32, u32)> {
        let map = self.map;
        let mut function_ran = vec![false; map.functions.len()];
        for (copy, _) in self.ran.iter().enumerate().filter(|(_, &ran)| ran) {
            function_ran[map.copies[copy] as usize] = true;
        }
        let mut holders: BTreeMap<(u32, u32), Vec<Option<u32>>> = BTreeMap::new();
        for place in map.blocks.iter().flatten() {
            holders
                .entry((place.file, place.line))
                .or_default()
                .push(place.copy);
        }
        let unran = |copy: &Option<u32>| copy.is_some_and(|c| !self.ran[c as usize]);
        let ran_elsewhere = |copy: &Option<u32>| {
            copy.is_some_and(|c| function_ran[map.copies[c as usize] as usize])
        };
        let never_reached = |&(file, line): &(u32, u32)| {
            let lines = self.counts.lines.get(&map.files[file as usize]);
            lines.and_then(|l| l.get(&line)) == Some(&0)
        };
        holders
            .into_iter()
            .filter(|(at, copies)| {
                never_reached(at) && copies.iter().all(unran) && copies.iter().any(ran_elsewhere)
            })
            .map(|(at, _)| at)
            .collect()
    }
}

/// The interners of a [`LineMap`] being made: files, functions and copies
/// by name.
#[derive(Default)]
struct Names {
    files: Interner,
    functions: Interner,
    copies: Interner,
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

/// The path of file `index` of `unit`'s line program, joined to its
/// directory and the unit's as addr2line joins a location's (so that it
/// names the file as the line map does).
fn declared_file<R: addr2line::gimli::Reader>(
    dwarf: &addr2line::gimli::Dwarf<R>,
    unit: &addr2line::gimli::Unit<R>,
    index: u64,
) -> Option<String> {
    let header = unit.line_program.as_ref()?.header();
    let entry = header.file(index)?;
    let text = |value| -> Option<String> {
        let name = dwarf.attr_string(unit, value).ok()?;
        Some(name.to_string_lossy().ok()?.into_owned())
    };
    let mut path = match &unit.comp_dir {
        Some(dir) => dir.to_string_lossy().ok()?.into_owned(),
        None => String::new(),
    };
    // Directory 0 is the unit's own (DWARF 5), already in `path`.
    if entry.directory_index() != 0 {
        path_push(&mut path, &text(entry.directory(header)?)?);
    }
    path_push(&mut path, &text(entry.path_name())?);
    Some(path)
}

/// `path` joined with `part` (which replaces it when absolute), as
/// addr2line joins its locations' paths.
fn path_push(path: &mut String, part: &str) {
    if part.starts_with('/') || path.is_empty() {
        *path = part.to_string();
        return;
    }
    if !path.ends_with('/') {
        path.push('/');
    }
    path.push_str(part);
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

/// The binary's functions (its code symbols), by address.
struct Symbols(Vec<(u64, u64)>);

impl Symbols {
    fn new(file: &object::File) -> Symbols {
        use object::{Object, ObjectSymbol, SymbolKind};
        let mut functions: Vec<(u64, u64)> = file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
            .map(|s| (s.address(), s.address() + s.size()))
            .collect();
        functions.sort_unstable();
        Symbols(functions)
    }

    /// The start and end of the function holding `pc`.
    fn holding(&self, pc: u64) -> Option<(u64, u64)> {
        let after = self.0.partition_point(|&(start, _)| start <= pc);
        let (start, end) = self.0[..after].last().copied()?;
        (end > pc).then_some((start, end))
    }

    /// The address of the function holding `pc`.
    fn holder(&self, pc: u64) -> Option<u64> {
        self.holding(pc).map(|(start, _)| start)
    }

    /// Where each block's code ends: at the next block's address, or at
    /// the end of its function when that is nearer.
    fn block_ends(&self, pcs: &[u64]) -> Vec<u64> {
        let mut starts: Vec<u64> = pcs.to_vec();
        starts.sort_unstable();
        starts.dedup();
        pcs.iter()
            .map(|&pc| {
                let next = starts
                    .get(starts.partition_point(|&s| s <= pc))
                    .copied()
                    .unwrap_or(u64::MAX);
                let function_end = self.holding(pc).map_or(next, |(_, end)| end);
                next.min(function_end)
            })
            .collect()
    }
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
/// place, or the call site of what is inlined there, the function it is
/// in, and the call sites that function is inlined at (the frames outside
/// it).
struct Row {
    file: String,
    line: u32,
    function: Option<String>,
    call_sites: String,
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
    rows.into_iter()
        .flat_map(|address| frame_rows(loader, address))
        .collect()
}

/// The rows of the frames at `address`, innermost first.
fn frame_rows(loader: &addr2line::Loader, address: u64) -> Vec<Row> {
    let mut frames = Vec::new();
    if let Ok(mut iter) = loader.find_frames(address) {
        while let Ok(Some(frame)) = iter.next() {
            let located = frame
                .location
                .and_then(|l| Some((l.file?, l.line?, l.column)));
            let function = frame.function.as_ref().and_then(|f| f.demangle().ok());
            frames.push((located, function.map(|name| name.into_owned())));
        }
    }
    let mut out = Vec::new();
    let mut call_sites = String::new();
    for (located, function) in frames.into_iter().rev() {
        let Some((file, line, column)) = located else {
            continue;
        };
        if line > 0 {
            out.push(Row {
                file: file.to_string(),
                line,
                function,
                call_sites: call_sites.clone(),
            });
        }
        call_sites.push_str(&format!("{file}:{line}:{} ", column.unwrap_or(0)));
    }
    out.reverse();
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

    /// The line map of this test binary's blocks at `pcs`, files named as
    /// the debug info names them.
    fn this_binarys_map(pcs: Vec<u64>) -> LineMap {
        let exe = std::env::current_exe().unwrap();
        let table = PcTable { pcs };
        LineMap::new(
            &exe,
            &table,
            &|name| name.to_string(),
            &AtomicBool::new(false),
        )
        .unwrap()
        .unwrap()
    }

    /// This test binary's address of `lines_test_function`.
    fn linked_address() -> u64 {
        address_of("lines_test_function", lines_test_function as *const ())
    }

    /// This test binary's address of the test function `name`, at
    /// `runtime` as it runs.
    fn address_of(name: &str, runtime: *const ()) -> u64 {
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*exe).unwrap();
        use object::{Object, ObjectSymbol};
        let anchor = file
            .symbols()
            .find(|s| {
                s.name()
                    .is_ok_and(|n| n.contains(name) && n.contains("tests"))
            })
            .unwrap();
        assert_eq!(runtime as u64 % 4096, anchor.address() % 4096);
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
        // The declaration's path is the one its code's rows name (the
        // two are compared whole), so the function is put at its `fn` line.
        let pc = address_of("macro_test_function", macro_test_function as *const ());
        let map = this_binarys_map(vec![pc]);
        let function = map
            .functions
            .iter()
            .find(|f| f.name.ends_with("tests::macro_test_function"))
            .unwrap_or_else(|| panic!("{map:?}"));
        assert_eq!(function.line, MACRO_FN_LINE, "{map:?}");
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
        let pc = linked_address();
        // Counter 0: the function's entry, its block the whole function (no
        // other block in the table); counter 1: an address of no code.
        let map = this_binarys_map(vec![pc, u64::MAX - 16]);
        assert_eq!(map.blocks.len(), 2);
        assert!(map.blocks[1].is_empty(), "{map:?}");
        // Its own lines (the `fn` line, the body's), and the lines of what
        // is inlined into it, in other files; none of this file's others.
        let own: Vec<u32> = map.blocks[0]
            .iter()
            .filter(|p| map.files[p.file as usize].ends_with("fuzz/lines.rs"))
            .map(|p| p.line)
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
        let counts = map.tally().finish();
        assert_eq!(counts.lines[file.as_str()][&BODY_LINE], 0);
        // Counter 0's code is the function's (and what is inlined into
        // it), named without the hash, at the line where its code begins;
        // counter 1's is no function's.
        let function = map
            .copies_of(0)
            .map(|copy| &map.functions[map.copies[copy as usize] as usize])
            .find(|f| f.name.ends_with("::lines_test_function"))
            .unwrap_or_else(|| panic!("{map:?}"));
        assert!(function.name.ends_with("lines::tests::lines_test_function"));
        assert!((BODY_LINE - 1..=BODY_LINE).contains(&function.line));
        assert_eq!(map.files[function.file as usize], *file);
        let named = |counts: &SourceCounts| counts.functions[file.as_str()][&function.name];
        assert_eq!(named(&counts), (function.line, 0));
        // An input that hits counter 0 twice (and one past the table)
        // counts once; a second input makes two.
        let counted = |inputs: &[&[usize]]| count(&map, inputs);
        let counts = counted(&[&[0, 0, 7], &[0]]);
        assert_eq!(counts.lines[file.as_str()][&BODY_LINE], 2);
        assert_eq!(named(&counts), (function.line, 2));
        let more = counted(&[&[0, 0, 7], &[0], &[1]]);
        assert_eq!(more, counts, "a block of no code reaches no line");
    }

    /// The coverage of `inputs` (each the counters it hit) on `map`.
    fn count(map: &LineMap, inputs: &[&[usize]]) -> SourceCounts {
        let mut tally = map.tally();
        for input in inputs {
            tally.add_input(input.iter().copied());
        }
        tally.finish()
    }

    /// A place of `src/lib.rs`.
    fn at(line: u32, copy: u32) -> Place {
        Place {
            file: 0,
            line,
            copy: Some(copy),
        }
    }

    /// A map of one file's functions.
    fn map_of(functions: &[(&str, u32)], blocks: Vec<Vec<Place>>, copies: Vec<u32>) -> LineMap {
        LineMap {
            files: vec!["src/lib.rs".into()],
            blocks,
            functions: functions
                .iter()
                .map(|&(name, line)| Function {
                    name: name.into(),
                    file: 0,
                    line,
                })
                .collect(),
            copies,
        }
    }

    /// A row of `function` at `file:line`, inlined at no call site.
    fn row(file: &str, line: u32, function: &str) -> Row {
        Row {
            file: file.into(),
            line,
            function: Some(function.into()),
            call_sites: String::new(),
        }
    }

    /// A function's code in a macro of another file is that file's
    /// function (as its `FN` record), with a copy of its own: the copy of
    /// the function's own file is still called when the block runs
    /// (httparse's `parse_token`, whose `next!` is in `src/macros.rs`).
    #[test]
    fn a_copy_is_of_one_files_function() {
        let mut map = LineMap::default();
        let mut names = Names::default();
        let places = [
            row("src/macros.rs", 4, "httparse::parse_token"),
            row("src/lib.rs", 890, "httparse::parse_token"),
        ]
        .map(|r| map.place(&mut names, r, 0x1000));
        map.blocks.push(places.to_vec());
        assert_eq!(map.functions.len(), 2, "{map:?}");
        assert_ne!(places[0].copy, places[1].copy);
        let counts = count(&map, &[&[0]]);
        for (file, line) in [("src/macros.rs", 4), ("src/lib.rs", 890)] {
            assert_eq!(counts.functions[file]["httparse::parse_token"], (line, 1));
        }
    }

    /// A function's first line is reached whenever the function is, even
    /// where the only block of that line never runs (an inlined call's
    /// unwinding cleanup, at the `fn` line).
    #[test]
    fn a_function_that_ran_reached_its_first_line() {
        // Counter 0: the body (line 8); counter 1: the cleanup (line 7).
        let map = map_of(
            &[("lib::decode", 7)],
            vec![vec![at(8, 0)], vec![at(7, 0)]],
            vec![0],
        );
        assert_eq!(count(&map, &[]).lines["src/lib.rs"][&7], 0);
        let counts = count(&map, &[&[0], &[0, 1]]);
        assert_eq!(counts.lines["src/lib.rs"][&7], 2);
        assert_eq!(counts.lines["src/lib.rs"][&8], 2);
        assert_eq!(counts.functions["src/lib.rs"]["lib::decode"], (7, 2));
    }

    /// A line whose code is only in a copy of its function that never ran
    /// is unknown where another copy ran (the optimizer merged it there),
    /// and never run where a copy that ran holds code of it too, or where
    /// no copy of its function ran.
    #[test]
    fn a_line_only_in_a_copy_that_never_ran_is_unknown_where_another_ran() {
        // `expect` (line 10) returns `Ok(())` at line 11: its out-of-line
        // copy 0 (counter 0) holds lines 10 to 12, its copy 1 inlined into
        // `parse` (line 20; counter 1) only lines 10 and 12; `parse` is
        // copy 2, at line 21 (counter 2).
        let blocks = vec![
            vec![at(10, 0), at(11, 0), at(12, 0)],
            vec![at(10, 1), at(12, 1), at(21, 2)],
            vec![at(21, 2)],
        ];
        let functions = [("lib::expect", 10), ("lib::parse", 20)];
        let map = map_of(&functions, blocks.clone(), vec![0, 0, 1]);
        let lines = |inputs: &[&[usize]]| count(&map, inputs).lines["src/lib.rs"].clone();
        let inlined_ran = lines(&[&[1, 2]]);
        assert_eq!(inlined_ran.get(&11), None, "{inlined_ran:?}");
        assert_eq!(inlined_ran[&12], 1);
        assert_eq!(lines(&[&[2]])[&11], 0, "no copy of `expect` ran");
        assert_eq!(lines(&[&[0], &[1]])[&11], 1);
        // Where the inlined copy holds line 11 too (in counter 3's block),
        // it ran and line 11 did not: never run.
        let mut held = blocks;
        held.push(vec![at(11, 1)]);
        let map = map_of(&functions, held, vec![0, 0, 1]);
        assert_eq!(count(&map, &[&[1, 2]]).lines["src/lib.rs"][&11], 0);
    }
}
