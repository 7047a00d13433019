//! What the user sees: cargo-style status lines, a progress display on a
//! terminal, and JSON lines with a `reason` field for tools.
//!
//! Human messages go to stderr, JSON to stdout, like cargo. Colors and the
//! progress display appear only on a terminal (or with `--color always`).

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

use console::style;
use indicatif::{ProgressBar, ProgressStyle};

use super::options::{ColorChoice, GlobalOptions, MessageFormat};
use crate::job::message::{Build, Finished, Improved, Line, SkipCause, StopReason};
use crate::job::{Events, Message, View};
use crate::output::{escape_controls, from_cwd, shown};

/// Prints messages in the chosen format.
#[derive(Debug)]
pub(crate) struct Reporter {
    format: MessageFormat,
    quiet: bool,
    verbose: bool,
    tty: bool,
    /// The spinner of a build under way.
    spinner: Mutex<Option<ProgressBar>>,
    /// The warnings printed: one said again (the AddressSanitizer build
    /// resolves the same lock) is not printed again.
    warned: Mutex<HashSet<String>>,
}

impl Reporter {
    /// A reporter for these options; sets the color mode of stderr.
    pub(crate) fn new(options: &GlobalOptions) -> Self {
        let tty = std::io::stderr().is_terminal();
        let colors = match options.color {
            ColorChoice::Auto => tty,
            ColorChoice::Always => true,
            ColorChoice::Never => false,
        };
        console::set_colors_enabled_stderr(colors);
        console::set_colors_enabled(colors);
        Reporter {
            format: options.message_format,
            quiet: options.quiet,
            verbose: options.verbose,
            tty,
            spinner: Mutex::new(None),
            warned: Mutex::new(HashSet::new()),
        }
    }

    /// True with `--message-format json`.
    pub(crate) fn is_json(&self) -> bool {
        self.format == MessageFormat::Json
    }

    /// True with `-q`.
    pub(crate) fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// True with `-v`.
    pub(crate) fn is_verbose(&self) -> bool {
        self.verbose && !self.quiet
    }

    /// Prints `message` as one JSON line on stdout (JSON format only).
    /// `message` as one JSON [`Line`] on stdout, in JSON mode.
    fn json(&self, message: &Message) {
        if self.is_json() {
            let mut out = std::io::stdout().lock();
            let _ = serde_json::to_writer(&mut out, &Line::new(message.clone()));
            let _ = writeln!(out);
            let _ = out.flush();
        }
    }

    /// A cargo-style status line: a right-aligned green verb, then text.
    pub(crate) fn status(&self, verb: &str, text: impl std::fmt::Display) {
        if !self.quiet && !self.is_json() {
            let text = terminal_safe(&text.to_string());
            eprintln!("{} {text}", style(format!("{verb:>12}")).green().bold());
        }
    }

    /// A warning on stderr.
    pub(crate) fn warning(&self, text: impl std::fmt::Display) {
        if !self.quiet {
            let text = terminal_safe(&text.to_string());
            eprintln!("{}: {text}", style("warning").yellow().bold());
        }
    }

    /// An error: on stderr whatever the options, and as an `error`
    /// message in JSON.
    pub(crate) fn error(&self, error: &crate::error::Error) {
        self.emit(&Message::Error {
            message: error.line(),
            exit: error.exit(),
        });
    }

    fn print_error(&self, text: &str) {
        self.stop_spinner();
        eprintln!("{}: {}", style("error").red().bold(), terminal_safe(text));
    }

    /// Whether warning `message` is new to this run (then it is kept).
    fn first_time(&self, message: &str) -> bool {
        self.warned
            .lock()
            .expect("warned lock")
            .insert(message.to_string())
    }

    /// A spinner showing `text` while something runs (terminal, human mode).
    fn start_spinner(&self, text: String) {
        if let Some(bar) = self.progress_bar(BUILD_TEMPLATE) {
            bar.set_prefix("Building");
            bar.set_message(text);
            *self.spinner.lock().expect("spinner lock") = Some(bar);
        }
    }

