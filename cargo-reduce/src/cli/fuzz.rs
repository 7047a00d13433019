//! `cargo reduce [ARTIFACT…]`: the arguments, handed to
//! [`crate::job::fuzz_mode`] as a request, and the summary table at the end.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::options::{parse_seconds, FailureOptions, ReduceOptions, SelectOptions};
use super::render::Reporter;
use super::table::{self, Align};
use crate::engine::StopReason;
use crate::error::{Error, Exit};
use crate::fuzz::pool::Severity;
use crate::fuzz::project::TargetSettings;
use crate::fuzz::shrink::Effort;
use crate::job::fuzz_mode::{FuzzRequest, Reduction, Row, Summary};
use crate::job::LangChoice;
use crate::syntax::Strategy;

/// Arguments of the default command.
#[derive(Debug, Clone, Args)]
pub(crate) struct FuzzArgs {
    /// Artifacts, or AFL++ crashes and hangs, to reduce [default: every
    /// one that has no `minimized-from-*` copy yet].
    #[arg(value_name = "ARTIFACT")]
    pub artifacts: Vec<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    /// Reduce artifacts that already have a minimized copy, too.
    #[arg(long)]
    pub force: bool,
    /// Reduce every failing input, not one per distinct failure (inputs
    /// that fail alike are grouped, and the smallest of each group is
    /// reduced).
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub failure: FailureOptions,
    /// Reduce the artifacts as source text of this language (rust, js,
    /// text, or auto: by content), syntax-aware, instead of as bytes; for
    /// targets whose inputs are programs.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<LangChoice>,
    /// Syntax-aware strategy with --lang, as `file --strategy` takes it
    /// [default: best].
    #[arg(long, value_name = "STRATEGY", requires = "lang")]
    pub strategy: Option<Strategy>,
    /// A `slow-unit-*` artifact fails by running longer than SECS
    /// (libFuzzer's -report_slow_units) [default: 10].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub slow_unit_secs: Option<Duration>,
    /// How hard to search after ddmin and canonicalization, where inputs
    /// that count their own bytes stop ddmin: quick (no search), default
    /// (for a typed target, its value reduced as a value: fields dropped,
    /// strings shortened with their lengths rewritten, numbers lowered,
    /// 5,000 tests at most; then coordinated two-byte edits, chunk
    /// deletions and moves and a few hundred seeded mutations, 2,000
    /// candidates at most), max (budgets 40-100 times larger). Not with
    /// --lang [default: default].
    #[arg(long, value_enum, value_name = "LEVEL", conflicts_with = "lang")]
    pub effort: Option<Effort>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub reduce: ReduceOptions,
}

impl FuzzArgs {
    /// The request these arguments make.
    pub(crate) fn request(&self) -> FuzzRequest {
        FuzzRequest {
            artifacts: self.artifacts.clone(),
            selection: self.select.selection(),
            force: self.force,
            all: self.all,
            options: TargetSettings {
                lang: self.lang,
                strategy: self.strategy,
                slow_unit: self.slow_unit_secs,
                effort: self.effort,
                ..self.failure.target_options()
            },
        }
    }
}

/// Runs `cargo reduce [ARTIFACT…]` and prints the summary table, then a
/// line that sums the run up.
pub(crate) fn run(
    args: &FuzzArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    refuse_subcommand_as_input(&args.artifacts)?;
    let summary =
        crate::job::fuzz_mode::run(&args.request(), &args.reduce.settings(interrupt), reporter)?;
    let listed = !summary.rows.is_empty() || !summary.duplicates.is_empty();
    if listed && !reporter.is_json() {
        print_table(&summary, reporter.is_verbose());
    }
    if let Some(line) = finished(&summary, reporter.is_verbose()) {
        reporter.status("Finished", line);
    }
    Ok(summary.exit)
}

/// Why a run reduced nothing: no artifact (where they are looked for, and
/// the AFL++ instances searched), or each one's failure reduced already.
fn nothing_to_reduce(found: usize, instances: usize) -> String {
    let elsewhere = "a file elsewhere: cargo reduce FILE --fuzz-target NAME";
    match (found, instances) {
        (0, 0) => format!("nothing to reduce: no artifact found (libFuzzer writes them in the fuzz crate's \
              artifacts/<target>/, AFL++ in crashes/ and hangs/ of its output, found in the \
              project or given with --afl-out; {elsewhere})"),
        (0, n) => format!("nothing to reduce: no artifact in artifacts/<target>/, and the {n} AFL++ instance(s) found have no crash or hang yet ({elsewhere})"),
        (n, _) => format!("nothing to reduce: {n} artifact(s) found, every distinct failure with a minimized copy (use --force to redo them)"),
    }
}

