//! Statements from foreign tests (test262, the project's own), spliced into
//! programs typed by the graph rather than kept verbatim.
//!
//! A [`Snippet`] is a call or construction taken from a test file (by
//! `extract`, cargo feature `foreign`) in generated form, with the test's
//! own variables turned into *holes*. Each hole carries the property keys
//! the test reads on it (`m.set(1, "a")`: the hole `m` needs `set`). Splicing
//! a snippet into a program fills each hole with a variable of the program
//! whose type (as observed by runtime feedback, else as the graph guesses)
//! has those keys, or with a new value of a type of the graph that has them;
//! a hole the test only passes as an argument gets any value. The test's
//! global names become reads of the global object (`this.Map`), and calls
//! of anything else (test262's harness: `assert`, `verifyProperty`) are not
//! taken.

#[cfg(feature = "foreign")]
mod extract;

use serde::{Deserialize, Serialize};

use crate::program::{parse_expr, Expr};
use crate::Error;

#[cfg(feature = "foreign")]
pub use extract::extract;

/// Holes are written `vN` with `N` from here on, far above any variable of a
/// program, so that a snippet is an [`Expr`] like any other.
pub(crate) const HOLE_BASE: u32 = 1 << 20;

/// One call or construction from a foreign test, with holes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snippet {
    /// The expression in generated form, the holes as `v1048576`, `v1048577`…
    pub expr: String,
    /// Per hole, the property keys the test reads on it.
    pub holes: Vec<Vec<String>>,
    /// The file it came from.
    pub file: String,
}

/// Snippets to splice, with their expressions parsed once.
#[derive(Debug, Clone, Default)]
pub struct Snippets {
    items: Vec<(Snippet, Expr)>,
}

impl Snippets {
    /// Parses `snippets`; those not in generated form are an error.
    pub fn new(snippets: Vec<Snippet>) -> Result<Snippets, Error> {
        let items = snippets
            .into_iter()
            .map(|s| match parse_expr(&s.expr) {
                Some(e) => Ok((s, e)),
                None => Err(Error::Snippet(s.expr)),
            })
            .collect::<Result<_, _>>()?;
        Ok(Snippets { items })
    }

    /// Reads the JSON list [`Snippets::to_json`] writes.
    pub fn from_json(text: &str) -> Result<Snippets, Error> {
        Snippets::new(serde_json::from_str(text).map_err(Error::Json)?)
    }

    /// The snippets as a JSON list.
    pub fn to_json(&self) -> String {
        let list: Vec<&Snippet> = self.items.iter().map(|(s, _)| s).collect();
        serde_json::to_string_pretty(&list).expect("snippets serialize")
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The snippets with their parsed expressions.
    pub(crate) fn items(&self) -> &[(Snippet, Expr)] {
        &self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_and_refuses_other_code() {
        let one = |expr: &str| Snippet {
            expr: expr.into(),
            holes: Vec::new(),
            file: "test.js".into(),
        };
        let s = Snippets::new(vec![one("new (this.Map)()")]).unwrap();
        let back = Snippets::from_json(&s.to_json()).unwrap();
        assert_eq!(back.items, s.items);
        assert!(Snippets::new(vec![one("assert(1) +")]).is_err());
    }
}
