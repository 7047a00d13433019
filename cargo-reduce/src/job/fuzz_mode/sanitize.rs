//! `--sanitizer`: which build reproduces each input. Every input to reduce
//! (but hangs, which no sanitizer explains) is reproduced first; under
//! `auto`, the crash inputs that do not fail alike in the uninstrumented
//! build are tried again on the AddressSanitizer build (nightly), and the
//! ones that fail there are reduced there; so are `leak-*` artifacts, whose
//! leak only that build's LeakSanitizer finds (its pool looks for leaks:
//! `PoolOptions::detect_leaks`); when every input is a leak, they start
//! there. With `address`, only that build is made.
//! (`ci` decides per target, after its replay: `job::ci::asan`.)
//!
//! Nothing in a crash artifact says it is ASan's (libFuzzer names every
//! crash `crash-<sha1>`, AFL++ by its signal, and ASan aborts as a panic
//! does), and a crate's stale artifacts, whose bugs were fixed, pass too:
//! on such a crate the retry would cost an ASan build and its replays on
//! every run. So an input that passed on the ASan build is recorded
//! ([`sanitizer::remember_passed`]) and not tried again while the
//! uninstrumented build stays the same; `oom-` artifacts (libFuzzer's own
//! memory limit, not ASan's) are not tried.

use std::cell::OnceCell;

use super::limits::{special_memory_limit, special_timeout, LimitsOverride};
use super::pools::{Pools, TargetOptions};
use super::{build_targets::Binaries, Context, FuzzRequest, Work};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{Failure, WorkerPool};
use crate::fuzz::project::FuzzProject;
use crate::fuzz::project::{ArtifactKind, Engine};
use crate::fuzz::sanitizer::{self, AsanToolchain, Sanitizer};
use crate::fuzz::shrink::{self, ArtifactError};
use crate::fuzz::standin::BuildKind;
use crate::job::{Events, Message, Settings};

/// What reproducing one input gave before grouping and reducing: its
/// failure, or why it cannot be reduced (`None`: not reproduced here).
pub(super) type Probed = Vec<Option<Result<Failure, Error>>>;

/// The toolchain for `--sanitizer`: `None` for `none`, or when `auto`
/// finds no nightly; an error for `address` without one.
pub(in crate::job) fn toolchain(choice: Sanitizer) -> Result<Option<AsanToolchain>, Error> {
    if choice == Sanitizer::None {
        return Ok(None);
    }
    match AsanToolchain::find() {
        None if choice == Sanitizer::Address => Err(Error::new(
            Exit::Environment,
            "--sanitizer address builds with -Zsanitizer=address, which needs a nightly toolchain: run `rustup toolchain install nightly`",
        )),
        found => Ok(found),
    }
}

/// `--sanitizer` in one run: the toolchain of `address`, found at once;
/// under `auto`, looked for only when an input needs it.
pub(super) struct Sanitizers {
    choice: Sanitizer,
    only: Option<AsanToolchain>,
    found: OnceCell<Option<AsanToolchain>>,
}

impl Sanitizers {
    /// For `choice`; an error for `address` without a nightly.
    pub(super) fn new(choice: Sanitizer) -> Result<Sanitizers, Error> {
        let only = match choice {
            Sanitizer::Address => toolchain(choice)?,
            Sanitizer::Auto | Sanitizer::None => None,
        };
        Ok(Sanitizers {
            choice,
            only,
            found: OnceCell::new(),
        })
    }

