//! Learning signatures from existing tests.
//!
//! The tests run in an engine after `js/learn.js` has wrapped every builtin
//! function in a recording Proxy; the types seen at each call become
//! signature vertices of the graph.

use serde::{Deserialize, Serialize};

use crate::discover::DISCOVER_JS;
use crate::engine::Engine;
use crate::{Error, Graph};

/// The learning prelude (`js/learn.js`); it defines `__pgLearn`.
pub const LEARN_JS: &str = include_str!("../js/learn.js");

/// One JavaScript test: a name for reports and its source.
#[derive(Debug, Clone, Serialize)]
pub struct TestFile {
    /// Usually the file name.
    pub name: String,
    /// The script, run as a classic script in the global scope.
    pub source: String,
}

/// A test that threw; it still contributes what it observed before throwing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Failure {
    /// The test's name.
    pub name: String,
    /// The exception, as `Name: message`.
    pub error: String,
}

/// What learning produced.
#[derive(Debug, Clone, Deserialize)]
pub struct Learned {
    /// The engine's discovered graph plus every observed signature.
    pub graph: Graph,
    /// Tests that threw.
    pub failures: Vec<Failure>,
}

/// The whole learning script for `tests`: discovery, the prelude and a call
/// running the tests in order in one realm, so earlier tests' globals (a
/// shared harness) are visible to later ones.
pub fn learning_script(tests: &[TestFile]) -> String {
    let tests = serde_json::to_string(tests).expect("tests serialize");
    format!("{DISCOVER_JS}\n{LEARN_JS}\n__pgLearn({tests});\n")
}

/// Runs `tests` in `engine` and returns the learned graph.
pub fn learn(engine: &dyn Engine, tests: &[TestFile]) -> Result<Learned, Error> {
    let json = engine.eval(&learning_script(tests))?;
    let learned: Learned = serde_json::from_str(&json).map_err(Error::Json)?;
    learned.graph.validate()?;
    Ok(learned)
}
