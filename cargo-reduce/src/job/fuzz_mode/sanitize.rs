//! `--sanitizer`: which build reproduces each input. Every input to reduce
//! (but hangs, which no sanitizer explains) is reproduced first; under
//! `auto`, the crash inputs that do not fail alike in the uninstrumented
//! build are tried again on the AddressSanitizer build (nightly), and the
//! ones that fail there are reduced there; so are `leak-*` artifacts, whose
//! leak only that build's LeakSanitizer finds (its pool looks for leaks:
//! `PoolOptions::detect_leaks`); a target whose inputs are all leaks
//! starts there. With `address`, only that build is made. The choice is
//! each target's (the flag, else its `Cargo.toml` settings): one target on
//! ASan, the others not, is one run. (`ci` decides per target, after its
//! replay: `job::ci::asan`.)
//!
//! Nothing in a crash artifact says it is ASan's (libFuzzer names every
//! crash `crash-<sha1>`, AFL++ by its signal, and ASan aborts as a panic
//! does), and a crate's stale artifacts, whose bugs were fixed, pass too:
//! on such a crate the retry would cost an ASan build and its replays on
//! every run. So what the ASan build told of an input is recorded
//! ([`sanitizer::remember_asan_verdict`]): one that gave no ASan bug is
//! not tried again while the uninstrumented build stays the same, and one
//! reduced there, whose minimized copy makes it done, is reproduced there
//! again, so that its duplicates are known as such; `oom-` artifacts (libFuzzer's own
//! memory limit, not ASan's) are not tried. A `crash-` that runs out of
//! memory uninstrumented is: libFuzzer names its own limit's failures
//! `oom-`, so under `cargo fuzz`'s ASan build that one was ASan's
//! (allocation-size-too-big, or its own out-of-memory), a bug of its own
//! that the uninstrumented build would group with the `oom-` ones. It
//! moves only if ASan reports one.

use std::cell::OnceCell;
use std::path::Path;

use super::build_targets::{Binaries, TargetKey};
use super::outcomes::{Caches, Replay};
use super::pools::{Pools, TargetOptions};
use super::{Context, FuzzRequest, Work};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{Failure, FailureKind, WorkerPool};
use crate::fuzz::project::{target_of_afl_input, ArtifactKind, Engine, FuzzProject};
use crate::fuzz::sanitizer::{self, AsanToolchain, AsanVerdict, Sanitizer};
use crate::fuzz::shrink::ArtifactError;
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
            Exit::ToolMissing,
            "--sanitizer address builds with -Zsanitizer=address, which needs a nightly toolchain: run `rustup toolchain install nightly`",
        )),
        found => Ok(found),
    }
}

/// `--sanitizer` in one run, each target's own (its `Cargo.toml` may set
/// it): the toolchain of the targets set to `address`, found at once;
/// under `auto`, looked for only when an input needs it.
pub(super) struct Sanitizers {
    only: Option<AsanToolchain>,
    found: OnceCell<Option<AsanToolchain>>,
}

impl Sanitizers {
    /// For the targets of `work`; an error when one is set to `address`
    /// and there is no nightly.
    pub(super) fn new(work: &[Work]) -> Result<Sanitizers, Error> {
        Ok(Sanitizers {
            only: address_toolchain(work.iter().map(|w| w.options.sanitizer()))?,
            found: OnceCell::new(),
        })
    }

    /// Each target of `work` built once, on the build it starts on
    /// ([`Sanitizers::first`]).
    pub(super) fn build(
        &self,
        projects: &[FuzzProject],
        work: &[Work],
        settings: &Settings,
        events: &dyn Events,
    ) -> Result<Binaries, Error> {
        let targets: Vec<_> = work
            .iter()
            .map(|w| (w.key(), self.first(w, work)))
            .collect();
        let asan = self
            .only
            .as_ref()
            .or(self.found.get().and_then(Option::as_ref));
        build_first(
            projects,
            &targets,
            (Purpose::Reproduce, asan),
            settings,
            events,
        )
    }