    /// The build every input starts on: under `auto`, the ASan build when
    /// every input is a leak (which only LeakSanitizer finds: the
    /// uninstrumented build would be made and run for nothing).
    pub(super) fn first_build(&self, work: &[Work]) -> BuildKind<'_> {
        let only_leaks =
            !work.is_empty() && work.iter().all(|w| w.artifact.kind == ArtifactKind::Leak);
        match self.choice {
            Sanitizer::Auto if only_leaks => self.asan().into(),
            _ => self.only.as_ref().into(),
        }
    }

    /// The ASan toolchain an input may move to.
    fn asan(&self) -> Option<&AsanToolchain> {
        match self.choice {
            Sanitizer::Address => self.only.as_ref(),
            Sanitizer::Auto => self.found.get_or_init(AsanToolchain::find).as_ref(),
            Sanitizer::None => None,
        }
    }

    /// What a "does not reproduce" error suggests.
    fn hint(&self) -> &'static str {
        sanitizer::hint(self.choice, self.asan().is_some())
    }
}

/// Reproduces every input to reduce in its pool; under `auto`, the crash
/// inputs that do not fail alike move to their ASan build if they fail
/// there. The results, by item.
pub(super) fn probe_all(
    projects: &[FuzzProject],
    work: &[Work],
    pools: &mut Pools,
    sanitizers: &Sanitizers,
    options: &TargetOptions,
    cx: Context<'_>,
) -> Result<Probed, Error> {
    let mut probed = probe(work, pools, cx.request, &|| sanitizers.hint());
    let retry = candidates(work, pools, &probed);
    let started_on_asan = matches!(sanitizers.first_build(work), BuildKind::Asan(_));
    if sanitizers.choice != Sanitizer::Auto || started_on_asan || retry.is_empty() {
        return Ok(probed);
    }
    let Some(toolchain) = sanitizers.asan() else {
        return Ok(probed);
    };
    let asan_binaries = build_asan(projects, work, &retry, toolchain, cx.settings, cx.events)?;
    let moved = Moved {
        items: &retry,
        binaries: &asan_binaries,
    };
    self::retry(work, moved, pools, &mut probed, cx.request, options)?;
    Ok(probed)
}

/// Reproduces every input to reduce (not hangs, not inputs with a
/// minimized copy) in its pool; the results, by item.
fn probe(
    work: &[Work],
    pools: &Pools,
    request: &FuzzRequest,
    hint: &dyn Fn() -> &'static str,
) -> Probed {
    work.iter()
        .enumerate()
        .map(|(i, item)| {
            let pool = pools.of(i).filter(|_| !item.done && !item.is_timeout())?;
            Some(reproduce(item, pool, request, hint))
        })
        .collect()
}

/// Reproduces `item` in `pool` under its own limits (an AFL++ input's
/// `-m`, an `oom-*` artifact's); a "does not reproduce" error says
/// `hint()` (asked only then: it may look for a toolchain).
fn reproduce(
    item: &Work,
    pool: &WorkerPool,
    request: &FuzzRequest,
    hint: &dyn Fn() -> &'static str,
) -> Result<Failure, Error> {
    let path = &item.artifact.path;
    let _limits = LimitsOverride::new(
        pool,
        special_timeout(&item.artifact, request),
        special_memory_limit(&item.artifact, request),
    );
    let bytes = std::fs::read(path).map_err(|e| {
        Error::caused(
            Exit::BadInput,
            format!("cannot read artifact `{}`", path.display()),
            e,
        )
    })?;
    shrink::reproduce(pool, path, &bytes, false).map_err(|e| {
        Error::from(match e {
            ArtifactError::DoesNotReproduce { path, .. } => {
                ArtifactError::DoesNotReproduce { path, hint: hint() }
            }
            e => e,
        })
    })
}

/// Whether a probe says the input may need a sanitizer: it did not fail,
/// or not alike in every run (garbage read past a buffer).
fn may_need_asan(probed: &Option<Result<Failure, Error>>) -> bool {
    matches!(probed, Some(Err(e)) if passed(e))
}

/// Whether a reproduction's error says the input did not fail, or not
/// alike in every run.
fn passed(e: &Error) -> bool {
    matches!(e.exit(), Exit::NotInteresting | Exit::Flaky)
}