/// What became of the failures the reductions filed: reduced in this run
/// (a run that does not name its inputs goes on to them), or left for the
/// next.
fn also_found_fate(summary: &Summary) -> &'static str {
    let reduced = |name: &str| summary.rows.iter().any(|r| r.name == name);
    match summary.also_found.iter().all(|also| reduced(&also.name)) {
        true => "reduced above",
        false => "the next run reduces them",
    }
}

/// The run in one line: what was reduced, what was not and why; `None`
/// when an error said it all (nothing found fails any more).
fn finished(summary: &Summary, verbose: bool) -> Option<String> {
    let reduced: Vec<&Reduction> = summary
        .rows
        .iter()
        .filter(|r| stopped_unchanged(r).is_none())
        .filter_map(|r| r.result.as_ref().ok())
        .collect();
    let interrupted = summary
        .rows
        .iter()
        .filter(|r| matches!(&r.result, Err(e) if e.exit() == Exit::Interrupted))
        .count();
    // Reductions stopped before they found anything smaller, by reason.
    let mut unchanged: BTreeMap<&str, usize> = BTreeMap::new();
    for reason in summary.rows.iter().filter_map(stopped_unchanged) {
        *unchanged.entry(reason.name()).or_default() += 1;
    }
    let failed = summary.rows.len()
        - reduced.len()
        - summary.not_built
        - interrupted
        - unchanged.values().sum::<usize>();
    if summary.rows.is_empty() && summary.duplicates.is_empty() {
        return match summary.exit {
            Exit::Interrupted => Some("nothing reduced: interrupted before the first input".into()),
            // Its error said that nothing found fails any more.
            Exit::NotInteresting => None,
            _ => Some(match summary.stale {
                0 => nothing_to_reduce(summary.found, summary.instances),
                n => format!(
                    "{}; {n} {}",
                    nothing_to_reduce(summary.found, summary.instances),
                    stale_note(verbose)
                ),
            }),
        };
    }
    let mut parts = vec![format!(
        "{} input(s) reduced{}",
        reduced.len(),
        not_minimal(&reduced)
    )];
    let mut add = |count: usize, what: &str| {
        if count > 0 {
            parts.push(format!("{count} {what}"));
        }
    };
    add(summary.duplicates.len(), "duplicate(s) not reduced");
    let also_found = format!(
        "other failure(s) found and filed as artifacts ({})",
        also_found_fate(summary)
    );
    add(summary.also_found.len(), &also_found);
    add(summary.stale, &stale_note(verbose));
    add(summary.not_built, "not built");
    let stopped_by_ctrl_c = unchanged
        .remove(StopReason::Interrupted.name())
        .unwrap_or(0);
    add(
        interrupted + stopped_by_ctrl_c + summary.not_started,
        "not reduced (interrupted)",
    );
    for (reason, count) in unchanged {
        add(count, &format!("not reduced (stopped: {reason})"));
    }
    add(failed, "not reduced (see the errors above)");
    Some(parts.join(", "))
}

/// What the stale inputs are, after their count.
fn stale_note(verbose: bool) -> String {
    let list = match verbose {
        true => "listed above",
        false => "`-v` lists them",
    };
    format!("no longer failing (stale: the bug fixed, or another build needed; {list})")
}

/// What stopped `row`'s reduction before it found anything smaller: the
/// artifact is its best result, and it counts as not reduced.
fn stopped_unchanged(row: &Row) -> Option<StopReason> {
    let done = row.result.as_ref().ok()?;
    done.stopped.filter(|_| done.reduced == row.original)
}

/// How many of `reduced` are not 1-minimal, and what stopped them
/// (` (1 not 1-minimal: interrupted)`); empty when all are.
fn not_minimal(reduced: &[&Reduction]) -> String {
    let mut reasons: Vec<&str> = reduced
        .iter()
        .filter_map(|d| d.stopped.map(|r| r.name()))
        .collect();
    if reasons.is_empty() {
        return String::new();
    }
    let partial = reasons.len();
    reasons.sort_unstable();
    reasons.dedup();
    format!(" ({partial} not 1-minimal: {})", reasons.join(", "))
}

