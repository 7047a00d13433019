//! Decoding a typed target's inputs without running the target: a crew of
//! one worker started with `RUST_LIBFUZZER_DEBUG_PATH`, under which the
//! stand-in's `fuzz_target!` writes the decoded value's `Debug` form (as
//! libfuzzer-sys does for `cargo fuzz fmt`) and, when the target was built
//! against the instrumented `arbitrary`, the draws the decoding made
//! (`<path>.draws`). The typed reduction ([`crate::typed`]) reads both.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::crew::Crew;
use super::error::PoolError;
use super::round::run_round;
use super::shm::Batch;
use super::PoolOptions;
use crate::engine::OracleError;
use crate::typed::{trace, Decoded};

/// A decoding worker and the files it writes.
#[derive(Debug)]
pub struct Decoder {
    crew: Mutex<Crew>,
    debug: PathBuf,
    draws: PathBuf,
    _dir: tempfile::TempDir,
}

impl Decoder {
    pub(super) fn start(binary: &Path, options: &PoolOptions) -> Result<Self, PoolError> {
        let dir = tempfile::tempdir()?;
        let debug = dir.path().join("debug.txt");
        let draws = dir.path().join("debug.txt.draws");
        let env = vec![(
            OsString::from("RUST_LIBFUZZER_DEBUG_PATH"),
            debug.clone().into_os_string(),
        )];
        let crew = Crew::start(binary, options, env)?;
        Ok(Decoder {
            crew: Mutex::new(crew),
            debug,
            draws,
            _dir: dir,
        })
    }

    /// What decoding `input` gives: its `Debug` form and, with the
    /// instrumented `arbitrary`, its draws (empty without). `None` if the
    /// input does not decode.
    pub fn decode_input(&self, input: &[u8]) -> Result<Option<Decoded>, PoolError> {
        let mut crew = self.crew.lock().unwrap_or_else(PoisonError::into_inner);
        for path in [&self.debug, &self.draws] {
            remove(path)?;
        }
        let batch = Batch {
            data: input.to_vec(),
            ends: vec![input.len() as u64],
        };
        crew.load(&batch, true)?;
        run_round(&mut crew, 1, &|_| true)?;
        let Some(debug) = read(&self.debug)? else {
            return Ok(None);
        };
        let draws = read(&self.draws)?
            .and_then(|text| trace::parse(&text))
            .unwrap_or_default();
        Ok(Some(Decoded {
            draws,
            debug: Some(debug.trim_end().to_string()),
        })
        .filter(|d| {
            !d.debug
                .as_deref()
                .unwrap_or("")
                .starts_with("Arbitrary Error:")
        }))
    }
}

impl crate::typed::Decoder for Decoder {
    fn decode(&self, input: &[u8]) -> Result<Option<Decoded>, OracleError> {
        Ok(self.decode_input(input)?)
    }
}

fn remove(path: &Path) -> Result<(), PoolError> {
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err.into()),
        _ => Ok(()),
    }
}

fn read(path: &Path) -> Result<Option<String>, PoolError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err.into()),
    }
}