    /// The sanitizer `item`'s target starts on: its own, but `address` for
    /// a target under `auto` whose inputs are all leaks, when there is a
    /// nightly (only LeakSanitizer finds them: the uninstrumented build
    /// would be made and run for nothing).
    fn first(&self, item: &Work, work: &[Work]) -> Sanitizer {
        let choice = item.options.sanitizer();
        let only_leaks = work
            .iter()
            .filter(|w| w.key() == item.key())
            .all(|w| w.artifact.kind == ArtifactKind::Leak);
        match choice {
            Sanitizer::Auto if only_leaks && self.asan(choice).is_some() => Sanitizer::Address,
            _ => choice,
        }
    }

    /// The ASan toolchain an input of a target set to `choice` may move to.
    fn asan(&self, choice: Sanitizer) -> Option<&AsanToolchain> {
        match choice {
            Sanitizer::Address => self.only.as_ref(),
            Sanitizer::Auto => self.found.get_or_init(AsanToolchain::find).as_ref(),
            Sanitizer::None => None,
        }
    }

    /// What a "does not reproduce" error of a target set to `choice`
    /// suggests.
    fn hint(&self, choice: Sanitizer) -> &'static str {
        sanitizer::hint(choice, self.asan(choice).is_some())
    }
}

/// The nightly the targets set to `address` among `choices` build with
/// (`None` when there is none); an error when one is and there is no
/// nightly.
pub(in crate::job) fn address_toolchain(
    mut choices: impl Iterator<Item = Sanitizer>,
) -> Result<Option<AsanToolchain>, Error> {
    match choices.any(|c| c == Sanitizer::Address) {
        true => toolchain(Sanitizer::Address),
        false => Ok(None),
    }
}

/// What a mode builds its targets for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::job) enum Purpose {
    /// Reproducing inputs: the plain build, or the ASan one.
    Reproduce,
    /// Counting features: the coverage build, with or without ASan.
    Coverage,
}

impl Purpose {
    /// Its build, with `asan` or without.
    fn kind(self, asan: Option<&AsanToolchain>) -> BuildKind<'_> {
        match self {
            Purpose::Reproduce => asan.into(),
            Purpose::Coverage => BuildKind::Coverage(asan),
        }
    }
}

/// Each of `targets` built once for `purpose`, on the build its sanitizer
/// starts it on: with `asan` (from [`address_toolchain`]) for `address`,
/// else without.
pub(in crate::job) fn build_first(
    projects: &[FuzzProject],
    targets: &[(TargetKey, Sanitizer)],
    (purpose, asan): (Purpose, Option<&AsanToolchain>),
    settings: &Settings,
    events: &dyn Events,
) -> Result<Binaries, Error> {
    let mut binaries = Binaries::new();
    for (address, kind) in [(false, purpose.kind(None)), (true, purpose.kind(asan))] {
        let keys: Vec<TargetKey> = targets
            .iter()
            .filter(|(_, choice)| (*choice == Sanitizer::Address) == address)
            .map(|(key, _)| key.clone())
            .collect();
        if !keys.is_empty() {
            binaries.extend(super::build(projects, &keys, kind, settings, events)?);
        }
    }
    Ok(binaries)
}

/// Why a corpus file that passed was not tried on ASan: libFuzzer keeps
/// only inputs that passed in a corpus.
const CORPUS_FILE_HINT: &str = "; it is a file of its target's corpus, where libFuzzer keeps only \
     inputs that passed (on `cargo fuzz`'s AddressSanitizer build too): name a crash artifact";

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
    let mut caches = Caches::new(projects);
    let hint = |item: &Work| match in_libfuzzer_corpus(projects, item) {
        true => CORPUS_FILE_HINT,
        false => sanitizers.hint(item.options.sanitizer()),
    };
    let mut probed = probe(work, pools, (cx.request, &mut caches), &hint);
    let candidates = candidates(projects, work, pools, &probed);
    // Looked for only when an input needs it.
    let toolchain = match candidates.is_empty() {
        true => None,
        false => sanitizers.asan(Sanitizer::Auto),
    };
    let Some(toolchain) = toolchain else {
        caches.save();
        return Ok(probed);
    };
    let retry: Vec<usize> = candidates.iter().map(|&(i, _)| i).collect();
    let asked: Vec<usize> = candidates
        .iter()
        .filter(|(_, verdict)| verdict.is_none())
        .map(|&(i, _)| i)
        .collect();
    let warning = (!asked.is_empty()).then(|| retry_warning(projects, work, &asked, &probed));
    let asan_binaries = build_asan(projects, work, (&retry, warning), toolchain, cx)?;
    let moved = Moved {
        items: &retry,
        binaries: &asan_binaries,
    };
    let retried = self::retry(
        work,
        moved,
        pools,
        &mut probed,
        (cx.request, options, &mut caches),
    );
    caches.save();
    retried?;
    Ok(probed)
}