/// The longest failure column: a multi-line panic message is shown on one
/// line, and cut (the JSON messages keep it whole).
const NOTE_MAX: usize = 200;

/// The failure column: the signature (and why it is not 1-minimal), or
/// why the artifact was not reduced, in a few words (its error was shown
/// whole above the table).
fn note(row: &Row) -> String {
    match &row.result {
        Ok(done) => {
            let signature = done
                .described
                .as_ref()
                .map_or_else(String::new, |d| format!("[{}] {}", d.failure_id, d.failure));
            let signature = table::one_line(&signature, NOTE_MAX);
            match done.stopped {
                None => signature,
                Some(reason) => format!("{signature} (stopped: {}, not 1-minimal)", reason.name()),
            }
        }
        Err(e) => match e.exit() {
            Exit::NotInteresting => "skipped: does not reproduce".into(),
            Exit::Flaky => "skipped: flaky".into(),
            _ => table::one_line(&e.line(), NOTE_MAX),
        },
    }
}

/// A row's failure class, if it was reduced.
fn severity(row: &Row) -> Option<Severity> {
    let done = row.result.as_ref().ok()?;
    Some(done.described.as_ref()?.severity)
}

/// The summary, most serious failures first: artifact, original → reduced
/// bytes, tests, time, severity, failure.
fn print_table(summary: &Summary, verbose: bool) {
    let mut rows: Vec<&Row> = summary.rows.iter().collect();
    // Stable: in the order reduced within a class; rows without one last.
    rows.sort_by_key(|r| (severity(r).is_none(), severity(r)));
    let header = ["ARTIFACT", "BYTES", "TESTS", "TIME", "SEVERITY", "FAILURE"];
    let mut cells: Vec<Vec<String>> = vec![header.map(String::from).to_vec()];
    cells.extend(rows.iter().map(|r| {
        let (bytes, tests) = match &r.result {
            Ok(done) => (format!("{} → {}", r.original, done.reduced), done.tests),
            Err(_) => (format!("{}", r.original), 0),
        };
        vec![
            r.name.clone(),
            bytes,
            tests.to_string(),
            format!("{:.2}s", r.elapsed.as_secs_f64()),
            severity(r).map_or("", Severity::name).to_string(),
            note(r),
        ]
    }));
    let width = cells
        .iter()
        .map(|c| c[0].chars().count())
        .max()
        .unwrap_or(0);
    let align = [
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Left,
    ];
    // Every input a duplicate of one reduced before: no table, the list.
    if !rows.is_empty() {
        print!("{}", table::render(&cells, &align, ""));
    }
    if !summary.duplicates.is_empty() {
        let gap = if rows.is_empty() { "" } else { "\n" };
        println!("{gap}Not reduced, failing like a reduced input (--all reduces them too):");
        for line in duplicate_lines(&summary.duplicates, verbose) {
            println!("  {:<width$}  same failure as {}", line.0, line.1);
        }
    }
    if !summary.also_found.is_empty() {
        println!(
            "\nAlso found while reducing (filed as artifacts; {}):",
            also_found_fate(summary)
        );
        for also in &summary.also_found {
            let failure = table::one_line(&also.failure, NOTE_MAX);
            println!("  {:<w$}  {failure}", also.name, w = width);
        }
    }
    let from: Vec<(&str, &PathBuf)> = rows
        .iter()
        .filter_map(|r| Some((r.name.as_str(), r.from.as_ref()?)))
        .collect();
    if !from.is_empty() {
        println!("\nInputs not in artifacts/<target>/:");
        for (name, path) in from {
            println!("  {name:<w$}  from {}", path.display(), w = width);
        }
    }
    print_run_lines(&rows, width);
    for r in rows {
        let debug = r
            .result
            .as_ref()
            .ok()
            .and_then(|d| d.described.as_ref()?.debug.as_deref());
        if let Some(debug) = debug {
            println!("\n{} as the target sees it:\n{}", r.name, shortened(debug));
        }
    }
}

/// The most lines of a typed result's `Debug` form the summary shows, each
/// cut at [`NOTE_MAX`] characters: a value can be thousands of characters
/// on one line (a nested string), and `cargo reduce run` prints it whole.
const DEBUG_LINES: usize = 40;