    fn stop_spinner(&self) {
        if let Some(bar) = self.spinner.lock().expect("spinner lock").take() {
            bar.finish_and_clear();
        }
    }

    /// Human rendering of `message` on stderr: most messages are for
    /// tools only.
    fn render(&self, message: &Message) {
        match message {
            Message::BuildStarted {
                package,
                targets,
                build,
            } => self.start_spinner(format!(
                "{package} ({}){} against the stand-in",
                targets.join(", "),
                build_note(*build)
            )),
            Message::BuildFinished { .. } => {
                self.stop_spinner();
                self.status_of(message);
            }
            Message::ReductionFinished(f) if f.artifact.is_none() => self.summarize(f),
            // Stale inputs are summed up at the end; `-v` lists them.
            Message::ArtifactSkipped {
                cause: SkipCause::DoesNotReproduce,
                why,
                ..
            } if self.is_verbose() => self.status("Stale", why),
            Message::ArtifactSkipped {
                cause: SkipCause::DoesNotReproduce,
                ..
            } => {}
            Message::ArtifactSkipped { path, why, .. } => {
                self.warning(format!("skipped `{}`: {why}", shown(path)))
            }
            Message::CorpusFailure {
                target,
                failure,
                inputs,
                artifact,
                ..
            } => self.warning(format!(
                "{} input(s) of the corpus of {target} fail, kept as {}: {failure}",
                inputs.len(),
                shown(artifact)
            )),
            Message::CoverageReport {
                target: None,
                files,
                lines_instrumented,
                lines_covered,
                ..
            } => {
                if !self.is_quiet() && !self.is_json() {
                    let table = super::table::coverage(files, *lines_covered, *lines_instrumented);
                    print!("{table}");
                }
                self.status_of(message);
            }
            Message::Warning { message } if self.first_time(message) => self.warning(message),
            Message::Error { message, .. } => self.print_error(message),
            _ => self.status_of(message),
        }
    }

    /// The status line `message` makes, if any.
    fn status_of(&self, message: &Message) {
        if let Some((label, text)) = status_line(message) {
            self.status(label, text);
        }
    }

    /// The status line of a finished `file` reduction.
    fn summarize(&self, f: &Finished) {
        let ratio = f.reduced_bytes as f64 / f.original_bytes as f64;
        // Larger only where `ice` took a dependency's source in.
        let change = match ratio <= 1.0 {
            true => format!("{:.1}% smaller", 100.0 * (1.0 - ratio)),
            false => format!("{:.1}% larger", 100.0 * (ratio - 1.0)),
        };
        let text = format!(
            "{}: {} → {} bytes ({change}), {} tests, {} cache hits, {:.2}s → {}",
            shown(&f.input),
            f.original_bytes,
            f.reduced_bytes,
            f.tests_run,
            f.cache_hits,
            f.elapsed_s,
            shown(&f.output)
        );
        match f.stopped {
            None => self.status("Reduced", text),
            Some(StopReason::Interrupted) => self.warning(format!(
                "interrupted; the best result so far was written. {text}"
            )),
            Some(StopReason::OnePass) => self.warning(format!(
                "one ddrmin pass: 1-minimal only if the test is monotone (--dd-star makes sure). {text}"
            )),
            Some(reason) => self.warning(format!(
                "stopped by {reason}; the result is not 1-minimal. {text}"
            )),
        }
    }

