//! `--pretty`: the MCVE made readable for a human, as long as it still
//! crashes rustc the same way.
//!
//! The smallest MCVE leans on rustc's parser recovery (`use a:b` for
//! `use a::b;`, an `impl` without `for`), and rustfmt refuses a file that
//! does not parse, so rustfmt alone would leave it as dense as the reducer
//! did. rustc says how to repair each such error, in suggestions: the
//! machine-applicable ones (those `cargo fix` applies) and, for a syntax
//! error, the less sure ones without placeholders ([`keep_trusted`]). They
//! are applied first, with the `rustfix` library, round after round, then
//! rustfmt formats the repaired text. Each step is kept only when the ICE stays. It runs
//! last, once the MCVE and its auxiliary crates are reduced, on the MCVE
//! and then (rustfmt alone) on each auxiliary (`subject.rs`).

use std::collections::HashSet;
use std::io;

use rustfix::diagnostics::Diagnostic;
use rustfix::{CodeFix, Filter, Replacement, Solution, Suggestion};

use crate::command::filter;
use crate::engine::{Cancel, OracleError};
use crate::job::ice::oracle::{CouldNotRun, IceOracle};
use crate::job::ice::tester::Tester;

/// Rounds of repairs at most: a repair can uncover the next error
/// (a missing `;` hides what follows it).
const ROUNDS: usize = 4;

/// `source` (which crashes rustc as `oracle` expects) repaired and
/// formatted, or as far as the ICE allows. The error when rustc cannot
/// run.
pub(crate) fn readable(
    source: &[u8],
    oracle: &IceOracle,
    tester: &Tester<'_>,
) -> Result<Vec<u8>, OracleError> {
    let keeps = |text: &[u8]| tester.keeps(oracle, text);
    let repaired = repaired(source, oracle, tester, &keeps)?;
    Ok(
        match rustfmt(&repaired, oracle.rustc.invocation.edition()) {
            Some(pretty) if pretty != repaired && keeps(&pretty)? => pretty,
            _ => repaired,
        },
    )
}

/// Whether a text keeps the ICE; the error when rustc cannot run.
type Keeps<'a> = dyn Fn(&[u8]) -> Result<bool, OracleError> + 'a;

/// One error's repair: its alternatives, in rustc's order (`mut ` or
/// `const ` before a raw pointer's type), each a suggestion of one
/// solution.
type Repair = Vec<Suggestion>;

/// Alternatives of one repair tried at most.
const ALTERNATIVES: usize = 3;

/// `source` with rustc's repairs of its errors applied: all of a round's
/// at once (each its first alternative), or, when together they lose the
/// ICE, one by one, each the first alternative that keeps it.
fn repaired(
    source: &[u8],
    oracle: &IceOracle,
    tester: &Tester<'_>,
    keeps: &Keeps<'_>,
) -> Result<Vec<u8>, OracleError> {
    let mut text = source.to_vec();
    for _ in 0..ROUNDS {
        let Ok(code) = std::str::from_utf8(&text) else {
            break;
        };
        let repairs = tester.compile(|cancel| repairs(code, oracle, cancel));
        let Some(repairs) = repairs.transpose().map_err(CouldNotRun)? else {
            break;
        };
        if repairs.is_empty() {
            break;
        }
        let firsts: Vec<Suggestion> = repairs.iter().map(|r| r[0].clone()).collect();
        let next = match applied(code, &firsts) {
            Some(all) if keeps(all.as_bytes())? => all,
            _ => one_by_one(code, &repairs, keeps)?,
        };
        if next.as_bytes() == text {
            break;
        }
        text = next.into_bytes();
    }
    Ok(text)
}

/// `code` with each repair's first alternative that keeps the ICE beside
/// the ones kept before it (all applied to `code` at once: their places
/// are `code`'s).
fn one_by_one(code: &str, repairs: &[Repair], keeps: &Keeps<'_>) -> Result<String, OracleError> {
    let mut kept: Vec<Suggestion> = Vec::new();
    let mut text = code.to_string();
    for repair in repairs {
        for alternative in repair.iter().take(ALTERNATIVES) {
            kept.push(alternative.clone());
            let next = applied(code, &kept);
            match next {
                Some(next) if keeps(next.as_bytes())? => {
                    text = next;
                    break;
                }
                _ => {
                    kept.pop();
                }
            }
        }
    }
    Ok(text)
}

/// The repairs rustc suggests for its errors on `code`, in the MCVE's
/// file, from its JSON diagnostics.
fn repairs(code: &str, oracle: &IceOracle, cancel: &Cancel<'_>) -> io::Result<Vec<Repair>> {
    let run = oracle
        .rustc
        .run_with(code.as_bytes(), &["--error-format=json"], cancel)?;
    Ok(error_repairs(&run.stderr, &oracle.rustc.file_name))
}

