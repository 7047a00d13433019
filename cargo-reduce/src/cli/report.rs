//! What the user sees: cargo-style status lines, a progress display on a
//! terminal, and JSON lines with a `reason` field for tools.
//!
//! Human messages go to stderr, JSON to stdout, like cargo. Colors and the
//! progress display appear only on a terminal (or with `--color always`).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use console::style;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::options::{ColorChoice, GlobalOptions, MessageFormat};
use crate::engine::{Counters, Observer, Outcome};
use crate::unit::ByteAtom;

/// Prints messages in the chosen format.
#[derive(Debug, Clone)]
pub struct Reporter {
    format: MessageFormat,
    quiet: bool,
    verbose: bool,
    tty: bool,
}

impl Reporter {
    /// A reporter for these options; sets the color mode of stderr.
    pub fn new(options: &GlobalOptions) -> Self {
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
        }
    }

    /// True with `--message-format json`.
    pub fn is_json(&self) -> bool {
        self.format == MessageFormat::Json
    }

    /// True with `-v`.
    pub fn is_verbose(&self) -> bool {
        self.verbose && !self.quiet
    }

    /// Prints `message` as one JSON line on stdout (JSON format only).
    pub fn message<T: Serialize>(&self, message: &T) {
        if self.is_json() {
            let mut out = std::io::stdout().lock();
            let _ = serde_json::to_writer(&mut out, message);
            let _ = writeln!(out);
            let _ = out.flush();
        }
    }

    /// A cargo-style status line: a right-aligned green verb, then text.
    pub fn status(&self, verb: &str, text: impl std::fmt::Display) {
        if !self.quiet && !self.is_json() {
            eprintln!("{} {text}", style(format!("{verb:>12}")).green().bold());
        }
    }

    /// A warning on stderr.
    pub fn warning(&self, text: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("{}: {text}", style("warning").yellow().bold());
        }
    }

    /// An error on stderr, whatever the options.
    pub fn error(&self, text: impl std::fmt::Display) {
        eprintln!("{}: {text}", style("error").red().bold());
    }

    /// A spinner showing `text` while something runs (terminal, human mode).
    pub fn spinner(&self, text: String) -> Option<ProgressBar> {
        let bar = self.progress_bar()?;
        bar.set_prefix("Building");
        bar.set_message(text);
        Some(bar)
    }

    /// A progress display, on a terminal in human mode only.
    pub fn progress_bar(&self) -> Option<ProgressBar> {
        if self.quiet || self.is_json() || !self.tty {
            return None;
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner:.green} {prefix:.cyan.bold} [{elapsed_precise}] {msg}",
            )
            .expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Some(bar)
    }
}

/// The `reduction-finished` JSON message, field for field and in order;
/// artifact mode flattens it into a message with a few more fields.
#[derive(Debug, Serialize)]
pub struct Finished<'a> {
    /// Always `reduction-finished`.
    pub reason: &'static str,
    /// What was reduced.
    pub input: &'a std::path::Path,
    /// Where the result is.
    pub output: &'a std::path::Path,
    /// Size of the input.
    pub original_bytes: usize,
    /// Size of the result.
    pub reduced_bytes: usize,
    /// Every execution of the test, the checks of input and result included.
    pub tests_run: u64,
    /// Candidates answered from the cache.
    pub cache_hits: u64,
    /// Wall time, in seconds (millisecond precision).
    pub elapsed_s: f64,
    /// True unless a limit stopped the reduction.
    pub minimal: bool,
    /// Tests per step of a syntax-aware reduction, in the order the steps
    /// first ran (absent for plain ddmin).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepTests>,
}

/// The tests one step of a reduction ran (every run of it together).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StepTests {
    /// The step (`coarse-hdd`, `hdd`, `hoist`, `plain`, `rename`,
    /// `literals`, `tokens`).
    pub step: &'static str,
    /// Tests it ran, cache hits not counted.
    pub tests: u64,
}