/// `debug` cut to [`DEBUG_LINES`] lines of [`NOTE_MAX`] characters, saying
/// where it is whole when it was cut.
fn shortened(debug: &str) -> String {
    let lines: Vec<&str> = debug.lines().collect();
    let mut cut = lines.len() > DEBUG_LINES;
    let mut shown: Vec<String> = Vec::new();
    for line in lines.iter().take(DEBUG_LINES) {
        match table::cut(line, NOTE_MAX + 1) {
            Some(short) => {
                cut = true;
                shown.push(short);
            }
            None => shown.push(line.to_string()),
        }
    }
    if cut {
        shown.push("(cut: the run command above prints it whole)".to_string());
    }
    shown.join("\n")
}

/// How many duplicates of one reduced input the summary names without
/// `-v`: a first run on a fuzzer's crash folder may have a hundred of one
/// bug.
const DUPLICATES_NAMED: usize = 3;

/// The summary's lines of `duplicates` (each input, and the reduced one it
/// fails like), grouped by the reduced one in order of appearance; past
/// [`DUPLICATES_NAMED`] of a group, without `verbose`, one line counts
/// the rest.
fn duplicate_lines(duplicates: &[(String, String)], verbose: bool) -> Vec<(String, String)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, same_as) in duplicates {
        match groups.iter_mut().find(|(reduced, _)| reduced == same_as) {
            Some((_, names)) => names.push(name),
            None => groups.push((same_as, vec![name])),
        }
    }
    let mut lines = Vec::new();
    for (reduced, names) in groups {
        let named = if verbose {
            names.len()
        } else {
            names.len().min(DUPLICATES_NAMED)
        };
        lines.extend(
            names[..named]
                .iter()
                .map(|n| (n.to_string(), reduced.to_string())),
        );
        if named < names.len() {
            let rest = format!("… {} more (-v lists them)", names.len() - named);
            lines.push((rest, reduced.to_string()));
        }
    }
    lines
}

/// Each result's `cargo reduce run` line: the real engine's binary on it,
/// a `--debugger gdb` away from a debugger.
fn print_run_lines(rows: &[&Row], width: usize) {
    let lines: Vec<(&str, &str)> = rows
        .iter()
        .filter_map(|r| Some((r.name.as_str(), r.result.as_ref().ok()?.described.as_ref()?)))
        .map(|(name, d)| (name, d.run.as_str()))
        .collect();
    if lines.is_empty() {
        return;
    }
    println!("\nRun a result on the fuzz target's own build (add --debugger gdb|lldb|rr):");
    for (name, line) in lines {
        println!("  {name:<width$}  {line}");
    }
}