    /// A progress display, on a terminal in human mode only: a spinner,
    /// a prefix and a message laid out by `template`.
    fn progress_bar(&self, template: &str) -> Option<ProgressBar> {
        if self.quiet || self.is_json() || !self.tty {
            return None;
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
        bar.enable_steady_tick(Duration::from_millis(120));
        Some(bar)
    }
}

/// A build's spinner: its time is the spinner's own.
const BUILD_TEMPLATE: &str = "{spinner:.green} {prefix:.cyan.bold} [{elapsed_precise}] {msg}";

/// A reduction's (or a corpus's) display: the time is in the message, a
/// reduction's from its figures.
const PROGRESS_TEMPLATE: &str = "{spinner:.green} {prefix:.cyan.bold} {msg}";

/// `text` as it may reach a terminal: control characters escaped (an ESC
/// in a file name must not drive the terminal), line breaks kept (cargo's
/// errors span lines).
fn terminal_safe(text: &str) -> String {
    text.split('\n')
        .map(escape_controls)
        .collect::<Vec<_>>()
        .join("\n")
}

impl Events for Reporter {
    /// JSON on stdout in JSON mode; the human rendering on stderr always
    /// (its status lines keep quiet in JSON mode, warnings and errors do
    /// not).
    fn emit(&self, message: &Message) {
        self.json(message);
        self.render(message);
    }

    fn view(&self) -> Box<dyn View + '_> {
        Box::new(Progress {
            reporter: self,
            bar: self.progress_bar(PROGRESS_TEMPLATE),
        })
    }
}

/// A reduction's progress on screen: a spinner line on a terminal, and
/// with `-v` a line per step and per shrink.
struct Progress<'r> {
    reporter: &'r Reporter,
    bar: Option<ProgressBar>,
}