/// The items `probe` found that may need a sanitizer: inputs (crashes,
/// leaks) that did not fail alike, and that no earlier run found passing
/// on the ASan build of their (unchanged) uninstrumented binary in
/// `binaries`.
fn candidates(work: &[Work], pools: &Pools, probed: &Probed) -> Vec<usize> {
    let passed_before = |i: usize| {
        let bytes = std::fs::read(&work[i].artifact.path).unwrap_or_default();
        pools
            .binary(i)
            .is_some_and(|binary| sanitizer::passed_before(binary, &bytes))
    };
    (0..probed.len())
        .filter(|&i| may_need_asan(&probed[i]) && work[i].artifact.kind != ArtifactKind::Oom)
        .filter(|&i| !passed_before(i))
        .collect()
}

/// What the warning that starts the ASan build says: how many inputs, the
/// engines' own ASan builds, and how to do without.
fn retry_warning(projects: &[FuzzProject], work: &[Work], items: &[usize]) -> String {
    let engine = |e: Engine| items.iter().any(|&i| projects[work[i].project].engine == e);
    let builds = match (engine(Engine::LibFuzzer), engine(Engine::Afl)) {
        (true, true) => "`cargo fuzz`'s default build, and afl.rs's with `AFL_USE_ASAN=1`",
        (false, true) => "as afl.rs builds with `AFL_USE_ASAN=1`",
        _ => "`cargo fuzz`'s default build",
    };
    format!(
        "{} input(s) do not fail alike uninstrumented: trying them on the AddressSanitizer build ({builds}); an input that passes there is not tried again until the target changes; --sanitizer none skips this",
        items.len()
    )
}

/// The AddressSanitizer builds of the targets of `work[items]`; a build
/// that fails is a warning (those inputs keep their first verdict).
fn build_asan(
    projects: &[FuzzProject],
    work: &[Work],
    items: &[usize],
    asan: &AsanToolchain,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Binaries, Error> {
    let message = retry_warning(projects, work, items);
    events.emit(&Message::Warning { message });
    let needed: Vec<Work> = items.iter().map(|&i| work[i].clone()).collect();
    let binaries = super::build(projects, &needed, BuildKind::Asan(asan), settings, events)?;
    if let Some(Err(e)) = binaries.values().find(|b| b.is_err()) {
        let message = format!("the AddressSanitizer build failed, so inputs that do not fail uninstrumented are not tried on it: {}", e.line());
        events.emit(&Message::Warning { message });
    }
    Ok(binaries)
}

/// The items to try on the ASan build, and its binaries.
struct Moved<'a> {
    items: &'a [usize],
    binaries: &'a Binaries,
}

/// Reproduces the items again on their ASan build: each that fails there
/// moves to it (its binary in `pools`, its failure in `probed`); the
/// others keep their error, which now says so, and are recorded as passing
/// there. Starts the pools needed, with the options of each item's target
/// in `options`.
fn retry(
    work: &[Work],
    moved: Moved<'_>,
    pools: &mut Pools,
    probed: &mut Probed,
    request: &FuzzRequest,
    options: &TargetOptions,
) -> Result<(), Error> {
    let hint = || sanitizer::hint(Sanitizer::Auto, true);
    for &i in moved.items {
        let item = &work[i];
        let Some(Ok(binary)) = moved.binaries.get(&(item.project, item.target.clone())) else {
            continue;
        };
        let pool = pools.ensure(binary, options.of(item), &item.target)?;
        let result = reproduce(item, pool, request, &hint);
        match (&result, pools.binary(i)) {
            (Ok(_), _) => pools.move_to(i, binary),
            (Err(e), Some(plain)) if passed(e) => {
                if let Ok(bytes) = std::fs::read(&item.artifact.path) {
                    sanitizer::remember_passed(plain, &bytes);
                }
            }
            (Err(_), _) => {}
        }
        probed[i] = Some(result);
    }
    Ok(())
}