/// Reproduces every input to reduce (not hangs, not inputs with a
/// minimized copy) in its pool, or takes what that gave on an earlier run
/// on the same build (`caches`); the results, by item.
fn probe(
    work: &[Work],
    pools: &Pools,
    (request, caches): (&FuzzRequest, &mut Caches<'_>),
    hint: &dyn Fn(&Work) -> &'static str,
) -> Probed {
    work.iter()
        .enumerate()
        .map(|(i, item)| {
            let pool = pools.of(i).filter(|_| !item.done && !item.is_timeout())?;
            let binary = pools.binary(i)?;
            let hint = || hint(item);
            Some(reproduce_remembered(
                item,
                (binary, pool),
                request,
                caches,
                &hint,
            ))
        })
        .collect()
}

/// Reproduces `item` in `pool` (of `binary`) under its own limits (an
/// AFL++ input's `-m`, an `oom-*` artifact's), or takes what that gave
/// on an earlier run (`caches`); a "does not reproduce" error says
/// `hint()` (asked only then: it may look for a toolchain).
fn reproduce_remembered(
    item: &Work,
    run: (&Path, &WorkerPool),
    request: &FuzzRequest,
    caches: &mut Caches<'_>,
    hint: &dyn Fn() -> &'static str,
) -> Result<Failure, Error> {
    let limits = item.limits(&request.options);
    let bytes = read_artifact(item)?;
    caches
        .reproduce(&Replay::new(item, run, &bytes, limits))?
        .ok_or_else(|| not_reproduced(item, hint))
}

/// `item`'s content.
fn read_artifact(item: &Work) -> Result<Vec<u8>, Error> {
    let path = &item.artifact.path;
    std::fs::read(path).map_err(|e| {
        Error::caused(
            Exit::BadInput,
            format!("cannot read artifact `{}`", path.display()),
            e,
        )
    })
}

/// The "does not reproduce" error of `item`, which says `hint()`, and the
/// target whose input it may be.
fn not_reproduced(item: &Work, hint: &dyn Fn() -> &'static str) -> Error {
    let path = item.artifact.path.clone();
    let hint = format!("{}{}", hint(), other_target_hint(item));
    Error::from(ArtifactError::DoesNotReproduce { path, hint })
}

/// For an input of another target (a `--fuzz-target` that names the
/// wrong one): which, as its `artifacts/<target>/` folder or the AFL++
/// instance that saved it says.
fn other_target_hint(item: &Work) -> String {
    let path = &item.artifact.path;
    let artifacts_of =
        super::artifacts_folder_of(path).map(|name| ("it is in the artifacts of", name));
    let saved_by = || {
        Some((
            "the AFL++ instance that saved it ran",
            target_of_afl_input(path)?,
        ))
    };
    match artifacts_of.or_else(saved_by) {
        Some((whose, owner)) if owner != item.target => {
            format!(
                "; {whose} `{owner}`, not `{}`: check --fuzz-target",
                item.target
            )
        }
        _ => String::new(),
    }
}

/// Whether a probe says `item` (of a target of `engine`) may need a
/// sanitizer: it did not fail, or not alike in every run (garbage read
/// past a buffer), or [`crash_may_be_asan_s`].
fn may_need_asan(item: &Work, engine: Engine, probed: &Option<Result<Failure, Error>>) -> bool {
    match probed {
        Some(Err(e)) => passed(e),
        Some(Ok(failure)) => crash_may_be_asan_s(engine, item.artifact.kind, failure),
        None => false,
    }
}

/// Whether an input that failed as `plain` uninstrumented, written as
/// `kind` by a target of `engine`, may have failed on ASan's own bug: a
/// libFuzzer `crash-` that ran out of memory (see the module's docs).
pub(in crate::job) fn crash_may_be_asan_s(
    engine: Engine,
    kind: ArtifactKind,
    plain: &Failure,
) -> bool {
    engine == Engine::LibFuzzer && kind == ArtifactKind::Crash && plain.kind == FailureKind::Oom
}

/// Whether the ASan build's failure (`asan`) tells more than the
/// uninstrumented one's (`plain`; `None`: passed): it fails where that
/// passed, or reports an ASan bug where that failed otherwise.
pub(in crate::job) fn asan_tells_more(plain: Option<&Failure>, asan: Option<&Failure>) -> bool {
    match (plain, asan) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(plain), Some(asan)) => {
            asan.kind != plain.kind && matches!(asan.kind, FailureKind::Sanitizer(_))
        }
    }
}

