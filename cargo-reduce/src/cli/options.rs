//! Option groups shared by subcommands. They only check values; the
//! subcommand builds oracles, caches and limits from them.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use crate::engine::{DdminOptions, Iteration, Limits};
use crate::syntax::Lang;

/// How messages are printed (cargo's `--message-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum MessageFormat {
    /// Status lines and a progress display on a terminal.
    #[default]
    Human,
    /// One JSON object per line on stdout, each with a `reason` field.
    Json,
}

/// When to color output (cargo's `--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Color when stderr is a terminal.
    #[default]
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

/// Options every subcommand takes.
#[derive(Debug, Clone, Args)]
pub struct GlobalOptions {
    /// No progress display and no summary; errors only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Also report every reduction step.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Output format of messages.
    #[arg(long, value_enum, default_value_t, value_name = "FMT", global = true)]
    pub message_format: MessageFormat,
    /// Coloring: auto, always, never.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN", global = true)]
    pub color: ColorChoice,
}

/// Chunk order on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IterationArg {
    /// First chunk first.
    Forward,
    /// Last chunk first.
    Backward,
}

/// How to reduce: parallelism, budgets, and the ddmin variant.
#[derive(Debug, Clone, Args)]
pub struct ReduceOptions {
    /// Tests to run in parallel [default: the available cores].
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// Stop after N test runs in all (the best result so far is written, and
    /// reported as not 1-minimal).
    #[arg(long, value_name = "N")]
    pub max_tests: Option<u64>,
    /// Stop after SECS seconds (the best result so far is written).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub max_time: Option<Duration>,
    /// Also try keeping a single chunk ("reduce to subset").
    #[arg(long, overrides_with = "no_subsets")]
    pub subsets: bool,
    /// Only try removing chunks ("reduce to complement") [default].
    #[arg(long, overrides_with = "subsets")]
    pub no_subsets: bool,
    /// With --subsets: try complements before subsets.
    #[arg(long)]
    pub complement_first: bool,
    /// With --subsets: run all subsets before any complement, instead of
    /// one combined parallel step.
    #[arg(long)]
    pub no_combine: bool,
    /// Run every candidate, even one already tested.
    #[arg(long)]
    pub no_cache: bool,
    /// Chunk order.
    #[arg(long, value_enum, default_value = "forward", value_name = "ORDER")]
    pub iteration: IterationArg,
    /// Repeat ddmin passes until one removes nothing (DD*).
    #[arg(long, overrides_with = "no_dd_star")]
    pub dd_star: bool,
    /// One ddmin pass per unit [default].
    #[arg(long, overrides_with = "dd_star")]
    pub no_dd_star: bool,
}

impl ReduceOptions {
    /// The engine variant these options select.
    pub fn ddmin_options(&self) -> DdminOptions {
        let default = DdminOptions::default();
        DdminOptions {
            subsets: pick(self.subsets, self.no_subsets, default.subsets),
            complement_first: self.complement_first,
            combined: !self.no_combine,
            iteration: match self.iteration {
                IterationArg::Forward => Iteration::Forward,
                IterationArg::Backward => Iteration::Backward,
            },
            dd_star: pick(self.dd_star, self.no_dd_star, default.dd_star),
            start: default.start,
        }
    }

    /// The limits of one reduction: `--max-tests` keeps one test in reserve
    /// for the final check, `--max-time` counts from `started`.
    pub fn limits(&self, interrupt: Arc<AtomicBool>, started: Instant) -> Limits {
        let mut limits = Limits::none().with_interrupt(interrupt);
        if let Some(max) = self.max_tests {
            limits = limits.with_max_tests(max.saturating_sub(1));
        }
        if let Some(max) = self.max_time {
            limits = limits.with_max_time(max.saturating_sub(started.elapsed()));
        }
        limits
    }

    /// Parallel tests: `-j`, or the available cores.
    pub fn jobs(&self) -> usize {
        self.jobs
            .map(|j| j as usize)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

fn pick(yes: bool, no: bool, default: bool) -> bool {
    if yes {
        true
    } else if no {
        false
    } else {
        default
    }
}

/// Parses a positive number of seconds (fractions allowed).
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        r: ReduceOptions,
    }

    fn parse(args: &[&str]) -> DdminOptions {
        T::parse_from([&["t"], args].concat()).r.ddmin_options()
    }

    #[test]
    fn flags_select_variants_and_the_last_of_a_pair_wins() {
        assert_eq!(parse(&[]), DdminOptions::default());
        assert!(parse(&["--subsets"]).subsets);
        assert!(!parse(&["--subsets", "--no-subsets"]).subsets);
        assert!(parse(&["--no-dd-star", "--dd-star"]).dd_star);
        assert_eq!(
            parse(&["--iteration", "backward"]).iteration,
            Iteration::Backward
        );
        assert!(!parse(&["--no-combine"]).combined);
    }

    #[test]
    fn seconds_must_be_positive() {
        assert_eq!(parse_seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_seconds("0").is_err());
        assert!(parse_seconds("abc").is_err());
    }
}

/// `--lang`: a language, or detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LangArg {
    /// By extension, then by content.
    Auto,
    /// This language.
    Is(Lang),
}

impl std::str::FromStr for LangArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(LangArg::Auto),
            _ => s
                .parse()
                .map(LangArg::Is)
                .map_err(|e: crate::syntax::UnknownLang| format!("{e} or auto")),
        }
    }
}
