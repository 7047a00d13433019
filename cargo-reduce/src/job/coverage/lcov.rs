//! A coverage report as an lcov tracefile (`lcov.info`), the `lcov`
//! crate's records: per file, `FN:<line>,<name>` and
//! `FNDA:<inputs that called it>,<name>` for each function with their
//! totals, then `DA:<line>,<inputs that reached it>` and the line totals,
//! read by genhtml, Codecov, Coveralls and IDE gutters. No branch records
//! (`BRDA`): a block counter says a block ran, not which way the branch
//! before it went, and the build keeps no control-flow graph to tell.

use std::collections::BTreeMap;
use std::fmt::Write;

use lcov::Record;

use super::report::Coverage;

/// The tracefile of `coverage`, its files by absolute path; `test` names
/// the test (`TN:`), as one target's corpus, in the letters, digits and
/// underscores genhtml keeps.
pub(super) fn tracefile(coverage: &Coverage, test: &str) -> String {
    let test: String = test
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut out = String::new();
    for (path, lines) in &coverage.files {
        let mut records = vec![
            Record::TestName {
                name: test.to_string(),
            },
            Record::SourceFile { path: path.clone() },
        ];
        if let Some(functions) = coverage.functions.get(path) {
            records.extend(function_records(functions));
        }
        records.extend(lines.iter().map(|(&line, &count)| Record::LineData {
            line,
            count,
            checksum: None,
        }));
        records.extend([
            Record::LinesFound {
                found: lines.len() as u32,
            },
            Record::LinesHit {
                hit: lines.values().filter(|&&n| n > 0).count() as u32,
            },
            Record::EndOfRecord,
        ]);
        for record in records {
            let _ = writeln!(out, "{record}");
        }
    }
    out
}

/// The `FN`s (by line), `FNDA`s and totals of a file's `functions`.
fn function_records(functions: &BTreeMap<String, (u32, u64)>) -> Vec<Record> {
    let mut by_line: Vec<(&String, u32, u64)> = functions
        .iter()
        .map(|(name, &(line, count))| (name, line, count))
        .collect();
    by_line.sort_by_key(|&(name, line, _)| (line, name));
    let names = by_line.iter().map(|&(name, line, _)| Record::FunctionName {
        name: name.clone(),
        start_line: line,
    });
    let data = by_line
        .iter()
        .map(|&(name, _, count)| Record::FunctionData {
            name: name.clone(),
            count,
        });
    let totals = [
        Record::FunctionsFound {
            found: functions.len() as u32,
        },
        Record::FunctionsHit {
            hit: functions.values().filter(|(_, n)| *n > 0).count() as u32,
        },
    ];
    names.chain(data).chain(totals).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_tracefile_reads_back_with_the_same_lines_and_totals() {
        let coverage = Coverage {
            files: BTreeMap::from([
                (
                    PathBuf::from("/w/src/lib.rs"),
                    BTreeMap::from([(3, 2), (4, 0), (9, 1)]),
                ),
                (PathBuf::from("/w/fuzz/t.rs"), BTreeMap::from([(1, 5)])),
            ]),
            functions: BTreeMap::from([(
                PathBuf::from("/w/src/lib.rs"),
                BTreeMap::from([
                    ("lib::parse".to_string(), (3, 2)),
                    ("lib::unused".to_string(), (9, 0)),
                ]),
            )]),
        };
        let text = tracefile(&coverage, "parse-json");
        assert!(
            text.starts_with("TN:parse_json\nSF:/w/fuzz/t.rs\nDA:1,5\nLF:1\nLH:1\nend_of_record\n")
        );
        let report = lcov::Report::from_reader(lcov::Reader::new(text.as_bytes())).unwrap();
        let lib = report
            .sections
            .iter()
            .find(|(k, _)| k.source_file == std::path::Path::new("/w/src/lib.rs"))
            .unwrap()
            .1;
        let counts: Vec<(u32, u64)> = lib.lines.iter().map(|(k, v)| (k.line, v.count)).collect();
        assert_eq!(counts, [(3, 2), (4, 0), (9, 1)]);
        let functions: Vec<(&str, u32, u64)> = lib
            .functions
            .iter()
            .map(|(k, v)| (k.name.as_str(), v.start_line.unwrap_or(0), v.count))
            .collect();
        assert_eq!(functions, [("lib::parse", 3, 2), ("lib::unused", 9, 0)]);
        assert!(text.contains("FNF:2\nFNH:1\n"), "{text}");
    }
}