impl View for Progress<'_> {
    fn stage(&self, name: &str, tests: u64, is_step: bool) {
        if let Some(bar) = &self.bar {
            let width = if is_step { 10 } else { 5 };
            bar.set_prefix(format!("{name:>width$}"));
        }
        if is_step && self.reporter.is_verbose() && self.bar.is_none() {
            self.reporter
                .status("Step", format!("{name} ({tests} tests so far)"));
        }
    }

    fn tested(&self, now: &Improved, original: usize, cache_hits: u64) {
        if let Some(bar) = &self.bar {
            let percent = 100.0 * now.bytes as f64 / original.max(1) as f64;
            let tokens = match now.tokens {
                Some(tokens) => format!(" · {tokens} tokens"),
                None => String::new(),
            };
            bar.set_message(format!(
                "[{}] {} B ({percent:.1}%){tokens} · {} tests · {cache_hits} cache hits",
                clock(now.elapsed_s),
                now.bytes,
                now.tests_run,
            ));
        }
    }

    fn reduced(&self, now: &Improved, atoms: usize, unit: &str) {
        if !self.reporter.is_verbose() {
            return;
        }
        // Atoms that are bytes (fuzz mode's, whose stage is the artifact's
        // name) say nothing more.
        let text = match atoms == now.bytes {
            true => format!("to {} bytes", now.bytes),
            false => format!("to {} bytes ({atoms} {unit} atoms)", now.bytes),
        };
        match &self.bar {
            Some(bar) => bar.println(format!(
                "{} {text}",
                style(format!("{:>12}", "Reduced")).green().bold()
            )),
            None => self.reporter.status("Reduced", text),
        }
    }

    fn counted(&self, what: &str, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_prefix(format!("{what:>10}"));
            let elapsed = clock(bar.elapsed().as_secs_f64());
            bar.set_message(format!("[{elapsed}] {done} of {total} inputs"));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `seconds` as a clock, `hh:mm:ss` (indicatif's `elapsed_precise`).
fn clock(seconds: f64) -> String {
    let whole = seconds as u64;
    format!(
        "{:02}:{:02}:{:02}",
        whole / 3600,
        whole / 60 % 60,
        whole % 60
    )
}

/// What a build's lines add to say which build it is (nothing for the
/// plain one).
fn build_note(build: Build) -> &'static str {
    match build {
        Build::Plain => "",
        Build::Asan => " (AddressSanitizer)",
        Build::Coverage => " (coverage)",
        Build::CoverageAsan => " (coverage, AddressSanitizer)",
        Build::Lines => " (line coverage)",
    }
}

/// The label and text of the status line a step's message makes, if any.
fn status_line(message: &Message) -> Option<(&'static str, String)> {
    Some(match message {
        Message::BuildFinished {
            package,
            targets,
            build,
            elapsed_s,
            ..
        } => (
            "Built",
            format!(
                "{} target(s) of {package}{} in {elapsed_s:.1}s",
                targets.len(),
                build_note(*build)
            ),
        ),
        // Nothing failing: the summary (or the error) says why.
        Message::FailuresGrouped { inputs: 0, .. } => return None,
        Message::FailuresGrouped { inputs, failures } => (
            "Grouped",
            format!("{inputs} failing input(s) → {failures} distinct failure(s)"),
        ),
        Message::CiReplayed {
            target,
            inputs,
            failing,
            cached,
            failures,
            ..
        } => (
            "Replayed",
            format!("{inputs} input(s) of {target} ({cached} from the cache): {failing} failing → {failures} distinct failure(s)"),
        ),
        Message::IceFound {
            krate,
            location,
            message,
            ..
        } => (
            "Found",
            format!("an ICE compiling `{krate}`: {location}: {message}"),
        ),
        Message::IceReported {
            mcve,
            report,
            auxiliaries,
            ..
        } => {
            // A cross-crate ICE's MCVE is built after its auxiliary crates.
            let beside: String = auxiliaries
                .iter()
                .map(|a| format!(", the crate it needs {}", shown(&a.source)))
                .collect();
            let text = format!("{}{beside} and its report {}", shown(mcve), shown(report));
            ("Wrote", text)
        }
        _ => return corpus_status_line(message),
    })
}

/// How many features a minimized set kept: every one of the corpus's, or
/// a count when some were lost ([`lost_note`]).
fn kept_features(features: usize, lost: usize) -> String {
    match lost {
        0 => format!("every one of {features} features"),
        _ => format!("{features} features"),
    }
}

/// The features of the corpus's replay that a set's own lacks (a warning
/// says why).
fn lost_note(lost: usize) -> String {
    match lost {
        0 => String::new(),
        _ => format!("; {lost} more of the corpus's varied in hit count"),
    }
}

/// The status line of a corpus or coverage message, if any.
fn corpus_status_line(message: &Message) -> Option<(&'static str, String)> {
    Some(match message {
        Message::CorpusMinimized {
            target,
            files_before,
            bytes_before,
            files_after,
            bytes_after,
            features,
            features_lost,
            edges,
            build,
            output,
            shrink_stopped,
            ..
        } => (
            "Minimized",
            format!(
                "{target}: {files_before} files, {bytes_before} B → {files_after} files, {bytes_after} B; {} ({edges} edges{}) kept in {}{}{}",
                kept_features(*features, *features_lost),
                of_build(*build),
                shown(output),
                lost_note(*features_lost),
                shrink_note(*shrink_stopped),
            ),
        ),
        Message::CoverageReport {
            target: Some(target),
            inputs,
            failing,
            lines_instrumented,
            lines_covered,
            html,
            ..
        } => (
            "Covered",
            format!(
                "{target}: {lines_covered} of {lines_instrumented} lines by {inputs} inputs{}; report {}",
                failed_note(*failing),
                shown(&from_cwd(html))
            ),
        ),
        Message::CoverageReport {
            target: None,
            lcov,
            html,
            ..
        } => (
            "Wrote",
            format!("{} and {}", shown(&from_cwd(lcov)), shown(&from_cwd(html))),
        ),
        Message::CorpusShrinkRound {
            target,
            round,
            files,
            bytes_before,
            bytes_after,
            elapsed_s,
            ..
        } => (
            "Shrunk",
            format!("{target}, round {round}: {files} files, {bytes_before} → {bytes_after} B in {elapsed_s:.1}s"),
        ),
        Message::CorpusRecorded {
            target,
            shard,
            shards,
            files,
            failing,
            features,
            record,
            ..
        } => (
            "Recorded",
            format!(
                "{target}, shard {shard}/{shards}: {files} files ({failing} failing), {features} features, in {}",
                shown(record)
            ),
        ),
        _ => return None,
    })
}

/// Which build a corpus's edges were counted on: a user compares them
/// with the libFuzzer binary built alike.
fn of_build(build: Option<Build>) -> &'static str {
    match build {
        Some(Build::CoverageAsan) => " of the AddressSanitizer build",
        // `cargo fuzz build`'s default binary has ASan, whose checks have
        // edges of their own: its count is not this one.
        Some(Build::Coverage) => " without AddressSanitizer",
        _ => "",
    }
}

