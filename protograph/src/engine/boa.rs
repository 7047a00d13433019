//! Boa as an [`Engine`], in-process (cargo feature `boa`).

use boa_engine::{Context, Source};

use super::Engine;
use crate::Error;

/// Runs scripts in a fresh `boa_engine::Context` each time. Boa has no public
/// API to list own property descriptors, so discovery is the same JavaScript
/// that runs in every other engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct Boa;

impl Engine for Boa {
    fn name(&self) -> &str {
        "boa"
    }

    fn eval(&self, script: &str) -> Result<String, Error> {
        let fail = |message: String| Error::Engine {
            engine: "boa".into(),
            message,
        };
        let mut context = Context::default();
        let value = context
            .eval(Source::from_bytes(script))
            .map_err(|e| fail(e.to_string()))?;
        let text = value
            .to_string(&mut context)
            .map_err(|e| fail(e.to_string()))?;
        Ok(text.to_std_string_escaped())
    }
}