/// A subcommand's name where an input goes: options before it
/// (`cargo reduce -j1 corpus`) make clap read it as the default mode's
/// input, which no file of that name is.
fn refuse_subcommand_as_input(inputs: &[std::path::PathBuf]) -> Result<(), Error> {
    use clap::CommandFactory;
    let Some(word) = inputs.first().and_then(|p| p.to_str()) else {
        return Ok(());
    };
    let command = super::Cli::command();
    let is_subcommand = command.get_subcommands().any(|c| c.get_name() == word);
    if !is_subcommand || std::path::Path::new(word).exists() {
        return Ok(());
    }
    Err(Error::new(
        Exit::Usage,
        format!(
            "`{word}` is a subcommand, read here as an input because options came before it: write it first (`cargo reduce {word} OPTIONS…`)"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value of one long line, or of many, is cut, and says so; a short
    /// one is shown as it is.
    #[test]
    fn a_long_debug_form_is_cut_and_says_where_it_is_whole() {
        assert_eq!(shortened("Foo {\n    a: 1,\n}"), "Foo {\n    a: 1,\n}");
        let long = format!("\"{}\"", "[".repeat(2031));
        let shown = shortened(&long);
        let first = shown.lines().next().unwrap();
        assert_eq!(first.chars().count(), NOTE_MAX + 1);
        assert!(shown.ends_with("prints it whole)"), "{shown}");
        let many = "x\n".repeat(DEBUG_LINES + 5);
        assert_eq!(shortened(&many).lines().count(), DEBUG_LINES + 1);
    }

    fn done(stopped: Option<StopReason>) -> Reduction {
        Reduction {
            output: PathBuf::from("out"),
            reduced: 1,
            bytes: vec![b'x'],
            tests: 1,
            stopped,
            described: None,
            extra: Vec::new(),
        }
    }

    /// A hundred duplicates of one bug are three lines and a count
    /// (helper-38: 122 lines on a first run of 124 artifacts); `-v` names
    /// every one.
    #[test]
    fn duplicates_are_named_a_few_per_reduced_input() {
        let dup = |n: &str, of: &str| (n.to_string(), of.to_string());
        let duplicates: Vec<_> = (0..5)
            .map(|i| dup(&format!("t/crash-{i}"), "t/a"))
            .chain([dup("t/crash-x", "t/b")])
            .collect();
        let lines = duplicate_lines(&duplicates, false);
        let shown: Vec<(&str, &str)> = lines
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("t/crash-0", "t/a"),
                ("t/crash-1", "t/a"),
                ("t/crash-2", "t/a"),
                ("… 2 more (-v lists them)", "t/a"),
                ("t/crash-x", "t/b"),
            ]
        );
        assert_eq!(duplicate_lines(&duplicates, true).len(), 6);
    }

    /// The summary says what stopped a result that is not 1-minimal
    /// (helper-39: Ctrl-C left "1 not 1-minimal", with no word of it).
    #[test]
    fn the_summary_says_what_stopped_a_result() {
        let (a, b, c) = (
            done(None),
            done(Some(StopReason::Interrupted)),
            done(Some(StopReason::MaxTests)),
        );
        assert_eq!(not_minimal(&[&a]), "");
        assert_eq!(not_minimal(&[&a, &b]), " (1 not 1-minimal: interrupted)");
        assert_eq!(
            not_minimal(&[&c, &b, &c]),
            " (3 not 1-minimal: interrupted, max-tests)"
        );
    }

    /// A reduction stopped before it found anything smaller is not
    /// counted as reduced (helper-40: "1 input(s) reduced (1 not
    /// 1-minimal: interrupted)" for 60006 → 60006).
    #[test]
    fn a_reduction_stopped_with_nothing_smaller_is_not_reduced() {
        let row = |original: usize, stopped| Row {
            name: "t/crash-1".into(),
            from: None,
            original,
            elapsed: Duration::ZERO,
            result: Ok(done(stopped)),
        };
        let summary = |rows| Summary {
            rows,
            duplicates: Vec::new(),
            also_found: Vec::new(),
            stale: 0,
            not_built: 0,
            not_started: 0,
            found: 2,
            instances: 0,
            exit: Exit::Interrupted,
        };
        let line = |rows| finished(&summary(rows), false).unwrap();
        let interrupted = Some(StopReason::Interrupted);
        assert_eq!(
            line(vec![row(1, interrupted)]),
            "0 input(s) reduced, 1 not reduced (interrupted)"
        );
        assert_eq!(
            line(vec![row(9, interrupted), row(1, Some(StopReason::MaxTime))]),
            "1 input(s) reduced (1 not 1-minimal: interrupted), 1 not reduced (stopped: max-time)"
        );
        // helper-45: an input whose reduction Ctrl-C kept from starting
        // was in no count.
        let not_started = Summary {
            not_started: 1,
            ..summary(vec![row(9, interrupted)])
        };
        assert_eq!(
            finished(&not_started, false).unwrap(),
            "1 input(s) reduced (1 not 1-minimal: interrupted), 1 not reduced (interrupted)"
        );
    }

    /// A run with nothing new to reduce but a stale input says so
    /// (helper-57: a new artifact that no longer failed, beside reduced
    /// ones, left no summary line); when nothing found fails any more,
    /// its error says it all.
    #[test]
    fn a_stale_input_is_counted_when_nothing_else_is_new() {
        let summary = |exit| Summary {
            rows: Vec::new(),
            duplicates: Vec::new(),
            also_found: Vec::new(),
            stale: 1,
            not_built: 0,
            not_started: 0,
            found: 15,
            instances: 0,
            exit,
        };
        assert_eq!(
            finished(&summary(Exit::Success), false).unwrap(),
            "nothing to reduce: 15 artifact(s) found, every distinct failure with a minimized \
             copy (use --force to redo them); 1 no longer failing (stale: the bug fixed, or \
             another build needed; `-v` lists them)"
        );
        assert_eq!(finished(&summary(Exit::NotInteresting), false), None);
    }
}
