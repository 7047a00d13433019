//! Engine discovery: build a graph by walking an engine's builtins.

use crate::engine::Engine;
use crate::{Error, Graph};

/// The discovery script (`js/discover.js`). Its completion value is the graph
/// as JSON; it also defines `__pgDiscover`, which the learning script reuses.
pub const DISCOVER_JS: &str = include_str!("../js/discover.js");

/// Runs discovery in `engine` and returns the graph it printed.
pub fn discover(engine: &dyn Engine) -> Result<Graph, Error> {
    let json = engine.eval(DISCOVER_JS)?;
    Graph::from_json(&json)
}