/// Why a corpus's shrink left inputs unshrunk, when a limit stopped it.
fn shrink_note(stopped: Option<StopReason>) -> &'static str {
    match stopped {
        Some(StopReason::MaxTime) => "; --max-time stopped the shrink, not every input is shrunk",
        _ => "",
    }
}

/// The inputs a coverage report left out for failing, when there are any.
fn failed_note(failing: usize) -> String {
    match failing {
        0 => String::new(),
        n => format!(" ({n} failed: not counted)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzz crate without a lock gets the same warning from each of its
    /// builds (uninstrumented, then AddressSanitizer's): it is said once.
    #[test]
    fn a_warning_said_again_is_printed_once() {
        let reporter = Reporter::new(&GlobalOptions {
            quiet: true,
            verbose: false,
            message_format: MessageFormat::Human,
            color: ColorChoice::Never,
        });
        assert!(reporter.first_time("no Cargo.lock in x: resolved one"));
        assert!(!reporter.first_time("no Cargo.lock in x: resolved one"));
        assert!(reporter.first_time("no Cargo.lock in y: resolved one"));
    }

    /// A corpus's line says which build counted its edges, so that a user
    /// compares them with the libFuzzer binary built alike (`cargo fuzz
    /// build`'s default has ASan, whose checks have edges of their own).
    #[test]
    fn a_corpus_line_says_which_build_counted_its_edges() {
        let line = |build| lost_line(build, 0);
        assert!(line(Some(Build::Coverage)).contains("(40 edges without AddressSanitizer) kept"));
        assert!(line(Some(Build::CoverageAsan))
            .contains("(40 edges of the AddressSanitizer build) kept"));
        assert!(
            line(None).contains("(40 edges) kept"),
            "corpus merge's: no build"
        );
    }

    /// A set whose own replay lacks features of the corpus's does not
    /// claim every one kept (helper-57 on quick-xml: "every one of 3602
    /// features kept" under a warning that 4 were not).
    #[test]
    fn a_corpus_line_counts_the_features_lost() {
        assert!(lost_line(None, 0).contains("; every one of 120 features (40 edges) kept"));
        let line = lost_line(None, 4);
        assert!(!line.contains("every one"), "{line}");
        assert!(
            line.contains(
                "; 120 features (40 edges) kept in min; 4 more of the corpus's varied in hit count"
            ),
            "{line}"
        );
    }

    /// The status line of a corpus of 120 features, `lost` lost, counted
    /// in `build`.
    fn lost_line(build: Option<Build>, lost: usize) -> String {
        let message = Message::CorpusMinimized {
            package: "p".into(),
            target: "parse".into(),
            files_before: 9,
            bytes_before: 90,
            files_after: 3,
            bytes_after: 30,
            features: 120,
            features_lost: lost,
            edges: 40,
            build,
            failing: 0,
            rejected: 0,
            shrink_rounds: 0,
            shrink_stopped: None,
            output: "min".into(),
            elapsed_s: 1.0,
        };
        status_line(&message).unwrap().1
    }
}
