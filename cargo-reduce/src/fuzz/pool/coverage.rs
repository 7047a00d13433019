//! Replays in the coverage build: each passing input's features, read from
//! the workers' feature logs (`protocol::FEATURE_LOG_ENV`) after the round.
//! A failing input keeps its [`Outcome::Failed`], classified as in every
//! other replay; an input the target rejected (`Corpus::Reject`) or that
//! was too short for its type has no features, as in libFuzzer.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;

use super::protocol::{feature_records, FeatureRecord, FEATURE_LOG_ENV, STARTUP_RECORD};
use super::{Outcome, PoolError, PoolOptions, WorkerPool, ROUND_BYTES};

/// One input replayed in the coverage build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Replayed {
    /// What the test did.
    pub outcome: Outcome,
    /// Its features, sorted, without repeats (empty unless it passed and
    /// was kept).
    pub features: Vec<u32>,
    /// The program's counter count: features below 8 times it are an
    /// edge's (the edge is the feature / 8), one above is the stack depth's.
    pub counters: u32,
}

impl Replayed {
    /// A run that passed and covered nothing (yet).
    fn nothing() -> Self {
        Replayed {
            outcome: Outcome::Passed,
            features: Vec::new(),
            counters: 0,
        }
    }
}

/// A pool of a coverage build's workers, each with its feature log.
#[derive(Debug)]
pub(crate) struct CoveragePool {
    pool: WorkerPool,
    /// The feature logs (one file per worker slot).
    logs: tempfile::TempDir,
    /// What the workers ran as they started (the target's init code, the
    /// empty input), counted for no input.
    startup: Replayed,
}

impl CoveragePool {
    /// Starts `options.jobs` workers of `binary` (built as
    /// `BuildKind::Coverage`).
    pub(crate) fn start(binary: &Path, options: PoolOptions) -> Result<Self, PoolError> {
        Self::start_with_env(binary, options, Vec::new())
    }

    /// [`CoveragePool::start`], the workers also given `env` (the PC
    /// table's file: `pc_table`).
    pub(crate) fn start_with_env(
        binary: &Path,
        options: PoolOptions,
        mut env: Vec<(OsString, OsString)>,
    ) -> Result<Self, PoolError> {
        let logs = tempfile::Builder::new()
            .prefix("cargo-reduce-features")
            .tempdir()
            .map_err(|e| {
                PoolError::Protocol(format!("cannot make a feature log directory: {e}"))
            })?;
        env.push((OsString::from(FEATURE_LOG_ENV), logs.path().into()));
        let options = PoolOptions {
            reproducible: true,
            ..options
        };
        let pool = WorkerPool::start_with_env(binary, options, env)?;
        let mut pool = CoveragePool {
            pool,
            logs,
            startup: Replayed::nothing(),
        };
        pool.startup = pool.read_startup()?;
        Ok(pool)
    }

    /// The features of what the workers ran as they started (the same in
    /// each; written before their first round, which empties the logs).
    fn read_startup(&self) -> Result<Replayed, PoolError> {
        let mut startup = Replayed::nothing();
        self.for_each_log(&mut |_, path| {
            let records = feature_records(&std::fs::read(path)?);
            for record in records.into_iter().filter(|r| r.index == STARTUP_RECORD) {
                startup.features.extend(record.features);
                startup.counters = record.counters;
            }
            Ok(())
        })?;
        startup.features.sort_unstable();
        startup.features.dedup();
        Ok(startup)
    }

    /// The features of what the workers ran as they started, before any
    /// input: libFuzzer's `LLVMFuzzerInitialize` and the target's `init:`
    /// code, and the empty input it runs before the corpus.
    pub(crate) fn startup(&self) -> &Replayed {
        &self.startup
    }

    /// Whether the target takes an `Arbitrary` type.
    pub(crate) fn typed_input(&self) -> bool {
        self.pool.typed_input()
    }

    /// Runs every input once, in parallel; each one's outcome and features,
    /// in `inputs`' order. Rounds are cut so that each is one part of
    /// shared memory (the logs name inputs by their index in it).
    pub(crate) fn replay(&self, inputs: &[&[u8]]) -> Result<Vec<Replayed>, PoolError> {
        self.replay_counted(inputs, &mut |_| {})
    }

    /// [`replay`](Self::replay), telling `done` how many inputs have run
    /// after each round.
    pub(crate) fn replay_counted(
        &self,
        inputs: &[&[u8]],
        done: &mut dyn FnMut(usize),
    ) -> Result<Vec<Replayed>, PoolError> {
        let mut replayed = Vec::with_capacity(inputs.len());
        let mut start = 0;
        while start < inputs.len() {
            let mut end = start + 1;
            let mut bytes = inputs[start].len();
            while end < inputs.len() && bytes + inputs[end].len() + 64 < ROUND_BYTES / 2 {
                bytes += inputs[end].len() + 64;
                end += 1;
            }
            replayed.extend(self.round(&inputs[start..end])?);
            done(end);
            start = end;
        }
        Ok(replayed)
    }

    /// One round of `inputs`, with the logs emptied first.
    fn round(&self, inputs: &[&[u8]]) -> Result<Vec<Replayed>, PoolError> {
        self.for_each_log(&mut |file, _| file.set_len(0))?;
        let result = self.pool.first_accepted(inputs, &|_| false)?;
        let mut features: HashMap<u64, FeatureRecord> = HashMap::new();
        self.for_each_log(&mut |_, path| {
            for mut record in feature_records(&std::fs::read(path)?) {
                record.features.sort_unstable();
                record.features.dedup();
                // A test run twice (after its worker died) counts once.
                features.entry(record.index).or_insert(record);
            }
            Ok(())
        })?;
        result
            .outcomes
            .into_iter()
            .enumerate()
            .map(|(index, outcome)| {
                let outcome = outcome.ok_or_else(|| {
                    PoolError::Protocol(format!("input {index} of a replay was not run"))
                })?;
                let record = match outcome {
                    Outcome::Passed => features.remove(&(index as u64)),
                    Outcome::Failed(_) => None,
                };
                let (features, counters) =
                    record.map_or((Vec::new(), 0), |r| (r.features, r.counters));
                Ok(Replayed {
                    outcome,
                    features,
                    counters,
                })
            })
            .collect()
    }

    /// Calls `each` with every feature log (opened for writing) and its path.
    fn for_each_log(
        &self,
        each: &mut dyn FnMut(&std::fs::File, &Path) -> std::io::Result<()>,
    ) -> Result<(), PoolError> {
        let error = |e: std::io::Error| PoolError::Protocol(format!("feature log: {e}"));
        for entry in std::fs::read_dir(self.logs.path()).map_err(error)? {
            let path = entry.map_err(error)?.path();
            let file = std::fs::File::options()
                .write(true)
                .open(&path)
                .map_err(error)?;
            each(&file, &path).map_err(error)?;
        }
        Ok(())
    }
}