/// The repairs of `stderr`'s JSON errors (not warnings: their fixes
/// delete what a lint calls unused, not what fails to parse) that rustc
/// is sure enough of ([`keep_trusted`]) and that replace text of `file`
/// only.
fn error_repairs(stderr: &str, file: &str) -> Vec<Repair> {
    stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|value| value["level"] == "error")
        .filter_map(|mut value| {
            keep_trusted(&mut value);
            serde_json::from_value::<Diagnostic>(value).ok()
        })
        .filter_map(|d| rustfix::collect_suggestions(&d, &HashSet::new(), Filter::Everything))
        .map(|s| alternatives(s, file))
        .filter(|repair| !repair.is_empty())
        .collect()
}

/// A suggestion's alternatives: each of its solutions, and within one,
/// each of the replacements offered for one place (the k-th alternative
/// takes the k-th at every place); those touching another file left out.
fn alternatives(suggestion: Suggestion, file: &str) -> Repair {
    let Suggestion {
        message,
        snippets,
        solutions,
    } = suggestion;
    let mut out = Vec::new();
    for solution in solutions {
        let mut places: Vec<Vec<Replacement>> = Vec::new();
        for r in solution.replacements {
            match places
                .iter_mut()
                .find(|p| p[0].snippet.range == r.snippet.range)
            {
                Some(place) => place.push(r),
                None => places.push(vec![r]),
            }
        }
        let count = places.iter().map(Vec::len).max().unwrap_or(0);
        for k in 0..count {
            let replacements: Vec<Replacement> = places
                .iter()
                .map(|p| p[k.min(p.len() - 1)].clone())
                .collect();
            if replacements.iter().all(|r| r.snippet.file_name == file) {
                out.push(Suggestion {
                    message: message.clone(),
                    snippets: snippets.clone(),
                    solutions: vec![Solution {
                        message: solution.message.clone(),
                        replacements,
                    }],
                });
            }
        }
    }
    out
}

/// Leaves in `diagnostic` (rustc's JSON) only the replacements to try: a
/// machine-applicable one; for a syntax error (no error code), whose
/// repair is what the parser's recovery assumed anyway, also a "maybe
/// incorrect" one and one marked as having placeholders whose text has
/// none (`mut ` or `const ` before a raw pointer's type, not `= <type>;`).
fn keep_trusted(diagnostic: &mut serde_json::Value) {
    let syntax = diagnostic["code"].is_null();
    let Some(children) = diagnostic["children"].as_array_mut() else {
        return;
    };
    for child in children {
        if let Some(spans) = child["spans"].as_array_mut() {
            spans.retain(|span| {
                let text = span["suggested_replacement"].as_str().unwrap_or("");
                match span["suggestion_applicability"].as_str() {
                    Some("MachineApplicable") => true,
                    Some("MaybeIncorrect") => syntax,
                    Some("HasPlaceholders") => {
                        syntax && !["/*", "<", ">", "..."].iter().any(|p| text.contains(p))
                    }
                    _ => false,
                }
            });
        }
    }
}

/// `code` with `suggestions` applied; `None` when they overlap.
fn applied(code: &str, suggestions: &[Suggestion]) -> Option<String> {
    let mut fix = CodeFix::new(code);
    for suggestion in suggestions {
        fix.apply(suggestion).ok()?;
    }
    fix.finish().ok()
}

