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

use crate::gen::Walk;
use crate::index::{Index, Ty};
use crate::program::{parse_expr, Expr};
use crate::Error;

#[cfg(feature = "foreign")]
pub use extract::extract;

/// Holes are written `vN` with `N` from here on, far above any variable of a
/// program, so that a snippet is an [`Expr`] like any other.
pub(crate) const HOLE_BASE: u32 = 1 << 20;

/// Tries at a fitting snippet per splice before giving up.
const TRIES: usize = 4;

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

    /// A random snippet with its holes filled for a statement that may use
    /// the variables typed `vars`; `None` when the tries found no snippet
    /// whose holes some type of the graph can fill.
    pub(crate) fn splice(&self, walk: &mut Walk) -> Option<Expr> {
        if self.items.is_empty() {
            return None;
        }
        (0..TRIES).find_map(|_| {
            let (snippet, expr) = walk.rng.pick(&self.items);
            fill(snippet, expr.clone(), walk)
        })
    }
}

/// `expr` with every hole replaced by a value that has the hole's keys.
fn fill(snippet: &Snippet, mut expr: Expr, walk: &mut Walk) -> Option<Expr> {
    let mut values = Vec::with_capacity(snippet.holes.len());
    for keys in &snippet.holes {
        values.push(hole_value(keys, walk)?);
    }
    expr.replace_vars(&mut |v| match v.checked_sub(HOLE_BASE) {
        Some(h) => values[h as usize].clone(),
        None => Expr::Var(v),
    });
    Some(expr)
}

/// A value for a hole that needs `keys`: a variable whose type has them,
/// else a new value of such a type; any value when it needs none.
fn hole_value(keys: &[String], walk: &mut Walk) -> Option<Expr> {
    let index = walk.index;
    let depth = walk.config.max_depth;
    if keys.is_empty() {
        if !walk.vars.is_empty() && walk.rng.chance(1, 2) {
            return Some(Expr::Var(walk.rng.below(walk.vars.len()) as u32));
        }
        return Some(walk.any(depth));
    }
    let fitting: Vec<u32> = (0..walk.vars.len() as u32)
        .filter(|&v| walk.vars[v as usize].is_some_and(|t| has_keys(index, t, keys)))
        .collect();
    if !fitting.is_empty() && !walk.rng.chance(1, 4) {
        return Some(Expr::Var(*walk.rng.pick(&fitting)));
    }
    let types: Vec<Ty> = index
        .buildable
        .iter()
        .copied()
        .filter(|&t| has_keys(index, t, keys))
        .collect();
    // Instances (`{Map.prototype}`) rather than the prototype object itself,
    // whose methods throw for want of the internal slots.
    let instances: Vec<Ty> = types
        .iter()
        .copied()
        .filter(|&t| index.names[t as usize].starts_with('{'))
        .collect();
    let pool = if instances.is_empty() {
        types
    } else {
        instances
    };
    if pool.is_empty() {
        return fitting.first().map(|&v| Expr::Var(v));
    }
    let t = *walk.rng.pick(&pool);
    Some(walk.value(t, depth))
}

/// Whether a `ty` value has every one of `keys`, own or inherited.
fn has_keys(index: &Index, ty: Ty, keys: &[String]) -> bool {
    keys.iter().all(|k| index.property(ty, k).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::learned;
    use crate::gen::Config;
    use crate::program::{parse_program, Program, Stmt};
    use crate::rng::Rng;
    use crate::Generator;

    fn snippet(expr: &str, holes: &[&[&str]]) -> Snippet {
        Snippet {
            expr: expr.into(),
            holes: holes
                .iter()
                .map(|h| h.iter().map(|k| k.to_string()).collect())
                .collect(),
            file: "test.js".into(),
        }
    }

    fn generator_with(snippets: &[Snippet]) -> Generator {
        Generator::new(&learned(), Config::default())
            .unwrap()
            .with_snippets(Snippets::new(snippets.to_vec()).unwrap())
    }

    /// The statements splicing `snippets` after `program` gives, over 200 seeds.
    fn spliced(g: &Generator, program: &str) -> Vec<String> {
        let p = parse_program(program);
        let mut vars = g.var_types(&p);
        (0..200)
            .filter_map(|seed| {
                let mut rng = Rng::new(seed);
                let expr = g.snippets.splice(&mut Walk {
                    index: &g.index,
                    config: &g.config,
                    rng: &mut rng,
                    vars: &vars,
                })?;
                let stmt = crate::gen::def(vars.len() as u32, expr);
                vars.truncate(p.stmts.len());
                Some(Program { stmts: vec![stmt] }.render())
            })
            .collect()
    }

    #[test]
    fn receivers_get_a_variable_or_a_value_of_a_type_with_the_keys() {
        let g = generator_with(&[snippet("v1048576.set(1, \"a\")", &[&["set"]])]);
        let program = "try { var v0 = new (this.Map)(); } catch (e) {}\n\
                       try { var v1 = this.Math.abs(1); } catch (e) {}\n";
        let out = spliced(&g, program);
        assert_eq!(out.len(), 200);
        // The Map variable is the only one with `set`; the number never is.
        assert!(
            out.iter().any(|s| s.contains("= v0.set(1, \"a\")")),
            "{out:?}"
        );
        assert!(out.iter().all(|s| !s.contains("v1.set")), "{out:?}");
        for s in &out {
            assert!(!s.contains("v1048576"), "{s}");
            let p = parse_program(s);
            assert!(p.stmts.iter().all(Stmt::is_generated), "{s}");
            let mut vars = g.var_types(&parse_program(program));
            vars.truncate(2);
            let Stmt::Def { expr, .. } = &p.stmts[0] else {
                panic!("{s}")
            };
            // Whatever fills the hole has `set`, as far as the graph tells.
            let Expr::Call(callee, _) = expr else {
                panic!("{s}")
            };
            let Expr::Prop(receiver, _) = &**callee else {
                panic!("{s}")
            };
            if let Some(t) = g.index.type_of(receiver, &vars) {
                assert!(has_keys(&g.index, t, &["set".into()]), "{s}");
            }
        }
    }

    #[test]
    fn snippets_no_type_can_fill_are_not_spliced() {
        let g = generator_with(&[snippet(
            "v1048576.noSuchMethodAnywhere()",
            &[&["noSuchMethodAnywhere"]],
        )]);
        assert!(spliced(&g, "").is_empty());
    }

    #[test]
    fn json_round_trips_and_refuses_other_code() {
        let s = Snippets::new(vec![snippet("new (this.Map)()", &[])]).unwrap();
        let back = Snippets::from_json(&s.to_json()).unwrap();
        assert_eq!(back.items, s.items);
        assert!(Snippets::new(vec![snippet("assert(1) +", &[])]).is_err());
    }
}