impl<'a> Finished<'a> {
    /// The message for a reduction of `input` (`original` bytes) into
    /// `output` (`reduced` bytes) that took `elapsed`.
    pub fn new(
        input: &'a std::path::Path,
        output: &'a std::path::Path,
        (original, reduced): (usize, usize),
        counters: &Counters,
        elapsed: Duration,
        minimal: bool,
    ) -> Self {
        Finished {
            reason: "reduction-finished",
            input,
            output,
            original_bytes: original,
            reduced_bytes: reduced,
            tests_run: counters.tests(),
            cache_hits: counters.cache_hits(),
            elapsed_s: (elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
            minimal,
            steps: Vec::new(),
        }
    }

    /// The message with the tests per step of a syntax-aware reduction.
    pub fn with_steps(mut self, steps: Vec<StepTests>) -> Self {
        self.steps = steps;
        self
    }
}

/// Shows a reduction's progress: current size, tests, cache hits, elapsed.
pub struct ReductionProgress<'r> {
    reporter: &'r Reporter,
    bar: Option<ProgressBar>,
    original: usize,
    current: AtomicUsize,
    unit: Mutex<String>,
    steps: Mutex<Steps>,
}

/// Tests per step so far: the steps in the order they first ran, the one
/// running, and the test count where it (last) began.
#[derive(Default)]
struct Steps {
    list: Vec<StepTests>,
    current: Option<usize>,
    since: u64,
}

impl Steps {
    /// Charges the tests since the current step began to it.
    fn close(&mut self, tests: u64) {
        if let Some(i) = self.current {
            self.list[i].tests += tests - self.since;
        }
        self.since = tests;
    }
}

impl<'r> ReductionProgress<'r> {
    /// Progress of reducing `original` bytes.
    pub fn new(reporter: &'r Reporter, original: usize) -> Self {
        ReductionProgress {
            reporter,
            bar: reporter.progress_bar(),
            original,
            current: AtomicUsize::new(original),
            unit: Mutex::new(String::new()),
            steps: Mutex::new(Steps::default()),
        }
    }

    /// A new pass (over `unit` atoms, or of one artifact) begins.
    pub fn start_pass(&self, unit: &str) {
        *self.unit.lock().expect("unit lock") = unit.to_string();
        if let Some(bar) = &self.bar {
            bar.set_prefix(format!("{unit:>5}"));
        }
    }

    /// Tests per step, in the order the steps first ran, the current step
    /// ending now; call it when the reduction is over.
    pub fn steps(&self, counters: &Counters) -> Vec<StepTests> {
        let mut steps = self.steps.lock().expect("steps lock");
        steps.close(counters.tests());
        steps.current = None;
        steps.list.clone()
    }

    /// Removes the progress display.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn line(&self, counters: &Counters) -> String {
        let current = self.current.load(Ordering::SeqCst);
        let percent = 100.0 * current as f64 / self.original.max(1) as f64;
        format!(
            "{current} B ({percent:.1}%) · {} tests · {} cache hits",
            counters.tests(),
            counters.cache_hits()
        )
    }
}

impl<A: ByteAtom> Observer<A> for ReductionProgress<'_> {
    fn tested(&self, _outcome: Outcome, counters: &Counters) {
        if let Some(bar) = &self.bar {
            bar.set_message(self.line(counters));
        }
    }

    fn step(&self, name: &'static str, counters: &Counters) {
        let tests = counters.tests();
        let mut steps = self.steps.lock().expect("steps lock");
        steps.close(tests);
        let index = match steps.list.iter().position(|s| s.step == name) {
            Some(i) => i,
            None => {
                steps.list.push(StepTests {
                    step: name,
                    tests: 0,
                });
                steps.list.len() - 1
            }
        };
        steps.current = Some(index);
        drop(steps);
        if let Some(bar) = &self.bar {
            bar.set_prefix(format!("{name:>10}"));
        }
        if self.reporter.is_verbose() && self.bar.is_none() {
            self.reporter
                .status("Step", format!("{name} ({tests} tests so far)"));
        }
    }

    fn reduced(&self, atoms: &[A]) {
        let bytes = atoms.iter().map(|a| a.bytes().len()).sum();
        self.current.store(bytes, Ordering::SeqCst);
        if self.reporter.is_verbose() {
            let unit = self.unit.lock().expect("unit lock").clone();
            let text = format!("{bytes} bytes ({} {unit} atoms)", atoms.len());
            match &self.bar {
                Some(bar) => bar.println(format!(
                    "{} {text}",
                    style(format!("{:>12}", "Reduced")).green().bold()
                )),
                None => self.reporter.status("Reduced", text),
            }
        }
    }
}