/// `source` as rustfmt formats it for `edition`, if rustfmt is installed
/// and accepts it.
pub(crate) fn rustfmt(source: &[u8], edition: &str) -> Option<Vec<u8>> {
    filter(crate::syntax::rustfmt(edition), source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Limits, Reducer};
    use crate::job::ice::oracle::Verdict;

    /// `source`, which crashes rustc 1.95 under `command`, made readable;
    /// it must still crash the same way.
    fn made_readable(source: &str, command: &str) -> String {
        let oracle = crate::job::ice::oracle::oracle_for(source, command);
        let reducer = Reducer::new();
        let out = readable(source.as_bytes(), &oracle, &Tester::of(reducer.context())).unwrap();
        assert!(reducer.tests() >= 3, "{}", reducer.tests());
        let again = oracle.same_ice(&out, &Cancel::by_limits(&Limits::none()));
        assert!(matches!(again, Verdict::Same));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rustc_s_repairs_then_rustfmt_make_the_dense_mcve_readable_and_it_still_crashes() {
        if !crate::job::ice::oracle::ice_toolchain(
            "rustc_s_repairs_then_rustfmt_make_the_dense_mcve_readable",
        ) {
            return;
        }
        // rust-lang/rust#148095 as `cargo reduce ice` leaves it: 45 tokens
        // that rustc 1.95 parses only by recovering from seven errors.
        let dense = "use core:ops:Mul\nstruct c<a>;impl<S>Mul<c<<f32 as Mul<S>>:Output>>f32\nwhere[Self::Output]:{type Output\n}";
        let out = made_readable(
            dense,
            "rustc --crate-name anstyle --edition=2021 x.rs --crate-type lib",
        );
        assert!(
            out.starts_with("use core::ops::Mul;\nstruct c<a>;\nimpl<S> Mul<c<<f32 as Mul<S>>::Output>> for f32\nwhere\n    [Self::Output]:,\n{\n"),
            "{out}"
        );
        // rust-lang/rust#154779: rustc's first repair of `*b` (`*mut b`)
        // loses the ICE, its second (`*const b`) keeps it.
        let dense = "const a:&b=&*(&[]as*b)\nstruct b([str\n1]);";
        let out = made_readable(
            dense,
            "rustc --crate-name foldhash --edition=2021 x.rs --crate-type lib",
        );
        assert_eq!(
            out,
            "const a: &b = &*(&[] as *const b);\nstruct b([str; 1]);\n"
        );
    }

    #[test]
    fn only_repairs_rustc_is_sure_enough_of_in_the_mcve_are_taken() {
        let span = |file: &str, applicability: &str, text: &str| {
            format!(
                r#"{{"file_name":"{file}","byte_start":3,"byte_end":4,"line_start":1,"line_end":1,"column_start":4,"column_end":5,"is_primary":true,"text":[],"label":null,"suggested_replacement":"{text}","suggestion_applicability":"{applicability}","expansion":null}}"#
            )
        };
        // Each child of the diagnostic a list of spans.
        let diagnostic = |level: &str, code: &str, children: &[&[String]]| {
            let child = |spans: &&[String]| {
                format!(
                    r#"{{"message":"fix","code":null,"level":"help","spans":[{}],"children":[],"rendered":null}}"#,
                    spans.join(",")
                )
            };
            format!(
                r#"{{"$message_type":"diagnostic","message":"m","code":{code},"level":"{level}","spans":[],"children":[{}],"rendered":"m"}}"#,
                children.iter().map(child).collect::<Vec<_>>().join(",")
            )
        };
        let e0277 = r#"{"code":"E0277","explanation":null}"#;
        let stderr = [
            // Taken: the first alternative of a syntax error's, or a sure one.
            diagnostic(
                "error",
                "null",
                &[
                    &[span("x.rs", "MaybeIncorrect", ";")],
                    &[span("x.rs", "MaybeIncorrect", ",")],
                ],
            ),
            diagnostic(
                "error",
                "null",
                &[&[
                    span("x.rs", "HasPlaceholders", "mut "),
                    span("x.rs", "HasPlaceholders", "const "),
                ]],
            ),
            diagnostic("error", e0277, &[&[span("x.rs", "MachineApplicable", "&")]]),
            // Left: placeholders, a type error's guess, a lint's fix, a
            // file not the MCVE.
            diagnostic(
                "error",
                "null",
                &[&[span("x.rs", "HasPlaceholders", " = <type>;")]],
            ),
            diagnostic("error", e0277, &[&[span("x.rs", "MaybeIncorrect", "&")]]),
            diagnostic(
                "warning",
                "null",
                &[&[span("x.rs", "MachineApplicable", "")]],
            ),
            diagnostic(
                "error",
                "null",
                &[&[span("/std/lib.rs", "MachineApplicable", ";")]],
            ),
            "thread 'rustc' panicked at compiler/x.rs:1:1:".to_string(),
        ]
        .join("\n");
        let repairs = error_repairs(&stderr, "x.rs");
        let texts: Vec<Vec<&str>> = repairs
            .iter()
            .map(|repair| {
                repair
                    .iter()
                    .flat_map(|s| &s.solutions)
                    .flat_map(|s| &s.replacements)
                    .map(|r| r.replacement.as_str())
                    .collect()
            })
            .collect();
        assert_eq!(texts, [vec![";", ","], vec!["mut ", "const "], vec!["&"]]);
        assert_eq!(
            applied("use a:b", &repairs[1][1..]).unwrap(),
            "useconst a:b"
        );
        assert_eq!(
            applied("use a:b", &[repairs[0][0].clone(), repairs[1][0].clone()]),
            None,
            "they overlap"
        );
    }
}
