//! Statements from foreign tests ([`crate::foreign`]) spliced into a
//! program: each hole of a snippet filled by type, from the program's
//! variables or by a backward walk.

use super::Walk;
use crate::foreign::{Snippet, Snippets, HOLE_BASE};
use crate::index::{Index, Ty};
use crate::program::Expr;

/// Tries at a fitting snippet per splice before giving up.
const TRIES: usize = 4;

impl Walk<'_> {
    /// A random snippet with its holes filled for a statement that may use
    /// the variables typed `vars`; `None` when the tries found no snippet
    /// whose holes some type of the graph can fill.
    pub fn snippet(&mut self, snippets: &Snippets) -> Option<Expr> {
        if snippets.is_empty() {
            return None;
        }
        (0..TRIES).find_map(|_| {
            let (snippet, expr) = self.rng.pick(snippets.items());
            fill(snippet, expr.clone(), self)
        })
    }
}

/// `expr` with every hole replaced by a value that has the hole's keys.
fn fill(snippet: &Snippet, mut expr: Expr, walk: &mut Walk<'_>) -> Option<Expr> {
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
fn hole_value(keys: &[String], walk: &mut Walk<'_>) -> Option<Expr> {
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
                let expr = Walk {
                    index: &g.index,
                    config: &g.config,
                    rng: &mut rng,
                    vars: &vars,
                }
                .snippet(&g.snippets)?;
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
}