/// Whether a reproduction's error says the input did not fail, or not
/// alike in every run.
fn passed(e: &Error) -> bool {
    matches!(e.exit(), Exit::NotInteresting | Exit::Flaky)
}

/// The items to try on the ASan build: those `probe` found that may need
/// a sanitizer ([`may_need_asan`]; crashes and leaks of targets under
/// `auto`) but those an earlier run found giving no ASan bug on the ASan
/// build of their (unchanged) uninstrumented binary in `pools`; and the
/// inputs with a minimized copy (not probed) that an earlier run found
/// failing there, so that their failure is known on the build that shows
/// it and its duplicates are not reduced again. Each with its earlier
/// verdict.
fn candidates(
    projects: &[FuzzProject],
    work: &[Work],
    pools: &Pools,
    probed: &Probed,
) -> Vec<(usize, Option<AsanVerdict>)> {
    let verdict = |i: usize| {
        let bytes = std::fs::read(&work[i].artifact.path).ok()?;
        sanitizer::asan_verdict_before(pools.binary(i)?, &bytes)
    };
    let engine = |i: usize| projects[work[i].project].engine;
    (0..probed.len())
        .filter(|&i| work[i].options.sanitizer() == Sanitizer::Auto)
        .filter(|&i| work[i].artifact.kind != ArtifactKind::Oom)
        .filter(|&i| !in_libfuzzer_corpus(projects, &work[i]))
        .filter_map(|i| {
            let asked = work[i].done || may_need_asan(&work[i], engine(i), &probed[i]);
            let verdict = asked.then(|| verdict(i))?;
            match verdict {
                Some(AsanVerdict::NoBug) => None,
                None if work[i].done => None,
                _ => Some((i, verdict)),
            }
        })
        .collect()
}

/// Whether `item` is a file of its target's own libFuzzer corpus
/// (`corpus/<target>/`), named on the command line: libFuzzer keeps there
/// only inputs that passed, run by `cargo fuzz`'s default build, which is
/// ASan's, so that build has nothing to tell of it.
fn in_libfuzzer_corpus(projects: &[FuzzProject], item: &Work) -> bool {
    let project = &projects[item.project];
    let folder = |path: &Path| std::fs::canonicalize(path).ok();
    let corpus = folder(&project.corpus_dir(&item.target));
    project.engine == Engine::LibFuzzer
        && corpus.is_some()
        && item.artifact.path.parent().and_then(folder) == corpus
}

/// What the warning that starts the ASan build says: how many inputs and
/// why (as `probed` found them), the engines' own ASan builds, and how to
/// do without.
fn retry_warning(
    projects: &[FuzzProject],
    work: &[Work],
    items: &[usize],
    probed: &Probed,
) -> String {
    let engine = |e: Engine| items.iter().any(|&i| projects[work[i].project].engine == e);
    let builds = match (engine(Engine::LibFuzzer), engine(Engine::Afl)) {
        (true, true) => "`cargo fuzz`'s default build, and afl.rs's with `AFL_USE_ASAN=1`",
        (false, true) => "as afl.rs builds with `AFL_USE_ASAN=1`",
        _ => "`cargo fuzz`'s default build",
    };
    // A probed input tried there either failed, running out of memory, or
    // did not fail alike.
    let out_of_memory = items
        .iter()
        .filter(|&&i| matches!(probed[i], Some(Ok(_))))
        .count();
    let why = match (items.len() - out_of_memory, out_of_memory) {
        (n, 0) => format!("{n} input(s) do not fail uninstrumented, or not alike in every run"),
        (0, m) => format!("{m} `crash-` input(s) run out of memory uninstrumented (libFuzzer writes its own limit's as `oom-`)"),
        (n, m) => format!("{n} input(s) do not fail uninstrumented, or not alike in every run, and {m} `crash-` input(s) run out of memory there"),
    };
    format!(
        "{why}: trying them on the AddressSanitizer build ({builds}), where a bug only it sees fails; an input that gives none there is not tried again until the target changes; --sanitizer none skips this"
    )
}

/// The AddressSanitizer builds of the targets of `work[items]`, after
/// `warning` (why, when some of them no earlier run tried); a build that
/// fails is a warning (those inputs keep their first verdict).
fn build_asan(
    projects: &[FuzzProject],
    work: &[Work],
    (items, warning): (&[usize], Option<String>),
    asan: &AsanToolchain,
    cx: Context<'_>,
) -> Result<Binaries, Error> {
    if let Some(message) = warning {
        cx.events.emit(&Message::Warning { message });
    }
    let needed: Vec<TargetKey> = items.iter().map(|&i| work[i].key()).collect();
    let kind = BuildKind::Asan(asan);
    let binaries = super::build(projects, &needed, kind, cx.settings, cx.events)?;
    if let Some(Err(e)) = binaries.values().find(|b| b.is_err()) {
        let message = format!("the AddressSanitizer build failed, so inputs that do not fail uninstrumented are not tried on it: {}", e.line());
        cx.events.emit(&Message::Warning { message });
    }
    Ok(binaries)
}

/// The items to try on the ASan build, and its binaries.
struct Moved<'a> {
    items: &'a [usize],
    binaries: &'a Binaries,
}

/// Reproduces the items again on their ASan build: each that fails there,
/// and otherwise than it failed uninstrumented, moves to it (its binary in
/// `pools`, its failure in `probed`); the others keep their first result
/// (a "does not reproduce" error now says it was tried there). What the
/// build told of each is recorded. Starts the pools needed, with the
/// options of each item's target in `options`.
fn retry(
    work: &[Work],
    moved: Moved<'_>,
    pools: &mut Pools,
    probed: &mut Probed,
    (request, options, caches): (&FuzzRequest, &TargetOptions, &mut Caches<'_>),
) -> Result<(), Error> {
    let hint = || sanitizer::hint(Sanitizer::Auto, true);
    for &i in moved.items {
        let item = &work[i];
        let Some(Ok(binary)) = moved.binaries.get(&(item.project, item.target.clone())) else {
            continue;
        };
        let pool = pools.ensure(binary, options.of(item), &item.target)?;
        let result = reproduce_remembered(item, (binary, pool), request, caches, &hint);
        let plain = probed[i].take();
        let first = plain.as_ref().and_then(|p| p.as_ref().ok());
        let asan_bug = asan_tells_more(first, result.as_ref().ok());
        let told = match result.as_ref() {
            Ok(_) if asan_bug => Some(AsanVerdict::Bug),
            Ok(_) => Some(AsanVerdict::NoBug),
            Err(e) => passed(e).then_some(AsanVerdict::NoBug),
        };
        if let (Some(verdict), Some(plain_binary)) = (told, pools.binary(i)) {
            if let Ok(bytes) = std::fs::read(&item.artifact.path) {
                sanitizer::remember_asan_verdict(plain_binary, &bytes, verdict);
            }
        }
        if asan_bug {
            pools.move_to(i, binary);
        }
        // An input with a minimized copy that did not fail there keeps no
        // probe: its own replay says what became of it.
        probed[i] = match (plain, asan_bug) {
            (Some(Ok(first)), false) => Some(Ok(first)),
            (None, false) => None,
            _ => Some(result),
        };
    }
    Ok(())
}
